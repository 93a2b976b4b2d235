"""The trace analyzer end to end: known truth from simulator captures and hand-built pcaps,
the CLI's outputs, and its errors."""

from __future__ import annotations

import json
import re
import struct
import subprocess
import sys
from pathlib import Path

import pytest

import wattlab
import wattlab.trace
from conftest import SCENARIOS

CLIENT = "10.0.0.2"
SERVER = "10.0.0.9"


def ipv4(src: str, dst: str, total_len: int, proto: int = 17, sport: int = 5000, dport: int = 6000) -> bytes:
    """An IPv4 packet of `total_len` bytes (UDP by default), header checksum left 0."""
    a = bytes(int(x) for x in src.split("."))
    b = bytes(int(x) for x in dst.split("."))
    hdr = struct.pack("!BBHHHBBH4s4s", 0x45, 0, total_len, 0, 0, 64, proto, 0, a, b)
    body = struct.pack("!HHHH", sport, dport, total_len - 20, 0) if proto == 17 else b""
    return hdr + body + bytes(total_len - len(hdr) - len(body))


def write_pcap(path: Path, packets: list[tuple[float, bytes]]) -> Path:
    """Classic nanosecond pcap, link type RAW (101)."""
    with path.open("wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, 65535, 101))
        for t, data in packets:
            ns = round(t * 1e9)
            f.write(struct.pack("<IIII", ns // 10**9, ns % 10**9, len(data), len(data)) + data)
    return path


def demo_capture(tmp_path: Path, size: str = "1MB") -> tuple[wattlab.RunResult, Path]:
    res = wattlab.run(
        SCENARIOS / "demo.toml", seed=1, overrides=[f"flow.download.bytes={size}"], out_dir=tmp_path, pcap=["client:wlan0"]
    )
    return res, tmp_path / "client-wlan0.pcap"


def test_link_airtime_reproduces_the_simulators_radio_energy(tmp_path):
    """The `link` airtime is what the simulator's [[wireless]] hop charges, so the trace of the
    client's interface must cost what the simulator metered: the only differences are frames
    the hop lost (the radio received them, the capture has them not) and the run's end."""
    res, pcap = demo_capture(tmp_path)
    t = wattlab.trace.energy(pcap, profile="wavelan-dsss", phy="link@20", policies=["always-on", "oracle"])
    assert t.capture["client"] == "10.0.0.3" and t.capture["choice"] == "busiest"
    assert t.capture["ties"] == ["10.0.0.1"] and any("tied with 10.0.0.1" in n for n in t.notes)
    sim = res.radios.set_index("policy")
    e = t.energy.set_index("policy")
    for pol in ("always-on", "oracle"):
        assert e.energy_j[pol] == pytest.approx(sim.energy_j[pol], rel=1e-3), pol
    # The simulator's wireless pipes are full duplex, the radio half duplex: where the client's
    # ACK starts a microsecond before a data frame has fully arrived, the simulator's meter
    # clips the overlap and the analyzer defers the ACK. Lost frames (600 us each) were
    # received but not captured. A frame still on the air when the simulation ends is cut there.
    lost = res.links.set_index("name").loc["wlan:ap->client"].losses
    gap = abs(sim.time_tx_s["always-on"] - e.time_tx_s["always-on"]) + abs(sim.time_rx_s["always-on"] - e.time_rx_s["always-on"])
    cut = abs(e.duration_s["always-on"] - sim.duration_s["always-on"])
    slack = e.clipped_activity_s["always-on"] + sim.clipped_activity_s["always-on"] + lost * 600e-6 + cut
    assert gap <= slack + 1e-6
    # Always-on closed form: duration × idle plus the tx/rx increments over idle (mW · s = mJ).
    p = t.profile["power_mw"]
    r = e.loc["always-on"]
    closed = r.duration_s * p["idle"] + r.time_tx_s * (p["tx"] - p["idle"]) + r.time_rx_s * (p["rx"] - p["idle"])
    assert r.energy_j == pytest.approx(closed / 1e3, rel=1e-9)
    assert e.energy_j["oracle"] <= e.energy_j["always-on"]
    # Attribution splits each total exactly across the connections (and the lead-in).
    per = t.attribution.groupby("policy").total_j.sum()
    for pol in ("always-on", "oracle"):
        assert per[pol] == pytest.approx(e.energy_j[pol], rel=1e-12)
    assert len(t.connections) == 1 and t.connections.proto[0] == "tcp" and t.connections.remote_port[0] == 80


def test_80211_airtime_and_policy_ordering(tmp_path):
    _, pcap = demo_capture(tmp_path, "500kB")
    t = wattlab.trace.energy(pcap, client="10.0.0.3", profile="atheros-ar5004", phy="802.11a@54")
    e = t.energy.set_index("policy")
    assert list(e.index) == ["always-on", "oracle", "psm", "adaptive-psm"]
    assert e.energy_j["oracle"] <= e.energy_j["always-on"]
    assert e.energy_j["oracle"] <= e.energy_j["psm"] + 1e-9
    # Same frames under every policy; PSM adds beacon receptions.
    assert e.time_tx_s.nunique() == 1 and (e.time_rx_s >= e.time_rx_s["always-on"]).all()
    assert e.beacons["psm"] > 0 and e.beacons["always-on"] == 0
    # MAC ACKs: the client transmits one per data frame received, so tx time exceeds the
    # airtime of its own (small) packets alone.
    assert e.time_tx_s["always-on"] > 0 and e.clipped_activity_s["always-on"] < 0.01 * e.time_rx_s["always-on"]
    # TCP ACKs sent the instant a data frame arrives wait for the MAC ACK of that frame.
    assert t.capture["deferred_packets"] > 0
    # Every state's time adds up to the run.
    cols = [f"time_{s}_s" for s in wattlab.trace.STATES] + ["time_transitions_s"]
    assert (e[cols].sum(axis=1) - e.duration_s).abs().max() < 1e-9


def test_psm_on_a_hand_built_pattern_gives_the_hand_computed_timeline(tmp_path):
    """Three 1000-byte packets on a 10 Mb/s link (800 us each), PSM with 100 ms beacons of
    1 ms, WaveLAN DSSS (wake-up 2 ms, free down). The run starts at the first frame (t0)."""
    t0 = 1000.0
    pcap = write_pcap(
        tmp_path / "hand.pcap",
        [
            (t0, ipv4(CLIENT, SERVER, 1000)),  # up: tx [0, 0.8 ms)
            (t0 + 0.0018, ipv4(SERVER, CLIENT, 1000, sport=6000, dport=5000)),  # down: rx [1.0, 1.8 ms)
            (t0 + 0.2500, ipv4(CLIENT, SERVER, 1000)),  # up: tx [250, 250.8 ms)
        ],
    )
    t = wattlab.trace.energy(
        pcap, client=CLIENT, profile="wavelan-dsss", phy="link@10", policies=["psm:beacon=100ms,listen=1ms"]
    )
    got = [(round(x * 1e6), s) for x, s in zip(t.timeline.time_s, t.timeline.state)]
    us = lambda ms: round(ms * 1000)
    assert got == [
        (0, "tx"),
        (us(0.8), "idle"),  # 0.2 ms gap < 2 ms wake-up: cannot doze
        (us(1.0), "rx"),
        (us(1.8), "sleep"),
        (us(100), "rx"),  # beacon
        (us(101), "sleep"),
        (us(200), "rx"),  # beacon
        (us(201), "sleep"),
        (us(250), "tx"),
    ]
    e = t.energy.iloc[0]
    assert e.beacons == 2 and e.transitions == 6
    # Sleep: (100 - 1.8 - 2) + (200 - 101 - 2) + (250 - 201 - 2) ms = 240.2 ms.
    assert e.time_sleep_s == pytest.approx(0.2402, abs=1e-9)
    assert e.duration_s == pytest.approx(0.2508, abs=1e-9)
    # Attribution: the second connection does not exist (one UDP flow each way is one key).
    assert len(t.connections) == 1 and t.connections.packets_up[0] == 2


def _twt_capture(tmp_path: Path) -> Path:
    """Two 1000-byte receptions and a send on a 10 Mb/s link (800 us each), from t0."""
    t0 = 1000.0
    return write_pcap(
        tmp_path / "twt.pcap",
        [
            (t0 + 0.0008, ipv4(SERVER, CLIENT, 1000, sport=6000, dport=5000)),  # rx [0, 0.8 ms): SP 0, at once
            (t0 + 0.0508, ipv4(SERVER, CLIENT, 1000, sport=6000, dport=5000)),  # starts at 50 ms: held to 100 ms
            (t0 + 0.0700, ipv4(CLIENT, SERVER, 1000)),  # the client sends at 70 ms
        ],
    )


def test_twt_holds_received_packets_until_a_service_period(tmp_path):
    """twt:interval=100ms,duration=5ms (SPs at 0 and 100 ms): the reception starting at 50 ms
    is delivered at 100 ms; the radio is awake in SP 0, dozes, wakes to send, dozes."""
    pcap = _twt_capture(tmp_path)
    spec = "twt:interval=100ms,duration=5ms"
    t = wattlab.trace.energy(pcap, client=CLIENT, profile="wavelan-dsss", phy="link@10", policies=["always-on", spec])
    w = t.twt[spec]
    assert (w["received"], w["held"], w["service_periods"], w["deferred_sends"]) == (2, 1, 2, 0)
    assert w["delay_mean_s"] == pytest.approx(0.025, abs=1e-12)
    assert w["delay_p95_s"] == w["delay_max_s"] == pytest.approx(0.050, abs=1e-12)
    row = t.energy.set_index("policy").loc[spec]
    assert (row.held_packets, row.delay_max_ms, row.service_periods) == (1, pytest.approx(50.0), 2)
    assert t.energy.set_index("policy").loc["always-on"].delay_mean_ms != t.energy.set_index("policy").loc["always-on"].delay_mean_ms  # NaN
    # Both rows span the run to the last delivery (100.8 ms).
    assert list(t.energy.duration_s) == [pytest.approx(0.1008, abs=1e-12)] * 2
    got = [(round(x * 1e6), s) for x, s in zip(t.timeline[t.timeline.policy == spec].time_s, t.timeline[t.timeline.policy == spec].state)]
    # WaveLAN DSSS wakes in 2 ms: the doze before the send ends at 68 ms.
    assert got[:4] == [(0, "rx"), (800, "idle"), (5000, "sleep"), (70000, "tx")]
    assert got[4:] == [(70800, "sleep"), (100000, "rx")]
    assert t.summary()["twt"][spec]["held"] == 1
    assert t.energy.set_index("policy").loc[spec].beacons == 0  # a TWT station listens to none
    # The last delivery (100.8 ms) is 30 ms after the capture's last interval (the send's end,
    # 70.8 ms): less than an interval, so no note about piling up.
    assert w["late_end_s"] == pytest.approx(0.030, abs=1e-12)
    assert not any("cannot carry" in n for n in t.notes)
    # SPs of 1 ms every 100 ms: the 50 ms packet waits as long, and a burst of 20 receptions
    # (16 ms of airtime) at 60 ms needs 16 SPs: the note says the SPs cannot carry the traffic.
    t0 = 1000.0
    burst = [(t0 + 0.0008, ipv4(SERVER, CLIENT, 1000, sport=6000, dport=5000))]
    burst += [(t0 + 0.0608 + 0.0008 * k, ipv4(SERVER, CLIENT, 1000, sport=6000, dport=5000)) for k in range(20)]
    slow = "twt:interval=100ms,duration=1ms"
    t = wattlab.trace.energy(write_pcap(tmp_path / "burst.pcap", burst), client=CLIENT, profile="wavelan-dsss", phy="link@10",
                             policies=[slow])
    assert t.twt[slow]["held"] == 20 and any(n.startswith(slow + ": the service periods cannot carry") for n in t.notes), t.notes


def test_cli_prints_the_twt_delays(tmp_path):
    pcap = _twt_capture(tmp_path)
    p = run_cli(str(pcap), "--client", CLIENT, "--phy", "link@10", "--policy", "twt:interval=100ms,duration=5ms", "--no-plot")
    assert p.returncode == 0, p.stderr
    assert "TWT: received packets held until a service period" in p.stdout
    row = next(line for line in p.stdout.splitlines() if "1 / 2" in line)
    assert "25.000" in row and "50.000" in row, p.stdout


EB_DATA = Path(__file__).resolve().parents[1] / "data" / "energybox"
EB_FILES = [EB_DATA / "samsungS2_wifi.config", EB_DATA / "wifi_default.config"]
"""EnergyBox's own Samsung Galaxy S2 device file (watts) and its default Wi-Fi settings."""


def test_adaptive_psm_over_a_sliding_window_with_energybox_powers(tmp_path):
    """EnergyBox's powers (its own S2 file, in watts) with wattlab's sliding window and PHY
    airtime: a 40 ms burst of 1500-byte packets every 2 ms puts the radio in CAMH, then CAM
    until the inactivity timeout, then PSM."""
    t0 = 50.0
    pkts = [(t0 + k * 0.002, ipv4(SERVER, CLIENT, 1500)) for k in range(20)]
    pkts.append((t0 + 1.0, ipv4(CLIENT, SERVER, 100)))
    pcap = write_pcap(tmp_path / "burst.pcap", pkts)
    t = wattlab.trace.energy(pcap, client=CLIENT, energybox=EB_FILES, phy="link@54", tail_s=0,
                             policies=["adaptive-psm:window=sliding,bytes=ip", "always-on"])
    assert t.profile["name"] == "energybox" and t.profile["power_mw"]["idle_high"] == 450
    assert t.profile["power_mw"]["idle"] == 250 and t.profile["power_mw"]["sleep"] == 30
    assert any("PSM_TO_CAM_THRESHOLD" in n for n in t.notes)
    r = t.energy.set_index("policy").loc["adaptive-psm:window=sliding,bytes=ip"]
    # High from the third packet (4 ms: 4500 B > 3000 B in the window) until only two packets
    # are left in the window (the 18th leaves at 34 + 50 = 84 ms), minus the 17 frames
    # received meanwhile (1500 B at 54 Mb/s = 222.2 us each).
    assert r.time_idle_high_s == pytest.approx(0.080 - 17 * 1500 * 8 / 54e6, abs=17e-9)  # frames round to the ns
    # Asleep from 200 ms after the burst's last packet until the last packet (1 s), no beacons
    # charged (EnergyBox's PSM power already averages them).
    assert r.time_sleep_s == pytest.approx(1.0 - 0.038 - 0.2, abs=1e-9)
    assert r.beacons == 0
    assert r.energy_j < t.energy.set_index("policy").energy_j["always-on"]


def test_energybox_files_cost_in_joules_as_energybox_does():
    """EnergyBox's files switch the defaults to its model (no airtime, fixed windows over frame
    lengths, 200 ms costed after the last packet) and give its order of magnitude: the watts
    of its files read as milliwatts made every energy 1000 times too small."""
    cap = EB_DATA / "web10.pcap"
    ref = json.loads((EB_DATA / "energybox_results.json").read_text())["captures"]["web10.pcap"]
    t = wattlab.trace.energy(cap, energybox=EB_FILES, policies=["adaptive-psm", "always-on"])
    assert t.capture["airtime"] == "instant" and t.capture["tail_ns"] == 200_000_000
    assert any("EnergyBox emulation" in n for n in t.notes)
    e = t.energy.set_index("policy")
    # EnergyBox: 2.1701 J; its definition costed exactly, 2.0675 J: CAMH streaks that its
    # engine carries across the low windows between a page's bursts (docs/trace.md).
    assert e.energy_j["adaptive-psm"] == pytest.approx(ref["power"], rel=0.05)
    assert e.time_sleep_s["adaptive-psm"] == pytest.approx(ref["time_in_psm"], abs=1e-5)
    # Always-on: CAM (0.25 W) for the whole span, first packet to 200 ms after the last;
    # not part of EnergyBox's model, labelled so, and nothing is a share of it.
    span = (t.capture["end_ns"] - t.capture["start_ns"]) / 1e9
    assert e.energy_j["always-on"] == pytest.approx(0.25 * span, rel=1e-9)
    assert e.model["always-on"] == "wattlab (EnergyBox settings)" and e.model["adaptive-psm"] == "EnergyBox (definition)"
    assert e.vs_always_on.isna().all()
    assert any("always-on is costed with its powers for reference" in n for n in t.notes)


@pytest.mark.parametrize("name", sorted(json.loads((EB_DATA / "energybox_results.json").read_text())["captures"]))
def test_energybox_mode_gives_energybox_own_number(name):
    """Issue 27 item 6: with EnergyBox's files the rows are the ones its model defines: its own
    number (the `energybox` row: its engine emulated, artifacts included), equal to what
    EnergyBox computed and printed on each capture it was run on, and its definition costed
    exactly (adaptive-psm); no always-on, oracle or psm row, no share of always-on."""
    ref = json.loads((EB_DATA / "energybox_results.json").read_text())["captures"][name]
    t = wattlab.trace.energy(EB_DATA / name, energybox=EB_FILES)
    e = t.energy.set_index("policy")
    assert list(e.index) == ["energybox", "adaptive-psm"]
    assert list(e.model) == ["EnergyBox (engine)", "EnergyBox (definition)"]
    assert e.vs_always_on.isna().all() and t.capture["energybox_mode"] is True
    assert e.energy_j["energybox"] == ref["power"]
    assert e.energybox_j["energybox"] == ref["total_power_joules"]
    assert (e.time_sleep_s["energybox"], e.time_idle_s["energybox"], e.time_idle_high_s["energybox"]) == (
        ref["time_in_psm"], ref["time_in_cam"], ref["time_in_camh"])
    assert any(n.startswith("energybox: EnergyBox's own number") for n in t.notes)
    assert t.energybox["energybox"]["printed_j"] == ref["total_power_joules"] and "artifacts" in t.summary()["energybox"]["energybox"]


def test_energybox_mode_table_shows_its_printed_number_and_the_model(tmp_path):
    """The CLI's table in EnergyBox's model: EnergyBox's total as it prints it (0.0523 J, its
    rounding of 0.05225 J), a `model` column instead of the share of always-on, and a row
    not in its model labelled."""
    args = [str(EB_DATA / "burst10_only.pcap")] + sum((["--energybox", str(f)] for f in EB_FILES), [])
    p = run_cli(*args, "--policy", "energybox", "--policy", "adaptive-psm", "--policy", "oracle")
    assert p.returncode == 0, p.stderr
    out = re.sub(r"\s+", " ", p.stdout)
    assert "EnergyBox's model" in out and "of always-on" not in out
    assert re.search(r"energybox 0\.0523 energybox", out), out
    assert re.search(r"oracle [0-9.]+ not EB", out), out
    # Its 9 frames before the last (1500 bytes each) are in the last, partial window.
    assert "the last, partial window (13500 bytes, above the 3000 threshold) never counted" in re.sub(r"\s+", " ", p.stderr)
    js = json.loads(run_cli(*args, "--json").stdout)
    assert [(r["policy"], r["model"]) for r in js["policies"]] == [("energybox", "EnergyBox (engine)"), ("adaptive-psm", "EnergyBox (definition)")]
    assert js["policies"][0]["energybox_j"] == 0.0523


def test_energybox_file_in_milliwatts_is_refused(tmp_path):
    dev = tmp_path / "device.config"
    dev.write_text("TYPE=DeviceWifi\nPOWER_IN_PSM=30\nPOWER_IN_CAM=250\nPOWER_IN_CAMH=450\n")
    r = run_cli(str(EB_DATA / "single.pcap"), "--energybox", str(dev))
    assert r.returncode == 2
    assert "line 2" in r.stderr and "POWER_IN_PSM" in r.stderr and "watts" in r.stderr
    assert "Traceback" not in r.stderr


def test_replay_of_a_recorded_schedule(tmp_path):
    pcap = write_pcap(
        tmp_path / "r.pcap",
        [(10.0, ipv4(CLIENT, SERVER, 500)), (10.5, ipv4(SERVER, CLIENT, 500, sport=6000, dport=5000)), (11.0, ipv4(CLIENT, SERVER, 500))],
    )
    sched = tmp_path / "transitions.csv"
    # Asleep from 10.1 s to 10.9 s: the packet received at 10.5 s is never heard.
    sched.write_text("time_s,state\n10.1,sleep\n10.9,awake\n")
    t = wattlab.trace.energy(pcap, client=CLIENT, profile="wavelan-turbo-2mbps", phy="link@1", transitions=sched, policies=["replay", "always-on"])
    r = t.energy.set_index("policy").loc["replay"]
    assert r.rx_while_dormant == 1 and r.time_rx_s == 0
    assert r.time_sleep_s == pytest.approx(0.8, abs=1e-9)


def run_cli(*args: str, timeout: int = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "wattlab.cli", "trace", "energy", *args], capture_output=True, text=True, timeout=timeout)


def test_cli_writes_tables_timelines_and_a_figure(tmp_path):
    _, pcap = demo_capture(tmp_path / "sim", "300kB")
    out = tmp_path / "res"
    p = run_cli(str(pcap), "--client", "10.0.0.3", "--profile", "wavelan-dsss", "--out", str(out), "--policy", "always-on", "--policy", "psm:beacon=204.8ms")
    assert p.returncode == 0, p.stderr
    assert "Radio energy per policy" in p.stdout and "psm:beacon=204.8ms" in p.stdout and "Energy by connection" in p.stdout
    for f in ("summary.json", "energy.csv", "states.csv", "connections.csv", "attribution.csv", "throughput.csv", "timeline.png"):
        assert (out / f).is_file(), f
    assert (out / "timeline.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    tl = sorted(out.glob("timeline_*.csv"))
    assert [f.name for f in tl] == ["timeline_0_always-on.csv", "timeline_1_psm-beacon-204.8ms.csv"]
    lines = tl[1].read_text().splitlines()
    assert lines[0] == "time_s,state" and len(lines) > 10
    times = [float(l.split(",")[0]) for l in lines[1:]]
    assert times == sorted(times)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["capture"]["client"] == "10.0.0.3" and len(summary["policies"]) == 2
    # A second run into the same directory must not silently replace the first.
    again = run_cli(str(pcap), "--out", str(out))
    assert again.returncode == 2 and "--overwrite" in again.stderr
    assert run_cli(str(pcap), "--out", str(out), "--overwrite", "--no-plot").returncode == 0
    js = run_cli(str(pcap), "--json", "--policy", "oracle")
    assert js.returncode == 0 and json.loads(js.stdout)["policies"][0]["policy"] == "oracle"


@pytest.mark.parametrize(
    "args, message",
    [
        (["--policy", "sleepy"], "unknown policy `sleepy`"),
        (["--policy", "replay"], "--transitions"),
        (["--profile", "no-such-card"], "unknown device profile"),
        (["--phy", "802.11z"], "unknown PHY"),
        (["--client", "10.9.9.9"], "no packets to or from 10.9.9.9"),
        (["--client", "not-an-ip"], "not an IPv4 or IPv6 address"),
        (["--phy", "link@1e-9"], "out of range (0.001 to 100000 Mb/s)"),
        (["--policy", "psm:beacon=1ns"], "1 to 65535 TU"),
        (["--tail", "1e12"], "out of range (0 to 1 day)"),
        (["--policy", "energybox"], "EnergyBox's engine needs its device settings"),
        (["--policy", "twt:interval=100ms"], "`twt` needs its agreement's `interval` and `duration`"),
        (["--policy", "twt:interval=10ms,duration=10ms"], "`duration` 10 ms must be above 0 and shorter than the interval"),
    ],
)
def test_cli_rejects_bad_options_clearly(tmp_path, args, message):
    pcap = write_pcap(tmp_path / "x.pcap", [(1.0, ipv4(CLIENT, SERVER, 100))])
    p = run_cli(str(pcap), *args)
    assert p.returncode == 2 and message in p.stderr and "Traceback" not in p.stderr, p.stderr


def test_cli_bad_captures_name_the_packet_and_offset(tmp_path):
    good = write_pcap(tmp_path / "g.pcap", [(1.0, ipv4(CLIENT, SERVER, 100)), (2.0, ipv4(CLIENT, SERVER, 100))])
    cut = tmp_path / "cut.pcap"
    cut.write_bytes(good.read_bytes()[:-30])
    p = run_cli(str(cut), "--client", CLIENT)
    assert p.returncode == 2 and "cut.pcap" in p.stderr and "packet 1" in p.stderr and "byte offset 140" in p.stderr, p.stderr
    junk = tmp_path / "junk.pcap"
    junk.write_bytes(b"this is not a capture at all")
    p = run_cli(str(junk))
    assert p.returncode == 2 and "not a pcap or pcapng file" in p.stderr
    empty = write_pcap(tmp_path / "empty.pcap", [])
    p = run_cli(str(empty))
    assert p.returncode == 2 and "no IP packets" in p.stderr
    p = run_cli(str(tmp_path / "missing.pcap"))
    assert p.returncode == 2 and "no such capture file" in p.stderr


# ---- Hostile input (issue 16): bad timestamps, options out of range, bugs ----

def _download(t0: float = 1_700_000_000.0, n: int = 40, spacing: float = 0.05) -> list[tuple[float, bytes]]:
    """Two 1500-byte packets down per 100-byte packet up, `spacing` s apart."""
    return [(t0 + k * spacing, ipv4(SERVER, CLIENT, 1500, sport=6000, dport=5000) if k % 3 else ipv4(CLIENT, SERVER, 100)) for k in range(n)]


def _offset(packets: list[tuple[float, bytes]], i: int) -> int:
    """Byte offset of record `i` in write_pcap's file."""
    return 24 + sum(16 + len(d) for _, d in packets[:i])


def test_a_packet_ten_years_late_is_costed_under_a_memory_limit_without_killing_python(tmp_path):
    """One packet 10 years late made the analyzer ask for 100 GB and abort the interpreter. In a
    child Python limited to 1 GB of address space: refused as a TraceError (an Exception), and
    accepted, costed in seconds with every policy and the timeline in memory."""
    pkts = _download()
    pkts[20] = (pkts[20][0] + 10 * 365 * 86400, pkts[20][1])
    cap = write_pcap(tmp_path / "late.pcap", pkts)
    child = f"""
import json, resource, time
resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
import wattlab.trace
try:
    wattlab.trace.energy({str(cap)!r}, client={CLIENT!r})
    raise SystemExit("not refused")
except Exception as e:
    assert isinstance(e, wattlab.trace.TraceError), type(e)
    refusal = str(e)
t = time.time()
r = wattlab.trace.energy({str(cap)!r}, client={CLIENT!r}, accept_odd_times=True, bin_s=1e-6)
print(json.dumps({{"refusal": refusal, "seconds": time.time() - t, "warnings": r.warnings,
                  "bins": len(r.throughput), "rows": len(r.timeline), "energy": list(r.energy.energy_j),
                  "elided": list(r.energy.timeline_elided_beacons)}}))
"""
    env = {**__import__("os").environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    p = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, timeout=120, env=env)
    assert p.returncode == 0, p.stderr[-3000:]
    out = json.loads(p.stdout.strip().splitlines()[-1])
    assert f"packet 20 at byte offset {_offset(pkts, 20)}: a gap of 9.99 years" in out["refusal"]
    assert out["seconds"] < 30 and out["bins"] <= 40 and out["rows"] < 50_000
    assert any("gap longer than 1.00 days" in w for w in out["warnings"])
    assert all(e > 0 for e in out["energy"]) and max(out["elided"]) > 1_000_000


@pytest.mark.parametrize(
    "case, message",
    [
        ("late-then-back", "packet 21 at byte offset {off21}: time goes backwards by 2047.950 s"),
        ("reversed", "packet 1 at byte offset {off1}: time goes backwards by 50.000 ms"),
        ("fraction", "packet 5 at byte offset {off5}: its sub-second field is out of range"),
        ("ffffffff", "a gap of 82.23 years"),
    ],
)
def test_odd_timestamps_are_refused_with_exit_2_naming_the_packet(tmp_path, case, message):
    pkts = _download()
    if case == "late-then-back":
        pkts[20] = (pkts[20][0] + 2048, pkts[20][1])
    elif case == "reversed":
        pkts.reverse()
    cap = write_pcap(tmp_path / f"{case}.pcap", pkts)
    raw = bytearray(cap.read_bytes())
    if case == "fraction":
        struct.pack_into("<I", raw, _offset(pkts, 5) + 4, 2_000_000_000)
    if case == "ffffffff":
        struct.pack_into("<I", raw, _offset(pkts, 39), 0xFFFFFFFF)
    cap.write_bytes(bytes(raw))
    p = run_cli(str(cap), "--client", CLIENT)
    want = message.format(off21=_offset(pkts, 21), off1=_offset(pkts, 1), off5=_offset(pkts, 5))
    assert p.returncode == 2 and want in p.stderr and str(cap) in p.stderr, p.stderr
    assert "--accept-odd-times" in p.stderr and "Traceback" not in p.stderr
    with pytest.raises(wattlab.trace.TraceError, match="accept_odd_times"):
        wattlab.trace.energy(cap, client=CLIENT)


def test_accepted_odd_timestamps_are_flagged_everywhere(tmp_path):
    """--accept-odd-times costs the capture, and says what it rests on: a warning on stderr
    (even with --quiet), above and under the table, in summary.json and in --json."""
    pkts = _download()
    pkts[20] = (pkts[20][0] + 2048, pkts[20][1])
    cap = write_pcap(tmp_path / "late.pcap", pkts)
    out = tmp_path / "res"
    p = run_cli(str(cap), "--client", CLIENT, "--accept-odd-times", "--quiet", "--out", str(out), "--no-plot")
    assert p.returncode == 0, p.stderr
    assert "odd timestamps accepted" in p.stderr and f"packet 21 at byte offset {_offset(pkts, 21)}" in p.stderr
    assert "built on odd timestamps" in p.stdout and "odd timestamps: 19 packets earlier" in p.stdout
    summary = json.loads((out / "summary.json").read_text())
    assert summary["warnings"] and summary["capture"]["time_checks"]["accepted"] is True
    tc = summary["capture"]["time_checks"]
    assert (tc["backward"]["count"], tc["backward"]["first_packet"], tc["backward"]["first_offset"]) == (19, 21, _offset(pkts, 21))
    assert tc["backward"]["worst_ns"] == pytest.approx(2_047_950_000_000, abs=1000)  # float seconds in write_pcap
    assert summary["provenance"]["options"]["accept_odd_times"] is True
    js = json.loads(run_cli(str(cap), "--client", CLIENT, "--accept-odd-times", "--json").stdout)
    assert js["warnings"] == summary["warnings"]
    # A clean capture's summary says its checks passed.
    clean = json.loads(run_cli(str(write_pcap(tmp_path / "ok.pcap", _download())), "--json").stdout)
    assert clean["warnings"] == [] and clean["capture"]["time_checks"]["accepted"] is False
    assert clean["capture"]["time_checks"]["checked"] == 40


def test_max_gap_lets_a_capture_with_long_silences_through(tmp_path):
    pkts = _download()
    pkts = pkts[:10] + [(t + 36 * 3600, d) for t, d in pkts[10:]]
    cap = write_pcap(tmp_path / "gap.pcap", pkts)
    p = run_cli(str(cap), "--client", CLIENT)
    assert p.returncode == 2 and "a gap of 1.50 days" in p.stderr and "--max-gap" in p.stderr
    p = run_cli(str(cap), "--client", CLIENT, "--max-gap", "2d", "--json")
    assert p.returncode == 0 and json.loads(p.stdout)["warnings"] == []
    p = run_cli(str(cap), "--max-gap", "two days")
    assert p.returncode == 2 and "not a duration with a unit" in p.stderr


def test_reordering_of_a_few_ms_is_put_back_in_order(tmp_path):
    pkts = _download(spacing=0.003)
    swapped = list(pkts)
    for k in range(0, 36, 4):
        swapped[k], swapped[k + 2] = swapped[k + 2], swapped[k]
    a = wattlab.trace.energy(write_pcap(tmp_path / "a.pcap", pkts), client=CLIENT)
    b = wattlab.trace.energy(write_pcap(tmp_path / "b.pcap", swapped), client=CLIENT)
    assert list(a.energy.energy_j) == list(b.energy.energy_j)
    assert b.capture["time_checks"]["reordered"] == 18 and b.warnings == []


def test_a_panic_is_a_trace_error_that_says_it_is_a_bug():
    """No input may reach a panic; if a bug does, Python gets wattlab.trace.TraceError (an
    Exception), not pyo3's PanicException (a BaseException that `except Exception` misses)."""
    try:
        wattlab._core._trace_guard_selftest()
    except Exception as e:  # noqa: BLE001 - the point of the test
        assert isinstance(e, wattlab.trace.TraceError)
        assert "a wattlab bug" in str(e) and "deliberate panic" in str(e)
    else:
        pytest.fail("no error")


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"phy": "link@1e-9"}, "out of range (0.001 to 100000 Mb/s)"),
        ({"bin_s": 0}, "throughput bin 0 s is out of range (1 µs to 1 day)"),
        ({"bin_s": float("nan")}, "out of range"),
        ({"tail_s": float("inf")}, "tail inf s is out of range"),
        ({"max_gap_s": -1}, "maximum gap -1 s is out of range"),
        ({"policies": ["psm:beacon=1ns"]}, "1 to 65535 TU"),
        ({"policies": ["psm:beacon=100ms,listen=100ms"]}, "never doze"),
        ({"policies": ["adaptive-psm:window=1ns"]}, "`window` 1 ns is out of range"),
        ({"policies": ["adaptive-psm:timeout=7200s"]}, "`timeout` 7200 s is out of range"),
    ],
)
def test_options_out_of_range_are_trace_errors(tmp_path, kwargs, message):
    cap = write_pcap(tmp_path / "x.pcap", _download())
    with pytest.raises(wattlab.trace.TraceError, match=re.escape(message)):
        wattlab.trace.energy(cap, client=CLIENT, **kwargs)


