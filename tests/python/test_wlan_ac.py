"""Issue 29 item 2: EDCA access categories from the flow's DSCP, and the per-AC columns of
the per-station table (frames, bytes, airtime, mean access delay per AC)."""

from __future__ import annotations

import pytest

import wattlab

AC_COLUMNS = [f"{ac}_{c}" for ac in ("vo", "vi", "be", "bk") for c in ("frames", "bytes", "airtime_s", "access_delay_ms")]


def voice_beside_bulk(dscp: int, *, n_bulk: int = 3, phy: str = "802.11ax") -> str:
    """A 64 kb/s stream of 160-byte datagrams (G.711 every 20 ms) from `voip`, marked `dscp`,
    beside `n_bulk` stations with saturated TCP uploads (best effort), for 3 s."""
    bulk = [f"b{i}" for i in range(n_bulk)]
    nodes = "".join(f'[[node]]\nname = "{n}"\nkind = "host"\n' for n in ["voip", *bulk])
    flows = "".join(
        f'[[flow]]\nkind = "bulk-upload"\nclient = "{b}"\nserver = "server"\nport = {5001 + i}\nbytes = "1GB"\n'
        for i, b in enumerate(bulk))
    phy_keys = 'phy = "802.11ax"\nmcs = 7\nwidth = 20\n' if phy == "802.11ax" else f'phy = "{phy}"\nrate = "54Mbps"\n'
    return f"""
name = "voice-beside-bulk"
[simulation]
duration = "3s"
[[node]]
name = "ap"
kind = "ap"
[[node]]
name = "server"
kind = "host"
{nodes}
[[link]]
a = "ap"
b = "server"
rate = "10Gbps"
delay = "1ms"
[[wlan]]
ap = "ap"
stations = {["voip", *bulk]!r}
{phy_keys}
[[flow]]
name = "voice"
kind = "udp-cbr"
from = "voip"
to = "server"
rate = "64kbps"
packet_size = "160B"
dscp = {dscp}
{flows}
""".replace("'", '"')


def voip_row(dscp: int, **kw) -> dict:
    st = wattlab.run(text=voice_beside_bulk(dscp, **kw)).wlan_stations
    for col in AC_COLUMNS:
        assert col in st.columns, col
    return st.set_index("node").loc["voip"].to_dict()


def test_a_voice_flow_beside_saturated_best_effort_is_sent_as_voice_and_waits_less():
    vo, be = voip_row(46), voip_row(0)
    # EF → UP 6 → AC_VO: every datagram (188 IP bytes) is counted as voice, none as BE.
    assert vo["vo_frames"] >= 140 and vo["be_frames"] == 0 and vo["vo_bytes"] == 188 * vo["vo_frames"], vo
    assert be["be_frames"] >= 140 and be["vo_frames"] == 0, be
    assert vo["vo_airtime_s"] > 0 and vo["vi_airtime_s"] == 0 and vo["bk_frames"] == 0
    # AIFSN 2 and CW 3–7 against AIFSN 3 and CW 15–1023: voice waits a fraction of BE's
    # access delay (both wait for the A-MPDU on the air to end first).
    print(f"\nvoice access delay: VO {vo['vo_access_delay_ms']:.2f} ms, as BE {be['be_access_delay_ms']:.2f} ms")
    assert vo["vo_access_delay_ms"] < 0.5 * be["be_access_delay_ms"], (vo["vo_access_delay_ms"], be["be_access_delay_ms"])


def test_legacy_dcf_has_one_queue_and_counts_everything_as_best_effort():
    row = voip_row(46, phy="80211a", n_bulk=1)
    assert row["be_frames"] >= 140 and row["vo_frames"] == 0, row


@pytest.mark.parametrize("value", ["64", "-1", '"EF"'])
def test_a_bad_dscp_is_located(value):
    text = voice_beside_bulk(46, n_bulk=1).replace("dscp = 46", f"dscp = {value}")
    with pytest.raises(wattlab.ScenarioError) as e:
        wattlab.validate(text=text)
    msg = str(e.value)
    line = text.splitlines().index(f"dscp = {value}") + 1
    assert "flow[0].dscp" in msg and f":{line}:" in msg, msg
