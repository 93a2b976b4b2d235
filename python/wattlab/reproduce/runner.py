"""Shared machinery of the reproductions: run many scenarios in parallel with a progress bar,
summarise repetitions with confidence intervals, and write output files without clobbering."""

from __future__ import annotations

import math
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

import numpy as np
import pandas as pd
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from scipy import stats as scipy_stats

from wattlab import api

from . import stats


def write_config(out: Path, cfg) -> Path:
    """``config.json``: the reproduction's every parameter and what made it (wattlab's version
    and commit), so that a result can be traced back and rerun."""
    import json

    from wattlab import _core

    doc = {"provenance": {"wattlab_version": _core.__version__, "commit": _core.__commit__}, **cfg.as_dict()}
    path = out / "config.json"
    path.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    return path


def provenance_line() -> str:
    """The line summaries start with: which wattlab made them."""
    from wattlab import _core

    return f"Made by wattlab {_core.__version__} (commit {_core.__commit__}); every parameter is in config.json."


@dataclass(frozen=True)
class Job:
    """One simulation run: TOML text, seed, and the labels its result row carries."""

    scenario: str
    """The scenario as TOML text (run as ``api.run(text=...)``)."""
    seed: int
    labels: dict[str, Any]
    timeseries: bool = False
    """Record time series (radio state changes, cwnd...) for ``measure`` to use."""


def default_jobs() -> int:
    """Worker threads: one per core (the core releases the GIL while it simulates)."""
    return max(1, os.cpu_count() or 1)


def run_jobs(
    jobs: Sequence[Job],
    measure: Callable[[Job, api.RunResult], dict[str, Any]],
    description: str,
    workers: int,
    console: Console | None = None,
) -> pd.DataFrame:
    """Run every job, turn each result into a row with ``measure``, return the rows in job order.

    Rows come back in submission order whatever order the threads finish in, so the output
    is deterministic for the same jobs.
    """
    rows: list[dict[str, Any] | None] = [None] * len(jobs)

    def one(i: int) -> int:
        job = jobs[i]
        res = api.run(text=job.scenario, seed=job.seed, timeseries=job.timeseries)
        rows[i] = {**job.labels, "seed": job.seed, **measure(job, res)}
        return i

    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console, transient=False, disable=console is None) as progress:
        task = progress.add_task(description, total=len(jobs))
        with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
            for _ in pool.map(one, range(len(jobs))):
                progress.advance(task)
    return pd.DataFrame([r for r in rows if r is not None])


def mean_ci(values: Iterable[float], confidence: float = 0.95) -> tuple[float, float]:
    """Mean and the half-width of its Student-t confidence interval (0 for one value)."""
    v = np.asarray(list(values), dtype=float)
    if len(v) == 0:
        return math.nan, math.nan
    if len(v) == 1:
        return float(v[0]), 0.0
    sem = float(np.std(v, ddof=1) / math.sqrt(len(v)))
    return float(v.mean()), float(scipy_stats.t.ppf(0.5 + confidence / 2, len(v) - 1) * sem)


def aggregate(df: pd.DataFrame, by: list[str], columns: list[str], domains: stats.Domains | None = None) -> pd.DataFrame:
    """Per group of ``by``: mean, 95 % CI half-width (``<col>_ci``) and the bar the figures draw
    (``<col>_lo`` … ``<col>_hi``, ``stats.interval`` of the mean clipped to ``domains[col]``), and n.

    A domain may be a function of the group's key (Jain's index over n flows lies in [1/n, 1]).
    """
    out = []
    for key, g in df.groupby(by, sort=False):
        key = key if isinstance(key, tuple) else (key,)
        row = dict(zip(by, key))
        row["runs"] = len(g)
        for c in columns:
            row[c], row[f"{c}_ci"] = mean_ci(g[c])
            iv = stats.interval(g[c], stats.MEAN, stats.domain_for(domains, c, row))
            row[f"{c}_lo"], row[f"{c}_hi"] = iv.lo, iv.hi
        out.append(row)
    return pd.DataFrame(out)


def prepare_out_dir(out: Path, names: Iterable[str], overwrite: bool) -> None:
    """Create ``out``; refuse (ValueError) to replace any of ``names`` there unless ``overwrite``."""
    out.mkdir(parents=True, exist_ok=True)
    clash = sorted(n for n in names if (out / n).exists())
    if clash and not overwrite:
        raise ValueError(f"{out} already holds {', '.join(clash)}; choose another --out or pass --overwrite")
