"""The sim-vs-live grid's figure: simulated against live completion time, energy and saving,
one point per shape (and mode), one colour per TCP profile, the ±tolerance band around y = x."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

COLOURS = {"linux": "#1f77b4", "textbook": "#d62728"}
MARKERS = {"always-on": "o", "cc": "^"}


def figure(spec, table: pd.DataFrame, path: Path) -> None:
    """Three panels (completion time, energy, the agent's saving), simulated (y) against live
    (x); horizontal error bars: the live runs' min–max, vertical: the seeds' min–max (savings:
    none, a ratio of medians). Filled markers: shapes the verdict judges (loss ≤ the verdict's
    limit); hollow: higher loss (reported only)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    have_saving = "cc" in spec.modes and "always-on" in spec.modes
    fig, axes = plt.subplots(1, 3 if have_saving else 2, figsize=(15 if have_saving else 10, 4.8))
    for ax, q, label, unit in ((axes[0], "time_s", "completion time", "s"), (axes[1], "energy_j", "client radio energy", "J")):
        lo_all, hi_all = [], []
        for profile in spec.profiles:
            for mode in spec.modes:
                for judged in (True, False):
                    rows = table[(table.loss_pct <= spec.verdict_max_loss_pct) == judged]
                    x, y = rows[f"live_{mode}_{q}"], rows[f"{profile}_{mode}_{q}"]
                    ok = x.notna() & y.notna()
                    if not ok.any():
                        continue
                    x, y, rows = x[ok].astype(float), y[ok].astype(float), rows[ok]
                    xerr = [x - rows[f"live_{mode}_{q}_min"].astype(float), rows[f"live_{mode}_{q}_max"].astype(float) - x]
                    yerr = [y - rows[f"{profile}_{mode}_{q}_min"].astype(float), rows[f"{profile}_{mode}_{q}_max"].astype(float) - y]
                    c = COLOURS.get(profile, "grey")
                    ax.errorbar(x, y, xerr=xerr, yerr=yerr, fmt=MARKERS.get(mode, "s"), color=c, ms=6, capsize=2, lw=0.8,
                                mfc=c if judged else "none",
                                label=f"sim {profile}, {mode}" + ("" if judged else f", loss > {spec.verdict_max_loss_pct:g} %"))
                    lo_all += [x.min(), y.min()]
                    hi_all += [x.max(), y.max()]
        if lo_all:
            lo, hi = min(lo_all) * 0.8, max(hi_all) * 1.25
            t = spec.time_tol_pct / 100
            ax.plot([lo, hi], [lo, hi], color="black", lw=0.8)
            ax.fill_between([lo, hi], [lo * (1 - t), hi * (1 - t)], [lo * (1 + t), hi * (1 + t)], color="grey", alpha=0.25,
                            label=f"y = x ± {spec.time_tol_pct:g} % (the time criterion)")
            ax.set_xscale("log")
            ax.set_yscale("log")
            plain = FuncFormatter(lambda v, _pos: f"{v:g}")
            for axis in (ax.xaxis, ax.yaxis):  # 2, 5, 10, 20 as numbers, no 2×10^0 labels on minor ticks
                axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
                axis.set_major_formatter(plain)
                axis.set_minor_formatter(NullFormatter())
            ax.set_xlim(lo, hi)
            ax.set_ylim(lo, hi)
        ax.set_xlabel(f"live {label}, median of runs ({unit})")
        ax.set_ylabel(f"simulated {label}, median of seeds ({unit})")
        ax.set_title(label.capitalize())
    if have_saving:
        ax = axes[2]
        vals = []
        for profile in spec.profiles:
            for judged in (True, False):
                rows = table[(table.loss_pct <= spec.verdict_max_loss_pct) == judged]
                x, y = rows["live_saving_pct"], rows[f"{profile}_saving_pct"]
                ok = x.notna() & y.notna()
                if not ok.any():
                    continue
                c = COLOURS.get(profile, "grey")
                ax.plot(x[ok].astype(float), y[ok].astype(float), "D", color=c, mfc=c if judged else "none", ms=6,
                        label=f"sim {profile}" + ("" if judged else f", loss > {spec.verdict_max_loss_pct:g} %"))
                vals += list(x[ok].astype(float)) + list(y[ok].astype(float))
        if vals:
            lo, hi = min(vals + [0]) - 5, max(vals) + 5
            t = spec.saving_tol_pp
            ax.plot([lo, hi], [lo, hi], color="black", lw=0.8)
            ax.fill_between([lo, hi], [lo - t, hi - t], [lo + t, hi + t], color="grey", alpha=0.25, label=f"y = x ± {t:g} pp (the criterion)")
            ax.set_xlim(lo, hi)
            ax.set_ylim(lo, hi)
        ax.set_xlabel("live saving of the cc agent vs always-on (%)")
        ax.set_ylabel("simulated saving vs always-on (%)")
        ax.set_title("Agent's energy saving")
    for i, ax in enumerate(axes):
        # The energy panel has the time panel's series: one legend for both. Lower right: the
        # region below the diagonal far from it, where few points fall.
        if i != 1 and ax.get_legend_handles_labels()[0]:  # an empty panel (no live saving yet) has none
            ax.legend(fontsize=6.5, loc="lower right", framealpha=0.85)
    fig.suptitle(f"Simulator vs live Linux TCP, {spec.size} downloads; error bars: min–max over runs (x, live) and seeds (y, sim)",
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
