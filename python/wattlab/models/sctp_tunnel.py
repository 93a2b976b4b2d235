"""Paper 002 Ch. 4: the power of a client whose TCP flows share one SCTP tunnel to the AP, closed form.

Hashimoto's thesis (Osaka Univ. 2013), Sect. 4.3 (Eqs. 4.1–4.14), built on the Ch. 3 model
:mod:`wattlab.models.tcp_energy` (its MAC expectations, Eqs. 3.1–3.10, its sleep and
transition rule, Eqs. 3.25/3.32, and its TD/TO-period window machinery, App. 3.A). Our reading
of the thesis's uncertain points is ``../shared/notes/002.md`` §3.3 and §7 (items 11–16); every
choice is listed in ``docs/models.md`` ("sctp_tunnel"). Everything is vectorised numpy: the
aggregate throughputs, ``q`` and ``m`` broadcast against each other, with no Python loop: a
short TD period's ≤ ``EXACT_ROUNDS`` rounds are an extra array axis on the (q, m) structure,
sorted so that every rate's sum is a prefix sum.

Main entry points:

- :func:`s_sctp` (Eq. 4.12, as the thesis computes it or as RFC 9260 / RFC 6951 put it on the
  wire) and :func:`expected_sizes` (Eqs. 4.8–4.11);
- :func:`packet_rate` (Eq. 4.5) and :func:`buffering_delay` (Eq. 4.13);
- :func:`power`: P_cam, P_sleep (Eqs. 4.1–4.4, 4.6–4.7), P_ratio (Eq. 4.14), D and every
  intermediate term; :func:`power_grid` over an outer product;
- :func:`best_ratio_under_delay`: Fig. 4.8's best P_ratio subject to D ≤ D_th.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from wattlab.models import tcp_energy as te

SCTP_COMMON_HEADER = 12
"""Bytes of the SCTP common header (RFC 9260 §3.1): ports, verification tag, CRC32c."""
THESIS_EXTRA = 20
"""The "20" of Eq. 4.12, which the thesis does not explain (neither the 16-byte DATA chunk
header nor, alone, an outer IPv4 header); kept as printed for the thesis sizing."""
DATA_CHUNK_HEADER = 16
"""Bytes of an SCTP DATA chunk header (RFC 9260 §3.3.1): type, flags, length, TSN, stream id,
stream sequence number, payload protocol id."""
OUTER_IPV4 = 20
"""Outer IPv4 header of the tunnel packet."""
UDP_HEADER = 8
"""UDP header of SCTP over UDP (RFC 6951)."""
SIZINGS = ("thesis", "wire")
"""Ways to size an SCTP packet: the thesis's Eq. 4.12, or the real packet on the wire."""
RX_PER_BURST = ("m", "one")
"""Packets the client receives per burst of m sent: m (R^u = R^d, Eq. 4.5; default) or one (Ch. 3's E[n^r_η])."""
SLEEP_RULES = ("thesis", "break-even")
"""When the WNI sleeps in a gap: longer than t^st (the thesis's rule, Eq. 3.25) or only when
sleeping saves energy (longer than the break-even time)."""
EXACT_ROUNDS = 64
"""TD periods of at most this many rounds are summed round by round (⌈w/m⌉ bursts each);
longer ones (E[W] > ~126 packets) with the mean burst count w/m + (m − 1)/(2m) per round."""
P_FLOOR = 1e-12
"""Loss probabilities below this (q = 0 gives p = 0, an endless TD period) are evaluated here:
the TD period then lasts ~8·10⁵ rounds and its window effects are below 10⁻⁵ of the result."""


def _pad4(n):
    """n rounded up to a multiple of 4 bytes (SCTP chunks are padded to 4-byte boundaries)."""
    return 4.0 * np.ceil(np.asarray(n, dtype=float) / 4.0 - 1e-12)


def s_sctp(s, sizing: str = "thesis"):
    """Size (bytes) of the SCTP packet carrying one ``s``-byte IP packet.

    ``"thesis"``: Eq. 4.12, 12 + 20 + s + padding to a multiple of 4 (1500 → 1532, 40 → 72).
    ``"wire"``: what the tunnel sends, an IPv4 packet holding UDP (RFC 6951) holding the SCTP
    common header and one DATA chunk whose payload is padded to 4 bytes:
    20 + 8 + 12 + 16 + s + padding (1500 → 1556, 40 → 96); a piggybacked SACK chunk (≥ 16 B)
    is left out, as the thesis leaves it out.
    """
    s = np.asarray(s, dtype=float)
    if sizing == "thesis":
        return _pad4(SCTP_COMMON_HEADER + THESIS_EXTRA + s)
    if sizing == "wire":
        return OUTER_IPV4 + UDP_HEADER + SCTP_COMMON_HEADER + DATA_CHUNK_HEADER + _pad4(s)
    raise ValueError(f"unknown SCTP sizing {sizing!r} (known: {', '.join(SIZINGS)})")


