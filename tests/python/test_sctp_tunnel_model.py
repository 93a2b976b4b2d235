"""Seed 002 Ch. 4's SCTP-tunnel power model (wattlab.models.sctp_tunnel; docs/models.md)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from wattlab.models import sctp_tunnel as st
from wattlab.models import tcp_energy as te

KB = 1024  # the thesis's "kbyte", read as 1024 B like its Mbps = 1024² b/s (docs/models.md)


def test_sctp_sizes_as_the_thesis_computes_them():
    """Eq. 4.12: 12 + 20 + s + padding to 4 bytes; the thesis's 1532 B and 72 B."""
    assert st.s_sctp(1500) == 1532 and st.s_sctp(40) == 72
    assert st.s_sctp(41) == 76 and st.s_sctp(44) == 76 and st.s_sctp(45) == 80


def test_wire_sizes_rfc9260_over_udp():
    """IPv4 20 + UDP 8 (RFC 6951) + common header 12 + DATA chunk 16 (RFC 9260) + payload padded."""
    assert st.s_sctp(1500, "wire") == 1556 and st.s_sctp(40, "wire") == 96 and st.s_sctp(41, "wire") == 100
    with pytest.raises(ValueError, match="sizing"):
        st.s_sctp(40, "jumbo")


@pytest.mark.parametrize("up,down,s_up,s_down", [(1.0, 0.0, 1532, 72), (0.0, 1.0, 72, 1532), (1.0, 1.0, 802, 802),
                                                 (3.0, 1.0, 0.75 * 1532 + 0.25 * 72, 0.25 * 1532 + 0.75 * 72)])
def test_expected_sizes_weight_by_mu(up, down, s_up, s_down):
    """Eqs. 4.8–4.11 with μ = down/up."""
    su, sd = st.expected_sizes(up, down)
    assert su == pytest.approx(s_up) and sd == pytest.approx(s_down)


def test_buffering_delay_is_m_minus_1_over_2r():
    """Eq. 4.13, D = (m − 1)/(2R), R of Eq. 4.5, and the same D out of power()."""
    r = st.packet_rate(450 * KB)
    assert r == pytest.approx(450 * 1024 / 1500)
    assert st.packet_rate(300e3, 150e3) == pytest.approx(300.0)
    m = np.arange(1, 11)
    assert st.buffering_delay(m, r) == pytest.approx((m - 1) / (2 * r))
    assert st.buffering_delay(1, r) == 0.0
    d = st.power(450 * KB, 0.1, m)
    assert d["delay_s"] == pytest.approx((m - 1) / (2 * r))
    assert st.buffering_delay(5, 300.0) == pytest.approx(2 / 300)


def test_mac_times_are_the_ch3_model_at_the_sctp_frame():
    """Upstream only, every client frame carries 1532 B and every AP frame 72 B: the Ch. 3 MAC
    model with those packet sizes (its frames add MAC + LLC headers to them), exactly."""
    for mac in (te.Mac80211a(), te.Mac80211a(timing="ofdm", control_rate_bps=24e6)):
        tun = st.Tunnel(mac=mac)
        ours = st.mac_times(np.array([0.0, 0.1, 0.5]), 1.0, 0.0, tun)
        ch3 = te.mac_times(np.array([0.0, 0.1, 0.5]), mac=mac, tr=te.Transfer(data_bytes=1532, ack_bytes=72))
        for k in ("t_t", "t_r", "e_t", "e_r"):
            np.testing.assert_allclose(ours[k], ch3[k], rtol=1e-12)
    # A mix averages the two frames' durations (= T(ŝ) under the thesis's linear timing).
    mix = st.mac_times(0.2, 3.0, 1.0)
    pure_up, pure_down = st.mac_times(0.2, 1.0, 0.0), st.mac_times(0.2, 0.0, 1.0)
    assert mix["t_t"] == pytest.approx(0.75 * pure_up["t_t"] + 0.25 * pure_down["t_t"], rel=1e-12)
    frame = te.Mac80211a().data_frame_s(st.expected_sizes(3.0, 1.0)[0])
    assert mix["t_data_up"] == pytest.approx(frame, rel=1e-12)


