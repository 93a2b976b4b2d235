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
    "psm": "tab:cyan",
    "bsd-10": "tab:pink",
    "bsd-20": "tab:purple",
    "bsd-50": "tab:red",
    "bsd-100": "tab:brown",
    "cam": "grey",
}
LABELS = {"cc": "CC (active)", "cc-dynamic": "CC (dynamic)", "ideal-psm": "PSM (ideal)", "psm": "PSM (802.11)", "cam": "TCP"}
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


# --- web browsing (seed Figs. 9/10) and fairness (seed Figs. 6–8) ---------------------------------

WEB_COLORS = {"tcp": "grey", "cc": "tab:green", "cc-nocache": "tab:olive", "oracle": "black"}
WEB_LABELS = {"tcp": "TCP", "cc": "CC", "cc-nocache": "CC, no RTT cache", "ideal-psm": "PSM (ideal)", "psm": "PSM (802.11)",
              "oracle": "oracle"}
GROUP_COLORS = {"cc": "tab:green", "tcp": "grey", "psm": "tab:blue"}
GROUP_LABELS = {"cc": "CC", "tcp": "TCP", "psm": "PSM (ideal)"}


def fig09(points: pd.DataFrame, main_scale: float, out: Path) -> Path:
    """Fig. 9: every policy's energy and page time over a browsing session, normalized to TCP;
    one row of panels per think-time setting (the configured one first)."""
    path = out / "fig09_web.png"
    if points is None or points.empty:
        return _empty(path, "Fig. 9")
    scales = list(dict.fromkeys([main_scale, *points.think_scale_s])) if "think_scale_s" in points.columns else [None]
    fig, axes = plt.subplots(len(scales), 2, figsize=(12, 4 * len(scales)), squeeze=False)
    for row, scale in zip(axes, scales):
        p = points if scale is None else points[np.isclose(points.think_scale_s, scale)]
        pols = list(p.policy)
        x = np.arange(len(pols))
        colors = [WEB_COLORS.get(q, COLORS.get(q, "tab:gray")) for q in pols]
        for ax, (col, label) in zip(row, (("energy_norm", "normalized energy"), ("time_norm", "normalized page time"))):
            ax.bar(x, p[col], color=colors)
            for xi, v in zip(x, p[col]):
                ax.text(xi, v, f"{v:.2f}", ha="center", va="bottom", fontsize=7)
            ax.axhline(1.0, color="black", linewidth=0.8)
            ax.set_xticks(x, [WEB_LABELS.get(q, q) for q in pols], rotation=30, ha="right", fontsize=8)
            ax.set_ylabel(label + " (TCP = 1)")
            ax.grid(axis="y", alpha=0.3)
        what = "" if scale is None else f"\nPareto think time scale {scale:g} s" + (
            " (configured)" if scale == main_scale else " (sensitivity: the seed's ~54 s per page)")
        row[0].set_title("whole session: pages and think times" + what, fontsize=9)
        row[1].set_title("sum of page load times (the oracle keeps TCP's)", fontsize=9)
    fig.suptitle("Web browsing: medians over seeds (seed 000, Fig. 9)")
    return _save(fig, path)


def fig10(c: pd.DataFrame, out: Path) -> Path:
    """Fig. 10: the RTT cache's saving by number of busy connections (0 = think time), with the
    seed's 13 % and 32 % at 3 and 4 and its ~10 % overall; CC's absolute energy per k beside it."""
    path = out / "fig10_rtt_cache.png"
    if c is None or c.empty:
        return _empty(path, "Fig. 10")
    per_k = c[c.scope == "k"]
    agg = c[c.scope != "k"]
    labels = [str(int(k)) for k in per_k.k] + list(agg.scope)
    vals = list(per_k.cache_saving * 100) + list(agg.cache_saving * 100)
    fig, axes = plt.subplots(1, 2, figsize=(12, 4))
    ax = axes[0]
    x = np.arange(len(labels))
    ax.bar(x, vals, color=["tab:green"] * len(per_k) + ["darkgreen"] * len(agg), label="wattlab (median over seeds)")
    seed_vals = {"3": 13, "4": 32, "downloads": 10}
    sx = [i for i, lab in enumerate(labels) if lab in seed_vals]
    ax.plot(sx, [seed_vals[labels[i]] for i in sx], "r*", markersize=12, label="seed")
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xticks(x, labels)
    ax.set_xlabel("busy connections (0 = think time)")
    ax.set_ylabel("energy saved by the RTT cache (%)")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=8)
    ax = axes[1]
    xk = np.arange(len(per_k))
    ax.bar(xk - 0.2, per_k.cc_energy_j, 0.4, color=WEB_COLORS["cc"], label=WEB_LABELS["cc"])
    ax.bar(xk + 0.2, per_k.nocache_energy_j, 0.4, color=WEB_COLORS["cc-nocache"], label=WEB_LABELS["cc-nocache"])
    ax.set_xticks(xk, [str(int(k)) for k in per_k.k])
    ax.set_xlabel("busy connections (0 = think time)")
    ax.set_ylabel("energy (J, median over seeds)")
    ax.set_yscale("log")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=8)
    fig.suptitle("The RTT cache by number of concurrent connections (seed 000, Fig. 10)")
    return _save(fig, path)