def data_fractions(up_Bps, down_Bps):
    """Eqs. 4.8–4.9 with μ = Σr^d/Σr^u: the share of TCP data packets among the client's SCTP
    packets, N^u_data = 1/(1 + μ) = up/(up + down), and among the AP's, N^d_data = μ/(1 + μ)."""
    up = np.asarray(up_Bps, dtype=float)
    down = np.asarray(down_Bps, dtype=float)
    total = up + down
    if np.any(total <= 0) or np.any(up < 0) or np.any(down < 0):
        raise ValueError("throughputs must be ≥ 0 with a positive aggregate")
    return up / total, down / total


def expected_sizes(up_Bps, down_Bps=0.0, data_bytes: float = 1500, ack_bytes: float = 40, sizing: str = "thesis"):
    """Eqs. 4.10–4.11: the expected SCTP packet sizes ŝ^u (client → AP) and ŝ^d (AP → client)."""
    n_up, n_down = data_fractions(up_Bps, down_Bps)
    sd, sa = s_sctp(data_bytes, sizing), s_sctp(ack_bytes, sizing)
    return n_up * sd + (1.0 - n_up) * sa, n_down * sd + (1.0 - n_down) * sa


def packet_rate(up_Bps, down_Bps=0.0, data_bytes: float = 1500):
    """Eq. 4.5: R = R^u = R^d = (Σr^u + Σr^d)/s^tcp_data, SCTP packets/s each way (no delayed
    ACK, one TCP packet per SCTP packet)."""
    return (np.asarray(up_Bps, dtype=float) + np.asarray(down_Bps, dtype=float)) / data_bytes


def buffering_delay(m, rate_pps):
    """Eq. 4.13: the mean wait at the tunnel inlet, D = ((m − 1)/2)·(1/R) seconds."""
    return (np.asarray(m, dtype=float) - 1.0) / (2.0 * np.asarray(rate_pps, dtype=float))


@dataclass(frozen=True)
class Tunnel:
    """Tables 4.1–4.2 and the conventions of Sect. 4.3 the thesis leaves open (docs/models.md).

    ``mac`` is Table 4.1 (= Table 3.2; N = 7), ``wni`` Table 4.2 (= wattlab's ``atheros-ar5004``
    profile: ``te.Wni.from_profile("atheros-ar5004")``).
    """

    mac: te.Mac80211a = field(default_factory=te.Mac80211a)
    wni: te.Wni = field(default_factory=te.Wni)
    data_bytes: float = 1500
    """s^tcp_data, the TCP data packet (IP) size."""
    ack_bytes: float = 40
    """s^tcp_ack, the TCP ACK packet (IP) size."""
    sizing: str = "thesis"
    """SCTP packet sizes: Eq. 4.12 (``"thesis"``) or the real SCTP-over-UDP packet (``"wire"``)."""
    rx_per_burst: str = "m"
    """Packets received per burst of m sent: ``"m"`` (R^d = R, Eq. 4.5) or ``"one"``."""
    sleep_rule: str = "thesis"
    """``"thesis"``: sleep in every gap longer than t^st; ``"break-even"``: only when it saves energy."""
    p_wired: float = 0.0
    """Wired loss p_l; the thesis's captions (p = q^8) have none."""

    def check(self) -> None:
        """Raise ValueError naming the first unknown convention."""
        if self.sizing not in SIZINGS:
            raise ValueError(f"unknown SCTP sizing {self.sizing!r} (known: {', '.join(SIZINGS)})")
        if self.rx_per_burst not in RX_PER_BURST:
            raise ValueError(f"unknown rx_per_burst {self.rx_per_burst!r} (known: {', '.join(RX_PER_BURST)})")
        if self.sleep_rule not in SLEEP_RULES:
            raise ValueError(f"unknown sleep rule {self.sleep_rule!r} (known: {', '.join(SLEEP_RULES)})")

    def sleep_threshold_s(self) -> float:
        """Shortest gap the WNI sleeps in: t^st, or the break-even gap where the sleep's saving
        pays for its transitions (the core's, as the ``oracle`` uses it: 1.766307 ms for
        Table 4.2; :attr:`tcp_energy.Wni.break_even_s`)."""
        w = self.wni
        if self.sleep_rule == "thesis":
            return w.t_st
        return w.break_even_s


