"""Paper 002 Ch. 3: the energy of one upstream TCP transfer over 802.11a, closed form.

Hashimoto's thesis (Osaka Univ. 2013), Sect. 3.3 and App. 3.A; our reading with its
corrections is ``../shared/notes/002.md`` §2 and the model is documented equation by equation
in ``docs/models.md``. Everything is vectorised numpy: ``p``, ``rtt_s``, ``q`` and ``m``
broadcast against each other (pass ``p[:, None, None, None]``, ``rtt[None, :, None, None]``, …
for a grid); there is no Python loop over grid points (only over the ≤ 40 slow-start rounds).

Main entry points:

- :func:`mac_times`: Eqs. 3.1–3.10 (E[t^t], E[t^r], E[e^t], E[e^r]);
- :func:`energy`: E[J_cam], E[J_sleep], R_energy, latency and every intermediate term;
- :func:`loss_probability` (p = 1 − (1 − q^(N+1))(1 − p_l));
- :func:`design_conditions` (Eqs. 3.47–3.49) and :func:`per_rtt_reduction` (Eq. 3.46);
- :func:`window_from_throughput` (Eq. 3.42), :func:`p_from_window` (Eq. 3.57 inverted) and
  :func:`mean_ack_interarrival` (Table 3.1's "analysis").
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from wattlab import _core, physics

LIGHT_SPEED = 299_792_458.0
"""m/s, for the propagation delay τ."""


_PHY = physics.phy("802.11a")
"""802.11a's timing as the core has it (Table 3.2's slot, SIFS, DIFS and CW are 802.11a's)."""


@dataclass(frozen=True)
class Mac80211a:
    """Table 3.2's 802.11a parameters plus the conventions the thesis leaves open.

    Slot, SIFS, DIFS, CW and the control frames' sizes are the core's 802.11a
    (:func:`wattlab.physics.phy`, ``crates/wattlab-core/src/wlan/phy.rs``): Table 3.2 has the
    same numbers. Frame durations (not given in the thesis): ``timing = "simple"`` is
    T = preamble + 8·L/rate for every frame at ``rate_bps`` (our default, as in notes/002.md
    §2.2: the thesis's reading, no symbol rounding); ``"ofdm"`` is the core's airtime of the
    frame on ``phy`` (:func:`wattlab.physics.frame_s`: 20 µs of preamble and SIGNAL, 4 µs
    symbols holding the 16-bit SERVICE field and 6 tail bits; ``preamble_s`` is then unused),
    control frames at ``control_rate_bps``. :meth:`for_phy` is the simulator's MAC.
    """

    rate_bps: float = 54e6
    control_rate_bps: float = 54e6
    preamble_s: float = 16e-6
    """The PLCP preamble of the ``simple`` timing (802.11a's 16 µs, Table 3.2)."""
    slot_s: float = _PHY["slot_s"]
    sifs_s: float = _PHY["sifs_s"]
    difs_s: float = _PHY["difs_s"]
    cw_min: int = _PHY["cw_min"]
    cw_max: int = _PHY["cw_max"]
    mac_header_bytes: int = 24
    """Table 3.2's MAC header; the thesis counts no FCS (the simulator's frames carry one: :meth:`for_phy`)."""
    llc_header_bytes: int = 8
    rts_bytes: int = physics.FRAME_BYTES["rts"]
    cts_bytes: int = physics.FRAME_BYTES["ack"]
    ack_bytes: int = physics.FRAME_BYTES["ack"]
    retry_limit: int = 7
    """N, the maximum number of MAC retransmissions (N + 1 attempts); the thesis's Ch. 4 value."""
    rts_cts: bool = True
    """The client's data frames go with RTS/CTS (Eq. 3.3 as printed); False is basic access (DATA,
    SIFS, ACK: Eq. 3.3 without t_RTS, t_CTS and their two SIFS and 2τ)."""
    distance_m: float = 4.0
    timing: str = "simple"
    phy: str = "802.11a"
    """The core PHY whose airtimes the ``ofdm`` timing uses."""

    @classmethod
    def for_phy(cls, phy: str = "802.11a", rate_kbps: int = 54_000) -> "Mac80211a":
        """The simulator's MAC on ``phy`` at ``rate_kbps``: the core's timing, slot, SIFS,
        DIFS and CW, control frames at the highest basic rate not above the data rate, data
        frames with the MAC header, FCS and LLC/SNAP the simulator adds."""
        ph = physics.phy(phy)
        llc = cls.llc_header_bytes
        return cls(rate_bps=rate_kbps * 1e3, control_rate_bps=physics.control_rate_kbps(phy, rate_kbps) * 1e3,
                   slot_s=ph["slot_s"], sifs_s=ph["sifs_s"], difs_s=ph["difs_s"], cw_min=ph["cw_min"],
                   cw_max=ph["cw_max"], mac_header_bytes=physics.FRAME_BYTES["data_overhead"] - llc,
                   llc_header_bytes=llc, timing="ofdm", phy=phy)

    @property
    def tau_s(self) -> float:
        """Propagation delay τ (13.3 ns at 4 m)."""
        return self.distance_m / LIGHT_SPEED

    def frame_s(self, nbytes, rate_bps: float | None = None):
        """Air time of a frame of ``nbytes`` MAC bytes (header and FCS included) at ``rate_bps``."""
        rate = self.rate_bps if rate_bps is None else rate_bps
        if self.timing == "simple":
            return self.preamble_s + 8.0 * np.asarray(nbytes, dtype=float) / rate
        if self.timing == "ofdm":
            return physics.frame_s(self.phy, nbytes, rate / 1e3)
        raise ValueError(f"unknown frame timing {self.timing!r} (known: simple, ofdm)")

    def data_frame_s(self, ip_bytes):
        """A data frame carrying an ``ip_bytes`` IP packet: + MAC header (24 B) + LLC (8 B)."""
        return self.frame_s(np.asarray(ip_bytes, dtype=float) + self.mac_header_bytes + self.llc_header_bytes)


