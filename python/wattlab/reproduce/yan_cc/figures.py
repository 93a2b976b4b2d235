"""PNG figures in the layout of paper 000's Figs. 6–10 and 13–18 (normalized to baseline TCP = 1).

Bars and marks are medians over seeds (the paper reports the median run); whiskers are the
seeds' range (``reproduce.stats``: min–max, none with one seed), never the mean's interval
around a median. Each figure's caption says what its marks and whiskers are, and every title
is built from the configuration that ran (file size, rates, RTT, loss, seeds).
"""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from .. import plotting, stats
from .config import PEAK, Config

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
LABELS = {"cc": "CC (active)", "cc-dynamic": "CC (dynamic)", "ideal-psm": "PSM (ideal)", "psm": "PSM (802.11)", "cam": "TCP",
          **{f"bsd-{p}": f"BSD-{p}" for p in (10, 20, 50, 100)}}
METRICS = (("norm_energy", "normalized energy"), ("norm_time", "normalized time"))


def _pct(x: float) -> str:
    return f"{100 * x:g} %"


def setting(cfg: Config, rtt_ms: float | None = None, loss: float | None = None, rate_mbps: float | None = None) -> str:
    """What a download figure ran: file size, hop rate, RTT, loss and seeds, from ``cfg``."""
    parts = [f"{cfg.file_bytes / 1e6:g} MB files", f"{cfg.hop_rate_mbps if rate_mbps is None else rate_mbps:g} Mb/s hop"]
    if rtt_ms is not None:
        parts.append(f"{rtt_ms:g} ms")
    if loss is not None:
        parts.append(f"{_pct(loss)} loss")
    parts.append(stats.count([cfg.seeds]))
    return ", ".join(parts)


def _caption(runs: pd.Series | list[int], what: str = "Bars and marks") -> str:
    """'Bars and marks: median over 3 seeds; bars: min–max of the seeds.' from the points' run counts."""
    text = stats.bars_text(stats.MEDIAN, runs, "seeds").replace("; bars:", "; whiskers:", 1)
    return f"{what}: {text}."


def _yerr(df: pd.DataFrame, col: str) -> np.ndarray:
    return stats.yerr(df[col], df[f"{col}_lo"], df[f"{col}_hi"])


def _dodge(x: pd.Series, i: int, count: int, span: float) -> pd.Series:
    """Shift series ``i`` of ``count`` sideways by a small share of the axis ``span`` so that
    whiskers at the same x do not hide each other."""
    return x + (i - (count - 1) / 2) * 0.012 * span


def _bars(ax, groups: list[str], series: dict[str, pd.DataFrame], col: str, ylabel: str) -> None:
    n = max(1, len(series))
    width = 0.8 / n
    x = np.arange(len(groups))
    for i, (name, d) in enumerate(series.items()):
        ax.bar(x + (i - (n - 1) / 2) * width, d[col], width, yerr=_yerr(d, col), capsize=2,
               color=COLORS.get(name), label=LABELS.get(name, name))
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks(x, groups, fontsize=8)
    ax.set_ylabel(ylabel)
    ax.grid(axis="y", alpha=0.3)


def fig14(p: pd.DataFrame, cfg: Config, out: Path) -> Path:
    """Fig. 14: CC's normalized energy and time over RTT, one line per loss rate, off-peak and peak."""
    path = out / "fig14_emulated.png"
    cc = p[p.policy == "cc"] if not p.empty else p
    if cc.empty:
        return plotting.empty(path, "Fig. 14")
    vars_ = list(dict.fromkeys(cc.variation))
    fig, axes = plt.subplots(2, len(vars_), figsize=(5.5 * len(vars_), 7), squeeze=False, sharey="row")
    for c, var in enumerate(vars_):
        for r, (col, label) in enumerate(METRICS):
            ax = axes[r][c]
            groups = list(cc[cc.variation == var].groupby("loss"))
            span = max(float(cc.rtt_ms.max() - cc.rtt_ms.min()), 10.0)
            for i, (loss, g) in enumerate(groups):
                g = g.sort_values("rtt_ms")
                ax.errorbar(_dodge(g.rtt_ms, i, len(groups), span), g[col], yerr=_yerr(g, col), marker="o", capsize=2,
                            label=f"loss {_pct(loss)}")
            ax.axhline(1.0, color="black", linewidth=0.8)
            ax.set_title(f"CC, {PEAK[var]}")
            ax.set_xlabel("RTT (ms)")
            ax.set_ylabel(label + " (TCP = 1)")
            ax.grid(alpha=0.3)
    return plotting.finish(fig, path, f"CC (active detection) vs baseline TCP: {setting(cfg)} (paper 000, Fig. 14)",
                           _caption(cc.runs, "Marks"))