def test_table_4_1_and_4_2_are_the_defaults_and_the_profile():
    """Table 4.1 (= Table 3.2, N = 7) is the MAC default; Table 4.2 is the atheros-ar5004 profile."""
    mac = st.Tunnel().mac
    assert (mac.rate_bps, mac.slot_s, mac.sifs_s, mac.difs_s, mac.preamble_s) == (54e6, 9e-6, 16e-6, 34e-6, 16e-6)
    assert (mac.mac_header_bytes, mac.llc_header_bytes, mac.cw_min, mac.cw_max, mac.retry_limit) == (24, 8, 15, 1023, 7)
    table_4_2 = dict(p_tx=1.4, p_rx=0.9, p_idle=0.8, p_sleep=0.016, p_as=0.8, p_sa=1.4, t_as=1e-6, t_sa=1e-3)
    prof = te.Wni.from_profile("atheros-ar5004")
    for k, v in table_4_2.items():
        assert getattr(prof, k) == pytest.approx(v, rel=1e-9), k
        assert getattr(st.Tunnel().wni, k) == pytest.approx(v, rel=1e-12), k


def test_loss_free_limit_by_hand():
    """q = 0: bursts of m every m/R, each m sent + m received, one sleep per gap (Eqs. 3.25, 3.32),
    written out independently of the model's round machinery."""
    mt = te.mac_times(0.0, tr=te.Transfer(data_bytes=1532, ack_bytes=72))
    tt, tr_, et, er = mt["t_t"], mt["t_r"], mt["e_t"], mt["e_r"]
    w = te.Wni()
    for agg in (150 * KB, 450 * KB, 900 * KB):
        r = agg / 1500
        p_cam = r * (et + er) + w.p_idle * (1 - r * (tt + tr_))
        for m in (1, 2, 5):
            gap = m * (1 / r - tt - tr_)
            saving = (w.p_idle - w.p_sleep) * (gap - w.t_st) - (w.e_st - w.p_idle * w.t_st) if gap > w.t_st else 0.0
            p_sleep = p_cam - saving * r / m
            d = st.power(agg, 0.0, m)
            assert d["p_cam_w"] == pytest.approx(p_cam, rel=1e-6)
            assert d["p_sleep_w"] == pytest.approx(p_sleep, rel=1e-4), (agg, m)


# notes/002.md §9, "Ch. 4 P_ratio": a private reconstruction by the notes' author, independent
# of this code (q = 0.1, upstream only, 1 kB = 1000 B, one burst = m sent + m received every m/R).
NOTES_P_CAM = {150: 0.820, 300: 0.839, 450: 0.859, 600: 0.879, 750: 0.899, 900: 0.918}
NOTES_RATIO = {150: (0.720, 0.804, 0.855), 300: (0.472, 0.637, 0.736), 450: (0.235, 0.477, 0.622),
               600: (0.009, 0.324, 0.513), 750: (-0.207, 0.178, 0.409), 900: (0.000, 0.039, 0.310)}


def test_matches_the_notes_independent_reconstruction():
    agg = np.array(sorted(NOTES_RATIO)) * 1000.0
    g = st.power_grid(agg, [0.1], [1, 2, 5])
    for i, k in enumerate(sorted(NOTES_RATIO)):
        assert g["p_cam_w"][i, 0, 0] == pytest.approx(NOTES_P_CAM[k], abs=0.0006), k
        np.testing.assert_allclose(g["p_ratio"][i, 0, :], NOTES_RATIO[k], atol=0.0006, err_msg=str(k))
    # "If only one received packet per burst is counted (Ch. 3 style), the m = 5 value at 450 kB/s is 0.668."
    one = st.power(450e3, 0.1, 5, tun=st.Tunnel(rx_per_burst="one"))
    assert one["p_ratio"] == pytest.approx(0.668, abs=0.0006)
    # "R^max_sctp = 1412 / 1199 / 493 packets/s for q = 0.1 / 0.2 / 0.5."
    r_max = st.power(100e3, np.array([0.1, 0.2, 0.5]), 1)["r_max_pps"]
    np.testing.assert_allclose(r_max, [1412, 1199, 493], atol=0.6)