def test_argument_types_are_checked(tmp_path):
    cap = write_pcap(tmp_path / "x.pcap", _download())
    # One policy as a string is one policy, not one per character.
    t = wattlab.trace.energy(cap, client=CLIENT, policies="oracle")
    assert list(t.energy.policy) == ["oracle"]
    with pytest.raises(TypeError, match="bin_s"):
        wattlab.trace.energy(cap, bin_s="fast")
    with pytest.raises(TypeError, match="accept_odd_times"):
        wattlab.trace.energy(cap, accept_odd_times="yes")
    with pytest.raises(TypeError, match="policies"):
        wattlab.trace.energy(cap, policies=[3])


def _pcapng(packets: list[tuple[int, bytes]]) -> bytes:
    """A little-endian pcapng: section header, one RAW interface at ns resolution, EPBs."""
    def block(kind: int, body: bytes) -> bytes:
        body += bytes(-len(body) % 4)
        n = 12 + len(body)
        return struct.pack("<II", kind, n) + body + struct.pack("<I", n)
    out = block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))
    out += block(1, struct.pack("<HHI", 101, 0, 0) + struct.pack("<HHB3x", 9, 1, 9) + bytes(4))
    for ns, data in packets:
        out += block(6, struct.pack("<IIIII", 0, ns >> 32, ns & 0xFFFFFFFF, len(data), len(data)) + data)
    return out