def mac_times(q, up_Bps, down_Bps=0.0, tun: Tunnel = Tunnel()) -> dict:
    """Eqs. 3.1–3.10 with T^client_DATA and T^AP_DATA carrying SCTP packets (Sect. 4.3.3).

    The client's data frames hold ŝ^u and the AP's ŝ^d (+ MAC header 24 B + LLC 8 B, Ch. 3's
    frame convention). Every attempt sends the same frame, so E[t^t] = E[t^t]|_{L0} + A(q)·ΔT_DATA
    with A(q) = Σ_{j=1}^{N+1} q^(j−1) (Eq. 3.6's cumulative attempts) and likewise for t^r, e^t
    (P^t·ΔT) and e^r (P^r·ΔT): the Ch. 3 model evaluated at its own frame, shifted by the SCTP
    frame's duration. We average the two packet kinds' durations (N_data·T(s_data) + N_ack·T(s_ack)),
    which is T(ŝ) of Eqs. 4.10–4.11 under the thesis's linear frame timing and the right
    expectation under OFDM symbol rounding.
    """
    n_up, _ = data_fractions(up_Bps, down_Bps)
    return _mac_times(q, n_up, tun)


def _mac_times(q, n_up, tun: Tunnel) -> dict:
    """:func:`mac_times` given N^u_data (N^d_data = 1 − N^u_data, Eqs. 4.8–4.9)."""
    q = np.asarray(q, dtype=float)
    mac, wni = tun.mac, tun.wni
    base = te.mac_times(q, mac=mac, wni=wni, tr=te.Transfer(data_bytes=tun.data_bytes, ack_bytes=tun.ack_bytes))
    t_d = mac.data_frame_s(s_sctp(tun.data_bytes, tun.sizing))
    t_a = mac.data_frame_s(s_sctp(tun.ack_bytes, tun.sizing))
    t_up = n_up * t_d + (1.0 - n_up) * t_a
    t_down = (1.0 - n_up) * t_d + n_up * t_a
    d_up = t_up - mac.data_frame_s(tun.data_bytes)  # the Ch. 3 client frame holds the TCP data packet
    d_down = t_down - mac.data_frame_s(tun.ack_bytes)  # and the AP's the TCP ACK
    attempts = np.sum(q[..., None] ** np.arange(mac.retry_limit + 1), axis=-1)  # A(q)
    return {
        "t_t": base["t_t"] + attempts * d_up,
        "t_r": base["t_r"] + attempts * d_down,
        "e_t": base["e_t"] + attempts * wni.p_tx * d_up,
        "e_r": base["e_r"] + attempts * wni.p_rx * d_down,
        "t_data_up": t_up,
        "t_data_down": t_down,
    }


def _sub_interval(lo, hi, c0, c1):
    """Where on [lo, hi] the linear c0 + c1·w is > 0: (fraction of the interval, its midpoint)."""
    a = c0 + c1 * lo
    b = c0 + c1 * hi
    span = np.where(hi > lo, hi - lo, 1.0)
    safe = np.where(c1 != 0, c1, 1.0)
    root = np.clip(-c0 / safe, lo, hi)
    both = (a > 0) & (b > 0)
    rising = (a <= 0) & (b > 0)
    falling = (a > 0) & (b <= 0)
    frac = np.where(both, 1.0, np.where(rising, (hi - root) / span, np.where(falling, (root - lo) / span, 0.0)))
    mid = np.where(both, (lo + hi) / 2, np.where(rising, (root + hi) / 2, np.where(falling, (lo + root) / 2, lo)))
    frac = np.where(hi > lo, frac, (a > 0).astype(float))
    return frac, mid


