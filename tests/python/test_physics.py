"""Physics once (issue 28 point 6): Python's frame timing, break-even times and energies come
from the core (``wattlab.physics`` over ``wattlab._core``), and no Python module re-derives
them. The hand values are those of crates/wattlab-core/src/wlan/phy.rs and capacity.rs."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import wattlab
from wattlab import physics
from wattlab.models import sctp_tunnel as st
from wattlab.models import tcp_energy as te

PACKAGE = Path(wattlab.__file__).parent


def test_frame_timing_is_the_cores():
    us = lambda s: np.round(np.asarray(s) * 1e6, 6)  # noqa: E731
    # 1500-byte IP packet at 54 Mb/s: 57 symbols → 248 µs; its ACK at 24 Mb/s: 28 µs; 6 Mb/s: 44 µs.
    assert us(physics.data_frame_s("802.11a", 1500, 54_000)) == 248
    assert us(physics.ack_s("802.11a", [54_000, 6_000])).tolist() == [28, 44]
    assert us(physics.data_frame_s("802.11g", 1500, 54_000)) == 254  # + 6 µs signal extension
    # DSSS: 12288 bits / 11 Mb/s rounded up to the µs + 192 µs (96 with short preambles).
    assert us(physics.data_frame_s("802.11b", 1500, 11_000)) == 1310
    assert us(physics.data_frame_s("802.11b", 1500, 11_000, short_preamble=True)) == 1214
    assert us(physics.frame_s("802.11b", 14, 5_500)) == 192 + 21
    # One data + ACK exchange: 34 + 67.5 + 248 + 16 + 28 = 393.5 µs (capacity.rs).
    assert us(physics.exchange_s("802.11a", [1500, 40], 54_000)).tolist() == [393.5, 177.5]
    assert physics.control_rate_kbps("802.11a", 54_000) == 24_000
    a = physics.phy("802.11a")
    assert (a["slot_s"], a["sifs_s"], a["difs_s"], a["cw_min"], a["cw_max"]) == (9e-6, 16e-6, 34e-6, 15, 1023)
    # Arrays broadcast and keep their shape.
    assert physics.frame_s("802.11a", np.arange(6).reshape(2, 3) * 100, 54_000).shape == (2, 3)


def test_frame_timing_refuses_what_the_phy_does_not_have():
    with pytest.raises(ValueError, match="802.11a has no rate 11Mbps"):
        physics.frame_s("802.11a", 100, 11_000)
    with pytest.raises(ValueError, match="unknown PHY"):
        physics.frame_s("802.11be", 100, 54_000)
    # An HT PHY's data goes at an MCS (physics.ppdu_s), not at a rate.
    with pytest.raises(ValueError, match="give mcs, nss, width and gi"):
        physics.frame_s("802.11n", 100, 54_000)
    with pytest.raises(ValueError, match="whole numbers"):
        physics.frame_s("802.11a", 100.5, 54_000)
    with pytest.raises(ValueError, match="byte count"):
        physics.frame_s("802.11a", -1, 54_000)


def test_the_ch3_model_takes_its_802_11_from_the_core():
    # The OFDM timing is the core's airtime at every 802.11a rate (data and control frames).
    ph = physics.phy("802.11a")
    sizes = np.arange(0, 2400)
    for rate in ph["rates_kbps"]:
        mac = te.Mac80211a(timing="ofdm", rate_bps=rate * 1e3)
        assert np.array_equal(mac.frame_s(sizes), physics.frame_s("802.11a", sizes, rate))
    # Table 3.2's slot, SIFS, DIFS, CW and control-frame sizes are the core's 802.11a.
    mac = te.Mac80211a()
    assert (mac.slot_s, mac.sifs_s, mac.difs_s, mac.cw_min, mac.cw_max) == (
        ph["slot_s"], ph["sifs_s"], ph["difs_s"], ph["cw_min"], ph["cw_max"])
    assert (mac.rts_bytes, mac.cts_bytes, mac.ack_bytes) == (20, 14, 14)
    # The simulator's MAC: control frames at 24 Mb/s, MAC header + FCS 28 B + LLC 8 B.
    sim = te.Mac80211a.for_phy("802.11a", 54_000)
    assert (sim.timing, sim.control_rate_bps, sim.mac_header_bytes + sim.llc_header_bytes) == ("ofdm", 24e6, 36)
    assert sim.data_frame_s(1500) == pytest.approx(248e-6, abs=1e-15)


def test_the_wni_defaults_are_the_profile_and_the_thesis():
    # Table 3.3 + Sect. 3.5.1 (the thesis's numbers), read from the core's atheros-ar5004.
    assert te.Wni() == te.Wni(p_tx=1.4, p_rx=0.9, p_idle=0.8, p_sleep=0.016, p_as=0.8, p_sa=1.4, t_as=1e-6, t_sa=1e-3)
    assert te.Wni() == te.Wni.from_profile("atheros-ar5004")


def test_break_even_times_are_the_cores():
    # max(t^st, (E_st − P^s t^st)/(P^l − P^s)) = 1.3848 mJ / 0.784 W = 1.7663061 ms, rounded up to the ns.
    assert physics.break_even_s("atheros-ar5004") == 1.766307e-3
    assert te.Wni().break_even_s == physics.break_even_s("atheros-ar5004")
    assert st.Tunnel(sleep_rule="break-even").sleep_threshold_s() == 1.766307e-3
    assert st.Tunnel().sleep_threshold_s() == te.Wni().t_st
    # WaveLAN: the 2 ms wake-up at idle power pays for itself only over its own length.
    assert physics.break_even_s("wavelan-dsss") == 2e-3
    assert physics.break_even_s(idle_w=0.5, sleep_w=0.6) == float("inf")


def test_a_timeline_is_costed_by_the_meter():
    # WaveLAN: idle 0–10 ms, asleep 10–20 ms (its last 2 ms are the wake-up at idle power), idle 20–30 ms.
    t, s = [0.0, 0.010, 0.020], ["idle", "sleep", "idle"]
    e = physics.timeline_energy("wavelan-dsss", t, s, 0.030, owners=[0, 0, 1], at_s=[0.019, 0.015, 0.030, 0.5])
    idle, sleep = 1.319, 0.177
    assert e["energy_j"] == pytest.approx(20e-3 * idle + 8e-3 * sleep + 2e-3 * idle, rel=1e-12)
    assert e["at_j"][:3] == pytest.approx([10e-3 * idle + 8e-3 * sleep + 1e-3 * idle, 10e-3 * idle + 5e-3 * sleep,
                                           e["energy_j"]], rel=1e-12)
    assert np.isnan(e["at_j"][3])  # after the end
    # The wake-up is paid by the owner the radio woke for.
    assert e["by_owner_j"] == pytest.approx([10e-3 * idle + 8e-3 * sleep, 12e-3 * idle], rel=1e-12)
    # Ideal PSM's meter wakes for free.
    free = physics.timeline_energy("wavelan-dsss", t, s, 0.030, free_wakeups=True)
    assert free["energy_j"] == pytest.approx(20e-3 * idle + 10e-3 * sleep, rel=1e-12)
    with pytest.raises(ValueError, match="unknown radio state.*doze"):
        physics.timeline_energy("wavelan-dsss", t, ["idle", "doze", "idle"], 0.030)
    with pytest.raises(ValueError, match="row 2: time goes backwards"):
        physics.timeline_energy("wavelan-dsss", [0.0, 0.02, 0.01], s, 0.030)


def test_replaying_a_runs_timeline_gives_the_runs_energy():
    from wattlab.reproduce.yan_cc.web import BASE, WebSetup, web_overrides

    res = BASE.run(seed=2, overrides=web_overrides(WebSetup(pages=3, duration_s=300.0), "tcp"), timeseries=True)
    end = float(res.summary["end_time_s"])
    for meter in ("always-on", "oracle"):
        r = res.radio_series[res.radio_series.policy == meter]
        assert physics.timeline_energy("wavelan-dsss", r.time_s, r.state, end)["energy_j"] == res.energy(meter)


# Python re-derivations of the core's physics, as they looked before issue 28 (each would
# drift from the core the day a PHY or a profile changes). A new match is a re-derivation
# coming back: call wattlab.physics instead.
REDERIVATIONS = {
    "an 802.11 interval as a literal": re.compile(r"\b(sifs|difs|eifs|slot)\w*\s*(:[^=\n]*)?=\s*[\d.]+e-\d", re.I),
    "OFDM symbols counted in Python": re.compile(r"4e-6\s*\*\s*np\.ceil"),
    "a break-even time computed in Python": re.compile(r"/\s*\(\s*[\w.]*p_idle\s*-\s*[\w.]*p_sleep\s*\)"),
    "a wake-up cost as a constant": re.compile(r"^\s*WAKE_\w*\s*=", re.M),
    "a capture read record by record": re.compile(r"struct\.unpack_from"),
    "a capture or schedule walked row by row": re.compile(r"for [^\n]*(\.tolist\(\)|iterrows\(|itertuples\()"),
    "a profile's power as a literal": re.compile(r"^\s*\w*(IDLE|SLEEP|TX|RX)_MW\s*=\s*[\d.]", re.M),
}


def test_no_python_module_rederives_the_cores_physics():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text()
        for what, rx in REDERIVATIONS.items():
            if "row by row" in what and path.parent.name != "live":
                continue  # tables elsewhere may be walked; live captures may not
            for m in rx.finditer(text):
                line = text.count("\n", 0, m.start()) + 1
                found.append(f"{path.relative_to(PACKAGE)}:{line}: {what}: {m.group(0).strip()}")
    assert not found, "\n".join(found)
