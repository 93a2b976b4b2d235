"""Paper 000's summary.md sections: the setup beside the paper's, each figure's numbers (medians
over seeds, from the points tables), the agent's counters, the outliers and what wattlab does not
model here. Every table row goes through ``wattlab.markdown`` (cells escaped)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ... import markdown as md
from ..framework import Info, run_heading
from . import claims, downloads, fairness, hypotheses, web
from .config import PEAK, SITES, Config


def setup(cfg: Config, info: Info) -> list[str]:
    """The run's size and the setup beside the paper's."""
    lines = [
        f"{run_heading(cfg, info)} ({info.workers} worker{'s' if info.workers != 1 else ''}); {cfg.seeds} seed(s) per "
        f"point (seeds {cfg.base_seed}…"
        f"{cfg.base_seed + cfg.seeds - 1}); files of {cfg.file_bytes / 1e6:g} MB.",
        "Energy and time are normalized to baseline TCP: the same scenario and seed with the WNIC always on "
        "(`cam`). Tables show the median over seeds (the paper reports the median of ≥ 3 runs) and the figures "
        "the seeds' range (min–max) around it; the CSV files also hold the mean and its 95 % confidence interval.",
        "",
        "## Setup",
        "",
        *md.table(("item", "paper", "wattlab"), [
            ("topology", "server —100 Mb/s— AP (FreeBSD DummyNet) —20 Mb/s— client",
             f"server —{cfg.wired_rate_mbps:g} Mb/s, one-way RTT/2 − {cfg.hop_delay_us:g} µs— ap ~~ `[[wireless]]` "
             f"{cfg.hop_rate_mbps:g} Mb/s, DummyNet-like (no MAC overhead), half duplex ~~ client"),
            ("queues", "DummyNet defaults", f"{cfg.wired_queue} packets on the wired link, {cfg.hop_queue} at each end of the hop"),
            ("TCP", "Linux 2.4 client, 64 KB socket buffers",
             f"{cfg.tcp_cc}, receive buffer {cfg.recv_buffer} B, MSS 1460, timestamps, delayed ACKs, initial window 2, "
             "min RTO 200 ms"),
            ("WNIC", "WaveLAN DSSS 1319/1425/1675/177 mW, 2 ms wake-up", "profile `wavelan-dsss` (same numbers)"),
            ("loss", "DummyNet random loss 0–1 %",
             f"Bernoulli on the AP→client direction of the hop: {', '.join(f'{100 * x:g} %' for x in cfg.losses)}"),
            ("peak hours", "uncorrelated gamma fitted to pings, 61 ms base (60–75 ms), scaled with the RTT; 2var doubles "
             "the deviation", f"gamma on the server→AP data path, shape {cfg.gamma_shape:g}, scale {cfg.gamma_scale_ms:g} ms "
             f"× RTT/{cfg.gamma_ref_rtt_ms:g} ms (at 60 ms: mean 5 ms, 99th percentile 15 ms); 2var doubles the scale; "
             "never reorders"),
            ("CC", "Netfilter module, active burst detection",
             "`power_save = \"cc\"` (docs/agent.md), `agent = { detection = \"active\" }` or `\"dynamic\"`"),
            ("PSM", "optimal emulation, 100 ms beacon, no wake-up cost", "`power_save = \"ideal-psm\"`, 100 ms"),
            ("BSD", "BSD-10/20/50/100", "`power_save = \"bsd-P\"`"),
            ("runs", "median of ≥ 3", f"median of {cfg.seeds} seeds, same seeds for every policy"),
            ("web (§IV-E)", "100 pages of the Alexa top sites, 558 objects, 2.79 MB, 5,400 s, Pareto think times, real Internet",
             f"`kind = \"web\"` flow: {cfg.web_pages} pages over {len(cfg.web_site_delays_ms)} synthetic sites "
             f"(one-way {', '.join(f'{d:g}' for d in cfg.web_site_delays_ms)} ms behind the AP, 100 Mb/s), "
             f"{cfg.web_max_connections} persistent connections per site, Pareto think shape {cfg.web_think_shape:g} scale "
             f"{cfg.web_think_scale_s:g} s (mean {cfg.web_think_shape * cfg.web_think_scale_s / (cfg.web_think_shape - 1):g} s)"
             + (f"; sensitivity with scale {', '.join(f'{x:g}' for x in cfg.web_think_sensitivity_scales_s)} s"
                if cfg.web_think_sensitivity_scales_s else "") + f"; policies {', '.join(cfg.web_policies)}"),
            ("fairness (§IV-D)", "ns-2, set-up not stated",
             f"server —100 Mb/s— router —{cfg.fairness_bottleneck_mbps:g} Mb/s FIFO, {cfg.fairness_bottleneck_queue} "
             f"packets— AP, one {cfg.hop_rate_mbps:g} Mb/s hop per client, {cfg.fairness_rtt_ms:g} ms, "
             f"{cfg.fairness_file_bytes / 1e6:g} MB per client, starts uniform in [0, {cfg.fairness_start_spread_ms:g} ms); "
             f"Fig. 6: n = 1…{cfg.fairness_max_flows}; Figs. 7/8: {', '.join(str(k) for k in cfg.fairness_mix_sizes)} of each"),
        ]),
        ""
    ]
    return lines


def sections(cfg: Config, pts: dict[str, pd.DataFrame], runs: pd.DataFrame) -> list[str]:
    """Every figure's section, the agent's counters and the outliers."""
    return ["", *_table1_section(cfg, pts["table1"]), "", *_fig14_section(pts["fig14"]), "",
            *_fig15_section(cfg, pts["fig14"]), "", *_simple_section("Fig. 16: RTT variation (60 ms, 0.1 %)",
                                                                      pts["fig16"], "variation", lambda v: PEAK[v]),
            "", *_fig17_section(pts["fig17"]),
            "", *_fig18_section(pts["fig18"]), "", *_sites_section(pts["sites"]), "",
            *_crossover_section(cfg, pts["crossover"]), "", *_window_section(pts["window"]), "",
            *_gap3_section(pts), "", *_reversion_section(pts["reversion"]), "",
            *_web_section(cfg, pts), "", *_fairness_section(cfg, pts), "",
            *_agents_section(pts), "", *_outliers_section(runs)]


def _f(x: float, nd: int = 2) -> str:
    return "" if x is None or pd.isna(x) else f"{x:.{nd}f}"


def _ne(r) -> str:
    """'energy / time' normalized, medians."""
    return f"{r.norm_energy:.2f} / {r.norm_time:.2f}"


def _table1_section(cfg: Config, t1: pd.DataFrame) -> list[str]:
    from .seed import TABLE1

    out = ["## Table I: CC's absolute time and energy (off-peak)", "",
           *md.header("RTT", "paper (ns-2 wired)", "paper (ns-2 wireless)", f"wattlab CC, {100 * cfg.table1_loss:g} % loss",
                      f"wattlab TCP, {100 * cfg.table1_loss:g} %", f"wattlab CC, {100 * cfg.fig15_loss:g} %",
                      f"wattlab TCP, {100 * cfg.fig15_loss:g} %")]
    if t1.empty:
        return out + [md.row("(not run)", *[""] * 6)]
    for rtt, ref in TABLE1.items():
        cells = []
        for loss in (cfg.table1_loss, cfg.fig15_loss):
            r = claims._pick(t1, loss=loss, rtt_ms=rtt, policy="cc")
            cells += ["" if r is None else f"{r.time_s:.2f} s, {r.energy_j:.2f} J",
                      "" if r is None else f"{r.base_time_s:.2f} s, {r.base_energy_j:.2f} J"]
        out.append(md.row(f"{rtt} ms", f"{ref['time_wired']} s, {ref['energy_wired']} J",
                          f"{ref['time_wireless']} s, {ref['energy_wireless']} J", *cells))
    return out


def _fig14_section(p: pd.DataFrame) -> list[str]:
    out = ["## Fig. 14: CC vs baseline TCP over RTT and loss", "",
           "Normalized energy / normalized time (medians); `rev` = share of runs that reverted to plain TCP.", ""]
    cc = p[p.policy == "cc"] if not p.empty else p
    if cc.empty:
        return out + ["(not run)"]
    losses = sorted(set(cc.loss))
    out += md.header("period", "RTT", *(f"loss {100 * x:g} %" for x in losses))
    for var in dict.fromkeys(cc.variation):
        for rtt in sorted(set(cc.rtt_ms)):
            cells = []
            for loss in losses:
                r = claims._pick(cc, variation=var, rtt_ms=rtt, loss=loss)
                cells.append("" if r is None else f"{_ne(r)} (rev {r.reverted:.2f})")
            out.append(md.row(PEAK[var], f"{rtt:g} ms", *cells))
    return out


def _fig15_section(cfg: Config, p: pd.DataFrame) -> list[str]:
    out = [f"## Fig. 15: every policy at {100 * cfg.fig15_loss:g} % loss", "",
           "Normalized energy / normalized time (medians).", ""]
    d = p[(p.loss == cfg.fig15_loss) & (p.policy != "cam")] if not p.empty else p
    if d.empty:
        return out + ["(not run)"]
    pols = list(dict.fromkeys(d.policy))
    out += md.header("period", "RTT", *pols)
    for var in dict.fromkeys(d.variation):
        for rtt in sorted(set(d.rtt_ms)):
            cells = [(lambda r: "" if r is None else _ne(r))(claims._pick(d, variation=var, rtt_ms=rtt, policy=pol))
                     for pol in pols]
            out.append(md.row(PEAK[var], f"{rtt:g} ms", *cells))
    return out


def _simple_section(title: str, p: pd.DataFrame, key: str, fmt, note: str = "") -> list[str]:
    out = [f"## {title}", "", *([note, ""] if note else []),
           "Normalized energy / normalized time (medians), packets lost asleep and timeouts per run (means).", ""]
    if p.empty:
        return out + ["(not run)"]
    pols = list(dict.fromkeys(p.policy))
    out += md.header(key, *pols)
    for k in dict.fromkeys(p[key]):
        cells = []
        for pol in pols:
            r = claims._pick(p, **{key: k, "policy": pol})
            cells.append("" if r is None else f"{_ne(r)} (asleep {r.dropped_asleep:.0f}, RTO {r.timeouts:.1f})")
        out.append(md.row(fmt(k), *cells))
    return out


FIG17_MEDIA = {
    "hop": "a `[[wireless]]` hop per client behind a shared 20 Mb/s FIFO link into the AP",
    "wlan": "every client a station of one 802.11a BSS (shared air; the AP's fair queueing between power-saving "
            "and regular stations)",
}
"""How each Fig. 17 medium connects the clients."""


def _fig17_section(p: pd.DataFrame) -> list[str]:
    """Fig. 17 per medium (the first reproduction's hops, and the BSS with shared air)."""
    if p.empty or "medium" not in p.columns:
        return _simple_section("Fig. 17: competing clients (normalized to one TCP client alone)", p, "competitors", str)
    out = []
    for m in dict.fromkeys(p.medium):
        out += _simple_section(f"Fig. 17 ({m}): competing clients (normalized to one TCP client alone on the same "
                               f"medium)", p[p.medium == m], "competitors", str, note=f"Clients: {FIG17_MEDIA[m]}.")
        out.append("")
    return out[:-1]


def _fig18_section(p: pd.DataFrame) -> list[str]:
    out = ["## Fig. 18: AP bandwidth (60 ms)", "", "Normalized energy / normalized time (medians).", ""]
    if p.empty:
        return out + ["(not run)"]
    rates = sorted(set(p.rate_mbps))
    out += md.header("period", "loss", "policy", *(f"{r:g} Mb/s" for r in rates))
    for var in dict.fromkeys(p.variation):
        for loss in sorted(set(p.loss)):
            for pol in (x for x in dict.fromkeys(p.policy) if x != "cam"):
                cells = [(lambda r: "" if r is None else _ne(r))(claims._pick(p, variation=var, loss=loss, policy=pol,
                                                                               rate_mbps=rate)) for rate in rates]
                out.append(md.row(PEAK[var], f"{100 * loss:g} %", pol, *cells))
    return out


def _sites_section(p: pd.DataFrame) -> list[str]:
    out = ["## Figs. 12/13: the Internet sites as scenarios", "",
           "Base RTT and the paper's *average* window (as the receive buffer), no loss. Normalized energy / time "
           "(medians).", "", *md.header("site", "RTT", "window", "CC off-peak", "PSM off-peak", "CC peak", "PSM peak")]
    if p.empty:
        return out + [md.row("(not run)", *[""] * 6)]
    for s in SITES:
        if s.name not in set(p.site):
            continue
        cells = []
        for var in ("none", "gamma"):
            for pol in ("cc", "ideal-psm"):
                r = claims._pick(p, site=s.name, variation=var, policy=pol)
                cells.append("" if r is None else _ne(r))
        out.append(md.row(s.name, f"{s.rtt_ms:g} ms", f"{s.window_kb:g} KB", *cells))
    return out


def _crossover_section(cfg: Config, p: pd.DataFrame) -> list[str]:
    out = ["## CC vs PSM over RTT (64 KB window, no loss, off-peak)", "",
           *md.header("rate", "RTT", "TCP time", "CC energy / time", "PSM energy / time")]
    if p.empty:
        return out + [md.row("(not run)", *[""] * 4)]
    for (rate, rtt), g in p.groupby(["rate_mbps", "rtt_ms"]):
        cc = claims._pick(g, policy="cc")
        psm = claims._pick(g, policy="ideal-psm")
        base = cc if cc is not None else psm
        out.append(md.row(f"{rate:g} Mb/s", f"{rtt:g} ms", f"{base.base_time_s:.2f} s", "" if cc is None else _ne(cc),
                          "" if psm is None else _ne(psm)))
    return out


def _window_section(p: pd.DataFrame) -> list[str]:
    out = ["## Sensitivity: the RTT × loss grid with smaller windows (CC)", "",
           "Averages over RTTs and loss rates of the normalized medians (the paper calls 32 KB a typical window).", "",
           *md.header("window", "period", "saved", "time added", "reverted (mean per run)")]
    cc = p[p.policy == "cc"] if not p.empty else p
    if cc.empty:
        return out + [md.row("(not run)", *[""] * 4)]
    for (buf, var), g in cc.groupby(["recv_buffer", "variation"]):
        out.append(md.row(f"{buf} B", PEAK[var], f"{100 * g.saving.mean():.0f} %", f"{100 * g.slowdown.mean():+.0f} %",
                          f"{g.reverted.mean():.2f}"))
    return out


def _gap3_section(pts: dict[str, pd.DataFrame]) -> list[str]:
    """Issue 32 gap 3: the sentences generated from the window sweep and the AP weight sweep,
    with the weight sweep's table."""
    out = ["## Issue 32 gap 3: what explains the averages, Fig. 17 and the web gap", "",
           "A component's gap is |wattlab − paper| in percentage points; a variant explains 1 − its gap ÷ the 64 KB "
           "baseline's (window_gap.csv, fig17_weight_gap.csv). The least explained component decides the word.", "",
           "Windows below 64 KB (the emulated averages, Fig. 14):", ""]
    sentences = hypotheses.window_conclusions(pts["window_gap"])
    out += [f"- {x}" for x in sentences] or ["- (no smaller window run)"]
    t = pts["fig17_weight_gap"]
    out += ["", "The AP's fair-queueing weight of the power-saving class (Fig. 17, `wlan` medium; CC normalized "
            "energy is the same run at every weight):", "", f"- {hypotheses.weights_conclusion(t)}"]
    if not t.empty:
        ns = sorted(set(t.competitors))
        out += ["", *md.header("PSM weight", *(f"n = {n}" for n in ns))]
        for w, g in t.groupby("weight"):
            cells = [claims._pick(g, competitors=n) for n in ns]
            out.append(md.row(hypotheses.weight_name(w), *("" if r is None else f"{r.psm_energy:.2f} E / {r.psm_time:.2f} T"
                                                 for r in cells)))
        cc = t.drop_duplicates("competitors").set_index("competitors")
        out.append(md.row("CC (any)", *(f"{cc.loc[n].cc_energy:.2f} E / {cc.loc[n].cc_time:.2f} T" for n in ns)))
    out += ["", "Single-server pages on fixed-RTT, loss-free paths (the web claims, Fig. 11 per site; the "
            "web flow's `third_party` pool, web_sites.csv, web_multiserver_gap.csv; to a paper range the gap is the "
            "distance outside it):", ""]
    ms = hypotheses.multiserver_conclusions(pts.get("web_multiserver_gap"), pts.get("web_sites"))
    out += [f"- {x}" for x in ms] or ["- (the multi-server session was not run: `web_third_party_delays_ms` is empty)"]
    sites = pts.get("web_sites")
    if sites is not None and not sites.empty and "model" in sites.columns:
        out += ["", *md.header("session", "site", "CC saved", "oracle saved", "CC time", "CC w/o cache saved")]
        for r in sites.itertuples():
            out.append(md.row(r.model, r.site, f"{100 * r.cc_saving:.0f} %", f"{100 * r.oracle_saving:.0f} %",
                              f"{100 * r.cc_slowdown:+.1f} %", f"{100 * r.nocache_saving:.0f} %"))
    return out


def _reversion_section(p: pd.DataFrame) -> list[str]:
    out = ["## Sensitivity: CC without the reversion on loss", "",
           "The lossy points of the RTT × loss grid with `lossy_windows_to_revert` never reached (`cc-norevert`) "
           "beside the paper's reading (`cc`, 3 windows). Normalized energy / time (medians), mean `reverted` and "
           "packets lost asleep per run.", "",
           *md.header("period", "RTT", "loss", "cc", "cc-norevert")]
    if p.empty:
        return out + [md.row("(not run)", *[""] * 4)]
    for (var, rtt, loss), g in p.groupby(["variation", "rtt_ms", "loss"], sort=False):
        cells = []
        for pol in ("cc", "cc-norevert"):
            r = claims._pick(g, policy=pol)
            cells.append("" if r is None else f"{_ne(r)} (rev {r.reverted:.2f}, asleep {r.dropped_asleep:.0f})")
        out.append(md.row(PEAK[var], f"{rtt:g} ms", f"{100 * loss:g} %", *cells))
    return out


def _web_section(cfg: Config, pts: dict[str, pd.DataFrame]) -> list[str]:
    wp = pts.get("web_points")
    out = ["## Figs. 9–11: web browsing", ""]
    if wp is None or wp.empty:
        return out + ["(not run)"]
    runs = web.main_think(pts.get("web_runs"), cfg)
    tcp = runs[runs.policy == "tcp"]
    out += [f"{cfg.web_pages} pages per session, {len(tcp)} sessions (seeds); per session (medians over seeds): "
            f"{tcp.objects.median():.0f} objects, {tcp.bytes.median() / 1e6:.2f} MB, "
            f"{tcp.session_s.median():.0f} s in all of which {tcp.download_s.median():.1f} s loading pages "
            f"(paper: 558 objects, 2.79 MB, 5,400 s). Energy is the whole session's (pages and think times); "
            "time is the sum of the page load times (the paper's transmission time). Both are normalized to TCP "
            "(always on) per seed, then the median over seeds; the oracle is the TCP run's `oracle` meter.", ""]
    for scale, g in wp.groupby("think_scale_s", sort=False):
        tag = "configured" if np.isclose(scale, cfg.web_think_scale_s) else "sensitivity"
        out += [f"Think times: Pareto shape {cfg.web_think_shape:g}, scale {scale:g} s ({tag}).", "",
                *md.header("policy", "energy", "page time", "energy (J)", "page time (s)", "session (s)", "CC sleeps",
                           "lost asleep")]
        for r in g.itertuples():
            out.append(md.row(r.policy, f"{r.energy_norm:.3f}", f"{r.time_norm:.3f}", f"{r.energy_j:.1f}", f"{r.download_s:.1f}",
                              f"{r.session_s:.0f}", _f(r.agent_sleeps, 0), _f(r.agent_dropped_asleep, 0)))
        out.append("")
    conc = web.main_think(pts.get("web_concurrency"), cfg)
    out += ["### Fig. 10: the RTT cache by number of busy connections", "",
            "k = connections with a request outstanding (0 = think time). Energy medians over seeds (J per session); "
            "`cache saving` = 1 − E(cc) / E(cc-nocache) at that k (median of per-seed ratios); `CC vs TCP` = 1 − "
            "E(cc) / E(tcp). Paper: 13 % at 3, 32 % at 4, ≈ 10 % overall.", "",
            *md.header("k", "time (s)", "TCP (J)", "CC without cache (J)", "CC (J)", "cache saving", "CC vs TCP")]
    for r in conc.itertuples():
        k = str(int(r.k)) if r.scope == "k" else ("all ≥ 1 (pages)" if r.scope == "downloads" else "session")
        out.append(md.row(k, f"{r.cc_time_s:.1f}", _f(r.tcp_energy_j, 2), f"{r.nocache_energy_j:.2f}", f"{r.cc_energy_j:.2f}",
                          f"{100 * r.cache_saving:.0f} %", f"{100 * r.cc_saving_vs_tcp:.0f} %"))
    return out


def _fairness_section(cfg: Config, pts: dict[str, pd.DataFrame]) -> list[str]:
    runs, flows = pts.get("fairness_runs"), pts.get("fairness_flows")
    out = ["## Figs. 6–8: fairness and friendliness", ""]
    if runs is None or runs.empty:
        return out + ["(not run)"]
    out += [f"n clients download {cfg.fairness_file_bytes / 1e6:g} MB each through one {cfg.fairness_bottleneck_mbps:g} Mb/s "
            f"FIFO bottleneck ({cfg.fairness_bottleneck_queue} packets) into the AP, {cfg.fairness_rtt_ms:g} ms RTT, each on "
            f"its own {cfg.hop_rate_mbps:g} Mb/s hop, starting within {cfg.fairness_start_spread_ms:g} ms. Goodput is normalized "
            "to the mean of its run (paper's Fig. 6). Medians over seeds.", "",
            "### Fig. 6: n flows of one kind", "",
            *md.header("n", "CC std. dev.", "TCP std. dev.", "CC spread (max − min)", "TCP spread", "CC Jain", "TCP Jain",
                       "CC queue", "TCP queue")]
    f6 = fairness.fig6_points(runs)
    for n in sorted(set(f6.flows)):
        c, t = claims._pick(f6, pair="cc", flows=n), claims._pick(f6, pair="tcp", flows=n)
        cell = lambda r, col, nd=2: "" if r is None else _f(getattr(r, col), nd)  # noqa: E731
        out.append(md.row(n, cell(c, 'goodput_sd'), cell(t, 'goodput_sd'), cell(c, 'spread'), cell(t, 'spread'),
                          cell(c, 'jain', 3), cell(t, 'jain', 3), cell(c, 'queue_mean_pkts', 0), cell(t, 'queue_mean_pkts', 0)))
    f7 = fairness.fig7_points(flows)
    out += ["", "### Fig. 7: two kinds together (k of each)", "",
            "Median download time per group (s), median normalized goodput, mean timeouts per flow.", "",
            *md.header("mix", "k", "group A", "time", "goodput", "timeouts", "group B", "time", "goodput", "timeouts")]
    for (pair, k), g in f7.groupby(["pair", "of_each"], sort=False):
        a, b = pair.split("+")
        ra, rb = claims._pick(g, group=a), claims._pick(g, group=b)
        out.append(md.row(pair, k, a, f"{ra.completion_time_s:.2f}", f"{ra.normalized:.2f}", f"{ra.timeouts:.1f}", b,
                          f"{rb.completion_time_s:.2f}", f"{rb.normalized:.2f}", f"{rb.timeouts:.1f}"))
    out += ["", "### Fig. 8: bottleneck queue (packets, time average and 95th percentile)", "",
            *md.header("mix", "k of each", "mean", "p95", "Jain")]
    q = runs[runs.figure == "fig7"].groupby(["pair", "of_each"], sort=False)[["queue_mean_pkts", "queue_p95_pkts", "jain"]].median()
    for (pair, k), r in q.iterrows():
        out.append(md.row(pair, k, f"{r.queue_mean_pkts:.0f}", f"{r.queue_p95_pkts:.0f}", f"{r.jain:.3f}"))
    return out


CC_POLICIES = ("cc", "cc-dynamic", "cc-norevert")
"""Policies run by the agent."""

AGENT_COLUMNS = ("bursts", "probes", "probes_lost", "late_packets", "recoveries", "reverted", "switched_to_dynamic",
                 "dropped_asleep", "sleeps", "timeouts", "retransmits")


def _agents_section(pts: dict[str, pd.DataFrame]) -> list[str]:
    out = ["## agents: the CC agent's counters (means per run)", "",
           "From each run's summary `agents` section: windows shaped (`bursts`), window probes sent and lost, late "
           "packets after a probe response, loss repairs (`recoveries`), reversions to plain TCP, switches to the "
           "dynamic threshold, packets that reached the sleeping radio (`dropped_asleep`), sleeps; plus the download's "
           "TCP timeouts and retransmitted segments.", "",
           *md.header("experiment", "point", "policy", *AGENT_COLUMNS)]
    keys = {"fig14": ("variation", "rtt_ms", "loss"), "fig16": ("variation",), "fig17": ("medium", "competitors"),
            "fig18": ("variation", "rate_mbps", "loss"), "sites": ("site", "variation"), "crossover": ("rate_mbps", "rtt_ms"),
            "reversion": ("variation", "rtt_ms", "loss")}
    for name, key in keys.items():
        p = pts.get(name)
        if p is None or p.empty:
            continue
        for r in p[p.policy.isin(CC_POLICIES)].itertuples():
            point = ", ".join(_fmt_key(k, getattr(r, k)) for k in key)
            out.append(md.row(name, point, r.policy, *(_f(getattr(r, c), 1) for c in AGENT_COLUMNS)))
    return out


OUTLIER_SLOWDOWN = 3.0
"""A run at least this many times slower than its baseline is listed in summary.md."""


def _outliers_section(runs: pd.DataFrame | None) -> list[str]:
    out = ["## Outliers: CC runs at least 3× slower than their baseline", "",
           "Medians hide them; means and CIs in the CSV files include them. (PSM's slowdowns follow from its beacon "
           "and are in the tables above.)", ""]
    if runs is None or runs.empty:
        return out + ["(none)"]
    bad = runs[(runs.norm_time >= OUTLIER_SLOWDOWN) & runs.policy.isin(CC_POLICIES)]
    bad = bad.drop_duplicates(list(downloads.SETTING_COLUMNS) + ["seed"])
    if bad.empty:
        return out + ["(none)"]
    out += md.header("experiment", "policy", "RTT", "loss", "variation", "rate", "window", "competitors", "seed", "time",
                     "TCP time", "timeouts", "recoveries", "dropped asleep", "reverted")
    for r in bad.sort_values("norm_time", ascending=False).itertuples():
        out.append(md.row(r.experiment, r.policy, f"{r.rtt_ms:g} ms", f"{100 * r.loss:g} %", PEAK[r.variation],
                          f"{r.rate_mbps:g} Mb/s", f"{r.recv_buffer} B", r.competitors, r.seed, f"{r.time_s:.1f} s",
                          f"{r.base_time_s:.1f} s", r.timeouts, r.recoveries, r.dropped_asleep, r.reverted))
    return out


def _fmt_key(k: str, v) -> str:
    if k == "variation":
        return PEAK[v]
    if k == "loss":
        return f"{100 * v:g} %"
    if k == "rtt_ms":
        return f"{v:g} ms"
    if k == "rate_mbps":
        return f"{v:g} Mb/s"
    if k == "competitors":
        return f"{v} competitors"
    return str(v)


def limits() -> list[str]:
    """What the reproduction does not model."""
    return [
        "## What wattlab does not model here",
        "",
        "- **The paper's AP** (Fig. 17): the `wlan` medium shares the air and the AP's buffer with fair queueing "
        "between power-saving and regular stations (equal weights: the paper gives none); its 802.11a BSS at 48 Mb/s "
        "carries about the paper's 20 Mb/s. The `hop` medium keeps the first reproduction's setting (a FIFO 20 Mb/s "
        "link into the AP, then a hop per client).",
        "- **The paper's ns-2 wireless runs** (Table I, 'wireless' column): only the wired/DummyNet column is simulated.",
        "- **Real Internet paths** (Fig. 13): each site is a fixed base RTT, its average window as the receive buffer and "
        "the same gamma jitter model; no cross traffic, no loss, no window or route changes within a download.",
        "- **The paper's web sites** (Figs. 9–11): 100 pages of the Alexa top 20 sites and their sub-sites on the real "
        "Internet, peak and off-peak; here a synthetic session over 3 sites with fixed RTTs (`kind = \"web\"`), every "
        "object of a page from the page's site (the full run repeats it on multi-server pages: a pool of third-party "
        "servers with their own RTTs, Issue 32 gap 3 above), no peak-hour jitter, no DNS look-ups, and think times much "
        "shorter than the paper's (its parameters are illegible); Fig. 11 per site covers the 3 synthetic sites "
        "(web_sites.csv), not the paper's best and worst five of 40 real ones.",
        "- **PSM's beacon reception in think time**: `ideal-psm` wakes only when something is held, for free.",
        "- **The paper's ns-2 fairness set-up** (Figs. 6–8): a FIFO drop-tail dumbbell of our choosing, no WFQ.",
    ]
