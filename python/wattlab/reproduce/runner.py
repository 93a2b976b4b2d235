"""Shared machinery of the reproductions: run many scenarios on the study engine (local
processes or Dask, resumable) with a progress bar, summarise repetitions with confidence
intervals, and write output files without clobbering."""

from __future__ import annotations

import math
import os
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence

import numpy as np
import pandas as pd
from rich.console import Console
from scipy import stats as scipy_stats

from wattlab import api
from wattlab.study.engine import ProgressBar
from wattlab.study.points import RunPoint, Tally, point_key, run_points

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
    overrides: tuple[tuple[str, Any], ...] = ()
    """Typed overrides applied to ``scenario`` (``(("link.wired.delay", "20ms"),)``): a
    reproduction may keep one base text and vary it by overrides."""

    def point(self) -> RunPoint:
        """The run point the study engine runs: everything the result depends on (not the labels)."""
        return RunPoint(self.scenario, self.seed, tuple(self.overrides), self.timeseries)


def default_jobs() -> int:
    """Worker processes: one per core."""
    return max(1, os.cpu_count() or 1)


@dataclass
class Engine:
    """How a reproduction's runs are executed (see :func:`engine`): where finished runs are
    stored, local processes or a Dask scheduler, and how many new runs at most; counts what
    every :func:`run_jobs` call under it did."""

    out: Path | None = None
    jobs: int | None = None
    scheduler: Any = None
    max_runs: int | None = None
    tally: Tally = field(default_factory=Tally)
    seen: set[str] = field(default_factory=set)
    """Keys of the runs already counted in ``tally`` (a reproduction's later experiments share
    some: counted once, not as "stored before")."""


_ENGINE: ContextVar[Engine | None] = ContextVar("wattlab_reproduce_engine", default=None)


@contextmanager
def engine(out: str | os.PathLike | None = None, jobs: int | None = None, scheduler: Any = None,
           max_runs: int | None = None) -> Iterator[Engine]:
    """Run every :func:`run_jobs` inside on the study engine with these settings: finished runs
    stored in ``out/runs/KEY.run`` (a rerun reuses them: resume), ``jobs`` local processes (default
    one per core; this wins over the ``workers`` a reproduction passes) or a Dask ``scheduler``
    (an address or a ``dask.distributed.Client``), at most ``max_runs`` new runs (then
    :class:`Unfinished` is raised). ``out`` is locked for the duration (another session there is
    refused with ``wattlab.study.store.Busy``). Without it, ``run_jobs`` uses ``workers`` local
    processes and stores nothing."""
    eng = Engine(None if out is None else Path(out), jobs, scheduler, max_runs)
    held = None
    if eng.out is not None:  # one session per directory, for the whole reproduction
        from wattlab.study.store import lock

        eng.out.mkdir(parents=True, exist_ok=True)
        held = lock(eng.out)
    token = _ENGINE.set(eng)
    try:
        yield eng
    finally:
        _ENGINE.reset(token)
        if held is not None:
            held.release()


class Unfinished(Exception):
    """The engine's ``max_runs`` stopped a reproduction before all its runs were computed; the
    finished ones are stored, and running it again continues."""

    def __init__(self, tally: Tally):
        super().__init__(f"stopped after {tally.computed} new run(s) ({tally.reused} stored before, at least "
                         f"{tally.left} left); run the same command again to continue")
        self.tally = tally


def run_jobs(
    jobs: Sequence[Job],
    measure: Callable[[Job, api.RunResult], dict[str, Any]],
    description: str,
    workers: int,
    console: Console | None = None,
) -> pd.DataFrame:
    """Run every job on the study engine, turn each result into a row with ``measure`` (called
    here, in this process, so it may be any function or closure), return the rows in job order.

    The runs execute on local worker processes (``workers``, or the :func:`engine`'s settings
    when one is active: its store, ``--jobs``, ``--scheduler``, ``--max-runs``). Rows are in job
    order whatever order the runs finish in, and a run depends only on its scenario and seed,
    so the output is the same bytes for the same jobs however they ran. Jobs with the same
    scenario, overrides and seed run once (each gets its own row)."""
    eng = _ENGINE.get() or Engine(jobs=workers)
    points = [j.point() for j in jobs]
    rows_of: dict[str, list[int]] = {}
    for i, p in enumerate(points):
        rows_of.setdefault(point_key(p), []).append(i)
    budget = None if eng.max_runs is None else max(0, eng.max_runs - eng.tally.computed)
    bar = ProgressBar(label=description, console=console) if console is not None else None
    rows: list[dict[str, Any] | None] = [None] * len(jobs)
    tally = Tally()
    try:
        for key, res in run_points(points, eng.out, jobs=eng.jobs or workers or default_jobs(),
                                   scheduler=eng.scheduler, max_runs=budget, tally=tally,
                                   on_start=bar.start if bar else None, on_result=bar.advance if bar else None):
            for i in rows_of[key]:
                job = jobs[i]
                rows[i] = {**job.labels, "seed": job.seed, **measure(job, res)}
    finally:
        if bar:
            bar.stop()
        _count(eng, tally, rows_of.keys())
    if eng.tally.left:
        raise Unfinished(eng.tally)
    return pd.DataFrame([r for r in rows if r is not None])


def _count(eng: Engine, tally: Tally, keys: Iterable[str]) -> None:
    """Adds one :func:`run_jobs` call's ``tally`` to the engine's, each run once: a run this
    session already counted comes back from the store (or, with no store, is computed again),
    and is neither "stored before" nor new."""
    again = sum(1 for k in keys if k in eng.seen)
    if eng.out is not None:
        tally.reused -= min(again, tally.reused)
    else:
        tally.computed -= min(again, tally.computed)
    eng.tally.computed += tally.computed
    eng.tally.reused += tally.reused
    eng.tally.left += tally.left
    eng.tally.wall_s += tally.wall_s
    eng.seen.update(keys)


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