def _td_mean(lo, hi, count, m, idle_pp, t_r, rx_m, thr, t_st):
    """``count`` rounds with windows spread evenly over [lo, hi], each with the mean burst count
    N̄(w) = w/m + (m − 1)/(2m) (⌈w/m⌉ averaged over consecutive integer windows). Sleep and
    burst counts are linear in w, so their sums are count × (share of windows that sleep) ×
    the value at the midpoint of that share. Returns (sleep s, transitions)."""
    k = (m - 1.0) / (2.0 * m)
    # idle(w) = w·idle_pp − rx(w)·t_r, rx = w or N̄(w); sleep happens where idle(w) − N̄(w)·thr > 0.
    c1 = np.where(rx_m, idle_pp - t_r, idle_pp - t_r / m) - thr / m
    c0 = -np.where(rx_m, 0.0, k * t_r) - k * thr
    frac, mid = _sub_interval(lo, hi, c0, c1)
    n_mid = mid / m + k
    idle_mid = mid * idle_pp - np.where(rx_m, mid, n_mid) * t_r
    return count * frac * (idle_mid - n_mid * t_st), count * frac * n_mid


def _td_rounds(a, r_td, m, t_r, rx_m: bool, thr: float, t_st: float) -> dict:
    """The rate-independent structure of a TD period, round by round, for short periods.

    Round j (window w_j = E[W]/2 + j, weight min(1, r − j): the fractional last round pro rata)
    has N_j = ⌈w_j/m⌉ bursts and receives rx_j = w_j (or N_j) packets; it lasts w_j/R_sctp and
    its idle time, shared equally by its N_j gaps (Eq. 3.22), is w_j·i − rx_j·E[t^r] with
    i = 1/R_sctp − E[t^t]. Its gaps are slept through iff i > θ_j = (rx_j E[t^r] + N_j·thr)/w_j,
    so sorting the rounds by θ turns every rate's sum into a prefix sum: returns θ sorted and
    the prefix sums (leading 0) of ω·w, ω·(rx·E[t^r] + N·t^st) and ω·N, plus the totals of
    packets sent, received and bursts.
    """
    k_max = int(np.ceil(np.max(r_td, initial=1.0)))
    j = np.arange(k_max, dtype=float)
    w = a[..., None] + j
    omega = np.clip(r_td[..., None] - j, 0.0, 1.0)
    n = np.maximum(te._ceil(w / m[..., None]), 1.0)
    rx = w if rx_m else n
    theta = (rx * t_r[..., None] + n * thr) / w
    order = np.argsort(theta, axis=-1)
    take = lambda x: np.take_along_axis(np.broadcast_to(x, order.shape), order, axis=-1)  # noqa: E731
    pad = lambda x: np.concatenate([np.zeros(x.shape[:-1] + (1,)), np.cumsum(x, axis=-1)], axis=-1)  # noqa: E731
    return {
        "theta": take(theta),
        "s_w": pad(take(omega * w)),
        "s_c": pad(take(omega * (rx * t_r[..., None] + n * t_st))),
        "s_n": pad(take(omega * n)),
        "sent": np.sum(omega * w, axis=-1),
        "rx": np.sum(omega * rx, axis=-1),
        "bursts": np.sum(omega * n, axis=-1),
    }


