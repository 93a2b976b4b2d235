"""PNG figures in the layout of seed 000's Figs. 13–18 (normalized to baseline TCP = 1; bars
are medians over seeds, whiskers the 95 % CI of the mean where there is more than one seed)."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from .config import PEAK  # noqa: E402

COLORS = {
    "cc": "tab:green",
    "cc-dynamic": "tab:olive",
    "ideal-psm": "tab:blue",
    "bsd-10": "tab:pink",
    "bsd-20": "tab:purple",
    "bsd-50": "tab:red",
    "bsd-100": "tab:brown",
    "cam": "grey",
}
LABELS = {"cc": "CC (active)", "cc-dynamic": "CC (dynamic)", "ideal-psm": "PSM (ideal)", "cam": "TCP"}
METRICS = (("norm_energy", "normalized energy"), ("norm_time", "normalized time"))


def _save(fig, path: Path) -> Path:
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _empty(path: Path, title: str) -> Path:
    fig, ax = plt.subplots(figsize=(5, 2))
    ax.text(0.5, 0.5, "not run in this configuration", ha="center", va="center")
    ax.set_axis_off()
    ax.set_title(title)
    return _save(fig, path)


def _bars(ax, groups: list[str], series: dict[str, tuple[list[float], list[float]]], ylabel: str) -> None:
    n = max(1, len(series))
    width = 0.8 / n
    x = np.arange(len(groups))
    for i, (name, (vals, errs)) in enumerate(series.items()):
        ax.bar(x + (i - (n - 1) / 2) * width, vals, width, yerr=errs, capsize=2,
               color=COLORS.get(name), label=LABELS.get(name, name))
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks(x, groups, fontsize=8)
    ax.set_ylabel(ylabel)
    ax.grid(axis="y", alpha=0.3)


def _series(df: pd.DataFrame, col: str) -> tuple[list[float], list[float]]:
    return list(df[col]), list(df[f"{col}_ci"])


def fig14(p: pd.DataFrame, out: Path) -> Path:
    """Fig. 14: CC's normalized energy and time over RTT, one line per loss rate, off-peak and peak."""
    path = out / "fig14_emulated.png"
    cc = p[p.policy == "cc"] if not p.empty else p
    if cc.empty:
        return _empty(path, "Fig. 14")
    vars_ = list(dict.fromkeys(cc.variation))
    fig, axes = plt.subplots(2, len(vars_), figsize=(5.5 * len(vars_), 7), squeeze=False, sharey="row")
    for c, var in enumerate(vars_):
        for r, (col, label) in enumerate(METRICS):
            ax = axes[r][c]
            for loss, g in cc[cc.variation == var].groupby("loss"):
                g = g.sort_values("rtt_ms")
                ax.errorbar(g.rtt_ms, g[col], yerr=g[f"{col}_ci"], marker="o", capsize=2, label=f"loss {100 * loss:g} %")
            ax.axhline(1.0, color="black", linewidth=0.8)
            ax.set_title(f"CC, {PEAK[var]}")
            ax.set_xlabel("RTT (ms)")
            ax.set_ylabel(label)
            ax.grid(alpha=0.3)
            ax.legend(fontsize=8)
    fig.suptitle("CC (active detection) vs baseline TCP, 20 Mb/s hop, 5 MB (seed 000, Fig. 14)")
    return _save(fig, path)


def fig15(p: pd.DataFrame, loss: float, out: Path) -> Path:
    """Fig. 15: CC, PSM and BSD-50 over RTT at 0.1 % loss, peak (and off-peak)."""
    path = out / "fig15_policies.png"
    d = p[np.isclose(p.loss, loss) & (p.policy != "cam")] if not p.empty else p
    if d.empty:
        return _empty(path, "Fig. 15")
    pols = [x for x in ("cc", "ideal-psm", "bsd-50") if x in set(d.policy)]
    vars_ = list(dict.fromkeys(d.variation))[::-1]
    fig, axes = plt.subplots(2, len(vars_), figsize=(6 * len(vars_), 7), squeeze=False)
    for c, var in enumerate(vars_):
        dv = d[d.variation == var]
        rtts = sorted(set(dv.rtt_ms))
        for r, (col, label) in enumerate(METRICS):
            series = {pol: _series(dv[dv.policy == pol].set_index("rtt_ms").loc[rtts], col) for pol in pols}
            _bars(axes[r][c], [f"{x:g} ms" for x in rtts], series, label)
            axes[r][c].set_title(PEAK[var])
            axes[r][c].legend(fontsize=8)
    fig.suptitle(f"CC, PSM and BSD-50 at {100 * loss:g} % loss (seed 000, Fig. 15)")
    return _save(fig, path)


def fig16(p: pd.DataFrame, out: Path) -> Path:
    """Fig. 16: none / gamma / 2var × active vs dynamic."""
    path = out / "fig16_variation.png"
    d = p[p.policy != "cam"] if not p.empty else p
    if d.empty:
        return _empty(path, "Fig. 16")
    vars_ = list(dict.fromkeys(d.variation))
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, (col, label) in zip(axes, METRICS):
        series = {pol: _series(d[d.policy == pol].set_index("variation").loc[vars_], col) for pol in dict.fromkeys(d.policy)}
        _bars(ax, [PEAK[v] for v in vars_], series, label)
        ax.legend(fontsize=8)
    fig.suptitle("RTT variation, 60 ms, 0.1 % loss (seed 000, Fig. 16)")
    return _save(fig, path)


