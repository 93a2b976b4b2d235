"""Reproduction of paper 004: Tsaoussidis, Badr & Verma, "Wave & Wait Protocol (WWP): An
Energy-Saving Transport Protocol for Mobile IP-Devices" (ICNP '99), Table 1.

``run(cfg, out)`` runs the 7 sets × {TCP Tahoe, WWP} as one-minute streams of 1024-byte
messages over VDROP/VDELAY in both directions, several seeds and VDROP phase offsets, and
writes:

- ``runs.csv`` (every run), ``points.csv`` (means per set and protocol with intervals),
  ``table1.csv`` (the paper's columns beside wattlab's), ``ratios.csv`` (WWP/TCP per set,
  the paper's beside wattlab's, and the radio-energy ratios);
- ``fig_table1.png``;
- ``claims.csv`` and ``summary.md`` (the verdicts, and the paper's own inconsistencies);
- ``config.json``: every parameter and what made it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from rich.console import Console

from ... import markdown as md
from .. import runner, stats
from . import claims, experiments, figures, paper
from .config import Config

__all__ = ["Config", "Result", "run", "OUTPUT_FILES"]

OUTPUT_FILES = ("config.json", "runs.csv", "points.csv", "table1.csv", "ratios.csv", "claims.csv", "summary.md",
                "fig_table1.png")
"""Every file ``run`` writes (it refuses to replace any of them unless told to)."""


@dataclass
class Result:
    """What one reproduction produced."""

    table: pd.DataFrame
    """Table 1 beside the paper's, per set and protocol."""
    ratios: pd.DataFrame
    """WWP/TCP ratios per set, beside the paper's."""
    claims: list[claims.Claim]
    """The verdicts."""
    summary_md: str
    """The generated summary (also in summary.md)."""
    wall_time_s: float
    """Wall-clock time."""
    files: list[Path]
    """Files written."""


def run(cfg: Config, out: Path, workers: int | None = None, console: Console | None = None,
        overwrite: bool = False) -> Result:
    """Run the reproduction and write its files into ``out``."""
    cfg.check()
    runner.prepare_out_dir(out, OUTPUT_FILES, overwrite)
    t0 = time.perf_counter()
    runs, points = experiments.run_all(cfg, workers or runner.default_jobs(), console)
    table = experiments.table(points)
    ratios = experiments.ratios(points)
    verdicts = claims.evaluate(ratios)
    wall = time.perf_counter() - t0
    files = [runner.write_config(out, cfg)]
    for name, df in (("runs.csv", runs), ("points.csv", points), ("table1.csv", table), ("ratios.csv", ratios),
                     ("claims.csv", claims.claims_frame(verdicts))):
        df.to_csv(out / name, index=False)
        files.append(out / name)
    per_point = stats.count([int(n) for n in points.runs], "runs")
    files.append(figures.figure(table, ratios, out, per_point))
    text = summary_markdown(cfg, table, ratios, verdicts, wall, len(runs))
    (out / "summary.md").write_text(text, encoding="utf-8")
    files.append(out / "summary.md")
    return Result(table, ratios, verdicts, text, wall, files)


def _n(v: float) -> str:
    return f"{v:,.0f}"


def summary_markdown(cfg: Config, table: pd.DataFrame, ratios: pd.DataFrame, verdicts: list[claims.Claim],
                     wall_s: float, n_runs: int) -> str:
    """The generated summary: setup, Table 1 beside the paper's, ratios, verdicts, inconsistencies."""
    counts = {v: sum(c.verdict == v for c in verdicts) for v in (claims.AGREES, claims.PARTLY, claims.DISAGREES, claims.UNTESTED)}
    lines = [
        "# Paper 004 (Tsaoussidis, Badr & Verma 1999, WWP) Table 1 reproduced by wattlab", "",
        runner.provenance_line(), "",
        f"{'Quick preset' if cfg.quick else 'Full run'}: {n_runs} one-minute simulations in {wall_s:.1f} s wall time; "
        f"{cfg.seeds} seed(s); VDROP phase offsets {', '.join(f'{f:g}' for f in cfg.phase_offsets)} of the on/off cycle.", "",
        "## Setup", "",
        f"- Two mobile stations (sender a, receiver b), each on its own {cfg.rate} hop (delay {cfg.delay}) to one AP; "
        f"VDROP (every n-th packet, in on/off phases of equal length or always) and VDELAY (uniform [0, D], reordering) act on "
        f"the sender's hop in both directions, each direction counting its own packets.",
        f"- WWP: the paper's implementation values (docs/wwp.md); TCP: Tahoe, MSS {cfg.message_bytes}, no timestamps, "
        f"delayed ACKs, minimum RTO {cfg.tcp_min_rto}. Both carry a continuous stream of {cfg.message_bytes}-byte messages.",
        f"- Snapshot: the first {cfg.snapshot_s:g} s of each connection (handshake included). Byte counts are transport "
        "bytes (TCP header + payload; WWP header + payload), as the paper's ~20 B/segment suggests.",
        f"- Energy: both ends' {cfg.profile} radios, always on and under the oracle accounting policy (asleep whenever "
        "neither sending nor receiving, free transitions), per delivered MB.", "",
        "## Table 1, paper and wattlab (bytes per minute; means over runs)", "",
        *md.header("test", "conditions", "original data (paper / wattlab)", "receiver overhead", "sender bytes", "total",
                   "effort overhead", "J/MB always-on, oracle"),
    ]
    for _, r in table.iterrows():
        lines.append(md.row(
            f"{r.test} {r.protocol.upper()}", r.conditions, f"{_n(r.paper_original_data)} / {_n(r.original_data)}",
            f"{_n(r.paper_receiver_overhead)} / {_n(r.receiver_overhead)}", f"{_n(r.paper_sender_bytes)} / {_n(r.sender_bytes)}",
            f"{_n(r.paper_total)} / {_n(r.total)}", f"{r.paper_effort_overhead:.3f} / {r.effort_overhead:.3f}",
            f"{r.j_per_mb_always_on:.2f}, {r.j_per_mb_oracle:.2f}"))
    lines += ["", "## WWP/TCP per set (paper / wattlab)", "",
              *md.header("set", "conditions", "original data", "sender bytes", "receiver overhead", "EO TCP/WWP",
                         "J/MB WWP/TCP always-on", "oracle")]
    for _, r in ratios.iterrows():
        lines.append(md.row(
            r['set'], r.conditions, f"{r.paper_original_data:.2f} / {r.original_data:.2f}",
            f"{r.paper_sender_bytes:.2f} / {r.sender_bytes:.2f}", f"{r.paper_receiver_overhead:.3f} / {r.receiver_overhead:.3f}",
            f"{r.paper_effort_overhead_tcp_over_wwp:.2f} / {r.effort_overhead_tcp_over_wwp:.2f}",
            f"{r.j_per_mb_always_on:.2f}", f"{r.j_per_mb_oracle:.2f}"))
    lines += ["", "## Verdicts", "",
              f"{counts[claims.AGREES]} agree, {counts[claims.PARTLY]} partly, {counts[claims.DISAGREES]} disagree, "
              f"{counts[claims.UNTESTED]} not tested. Rule: {claims.RULE}.", "",
              *md.header("claim", "verdict", "the paper says", "our test", "our numbers")]
    for c in verdicts:
        lines.append(md.row(c.id, f"**{c.verdict}**", c.paper, c.test, c.evidence))
    lines += ["", "## The paper's own inconsistencies", ""] + [f"- {s}" for s in paper.inconsistencies()] + [""]
    return "\n".join(lines)