def fig06(flows: pd.DataFrame, out: Path) -> Path:
    """Fig. 6: every flow's goodput normalized to its run's mean, over the number of flows, CC
    alone and TCP alone side by side (points: flows of every seed; boxes: their spread)."""
    path = out / "fig06_fairness.png"
    d = flows[flows.figure == "fig6"] if flows is not None and len(flows) else pd.DataFrame()
    if d.empty:
        return _empty(path, "Fig. 6")
    fig, axes = plt.subplots(1, 2, figsize=(12, 4), sharey=True)
    rng = np.random.default_rng(0)
    for ax, group in zip(axes, ("cc", "tcp")):
        g = d[d.pair == group]
        ns = sorted(set(g.flows))
        if ns:
            ax.boxplot([g[g.flows == n].normalized for n in ns], positions=ns, widths=0.5, showfliers=False)
            ax.scatter(g.flows + rng.uniform(-0.15, 0.15, len(g)), g.normalized, s=10, alpha=0.7,
                       color=GROUP_COLORS[group])
            ax.set_xticks(ns, [str(n) for n in ns])
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_title(f"{GROUP_LABELS[group]} flows alone")
        ax.set_xlabel("flows")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("goodput / mean goodput of the run")
    fig.suptitle("Fairness: n flows through one FIFO bottleneck (seed 000, Fig. 6)")
    return _save(fig, path)


def fig07(flows: pd.DataFrame, out: Path) -> Path:
    """Fig. 7: median download time of each group in every two-group mix, by flows of each."""
    path = out / "fig07_friendliness.png"
    d = flows[flows.figure == "fig7"] if flows is not None and len(flows) else pd.DataFrame()
    if d.empty:
        return _empty(path, "Fig. 7")
    pairs = list(dict.fromkeys(d.pair))
    fig, axes = plt.subplots(1, len(pairs), figsize=(4.5 * len(pairs), 4), squeeze=False, sharey=True)
    for ax, pair in zip(axes[0], pairs):
        g = d[d.pair == pair]
        sizes = sorted(set(g.of_each))
        groups = pair.split("+")
        x = np.arange(len(sizes))
        for i, grp in enumerate(groups):
            med = [g[(g.of_each == k) & (g.group == grp)].completion_time_s.median() for k in sizes]
            lo = [g[(g.of_each == k) & (g.group == grp)].completion_time_s.min() for k in sizes]
            hi = [g[(g.of_each == k) & (g.group == grp)].completion_time_s.max() for k in sizes]
            ax.bar(x + (i - 0.5) * 0.4, med, 0.4, color=GROUP_COLORS[grp], label=GROUP_LABELS[grp],
                   yerr=[np.subtract(med, lo), np.subtract(hi, med)], capsize=2)
        ax.set_xticks(x, [f"{k} + {k}" for k in sizes])
        ax.set_xlabel("flows of each")
        ax.set_title(" with ".join(GROUP_LABELS[x_] for x_ in groups))
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize=8)
    axes[0][0].set_ylabel("download time (s): median, whiskers min–max")
    fig.suptitle("Friendliness: two groups through one FIFO bottleneck (seed 000, Fig. 7)")
    return _save(fig, path)


def fig08(runs: pd.DataFrame, queue_pkts: int, out: Path) -> Path:
    """Fig. 8: the bottleneck queue's mean (bars) and 95th percentile (markers) per mix; the
    same total number of flows of one group alone beside them where Fig. 6 ran it."""
    path = out / "fig08_queues.png"
    if runs is None or runs.empty or not (runs.figure == "fig7").any():
        return _empty(path, "Fig. 8")
    sizes = sorted(set(runs[runs.figure == "fig7"].of_each))
    fig, axes = plt.subplots(1, len(sizes), figsize=(5 * len(sizes), 4), squeeze=False, sharey=True)
    for ax, k in zip(axes[0], sizes):
        sel = runs[((runs.figure == "fig7") & (runs.of_each == k)) | ((runs.figure == "fig6") & (runs.flows == 2 * k))]
        med = sel.groupby("pair", sort=False)[["queue_mean_pkts", "queue_p95_pkts"]].median()
        order = [p for p in ("cc+tcp", "cc+psm", "tcp+psm", "cc", "tcp") if p in med.index]
        med = med.loc[order]
        x = np.arange(len(order))
        ax.bar(x, med.queue_mean_pkts, color=["tab:cyan"] * len(order), label="mean")
        ax.plot(x, med.queue_p95_pkts, "kv", label="95th percentile")
        ax.axhline(queue_pkts, color="red", linestyle=":", label=f"queue limit ({queue_pkts})")
        ax.set_xticks(x, [p if "+" in p else f"{p} alone" for p in order], fontsize=8)
        ax.set_title(f"{k} flows of each ({2 * k} in all)")
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize=8)
    axes[0][0].set_ylabel("bottleneck queue (packets, median over seeds)")
    fig.suptitle("Queue fill of the shared bottleneck (seed 000, Fig. 8)")
    return _save(fig, path)