def test_a_capture_after_2262_and_one_microsecond_bins(tmp_path):
    """Timestamps past int64 nanoseconds (2262; pcapng reaches 2554) and 1 µs bins over a
    capture: no overflow, and only the bins with traffic in the throughput table."""
    t0 = 10_000_000_000 * 10**9  # year 2286
    pkts = [(t0 + k * 250_000_000, d) for k, (_, d) in enumerate(_download())]
    cap = tmp_path / "future.pcapng"
    cap.write_bytes(_pcapng(pkts))
    t = wattlab.trace.energy(cap, client=CLIENT, bin_s=1e-6)
    assert t.capture["start_ns"] > 2**63 and len(t.throughput) == 40
    assert t.timeline.time_s.min() == 0 and t.timeline.time_s.max() == pytest.approx(9.75, abs=0.01)
    assert t.throughput.bytes_down.sum() == t.capture["bytes_down"]
    png = t.plot(tmp_path / "t.png")
    assert png.read_bytes()[:4] == b"\x89PNG"


# ---- Issue 27, item 9: memory per connection, the client choice, impossible IP lengths, the
# timeline kept by default ----

def _short_connections(n: int, t0: float = 1_700_000_000.0) -> list[tuple[float, bytes]]:
    """`n` short UDP exchanges, one after the other, each from its own client port."""
    pkts = []
    for k in range(n):
        t = t0 + k * 0.1
        pkts.append((t, ipv4(CLIENT, SERVER, 80, sport=10000 + k, dport=53)))
        pkts.append((t + 0.02, ipv4(SERVER, CLIENT, 900, sport=53, dport=10000 + k)))
    return pkts


