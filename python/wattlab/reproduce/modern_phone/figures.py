"""The study's figures: energy vs delay per workload with each PHY's Pareto front
(``fig_pareto.png``), and the savings against CAM at equal work per scheme, workload and PHY
(``fig_savings.png``)."""

from __future__ import annotations

import math
from pathlib import Path

import matplotlib.pyplot as plt
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter
import numpy as np
import pandas as pd

from ..plotting import finish
from .workloads import DELAY_METRIC, ENERGY_METRIC

FAMILY_COLOUR = {"cam": "black", "psm": "tab:gray", "adaptive-psm": "tab:blue", "twt": "tab:cyan", "u-apsd": "tab:olive",
                 "bsd": "tab:brown", "cc": "tab:red", "psna": "tab:purple", "wwp": "tab:green", "tunnel": "tab:orange"}
"""One colour per scheme family, in both figures."""
PHY_MARKER = {"802.11a": "o", "802.11ax": "^"}
PLAIN = FuncFormatter(lambda v, _: f"{v:g}")
"""Tick labels as plain numbers (1000, 0.2), not powers of ten."""
ENERGY_LABEL = {"j_per_mb": "radio energy per delivered MB (J/MB)", "energy_per_hour_j": "radio energy per hour (kJ/h)"}


def _family(scheme: str) -> str:
    head = scheme.split(":")[0]
    return "bsd" if head.startswith("bsd-") else "tunnel" if head.startswith("tunnel-") else head


def pareto(t: pd.DataFrame, out: Path, runs_per_point: str) -> Path:
    """Energy (the workload's metric) vs p99 delay, one panel per workload; filled markers did
    CAM's work, hollow ones did not; dashed lines join each PHY's Pareto front."""
    workloads = list(dict.fromkeys(t.workload))
    ncol = min(3, len(workloads))
    nrow = math.ceil(len(workloads) / ncol)
    fig, axes = plt.subplots(nrow, ncol, figsize=(4.6 * ncol, 3.8 * nrow), squeeze=False)
    for ax, w in zip(axes.flat, workloads):
        d = t[t.workload == w]
        metric = ENERGY_METRIC[w]
        scale = 1e-3 if metric == "energy_per_hour_j" else 1.0
        for _, r in d.iterrows():
            fam = _family(r.scheme)
            colour = FAMILY_COLOUR.get(fam, "tab:pink")
            y = r.energy * scale
            if not (np.isfinite(y) and np.isfinite(r.delay_p99_ms)):
                continue
            ax.scatter(r.delay_p99_ms, y, marker=PHY_MARKER.get(r.phy, "s"), s=46, zorder=3,
                       facecolors=colour if r.equal_work else "none", edgecolors=colour, label=fam)
            if ":" in r.scheme:  # which timeout or interval: its first parameter, e.g. "100ms"
                ax.annotate(r.scheme.split("=")[1].split(",")[0], (r.delay_p99_ms, y), xytext=(4, 3),
                            textcoords="offset points", fontsize=6, color=colour)
        for phy, style in (("802.11a", "--"), ("802.11ax", ":")):
            f = d[(d.phy == phy) & d.on_front].sort_values("delay_p99_ms")
            if len(f):
                ax.plot(f.delay_p99_ms, f.energy * scale, style, color="0.4", lw=1, zorder=2,
                        label=f"Pareto front, {phy}")
        for axis, scale_ in ((ax.xaxis, ax.set_xscale), (ax.yaxis, ax.set_yscale)):
            scale_("log")  # CAM sits an order of magnitude above the sleeping schemes
            axis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
            axis.set_major_formatter(PLAIN)
            axis.set_minor_formatter(NullFormatter())
        ax.set_xlabel(f"p99 {DELAY_METRIC[w]} (ms, log)", fontsize=8)
        ax.set_ylabel(f"{ENERGY_LABEL[metric]}, log", fontsize=8)
        ax.set_title(w)
        ax.grid(alpha=0.3, which="both")
    for ax in list(axes.flat)[len(workloads):]:
        ax.set_axis_off()
    for phy, m in PHY_MARKER.items():  # marker legend entries
        axes.flat[0].scatter([], [], marker=m, facecolors="none", edgecolors="black", label=f"marker: {phy}")
    caption = (f"Means over {runs_per_point}. Filled: the same work as CAM (every byte and datagram, every flow "
               "completed); hollow: not (no saving counts). Bulk and sync: the p99 of the transfers' completion times; "
               "web: page-load time; video and VoIP: one-way datagram delay (VoIP: the worse direction). Lower left is "
               "better; a point on a dashed (802.11a) or dotted (802.11ax) line is on that PHY's Pareto front. Adaptive PSM "
               "and TWT points are labelled with their timeout or wake interval.")
    return finish(fig, out / "fig_pareto.png", "Energy vs delay per workload: every scheme on a phone", caption, ncol=6)


def savings(t: pd.DataFrame, out: Path, runs_per_point: str) -> Path:
    """Saving against CAM (%) per scheme (rows) and workload × PHY (columns): a cell is blank
    where the scheme does not apply and crossed where it did not do CAM's work."""
    cols = list(dict.fromkeys(zip(t.workload, t.phy)))
    rows = list(dict.fromkeys(t.scheme))
    grid = np.full((len(rows), len(cols)), np.nan)
    fig, ax = plt.subplots(figsize=(1.0 * len(cols) + 3.5, 0.42 * len(rows) + 1.8))
    for _, r in t.iterrows():
        i, j = rows.index(r.scheme), cols.index((r.workload, r.phy))
        if r.equal_work and np.isfinite(r.saving_vs_cam_pct):
            grid[i, j] = r.saving_vs_cam_pct
            ax.text(j, i, f"{round(r.saving_vs_cam_pct) + 0:.0f}", ha="center", va="center", fontsize=7)
        else:
            ax.text(j, i, "×", ha="center", va="center", fontsize=9, color="tab:red")
    lim = max(10.0, float(np.nanmax(np.abs(grid))) if np.isfinite(grid).any() else 10.0)
    im = ax.imshow(grid, cmap="RdYlGn", vmin=-lim, vmax=lim, aspect="auto")
    ax.set_xticks(range(len(cols)), [f"{w}\n{p}" for w, p in cols], fontsize=7)
    ax.set_yticks(range(len(rows)), rows, fontsize=7)
    fig.colorbar(im, ax=ax, label="saving against CAM (%)")
    caption = (f"Means over {runs_per_point}; radio energy of the phone (its power mode's meter, or always-on for CAM "
               "and WWP) against CAM's run of the same workload, PHY and seed. Blank: the scheme does not apply "
               "(summary.md says why); ×: it did not do CAM's work, so no saving is given.")
    return finish(fig, out / "fig_savings.png", "Savings against CAM at equal work (%)", caption)