def _profile_wni(name: str) -> dict:
    """Powers (W) and idle ↔ sleep transitions (s, W) of a built-in device profile, as
    :class:`Wni`'s fields (a transition the profile lacks: none, at idle power)."""
    for prof in _core.profiles():
        if prof["name"] != name:
            continue
        pw = {k: v / 1e3 for k, v in prof["power_mw"].items()}
        kw = dict(p_tx=pw["tx"], p_rx=pw["rx"], p_idle=pw["idle"], p_sleep=pw["sleep"],
                  p_as=pw["idle"], p_sa=pw["idle"], t_as=0.0, t_sa=0.0)
        for t in prof["transitions"]:
            if (t["from"], t["to"]) == ("idle", "sleep"):
                kw.update(p_as=t["power_mw"] / 1e3, t_as=t["duration_us"] / 1e6)
            elif (t["from"], t["to"]) == ("sleep", "idle"):
                kw.update(p_sa=t["power_mw"] / 1e3, t_sa=t["duration_us"] / 1e6)
        return kw
    raise ValueError(f"unknown device profile {name!r}")


_AR5004 = _profile_wni("atheros-ar5004")


@dataclass(frozen=True)
class Wni:
    """WNI powers (W) and transition times (s); defaults = wattlab's device profile
    ``atheros-ar5004`` (profiles/atheros-ar5004.toml, read from the core), which is Table 3.3 +
    Sect. 3.5.1 (Atheros AR5004; the tests check it against the thesis's numbers).
    :meth:`from_profile` reads any built-in profile.
    """

    p_tx: float = _AR5004["p_tx"]
    p_rx: float = _AR5004["p_rx"]
    p_idle: float = _AR5004["p_idle"]
    p_sleep: float = _AR5004["p_sleep"]
    p_as: float = _AR5004["p_as"]
    """Active → sleep transition power P^as (= P^l, after Krashinsky & Balakrishnan)."""
    p_sa: float = _AR5004["p_sa"]
    """Sleep → active transition power P^sa (= P^t)."""
    t_as: float = _AR5004["t_as"]
    """Active → sleep transition time T^as (PRISM AN9665)."""
    t_sa: float = _AR5004["t_sa"]
    """Sleep → active transition time T^sa (PRISM AN9665)."""

    @property
    def t_st(self) -> float:
        """t^st = T^as + T^sa."""
        return self.t_as + self.t_sa

    @property
    def e_st(self) -> float:
        """Energy of one sleep cycle's transitions, P^as·T^as + P^sa·T^sa (J)."""
        return self.p_as * self.t_as + self.p_sa * self.t_sa

    @property
    def break_even_s(self) -> float:
        """The shortest idle gap worth sleeping through, max(t^st, (E_st − P^s·t^st)/(P^l − P^s)),
        as the core computes it for the ``oracle`` (rounded up to the ns; 1.766307 ms for the
        AR5004): :func:`wattlab.physics.break_even_s`."""
        return physics.break_even_s(idle_w=self.p_idle, sleep_w=self.p_sleep, down_s=self.t_as, down_w=self.p_as,
                                    up_s=self.t_sa, up_w=self.p_sa)

    @classmethod
    def from_profile(cls, name: str = "atheros-ar5004") -> "Wni":
        """Powers and idle↔sleep transitions of a built-in wattlab device profile."""
        return cls(**_profile_wni(name))


