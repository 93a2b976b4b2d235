"""The trace analyzer's figure: state timelines per policy over the client's throughput."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from wattlab import _core

if TYPE_CHECKING:
    from wattlab.trace import TraceEnergy

STATE_PALETTE = ("#bbbbbb", "#4c72b0", "#dd8452", "#c44e52", "#55a868", "#8172b3")
"""Colours of the radio's states, least power first (grey off, blue sleep, ... purple tx)."""

STATE_COLOR = dict(zip(_core.radio_states(), STATE_PALETTE, strict=True))
"""Each state's colour, by the core's names (``_core.radio_states()``, least power first)."""


def _timeline_of(t: "TraceEnergy", label: str) -> pd.DataFrame:
    if label in t.timeline_files:
        df = pd.read_csv(t.timeline_files[label])
        df["time_s"] = df.time_s - t.start_ns / 1e9
        return df
    return t.timeline[t.timeline.policy == label]


def _bin_s(t: "TraceEnergy") -> float:
    """The throughput bin width, s (kept with the table; 0.05 if unknown)."""
    return float(t.throughput.attrs.get("bin_s") or t.provenance.get("options", {}).get("bin_s") or 0.05)


def _steps(start, value, width: float):
    """A step line over sparse bins: each bin's value from its start, back to 0 at its end
    (bins without traffic are not in the table), so a gap shows as 0 rather than as the last
    bin's value carried over."""
    import numpy as np

    x = np.empty(2 * len(start))
    y = np.empty(2 * len(start))
    x[0::2], x[1::2] = start, start + width
    y[0::2], y[1::2] = value, 0.0
    return x, y


def plot_timeline(t: "TraceEnergy", path: Path, max_points: int = 200_000) -> Path:
    """Writes the PNG: one band per policy, colored by state, and the throughput below."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    labels = list(t.energy.policy)
    fig, (ax_s, ax_t) = plt.subplots(
        2, 1, figsize=(11, 1.2 + 0.55 * len(labels) + 2.4), sharex=True, gridspec_kw={"height_ratios": [max(1, len(labels)), 3]}
    )
    end = (int(t.capture["end_ns"]) - t.start_ns) / 1e9
    for row, label in enumerate(reversed(labels)):
        df = _timeline_of(t, label)
        if len(df) > max_points:
            # Keep the figure light: a stride sample keeps the overall pattern.
            df = df.iloc[:: len(df) // max_points + 1]
        times = list(df.time_s) + [end]
        for state, group in pd.DataFrame({"s": df.state.values, "a": times[:-1], "b": times[1:]}).groupby("s"):
            spans = [(a, b - a) for a, b in zip(group.a, group.b)]
            ax_s.broken_barh(spans, (row - 0.4, 0.8), facecolors=STATE_COLOR.get(state, "black"), linewidth=0)
    ax_s.set_yticks(range(len(labels)))
    ax_s.set_yticklabels([f"{lab}  ({e:.3g} J)" for lab, e in zip(reversed(labels), reversed(list(t.energy.energy_j)))])
    ax_s.set_title(f"{Path(t.capture['path']).name}: radio state of {t.capture['client']} under each policy")
    present = sorted({s for lab in labels for s in _timeline_of(t, lab).state.unique()}, key=list(STATE_COLOR).index)
    ax_s.legend(handles=[Patch(color=STATE_COLOR[s], label=s) for s in present], loc="upper right", ncol=len(present), fontsize=8)
    thr = t.throughput
    bin_s = _bin_s(t)
    for col, label, color in (("mbps_down", "down", "#55a868"), ("mbps_up", "up", "#8172b3")):
        x, y = _steps(thr.start_s.to_numpy(), thr[col].to_numpy(), bin_s)
        ax_t.step(x, y, where="post", label=label, color=color)
    ax_t.set_ylabel(f"Mb/s (bins of {bin_s * 1e3:.3g} ms)")
    ax_t.set_xlabel("time since the first packet (s)")
    ax_t.legend(loc="upper right")
    ax_t.grid(alpha=0.3)
    ax_t.set_xlim(0, max(end, 1e-6))
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