def fig15(p: pd.DataFrame, cfg: Config, out: Path) -> Path:
    """Fig. 15: CC, PSM and BSD-50 over RTT at the Fig. 15 loss rate, peak (and off-peak)."""
    path = out / "fig15_policies.png"
    loss = cfg.fig15_loss
    d = p[np.isclose(p.loss, loss) & (p.policy != "cam")] if not p.empty else p
    if d.empty:
        return plotting.empty(path, "Fig. 15")
    pols = [x for x in ("cc", "ideal-psm", "bsd-50") if x in set(d.policy)]
    vars_ = list(dict.fromkeys(d.variation))[::-1]
    fig, axes = plt.subplots(2, len(vars_), figsize=(6 * len(vars_), 7), squeeze=False)
    for c, var in enumerate(vars_):
        dv = d[d.variation == var]
        rtts = sorted(set(dv.rtt_ms))
        for r, (col, label) in enumerate(METRICS):
            series = {pol: dv[dv.policy == pol].set_index("rtt_ms").loc[rtts] for pol in pols}
            _bars(axes[r][c], [f"{x:g} ms" for x in rtts], series, col, label + " (TCP = 1)")
            axes[r][c].set_title(PEAK[var])
    names = ", ".join(LABELS.get(x, x) for x in pols)
    return plotting.finish(fig, path, f"{names} over RTT: {setting(cfg, loss=loss)} (paper 000, Fig. 15)",
                           _caption(d[d.policy.isin(pols)].runs))


def fig16(p: pd.DataFrame, cfg: Config, out: Path) -> Path:
    """Fig. 16: none / gamma / 2var × active vs dynamic."""
    path = out / "fig16_variation.png"
    d = p[p.policy != "cam"] if not p.empty else p
    if d.empty:
        return plotting.empty(path, "Fig. 16")
    vars_ = list(dict.fromkeys(d.variation))
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, (col, label) in zip(axes, METRICS):
        series = {pol: d[d.policy == pol].set_index("variation").loc[vars_] for pol in dict.fromkeys(d.policy)}
        _bars(ax, [PEAK[v] for v in vars_], series, col, label + " (TCP = 1)")
    title = f"RTT variation: {setting(cfg, rtt_ms=cfg.fig16_rtt_ms, loss=cfg.fig15_loss)} (paper 000, Fig. 16)"
    return plotting.finish(fig, path, title, _caption(d.runs))


def fig17(p: pd.DataFrame, cfg: Config, out: Path) -> Path:
    """Fig. 17: one energy-aware client + n TCP clients, normalized to one TCP client alone on the
    same medium; a row per medium (the hops behind a shared link, the BSS with shared air)."""
    path = out / "fig17_competing.png"
    if p.empty:
        return plotting.empty(path, "Fig. 17")
    media = list(dict.fromkeys(p.medium)) if "medium" in p.columns else [None]
    fig, axes = plt.subplots(len(media), 2, figsize=(11, 4 * len(media)), squeeze=False)
    for row, m in zip(axes, media):
        pm = p if m is None else p[p.medium == m]
        ns = sorted(set(pm.competitors))
        for ax, (col, label) in zip(row, METRICS):
            series = {pol: pm[pm.policy == pol].set_index("competitors").loc[ns] for pol in dict.fromkeys(pm.policy)}
            _bars(ax, [str(n) for n in ns], series, col, label + " (1 = one TCP client alone)")
            ax.set_xlabel("competing TCP clients" + ("" if m is None else f" ({FIG17_MEDIUM_LABELS.get(m, m)})"))
    title = (f"One energy-aware client among plain TCP clients sharing the AP: "
             f"{setting(cfg, rtt_ms=cfg.fig16_rtt_ms, loss=cfg.fig15_loss)} (paper 000, Fig. 17)")
    return plotting.finish(fig, path, title, _caption(p.runs))


