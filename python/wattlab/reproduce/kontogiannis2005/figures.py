"""PNG figures in the layout of the paper's Figs. 2–4 (the paper's own curves did not survive
its text conversion, so these are wattlab's curves in the paper's panels)."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

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


def _sweep_figure(points: pd.DataFrame, column: str, ylabel: str, title: str, scale: float, path: Path) -> Path:
    models = list(dict.fromkeys(points["model"]))
    fig, axes = plt.subplots(len(models), 3, figsize=(13, 3.6 * len(models)), squeeze=False, sharex=True)
    for r, model in enumerate(models):
        for c, (label, variants) in enumerate(PANELS):
            ax = axes[r][c]
            for v in variants:
                d = points[(points.model == model) & (points.variant == v)].sort_values("per")
                if d.empty:
                    continue
                color, marker = STYLE[v]
                ax.errorbar(d.per * 100, d[column] * scale, yerr=d[f"{column}_ci"] * scale, label=v,
                            color=color, marker=marker, markersize=4, capsize=2, linewidth=1.2)
            ax.set_title(f"{label} {model} errors")
            ax.grid(alpha=0.3)
            if r == len(models) - 1:
                ax.set_xlabel("error rate (%)")
            if c == 0:
                ax.set_ylabel(ylabel)
            ax.legend(fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def figure2(points: pd.DataFrame, out: Path) -> Path:
    """Fig. 2: goodput against error rate, in the paper's three variant groups."""
    return _sweep_figure(points, "goodput_bps", "goodput (kb/s)", "Goodput vs error rate (seed 003, Fig. 2)", 1e-3,
                         out / "fig2_goodput.png")


def figure3(points: pd.DataFrame, out: Path) -> Path:
    """Fig. 3: 3E against error rate, same groups."""
    return _sweep_figure(points, "eee", "3E", "Extra energy expenditure vs error rate (seed 003, Fig. 3)", 1.0,
                         out / "fig3_eee.png")


def figure4(points: pd.DataFrame, out: Path) -> Path:
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
            ax.errorbar(d.flows, d[col] * scale, yerr=d[f"{col}_ci"] * scale, label=v, color=color,
                        marker=marker, markersize=4, capsize=2)
        ax.set_title(f"{tag} {label}")
        ax.set_xlabel("number of flows")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    ax = axes[1][1]
    g = points.drop_duplicates("flows").sort_values("flows")
    ax.errorbar(g.flows, g.energy_gain_pct, yerr=g.energy_gain_pct_ci, color="black", marker="o", markersize=4, capsize=2)
    marked = g[g.flows.isin([5, 8, 25])]
    ax.scatter(marked.flows, marked.energy_gain_pct, s=80, facecolors="none", edgecolors="tab:red",
               label="n = 5, 8, 25 (marked in the paper)")
    ax.axhline(0, color="grey", linewidth=0.8)
    ax.set_title("(d) energy gain of Tahoe over Vegas (%)")
    ax.set_xlabel("number of flows")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.suptitle("n Tahoe flows vs n Vegas flows, 0.1 % errors (seed 003, Fig. 4)")
    fig.tight_layout()
    path = out / "fig4_systems.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