@dataclass(frozen=True)
class Transfer:
    """The TCP side: file size, packet sizes and the parameters the thesis does not state."""

    file_bytes: float = 10 * 2**20
    """S_d: "10 MB", read as 10·2^20 bytes (the thesis uses Mbps = 1024² b/s in Eq. 3.42)."""
    data_bytes: float = 1500
    """S_p, the TCP data packet (IP) size."""
    ack_bytes: float = 40
    """TCP ACK packet (IP) size."""
    w1: float = 1.0
    """Initial window w_1 in packets (not given; 1)."""
    t0_s: float = 1.0
    """T_0, the first RTO of a timeout sequence (not given; 1 s, RFC 6298's minimum)."""


def loss_probability(q, p_wired=0.0, retry_limit: int = 7):
    """p = 1 − (1 − q^(N+1))(1 − p_l): a TCP-level loss needs N + 1 failed MAC attempts."""
    q = np.asarray(q, dtype=float)
    return 1.0 - (1.0 - q ** (retry_limit + 1)) * (1.0 - np.asarray(p_wired, dtype=float))


def _attempt_weights(q, n_attempts: int):
    """Cumulative weights c_j = Σ_{i ≥ j} Q(i), j = 1..N+1 (Eq. 3.5), shape q.shape + (N+1,).

    Σ_i Q(i) Σ_{j ≤ i} x_j = Σ_j x_j·P(attempt j happens) = Σ_j x_j q^(j−1): the double sum of
    Eq. 3.6 in one product (attempt j happens iff the first j − 1 failed).
    """
    q = np.asarray(q, dtype=float)[..., None]
    j = np.arange(n_attempts)
    return q**j


def mac_times(q, m=1, mac: Mac80211a = Mac80211a(), wni: Wni = Wni(), tr: Transfer = Transfer()) -> dict:
    """Eqs. 3.1–3.10: expected time and energy of one data frame sent (RTS/CTS) and one TCP
    ACK frame received (no RTS/CTS), over up to N + 1 attempts with frame failure probability q.

    Returns E[t^t], E[t^r] (s), E[e^t], E[e^r] (J) broadcast like ``q`` (``m`` is unused here
    and accepted for symmetry with :func:`energy`).
    """
    n_att = mac.retry_limit + 1
    i = np.arange(1, n_att + 1)
    cw = np.minimum((mac.cw_min + 1) * 2.0 ** (i - 1) - 1, mac.cw_max)  # (3.2)
    t_bo = cw * mac.slot_s / 2.0  # (3.1)
    tau = mac.tau_s
    rts = 1.0 if mac.rts_cts else 0.0
    t_rts = rts * mac.frame_s(mac.rts_bytes, mac.control_rate_bps)
    t_cts = rts * mac.frame_s(mac.cts_bytes, mac.control_rate_bps)
    t_ack = mac.frame_s(mac.ack_bytes, mac.control_rate_bps)
    t_data_up = mac.data_frame_s(tr.data_bytes)
    t_data_down = mac.data_frame_s(tr.ack_bytes)
    idle_t = (1 + 2 * rts) * mac.sifs_s + mac.difs_s + t_bo + (2 + 2 * rts) * tau
    idle_r = mac.sifs_s + mac.difs_s + t_bo + 2 * tau
    tt = idle_t + t_rts + t_data_up + t_cts + t_ack  # (3.3)
    trr = idle_r + t_data_down + t_ack  # (3.4)
    et = wni.p_idle * idle_t + wni.p_tx * (t_rts + t_data_up) + wni.p_rx * (t_cts + t_ack)  # (3.8)
    er = wni.p_idle * idle_r + wni.p_tx * t_ack + wni.p_rx * t_data_down  # (3.9)
    c = _attempt_weights(q, n_att)
    return {
        "t_t": c @ tt,  # (3.6)
        "t_r": c @ trr,
        "e_t": c @ et,  # (3.10)
        "e_r": c @ er,
    }


