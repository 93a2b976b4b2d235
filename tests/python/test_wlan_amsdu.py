"""A-MSDU inside A-MPDU (issue 29, `[[wlan]] amsdu` / `amsdu_max`): the gain on small packets,
the result column, and clear errors for a PHY or a size that cannot carry it. PPDU durations
and the analytic model are checked by hand in crates/wattlab-sim/src/wlan/tests_amsdu.rs."""

from __future__ import annotations

import pytest

import wattlab

from conftest import wired_path


def upload(extra: str, phy: str = "802.11ax", keys: str = "mcs = 7") -> str:
    """client ~~ ap -- server, the client sending 100-byte IP packets (72 B of UDP payload)
    faster than 802.11ax HE-MCS 7 at 20 MHz carries them, for 1 s. The wired link's queue is
    long: an A-MPDU's packets reach the AP at once (460 of them with A-MSDU), and a 100-packet
    DropTail there would drop most of them."""
    return f"""
name = "amsdu-test"
[simulation]
duration = "1.2s"
stop_when_done = false
{wired_path("wavelan-dsss", "1Gbps", "1ms")}queue = {{ packets = 100000 }}
[[wlan]]
ap = "ap"
stations = ["client"]
phy = "{phy}"
{keys}
station_queue = 2000
{extra}
[[flow]]
kind = "udp-cbr"
from = "client"
to = "server"
rate = "120Mbps"
packet_size = "72B"
duration = "1s"
"""


def test_amsdu_carries_more_small_packets_and_reports_msdus_per_mpdu():
    got = {}
    for extra in ["", "amsdu = true"]:
        res = wattlab.run(text=upload(extra))
        f = res.summary["flows"][0]
        st = res.wlan_stations.set_index("node").loc["client"]
        assert f["datagrams_received"] == st["frames_sent"], "every packet the MAC delivered reached the server"
        got[extra] = (f["datagrams_received"], st["msdus_per_mpdu"], st["ampdu_msdus"], st["ampdu_mpdus"])
    plain, packed = got[""], got["amsdu = true"]
    assert plain[1] == 1.0 and plain[2] == plain[3], plain
    # 802.11ax's 11 424-byte A-MSDU holds 92 subframes of 100-byte packets (122 + 91 x 124).
    assert 50 < packed[1] <= 92, packed
    gain = packed[0] / plain[0] - 1
    print(f"\nA-MSDU: {packed[0]} vs {plain[0]} datagrams in 1 s (+{100 * gain:.1f} %), {packed[1]:.1f} MSDUs per MPDU")
    assert gain > 0.10, (plain, packed)


@pytest.mark.parametrize(
    ("phy", "keys", "extra", "key", "words"),
    [
        ("802.11a", 'rate = "54Mbps"', "amsdu = true", "wlan[0].amsdu", ["802.11a", "802.11n"]),
        ("802.11n", "mcs = 7", "amsdu_max = 7935", "wlan[0].amsdu_max", ["7935", "4065"]),
        ("802.11ax", "mcs = 7", "amsdu = false\namsdu_max = 3000", "wlan[0].amsdu_max", ["amsdu = false"]),
    ],
)
def test_a_bad_amsdu_setting_is_located(phy, keys, extra, key, words):
    text = upload(extra, phy=phy, keys=keys)
    with pytest.raises(wattlab.ScenarioError) as e:
        wattlab.validate(text=text)
    msg = str(e.value)
    assert key in msg and all(w in msg for w in words), msg
    line = text.splitlines().index(extra.splitlines()[-1]) + 1
    assert f":{line}:" in msg, msg
