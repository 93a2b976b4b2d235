"""Figure plumbing shared by the reproductions: one legend per figure, placed below the panels
so it never covers data, a caption under it that says what the marks and bars are, and saving."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402

CAPTION_SIZE = 8
LEGEND_SIZE = 8


def legend_entries(fig) -> tuple[list, list[str]]:
    """Every labelled artist of the figure's axes, each label once, in drawing order."""
    seen: dict[str, object] = {}
    for ax in fig.axes:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab and not lab.startswith("_"):
                seen.setdefault(lab, h)
    return list(seen.values()), list(seen)


def finish(fig, path: Path, title: str, caption: str = "", ncol: int | None = None) -> Path:
    """Title the figure, put its legend and ``caption`` below the panels, save it, close it."""
    fig.suptitle(title)
    fig.tight_layout()
    handles, labels = legend_entries(fig)
    bottom = 0.0
    if handles:
        cols = ncol or min(len(labels), 6)
        # Anchored below the figure's lower edge: outside every axes, so it cannot cover a bar;
        # bbox_inches="tight" grows the saved image to include it.
        leg = fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=cols,
                         fontsize=LEGEND_SIZE, frameon=False)
        fig.canvas.draw()
        bottom = leg.get_window_extent().transformed(fig.transFigure.inverted()).y0
    if caption:
        fig.text(0.5, bottom - 0.01, caption, ha="center", va="top", fontsize=CAPTION_SIZE, wrap=True)
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return path


def empty(path: Path, title: str) -> Path:
    """A placeholder figure for an experiment this configuration did not run."""
    fig, ax = plt.subplots(figsize=(5, 2))
    ax.text(0.5, 0.5, "not run in this configuration", ha="center", va="center")
    ax.set_axis_off()
    return finish(fig, path, title)