FIG17_MEDIUM_LABELS = {"hop": "hops behind a shared 20 Mb/s link", "wlan": "one 802.11a BSS, fair queueing at the AP"}
"""Axis labels of Fig. 17's media."""


def fig18(p: pd.DataFrame, cfg: Config, out: Path) -> Path:
    """Fig. 18: normalized energy and time over loss, one line per AP bandwidth, CC (solid) and PSM (dashed)."""
    path = out / "fig18_bandwidth.png"
    if p.empty:
        return plotting.empty(path, "Fig. 18")
    vars_ = list(dict.fromkeys(p.variation))
    fig, axes = plt.subplots(2, len(vars_), figsize=(5.5 * len(vars_), 7), squeeze=False, sharey="row")
    cmap = plt.get_cmap("viridis")
    rates = sorted(set(p.rate_mbps))
    for c, var in enumerate(vars_):
        for r, (col, label) in enumerate(METRICS):
            ax = axes[r][c]
            span = max(100 * float(p.loss.max() - p.loss.min()), 0.1)
            for i, rate in enumerate(rates):
                for j, (pol, style) in enumerate((("cc", "-o"), ("ideal-psm", "--s"))):
                    g = p[(p.variation == var) & (p.policy == pol) & np.isclose(p.rate_mbps, rate)].sort_values("loss")
                    if g.empty:
                        continue
                    x = _dodge(g.loss * 100, 2 * i + j, 2 * len(rates), span)
                    ax.errorbar(x, g[col], yerr=_yerr(g, col), fmt=style, capsize=2,
                                color=cmap(i / max(1, len(rates) - 1)), label=f"{LABELS.get(pol, pol)} {rate:g} Mb/s")
            ax.axhline(1.0, color="black", linewidth=0.8)
            ax.set_title(PEAK[var])
            ax.set_xlabel("loss (%)")
            ax.set_ylabel(label + " (TCP = 1)")
            ax.grid(alpha=0.3)
    rate_text = "–".join(f"{x:g}" for x in (rates[0], rates[-1])) if len(rates) > 1 else f"{rates[0]:g}"
    title = (f"AP bandwidth {rate_text} Mb/s: {cfg.file_bytes / 1e6:g} MB files, {cfg.fig16_rtt_ms:g} ms, loss "
             f"{', '.join(_pct(x) for x in sorted(set(p.loss)))}, "
             f"{stats.count([cfg.seeds])} (paper 000, Fig. 18)")
    return plotting.finish(fig, path, title, _caption(p[p.policy.isin(["cc", "ideal-psm"])].runs, "Marks"),
                           ncol=len(rates))


def fig13(p: pd.DataFrame, cfg: Config, order: list[str], out: Path) -> Path:
    """Fig. 13: the Internet sites as scenarios, CC and PSM, off-peak and peak."""
    path = out / "fig13_sites.png"
    d = p[p.policy != "cam"] if not p.empty else p
    if d.empty:
        return plotting.empty(path, "Fig. 13")
    sites = [s for s in order if s in set(d.site)]
    vars_ = list(dict.fromkeys(d.variation))[::-1]
    fig, axes = plt.subplots(2, len(vars_), figsize=(7 * len(vars_), 7), squeeze=False)
    for c, var in enumerate(vars_):
        dv = d[d.variation == var]
        for r, (col, label) in enumerate(METRICS):
            series = {pol: dv[dv.policy == pol].set_index("site").loc[sites] for pol in dict.fromkeys(dv.policy)}
            _bars(axes[r][c], [s.replace(".", ".\n", 1) for s in sites], series, col, label + " (TCP = 1)")
            axes[r][c].set_title(PEAK[var])
    title = (f"Internet sites as scenarios (base RTT, average window as receive buffer, {_pct(cfg.site_loss)} loss): "
             f"{setting(cfg)} (paper 000, Figs. 12/13)")
    return plotting.finish(fig, path, title, _caption(d.runs))