def power(up_Bps, q, m=1, down_Bps=0.0, tun: Tunnel = Tunnel(), detail: bool = False) -> dict:
    """P_cam, P_sleep (W), P_ratio and the buffering delay D (s) of the client's WNI.

    ``up_Bps`` and ``down_Bps`` are the aggregate upstream and downstream TCP throughputs
    (Σr^u, Σr^d, bytes/s), ``q`` the MAC frame failure probability, ``m`` the burst size; all
    broadcast against each other. With ``detail`` every intermediate term is returned too.

    The steady phase (Sect. 4.3.2) is Ch. 3's: cycles of E[n] = 1/Q̂(E[W]) TD periods and one TO
    period, p = 1 − (1 − q^(N+1))(1 − p_l) (Ch. 3, Eq. 3.57 for E[W]). What differs from Ch. 3
    is time: the flows' rates are given, so a round of window w lasts w/R_sctp (Fig. 4.4) and
    the steady phase lasts (packets sent)/R_sctp (our reading of Eq. 4.7). A round of window w
    sends w packets and receives w (R^d = R) in ⌈w/m⌉ bursts; each gap between bursts is slept
    through when longer than the threshold, at the cost of one transition pair (Eqs. 3.25, 3.32).
    A TD period has windows E[W]/2, E[W]/2 + 1, … over E[r_td] = E[W]/2 + 1 rounds (Eq. 3.14's
    first case: without an RTT there is no W_bdp cap); a TO period sends E[R] = 1/(1 − p) packets
    one at a time (Eqs. 3.28, 3.36).
    """
    tun.check()
    up = np.asarray(up_Bps, dtype=float)
    down = np.asarray(down_Bps, dtype=float)
    q = np.asarray(q, dtype=float)
    m = np.asarray(m, dtype=float)
    if np.any(q < 0) or np.any(q >= 1):
        raise ValueError("q must be in [0, 1)")
    if np.any(m < 1) or np.any(m != np.round(m)):
        raise ValueError("m must be a positive integer")
    n_up, _ = data_fractions(up, down)
    if n_up.size and np.all(n_up == n_up.flat[0]):
        n_up = np.asarray(n_up.flat[0])  # one mix everywhere: the TD structure is per (q, m) only
    wni = tun.wni
    mt = _mac_times(q, n_up, tun)
    t_t, t_r, e_t, e_r = mt["t_t"], mt["t_r"], mt["e_t"], mt["e_r"]
    rate = packet_rate(up, down, tun.data_bytes)  # (4.5)
    r_max = 1.0 / (t_t + t_r)  # (4.6), per-frame times (notes/002.md §7 item 11)
    r_sctp = np.minimum(rate, r_max)  # (4.6)
    p = np.maximum(te.loss_probability(q, tun.p_wired, tun.mac.retry_limit), P_FLOOR)
    e_w = te.expected_window(p)  # (3.57)
    e_n = 1.0 / te._q_hat(e_w, p)  # (3.58)
    e_r_to = 1.0 / (1.0 - p)  # (3.56)
    r_td = e_w / 2.0 + 1.0  # (3.14), E[W] ≤ W_bdp case
    a = e_w / 2.0

    shape = np.broadcast(up, down, q, m).shape
    sshape = np.broadcast(q, m, n_up).shape  # the rate-independent structure
    rx_m = tun.rx_per_burst == "m"
    thr, t_st = tun.sleep_threshold_s(), wni.t_st
    idle_pp = 1.0 / r_sctp - t_t  # per packet sent: its share of time minus its own sending

    # TD period: long ones with the mean burst count (per point), short ones round by round.
    lo = np.broadcast_to(a, shape)
    sleep_td, trans_td = _td_mean(lo, lo + r_td - 1.0, r_td, m, idle_pp, t_r, rx_m, thr, t_st)
    k = (m - 1.0) / (2.0 * m)
    w_mean = a + (r_td - 1.0) / 2.0
    sent_td = np.broadcast_to(r_td * w_mean, sshape)
    bursts_td = np.broadcast_to(r_td * (w_mean / m + k), sshape)
    rx_td = sent_td if rx_m else bursts_td
    short = np.broadcast_to(r_td <= EXACT_ROUNDS, sshape)
    if np.any(short):
        bs = lambda x: np.broadcast_to(x, sshape)  # noqa: E731
        st = _td_rounds(bs(a), np.where(short, bs(r_td), 0.0), bs(m), bs(t_r), rx_m, thr, t_st)
        idle_b = np.broadcast_to(idle_pp, shape)
        n_on = np.sum(idle_b[..., None] > st["theta"], axis=-1)[..., None]  # rounds that sleep
        full = shape + (st["s_w"].shape[-1],)
        g = lambda x: np.take_along_axis(np.broadcast_to(x, full), n_on, axis=-1)[..., 0]  # noqa: E731
        sleep_td = np.where(short, idle_b * g(st["s_w"]) - g(st["s_c"]), sleep_td)
        trans_td = np.where(short, g(st["s_n"]), trans_td)
        sent_td = np.where(short, st["sent"], sent_td)
        rx_td = np.where(short, st["rx"], rx_td)
        bursts_td = np.where(short, st["bursts"], bursts_td)

    # TO period: E[R] packets, each its own burst (one sent, one received).
    on_to = idle_pp - t_r > thr
    s_to = np.where(on_to, idle_pp - t_r - t_st, 0.0)
    tr_to = on_to.astype(float)
    sent = e_n * sent_td + e_r_to  # packets sent in one cycle
    received = e_n * rx_td + e_r_to
    t_sleep = e_n * sleep_td + e_r_to * s_to  # E[t_η] per cycle
    n_st = e_n * trans_td + e_r_to * tr_to  # E[n^st_η] per cycle
    t_all = sent / r_sctp  # (4.7) as packets / R_sctp
    idle_cam = t_all - sent * t_t - received * t_r
    j_cam = sent * e_t + received * e_r + wni.p_idle * idle_cam  # (4.3)
    j_sleep = (j_cam - wni.p_idle * (t_sleep + n_st * t_st)  # (4.4)
               + wni.p_sleep * t_sleep + n_st * wni.e_st)
    p_cam = j_cam / t_all  # (4.1)
    p_sleep = j_sleep / t_all  # (4.2)
    b = lambda x: np.broadcast_to(x, shape)  # noqa: E731
    out = {
        "p_cam_w": b(p_cam),
        "p_sleep_w": b(p_sleep),
        "p_ratio": b((p_cam - p_sleep) / p_cam),  # (4.14)
        "delay_s": b(buffering_delay(m, rate)),  # (4.13), with R of Eq. 4.5 as printed
        "rate_pps": b(rate),
        "r_sctp_pps": b(r_sctp),
        "r_max_pps": b(r_max),
        "saturated": b(rate > r_max),
    }
    if detail:
        out.update({
            "p": b(p), "e_w": b(e_w), "e_n": b(e_n), "r_td": b(r_td), "t_t": b(t_t), "t_r": b(t_r), "e_t": b(e_t),
            "e_r": b(e_r), "t_data_up": b(mt["t_data_up"]), "t_data_down": b(mt["t_data_down"]),
            "sent_per_cycle": b(sent), "received_per_cycle": b(received),
            "bursts_per_cycle": b(e_n * bursts_td + e_r_to), "t_all_s": b(t_all), "t_sleep_s": b(t_sleep),
            "n_st": b(n_st), "idle_cam_s": b(idle_cam), "sleep_share": b(t_sleep / t_all),
            "transitions_per_s": b(n_st / t_all),
        })
    return out


