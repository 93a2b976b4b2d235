"""The live testbed (issue 7): real Linux TCP between network namespaces, through wattlab's
userspace emulator, with the client-centered agent on NFQUEUE.

Tests that need root, network namespaces and NFQUEUE skip elsewhere, naming what is missing;
CI runs them as root. Every live run has a time bound and removes its namespaces.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import ROOT, SCENARIOS
from wattlab import live
from wattlab.live import netns, runner

YAN = SCENARIOS / "yan-cc-download.toml"
DOWNLOAD = SCENARIOS / "live-download.toml"
WATTLAB = [str(Path(sys.executable).parent / "wattlab")]


def _live_reason() -> str | None:
    """Why the live tests cannot run here, or None."""
    if os.geteuid() != 0:
        return "the live testbed needs root (network namespaces, iptables); CI runs these tests as root"
    for tool, pkg in netns.TOOLS.items():
        if shutil.which(tool) is None:
            return f"{tool} is missing (Debian package {pkg}; `make setup` installs it as root)"
    probe = "wlprobe-nfq"
    try:
        subprocess.run(["ip", "netns", "add", probe], check=True, capture_output=True, timeout=10)
        r = subprocess.run(["ip", "netns", "exec", probe, "iptables", "-A", "OUTPUT", "-j", "NFQUEUE", "--queue-num", "9"], capture_output=True, text=True, timeout=10)
        if r.returncode != 0:
            return f"iptables NFQUEUE is not available in a network namespace: {r.stderr.strip()}"
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as e:
        return f"cannot create a network namespace: {e}"
    finally:
        subprocess.run(["ip", "netns", "delete", probe], capture_output=True, timeout=10)
    if not (ROOT / "target" / "release" / "wattlab-live").is_file() and "WATTLAB_LIVE_BIN" not in os.environ:
        return "target/release/wattlab-live is not built (make setup builds it)"
    return None


LIVE_REASON = _live_reason()
needs_live = pytest.mark.skipif(LIVE_REASON is not None, reason=str(LIVE_REASON))


def _our_namespaces() -> list[str]:
    return [n for n in netns.list_namespaces() if netns._is_ours(n)] if shutil.which("ip") else []


# ---- without root -----------------------------------------------------------------------


def test_without_root_the_error_says_so(monkeypatch):
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    with pytest.raises(live.LiveError, match="needs root"):
        live.require_root()
    with pytest.raises(live.LiveError, match="needs root"):
        live.run(YAN, "cc", time_limit=5)


def test_cli_without_root_exits_nonzero_with_the_reason(monkeypatch):
    from click.testing import CliRunner

    from wattlab.cli import app

    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    for argv in (["live", "run", str(YAN), "--policy", "cc"], ["live", "compare", str(YAN)], ["live", "cleanup"]):
        r = CliRunner().invoke(app, argv)
        assert r.exit_code == 2, (argv, r.output)
        assert "needs root" in r.output and r.exception is None or isinstance(r.exception, SystemExit)


def test_plan_reads_the_scenario_like_the_simulator():
    if not (ROOT / "target" / "release" / "wattlab-live").is_file():
        pytest.skip("target/release/wattlab-live is not built (make setup builds it)")
    p = runner.load_plan(YAN, "cc")
    assert p["bytes"] == 5_000_000 and p["request"] == 100 and p["port"] == 80
    assert (p["cc"], p["linux_cc"], p["sack"], p["timestamps"]) == ("reno", "reno", False, True)
    assert p["recv_buffer"] == 65535 and p["window_scale"] is None and p["initial_cwnd"] == 2
    assert p["hop_rate_bps"] == 20_000_000 and p["power_save"] == "external" and p["profile"] == "wavelan-dsss"
    assert p["base_rtt_s"] == pytest.approx(0.060, abs=1e-4)
    assert p["overrides"] == ['wireless.0.power_save="cc"']
    assert runner.load_plan(YAN, "psm")["power_save"] == "ideal-psm"
    assert runner.load_plan(YAN, "always-on")["detection"] is None


def test_plan_errors_name_the_problem(tmp_path):
    if not (ROOT / "target" / "release" / "wattlab-live").is_file():
        pytest.skip("target/release/wattlab-live is not built (make setup builds it)")
    with pytest.raises(live.LiveError, match="web.toml: a live run needs exactly one \\[\\[flow\\]\\], of kind \"bulk-download\""):
        runner.load_plan(SCENARIOS / "web.toml", "always-on")
    bad = tmp_path / "bad.toml"
    bad.write_text(YAN.read_text().replace('rate = "20Mbps"', 'rate = "20 parsecs"'))
    with pytest.raises(live.LiveError, match="bad.toml:[0-9]+"):
        runner.load_plan(bad, "cc")
    with pytest.raises(live.LiveError, match="Tahoe"):
        runner.load_plan(YAN, "always-on", ["flow.0.tcp.cc=tahoe"])
    with pytest.raises(live.LiveError, match="unknown live policy"):
        runner.load_plan(YAN, "bsd")


# ---- live (root) ------------------------------------------------------------------------


@needs_live
def test_always_on_download_is_intact_at_the_emulated_rate(tmp_path, tcpdump):
    res = live.run(DOWNLOAD, "always-on", out_dir=tmp_path, time_limit=60)
    assert res.verified, res.fetch
    rate = res.plan["hop_rate_bps"]
    # Goodput over the data phase, from the first byte to the FIN: the hop is the bottleneck,
    # so it approaches but never exceeds the emulated rate (payload is 1448/1500 of a frame).
    data_s = (res.fetch["done_ns"] - res.fetch["first_byte_ns"]) / 1e9
    goodput = res.fetch["bytes"] * 8 / data_s
    assert 0.75 * rate < goodput <= rate * 1448 / 1500 * 1.01, goodput
    assert not _our_namespaces()
    p = subprocess.run([tcpdump, "-nr", str(tmp_path / "client.pcap")], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert len(p.stdout.splitlines()) > 3000
    e = res.energy.energy.set_index("policy")
    assert e.loc["oracle", "energy_j"] < e.loc["always-on", "energy_j"]
    assert (tmp_path / "summary.json").is_file() and (tmp_path / "energy" / "energy.csv").is_file()


@needs_live
def test_cc_agent_shapes_real_tcp_and_saves_energy_with_loss(tmp_path):
    res = live.run(YAN, "cc", out_dir=tmp_path, overrides=["wireless.0.down.loss.p=0.01"], time_limit=90)
    assert res.verified, res.fetch
    a = res.agent["agent"]
    assert a["shaped_connections"] == 1 and a["closed_acks"] > 50 and a["open_acks"] > 10
    assert a["probes"] > 5 and a["probe_responses"] > 0  # the kernel answers the window probes
    assert res.agent["host"]["injected"] >= a["open_acks"] + a["probes"]
    # Closed (window 0) and open (window > 0) ACKs from the client are in the capture.
    windows = _client_ack_windows(tmp_path / "client.pcap")
    assert windows.count(0) > 50 and sum(1 for w in windows if w > 0) > 10
    e = res.energy.energy.set_index("policy")
    assert e.loc["replay", "energy_j"] < e.loc["always-on", "energy_j"]
    assert e.loc["replay", "time_sleep_s"] > 0.5
    assert res.transfer_time_s < 90


def _client_ack_windows(pcap: Path) -> list[int]:
    """Window field of every TCP segment the client sent, as tcpdump reads the capture."""
    p = subprocess.run(["tcpdump", "-nr", str(pcap), f"tcp and src host {netns.CLIENT_ADDR}"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    return [int(m) for m in re.findall(r" win (\d+)", p.stdout)]


@needs_live
def test_sim_and_live_agree_on_time_and_cc_saving(tmp_path):
    # A live run is a single sample of real time: when the VM stalls, verdicts and timers run
    # milliseconds late and packets meet delays the scenario does not have (measured: 14–20 ms
    # stalls in one CI run, 7 packets lost asleep). Such a run is repeated once, not accepted.
    for attempt in range(2):
        df = live.compare(YAN, out_dir=tmp_path / f"attempt{attempt}", time_limit=90)
        t = df.set_index(["mode", "policy"])
        within = abs(t.loc[("live", "cc"), "saving"] - t.loc[("sim", "cc"), "saving"]) <= 0.10
        if within or df[df["mode"] == "live"].host_late_max_ms.max() < 5.0:
            break
    assert bool(t.loc[("live", "always-on"), "verified"]) and bool(t.loc[("live", "cc"), "verified"])
    sim_t, live_t = t.loc[("sim", "always-on"), "transfer_time_s"], t.loc[("live", "always-on"), "transfer_time_s"]
    assert abs(live_t / sim_t - 1) <= 0.20, (sim_t, live_t)
    sim_s, live_s = t.loc[("sim", "cc"), "saving"], t.loc[("live", "cc"), "saving"]
    assert abs(live_s - sim_s) <= 0.10, (sim_s, live_s)
    assert (tmp_path / f"attempt{attempt}" / "compare.csv").is_file()


@needs_live
def test_interrupting_a_run_leaves_no_namespace(tmp_path):
    proc = subprocess.Popen([*WATTLAB, "live", "run", str(YAN), "--policy", "cc", "--out", str(tmp_path), "--time-limit", "60"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not _our_namespaces():
        time.sleep(0.05)
    assert _our_namespaces(), "the run never created its namespaces"
    time.sleep(1.5)  # into the transfer
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode != 0
    assert "interrupted" in err and "Traceback" not in err
    assert not _our_namespaces()


@needs_live
def test_cleanup_removes_only_our_leftovers():
    ours, other, lookalike = "wl0badc0de-client", "wlx-not-ours", "wlnothex00-client"
    assert not netns._is_ours(lookalike) and netns._is_ours(ours)
    for n in (ours, other):
        subprocess.run(["ip", "netns", "add", n], check=True, timeout=10)
    try:
        assert live.cleanup() == [ours]
        names = netns.list_namespaces()
        assert ours not in names and other in names
    finally:
        subprocess.run(["ip", "netns", "delete", other], capture_output=True, timeout=10)