def crossover(p: pd.DataFrame, cfg: Config, out: Path) -> Path:
    """CC vs PSM normalized time over RTT (no loss, off-peak), and the crossover the paper predicts."""
    path = out / "crossover.png"
    hop_mbps = cfg.hop_rate_mbps
    d = p[np.isclose(p.rate_mbps, hop_mbps)] if not p.empty else p
    if d.empty:
        return plotting.empty(path, "CC vs PSM crossover")
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for ax, (col, label) in zip(axes, METRICS):
        for pol in ("cc", "ideal-psm"):
            g = d[d.policy == pol].sort_values("rtt_ms")
            ax.errorbar(g.rtt_ms, g[col], yerr=_yerr(g, col), fmt="-o", capsize=2, color=COLORS[pol], label=LABELS[pol])
        ax.axvline(75, color="black", linestyle=":", label="paper's crossover (75 ms)")
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xlabel("RTT (ms)")
        ax.set_ylabel(label + " (TCP = 1)")
        ax.grid(alpha=0.3)
    title = (f"CC vs PSM, {cfg.recv_buffer / 1024:.0f} KB window, no loss, off-peak: {setting(cfg, rate_mbps=hop_mbps)}")
    return plotting.finish(fig, path, title, _caption(d[d.policy.isin(["cc", "ideal-psm"])].runs, "Marks"))


# --- web browsing (seed Figs. 9/10) and fairness (seed Figs. 6–8) ---------------------------------

WEB_COLORS = {"tcp": "grey", "cc": "tab:green", "cc-nocache": "tab:olive", "oracle": "black"}
WEB_LABELS = {"tcp": "TCP", "cc": "CC", "cc-nocache": "CC, no RTT cache", "ideal-psm": "PSM (ideal)", "psm": "PSM (802.11)",
              "oracle": "oracle"}
GROUP_COLORS = {"cc": "tab:green", "tcp": "grey", "psm": "tab:blue"}
GROUP_LABELS = {"cc": "CC", "tcp": "TCP", "psm": "PSM (ideal)"}


def web_setting(cfg: Config) -> str:
    """What the web figures ran, from ``cfg``."""
    return (f"{cfg.web_pages} pages over {len(cfg.web_site_delays_ms)} sites, {cfg.hop_rate_mbps:g} Mb/s hop, "
            f"{stats.count([cfg.seeds])}")


def fig09(points: pd.DataFrame, cfg: Config, out: Path) -> Path:
    """Fig. 9: every policy's energy and page time over a browsing session, normalized to TCP;
    one row of panels per think-time setting (the configured one first)."""
    path = out / "fig09_web.png"
    if points is None or points.empty:
        return plotting.empty(path, "Fig. 9")
    main_scale = cfg.web_think_scale_s
    scales = list(dict.fromkeys([main_scale, *points.think_scale_s])) if "think_scale_s" in points.columns else [None]
    fig, axes = plt.subplots(len(scales), 2, figsize=(12, 4 * len(scales)), squeeze=False)
    for row, scale in zip(axes, scales):
        p = points if scale is None else points[np.isclose(points.think_scale_s, scale)]
        pols = list(p.policy)
        x = np.arange(len(pols))
        colors = [WEB_COLORS.get(q, COLORS.get(q, "tab:gray")) for q in pols]
        for ax, (col, label) in zip(row, (("energy_norm", "normalized energy"), ("time_norm", "normalized page time"))):
            ax.bar(x, p[col], color=colors, yerr=_yerr(p, col), capsize=2)
            for xi, v, top in zip(x, p[col], p[f"{col}_hi"]):
                ax.text(xi, max(v, top), f"{v:.2f}", ha="center", va="bottom", fontsize=7)
            ax.axhline(1.0, color="black", linewidth=0.8)
            ax.set_xticks(x, [WEB_LABELS.get(q, LABELS.get(q, q)) for q in pols], rotation=30, ha="right", fontsize=8)
            ax.set_ylabel(label + " (TCP = 1)")
            ax.grid(axis="y", alpha=0.3)
        what = "" if scale is None else f"\nPareto think time scale {scale:g} s" + (
            " (configured)" if scale == main_scale else " (sensitivity: the paper's ~54 s per page)")
        row[0].set_title("whole session: pages and think times" + what, fontsize=9)
        row[1].set_title("sum of page load times (the oracle keeps TCP's)", fontsize=9)
    return plotting.finish(fig, path, f"Web browsing: {web_setting(cfg)} (paper 000, Fig. 9)",
                           _caption(points.seeds) + " Numbers: the medians.")


