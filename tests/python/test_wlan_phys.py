"""802.11n/ac/ax in a [[wlan]] (issue 29, item 1): HT/VHT/HE data PPDUs answered by non-HT
ACKs at a basic rate, per-station constant rates, errors that list what is valid."""

from __future__ import annotations

import pytest

import wattlab
from wattlab import physics

from conftest import wired_path

ACK_BYTES = physics.FRAME_BYTES["ack"]
DATA_OVERHEAD = physics.FRAME_BYTES["data_overhead"]


def bss(phy: str, keys: str, flows: str = "", stations: str = "", wired_rate: str = "1Gbps") -> str:
    """server -- ap ~~ client with a radio; `keys` are the [[wlan]]'s rate keys."""
    return f"""
name = "wlan-phys"
{wired_path("wavelan-dsss", wired_rate, "1ms")}
[[wlan]]
ap = "ap"
stations = ["client"]
phy = "{phy}"
{keys}
{stations}
{flows}
"""


def udp(frm: str, to: str, port: int = 9000, start: str = "0s", spacing_ms: int = 1) -> str:
    """10 datagrams of 1000 B (IP) from `frm` to `to`, about `spacing_ms` apart (972 B payload at
    7.76 Mb/s / spacing_ms for 10 x spacing_ms ms)."""
    return (f'[[flow]]\nkind = "udp-cbr"\nfrom = "{frm}"\nto = "{to}"\nrate = "{7.76 / spacing_ms}Mbps"\n'
            f'packet_size = "972B"\nduration = "{0.01 * spacing_ms}s"\nport = {port}\nstart = "{start}"\n')


def radio(res) -> dict:
    return next(r for r in res.summary["radios"] if r["policy"] == "always-on")["report"]


SIM = '[simulation]\nduration = "1s"\nstop_when_done = false\n'


@pytest.mark.parametrize("phy, keys, band, mcs", [
    ("80211ax", "mcs = 7", None, (7, 1, 20, 800)),
    ("80211ax", 'mcs = 7\nband = "2.4GHz"', "2.4GHz", (7, 1, 20, 800)),
    ("80211ac", 'mcs = 9\nnss = 2\nwidth = 80\ngi = "400ns"', None, (9, 2, 80, 400)),
    ("80211n", 'mcs = 15\nwidth = "40MHz"', None, (7, 2, 40, 800)),
])
def test_data_goes_as_an_mcs_ppdu_and_the_ack_at_the_legacy_response_rate(phy, keys, band, mcs):
    """10 UDP datagrams of 1000 B to the station, 1 ms apart: the AP's QoS MAC first sets up a
    Block Ack agreement (ADDBA Request 37 B, ACK, ADDBA Response, ACK: 76 + 44 us each way at
    the lowest basic rate, 6 Mb/s, as mac80211 sends them: 20 + 4 x ceil((16 + 296 + 6) / 24)
    and 20 + 4 x ceil((16 + 112 + 6) / 24)), then sends each datagram as an A-MPDU of one MPDU (4-byte delimiter + 1036-byte
    MPDU + 2-byte QoS Control = a 1042-byte PSDU) at the MCS; the station answers each with a
    compressed Block Ack (HT/VHT: 32 B, 20 + 4 x ceil(278 / 96) = 32 us; HE, 256-bit bitmap:
    56 B, 20 + 4 x ceil(470 / 96) = 40 us) at the basic rate below the MCS's non-HT reference
    rate (24 Mb/s); + 6 us signal extension per frame in 2.4 GHz.

    By hand for HE-MCS 7, 20 MHz, 1 SS, 0.8 us: 8 x 1036 + 16 = 8304 bits, N_DBPS 1170:
    N_SYM,init = 8, a_init = 1, and the LDPC extra segment (N_punc = 246 > 194.4) makes a = 2,
    N_SYM = 8: 36 + 7.2 + 8 x 13.6 = 152.0 us (the bare MPDU; the PSDU here is 1042 bytes)."""
    res = wattlab.run(text=bss(phy, keys, SIM + udp("server", "client")))
    assert res.summary["flows"][0]["datagrams_received"] == 10
    m, n, w, g = mcs
    ppdu = physics.ppdu_s(phy, 4 + 1000 + DATA_OVERHEAD + 2, m, n, w, g, band)
    info = physics.mcs_info(phy, m, n, w, g, band)
    assert info["response_kbps"] == 24_000
    g24 = band == "2.4GHz"
    r = radio(res)
    ext = 6_000 if g24 else 0
    addba, ack, ba = 76_000 + ext, 44_000 + ext, (40_000 if phy == "80211ax" else 32_000) + ext
    assert r["rx"]["time_ns"] == 10 * round(ppdu * 1e9) + addba + ack
    assert r["tx"]["time_ns"] == 10 * ba + ack + addba
    if (phy, band) == ("80211ax", None):
        assert round(float(physics.ppdu_s(phy, 1000 + DATA_OVERHEAD, m, n, w, g, band)) * 1e9) == 152_000
    assert res.summary["wlans"][0]["rate_bps"] == info["data_rate_bps"]


