"""Reproduction of paper 003: Kontogiannis, Mamatras, Psaras, Tsaoussidis, "Measuring Transport
Protocol Potential for Energy Efficiency" (2005).

``run(cfg, out)`` measures Thr_max, runs Experiment 1 (six TCP variants, one flow, error rate
0–25 %, random and burst errors) and Experiment 2 (n Tahoe vs n Vegas flows), and writes:

- ``exp1_runs.csv``, ``exp1_points.csv``, ``exp2_runs.csv``, ``exp2_points.csv``,
  ``thr_max.csv``: every run and the per-point means with 95 % confidence intervals
  (``<col>_ci``) and the bars the figures draw (``<col>_lo`` … ``<col>_hi``, ``reproduce.stats``);
- ``fig2_goodput.png``, ``fig3_eee.png``, ``fig4_systems.png``;
- ``claims.csv`` and ``summary.md``: each claim R1.1–R2.7 of notes/003.md with wattlab's verdict;
- ``config.json``: every parameter, including the choices the paper leaves open.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from rich.console import Console

from ... import markdown as md
from .. import runner, stats
from . import claims, experiments, figures
from .config import ERROR_LAYERS, PER_READINGS, VARIANTS, Config

__all__ = ["Config", "Result", "VARIANTS", "run", "OUTPUT_FILES"]

OUTPUT_FILES = (
    "config.json",
    "thr_max.csv",
    "exp1_runs.csv",
    "exp1_points.csv",
    "exp2_runs.csv",
    "exp2_points.csv",
    "claims.csv",
    "summary.md",
    "fig2_goodput.png",
    "fig3_eee.png",
    "fig4_systems.png",
)
"""Every file ``run`` writes (it refuses to replace any of them unless told to)."""


@dataclass
class Result:
    """What one reproduction produced."""

    exp1_points: pd.DataFrame
    """Experiment 1 per (error model, variant, error rate): means and CIs."""
    exp2_points: pd.DataFrame
    """Experiment 2 per (n, variant): means and CIs, and the energy gain."""
    claims: list[claims.Claim]
    """The verdict on each claim."""
    summary_md: str
    """The generated summary (also in summary.md)."""
    wall_time_s: float
    """Wall-clock time of the whole reproduction."""
    files: list[Path]
    """Files written."""


def run(cfg: Config, out: Path, workers: int | None = None, console: Console | None = None,
        overwrite: bool = False) -> Result:
    """Run the whole reproduction and write its files into ``out``."""
    cfg.check()
    runner.prepare_out_dir(out, OUTPUT_FILES, overwrite)
    workers = workers or runner.default_jobs()
    t0 = time.perf_counter()
    runs1, points1, thr1 = experiments.experiment1(cfg, workers, console)
    runs2, points2 = experiments.experiment2(cfg, workers, console)
    verdicts = claims.experiment1_claims(points1) + claims.experiment2_claims(points2, cfg.alpha)
    wall = time.perf_counter() - t0

    files = [runner.write_config(out, cfg)]
    thr_all = pd.concat([thr1.assign(experiment=1), _exp2_thr(runs2)], ignore_index=True)
    for name, df in (
        ("thr_max.csv", thr_all),
        ("exp1_runs.csv", runs1),
        ("exp1_points.csv", points1),
        ("exp2_runs.csv", runs2),
        ("exp2_points.csv", points2),
        ("claims.csv", claims.claims_frame(verdicts)),
    ):
        df.to_csv(out / name, index=False)
        files.append(out / name)
    files += [figures.figure2(points1, cfg, out), figures.figure3(points1, cfg, out), figures.figure4(points2, cfg, out)]
    text = summary_markdown(cfg, points1, points2, verdicts, wall, len(runs1) + len(runs2) + len(thr_all))
    (out / "summary.md").write_text(text, encoding="utf-8")
    files.append(out / "summary.md")
    return Result(points1, points2, verdicts, text, wall, files)


def _exp2_thr(runs2: pd.DataFrame) -> pd.DataFrame:
    d = runs2[["seed", "thr_max_bps"]].drop_duplicates("seed")
    return d.assign(model="random", experiment=2)


def summary_markdown(cfg: Config, p1: pd.DataFrame, p2: pd.DataFrame, verdicts: list[claims.Claim],
                     wall_s: float, n_runs: int) -> str:
    """The generated summary: setup, headline numbers, and one line per claim."""
    counts = {v: sum(c.verdict == v for c in verdicts) for v in (claims.AGREES, claims.PARTLY, claims.DISAGREES, claims.UNTESTED)}
    lines = [
        "# Paper 003 (Kontogiannis et al. 2005) reproduced by wattlab",
        "",
        runner.provenance_line(),
        "",
        f"{'Quick preset' if cfg.quick else 'Full run'}: {n_runs} simulations in {wall_s:.1f} s wall time; "
        f"{cfg.seeds} seed(s) per point; error rates {', '.join(f'{100 * p:g} %' for p in cfg.per_grid)}; "
        f"n = {', '.join(map(str, cfg.exp2_flows))}.",
        "",
        "## Setup",
        "",
        "- Channel: two nodes 100 m apart on an 802.11 DSSS 2 Mb/s hop (wattlab's DCF model, long preamble, "
        "no RTS/CTS, interface queues of 50 packets); the sender's radio is the Lucent OriNOCO "
        "(1425 / 925 / 758.5 mW tx / rx / idle).",
        f"- TCP: {cfg.segment_bytes}-byte segments + 40 B headers, window {cfg.window_segments} segments, initial window 2, "
        "no delayed ACK, no timestamps, minimum RTO 1 s (ns-2 agents of the time).",
        f"- Errors act per {cfg.error_layer}: {ERROR_LAYERS[cfg.error_layer]}.",
        f"- Random errors: Bernoulli(PER) in both directions. Burst errors: Gilbert chain [[0.95, 0.05], [0.10, 0.90]] "
        f"stepped per packet, reading `{cfg.per_reading}`: {PER_READINGS[cfg.per_reading]}.",
        f"- Thr_max: {cfg.cbr_flows} UDP CBR flows offering 4 Mb/s for {cfg.thr_max_seconds:g} s per error setting and seed; "
        "Thr_max = IP bytes the sender put on the air per second (delivered or not).",
        f"- Throughput = the TCP sender's IP bytes (headers and retransmissions) per second of connection; "
        f"3E weights α = {cfg.alpha:g}, b = {cfg.b:g}.",
        f"- Experiment 1: one flow of {cfg.exp1_bytes / 2**20:g} MiB per variant and point. Experiment 2: n flows of "
        f"{cfg.exp2_bytes / 2**20:g} MiB, random errors at {100 * cfg.exp2_per:g} %, starts spread over {cfg.start_spread_s:g} s; "
        "energy = the transmitter's radio until the last flow ends; gain = (E_Vegas − E_Tahoe) / E_Tahoe.",
        "",
        "## Verdicts",
        "",
        f"{counts[claims.AGREES]} agree, {counts[claims.PARTLY]} partly, {counts[claims.DISAGREES]} disagree, "
        f"{counts[claims.UNTESTED]} not tested. Rule: {claims.RULE}.",
        "",
        *md.header("claim", "verdict", "the paper says", "our test", "our numbers"),
    ]
    for c in verdicts:
        lines.append(md.row(c.id, f"**{c.verdict}**", c.paper, c.test, c.evidence))
    lines += ["", "## Experiment 1 at the extremes of the sweep", "", _extremes_table(p1), "",
              "## Experiment 2", "", _exp2_table(p2), ""]
    return "\n".join(lines)


def _extremes_table(p1: pd.DataFrame) -> str:
    pers = sorted(set(p1.per))
    picks = sorted({pers[0], pers[len(pers) // 2], pers[-1]})
    rows = md.header("errors", "PER", *VARIANTS)
    for model in dict.fromkeys(p1.model):
        for per in picks:
            cells = []
            for v in VARIANTS:
                d = p1[(p1.model == model) & (p1.variant == v) & (p1.per == per)]
                cells.append("" if d.empty else f"{d.goodput_bps.iloc[0] / 1e3:.0f} kb/s, 3E {d.eee.iloc[0]:.3f}")
            rows.append(md.row(model, f"{100 * per:g} %", *cells))
    return "\n".join(rows)


def _gain(row) -> str:
    """Tahoe's energy gain with the interval the sample size allows (no ± from two seeds)."""
    iv = stats.Interval(row.energy_gain_pct, row.energy_gain_pct_lo, row.energy_gain_pct_hi,
                        stats.kind_for(stats.MEAN, int(row.runs)), int(row.runs))
    return stats.describe(iv, "{:+.2f}".format, " %")


def _exp2_table(p2: pd.DataFrame) -> str:
    rows = md.header("n", "F.I. Tahoe", "F.I. Vegas", "goodput Tahoe", "goodput Vegas", "3E_s Tahoe", "3E_s Vegas",
                     "Tahoe's energy gain, (E_Vegas − E_Tahoe) / E_Tahoe, mean over seeds")
    for n, g in p2.groupby("flows"):
        t = g[g.variant == "tahoe"].iloc[0]
        v = g[g.variant == "vegas"].iloc[0]
        rows.append(md.row(n, f"{t.fairness:.3f}", f"{v.fairness:.3f}", f"{t.goodput_bps / 1e3:.0f} kb/s",
                           f"{v.goodput_bps / 1e3:.0f} kb/s", f"{t.eee_system:.3f}", f"{v.eee_system:.3f}", _gain(t)))
    return "\n".join(rows)