def test_connections_beyond_max_connections_are_folded_into_other(tmp_path):
    """Memory grew ~1.1 kB per connection (2 M: 2.2 GB; 4 M: std::bad_alloc). Beyond the cap
    (here 20 of 300), the least recently used connections are folded into one `other` row,
    packets, bytes and energy: the totals do not change, and the evicted are counted."""
    cap = write_pcap(tmp_path / "many.pcap", _short_connections(300))
    free = wattlab.trace.energy(cap, client=CLIENT, policies=["always-on", "psm"])
    t = wattlab.trace.energy(cap, client=CLIENT, policies=["always-on", "psm"], max_connections=20)
    assert len(free.connections) == 300 and free.capture["connections_evicted"] == 0
    assert len(t.connections) == 21 and t.capture["connections_evicted"] == 280 and t.capture["max_connections"] == 20
    other = t.connections.iloc[-1]
    assert (other.id, other.connections, other.proto, other.remote) == (21, 280, "other", "0.0.0.0")
    assert t.connections.packets_up.sum() + t.connections.packets_down.sum() == 600
    assert (t.energy.energy_j == free.energy.energy_j).all()
    per = t.attribution.groupby("policy").total_j.sum()
    for pol in ("always-on", "psm"):
        assert per[pol] == pytest.approx(t.energy.set_index("policy").energy_j[pol], rel=1e-12)
    # The kept connections are the last 20 and cost what they cost without the cap.
    kept = t.attribution.merge(t.connections, left_on="connection", right_on="id")
    kept = kept[(kept.policy == "psm") & (kept.id <= 20)].set_index("local_port").total_j
    ref = free.attribution.merge(free.connections, left_on="connection", right_on="id")
    ref = ref[ref.policy == "psm"].set_index("local_port").total_j
    assert sorted(kept.index) == list(range(10280, 10300))
    assert kept.to_dict() == pytest.approx(ref[kept.index].to_dict(), rel=1e-12)
    assert any("280 connections of the client beyond the 20 kept" in n for n in t.notes)
    p = run_cli(str(cap), "--client", CLIENT, "--max-connections", "20", "--policy", "psm")
    assert p.returncode == 0, p.stderr
    assert "280 connections" in p.stdout and "280 in `other`" in p.stdout
    bad = run_cli(str(cap), "--max-connections", "0")
    assert bad.returncode == 2 and "--max-connections" in bad.stderr and "Traceback" not in bad.stderr
    with pytest.raises(wattlab.trace.TraceError, match="max_connections 0 is out of range"):
        wattlab.trace.energy(cap, max_connections=0)


