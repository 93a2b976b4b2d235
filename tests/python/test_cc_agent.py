"""Seed 000's client-centered agent through the Python API and the CLI: its counters and log,
the closed/open ACKs and window probes in a capture tcpdump reads, and web browsing."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import wattlab

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"
DOWNLOAD = SCENARIOS / "yan-cc-download.toml"
WEB = SCENARIOS / "web.toml"


def test_agent_counters_and_log_reach_python(tmp_path):
    res = wattlab.run(DOWNLOAD, overrides=["flow.ftp.bytes=2MB"], out_dir=tmp_path)
    assert res.summary["completed"]
    a = res.agents.iloc[0]
    assert a.node == "client" and a.detection == "active"
    assert a.bursts > 10 and a.open_acks >= a.bursts and a.probes > 10
    ev = res.agent_events
    assert set(ev.columns) == {"time_s", "node", "conn", "event"}
    assert ev.event.str.startswith("open-ack").sum() == a.open_acks + a.open_acks_resent
    assert (ev.event == "shaping").sum() == 1
    assert ev.time_s.is_monotonic_increasing
    # The meter that follows the agent spends less than the radio left on.
    assert res.energy("cc") < 0.8 * res.energy("always-on")
    written = {p.name for p in res.write(tmp_path)}
    assert {"agents.csv", "agent_events.csv"} <= written


def test_closed_and_open_acks_and_probes_are_in_the_capture(tmp_path, tcpdump):
    res = wattlab.run(DOWNLOAD, overrides=["flow.ftp.bytes=1MB"], out_dir=tmp_path, pcap=["client:wlan0"])
    out = subprocess.run(
        [tcpdump, "-nn", "-r", str(tmp_path / "client-wlan0.pcap")], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    client_acks = [l for l in out.stdout.splitlines() if " > 10.0.0.1.80:" in l and "length 0" in l]
    wins = [int(m.group(1)) for l in client_acks if (m := re.search(r"win (\d+)", l))]
    closed = sum(w == 0 for w in wins)
    opened = sum(w > 0 for w in wins)
    a = res.agents.iloc[0]
    assert closed >= a.closed_acks * 0.9, (closed, a.closed_acks)
    assert opened >= a.open_acks


def test_web_browsing_with_the_agent_matches_tcp_time_and_saves_energy():
    sets = ["flow.web.pages=15"]
    cam = wattlab.run(WEB, overrides=sets + ['wireless.wlan.power_save="cam"'])
    cc = wattlab.run(WEB, overrides=sets + ['wireless.wlan.power_save="cc"'])
    t_cam = cam.flows.completion_time_s.iloc[0]
    t_cc = cc.flows.completion_time_s.iloc[0]
    assert t_cc <= 1.05 * t_cam
    assert cc.energy("cc") < 0.5 * cam.energy("always-on")
    # The page tables are the same workload in both runs.
    assert len(cc.pages) == len(cam.pages) == 15
    assert cc.agents.iloc[0].connections >= 2
