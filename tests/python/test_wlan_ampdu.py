"""Aggregation (issue 29): Bianchi with A-MPDU and Block Ack, the single-flow TCP maximum with
aggregation, both against hand computation and against the simulator on 802.11ax."""

from __future__ import annotations

import pytest

import wattlab
from wattlab import _core
from wattlab.models import wlan

from conftest import ROOT


def test_model_matches_the_hand_computation():
    # HE-MCS 7, 20 MHz, 1 SS, 0.8 us GI (crates/wattlab-core/src/wlan/aggregation.rs has the
    # derivation): 37 MPDUs of 1538 B in 57 126 B, 5360.8 us; Block Ack 56 B at 24 Mb/s, 40 us;
    # Ts = 5360.8 + 16 + 40 + 43, Tc = 5360.8 + 103. One station: 37 x 12 000 bits per
    # 7.5 x 9 + 5459.8 us.
    m = wlan.bianchi_ampdu(1)
    assert (m["mpdus"], m["psdu_bytes"], m["ba_window"]) == (37, 57_126, 256)
    assert (m["ppdu_us"], m["block_ack_us"], m["ts_us"], m["tc_us"]) == pytest.approx((5360.8, 40.0, 5459.8, 5463.8))
    assert (m["aifs_us"], m["eifs_us"]) == (43.0, 103.0)
    assert m["throughput_bps"] == pytest.approx(444_000 / 5527.3e-6, rel=1e-12)
    # More stations collide more and lose a whole 5.4 ms A-MPDU each time.
    s = [wlan.bianchi_ampdu(n)["throughput_bps"] for n in (1, 5, 10, 20)]
    assert s == sorted(s, reverse=True)


def test_tcp_maximum_matches_the_hand_computation():
    # Data: 43 + 67.5 + 5360.8 + 16 + 40 = 5527.3 us for 37 segments of 1460 B.
    # Delayed ACK: 18 and 19 ACKs (78-byte MPDUs in 84-byte subframes) in alternate cycles.
    c = wlan.tcp_capacity_ampdu(2)
    assert (c["data_mpdus"], c["acks_per_ampdu"], c["data_exchange_us"]) == (37, 18.5, 5527.3)
    assert c["mac_only_bps"] == pytest.approx(37 * 11_680 / 5527.3e-6, rel=1e-12)
    assert c["tcp_bps"] == pytest.approx(37 * 11_680 / ((5527.3 + c["ack_exchange_us"]) * 1e-6), rel=1e-12)
    # An ACK per segment costs more channel time than one per two.
    assert wlan.tcp_capacity_ampdu(1)["tcp_bps"] < c["tcp_bps"] < c["mac_only_bps"]
    # At HE-MCS 11, 80 MHz the Block Ack window binds: 256 MPDUs.
    assert wlan.tcp_capacity_ampdu(2, mcs=11, width=80)["data_mpdus"] == 256


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("802.11a", 7, 1, 20, 800, 1), ["802.11a does not aggregate"]),
        (("802.11ax", 12, 1, 20, 800, 1), ["MCS", "12"]),
        (("802.11ax", 7, 1, 20, 400, 1), ["400"]),
        (("802.11ax", 7, 1, 20, 800, 0), ["at least 1 station"]),
        (("nope", 7, 1, 20, 800, 1), ["unknown PHY", "802.11ax"]),
    ],
)
def test_bad_configurations_are_refused_with_a_reason(args, words):
    with pytest.raises(ValueError) as e:
        _core.bianchi_ampdu(*args)
    assert all(w in str(e.value) for w in words), str(e.value)


def test_aggregated_saturation_matches_bianchi_within_3_percent(capsys):
    # 5 s (the command's default): the first ~0.1 s, while the queues fill, sends smaller A-MPDUs.
    df = wlan.bianchi_ampdu_check(seconds=5.0)
    with capsys.disabled():
        print("\n" + df.to_string(index=False))
    assert list(df["n"]) == [1, 5, 10, 20]
    assert (df["error_pct"].abs() < 3).all(), df
    assert ((df["sim_p"] - df["model_p"]).abs() < 0.05).all(), df
    # The simulated A-MPDUs are the model's (fewer only while the queues fill at the start).
    assert (df["sim_mpdus"] <= df["mpdus"]).all() and df["sim_mpdus"].iloc[0] > 36, df


def test_one_tcp_flow_with_aggregation_reaches_the_tcp_maximum(capsys):
    df = wlan.tcp_capacity_ampdu_check()
    with capsys.disabled():
        print("\n" + df.to_string(index=False))
    assert (df["error_pct"].abs() < 5).all(), df
    assert (df["retransmits"] == 0).all(), df
    # The MAC-only figure is an upper bound a TCP flow cannot reach: its ACKs need airtime too.
    assert (df["sim_mbps"] < df["mac_only_mbps"]).all(), df


VALIDATION = ROOT / "scenarios" / "validation"


@pytest.mark.parametrize(
    ("name", "mcs", "width", "low"),
    [
        # One station: the TCP maximum less slow start and the station-AP collisions (-5.8 %
        # in 5 s, -3.6 % in 60 s: docs/validation.md).
        ("ax-upload-1sta-mcs7-20mhz", 7, 20, 0.93),
        ("ax-upload-1sta-mcs11-80mhz", 11, 80, 0.93),
        # Ten stations: collisions among 11 contenders and TCP timeouts while the AP's ACK queue
        # waits for its share of the channel (0.78 and 0.80 of the maximum in 5 s; 0.81 and
        # 0.90 before the AP, like every station, drew a backoff for ACKs that arrive while
        # the medium is busy instead of sending them in the first slot: wlan.md, DCF).
        ("ax-upload-10sta-mcs7-20mhz", 7, 20, 0.75),
        ("ax-upload-10sta-mcs11-80mhz", 11, 80, 0.75),
    ],
)
def test_saturated_ax_uploads_stay_under_the_tcp_maximum(name, mcs, width, low, capsys):
    res = wattlab.run(VALIDATION / f"{name}.toml", overrides=["simulation.duration=5s"], seed=1)
    flows = res.summary["flows"]
    total = sum(f["goodput_bps"] for f in flows)
    cap = wlan.tcp_capacity_ampdu(2, mcs=mcs, width=width)
    per_flow = ", ".join(f"{f['goodput_bps'] / 1e6:.2f}" for f in flows)
    with capsys.disabled():
        print(f"\n{name}: {total / 1e6:.2f} Mb/s of {cap['tcp_bps'] / 1e6:.2f} (per flow {per_flow})")
    assert low * cap["tcp_bps"] < total < cap["tcp_bps"]
    # Every flow moves, and no queue drops a packet (the windows fit the queues).
    assert all(f["goodput_bps"] > 0 for f in flows)
    assert sum(s["queue_drops"] for s in res.summary["wlans"][0]["stations"]) == 0


def test_check_command_prints_the_aggregation_rows_as_json():
    import json
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-c", "from wattlab.cli import main; main()", "check", "bianchi-ampdu",
                        "--seconds", "1", "--json"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)
    assert [row["n"] for row in rows] == [1, 5, 10, 20]
    assert {"sim_mbps", "model_mbps", "error_pct", "mpdus", "sim_mpdus"} <= set(rows[0])
