"""The live SCTP tunnel (seed 002 Ch. 4; docs/tunnel.md, "Live").

Without root: the tunnel plan of ``scenarios/live-tunnel.toml`` and its refusals, and the
awake-time arithmetic over a schedule. As root (CI): one live run of the scenario, 4 concurrent
Linux TCP flows (2 up, 2 down) through TUN devices and the SCTP tunnel, every byte checked by
SHA-256 at the receiving application, and the client's radio-awake time against the
simulator's on the same file (within 25 %). Tests that need root skip with the reason.
"""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import ROOT, SCENARIOS
from test_live import LIVE_REASON, WATTLAB, _namespaces_of, _run_id_of
import wattlab
from wattlab.live import netns, runner, tunnel
from wattlab.live.netns import LiveError, LiveInputError

SCN = SCENARIOS / "live-tunnel.toml"
BIN = ROOT / "target" / "release" / "wattlab-live"


def _reason() -> str | None:
    if LIVE_REASON:
        return LIVE_REASON
    if not Path("/dev/net/tun").exists():
        return "/dev/net/tun is missing (the TUN driver): the live tunnel needs it"
    return None


REASON = _reason()
needs_tunnel = pytest.mark.skipif(REASON is not None, reason=str(REASON))


def _plan(path: Path) -> subprocess.CompletedProcess:
    if not BIN.is_file():
        pytest.skip("target/release/wattlab-live is not built (make setup builds it)")
    return subprocess.run([str(BIN), "plan", "--scenario", str(path)], capture_output=True, text=True, timeout=60)


# ---- without root -----------------------------------------------------------------------

def test_plan_of_the_live_tunnel_scenario():
    p = _plan(SCN)
    assert p.returncode == 0, p.stderr
    plan = json.loads(p.stdout)
    assert plan["kind"] == "tunnel" and plan["burst"] == 5 and plan["power_save"] == "u-apsd"
    assert plan["trigger_ms"] == [2.0, 102.4]  # t_min = max(2 ms, 1 ms wake), t_max = beacon
    assert [f["up"] for f in plan["flows"]] == [True, True, False, False]
    assert all(f["read_rate_bytes_s"] == 112_500 for f in plan["flows"])
    # 802.11a at 54 Mb/s: DIFS 34 + backoff 67.5 + (PLCP, MAC header, symbol padding) + SIFS 16 + ACK.
    assert 150 <= plan["hop_overhead_us"] <= 200
    assert (plan["wired_rate_bps"], plan["wired_delay_us"], plan["hop_rate_bps"]) == (100_000_000, 10_000, 54_000_000)


def test_plan_refuses_what_a_live_tunnel_cannot_run(tmp_path):
    text = SCN.read_text()
    noreader = tmp_path / "noreader.toml"
    noreader.write_text(text.replace('reader = { rate = "900kbps" }', ''))
    p = _plan(noreader)
    assert p.returncode != 0 and "reader.rate" in p.stderr
    nobss = tmp_path / "nowlan.toml"
    nobss.write_text(text.replace("[[tunnel]]", "[[tunnelx]]"))
    p = _plan(nobss)
    assert p.returncode != 0 and "tunnelx" in p.stderr  # the simulator loader's own error


def test_tunnel_run_refuses_a_policy_and_a_time_limit(tmp_path):
    if not BIN.is_file():
        pytest.skip("target/release/wattlab-live is not built (make setup builds it)")
    with pytest.raises(LiveInputError, match="power_save"):
        runner.run(SCN, policy="psm", out_dir=tmp_path / "a")
    with pytest.raises(LiveInputError, match="time-limit"):
        runner.run(SCN, time_limit=5, out_dir=tmp_path / "b")
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


def test_awake_time_of_a_schedule(tmp_path):
    csv = tmp_path / "t.csv"
    # awake until 1.0 s, doze, awake 2.0-2.5 s, doze 2.5-4 s, awake from 4 s
    csv.write_text("time_ns,state\n1000000000,doze\n2000000000,awake\n2500000000,doze\n4000000000,awake\n")
    assert tunnel.awake_in(csv, 0, 5_000_000_000) == (pytest.approx(2.5), 2)
    assert tunnel.awake_in(csv, 1_500_000_000, 3_000_000_000) == (pytest.approx(0.5), 1)
    assert tunnel.awake_in(csv, 2_200_000_000, 2_400_000_000) == (pytest.approx(0.2), 0)



