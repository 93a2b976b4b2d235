"""PNG figures in the layout of the paper's Figs. 2–4 (the paper's own curves did not survive
its text conversion, so these are wattlab's curves in the paper's panels).

Marks are means over seeds; bars follow ``reproduce.stats`` (a t-interval only from 3 seeds,
clipped to the quantity's domain) and each figure's caption says which. Titles are built from
the configuration that ran.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

from .. import plotting, stats
from .config import Config

PANELS = (
    ("(a)", ("tahoe", "reno", "newreno")),
    ("(b)", ("tahoe", "vegas", "sack")),
    ("(c)", ("tahoe", "westwood")),
)
"""The paper's grouping of variants into sub-figures."""

STYLE = {
    "tahoe": ("black", "o"),
    "reno": ("tab:red", "s"),
    "newreno": ("tab:blue", "^"),
    "sack": ("tab:purple", "D"),
    "vegas": ("tab:green", "v"),
    "westwood": ("tab:orange", "P"),
}


def _mib(n: int) -> str:
    return f"{n / 2**20:g} MiB"


def _errorbar(ax, x, d: pd.DataFrame, col: str, scale: float, **kw) -> None:
    """Means with the bars ``runner.aggregate`` computed (``<col>_lo`` … ``<col>_hi``)."""
    ax.errorbar(x, d[col] * scale, yerr=stats.yerr(d[col], d[f"{col}_lo"], d[f"{col}_hi"], scale),
                markersize=4, capsize=2, **kw)


def _caption(points: pd.DataFrame, domain_note: str) -> str:
    return "Marks: " + stats.bars_text(stats.MEAN, points["runs"], "seeds", domain_note) + "."


def sweep_title(what: str, cfg: Config, fig: int) -> str:
    """Title of Fig. 2 or 3 from the configuration that ran."""
    return (f"{what} vs error rate: one {_mib(cfg.exp1_bytes)} flow per variant, {stats.count([cfg.seeds])} per point, "
            f"PER reading '{cfg.per_reading}' (paper 003, Fig. {fig})")


def _sweep_figure(points: pd.DataFrame, column: str, ylabel: str, title: str, scale: float, domain_note: str,
                  path: Path) -> Path:
    models = list(dict.fromkeys(points["model"]))
    fig, axes = plt.subplots(len(models), 3, figsize=(13, 3.6 * len(models)), squeeze=False, sharex=True)
    for r, model in enumerate(models):
        for c, (label, variants) in enumerate(PANELS):
            ax = axes[r][c]
            for v in variants:
                d = points[(points.model == model) & (points.variant == v)].sort_values("per")
                if not d.empty:
                    color, marker = STYLE[v]
                    _errorbar(ax, d.per * 100, d, column, scale, label=v, color=color, marker=marker, linewidth=1.2)
            ax.set_title(f"{label} {model} errors")
            ax.grid(alpha=0.3)
            if r == len(models) - 1:
                ax.set_xlabel("error rate (%)")
            if c == 0:
                ax.set_ylabel(ylabel)
    return plotting.finish(fig, path, title, _caption(points, domain_note))


def figure2(points: pd.DataFrame, cfg: Config, out: Path) -> Path:
    """Fig. 2: goodput against error rate, in the paper's three variant groups."""
    return _sweep_figure(points, "goodput_bps", "goodput (kb/s)", sweep_title("Goodput", cfg, 2), 1e-3,
                         "clipped at 0 kb/s", out / "fig2_goodput.png")


def figure3(points: pd.DataFrame, cfg: Config, out: Path) -> Path:
    """Fig. 3: 3E against error rate, same groups."""
    return _sweep_figure(points, "eee", "3E", sweep_title("Extra energy expenditure (3E)", cfg, 3), 1.0,
                         f"clipped to 3E's range [0, α = {cfg.alpha:g}]", out / "fig3_eee.png")


def systems_title(cfg: Config) -> str:
    """Title of Fig. 4 from the configuration that ran."""
    return (f"n Tahoe flows vs n Vegas flows, {100 * cfg.exp2_per:g} % random errors, {_mib(cfg.exp2_bytes)} per flow, "
            f"{stats.count([cfg.seeds])} per point (paper 003, Fig. 4)")


def figure4(points: pd.DataFrame, cfg: Config, out: Path) -> Path:
    """Fig. 4: fairness index, system goodput, system 3E and Tahoe's energy gain against n."""
    fig, axes = plt.subplots(2, 2, figsize=(11, 7.5))
    panels = (
        ("fairness", "fairness index (Jain)", 1.0, "(a)"),
        ("goodput_bps", "system goodput (kb/s)", 1e-3, "(b)"),
        ("eee_system", "system 3E", 1.0, "(c)"),
    )
    for ax, (col, label, scale, tag) in zip(axes.flat, panels):
        for v in ("tahoe", "vegas"):
            d = points[points.variant == v].sort_values("flows")
            color, marker = STYLE[v]
            _errorbar(ax, d.flows, d, col, scale, label=v, color=color, marker=marker)
        ax.set_title(f"{tag} {label}")
        ax.set_xlabel("number of flows")
        ax.grid(alpha=0.3)
    ax = axes[1][1]
    g = points.drop_duplicates("flows").sort_values("flows")
    _errorbar(ax, g.flows, g, "energy_gain_pct", 1.0, color="black", marker="o", label="Tahoe's energy gain")
    marked = g[g.flows.isin([5, 8, 25])]
    ax.scatter(marked.flows, marked.energy_gain_pct, s=80, facecolors="none", edgecolors="tab:red",
               label="n = 5, 8, 25 (marked in the paper)")
    ax.axhline(0, color="grey", linewidth=0.8)
    ax.set_title("(d) Tahoe's energy gain, (E_Vegas − E_Tahoe) / E_Tahoe (%)")
    ax.set_xlabel("number of flows")
    ax.grid(alpha=0.3)
    note = f"clipped to Jain's [1/n, 1] for n flows, goodput ≥ 0, 3E_s in [0, α = {cfg.alpha:g}]"
    return plotting.finish(fig, out / "fig4_systems.png", systems_title(cfg), _caption(points, note))
