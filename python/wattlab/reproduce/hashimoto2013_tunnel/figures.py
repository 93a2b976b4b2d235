"""Figs. 4.5–4.8 from the model (lines: the model every few kB/s; markers: the thesis's flow
counts), with the simulator's means beside them once they are given (``simulator.beside``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.ticker import MaxNLocator

from ..plotting import finish, plt
from . import paper, simulator

COLORS = {1: "tab:blue", 2: "tab:orange", 5: "tab:green"}
NO_BARS = "The model is deterministic: no error bars."


def _color(m: int, ms: list[int]) -> str:
    return COLORS.get(m) or plt.cm.viridis(ms.index(m) / max(len(ms) - 1, 1))


def _sim_note(beside: pd.DataFrame, csv: str = "model_vs_sim.csv") -> str:
    ran = beside[beside.sim_runs.notna()]
    if ran.empty:
        return " Simulator side: not run yet."
    bars = "one run: no error bars" if ran.sim_runs.max() == 1 else "no bars drawn"
    return f" Crosses: the simulator's mean over {simulator.runs_text(ran.sim_runs)} per point ({bars}; {csv} has the means)."


def fig_4_5(lines: pd.DataFrame, points: pd.DataFrame, beside: pd.DataFrame, out: Path, flow_kBps: float) -> Path:
    """fig_4_5.png: P_cam and P_sleep vs the aggregate upstream throughput, one panel per q."""
    qs = sorted(lines.q.unique())
    ms = sorted(int(m) for m in lines.m.unique())
    fig, axes = plt.subplots(1, len(qs), figsize=(5 * len(qs), 4.2), squeeze=False)
    for ax, q in zip(axes[0], qs):
        lq, pq, sq = lines[lines.q == q], points[points.q == q], beside[(beside.q == q) & beside.sim_runs.notna()]
        cam = lq[lq.m == ms[0]].sort_values("aggregate_kBps")
        ax.plot(cam.aggregate_kBps, cam.p_cam_w, color="black", label="CAM (model)")
        for m in ms:
            g = lq[lq.m == m].sort_values("aggregate_kBps")
            ax.plot(g.aggregate_kBps, g.p_sleep_w, color=_color(m, ms), label=f"sleep, m = {m} (model)")
            h = pq[pq.m == m]
            ax.plot(h.aggregate_kBps, h.p_sleep_w, "o", ms=3.5, color=_color(m, ms))
            s = sq[sq.m == m]
            if not s.empty:
                ax.plot(s.aggregate_kBps, s.sim_p_sleep_w, "x", color=_color(m, ms), label=f"sleep, m = {m} (simulator)")
                ax.plot(s.aggregate_kBps, s.sim_p_cam_w, "x", color="black", label="CAM (simulator)")
        p = float(pq.p.iloc[0]) if len(pq) else float("nan")
        ax.set_title(f"q = {q:g} (p = {p:.2e})")
        ax.set_xlabel("aggregate upstream TCP throughput (kB/s)")
        ax.set_ylabel("WNI power (W)")
        ax.set_xlim(0, float(lq.aggregate_kBps.max()) * 1.02)
        ax.grid(alpha=0.3)
    caption = (f"Model (sctp_tunnel) with the thesis's Tables 4.1–4.2; dots at n × {flow_kBps:g} kB/s flows; each curve ends "
               "at R_max of Eq. 4.6. " + NO_BARS + _sim_note(beside))
    return finish(fig, out / "fig_4_5.png", "Fig. 4.5: power vs aggregate throughput, CAM and sleep with bursts of m",
                  caption, ncol=4)


def fig_4_6_4_7(fig46: pd.DataFrame, out: Path, sim: pd.DataFrame | None = None) -> list[Path]:
    """fig_4_6.png (P_ratio vs m) and fig_4_7.png (D vs m), one curve per aggregate; ``sim``
    (``simulator.beside`` of this table): the simulator's means as crosses where it has the
    quantity (``sim_p_ratio``; ``sim_delay_ms`` only if its rows carried a delay)."""
    paths = []
    aggs = sorted(fig46.aggregate_kBps.unique())
    ran = sim[sim.sim_runs.notna()] if sim is not None else None
    for col, name, ylabel, title in (("p_ratio", "fig_4_6.png", "energy reduction ratio P_ratio",
                                      "Fig. 4.6: energy reduction ratio vs m"),
                                     ("delay_ms", "fig_4_7.png", "average buffering delay D (ms)",
                                      "Fig. 4.7: buffering delay vs m")):
        fig, ax = plt.subplots(figsize=(6.5, 4.2))
        drawn = False
        for i, a in enumerate(aggs):
            color = plt.cm.plasma(0.85 * i / max(len(aggs) - 1, 1))
            g = fig46[fig46.aggregate_kBps == a].sort_values("m")
            ax.plot(g.m, g[col], "o-", ms=3, color=color, label=f"{a:g} kB/s")
            if ran is not None and f"sim_{col}" in ran.columns:
                s = ran[np.isclose(ran.aggregate_kBps, a)]
                if not s.empty:
                    ax.plot(s.m, s[f"sim_{col}"], "x", ms=7, mew=1.6, color=color, label=f"{a:g} kB/s (simulator)")
                    drawn = True
        ax.set_xlabel("burst size m (packets)")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_ylabel(ylabel)
        ax.grid(alpha=0.3)
        q = float(fig46.q.iloc[0])
        caption = f"Model, q = {q:g}, upstream flows only; D = (m − 1)/(2R) (Eq. 4.13). " + NO_BARS
        if drawn and col == "delay_ms":
            caption += " The simulator's D: the client inlet's mean wait from arrival to release."
        if drawn:
            caption += _sim_note(ran, "sim_fig46_47.csv")
        elif ran is not None and not ran.empty:
            caption += " Simulator side: its rows have no such column (no crosses)."
        paths.append(finish(fig, out / name, title, caption, ncol=3 if drawn else 6))
    return paths


def fig_4_8(lines: pd.DataFrame, points: pd.DataFrame, out: Path, flow_kBps: float, stay_awake: bool,
            sim: pd.DataFrame | None = None) -> Path:
    """fig_4_8.png: the best P_ratio subject to D ≤ D_th vs aggregate throughput, with the thesis's
    quoted gains drawn on our D_th = 0 curve and, given ``sim`` (``simulator.fig48_beside``), the
    best simulated P_ratio per D_th as crosses."""
    fig, ax = plt.subplots(figsize=(7, 4.4))
    d_ths = sorted(lines.d_th_ms.unique())
    for i, d in enumerate(d_ths):
        g = lines[lines.d_th_ms == d].sort_values("aggregate_kBps")
        color = plt.cm.viridis(0.9 * i / max(len(d_ths) - 1, 1))
        ax.plot(g.aggregate_kBps, g.p_ratio, color=color, label=f"D_th = {d:g} ms")
        h = points[points.d_th_ms == d]
        ax.plot(h.aggregate_kBps, h.p_ratio, "o", ms=3, color=color)
        if sim is not None and not sim.empty:
            s = sim[sim.d_th_ms == d]
            ax.plot(s.aggregate_kBps, s.sim_p_ratio, "x", ms=7, mew=1.6, color=color, label=f"D_th = {d:g} ms (simulator)")
    base = points[points.d_th_ms == 0].set_index("aggregate_kBps").p_ratio
    for (d, a), gain in sorted(paper.FIG48_GAINS.items()):
        if a in base.index:
            ax.plot([a], [base[a] + gain], "*", ms=11, color="red", label="thesis: D_th = 0 + quoted gain")
            ax.annotate(f"{d:g} ms", (a, base[a] + gain), textcoords="offset points", xytext=(6, -3), fontsize=7)
    ax.set_xlabel("aggregate TCP throughput (kB/s)")
    ax.set_ylabel("best P_ratio with D ≤ D_th")
    ax.grid(alpha=0.3)
    caption = (f"Model, q = {float(lines.q.iloc[0]):g}, flows of {flow_kBps:g} kB/s (dots); the best m per point is in "
               "fig48.csv. " + ("The client may keep its radio on (P_ratio 0) when every allowed m loses energy. "
                                if stay_awake else "") + "Stars: the thesis's quoted gains added to our D_th = 0 value. "
               + NO_BARS
               + (" Crosses: the simulator's best P_ratio over its simulated m (sim_fig48.csv; one mean per point, "
                  "no bars drawn)." if sim is not None and not sim.empty else ""))
    return finish(fig, out / "fig_4_8.png", "Fig. 4.8: best energy reduction under a buffering-delay bound", caption, ncol=4)