def test_a_capture_without_a_unicast_address_asks_for_the_client(tmp_path):
    """DHCP discovers only: 255.255.255.255 was taken for the client. Now the analyzer says
    no address can be and asks for --client (exit 2, no traceback)."""
    cap = write_pcap(tmp_path / "dhcp.pcap", [(1.0 + k, ipv4("0.0.0.0", "255.255.255.255", 328, sport=68, dport=67)) for k in range(4)])
    p = run_cli(str(cap))
    assert p.returncode == 2 and "no unicast address" in p.stderr and "--client" in p.stderr and "Traceback" not in p.stderr
    # Multicast received from a host: the host is the client, the group named as passed over.
    cap = write_pcap(tmp_path / "mdns.pcap", [(1.0 + k, ipv4("10.0.0.7", "224.0.0.251", 300, sport=5353, dport=5353)) for k in range(4)])
    t = wattlab.trace.energy(cap)
    assert t.capture["client"] == "10.0.0.7" and t.capture["choice_skipped"] == ["224.0.0.251"]
    assert any("224.0.0.251" in n and "cannot be a client" in n for n in t.notes)


def test_ip_lengths_beyond_the_frame_are_capped_with_a_note(tmp_path):
    """An IPv4 total length of 65535 on 1500-byte packets was costed as 44 frames each (8.78 MB
    instead of 0.199 MB). Now capped to what the frame carries, counted, the first named."""
    honest = _download()
    forged = [(t, d[:2] + struct.pack("!H", 65535) + d[4:] if len(d) == 1500 else d) for t, d in honest]
    a = wattlab.trace.energy(write_pcap(tmp_path / "forged.pcap", forged), client=CLIENT)
    b = wattlab.trace.energy(write_pcap(tmp_path / "honest.pcap", honest), client=CLIENT)
    n = sum(len(d) == 1500 for _, d in honest)
    lc = a.capture["length_capped"]
    assert lc["packets"] == n and lc["excess_bytes"] == n * (65535 - 1500)
    assert (lc["first_packet"], lc["first_offset"]) == (1, _offset(forged, 1))
    assert a.capture["bytes_down"] == b.capture["bytes_down"] and a.capture["oversize_packets"] == 0
    assert (a.energy.energy_j == b.energy.energy_j).all()
    assert any(f"{n} IP packets claim a length beyond what their frame carries (first: packet 1" in x for x in a.notes)


