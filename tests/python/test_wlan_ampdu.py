"""Aggregation (issue 29): Bianchi with A-MPDU and Block Ack, the single-flow TCP maximum with
aggregation, both against hand computation and against the simulator on 802.11ax."""

from __future__ import annotations

import pytest

from wattlab import _core
from wattlab.models import wlan


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