def fig10(c: pd.DataFrame, cfg: Config, out: Path) -> Path:
    """Fig. 10: the RTT cache's saving by number of busy connections (0 = think time), with the
    paper's 13 % and 32 % at 3 and 4 and its ~10 % overall; CC's absolute energy per k beside it."""
    path = out / "fig10_rtt_cache.png"
    if c is None or c.empty:
        return plotting.empty(path, "Fig. 10")
    per_k = c[c.scope == "k"]
    agg = c[c.scope != "k"]
    labels = [str(int(k)) for k in per_k.k] + list(agg.scope)
    vals = list(per_k.cache_saving * 100) + list(agg.cache_saving * 100)
    fig, axes = plt.subplots(1, 2, figsize=(12, 4))
    ax = axes[0]
    x = np.arange(len(labels))
    ax.bar(x, vals, color=["tab:green"] * len(per_k) + ["darkgreen"] * len(agg), label="wattlab's saving (left)")
    seed_vals = {"3": 13, "4": 32, "downloads": 10}
    sx = [i for i, lab in enumerate(labels) if lab in seed_vals]
    ax.plot(sx, [seed_vals[labels[i]] for i in sx], "r*", markersize=12, label="paper's saving (left)")
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xticks(x, labels)
    ax.set_xlabel("busy connections (0 = think time)")
    ax.set_ylabel("saved by the RTT cache, % of CC-without-cache's energy")
    ax.grid(axis="y", alpha=0.3)
    ax = axes[1]
    xk = np.arange(len(per_k))
    ax.bar(xk - 0.2, per_k.cc_energy_j, 0.4, color=WEB_COLORS["cc"], label=WEB_LABELS["cc"] + " (right)")
    ax.bar(xk + 0.2, per_k.nocache_energy_j, 0.4, color=WEB_COLORS["cc-nocache"],
           label=WEB_LABELS["cc-nocache"] + " (right)")
    ax.set_xticks(xk, [str(int(k)) for k in per_k.k])
    ax.set_xlabel("busy connections (0 = think time)")
    ax.set_ylabel("energy per session (J)")
    ax.set_yscale("log")
    ax.grid(axis="y", alpha=0.3)
    caption = (f"Bars: medians over {stats.count(c.seeds)} (left: of the per-seed saving "
               "1 − E(cc)/E(cc-nocache)); no whiskers.")
    return plotting.finish(fig, path, f"The RTT cache by number of concurrent connections: {web_setting(cfg)} "
                                      "(paper 000, Fig. 10)", caption)


def fairness_setting(cfg: Config) -> str:
    """What the fairness figures ran, from ``cfg``."""
    return (f"{cfg.fairness_file_bytes / 1e6:g} MB per client, {cfg.fairness_bottleneck_mbps:g} Mb/s FIFO bottleneck "
            f"({cfg.fairness_bottleneck_queue} packets), {cfg.fairness_rtt_ms:g} ms, {stats.count([cfg.seeds])}")


def fig06(flows: pd.DataFrame, cfg: Config, out: Path) -> Path:
    """Fig. 6: every flow's goodput normalized to its run's mean, over the number of flows, CC
    alone and TCP alone side by side (points: flows of every seed; boxes: their spread)."""
    path = out / "fig06_fairness.png"
    d = flows[flows.figure == "fig6"] if flows is not None and len(flows) else pd.DataFrame()
    if d.empty:
        return plotting.empty(path, "Fig. 6")
    fig, axes = plt.subplots(1, 2, figsize=(12, 4), sharey=True)
    rng = np.random.default_rng(0)
    for ax, group in zip(axes, ("cc", "tcp")):
        g = d[d.pair == group]
        ns = sorted(set(g.flows))
        if ns:
            ax.boxplot([g[g.flows == n].normalized for n in ns], positions=ns, widths=0.5, whis=(0, 100),
                       showfliers=False)
            ax.scatter(g.flows + rng.uniform(-0.15, 0.15, len(g)), g.normalized, s=10, alpha=0.7,
                       color=GROUP_COLORS[group])
            ax.set_xticks(ns, [str(n) for n in ns])
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_title(f"{GROUP_LABELS[group]} flows alone")
        ax.set_xlabel("flows")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("goodput / mean goodput of the run")
    caption = "Points: every flow of every seed; boxes: quartiles and median of those flows; whiskers: min–max."
    return plotting.finish(fig, path, f"Fairness, n flows of one kind: {fairness_setting(cfg)} (paper 000, Fig. 6)",
                           caption)