# Tolerance of the thesis's key numbers: the conventions the thesis leaves open (frame timing
# simple/OFDM, control frames at 54/24/6 Mb/s, kB = 1000/1024 B, SCTP sizes as printed or on
# the wire, one or m packets received per burst) move our P_ratio at 450 kB/s by up to 0.06
# (m = 1: 0.177–0.235) and 0.10 (m = 5: 0.565–0.668) (docs/models.md). We accept a distance
# to the thesis within that spread, 0.10, and record the side: the thesis lies above every
# variant at m = 1 (its frame exchanges must be shorter than ours).
KEY_TOL = 0.10


def test_key_numbers_beside_the_thesis():
    d = st.power(450 * KB, 0.1, np.array([1, 5]))
    ours_m1, ours_m5 = d["p_ratio"]
    assert abs(ours_m1 - 0.27) < KEY_TOL and abs(ours_m5 - 0.69) < KEY_TOL
    assert ours_m1 < 0.27 and ours_m5 < 0.69, "documented: the model is below the thesis at both m"
    assert ours_m1 == pytest.approx(0.218, abs=0.001) and ours_m5 == pytest.approx(0.614, abs=0.001)
    assert d["p_cam_w"][0] == pytest.approx(0.861, abs=0.001) and d["p_sleep_w"] == pytest.approx([0.673, 0.332], abs=0.001)


def test_fig48_gains_beside_the_thesis():
    """Fig. 4.8 (50 kB/s flows, q = 0.1): gains over D_th = 0 as docs/models.md quotes them."""
    b = st.best_ratio_under_delay(np.array([500, 800]) * KB, 0.1, [0.0, 3e-3, 10e-3])
    gain = b["p_ratio"][:, 1:] - b["p_ratio"][:, :1]
    np.testing.assert_allclose(gain, [[0.363, 0.467], [0.321, 0.454]], atol=0.001)
    np.testing.assert_array_equal(b["m"], [[1, 3, 7], [0, 4, 11]])
    thesis = np.array([[0.3, 0.5], [0.4, 0.6]])
    assert np.abs(gain - thesis).max() < 0.15, "within 0.15 of the thesis's figure readings (10 ms at 800 kB/s: -0.146)"


def test_convention_spread_quoted_in_the_docs():
    variants = [st.Tunnel(), st.Tunnel(sizing="wire"), st.Tunnel(rx_per_burst="one")]
    for timing, ctl in (("simple", 6e6), ("ofdm", 54e6), ("ofdm", 24e6), ("ofdm", 6e6)):
        variants.append(st.Tunnel(mac=te.Mac80211a(timing=timing, control_rate_bps=ctl)))
    vals = np.array([[st.power(450 * kb, 0.1, np.array([1, 5]), tun=t)["p_ratio"] for t in variants] for kb in (1000, 1024)])
    lo, hi = vals.reshape(-1, 2).min(axis=0), vals.reshape(-1, 2).max(axis=0)
    np.testing.assert_allclose(lo, [0.177, 0.565], atol=0.001)
    np.testing.assert_allclose(hi, [0.235, 0.668], atol=0.001)
    assert (hi - lo).max() <= KEY_TOL + 0.005