def power_grid(aggregate_Bps, q, m, down_share: float = 0.0, tun: Tunnel = Tunnel(), detail: bool = False) -> dict:
    """:func:`power` over the outer product of 1-D aggregate throughputs (bytes/s, up + down),
    ``q`` and ``m``: arrays of shape (len(aggregate), len(q), len(m)). ``down_share`` is the
    downstream part of the aggregate (0: upstream only, as Fig. 4.5)."""
    agg = np.asarray(aggregate_Bps, dtype=float)[:, None, None]
    return power(agg * (1.0 - down_share), np.asarray(q, dtype=float)[None, :, None],
                 np.asarray(m, dtype=float)[None, None, :], agg * down_share, tun, detail)


def best_ratio_under_delay(aggregate_Bps, q, d_th_s, m_max: int = 64, down_share: float = 0.0,
                           tun: Tunnel = Tunnel(), stay_awake: bool = True) -> dict:
    """Fig. 4.8: the best P_ratio over m = 1 … ``m_max`` subject to D = (m − 1)/(2R) ≤ D_th, for
    1-D ``aggregate_Bps`` × 1-D ``d_th_s`` (shape (len(aggregate), len(d_th))) at one ``q``.

    With ``stay_awake`` the client may also keep the radio on (P_ratio 0) when every allowed m
    would sleep at a loss — the thesis's D_th = 0 curve "decreases linearly and finally reaches
    zero"; without it the best of the allowed m as the model gives them (can be < 0).
    Returns ``p_ratio`` and the ``m`` achieving it (0 where staying awake wins).
    """
    agg = np.asarray(aggregate_Bps, dtype=float)
    d_th = np.asarray(d_th_s, dtype=float)
    if np.any(d_th < 0):
        raise ValueError("D_th must be ≥ 0")
    ms = np.arange(1, m_max + 1, dtype=float)
    g = power_grid(agg, [q], ms, down_share, tun)
    ratio = g["p_ratio"][:, 0, :]  # (aggregate, m)
    delay = g["delay_s"][:, 0, :]
    allowed = delay[:, None, :] <= d_th[None, :, None] * (1 + 1e-12) + 1e-15  # (aggregate, d_th, m)
    cand = np.where(allowed, ratio[:, None, :], -np.inf)
    best_i = np.argmax(cand, axis=-1)
    best = np.take_along_axis(cand, best_i[..., None], axis=-1)[..., 0]
    best_m = ms[best_i]
    if stay_awake:
        awake = best < 0
        best = np.where(awake, 0.0, best)
        best_m = np.where(awake, 0.0, best_m)
    return {"p_ratio": best, "m": best_m}
