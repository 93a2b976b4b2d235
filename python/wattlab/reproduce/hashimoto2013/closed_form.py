"""The closed-form parts of paper 002: Table 2.1 and the Jain example (wattlab.metrics), Table 2.3
(B_est, Eq. 2.11), Table 3.1's analysis column, the R_energy maps (Fig. 3.9), R_energy against p
for several q (Fig. 3.8), the m-sweeps (Figs. 3.10–3.12), the per-RTT reduction against each WNI
parameter's multiplier (Fig. 3.13) and the WNI design conditions (3.47–3.49), from
wattlab.models.tcp_energy."""

from __future__ import annotations

import numpy as np
import pandas as pd

from wattlab import metrics
from wattlab.models import tcp_energy as te

from . import paper

T0_TABLE31_S = 0.2
"""T_0 for Table 3.1's analysis (not in the thesis; docs/models.md)."""
MAP_P = np.logspace(-4, -1, 31)
MAP_RTT_S = np.logspace(np.log10(0.01), np.log10(0.3), 31)
MAP_M = (1, 5)
SWEEP_M = tuple(range(1, 11))
SWEEP_RTT_S = (0.02, 0.05, 0.1, 0.2)
CURVE_P = np.logspace(-4, -1, 31)
CURVE_M = (1, 2, 3, 5, 10)
FIG38_Q = (0.0, 0.1, 0.3, 0.5, 0.7)
"""Fig. 3.8's frame failure probabilities ("q from 0 to 0.7")."""
FIG313_PARAMS = ("p_sleep", "p_as", "p_sa", "t_as", "t_sa")
"""Fig. 3.13's WNI parameters: (a) powers P^s, P^as, P^sa; (b) transition times T^as, T^sa."""
FIG313_MULTIPLIERS = tuple(float(x) for x in np.logspace(-3, 3, 25)) + (0.05, 0.0)
"""Fig. 3.13's x-axis (multipliers of Table 3.3's values, 10^-3 … 10^3), plus the critical 0.05 and the limit 0."""


def table21() -> pd.DataFrame:
    """Table 2.1: every case's total, Jain and F(X, C = 30) beside the thesis's, and the
    population variances of cases 4–6."""
    rows = []
    for case, (x, jain, f) in paper.TABLE21.items():
        rows.append({"case": case, "throughputs_mbps": " ".join(f"{v:g}" for v in x), "total_mbps": sum(x),
                     "jain": metrics.jain_index(x), "paper_jain": jain,
                     "F": metrics.fairness_utilization_index(x, paper.TABLE21_C), "paper_F": f,
                     "variance": metrics.population_variance(x), "paper_variance": paper.VARIANCES.get(case)})
    return pd.DataFrame(rows)


def jain_example() -> dict:
    """Jain's index of {10, 30, 40} and {100, 300, 400} (the thesis: 0.82 both)."""
    a, b, v = paper.JAIN_EXAMPLE
    return {"jain_small": metrics.jain_index(a), "jain_large": metrics.jain_index(b), "paper": v}


def table23() -> pd.DataFrame:
    """Table 2.3: B_est = (cwnd_overflow − T·minRTT/8)/MSS (Eq. 2.11) from the printed inputs."""
    rows = []
    for ap, (rtt_ms, t_mbps, cwnd, b) in paper.TABLE23.items():
        rows.append({"ap": ap, "min_rtt_ms": rtt_ms, "throughput_mbps": t_mbps, "cwnd_overflow_bytes": cwnd,
                     "b_est_packets": metrics.ap_buffer_estimate(cwnd, t_mbps * 1e6, rtt_ms / 1e3, paper.TABLE23_MSS),
                     "paper_b_est_packets": b})
    return pd.DataFrame(rows)