def _q_hat(w, p):
    """Padhye's Q̂(w): probability that a loss in a window of w is detected by timeout (3.52)."""
    s = 1.0 - p
    num = (1.0 - s**3) * (1.0 + s**3 * (1.0 - s ** np.maximum(w - 3.0, 0.0)))
    return np.minimum(1.0, num / (1.0 - s**w))


def _g(p):
    """G(p) = 1 + p + 2p² + 4p³ + 8p⁴ + 16p⁵ + 32p⁶ (3.55)."""
    return 1 + p + 2 * p**2 + 4 * p**3 + 8 * p**4 + 16 * p**5 + 32 * p**6


def expected_window(p):
    """E[W] = 1 + sqrt(8(1 − p)/(3p) + 1) (3.57, Padhye's with b = 1; the PDF's is garbled)."""
    p = np.asarray(p, dtype=float)
    return 1.0 + np.sqrt(8.0 * (1.0 - p) / (3.0 * p) + 1.0)


def p_from_window(w):
    """Eq. 3.57 inverted: p = 8 / (3((E[W] − 1)² − 1) + 8)."""
    w = np.asarray(w, dtype=float)
    return 8.0 / (3.0 * ((w - 1.0) ** 2 - 1.0) + 8.0)


def window_from_throughput(r_tcp_mbps, rtt_s, packet_bytes: float = 1500):
    """Eq. 3.42: E[W] = E[R_tcp]·RTT·1024²/(8·1500), with the thesis's Mbps = 1024² b/s."""
    return np.asarray(r_tcp_mbps, dtype=float) * np.asarray(rtt_s, dtype=float) * 1024**2 / (8 * packet_bytes)


def _ceil(x):
    """Ceiling with a small tolerance so 2.0000000001 stays 2 (windows are sums of floats)."""
    return np.ceil(np.asarray(x) - 1e-9)


def _linear_sums(a, b, rtt, c):
    """Σ_{n=a}^{b} [RTT − c·n]^+ and Σ_{n=a}^{b} n·1[c·n < RTT] over integers a ≤ n ≤ b."""
    n_star = _ceil(rtt / c) - 1.0  # largest n with c·n < RTT
    top = np.minimum(b, n_star)
    count = np.maximum(top - a + 1.0, 0.0)
    s_n = (a + top) * count / 2.0
    return count * rtt - c * s_n, s_n


