"""Reproduction of paper 001: Anastasi, Conti, Lapenna, "A Power Saving Network Architecture for
Accessing the Internet from Mobile Computers: Design, Implementation and Measurements" (PSNA).

``run(cfg, out)`` runs the paper's transfers A (25,446 KB up) and B (2,519 KB down) at full
length on the simulated Pisa–Perth path (docs/psna.md, "Simulator") under legacy TCP (card
always on), PSNA, and the baselines the paper could not run (TCP with 802.11 PSM, TCP with
paper 000's client-centered agent), and writes:

- ``runs.csv``: every run (card energy in J and battery-seconds, completion, the PSNA extras:
  polls, sleeps, on/off switches, on-time in signalling, burst, initial wait, residual-time
  prediction error);
- ``table2.csv``: per (transfer, architecture) means beside the paper's Tables 1–2 (lifetime,
  battery consumption, delivered KB, Kbps, transfer length, index), gain factor and reduction;
- ``claims.csv`` and ``summary.md``: each claim C1–C5 with wattlab's verdict;
- ``fig_card_energy.png``; ``config.json``.

- ``sensitivity.csv``: transfer B's PSNA under other α, 10-packet rules and a 536-byte MSS, and
  with a cost per off → on cycle.

Not yet: the live testbed's runs.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from rich.console import Console

from ... import markdown as md
from .. import runner
from . import claims, experiments, figures, paper
from .config import ARCHITECTURES, TRANSFERS, Config

__all__ = ["Config", "Result", "run", "OUTPUT_FILES", "ARCHITECTURES"]

OUTPUT_FILES = ("config.json", "runs.csv", "table2.csv", "sensitivity.csv", "claims.csv", "summary.md", figures.NAME)
"""Every file ``run`` writes (it refuses to replace any of them unless told to)."""


@dataclass
class Result:
    """What one reproduction produced."""

    runs: pd.DataFrame
    table: pd.DataFrame
    sensitivity: pd.DataFrame
    claims: list[claims.Claim]
    summary_md: str
    wall_time_s: float
    files: list[Path]


def run(cfg: Config, out: Path, workers: int | None = None, console: Console | None = None,
        overwrite: bool = False) -> Result:
    """Run the whole reproduction and write its files into ``out``."""
    cfg.check()
    runner.prepare_out_dir(out, OUTPUT_FILES, overwrite)
    t0 = time.perf_counter()
    r = experiments.runs(cfg, workers or runner.default_jobs(), console)
    t = experiments.table(r)
    sens = pd.DataFrame()
    if cfg.sensitivity and "B" in cfg.transfers:
        sens = experiments.sensitivity_table(experiments.runs(cfg, workers or runner.default_jobs(), console, sensitivity=True), r)
    verdicts = claims.evaluate(t)
    wall = time.perf_counter() - t0
    files = [runner.write_config(out, cfg)]
    for name, df in (("runs.csv", r), ("table2.csv", with_paper(t)), ("sensitivity.csv", sens),
                     ("claims.csv", claims.claims_frame(verdicts))):
        df.to_csv(out / name, index=False)
        files.append(out / name)
    files.append(figures.card_energy(t, out))
    text = summary_markdown(cfg, t, verdicts, wall, 2 * len(r), sens)
    (out / "summary.md").write_text(text, encoding="utf-8")
    files.append(out / "summary.md")
    return Result(r, t, sens, verdicts, text, wall, files)


def with_paper(t: pd.DataFrame) -> pd.DataFrame:
    """The table with the paper's values beside ours (``paper_*``; empty where it has none)."""
    t = t.copy()
    for col in ("lifetime_s", "battery_s", "kbps", "transfer_length_s", "power_saving_index"):
        t[f"paper_{col}"] = [(paper.row(x, a) or {}).get(col) for x, a in zip(t["transfer"], t["arch"])]
    t["paper_gain_factor"] = [paper.GAIN[x] if a == "psna" else (1.0 if a == "legacy" else None) for x, a in zip(t["transfer"], t["arch"])]
    return t


def _f(v, spec: str = "{:,.1f}") -> str:
    return "—" if v is None or v != v else spec.format(v)