def test_big_captures_do_not_keep_their_timeline_unless_asked(tmp_path, monkeypatch):
    """A 5 M-packet capture's timeline held 1.9 GB by default (21 s against 5.7 s without).
    Above the size limit (lowered here) the default keeps none, says so, and computes it on
    first access, equal to the one kept when asked; small captures keep it."""
    cap = write_pcap(tmp_path / "d.pcap", _download(n=60))
    kept = wattlab.trace.energy(cap, client=CLIENT, timeline=True)
    small = wattlab.trace.energy(cap, client=CLIENT)
    assert small.timeline_kept and len(small.timeline) == len(kept.timeline) > 0
    monkeypatch.setattr(wattlab.trace, "TIMELINE_AUTO_MAX_BYTES", 1000)
    lazy = wattlab.trace.energy(cap, client=CLIENT)
    assert not lazy.timeline_kept
    assert any("timeline not kept" in n and "state changes" in n for n in lazy.notes)
    out = lazy.write(tmp_path / "out")
    assert not any(p.name.startswith("timeline") for p in out)
    pd_testing = pytest.importorskip("pandas.testing")
    pd_testing.assert_frame_equal(lazy.timeline, kept.timeline)
    assert lazy.timeline_kept
    # Asked not to keep it: none kept, computed on access all the same; refused if the capture changed.
    off = wattlab.trace.energy(cap, client=CLIENT, timeline=False)
    assert not off.timeline_kept and not any("timeline not kept" in n for n in off.notes)
    cap.write_bytes(cap.read_bytes() + b"\0" * 16)
    with pytest.raises(wattlab.trace.TraceError, match="changed or is gone"):
        off.timeline