def _window_range_sums(lo, hi, m, rtt, c, w_cap):
    """Sleep time and transitions of rounds whose windows sweep (lo, hi] (one round per unit of
    window, congestion avoidance's +1 per RTT): Σ over rounds of [RTT − c·N]^+ and N·1[cN < RTT]
    with N = ⌈min(w, W_bdp)/m⌉ ACKs per round. Rounds are counted by the measure of window
    values with each N (exact for integer windows; fractional ends pro rata). Windows above
    W_bdp give N ≥ RTT/c, i.e. no sleep, so the range is cut there.
    """
    hi = np.minimum(hi, w_cap)
    empty = hi <= lo
    hi = np.where(empty, lo + 1.0, hi)
    n_a = np.floor(lo / m + 1e-12) + 1.0
    n_b = _ceil(hi / m)
    cnt_a = np.minimum(n_a * m, hi) - lo
    cnt_b = hi - (n_b - 1.0) * m
    s_all, t_all = _linear_sums(n_a, n_b, rtt, c)
    g_a, h_a = _linear_sums(n_a, n_a, rtt, c)
    g_b, h_b = _linear_sums(n_b, n_b, rtt, c)
    same = n_a == n_b
    sleep = np.where(same, (hi - lo) * g_a, m * s_all - (m - cnt_a) * g_a - (m - cnt_b) * g_b)
    trans = np.where(same, (hi - lo) * h_a, m * t_all - (m - cnt_a) * h_a - (m - cnt_b) * h_b)
    return np.where(empty, 0.0, sleep), np.where(empty, 0.0, trans)


def _round_terms(w, m, rtt, c, w_cap):
    """One round whose previous window is w: ([RTT − cN]^+, N·1[cN < RTT]), N = ⌈min(w, W_bdp)/m⌉."""
    n = _ceil(np.minimum(w, w_cap) / m)
    return np.maximum(rtt - c * n, 0.0), np.where(c * n < rtt, n, 0.0)


SLOW_START_MAX_ROUNDS = 40
"""Rounds of slow start summed explicitly (w_1·2^39 exceeds any window; later rounds sleep 0)."""