@pytest.mark.parametrize("phy, keys, mcs", [
    ("80211ax", "mcs = 7", (7, 1, 20, 800)),
    ("80211ax", "mcs = 11\nnss = 2\nwidth = 80", (11, 2, 80, 800)),
    ("80211ac", 'mcs = 9\nnss = 2\nwidth = 80\ngi = "400ns"', (9, 2, 80, 400)),
])
def test_a_tcp_upload_beats_the_single_mpdu_tcp_maximum(phy, keys, mcs, capsys):
    """One TCP upload (MSS 1460, an ACK per segment, no losses). With one MPDU per exchange each
    segment would cost DIFS, the mean backoff (7.5 slots), the data PPDU, SIFS and the MAC ACK,
    and each TCP ACK (40 B) the same: the preamble and the contention dominate, so HE-MCS 7
    would gain little over 802.11a. The QoS MAC aggregates segments (and the AP the TCP ACKs)
    into A-MPDUs: the run beats that single-MPDU maximum by more than half again and stays
    below the PHY rate (the aggregated TCP maximum itself is `wattlab check`'s)."""
    tcp = 'tcp = { mss = 1460, timestamps = false, delayed_ack = false, recv_buffer = "128KB", window_scale = 2 }'
    flows = ('[simulation]\nduration = "3s"\n[[flow]]\nkind = "bulk-upload"\nclient = "client"\n'
             f'server = "server"\nbytes = "200MB"\n{tcp}\n')
    res = wattlab.run(text=bss(phy, keys, flows, wired_rate="10Gbps"))
    goodput = res.summary["flows"][0]["goodput_bps"]
    p = physics.phy(phy)
    m, n, w, g = mcs
    resp = physics.mcs_info(phy, m, n, w, g)["response_kbps"]
    ack = float(physics.frame_s("802.11a", ACK_BYTES, resp))  # a non-HT OFDM frame in 5 GHz
    access = p["difs_s"] + p["cw_min"] / 2 * p["slot_s"]
    t_data = access + float(physics.ppdu_s(phy, 1500 + DATA_OVERHEAD, m, n, w, g)) + p["sifs_s"] + ack
    t_ack = access + float(physics.ppdu_s(phy, 40 + DATA_OVERHEAD, m, n, w, g)) + p["sifs_s"] + ack
    tcp_max = 1460 * 8 / (t_data + t_ack)
    mac_only = 1460 * 8 / t_data
    with capsys.disabled():
        print(f"\n{phy} {mcs}: goodput {goodput / 1e6:.2f} Mb/s, TCP max {tcp_max / 1e6:.2f}, "
              f"MAC-only {mac_only / 1e6:.2f}, PHY {physics.mcs_info(phy, m, n, w, g)['data_rate_bps'] / 1e6:.1f}")
    assert goodput > 1.5 * tcp_max, (goodput, tcp_max)
    assert goodput < physics.mcs_info(phy, m, n, w, g)["data_rate_bps"]


def test_a_station_override_sets_its_rate_both_ways():
    """Station `client` at HE-MCS 0 (its [[wlan.station]]) while the BSS says MCS 7: the AP's
    datagrams to it and its own to the server both go at MCS 0 (A-MPDUs of one MPDU, 1042-byte
    PSDUs), the 56-byte Block Acks at 6 Mb/s (MCS 0's reference rate): 20 + 4 x ceil(470 / 24) =
    100 us;
    one Block Ack agreement each way costs each side an ADDBA frame (20 + 4 x ceil(318 / 24) =
    76 us) and an ACK (44 us) sent and the same received."""
    # The upload starts after the download, so the two never collide (no retries to count);
    # 4 ms apart, each datagram goes alone (an MCS 0 PPDU lasts 1 ms).
    flows = SIM + udp("server", "client", port=9000, spacing_ms=4) + udp("client", "server", port=9001, start="0.5s", spacing_ms=4)
    res = wattlab.run(text=bss("80211ax", "mcs = 7", flows, stations='[[wlan.station]]\nnode = "client"\nmcs = 0'))
    mcs0 = round(float(physics.ppdu_s("80211ax", 4 + 1000 + DATA_OVERHEAD + 2, 0)) * 1e9)
    r = radio(res)
    assert [f["datagrams_received"] for f in res.summary["flows"]] == [10, 10]
    assert r["rx"]["time_ns"] == 10 * mcs0 + 10 * 100_000 + 2 * (76_000 + 44_000)
    assert r["tx"]["time_ns"] == 10 * mcs0 + 10 * 100_000 + 2 * (76_000 + 44_000)
    # The same flows at the BSS's MCS 7 take less airtime.
    fast = radio(wattlab.run(text=bss("80211ax", "mcs = 7", flows)))
    assert fast["rx"]["time_ns"] < r["rx"]["time_ns"] / 3


