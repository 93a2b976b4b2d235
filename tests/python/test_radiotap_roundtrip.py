"""Issue 31 item 4: a simulated 802.11 capture (`wattlab run --pcap client:wlan0 --link radiotap`)
costed by `wattlab trace energy --policy observed` (its default reading, no `stamp=` option)
against the simulator's own metered energy of the client's radio, over the same span.

Two things made PSM look 0.45 % low (0.8626 J observed vs 0.8665 J metered), found by comparing
the two state timelines interval by interval (docs/trace.md, "Round trip"):
- the simulator stamped each record at its PPDU's start, the observed policy read them as ends
  by default: every interval 1 PPDU early, beacons' rx partly idle (-0.31 % of it). The
  simulator now stamps each record at its PPDU's end, as a receiving host does (radiotap TSFT
  keeps the start), so the default `stamp=end` reads its captures and a host's alike;
- the run starts at 0 with the power-saving station asleep; it wakes (2 ms transition) for its
  first frame. The air shows nothing before that frame, so the observed span starts there: the
  simulator's energy before it (a wake-up and its contention) is not comparable and is taken
  off the meter's total here (2.64 mJ, 0.31 %), with the timeline before it checked to be
  exactly that.
TWT was +21.7 % (observed.rs kept a station waiting for More Data past its SP's end: fixed).
Measured 2026-11-27 with start stamps and `stamp=start`: CAM -0.0007 %, PSM -0.0026 %,
adaptive PSM -0.0063 %, U-APSD -0.022 %, TWT -0.0059 %; with end stamps and the default
reading (2026-11-28): the same, TWT -0.0006 %; `stamp=start` on the end-stamped PSM capture
-0.54 %."""

from __future__ import annotations

import csv
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

ROOT = Path(__file__).resolve().parents[2]
TEST_RS = ROOT / "crates" / "wattlab-sim" / "src" / "wlan" / "radiotap_tests.rs"


PROFILE = tomllib.loads((ROOT / "profiles" / "wavelan-dsss.toml").read_text())
EPOCH_NS = 946_684_800 * 10**9  # the simulator's default pcap epoch, 2000-01-01T00:00:00Z


A_54: str = 'phy = "802.11a"\nrate = "54Mbps"\n'
HE_MCS7: str = 'phy = "802.11ax"\nmcs = 7\nwidth = 20\ngi = "800ns"\n'  # the Rust test's HE


def scenario(mode: str, phy: str = A_54) -> str:
    """The Rust tshark test's scenario (ping, then a 200 kB download) on `phy` in `mode`."""
    text = re.search(r'format!\(\s*r#"(.*?)"#', TEST_RS.read_text(), re.S).group(1)
    text = text.replace("{{", "{").replace("}}", "}")
    trigger = 'uapsd_trigger_interval = "100ms"\n' if mode == "u-apsd" else ""
    return (text.replace("{phy}", phy).replace("{mode}", mode)
            .replace("{trigger}", trigger).replace("{extra}", ""))


def energy_before(rows: list[tuple[int, str]], t0: int) -> float:
    """The simulator's energy (J) of the client's radio over [0, t0) ns, from its state rows:
    asleep from 0, then awake (idle) from a wake instant, the sleep -> idle transition carved
    from the sleep before it as the meter does (at most one wake-up before the first frame)."""
    mw = PROFILE["power_mw"]
    wake = next(t for t in PROFILE["transition"] if (t["from"], t["to"]) == ("sleep", "idle"))
    before = [(t, s) for t, s in rows if t < t0]
    if not before:
        return 0.0
    if [s for _, s in before] == ["idle"]:
        return (t0 - before[0][0]) * mw["idle"] * 1e-12
    assert [s for _, s in before] == ["sleep", "idle"] and before[0][0] == 0, before
    woke = before[1][0]
    d = min(woke, round(wake["duration_us"] * 1000))
    return ((woke - d) * mw["sleep"] + d * wake["power_mw"] + (t0 - woke) * mw["idle"]) * 1e-12


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "wattlab.cli", *args], capture_output=True, text=True, timeout=300)


def observe(pcap: Path, policy: str) -> dict:
    """`wattlab trace energy --json` of the client in `pcap` under `policy`."""
    t = cli("trace", "energy", str(pcap), "--client-mac", "02:00:00:00:00:03", "--profile", "wavelan-dsss",
            "--policy", policy, "--json")
    assert t.returncode == 0, t.stderr
    return json.loads(t.stdout)