def _pcap(records, magic=b"\xd4\xc3\xb2\xa1", unit=1000) -> bytes:
    """A little-endian classic pcap (µs or ns magic) with records at the given ns times."""
    import struct

    out = [magic + struct.pack("<HHiIII", 2, 4, 0, 0, 65535, 1)]
    for i, t in enumerate(records):
        body = bytes([i]) * (20 + i)
        out.append(struct.pack("<IIII", t // 10**9, (t % 10**9) // unit, len(body), len(body)) + body)
    return b"".join(out)


def test_trimming_a_capture_keeps_the_window_byte_for_byte(tmp_path):
    """The flows' window is cut by the trace analyzer's crate (no Python loop per record)."""
    src, dst = tmp_path / "in.pcap", tmp_path / "out.pcap"
    times = [1_000_000_000, 2_000_005_000, 3_000_000_000, 4_000_000_000]
    for magic, unit in ((b"\xd4\xc3\xb2\xa1", 1000), (b"\x4d\x3c\xb2\xa1", 1)):
        src.write_bytes(_pcap(times, magic, unit))
        assert tunnel.trim_pcap(src, dst, 2_000_005_000, 4_000_000_000) == 2
        whole = _pcap(times, magic, unit)
        assert dst.read_bytes() == whole[:24] + whole[24 + 16 + 20:24 + 16 + 20 + 16 + 21 + 16 + 22]
    # A pcapng capture (a section header and an Ethernet interface): refused, by name.
    import struct

    shb = struct.pack("<IIIHHqI", 0x0A0D0D0A, 28, 0x1A2B3C4D, 1, 0, -1, 28)
    idb = struct.pack("<IIHHII", 1, 20, 1, 0, 65535, 20)
    src.write_bytes(shb + idb)
    with pytest.raises(LiveError, match="in.pcap.*a pcapng file: only classic pcap"):
        tunnel.trim_pcap(src, dst, 0, 1)
    # A record cut short: the reader's error, with the record's offset.
    src.write_bytes(_pcap(times)[:-5])
    with pytest.raises(LiveError, match=r"in.pcap: packet 3 at byte offset \d+: truncated"):
        tunnel.trim_pcap(src, dst, 0, 2**63)

# ---- as root ----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def live_run(tmp_path_factory):
    if REASON:
        pytest.skip(REASON)
    out = tmp_path_factory.mktemp("live-tunnel")
    ids: list[str] = []
    claim = netns.Testbed.claim
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(netns.Testbed, "claim", lambda self: (ids.append(self.run_id), claim(self))[1])
        res = runner.run(SCN, out_dir=out)
    res.run_ids = ids
    return res


@needs_tunnel
def test_four_tcp_flows_through_the_tunnel_arrive_intact(live_run):
    res = live_run
    f = res.flows
    assert len(f) == 4 and sorted(f.direction) == ["down", "down", "up", "up"]
    assert res.verified, f.to_string()
    # every flow moved at least half its paced rate over the run (112.5 kB/s each)
    assert (f.bytes_received > 0.5 * 112_500 * 7).all(), f.to_string()
    c, a = res.tunnels["client"], res.tunnels["ap"]
    # both ways through the tunnel, nothing malformed or foreign, nothing left behind
    assert c["tun_read"] > 1000 and a["tun_read"] > 1000
    assert c["udp_dropped"] == 0 and a["udp_dropped"] == 0
    assert a["tunnel"]["inner_delivered"] == a["tun_written"] and c["tunnel"]["inner_delivered"] == c["tun_written"]
    assert c["triggers"] > 0  # the estimator's explicit triggers went out
    assert res.emulator["path"]["psm"]["packets_held"] > 0  # U-APSD held downlink frames
    assert len(res.run_ids) == 1 and not _namespaces_of(res.run_ids[0])  # the testbed is gone
    assert (res.out_dir / "summary.json").is_file()


@needs_tunnel
def test_live_awake_time_agrees_with_the_simulator(live_run):
    res = live_run
    sim = wattlab.run(SCN)
    r = sim.radios
    row = r[r.policy == "u-apsd"].iloc[0]
    # Awake = not dozing and not in a transition (the schedule's own time; the energy model
    # costs transitions apart): tx + rx + idle.
    sim_awake = float(row.time_tx_s + row.time_rx_s + row.time_idle_s + row.time_idle_high_s)
    sim_awake *= res.window_s / float(row.duration_s)
    live = res.awake_s
    e = res.radios().set_index("policy").energy_j
    print(f"energy over the window: live u-apsd {e['u-apsd']:.3f} J, always-on {e['always-on']:.3f} J; "
          f"sim u-apsd {row.energy_j:.3f} J, always-on {float(r[r.policy == 'always-on'].energy_j.iloc[0]):.3f} J")
    print(f"awake: live {live:.3f} s ({res.wakes} wakes) vs sim {sim_awake:.3f} s ({int(row.transitions) // 2} wakes) over {res.window_s:.1f} s")
    assert abs(live - sim_awake) <= 0.25 * sim_awake, (live, sim_awake)


def test_live_compare_refuses_a_tunnel_scenario(tmp_path):
    with pytest.raises(LiveInputError, match="live run"):
        runner.compare(SCN, out_dir=tmp_path / "c")


@needs_tunnel
def test_interrupting_a_tunnel_run_leaves_no_namespace(tmp_path):
    out = tmp_path / "run"
    proc = subprocess.Popen([*WATTLAB, "live", "run", str(SCN), "--out", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        rid = _run_id_of(proc.pid)
        deadline = time.monotonic() + 30
        while not list(out.glob("flow_*_send.log")) and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.02)
        assert list(out.glob("flow_*_send.log")), "the run never started its flows"
        time.sleep(1.0)  # into the flows
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
    assert proc.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err
    assert not _namespaces_of(rid) and not netns.lock_path(rid).exists()
