"""Reproduction of seed 000: Yan et al., client-centered ("CC") energy saving for a WLAN client's
TCP downloads (notes/000.md; the seed's §IV-F, large file downloads).

``run(cfg, out)`` simulates the seed's DummyNet testbed (``scenario.py``) for every experiment
of ``downloads.EXPERIMENTS`` and writes:

- ``runs.csv``: every simulation (all experiments), normalized to its baseline TCP run;
- ``<experiment>_points.csv``: per point, medians over seeds, means with 95 % CIs, and the
  agent's counters;
- ``fig13_sites.png``, ``fig14_emulated.png``, ``fig15_policies.png``, ``fig16_variation.png``,
  ``fig17_competing.png``, ``fig18_bandwidth.png``, ``crossover.png``;
- ``claims.csv`` and ``summary.md``: the seed's numbers beside wattlab's, a verdict and the
  likely reason for each gap;
- ``config.json``: every parameter.

Adding an experiment family (the web-browsing Figs. 9–11 will be ``web.py``): give it a
function ``(cfg, sims) -> (runs, points)`` in an ``EXPERIMENTS``-like dict, add its points file
to ``OUTPUT_FILES``, its claims to ``claims.all_claims`` and its figure to ``_figures``.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from rich.console import Console

from .. import runner
from . import claims, downloads, figures
from .config import PEAK, SITES, Config, policy_settings

__all__ = ["Config", "Result", "run", "summary_markdown", "OUTPUT_FILES", "policy_settings"]

FIGURES = (
    "fig13_sites.png",
    "fig14_emulated.png",
    "fig15_policies.png",
    "fig16_variation.png",
    "fig17_competing.png",
    "fig18_bandwidth.png",
    "crossover.png",
)

OUTPUT_FILES = (
    "config.json",
    "runs.csv",
    *(f"{name}_points.csv" for name in downloads.EXPERIMENTS),
    "claims.csv",
    "summary.md",
    *FIGURES,
)
"""Every file ``run`` writes (it refuses to replace any of them unless told to)."""


@dataclass
class Result:
    """What one reproduction produced."""

    points: dict[str, pd.DataFrame]
    """Per experiment: medians, means and CIs per point."""
    runs: pd.DataFrame
    """Every simulation of every experiment (a shared setting appears once per experiment)."""
    claims: list[claims.Claim]
    """The verdict on each claim."""
    summary_md: str
    """The generated summary (also in summary.md)."""
    wall_time_s: float
    """Wall-clock time of the simulations and the analysis."""
    simulations: int
    """Distinct simulations run."""
    files: list[Path]
    """Files written."""


def run(cfg: Config, out: Path, workers: int | None = None, console: Console | None = None,
        overwrite: bool = False) -> Result:
    """Run the whole reproduction and write its files into ``out``."""
    cfg.check()
    runner.prepare_out_dir(out, OUTPUT_FILES, overwrite)
    workers = workers or runner.default_jobs()
    t0 = time.perf_counter()
    sims = downloads.Sims(cfg, workers, console)
    runs_by, pts = {}, {}
    for name, experiment in downloads.EXPERIMENTS.items():
        runs_by[name], pts[name] = experiment(cfg, sims)
    verdicts = claims.all_claims(pts, cfg)
    runs = pd.concat([r for r in runs_by.values() if not r.empty], ignore_index=True)

    files = [out / "config.json"]
    files[0].write_text(json.dumps(cfg.as_dict(), indent=2) + "\n", encoding="utf-8")
    runs.to_csv(out / "runs.csv", index=False)
    files.append(out / "runs.csv")
    for name, p in pts.items():
        p.to_csv(out / f"{name}_points.csv", index=False)
        files.append(out / f"{name}_points.csv")
    claims.claims_frame(verdicts).to_csv(out / "claims.csv", index=False)
    files.append(out / "claims.csv")
    files += _figures(cfg, pts, out)
    wall = time.perf_counter() - t0
    text = summary_markdown(cfg, pts, verdicts, wall, sims.simulations, workers, runs)
    (out / "summary.md").write_text(text, encoding="utf-8")
    files.append(out / "summary.md")
    return Result(pts, runs, verdicts, text, wall, sims.simulations, files)


def _figures(cfg: Config, pts: dict[str, pd.DataFrame], out: Path) -> list[Path]:
    return [
        figures.fig13(pts["sites"], [s.name for s in SITES], out),
        figures.fig14(pts["fig14"], out),
        figures.fig15(pts["fig14"], cfg.fig15_loss, out),
        figures.fig16(pts["fig16"], out),
        figures.fig17(pts["fig17"], out),
        figures.fig18(pts["fig18"], out),
        figures.crossover(pts["crossover"], cfg.hop_rate_mbps, out),
    ]


# --- summary.md ---------------------------------------------------------------------------------

def _f(x: float, nd: int = 2) -> str:
    return "" if x is None or pd.isna(x) else f"{x:.{nd}f}"


def _ne(r) -> str:
    """'energy / time' normalized, medians."""
    return f"{r.norm_energy:.2f} / {r.norm_time:.2f}"


def summary_markdown(cfg: Config, pts: dict[str, pd.DataFrame], verdicts: list[claims.Claim], wall_s: float,
                     n_sims: int, workers: int, runs: pd.DataFrame | None = None) -> str:
    """The generated summary: setup, verdicts, then each figure's numbers and the agent's counters."""
    counts = {v: sum(c.verdict == v for c in verdicts) for v in (claims.AGREES, claims.PARTLY, claims.DISAGREES, claims.UNTESTED)}
    lines = [
        "# Seed 000 (Yan et al.): client-centered energy saving, reproduced by wattlab",
        "",
        f"{'Quick preset' if cfg.quick else 'Full run'}: {n_sims} simulations in {wall_s:.1f} s wall time "
        f"({workers} worker{'s' if workers != 1 else ''}); {cfg.seeds} seed(s) per point (seeds {cfg.base_seed}…"
        f"{cfg.base_seed + cfg.seeds - 1}); files of {cfg.file_bytes / 1e6:g} MB.",
        "Energy and time are normalized to baseline TCP: the same scenario and seed with the WNIC always on "
        "(`cam`). Tables show the median over seeds (the seed reports the median of ≥ 3 runs); the CSV files "
        "also hold the mean and its 95 % confidence interval.",
        "",
        "## Setup",
        "",
        "| item | seed | wattlab |",
        "|---|---|---|",
        f"| topology | server —100 Mb/s— AP (FreeBSD DummyNet) —20 Mb/s— client | server —{cfg.wired_rate_mbps:g} Mb/s, "
        f"one-way RTT/2 − {cfg.hop_delay_us:g} µs— ap ~~ `[[wireless]]` {cfg.hop_rate_mbps:g} Mb/s, DummyNet-like "
        "(no MAC overhead), half duplex ~~ client |",
        f"| queues | DummyNet defaults | {cfg.wired_queue} packets on the wired link, {cfg.hop_queue} at each end of the hop |",
        f"| TCP | Linux 2.4 client, 64 KB socket buffers | {cfg.tcp_cc}, receive buffer {cfg.recv_buffer} B, MSS 1460, "
        "timestamps, delayed ACKs, initial window 2, min RTO 200 ms |",
        "| WNIC | WaveLAN DSSS 1319/1425/1675/177 mW, 2 ms wake-up | profile `wavelan-dsss` (same numbers) |",
        f"| loss | DummyNet random loss 0–1 % | Bernoulli on the AP→client direction of the hop: "
        f"{', '.join(f'{100 * x:g} %' for x in cfg.losses)} |",
        f"| peak hours | uncorrelated gamma fitted to pings, 61 ms base (60–75 ms), scaled with the RTT; 2var "
        f"doubles the deviation | gamma on the server→AP data path, shape {cfg.gamma_shape:g}, scale "
        f"{cfg.gamma_scale_ms:g} ms × RTT/{cfg.gamma_ref_rtt_ms:g} ms (at 60 ms: mean 5 ms, 99th percentile 15 ms); "
        "2var doubles the scale; never reorders |",
        "| CC | Netfilter module, active burst detection | `power_save = \"cc\"` (docs/agent.md), "
        "`agent = { detection = \"active\" }` or `\"dynamic\"` |",
        "| PSM | optimal emulation, 100 ms beacon, no wake-up cost | `power_save = \"ideal-psm\"`, 100 ms |",
        "| BSD | BSD-10/20/50/100 | `power_save = \"bsd-P\"` |",
        f"| runs | median of ≥ 3 | median of {cfg.seeds} seeds, same seeds for every policy |",
        "",
        "## Verdicts",
        "",
        f"{counts[claims.AGREES]} agree, {counts[claims.PARTLY]} partly, {counts[claims.DISAGREES]} disagree, "
        f"{counts[claims.UNTESTED]} not tested.",
        "",
        "| claim | seed | wattlab | verdict | likely reason for the gap |",
        "|---|---|---|---|---|",
    ]
    for c in verdicts:
        lines.append(f"| **{c.id}**: {c.claim} | {c.seed} | {c.wattlab} | **{c.verdict}** | {c.reason} |")
    lines += ["", *_table1_section(cfg, pts["table1"]), "", *_fig14_section(pts["fig14"]), "",
              *_fig15_section(cfg, pts["fig14"]), "", *_simple_section("Fig. 16: RTT variation (60 ms, 0.1 %)",
                                                                        pts["fig16"], "variation", lambda v: PEAK[v]),
              "", *_simple_section("Fig. 17: competing clients (normalized to one TCP client alone)", pts["fig17"],
                                   "competitors", str),
              "", *_fig18_section(pts["fig18"]), "", *_sites_section(pts["sites"]), "",
              *_crossover_section(cfg, pts["crossover"]), "", *_window_section(pts["window"]), "",
              *_reversion_section(pts["reversion"]), "",
              *_agents_section(pts), "", *_outliers_section(runs), "", *_limits(), ""]
    return "\n".join(lines)


def _table1_section(cfg: Config, t1: pd.DataFrame) -> list[str]:
    from .seed import TABLE1

    out = ["## Table I: CC's absolute time and energy (off-peak)", "",
           "| RTT | seed (ns-2 wired) | seed (ns-2 wireless) | wattlab CC, "
           f"{100 * cfg.table1_loss:g} % loss | wattlab TCP, {100 * cfg.table1_loss:g} % | wattlab CC, "
           f"{100 * cfg.fig15_loss:g} % | wattlab TCP, {100 * cfg.fig15_loss:g} % |", "|---|---|---|---|---|---|---|"]
    if t1.empty:
        return out + ["| (not run) |||||||"]
    for rtt, ref in TABLE1.items():
        cells = []
        for loss in (cfg.table1_loss, cfg.fig15_loss):
            r = claims._pick(t1, loss=loss, rtt_ms=rtt, policy="cc")
            cells += ["" if r is None else f"{r.time_s:.2f} s, {r.energy_j:.2f} J",
                      "" if r is None else f"{r.base_time_s:.2f} s, {r.base_energy_j:.2f} J"]
        out.append(f"| {rtt} ms | {ref['time_wired']} s, {ref['energy_wired']} J | {ref['time_wireless']} s, "
                   f"{ref['energy_wireless']} J | " + " | ".join(cells) + " |")
    return out


def _fig14_section(p: pd.DataFrame) -> list[str]:
    out = ["## Fig. 14: CC vs baseline TCP over RTT and loss", "",
           "Normalized energy / normalized time (medians); `rev` = share of runs that reverted to plain TCP.", ""]
    cc = p[p.policy == "cc"] if not p.empty else p
    if cc.empty:
        return out + ["(not run)"]
    losses = sorted(set(cc.loss))
    out += ["| period | RTT | " + " | ".join(f"loss {100 * x:g} %" for x in losses) + " |",
            "|---|---|" + "---|" * len(losses)]
    for var in dict.fromkeys(cc.variation):
        for rtt in sorted(set(cc.rtt_ms)):
            cells = []
            for loss in losses:
                r = claims._pick(cc, variation=var, rtt_ms=rtt, loss=loss)
                cells.append("" if r is None else f"{_ne(r)} (rev {r.reverted:.2f})")
            out.append(f"| {PEAK[var]} | {rtt:g} ms | " + " | ".join(cells) + " |")
    return out


def _fig15_section(cfg: Config, p: pd.DataFrame) -> list[str]:
    out = [f"## Fig. 15: every policy at {100 * cfg.fig15_loss:g} % loss", "",
           "Normalized energy / normalized time (medians).", ""]
    d = p[(p.loss == cfg.fig15_loss) & (p.policy != "cam")] if not p.empty else p
    if d.empty:
        return out + ["(not run)"]
    pols = list(dict.fromkeys(d.policy))
    out += ["| period | RTT | " + " | ".join(pols) + " |", "|---|---|" + "---|" * len(pols)]
    for var in dict.fromkeys(d.variation):
        for rtt in sorted(set(d.rtt_ms)):
            cells = [(lambda r: "" if r is None else _ne(r))(claims._pick(d, variation=var, rtt_ms=rtt, policy=pol))
                     for pol in pols]
            out.append(f"| {PEAK[var]} | {rtt:g} ms | " + " | ".join(cells) + " |")
    return out


def _simple_section(title: str, p: pd.DataFrame, key: str, fmt) -> list[str]:
    out = [f"## {title}", "", "Normalized energy / normalized time (medians), packets lost asleep and timeouts per run "
           "(means).", ""]
    if p.empty:
        return out + ["(not run)"]
    pols = list(dict.fromkeys(p.policy))
    out += [f"| {key} | " + " | ".join(pols) + " |", "|---|" + "---|" * len(pols)]
    for k in dict.fromkeys(p[key]):
        cells = []
        for pol in pols:
            r = claims._pick(p, **{key: k, "policy": pol})
            cells.append("" if r is None else f"{_ne(r)} (asleep {r.dropped_asleep:.0f}, RTO {r.timeouts:.1f})")
        out.append(f"| {fmt(k)} | " + " | ".join(cells) + " |")
    return out


def _fig18_section(p: pd.DataFrame) -> list[str]:
    out = ["## Fig. 18: AP bandwidth (60 ms)", "", "Normalized energy / normalized time (medians).", ""]
    if p.empty:
        return out + ["(not run)"]
    rates = sorted(set(p.rate_mbps))
    out += ["| period | loss | policy | " + " | ".join(f"{r:g} Mb/s" for r in rates) + " |",
            "|---|---|---|" + "---|" * len(rates)]
    for var in dict.fromkeys(p.variation):
        for loss in sorted(set(p.loss)):
            for pol in (x for x in dict.fromkeys(p.policy) if x != "cam"):
                cells = [(lambda r: "" if r is None else _ne(r))(claims._pick(p, variation=var, loss=loss, policy=pol,
                                                                               rate_mbps=rate)) for rate in rates]
                out.append(f"| {PEAK[var]} | {100 * loss:g} % | {pol} | " + " | ".join(cells) + " |")
    return out


def _sites_section(p: pd.DataFrame) -> list[str]:
    out = ["## Figs. 12/13: the Internet sites as scenarios", "",
           "Base RTT and the seed's *average* window (as the receive buffer), no loss. Normalized energy / time "
           "(medians).", "", "| site | RTT | window | CC off-peak | PSM off-peak | CC peak | PSM peak |",
           "|---|---|---|---|---|---|---|"]
    if p.empty:
        return out + ["| (not run) |||||||"]
    for s in SITES:
        if s.name not in set(p.site):
            continue
        cells = []
        for var in ("none", "gamma"):
            for pol in ("cc", "ideal-psm"):
                r = claims._pick(p, site=s.name, variation=var, policy=pol)
                cells.append("" if r is None else _ne(r))
        out.append(f"| {s.name} | {s.rtt_ms:g} ms | {s.window_kb:g} KB | " + " | ".join(cells) + " |")
    return out


def _crossover_section(cfg: Config, p: pd.DataFrame) -> list[str]:
    out = ["## CC vs PSM over RTT (64 KB window, no loss, off-peak)", "",
           "| rate | RTT | TCP time | CC energy / time | PSM energy / time |", "|---|---|---|---|---|"]
    if p.empty:
        return out + ["| (not run) |||||"]
    for (rate, rtt), g in p.groupby(["rate_mbps", "rtt_ms"]):
        cc = claims._pick(g, policy="cc")
        psm = claims._pick(g, policy="ideal-psm")
        base = cc if cc is not None else psm
        out.append(f"| {rate:g} Mb/s | {rtt:g} ms | {base.base_time_s:.2f} s | {'' if cc is None else _ne(cc)} | "
                   f"{'' if psm is None else _ne(psm)} |")
    return out


def _window_section(p: pd.DataFrame) -> list[str]:
    out = ["## Sensitivity: the RTT × loss grid with smaller windows (CC)", "",
           "Averages over RTTs and loss rates of the normalized medians (the seed calls 32 KB a typical window).", "",
           "| window | period | saved | time added | reverted (mean per run) |", "|---|---|---|---|---|"]
    cc = p[p.policy == "cc"] if not p.empty else p
    if cc.empty:
        return out + ["| (not run) |||||"]
    for (buf, var), g in cc.groupby(["recv_buffer", "variation"]):
        out.append(f"| {buf} B | {PEAK[var]} | {100 * g.saving.mean():.0f} % | {100 * g.slowdown.mean():+.0f} % | "
                   f"{g.reverted.mean():.2f} |")
    return out


def _reversion_section(p: pd.DataFrame) -> list[str]:
    out = ["## Sensitivity: CC without the reversion on loss", "",
           "The lossy points of the RTT × loss grid with `lossy_windows_to_revert` never reached (`cc-norevert`) "
           "beside the seed's reading (`cc`, 3 windows). Normalized energy / time (medians), mean `reverted` and "
           "packets lost asleep per run.", "",
           "| period | RTT | loss | cc | cc-norevert |", "|---|---|---|---|---|"]
    if p.empty:
        return out + ["| (not run) |||||"]
    for (var, rtt, loss), g in p.groupby(["variation", "rtt_ms", "loss"], sort=False):
        cells = []
        for pol in ("cc", "cc-norevert"):
            r = claims._pick(g, policy=pol)
            cells.append("" if r is None else f"{_ne(r)} (rev {r.reverted:.2f}, asleep {r.dropped_asleep:.0f})")
        out.append(f"| {PEAK[var]} | {rtt:g} ms | {100 * loss:g} % | " + " | ".join(cells) + " |")
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
           "| experiment | point | policy | " + " | ".join(AGENT_COLUMNS) + " |",
           "|---|---|---|" + "---|" * len(AGENT_COLUMNS)]
    keys = {"fig14": ("variation", "rtt_ms", "loss"), "fig16": ("variation",), "fig17": ("competitors",),
            "fig18": ("variation", "rate_mbps", "loss"), "sites": ("site", "variation"), "crossover": ("rate_mbps", "rtt_ms"),
            "reversion": ("variation", "rtt_ms", "loss")}
    for name, key in keys.items():
        p = pts.get(name)
        if p is None or p.empty:
            continue
        for r in p[p.policy.isin(CC_POLICIES)].itertuples():
            point = ", ".join(_fmt_key(k, getattr(r, k)) for k in key)
            out.append(f"| {name} | {point} | {r.policy} | " + " | ".join(_f(getattr(r, c), 1) for c in AGENT_COLUMNS) + " |")
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
    out += ["| experiment | policy | RTT | loss | variation | rate | window | competitors | seed | time | TCP time | "
            "timeouts | recoveries | dropped asleep | reverted |", "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in bad.sort_values("norm_time", ascending=False).itertuples():
        out.append(f"| {r.experiment} | {r.policy} | {r.rtt_ms:g} ms | {100 * r.loss:g} % | {PEAK[r.variation]} | "
                   f"{r.rate_mbps:g} Mb/s | {r.recv_buffer} B | {r.competitors} | {r.seed} | {r.time_s:.1f} s | "
                   f"{r.base_time_s:.1f} s | {r.timeouts} | {r.recoveries} | {r.dropped_asleep} | {r.reverted} |")
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


def _limits() -> list[str]:
    return [
        "## What wattlab does not model here",
        "",
        "- **Weighted fair queueing at the AP** between PSM and non-PSM clients (seed Fig. 17): competing clients "
        "share a FIFO 20 Mb/s link into the AP; each client then has its own `[[wireless]]` hop (no shared air), so a "
        "PSM client's held window is released at the full hop rate whatever the competition.",
        "- **The seed's ns-2 wireless runs** (Table I, 'wireless' column): only the wired/DummyNet column is simulated.",
        "- **Real Internet paths** (Fig. 13): each site is a fixed base RTT, its average window as the receive buffer and "
        "the same gamma jitter model; no cross traffic, no loss, no window or route changes within a download.",
        "- **Web browsing** (Figs. 9–11): not part of this reproduction yet.",
    ]