def table31_analysis() -> pd.DataFrame:
    """Table 3.1's analysis: E[W] from the TCP share 30 − cross (Eq. 3.42), p from (3.57)
    inverted, the model's steady-state mean ACK inter-arrival (m = 1, q = 0.3, RTT 100 ms)."""
    cross = np.array(list(paper.TABLE31), dtype=float)
    w = te.window_from_throughput(paper.TABLE31_BOTTLENECK_MBPS - cross, paper.TABLE31_RTT_S)
    p = te.p_from_window(w)
    ms = 1e3 * te.mean_ack_interarrival(p, paper.TABLE31_RTT_S, paper.TABLE31_Q, 1, tr=te.Transfer(t0_s=T0_TABLE31_S))
    return pd.DataFrame({
        "cross_mbps": cross.astype(int), "e_w": w, "p": p, "analysis_ms": ms,
        "paper_analysis_ms": [paper.TABLE31[int(c)][1] for c in cross],
        "paper_simulation_ms": [paper.TABLE31[int(c)][0] for c in cross],
        "paper_error_pct": [paper.TABLE31[int(c)][2] for c in cross],
    }).assign(vs_paper_analysis_pct=lambda d: 100 * (d.analysis_ms / d.paper_analysis_ms - 1))


def r_energy_maps() -> pd.DataFrame:
    """Fig. 3.9: R_energy over (RTT, p) for m = 1 and 5 (q = 0.3), long format."""
    d = te.energy_grid(MAP_P, MAP_RTT_S, [0.3], list(MAP_M))
    pp, rr, mm = np.meshgrid(MAP_P, MAP_RTT_S, MAP_M, indexing="ij")
    return pd.DataFrame({"p": pp.ravel(), "rtt_ms": 1e3 * rr.ravel(), "m": mm.ravel(),
                         "r_energy": d["r_energy"][:, :, 0, :].ravel(), "j_cam": d["j_cam"][:, :, 0, :].ravel(),
                         "j_sleep": d["j_sleep"][:, :, 0, :].ravel()})


def p_curves() -> pd.DataFrame:
    """Fig. 3.10: R_energy against p for several m (RTT 100 ms, q = 0.3)."""
    d = te.energy_grid(CURVE_P, [0.1], [0.3], list(CURVE_M))
    pp, mm = np.meshgrid(CURVE_P, CURVE_M, indexing="ij")
    return pd.DataFrame({"p": pp.ravel(), "m": mm.ravel(), "r_energy": d["r_energy"][:, 0, 0, :].ravel()})


def q_curves() -> pd.DataFrame:
    """Fig. 3.8: R_energy against p for q = 0 … 0.7 (RTT 100 ms, m = 1). p counts every TCP loss,
    so it cannot be below the MAC's own, q^(N+1) (p_l = 0): those points are left out, as the
    thesis sets p through p_l."""
    rows = []
    for q in FIG38_Q:
        p = CURVE_P[CURVE_P >= te.loss_probability(q)]
        if p.size == 0:
            continue
        d = te.energy_grid(p, [0.1], [q], [1])
        rows += [{"q": q, "p": float(pi), "r_energy": float(r)} for pi, r in zip(p, d["r_energy"][:, 0, 0, 0])]
    return pd.DataFrame(rows)


def multiplier_curves() -> pd.DataFrame:
    """Fig. 3.13: the per-RTT energy reduction (Eq. 3.46, E[t^s] = 100 ms, N^st = 20) with one WNI
    parameter of Table 3.3 scaled by each multiplier."""
    mult = np.array(FIG313_MULTIPLIERS)
    return pd.DataFrame([{"param": par, "multiplier": float(k), "reduction_j": float(v)}
                         for par in FIG313_PARAMS for k, v in zip(mult, te.multiplier_study(par, mult))])


def m_sweep() -> pd.DataFrame:
    """Figs. 3.11–3.12: R_energy and the latency E[T̂^all](m) against m at p = 0.01 (q = 0.3) for
    several RTTs, and the m-sweep at p = 0.001, RTT 100 ms (Fig. 3.10's claim)."""
    rows = []
    for p, rtts in ((0.01, SWEEP_RTT_S), (0.001, (0.1,))):
        d = te.energy_grid([p], list(rtts), [0.3], list(SWEEP_M))
        for i, rtt in enumerate(rtts):
            for k, m in enumerate(SWEEP_M):
                rows.append({"p": p, "rtt_ms": rtt * 1e3, "m": m, "r_energy": float(d["r_energy"][0, i, 0, k]),
                             "latency_s": float(d["latency_s"][0, i, 0, k]), "j_cam": float(d["j_cam"][0, i, 0, k]),
                             "j_sleep": float(d["j_sleep"][0, i, 0, k])})
    return pd.DataFrame(rows)


def design_conditions() -> dict:
    """(3.47–3.49) for the AR5004 (Table 3.3)."""
    return te.design_conditions()