def summary_markdown(cfg: Config, t: pd.DataFrame, verdicts: list[claims.Claim], wall_s: float, n_runs: int,
                     sens: pd.DataFrame | None = None) -> str:
    """The generated summary: setup, Tables 1–2 beside the paper's, the extras, the claims."""
    lines = [
        "# Paper 001 (Anastasi, Conti, Lapenna: PSNA) reproduced by wattlab", "", runner.provenance_line(), "",
        f"{'Quick preset' if cfg.quick else 'Full run'}: {n_runs} simulations in {wall_s:.1f} s wall time; "
        f"{cfg.seeds} seed(s) per row from seed {cfg.base_seed}; transfers at full length.", "",
        "## Setup", "",
        "- Mobile on an 802.11 DSSS 2 Mb/s BSS (wattlab's DCF model); card `wavelan-turbo-2mbps` (idle 1.77 W, "
        "rx 1.83 W, tx 2.03 W, off 0 W, all derived from the paper's battery lifetimes; no sleep state, so PSM's "
        "doze costs 0 W).",
        f"- AP ↔ Perth: 24 kb/s, 200 ms, 30 kB queues, 0.2 % loss each way; {cfg.cross_flows} long TCP downloads "
        "congest Perth → Italy (docs/psna.md, \"Simulator\"). Transfers start at "
        f"{cfg.start_s:g} s; card energy counts from the request.",
        "- Battery-seconds = J / 13.67 W (the paper's unit: Sony BTP-31, 157,464 J, 11,520 s standby); index = KB "
        "(1000 B) per battery-second; Kbps = 1024 bit/s, as Table 1's rows fit.", "",
        "## Tables 1–2 beside the paper's", "",
        *md.header("transfer", "architecture", "lifetime (s)", "battery consumption (s)", "KB", "Kbps", "transfer length (s)",
                   "index", "gain", "reduction"),
    ]
    for _, r in t.iterrows():
        p = paper.row(r["transfer"], r["arch"])
        lines.append(md.row(r['transfer'], r['arch'], _f(r['lifetime_s'], '{:,.0f}'), _f(r['battery_s']), f"{r['bytes'] / 1000:,.0f}",
                            _f(r['kbps_paper'], '{:,.2f}'), _f(r['transfer_length_s'], '{:,.0f}'),
                            _f(r['power_saving_index'], '{:,.2f}'), f"{_f(r['gain_factor'])}×",
                            f"{_f(r['reduction_percent'], '{:.2f}')} %"))
        if p:
            g = paper.GAIN[r["transfer"]] if r["arch"] == "psna" else 1.0
            red = f"{paper.REDUCTION[r['transfer']]:.2f} %" if r["arch"] == "psna" else "—"
            lines.append(md.row("", "*paper*", f"*{p['lifetime_s']:,}*", f"*{p['battery_s']:,}*", f"*{p['kb']:,}*", f"*{p['kbps']:,}*",
                                f"*{p['transfer_length_s']:,}*", f"*{p['power_saving_index']:,.2f}*", f"*{g:.1f}×*", f"*{red}*"))
    lines += ["", "For PSNA, Kbps and transfer length are the wireless burst's (as in Table 2), not the end-to-end transfer.",
              "", "## What the paper does not report", "",
              *md.header("transfer", "architecture", "completion (s)", "card energy (J, min–max)", "polls", "sleeps",
                         "radio on (s)", "on outside the burst (s)", "initial wait (s)", "residual error mean (s)")]
    for _, r in t.iterrows():
        lines.append(md.row(r['transfer'], r['arch'], _f(r['completion_s'], '{:,.0f}'),
                            f"{_f(r['card_j'])} ({_f(r['card_j_min'])}–{_f(r['card_j_max'])})", _f(r['polls']), _f(r['sleeps']),
                            _f(r['radio_on_s']), _f(r['signalling_on_s']), _f(r['first_residual_s']),
                            _f(r['residual_error_mean_s'], '{:,.0f}')))
    if sens is not None and len(sens):
        lines += ["", "## Sensitivity (transfer B, PSNA)", "",
                  "`default` is the main run; `alpha`, `min_packets`: the estimator; `mss=536`: the paper's Linux 2.0 MSS "
                  "towards non-local hosts (legacy TCP too, and the daemon counts 536-byte packets); `switch=E`: each "
                  "off → on cycle costs E joules (simulated: the card's meter draws an off → idle transition of E / 1.77 W at the idle power; the profile has none).", "",
                  *md.header("variant", "card energy (J)", "radio on (s)", "initial wait (s)", "polls", "completion (s)",
                             "legacy TCP (J)", "gain")]
        for _, r in sens.iterrows():
            lines.append(md.row(r['variant'], _f(r['card_j']), _f(r['radio_on_s']), _f(r['first_residual_s']), _f(r['polls']),
                                _f(r['completion_s'], '{:,.0f}'), _f(r['legacy_card_j'], '{:,.0f}'), f"{_f(r['gain_factor'])}×"))
    lines += ["", "Architectures: " + "; ".join(f"`{a}` = {ARCHITECTURES[a]}" for a in ARCHITECTURES if a in set(t["arch"])) + ".",
              "", "## Claims", "", *md.header("claim", "the paper", "our test", "verdict", "our numbers")]
    for c in verdicts:
        lines.append(md.row(c.id, c.paper, c.test, f"**{c.verdict}**", c.evidence))
    lines += ["", "## Not yet", "",
              "- Transition energy simulated (here it is added per on-switch after the run).",
              "- The live testbed's PSNA runs.", ""]
    return "\n".join(lines)


__all__ += ["TRANSFERS"]