def energy(p, rtt_s, q=0.3, m=1, mac: Mac80211a = Mac80211a(), wni: Wni = Wni(), tr: Transfer = Transfer(),
           detail: bool = False) -> dict:
    """E[J_cam], E[J_sleep] (J), R_energy and the latency E[T̂^all](m) (s) of one transfer.

    ``p`` (TCP loss-event probability, > 0), ``rtt_s``, ``q`` (MAC frame failure probability)
    and ``m`` (ACK every m packets) broadcast against each other. With ``detail`` every
    intermediate term (rounds, packet counts, times, sleep, transitions) is returned too.
    Conventions (docs/models.md): windows capped at W_bdp for the ACK spacing; Eq. 3.26 summed
    over the first r − 1 rounds (the loss round is Eq. 3.27's) with the fractional last round
    pro rata; Eq. 3.34 with w_{r+1} like Eq. 3.27.
    """
    p = np.asarray(p, dtype=float)
    rtt = np.asarray(rtt_s, dtype=float)
    m = np.asarray(m, dtype=float)
    if np.any(p <= 0) or np.any(p >= 1):
        raise ValueError("p must be in (0, 1)")
    mt = mac_times(q, mac=mac, wni=wni, tr=tr)
    t_t, t_r, e_t, e_r = mt["t_t"], mt["t_r"], mt["e_t"], mt["e_r"]
    t_st = wni.t_st
    w_bdp = rtt / (t_t + t_r / m)  # (3.7)
    n_pk = tr.file_bytes / tr.data_bytes  # S_d / S_p
    w1 = tr.w1

    # Appendix 3.A (3.50–3.60) with W_bdp in place of W_max.
    s = 1.0 - p
    l_ss = 1.0 - s**n_pk  # (3.51)
    d_ss = np.minimum((1.0 - s**n_pk) * s / p + 1.0, n_pk)  # (3.54)
    w_ss = (d_ss + w1) / 2.0  # (3.53)
    q_ss = _q_hat(w_ss, p)
    r_to = _g(p) / s * tr.t0_s / rtt  # (3.55)
    e_w = expected_window(p)  # (3.57)
    e_y = s / p + e_w  # (3.56)
    e_r_to = 1.0 / s
    e_n = 1.0 / _q_hat(e_w, p)  # (3.58)
    n_cycle = np.maximum(n_pk - d_ss, 0.0) / (e_n * e_y + e_r_to)  # (3.59)
    r_ss = np.where(w_ss <= w_bdp, np.log2(d_ss / w1 + 1.0),
                    np.log2(np.maximum(w_bdp / w1, 1.0)) + 1.0 + (d_ss - 2.0 * w_bdp + w1) / w_bdp)  # (3.13)
    r_ss = np.maximum(r_ss, 1.0)
    mid = s / (p * w_bdp) + e_w * (e_w + 8.0) / (8.0 * w_bdp) + (w_bdp - e_w) / 2.0 + 0.75
    high = s / (p * w_bdp) + e_w / w_bdp + 0.75
    r_td = np.where(e_w <= w_bdp, e_w / 2.0 + 1.0, np.where(e_w <= 2.0 * w_bdp, mid, high))  # (3.14)
    r_zeta = r_ss + l_ss * ((1.0 - q_ss) + q_ss * r_to)  # (3.50)
    r_eta = n_cycle * (e_n * r_td + r_to)  # (3.60)
    t_all = rtt * (r_zeta + r_eta)  # (3.20)

    # Packets (3.15–3.17) and active times (3.21).
    n_t = n_pk * np.ones_like(p)
    n_r_zeta = np.maximum(d_ss - l_ss * (1.0 + q_ss) * w_ss / 2.0, 0.0) / m  # (3.16)
    n_r_eta = n_cycle * e_n * (s / p + e_w / 2.0) / m  # (3.17)
    n_r = n_r_zeta + n_r_eta
    j_t, j_r = n_t * e_t, n_r * e_r  # (3.15)
    busy_t, busy_r = n_t * t_t, n_r * t_r

    # Sleep and transitions, bottom-up (3.22–3.40). Per round with N ACK gaps:
    # N·E[t^s] = [RTT − c·N]^+ and N·E[n^st] = N·1[c·N < RTT], c = m·E[t^t] + E[t^r] + t^st.
    c = m * t_t + t_r + t_st
    shape = np.broadcast(p, rtt, m, c, w_bdp).shape
    rtt_b, m_b, c_b, cap = (np.broadcast_to(x, shape) for x in (rtt, m, c, w_bdp))
    idle_gap = np.maximum(rtt_b / 2.0 - t_st, 0.0)  # [RTT/2 − t^st]^+ (3.27)
    n_st_2 = (rtt_b / 2.0 > t_st).astype(float)  # (3.35)

    # Slow start: w_0 = w_1, w_k = 2^(k−1)·w_1; rounds 1..r_ss − 1 (3.26), then the loss round (3.27).
    # Each ACK there releases 2m packets, not m (round k receives ⌈w_{k−1}/m⌉ ACKs and sends
    # w_k = 2·w_{k−1}): c_ss = 2m·E[t^t] + E[t^r] + t^st (with m·E[t^t] as printed in 3.25 the
    # sums promise up to ~18 % more sleep than the idle time of a loss-free transfer).
    c_ss = np.broadcast_to(2.0 * m * t_t + t_r + t_st, shape)
    rounds_ss = np.broadcast_to(np.maximum(r_ss - 1.0, 0.0), shape)
    sd_ss = np.zeros(shape)
    nd_ss = np.zeros(shape)
    # Rounds whose previous window w_1·2^(k−2) is at or above W_bdp sleep 0 (N ≥ RTT/c): stop there.
    k_max = int(min(SLOW_START_MAX_ROUNDS, np.ceil(np.max(rounds_ss, initial=0.0)),
                    3 + np.ceil(np.log2(max(float(np.max(cap, initial=1.0)) / w1, 1.0)))))
    for k in range(1, k_max + 1):
        weight = np.clip(rounds_ss - (k - 1), 0.0, 1.0)
        w_prev = w1 * (1.0 if k == 1 else 2.0 ** (k - 2))
        g, h = _round_terms(w_prev, m_b, rtt_b, c_ss, cap)
        sd_ss += weight * g
        nd_ss += weight * h
    w_r_ss = w1 * 2.0 ** np.minimum(np.broadcast_to(r_ss, shape) - 1.0, 60.0)
    g, h = _round_terms(w_r_ss, m_b, rtt_b, c_ss, cap)
    std_ss = g / 2.0 + idle_gap
    ntd_ss = h / 2.0 + n_st_2

    # Congestion avoidance (TD period): w_0 = E[W]/2, w_k = E[W]/2 + k − 1.
    a = np.broadcast_to(e_w / 2.0, shape)
    rounds_ca = np.broadcast_to(np.maximum(r_td - 1.0, 0.0), shape)
    g1, h1 = _round_terms(a, m_b, rtt_b, c_b, cap)
    first = np.minimum(rounds_ca, 1.0)
    rest = np.maximum(rounds_ca - 1.0, 0.0)
    g_rest, h_rest = _window_range_sums(a - 1.0, a - 1.0 + rest, m_b, rtt_b, c_b, cap)
    sd_ca = first * g1 + g_rest
    nd_ca = first * h1 + h_rest
    g, h = _round_terms(a + np.broadcast_to(r_td, shape) - 1.0, m_b, rtt_b, c_b, cap)
    std_ca = g / 2.0 + idle_gap
    ntd_ca = h / 2.0 + n_st_2

    # Timeout sequences (3.28, 3.36): E[R] packets, a sleep at every gap.
    s_to = np.maximum(rtt * r_to - e_r_to * (t_t + t_st), 0.0)
    n_to = e_r_to * np.ones_like(p)

    t_zeta = sd_ss + l_ss * ((1.0 - q_ss) * std_ss + q_ss * s_to)  # (3.29)
    t_eta = n_cycle * (e_n * (sd_ca + std_ca) + s_to)  # (3.30)
    n_st = (nd_ss + l_ss * ((1.0 - q_ss) * ntd_ss + q_ss * n_to)  # (3.37)
            + n_cycle * (e_n * (nd_ca + ntd_ca) + n_to))  # (3.38)
    t_sleep = t_zeta + t_eta  # (3.31)
    idle_cam = t_all - busy_t - busy_r
    # Guard: the bottom-up sums count each round's ACK gaps from the previous window (3.22–3.24),
    # so they imply slightly fewer packets than the top-down count S_d/S_p and can promise more
    # sleep than the idle time left (by up to ~5 % of E[T^all]); scale sleep and transitions
    # down so that the idle time while sleeping is never negative.
    want = t_sleep + n_st * t_st
    scale = np.where(want > np.maximum(idle_cam, 0.0), np.maximum(idle_cam, 0.0) / np.where(want > 0, want, 1.0), 1.0)
    t_sleep = t_sleep * scale
    n_st = n_st * scale
    j_s = wni.p_sleep * t_sleep
    j_st = n_st * wni.e_st  # (3.39)
    t_trans = n_st * t_st  # (3.40)
    idle_sleep = idle_cam - t_sleep - t_trans
    j_cam = j_t + j_r + wni.p_idle * idle_cam  # (3.11, 3.18)
    j_sleep = j_t + j_r + wni.p_idle * idle_sleep + j_s + j_st  # (3.12, 3.19)

    # Latency with burst transmission (3.41).
    lat = ((rtt + (m - 1.0) * rtt / (r_ss * w1) * (2.0 - 2.0 ** -np.minimum(r_ss - 1.0, 1000.0))) * r_zeta
           + (rtt + (m - 1.0) * 4.0 * rtt / (3.0 * e_w)) * r_eta)

    out = {
        "j_cam": j_cam,
        "j_sleep": j_sleep,
        "r_energy": j_sleep / j_cam,  # (3.43)
        "latency_s": lat,
    }
    if detail:
        out.update({
            "t_t": t_t, "t_r": t_r, "e_t": e_t, "e_r": e_r, "w_bdp": w_bdp,
            "l_ss": l_ss, "d_ss": d_ss, "w_ss": w_ss, "q_ss": q_ss, "e_w": e_w, "e_n": e_n, "n_cycle": n_cycle,
            "r_ss": r_ss, "r_td": r_td, "r_to": r_to, "r_zeta": r_zeta, "r_eta": r_eta, "t_all": t_all,
            "n_t": n_t, "n_r": n_r, "j_t": j_t, "j_r": j_r, "t_sleep": t_sleep, "n_st": n_st,
            "j_s": j_s, "j_st": j_st, "t_trans": t_trans, "idle_cam_s": idle_cam, "idle_sleep_s": idle_sleep,
            "sleep_scale": scale,
        })
    return out