def fig17(p: pd.DataFrame, out: Path) -> Path:
    """Fig. 17: one energy-aware client + n TCP clients, normalized to one TCP client alone."""
    path = out / "fig17_competing.png"
    if p.empty:
        return _empty(path, "Fig. 17")
    ns = sorted(set(p.competitors))
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for ax, (col, label) in zip(axes, METRICS):
        series = {pol: _series(p[p.policy == pol].set_index("competitors").loc[ns], col) for pol in dict.fromkeys(p.policy)}
        _bars(ax, [str(n) for n in ns], series, label + " (1 = one TCP client alone)")
        ax.set_xlabel("competing TCP clients")
        ax.legend(fontsize=8)
    fig.suptitle("One energy-aware client among plain TCP clients sharing 20 Mb/s, 60 ms (seed 000, Fig. 17)")
    return _save(fig, path)


def fig18(p: pd.DataFrame, out: Path) -> Path:
    """Fig. 18: normalized energy and time over loss, one line per AP bandwidth, CC (solid) and PSM (dashed)."""
    path = out / "fig18_bandwidth.png"
    if p.empty:
        return _empty(path, "Fig. 18")
    vars_ = list(dict.fromkeys(p.variation))
    fig, axes = plt.subplots(2, len(vars_), figsize=(5.5 * len(vars_), 7), squeeze=False, sharey="row")
    cmap = plt.get_cmap("viridis")
    rates = sorted(set(p.rate_mbps))
    for c, var in enumerate(vars_):
        for r, (col, label) in enumerate(METRICS):
            ax = axes[r][c]
            for i, rate in enumerate(rates):
                for pol, style in (("cc", "-o"), ("ideal-psm", "--s")):
                    g = p[(p.variation == var) & (p.policy == pol) & np.isclose(p.rate_mbps, rate)].sort_values("loss")
                    if g.empty:
                        continue
                    ax.errorbar(g.loss * 100, g[col], yerr=g[f"{col}_ci"], fmt=style, capsize=2,
                                color=cmap(i / max(1, len(rates) - 1)), label=f"{LABELS.get(pol, pol)} {rate:g} Mb/s")
            ax.axhline(1.0, color="black", linewidth=0.8)
            ax.set_title(PEAK[var])
            ax.set_xlabel("loss (%)")
            ax.set_ylabel(label)
            ax.grid(alpha=0.3)
            ax.legend(fontsize=7, ncol=2)
    fig.suptitle("AP bandwidth 4–40 Mb/s, 60 ms (seed 000, Fig. 18)")
    return _save(fig, path)


def fig13(p: pd.DataFrame, order: list[str], out: Path) -> Path:
    """Fig. 13: the Internet sites as scenarios, CC and PSM, off-peak and peak."""
    path = out / "fig13_sites.png"
    d = p[p.policy != "cam"] if not p.empty else p
    if d.empty:
        return _empty(path, "Fig. 13")
    sites = [s for s in order if s in set(d.site)]
    vars_ = list(dict.fromkeys(d.variation))[::-1]
    fig, axes = plt.subplots(2, len(vars_), figsize=(7 * len(vars_), 7), squeeze=False)
    for c, var in enumerate(vars_):
        dv = d[d.variation == var]
        for r, (col, label) in enumerate(METRICS):
            series = {pol: _series(dv[dv.policy == pol].set_index("site").loc[sites], col) for pol in dict.fromkeys(dv.policy)}
            _bars(axes[r][c], [s.replace(".", ".\n", 1) for s in sites], series, label)
            axes[r][c].set_title(PEAK[var])
            axes[r][c].legend(fontsize=8)
    fig.suptitle("Internet sites as scenarios: base RTT, average window as receive buffer (seed 000, Figs. 12/13)")
    return _save(fig, path)


def crossover(p: pd.DataFrame, hop_mbps: float, out: Path) -> Path:
    """CC vs PSM normalized time over RTT (64 KB, no loss), and the crossover the seed predicts."""
    path = out / "crossover.png"
    d = p[np.isclose(p.rate_mbps, hop_mbps)] if not p.empty else p
    if d.empty:
        return _empty(path, "CC vs PSM crossover")
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for ax, (col, label) in zip(axes, METRICS):
        for pol in ("cc", "ideal-psm"):
            g = d[d.policy == pol].sort_values("rtt_ms")
            ax.plot(g.rtt_ms, g[col], "-o", color=COLORS[pol], label=LABELS[pol])
        ax.axvline(75, color="black", linestyle=":", label="seed's crossover (75 ms)")
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xlabel("RTT (ms)")
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(f"CC vs PSM, 64 KB window, {hop_mbps:g} Mb/s, no loss, off-peak")
    return _save(fig, path)
