"""The 802.11 MAC (issue 3): Bianchi, TCP capacity, up/down starvation, PSM, BSD, airtimes."""

from __future__ import annotations

import pytest

import wattlab
from wattlab.models import wlan

from conftest import wired_path


def bss(*, power_save: str = "cam", phy: str = "80211a", rate: str = "54Mbps", wired_delay: str = "30ms",
        wired_rate: str = "100Mbps", flows: str = "", profile: str = "wavelan-dsss", extra: str = "") -> str:
    """server -- ap ~~ client, the client with a radio."""
    return f"""
name = "wlan-test"
{wired_path(profile, wired_rate, wired_delay)}
[[wlan]]
ap = "ap"
stations = ["client"]
phy = "{phy}"
rate = "{rate}"
power_save = "{power_save}"
{extra}
{flows}
"""


def test_saturation_matches_bianchi_within_5_percent(capsys):
    df = wlan.bianchi_check(seconds=3.0)
    with capsys.disabled():
        print("\n" + df.to_string(index=False))
    assert len(df) == 8
    assert (df["error_pct"].abs() < 5).all(), df
    # The collision probability per attempt also follows the model (Bianchi's p).
    assert ((df["sim_p"] - df["model_p"]).abs() < 0.05).all(), df


def test_one_tcp_flow_reaches_the_theoretical_tcp_maximum(capsys):
    df = wlan.tcp_capacity_check()
    with capsys.disabled():
        print("\n" + df.to_string(index=False))
    assert (df["error_pct"].abs() < 5).all(), df
    # The MAC-only figure (seed 002's 29.6 Mb/s, after Jun et al.) is an upper bound TCP cannot reach.
    assert (df["sim_mbps"] < 0.9 * df["mac_only_mbps"]).all()
    assert abs(df["mac_only_mbps"].iloc[0] - 29.68) < 0.01


def test_five_up_five_down_starves_the_downstream_flows(capsys):
    """Seed 002 Sect. 2.5: the AP is the bottleneck; its buffer drops upstream ACKs and
    downstream data, so downstream TCP flows get a small share."""
    ups = [f"u{i}" for i in range(5)]
    downs = [f"d{i}" for i in range(5)]
    nodes = "".join(f'[[node]]\nname = "{n}"\nkind = "host"\n' for n in ups + downs)
    tcp = 'tcp = { cc = "reno", recv_buffer = "512KB", window_scale = 4 }'
    flows = "".join(
        f'[[flow]]\nname = "up-{n}"\nkind = "bulk-upload"\nclient = "{n}"\nserver = "server"\nbytes = "1GB"\nport = {5001 + i}\n{tcp}\n'
        for i, n in enumerate(ups)
    ) + "".join(
        f'[[flow]]\nname = "down-{n}"\nkind = "bulk-download"\nclient = "{n}"\nserver = "server"\nbytes = "1GB"\nport = {8001 + i}\n{tcp}\n'
        for i, n in enumerate(downs)
    )
    stations = ", ".join(f'"{n}"' for n in ups + downs)
    text = f"""
name = "seed002-5up-5down"
[simulation]
duration = "60s"
[[node]]
name = "server"
kind = "host"
[[node]]
name = "ap"
kind = "ap"
{nodes}
[[link]]
a = "server"
b = "ap"
rate = "100Mbps"
delay = "100ms"
queue = {{ packets = 10000 }}
[[wlan]]
ap = "ap"
stations = [{stations}]
phy = "80211a"
rate = "54Mbps"
ap_queue = 100
{flows}
"""
    res = wattlab.run(text=text)
    f = res.flows.set_index("name")
    up = f.loc[[f"up-{n}" for n in ups], "bytes_delivered"].astype(float)
    down = f.loc[[f"down-{n}" for n in downs], "bytes_delivered"].astype(float)
    x = list(up) + list(down)
    jain = sum(x) ** 2 / (len(x) * sum(v * v for v in x))
    share = down.sum() / (up.sum() + down.sum())
    with capsys.disabled():
        print(f"\n5 up + 5 down, 60 s: upstream {up.sum() * 8 / 60e6:.2f} Mb/s, downstream {down.sum() * 8 / 60e6:.2f} Mb/s, "
              f"downstream share {share:.3f}, Jain's index {jain:.3f}")
    assert share < 0.2, f"downstream share {share:.3f}"
    assert jain < 0.7