def test_sleep_equals_cam_at_and_above_r_max_and_cam_rises():
    agg = np.linspace(50, 3000, 60) * KB
    g = st.power_grid(agg, [0.1, 0.2, 0.5], [1, 2, 5], detail=True)
    sat = g["rate_pps"] >= g["r_max_pps"]
    assert sat.any() and (~sat).any()
    np.testing.assert_allclose(g["p_sleep_w"][sat], g["p_cam_w"][sat], rtol=1e-12)
    assert (g["idle_cam_s"][sat] >= -1e-9 * g["t_all_s"][sat]).all()
    below = ~g["saturated"][:, :, 0]
    cam = g["p_cam_w"][:, :, 0]
    for j in range(3):
        c = cam[below[:, j], j]
        assert (np.diff(c) > 0).all(), "P_cam rises with throughput below R_max"
    assert (g["sleep_share"] >= 0).all() and (g["sleep_share"] <= 1).all()
    assert (g["idle_cam_s"] >= -1e-9 * g["t_all_s"]).all()
    assert (g["idle_cam_s"] - g["t_sleep_s"] - g["n_st"] * te.Wni().t_st >= -1e-9 * g["t_all_s"]).all()


def test_short_and_long_td_periods_agree_at_the_switch(monkeypatch):
    """Just below the switch (q = 0.34: E[r_td] = 62.6 rounds) the round-by-round sum and the
    mean burst count of long periods agree within 0.003 in P_ratio; at q = 0.5 (14.5 rounds,
    where fractional windows make ⌈w/m⌉ count a partial burst) within 0.011."""
    agg = np.array([150e3, 300e3, 450e3, 600e3, 900e3])[:, None]
    m = np.array([1, 2, 3, 5, 7, 10])[None, :]
    assert 60 < st.power(300e3, 0.34, 1, detail=True)["r_td"] <= st.EXACT_ROUNDS
    exact = {q: st.power(agg, q, m)["p_ratio"] for q in (0.34, 0.5)}
    monkeypatch.setattr(st, "EXACT_ROUNDS", 0)
    mean = {q: st.power(agg, q, m)["p_ratio"] for q in (0.34, 0.5)}
    diff = {q: np.abs(exact[q] - mean[q]).max() for q in (0.34, 0.5)}
    assert 0 < diff[0.34] < 0.003 and 0 < diff[0.5] < 0.011, diff


def test_grid_equals_points():
    up = np.array([150e3, 450e3, 600e3])[:, None]
    down = np.array([0.0, 100e3, 5e3])[:, None]
    m = np.array([1, 2, 5, 7])[None, :]
    grid = st.power(up, np.array([[0.5]]), m, down)
    for i in range(3):
        for j in range(4):
            one = st.power(up[i, 0], 0.5, m[0, j], down[i, 0])
            assert one["p_ratio"] == pytest.approx(grid["p_ratio"][i, j], abs=1e-12)


def test_break_even_rule_never_loses_energy():
    agg = np.linspace(50, 1500, 30) * KB
    thesis = st.power_grid(agg, [0.1, 0.5], [1, 2, 5])
    be = st.power_grid(agg, [0.1, 0.5], [1, 2, 5], tun=st.Tunnel(sleep_rule="break-even"))
    assert (thesis["p_ratio"] < -0.01).any(), "the thesis's rule sleeps at a loss somewhere (Fig. 4.5)"
    assert (be["p_ratio"] >= -1e-12).all()
    assert st.Tunnel(sleep_rule="break-even").sleep_threshold_s() == pytest.approx(1.766e-3, abs=1e-6)


def test_best_ratio_under_delay():
    agg = np.array([500, 800]) * KB
    b = st.best_ratio_under_delay(agg, 0.1, [0.0, 3e-3, 10e-3])
    r = st.packet_rate(agg)
    assert (b["m"][:, 0] <= 1).all(), "D_th = 0 allows only m = 1 (or staying awake)"
    for i in range(2):
        for j, d_th in enumerate((0.0, 3e-3, 10e-3)):
            m = b["m"][i, j]
            if m > 0:
                assert (m - 1) / (2 * r[i]) <= d_th + 1e-15
                # the next larger m breaks the bound (the ratio grows with m here)
                assert m / (2 * r[i]) > d_th
    assert b["p_ratio"][1, 0] == 0.0 and b["m"][1, 0] == 0, "800 kB/s, m = 1 sleeps at a loss: stay awake"
    raw = st.best_ratio_under_delay(agg, 0.1, [0.0], stay_awake=False)
    assert raw["p_ratio"][1, 0] < 0
    with pytest.raises(ValueError, match="D_th"):
        st.best_ratio_under_delay(agg, 0.1, [-1.0])