def round_trip(tmp_path: Path, mode: str, params: str = "", stamp: str | None = None,
               phy: str = A_54) -> tuple[float, float]:
    """(metered over the capture's span, observed) energy of the client's radio, J; observed
    with its default reading, or with `stamp=` `stamp` when given (the span is always the
    default reading's)."""
    scn = tmp_path / f"{mode}.toml"
    scn.write_text(scenario(mode, phy))
    out = tmp_path / mode
    p = cli("run", str(scn), "--out", str(out), "--pcap", "client:wlan0", "--link", "radiotap", "--no-baseline",
            "--timeseries", "--json", "-q")
    assert p.returncode == 0, p.stderr
    s = json.loads(p.stdout)
    assert s["provenance"]["pcap_epoch"] == "2000-01-01T00:00:00Z"
    policy = "always-on" if mode == "cam" else mode
    radio = next(r for r in s["radios"] if r["node"] == "client" and r["policy"] == policy)
    j = observe(out / "client-wlan0.pcap", f"observed{':' + params.lstrip(',') if params else ''}")
    if stamp is not None:
        j["policies"] = observe(out / "client-wlan0.pcap", f"observed:stamp={stamp}{params}")["policies"]
    observed = next(p["energy_j"] for p in j["policies"] if p["policy"].startswith("observed"))
    span = next(iter(j["observed"].values()))
    t0, t1 = span["start_ns"] - EPOCH_NS, span["end_ns"] - EPOCH_NS
    # The run stops once the last segment is delivered; the MAC's ACK of it may end up to one
    # SIFS + ACK (16 + 28 µs on 802.11a) later in the capture (costed by observed only).
    assert 0 <= t1 - radio["report"]["end_ns"] <= 44_000, (t1, radio["report"])
    rows = [(round(float(r["time_s"]) * 1e9), r["state"]) for r in csv.DictReader((out / "timeseries_radio.csv").open())
            if r["node"] == "client" and r["policy"] == policy]
    return radio["energy_j"] - energy_before(rows, t0), observed


def test_cam_round_trip_within_a_tenth_of_a_percent(tmp_path):
    metered, observed = round_trip(tmp_path, "cam")
    assert abs(observed / metered - 1) < 0.001, (metered, observed)


@pytest.mark.parametrize("mode,params", [
    ("psm", ""),
    ("adaptive-psm:timeout=50ms", ""),
    ("u-apsd", ",listen=none"),
])
def test_power_save_round_trip_within_a_tenth_of_a_percent(tmp_path, mode, params):
    metered, observed = round_trip(tmp_path, mode, params)
    assert abs(observed / metered - 1) < 0.001, (metered, observed)


def test_the_stamp_option_is_read(tmp_path):
    """The reading matters and the explicit options are honoured: `stamp=end` (the default's
    reading) stays within the tolerance, while `stamp=start` takes the simulator's end stamps
    for starts, every interval 1 PPDU late, and PSM's energy then misses it (the 0.45 % gap
    this file once marked xfail, the other way round). That `stamp=start` reads a
    start-stamped capture as the default reads an end-stamped one is tested in Rust
    (`crates/wattlab-trace/tests/observed.rs`)."""
    (tmp_path / "end").mkdir()
    (tmp_path / "start").mkdir()
    metered, end = round_trip(tmp_path / "end", "psm", stamp="end")
    assert abs(end / metered - 1) < 0.001, (metered, end)
    metered, start = round_trip(tmp_path / "start", "psm", stamp="start")
    assert abs(start / metered - 1) > 0.001, (metered, start)


@pytest.mark.parametrize("duration_us", [4096, 4000])
def test_twt_round_trip_within_a_tenth_of_a_percent(tmp_path, duration_us):
    """802.11ax, individual TWT. Before the fix, observed was +21.7 %: a frame with More Data
    at an SP's end left the station waiting for it, awake until the next SP (the SP's end now
    ends the wait). 4096 µs is 16 × 256 µs, the TWT element's unit; 4000 µs is not: the AP's
    response carries it rounded up to 4096 µs and the simulation follows that, so the capture
    reads what was simulated (was +0.39 %: simulated with 4000 µs, written as 4096 µs)."""
    metered, observed = round_trip(tmp_path, f"twt:interval=100ms,duration={duration_us}us", ",listen=none", phy=HE_MCS7)
    assert abs(observed / metered - 1) < 0.001, (metered, observed)


@pytest.mark.parametrize("mode", [
    # 128 ms = 125 TU: every SP starts on a TU boundary, which the broadcast set's 16-bit
    # Target Wake Time (TSF bits 10-25) carries exactly.
    "twt:interval=128ms,duration=4096us,offset=3072us,broadcast=1",
    # 100 ms: SPs 672 µs into their TU and on (100000 mod 1024 = 672); one announcement reads
    # an SP up to 1023 µs early, the beacons' announcements together narrow it to 32 µs.
    "twt:interval=100ms,duration=4096us,broadcast=1",
])
def test_broadcast_twt_round_trip_within_a_tenth_of_a_percent(tmp_path, mode):
    """802.11ax, a member of broadcast TWT schedule 1. The observed policy reads the schedule
    from the TWT Setup frames and the beacons' TWT element and the SPs' start from the 16-bit
    Target Wake Time against the TSF (was refused: costing the station without its SPs gave
    1.43 J against the meter's 0.97 J)."""
    metered, observed = round_trip(tmp_path, mode, ",listen=none", phy=HE_MCS7)
    assert abs(observed / metered - 1) < 0.001, (metered, observed)
    j = observe(tmp_path / mode / "client-wlan0.pcap", "observed:listen=none")
    o = next(iter(j["observed"].values()))
    assert o["broadcast_twt_id"] == 1 and o["twt_agreements"] == 1 and o["service_periods"] >= 5, o