def energy_grid(p, rtt_s, q, m, **kw):
    """:func:`energy` over the outer product of 1-D ``p``, ``rtt_s``, ``q`` and ``m`` (arrays of
    shape (len(p), len(rtt), len(q), len(m)))."""
    p = np.asarray(p, dtype=float)[:, None, None, None]
    rtt = np.asarray(rtt_s, dtype=float)[None, :, None, None]
    q = np.asarray(q, dtype=float)[None, None, :, None]
    m = np.asarray(m, dtype=float)[None, None, None, :]
    return energy(p, rtt, q, m, **kw)


def mean_ack_interarrival(p, rtt_s, q=0.3, m=1, **kw):
    """Steady-state mean ACK inter-arrival time (s): one cycle (E[n] TD periods + a timeout
    sequence, RTT·(E[n]·E[r_td] + E[r_to])) over the ACKs it brings (E[n]·((1−p)/p + E[W]/2)/m)
    — Table 3.1's "analysis" column for a sender that always has data."""
    d = energy(p, rtt_s, q, m, detail=True, **kw)
    p = np.asarray(p, dtype=float)
    cycle = np.asarray(rtt_s) * (d["e_n"] * d["r_td"] + d["r_to"])
    acks = d["e_n"] * ((1.0 - p) / p + d["e_w"] / 2.0) / np.asarray(m, dtype=float)
    return cycle / acks


