"""Paper 004's reproduction on the framework: Table 1's runs, the tables beside the paper's,
the claims, the figure and the summary."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ... import markdown as md
from .. import stats
from ..framework import Context, Info, Reproduction, run_heading
from . import claims, experiments, figures, hypotheses, paper
from .config import Config

FILES = ("config.json", "runs.csv", "points.csv", "table1.csv", "ratios.csv", "hypotheses.csv", "claims.csv", "summary.md",
         "fig_table1.png")
"""Every file the reproduction writes."""


def _n(v: float) -> str:
    return f"{v:,.0f}"


class Wwp(Reproduction):
    """Paper 004 (WWP), Table 1."""

    name = "tsaoussidis1999-wwp"
    title = "Paper 004 (Tsaoussidis, Badr & Verma 1999, WWP) Table 1"
    config = Config
    files = FILES
    rule = claims.RULE
    claims_heading = "Verdicts"

    def tables(self, cfg: Config, ctx: Context) -> dict[str, pd.DataFrame]:
        runs, points = experiments.run_all(cfg, ctx)
        return {"runs.csv": runs, "points.csv": points, "table1.csv": experiments.table(points),
                "ratios.csv": experiments.ratios(points), "hypotheses.csv": hypotheses.run(cfg, ctx, points)}

    def claims(self, cfg: Config, tables: dict[str, pd.DataFrame]) -> list[claims.Claim]:
        return claims.evaluate(tables["ratios.csv"])

    def figures(self, cfg: Config, tables: dict[str, pd.DataFrame], out: Path) -> list[Path]:
        per_point = stats.count([int(n) for n in tables["points.csv"].runs], "runs")
        return [figures.figure(tables["table1.csv"], tables["ratios.csv"], out, per_point)]

    def summary(self, cfg: Config, tables: dict[str, pd.DataFrame], verdicts, info: Info) -> list[str]:
        both = lambda col, fmt=_n: lambda r: f"{fmt(r[f'paper_{col}'])} / {fmt(r[col])}"  # noqa: E731
        ratio = lambda col, spec="{:.2f}": lambda r: f"{spec.format(r[f'paper_{col}'])} / {spec.format(r[col])}"  # noqa: E731
        return [
            f"{run_heading(cfg, info, 'one-minute simulations')}; {cfg.seeds} seed(s); VDROP phase offsets "
            f"{', '.join(f'{f:g}' for f in cfg.phase_offsets)} of the on/off cycle.", "",
            "## Setup", "",
            f"- Two mobile stations (sender a, receiver b), each on its own {cfg.rate} hop (delay {cfg.delay}) to one AP; "
            "VDROP (every n-th packet, in on/off phases of equal length or always) and VDELAY (uniform [0, D], reordering) "
            "act on the sender's hop in both directions, each direction counting its own packets.",
            f"- WWP: the paper's implementation values (docs/wwp.md); TCP: Tahoe, MSS {cfg.message_bytes}, no timestamps, "
            f"delayed ACKs, minimum RTO {cfg.tcp_min_rto}. Both carry a continuous stream of {cfg.message_bytes}-byte messages.",
            f"- Snapshot: the first {cfg.snapshot_s:g} s of each connection (handshake included). Byte counts are transport "
            "bytes (TCP header + payload; WWP header + payload), as the paper's ~20 B/segment suggests.",
            f"- Energy: both ends' {cfg.profile} radios, always on and under the oracle accounting policy (asleep whenever "
            "neither sending nor receiving, free transitions), per delivered MB.", "",
            "## Table 1, paper and wattlab (bytes per minute; means over runs)", "",
            *md.frame(tables["table1.csv"], {
                "test": lambda r: f"{r.test} {r.protocol.upper()}", "conditions": "conditions",
                "original data (paper / wattlab)": both("original_data"), "receiver overhead": both("receiver_overhead"),
                "sender bytes": both("sender_bytes"), "total": both("total"),
                "effort overhead": both("effort_overhead", "{:.3f}".format),
                "J/MB always-on, oracle": lambda r: f"{r.j_per_mb_always_on:.2f}, {r.j_per_mb_oracle:.2f}"}),
            "", "## WWP/TCP per set (paper / wattlab)", "",
            *md.frame(tables["ratios.csv"], {
                "set": "set", "conditions": "conditions", "original data": ratio("original_data"),
                "sender bytes": ratio("sender_bytes"), "receiver overhead": ratio("receiver_overhead", "{:.3f}"),
                "EO TCP/WWP": ratio("effort_overhead_tcp_over_wwp"),
                "J/MB WWP/TCP always-on": lambda r: f"{r.j_per_mb_always_on:.2f}",
                "oracle": lambda r: f"{r.j_per_mb_oracle:.2f}"}),
        ]

    def closing(self, cfg: Config, tables: dict[str, pd.DataFrame]) -> list[str]:
        return ["## Gap 1: what explains the WWP/TCP ratios (issue 32)", "",
                "Each hypothesis reruns the protocols it concerns (TCP, WWP or both) with the same seeds and phase "
                "offsets; a protocol it does not rerun keeps the table's runs. Gap = |ln(wattlab's WWP/TCP ÷ the "
                "paper's)|; a variant explains 1 − its gap ÷ the baseline's, and one that reruns WWP is also judged on "
                "WWP's own data against the paper's WWP column (hypotheses.csv). A mean over sets a variant moves both "
                "ways explains nothing.", "",
                *(f"- {s}" for s in hypotheses.conclusions(tables["hypotheses.csv"])), "",
                "## The paper's own inconsistencies", "", *(f"- {s}" for s in paper.inconsistencies())]


REPRODUCTION = Wwp()
"""``wattlab reproduce tsaoussidis1999-wwp``."""