@pytest.mark.parametrize("phy, keys, bad_key, key, words", [
    ("80211ac", "width = 20", "mcs = 9", "wlan[0].mcs",
     ["802.11ac has no MCS 9 at 20 MHz with 1 stream (valid MCS at 20 MHz, 1 SS: 0-8)"]),
    ("80211ac", "mcs = 6\nwidth = 80", "nss = 3", "wlan[0].mcs", ["(valid MCS at 80 MHz, 3 SS: 0-5, 7-9)"]),
    ("80211n", "mcs = 7", "width = 80", "wlan[0].width", ["no 80 MHz channels", "widths: 20, 40 MHz"]),
    ("80211ax", "mcs = 7", 'gi = "400ns"', "wlan[0].gi", ["no 400 ns guard interval", "800, 1600, 3200"]),
    ("80211ax", "mcs = 7", 'rate = "54Mbps"', "wlan[0].rate", ["sends data at an MCS"]),
    ("80211ax", "mcs = 7", 'rate = "minstrel"', "wlan[0].rate",
     ["`minstrel` is neither a rate nor a rate-control algorithm", "minstrel-ht"]),
    ("80211ax", "mcs = 7\nwidth = 80", 'band = "2.4GHz"', "wlan[0].width", ["in the 2.4 GHz band (widths: 20, 40 MHz)"]),
    ("80211ac", "mcs = 7", 'band = "6GHz"', "wlan[0].band", ["802.11ac does not operate in the 6 GHz band (bands: 5 GHz)"]),
    ("80211ac", "mcs = 7", 'band = "7GHz"', "wlan[0].band", ["unknown band `7GHz`", "2.4GHz, 5GHz, 6GHz"]),
    ("80211n", "mcs = 7", 'packet_padding = "16us"', "wlan[0].packet_padding", ["802.11ax (HE) setting"]),
    ("80211ax", "mcs = 7", 'packet_padding = "12us"', "wlan[0].packet_padding", ['"0us", "8us" or "16us"']),
    ("80211a", 'rate = "54Mbps"', "mcs = 7", "wlan[0].mcs", ["802.11a is a legacy PHY", "not mcs"]),
    ("80211n", "nss = 1", "mcs = 15", "wlan[0].mcs", ["HT-MCS 15 is 2 streams but nss = 1"]),
])
def test_bad_mcs_settings_are_located_and_list_what_is_valid(phy, keys, bad_key, key, words):
    text = bss(phy, keys + "\n" + bad_key)
    with pytest.raises(wattlab.ScenarioError) as e:
        wattlab.validate(text=text)
    msg = str(e.value)
    assert key in msg and all(w in msg for w in words), msg
    line = text.splitlines().index(bad_key) + 1 if key.endswith(bad_key.split(" ")[0]) else None
    if line:
        assert f":{line}:" in msg, msg


def test_missing_keys_and_station_overrides_are_located():
    # No mcs on an HE BSS: the error points at the phy line and lists the valid MCS.
    text = bss("80211ax", "nss = 2")
    with pytest.raises(wattlab.ScenarioError, match=r"wlan\[0\]\.mcs.*802\.11ax needs `mcs` \(at 20 MHz, 2 SS: 0-11\)"):
        wattlab.validate(text=text)
    # A station's bad MCS names its [[wlan.station]] key and line.
    text = bss("80211ax", "mcs = 7", stations='[[wlan.station]]\nnode = "client"\nmcs = 12')
    with pytest.raises(wattlab.ScenarioError) as e:
        wattlab.validate(text=text)
    msg = str(e.value)
    line = text.splitlines().index("mcs = 12") + 1
    assert "wlan[0].station[0].mcs" in msg and "0-11" in msg and f":{line}:" in msg, msg
    # A legacy BSS still needs its rate.
    with pytest.raises(wattlab.ScenarioError, match=r"wlan\[0\]\.rate.*802\.11a needs a `rate`"):
        wattlab.validate(text=bss("80211a", ""))


def test_the_new_phys_are_listed_and_their_rates_are_the_standards():
    assert physics.phy_names()[-3:] == ["802.11n", "802.11ac", "802.11ax"]
    assert physics.mcs_info("802.11n", 7, 1, 40, 400)["data_rate_bps"] == 150_000_000
    assert round(physics.mcs_info("802.11ac", 9, 2, 80, 400)["data_rate_bps"] / 1e5) == 8667
    assert round(physics.mcs_info("802.11ax", 11, 2, 80, 800)["data_rate_bps"] / 1e6) == 1201
    assert physics.mcs_info("802.11ax", 11, 2, 80, 800)["modulation"] == "1024-QAM 5/6"
    with pytest.raises(ValueError, match="valid MCS at 20 MHz, 1 SS: 0-8"):
        physics.ppdu_s("802.11ac", 1500, 9)
    assert physics.phy("802.11ax")["band"] == "5 GHz" and physics.phy("802.11a")["format"] == "legacy"
