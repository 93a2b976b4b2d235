"""The live run's figure: goodput and 3E against the error rate per variant, live (solid) beside
the simulator on the same path (dashed) and on the paper's channel (dotted), one column per
error model. Marks are means over the seeds that ran (one seed: single runs, no bars)."""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

from .config import Config
from .figures import STYLE

STYLE_LIVE = {**STYLE, "cubic": ("tab:brown", "X")}
"""Colour and marker per variant (the reproduction's, plus CUBIC)."""
SOURCES = (("live", "live_points.csv", "-", "Linux live"),
           ("sim_path", "live_sim_path_points.csv", "--", "wattlab sim, same path"),
           ("sim_channel", "live_sim_channel_points.csv", ":", "wattlab sim, paper's DCF channel"))
"""(key, table, line style, legend text) of each curve family."""


def figure(cfg: Config, tables: dict[str, pd.DataFrame], out: Path) -> Path:
    """``live_fig.png``: rows goodput (kb/s) and 3E, columns the error models."""
    models = list(cfg.live_models)
    fig, axes = plt.subplots(2, len(models), figsize=(6.2 * len(models), 7.4), squeeze=False, sharex=True)
    live_variants = set(tables["live_points.csv"].get("variant", []))
    for c, model in enumerate(models):
        for key, name, ls, label in SOURCES:
            pts = tables[name]
            if pts.empty:
                continue
            for v in dict.fromkeys(pts.variant):
                if key != "live" and v not in live_variants and live_variants:
                    continue  # the simulated twins only of what ran live (all of them if nothing did)
                d = pts[(pts.model == model) & (pts.variant == v)].sort_values("per")
                if d.empty:
                    continue
                color, marker = STYLE_LIVE.get(v, ("grey", "o"))
                kw = dict(color=color, marker=marker, linestyle=ls, markersize=5 if key == "live" else 3,
                          label=f"{v}: {label}")
                axes[0][c].plot(100 * d.per, d.goodput_bps / 1e3, **kw)
                axes[1][c].plot(100 * d.per, d.eee, **kw)
        axes[0][c].set_title(f"{model} errors ({'Bernoulli' if model == 'random' else 'Gilbert–Elliott, bad-state reading'})")
        axes[0][c].set_ylabel("goodput (kb/s)")
        axes[1][c].set_ylabel("3E (α = %g, b = %g; dimensionless)" % (cfg.alpha, cfg.b))
        axes[1][c].set_xlabel("packet error rate on the hop, each direction (%)")
        for ax in (axes[0][c], axes[1][c]):
            ax.grid(alpha=0.3)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=3, fontsize=7, frameon=False)
    fig.suptitle(f"Paper 003's single flow live: {cfg.live_bytes / 2**20:g} MiB per run, {cfg.seeds} seed(s) per point "
                 "(marks: means, no bars)", fontsize=10)
    fig.tight_layout(rect=(0, 0.12, 1, 0.96))
    path = out / "live_fig.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