@pytest.mark.parametrize("kw,msg", [(dict(q=1.0), "q must"), (dict(q=-0.1), "q must"), (dict(m=0), "m must"),
                                    (dict(m=2.5), "m must"), (dict(up_Bps=-1.0), "throughputs"),
                                    (dict(up_Bps=0.0), "throughputs")])
def test_bad_input_is_a_clear_error(kw, msg):
    args = dict(up_Bps=100e3, q=0.1, m=1) | kw
    with pytest.raises(ValueError, match=msg):
        st.power(**args)


def test_unknown_convention_is_named():
    with pytest.raises(ValueError, match="rx_per_burst"):
        st.power(100e3, 0.1, 1, tun=replace(st.Tunnel(), rx_per_burst="two"))
    with pytest.raises(ValueError, match="sleep rule"):
        st.power(100e3, 0.1, 1, tun=replace(st.Tunnel(), sleep_rule="never"))


@pytest.mark.parametrize("agg,q,m,rx", [(300 * KB, 0.5, 5, "m"), (150 * KB, 0.5, 2, "m"), (300 * KB, 0.45, 3, "one"),
                                        (420 * KB, 0.5, 1, "m"), (300 * KB, 0.5, 20, "m")])
def test_short_td_period_against_a_plain_loop(agg, q, m, rx):
    """The sorted prefix sums of short TD periods equal a plain loop over the rounds, written
    out here: round j has window w = E[W]/2 + j (weight min(1, r − j)), N = ⌈w/m⌉ bursts sharing
    its idle time w/R − w·E[t^t] − rx·E[t^r], each slept through when longer than t^st."""
    tun = st.Tunnel(rx_per_burst=rx)
    mt = st.mac_times(q, 1.0, 0.0, tun)
    tt, tr_, et, er = (float(mt[k]) for k in ("t_t", "t_r", "e_t", "e_r"))
    w_ = te.Wni()
    r = agg / 1500
    p = q**8
    e_w = 1 + np.sqrt(8 * (1 - p) / (3 * p) + 1)
    s = 1 - p
    qhat = min(1.0, (1 - s**3) * (1 + s**3 * (1 - s ** (e_w - 3))) / (1 - s**e_w))
    e_n, e_r_to, r_td = 1 / qhat, 1 / (1 - p), e_w / 2 + 1
    sent = rcvd = sleep = trans = 0.0
    j = 0
    while r_td - j > 0:
        weight, w = min(1.0, r_td - j), e_w / 2 + j
        n = max(np.ceil(w / m - 1e-9), 1.0)
        rx_n = w if rx == "m" else n
        idle = w / r - w * tt - rx_n * tr_
        if idle / n > w_.t_st:
            sleep += weight * e_n * (idle - n * w_.t_st)
            trans += weight * e_n * n
        sent += weight * e_n * w
        rcvd += weight * e_n * rx_n
        j += 1
    gap = 1 / r - tt - tr_  # the TO period: E[R] bursts of one
    if gap > w_.t_st:
        sleep += e_r_to * (gap - w_.t_st)
        trans += e_r_to
    sent += e_r_to
    rcvd += e_r_to
    t_all = sent / r
    j_cam = sent * et + rcvd * er + w_.p_idle * (t_all - sent * tt - rcvd * tr_)
    j_sleep = j_cam - w_.p_idle * (sleep + trans * w_.t_st) + w_.p_sleep * sleep + trans * w_.e_st
    d = st.power(agg, q, m, tun=tun, detail=True)
    assert d["r_td"] <= st.EXACT_ROUNDS
    assert d["p_cam_w"] == pytest.approx(j_cam / t_all, rel=1e-9)
    assert d["p_sleep_w"] == pytest.approx(j_sleep / t_all, rel=1e-9)