def fig07(flows: pd.DataFrame, cfg: Config, out: Path) -> Path:
    """Fig. 7: median download time of each group in every two-group mix, by flows of each."""
    path = out / "fig07_friendliness.png"
    d = flows[flows.figure == "fig7"] if flows is not None and len(flows) else pd.DataFrame()
    if d.empty:
        return plotting.empty(path, "Fig. 7")
    pairs = list(dict.fromkeys(d.pair))
    fig, axes = plt.subplots(1, len(pairs), figsize=(4.5 * len(pairs), 4), squeeze=False, sharey=True)
    for ax, pair in zip(axes[0], pairs):
        g = d[d.pair == pair]
        sizes = sorted(set(g.of_each))
        groups = pair.split("+")
        x = np.arange(len(sizes))
        for i, grp in enumerate(groups):
            ivs = [stats.interval(g[(g.of_each == k) & (g.group == grp)].completion_time_s, stats.MEDIAN,
                                  stats.NON_NEGATIVE) for k in sizes]
            med = [iv.center for iv in ivs]
            ax.bar(x + (i - 0.5) * 0.4, med, 0.4, color=GROUP_COLORS[grp], label=GROUP_LABELS[grp],
                   yerr=stats.yerr(med, [iv.lo for iv in ivs], [iv.hi for iv in ivs]), capsize=2)
        ax.set_xticks(x, [f"{k} + {k}" for k in sizes])
        ax.set_xlabel("flows of each")
        ax.set_title(" with ".join(GROUP_LABELS[x_] for x_ in groups))
        ax.grid(axis="y", alpha=0.3)
    axes[0][0].set_ylabel("download time (s)")
    caption = ("Bars: median download time over every flow of the group and every seed "
               f"({stats.count([cfg.seeds])}); whiskers: min–max of those flows.")
    return plotting.finish(fig, path, f"Friendliness, two groups together: {fairness_setting(cfg)} (paper 000, Fig. 7)",
                           caption)


def fig08(runs: pd.DataFrame, cfg: Config, out: Path) -> Path:
    """Fig. 8: the bottleneck queue's mean (bars) and 95th percentile (markers) per mix; the
    same total number of flows of one group alone beside them where Fig. 6 ran it."""
    path = out / "fig08_queues.png"
    queue_pkts = cfg.fairness_bottleneck_queue
    if runs is None or runs.empty or not (runs.figure == "fig7").any():
        return plotting.empty(path, "Fig. 8")
    sizes = sorted(set(runs[runs.figure == "fig7"].of_each))
    fig, axes = plt.subplots(1, len(sizes), figsize=(5 * len(sizes), 4), squeeze=False, sharey=True)
    for ax, k in zip(axes[0], sizes):
        sel = runs[((runs.figure == "fig7") & (runs.of_each == k)) | ((runs.figure == "fig6") & (runs.flows == 2 * k))]
        med = sel.groupby("pair", sort=False)[["queue_mean_pkts", "queue_p95_pkts"]].median()
        order = [p for p in ("cc+tcp", "cc+psm", "tcp+psm", "cc", "tcp") if p in med.index]
        med = med.loc[order]
        x = np.arange(len(order))
        ax.bar(x, med.queue_mean_pkts, color=["tab:cyan"] * len(order), label="time-averaged queue")
        ax.plot(x, med.queue_p95_pkts, "kv", label="95th percentile of the queue")
        ax.axhline(queue_pkts, color="red", linestyle=":", label=f"queue limit ({queue_pkts})")
        ax.set_xticks(x, [p if "+" in p else f"{p} alone" for p in order], fontsize=8)
        ax.set_title(f"{k} flow{'s' if k != 1 else ''} of each ({2 * k} in all)")
        ax.grid(axis="y", alpha=0.3)
    axes[0][0].set_ylabel("bottleneck queue (packets)")
    caption = f"Bars and markers: medians over {stats.count([cfg.seeds])} of each run's value; no whiskers."
    return plotting.finish(fig, path, f"Queue fill of the shared bottleneck: {fairness_setting(cfg)} (paper 000, Fig. 8)",
                           caption)