def per_rtt_reduction(t_s, n_st, wni: Wni = Wni()):
    """Eq. 3.46: E[J^rtt_cam] − E[J^rtt_sleep] = (P^l − P^s)·N^st·E[t^s] −
    {(P^as − P^l)T^as + (P^sa − P^l)T^sa}·N^st, every gap used for sleep."""
    t_s = np.asarray(t_s, dtype=float)
    return ((wni.p_idle - wni.p_sleep) * n_st * t_s
            - ((wni.p_as - wni.p_idle) * wni.t_as + (wni.p_sa - wni.p_idle) * wni.t_sa) * n_st)


def multiplier_study(param: str, multipliers, t_s: float = 0.1, n_st: float = 20, wni: Wni = Wni()):
    """Fig. 3.13: Eq. 3.46 with one WNI parameter (``p_sleep``, ``p_as``, ``p_sa``, ``t_as``,
    ``t_sa``) scaled by each multiplier, E[t^s] = 100 ms and N^st = 20 as in the thesis."""
    mult = np.asarray(multipliers, dtype=float)
    base = getattr(wni, param)
    return np.array([per_rtt_reduction(t_s, n_st, replace(wni, **{param: base * k})) for k in mult.ravel()]).reshape(mult.shape)


def design_conditions(wni: Wni = Wni()) -> dict:
    """The WNI design conditions (3.47–3.49) from the critical multipliers of Fig. 3.13:
    P^s ≤ (0.016/0.8)·P^l = P^l/50 (multiplier 1), P^as·T^as ≤ (0.8/0.8)·P^l·1e-6·100 =
    1e-4·P^l (multiplier 100), P^sa·T^sa ≤ (1.4/0.8)·P^l·1e-3·0.05 = 8.75e-5·P^l (≈ 1e-4·P^l,
    multiplier 0.05). Bounds in W and J, and whether ``wni`` meets each."""
    pl = wni.p_idle
    bounds = {
        "p_sleep_max_w": pl / 50.0,
        "e_as_max_j": (0.8 / 0.8) * pl * 1e-6 * 100.0,
        "e_sa_max_j": (1.4 / 0.8) * pl * 1e-3 * 0.05,
    }
    bounds["meets_p_sleep"] = wni.p_sleep <= bounds["p_sleep_max_w"] * (1 + 1e-12)
    bounds["meets_e_as"] = wni.p_as * wni.t_as <= bounds["e_as_max_j"] * (1 + 1e-12)
    bounds["meets_e_sa"] = wni.p_sa * wni.t_sa <= bounds["e_sa_max_j"] * (1 + 1e-12)
    return bounds
