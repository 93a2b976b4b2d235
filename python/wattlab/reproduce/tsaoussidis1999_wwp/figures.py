"""The reproduction's figure: Table 1's WWP/TCP ratios per set, the paper's beside wattlab's,
and both ends' radio energy per delivered MB."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ..plotting import finish, plt


def figure(table: pd.DataFrame, ratios: pd.DataFrame, out: Path, runs_per_point: str) -> Path:
    """fig_table1.png: (a) original data WWP/TCP, (b) effort overhead, (c) J per delivered MB."""
    fig, axes = plt.subplots(1, 3, figsize=(14, 4.5))
    x = np.arange(len(ratios))
    w = 0.38
    ax = axes[0]
    ax.bar(x - w / 2, ratios.paper_original_data, w, label="paper (Table 1)", color="tab:gray")
    ax.bar(x + w / 2, ratios.original_data, w, label="wattlab", color="tab:blue")
    ax.set_yscale("log")
    ax.axhline(1.0, color="black", lw=0.8)
    ax.set_xticks(x, [f"set {s}" for s in ratios["set"]])
    ax.set_title("(a) original data, WWP / TCP")
    ax = axes[1]
    for proto, off, color in (("tcp", -1.5, "tab:orange"), ("wwp", 0.5, "tab:green")):
        d = table[table.protocol == proto].sort_values("set")
        ax.bar(np.arange(len(d)) + off * w / 2, d.paper_effort_overhead, w / 2, color=color, alpha=0.45,
               label=f"{proto.upper()} paper")
        ax.bar(np.arange(len(d)) + (off + 1) * w / 2, d.effort_overhead, w / 2, color=color, label=f"{proto.upper()} wattlab")
    ax.set_xticks(np.arange(len(ratios)), [f"set {s}" for s in ratios["set"]])
    ax.set_title("(b) effort overhead")
    ax = axes[2]
    for proto, off, color in (("tcp", -0.5, "tab:orange"), ("wwp", 0.5, "tab:green")):
        d = table[table.protocol == proto].sort_values("set")
        ax.bar(np.arange(len(d)) + off * w, d.j_per_mb_always_on, w, color=color, alpha=0.45, label=f"{proto.upper()} always-on")
        ax.bar(np.arange(len(d)) + off * w, d.j_per_mb_oracle, w, color=color, label=f"{proto.upper()} oracle power save")
    ax.set_yscale("log")
    ax.set_xticks(np.arange(len(ratios)), [f"set {s}" for s in ratios["set"]])
    ax.set_title("(c) radio energy of both ends per delivered MB (J)")
    for a in axes:
        a.grid(alpha=0.3, axis="y")
    caption = (f"Means over {runs_per_point} per set and protocol (one-minute runs, phase offsets and seeds). Sets: "
               + "; ".join(f"{s}: {c}" for s, c in zip(ratios["set"], ratios.conditions)) + ".")
    return finish(fig, out / "fig_table1.png", "Paper 004 Table 1: WWP vs TCP Tahoe, paper and wattlab", caption, ncol=4)
