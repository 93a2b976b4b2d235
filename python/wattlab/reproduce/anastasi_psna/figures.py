"""The reproduction's figure: card energy per transfer and architecture (log scale), the
paper's two measured architectures beside ours."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from .. import plotting  # noqa: F401  (sets the non-interactive backend)
from . import paper
from .config import ARCHITECTURES

NAME = "fig_card_energy.png"


def card_energy(t: pd.DataFrame, out: Path) -> Path:
    import matplotlib.pyplot as plt

    from wattlab import _core

    j_per_s = _core.psna_units()["base_power_w"]
    archs = [a for a in ARCHITECTURES if a in set(t["arch"])]
    transfers = list(dict.fromkeys(t["transfer"]))
    fig, ax = plt.subplots(figsize=(7, 4))
    width = 0.8 / (len(archs) + 1)
    for i, a in enumerate(archs):
        ys = [float(t[(t["transfer"] == x) & (t["arch"] == a)]["card_j"].iloc[0]) if len(t[(t["transfer"] == x) & (t["arch"] == a)]) else 0
              for x in transfers]
        ax.bar([k + i * width for k in range(len(transfers))], ys, width, label=f"{a} (wattlab)")
    ys = [paper.TABLE[(x, "psna")][1] * j_per_s for x in transfers]
    ax.bar([k + len(archs) * width for k in range(len(transfers))], ys, width, label="psna (paper)", hatch="//", fill=False)
    ax.set_xticks([k + len(archs) * width / 2 for k in range(len(transfers))], [f"transfer {x}" for x in transfers])
    ax.set_yscale("log")
    ax.set_ylabel("card energy from the request (J)")
    ax.set_title("Paper 001: card energy per architecture")
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=5, frameon=False)
    fig.tight_layout()
    path = out / NAME
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