def test_psm_rounds_request_response_rtts_up_to_beacons():
    text = bss(power_save="psm", phy="80211b", rate="11Mbps", wired_delay="15ms",
               flows='[[flow]]\nkind = "ping"\nfrom = "client"\nto = "server"\ncount = 20\ninterval = "0.3137s"')
    rtts = wattlab.run(text=text).summary["flows"][0]["rtt_ms"]
    assert len(rtts) == 20
    beacon = 102.4
    sent = [k * 313.7 for k in range(20)]
    for s, r in zip(sent, rtts):
        # The reply reaches the AP ~30 ms after the request; the station fetches it after the
        # next beacon: the arrival sits just after a beacon (beacon + PS-Poll exchange).
        arrival = s + r
        after_beacon = arrival - beacon * int(arrival // beacon)
        assert r >= 30.0
        assert after_beacon < 3.0, (s, r, after_beacon)
    assert sum(rtts) / len(rtts) > 60.0, "mean RTT inflated well beyond the 30 ms path"
    # Without PSM the same pings take the path RTT.
    cam = wattlab.run(text=text.replace('power_save = "psm"', 'power_save = "cam"')).summary["flows"][0]["rtt_ms"]
    assert max(cam) < 33.0


def seed000_download(power_save: str) -> dict:
    """Seed 000's large-file setup: 5 MB at 20 Mb/s, 60 ms RTT, WaveLAN card."""
    res = wattlab.run(text=bss(power_save=power_save, wired_rate="20Mbps", wired_delay="30ms",
                          flows='[[flow]]\nkind = "bulk-download"\nclient = "client"\nserver = "server"\nbytes = "5MB"'))
    flow = res.summary["flows"][0]
    energy = {r["policy"]: r["energy_j"] for r in res.summary["radios"]}
    return {"time": flow["completion_time_s"], "energy": energy, "radios": res.summary["radios"]}


def test_ideal_psm_download_is_slower_and_cheaper_than_always_on():
    base = seed000_download("cam")
    ideal = seed000_download("ideal-psm")
    assert ideal["time"] >= base["time"]
    assert ideal["energy"]["ideal-psm"] < base["energy"]["always-on"]


def test_bsd50_stays_awake_through_a_download_and_sleeps_in_think_time():
    flows = (
        '[[flow]]\nname = "page1"\nkind = "bulk-download"\nclient = "client"\nserver = "server"\nbytes = "1MB"\n'
        '[[flow]]\nname = "page2"\nkind = "bulk-download"\nclient = "client"\nserver = "server"\nbytes = "1MB"\n'
        'start = "8s"\nport = 81\n'
    )
    res = wattlab.run(text=bss(power_save="bsd-50", wired_delay="30ms", flows=flows), timeseries=True)
    f = res.flows.set_index("name")
    cam = wattlab.run(text=bss(power_save="cam", wired_delay="30ms", flows=flows)).flows.set_index("name")
    # Bounded slowdown: each download takes at most 1.5x (p = 50 %) of always-on's time.
    for page in ("page1", "page2"):
        assert f.loc[page, "completion_time_s"] <= 1.5 * cam.loc[page, "completion_time_s"]
    tl = res.radio_series
    tl = tl[tl["policy"] == "bsd-50"].reset_index(drop=True)
    end1 = f.loc["page1", "completion_time_s"]
    # No sleep while page 1 downloads (RTT 60 ms < the 200 ms awake window).
    during = tl[(tl["time_s"] > 0.3) & (tl["time_s"] < end1)]
    assert not (during["state"] == "sleep").any()
    # In the think time it sleeps, in intervals that grow but never exceed 0.9 s.
    think = tl[(tl["time_s"] > end1) & (tl["time_s"] < 8.0)]
    sleeps = [(t1 - t0) for (t0, s0), (t1, _) in zip(think[["time_s", "state"]].values, think[["time_s", "state"]].values[1:]) if s0 == "sleep"]
    assert len(sleeps) >= 5
    assert max(sleeps) <= 0.9 + 1e-9
    assert max(sleeps) > 3 * min(sleeps), sleeps


def test_airtime_fixture_matches_hand_computed_frame_times():
    """10 UDP datagrams of 1000 B (IP) to the station, 802.11a 54 Mb/s, no contention:
    data = 20 + 4 * ceil((16 + 8 * 1036 + 6) / 216) = 176 us each (received),
    MAC ACK at 24 Mb/s = 20 + 4 * ceil(134 / 96) = 28 us each (transmitted)."""
    flows = ('[simulation]\nduration = "1s"\nstop_when_done = false\n'
             '[[flow]]\nkind = "udp-cbr"\nfrom = "server"\nto = "client"\nrate = "7.76Mbps"\n'
             'packet_size = "972B"\nduration = "0.01s"')
    res = wattlab.run(text=bss(flows=flows))
    f = res.summary["flows"][0]
    assert f["datagrams_received"] == 10
    r = next(r for r in res.summary["radios"] if r["policy"] == "always-on")["report"]
    assert r["rx"]["time_ns"] == 10 * 176_000
    assert r["tx"]["time_ns"] == 10 * 28_000


@pytest.mark.parametrize(
    "change, key, words",
    [
        ('phy = "80211a"', "wlan[0].phy", ["unknown PHY `80211be`", "802.11a", "802.11ax"]),
        ('rate = "54Mbps"', "wlan[0].rate", ["has no rate 11Mbps"]),
        ('power_save = "cam"', "wlan[0].power_save", ["unknown power-save mode", "bsd-P"]),
    ],
)
def test_bad_wlan_settings_are_located(change, key, words):
    bad = {"phy": 'phy = "80211be"', "rate": 'rate = "11Mbps"', "power_save": 'power_save = "sometimes"'}[key.split(".")[1]]
    text = bss(flows='[[flow]]\nkind = "bulk-download"\nclient = "client"\nserver = "server"\nbytes = "1MB"').replace(change, bad)
    with pytest.raises(wattlab.ScenarioError) as e:
        wattlab.validate(text=text)
    msg = str(e.value)
    assert key in msg and all(w in msg for w in words), msg
    line = text.splitlines().index(bad) + 1
    assert f":{line}:" in msg, msg


def test_a_bad_ap_queueing_is_located():
    text = bss(flows='[[flow]]\nkind = "bulk-download"\nclient = "client"\nserver = "server"\nbytes = "1MB"')
    text = text.replace('power_save = "cam"', 'power_save = "cam"\nap_queueing = "wfq"')
    with pytest.raises(wattlab.ScenarioError) as e:
        wattlab.validate(text=text)
    msg = str(e.value)
    line = text.splitlines().index('ap_queueing = "wfq"') + 1
    assert "wlan[0].ap_queueing" in msg and "fair-class" in msg and f":{line}:" in msg, msg


def test_station_rows_carry_aggregation_and_airtime_columns():
    """Issue 29: per-station A-MPDU, Block Ack and airtime columns (zero aggregation on a
    legacy PHY, which keeps DCF); the airtime shares add up to the medium's utilization."""
    res = wattlab.run(text=bss(flows='[[flow]]\nkind = "bulk-upload"\nclient = "client"\nserver = "server"\nbytes = "2MB"'))
    st = res.wlan_stations
    for col in ["ampdus", "ampdu_mpdus", "ampdu_mean", "ampdu_1", "ampdu_128_256", "ba_retries", "ba_lost",
                "ba_setups", "airtime_ns", "airtime_share"]:
        assert col in st.columns, col
    assert (st["ampdus"] == 0).all() and (st["ba_setups"] == 0).all()
    assert (st["airtime_share"] > 0).all()
    util = res.wlans["utilization"].iloc[0]
    assert abs(st["airtime_share"].sum() - util) < 0.01 * util + 1e-3, (st["airtime_share"].tolist(), util)
