"""A study's size and cost before it starts: how many runs, about how many events and how long,
and about how large its combined tables; refused above limits the user can raise.

The run count is a product of list lengths, so a study of 10^8 runs is refused in
microseconds without a run point being built. The events per run are the simulator's own
estimate (``_core.estimate``) of the study's first run; the wall time assumes the simulator's
~8 M events/s per process plus the engine's ~2 ms per run (docs/benchmarks.md). The tables'
size is measured from the runs already stored (none stored: estimated after the first runs).
"""

from __future__ import annotations

from dataclasses import dataclass

from wattlab.study.spec import Study, StudyError

MAX_STUDY_RUNS = 100_000
"""Default limit on a study's runs (``--max-study-runs``)."""
MAX_TABLE_MB = 2_000
"""Default limit on the combined tables' estimated size, MB (``--max-table-mb``): they are
built in memory."""
EVENTS_PER_S = 8e6
"""Simulator events per second on one core (the simulator's own estimate uses the same)."""
OVERHEAD_PER_RUN_S = 0.002
"""The engine's time per run beyond the simulation (docs/benchmarks.md: 1.7-3.2 ms)."""
EARLY_CHECK_RUNS = 8
"""Runs after which a sweep measures its runs' mean size and checks the tables' limit."""


@dataclass
class StudyCost:
    """A study's estimated size and cost."""

    runs: int
    """Runs in the study (points × seeds)."""
    shape: str
    """How the count is made (``grid 3 × 4 × 2, 3 seeds``)."""
    events_per_run: float | None = None
    """The simulator's estimate for the first run (None if it could not be made)."""
    table_bytes_per_run: float | None = None
    """Mean stored size of a run (None before any is stored)."""

    def wall_s(self, runs: int, jobs: int) -> float | None:
        """Estimated wall time of ``runs`` runs on ``jobs`` processes (None without an events
        estimate)."""
        if self.events_per_run is None:
            return None
        return runs * (self.events_per_run / EVENTS_PER_S + OVERHEAD_PER_RUN_S) / max(1, jobs)

    @property
    def table_mb(self) -> float | None:
        """Estimated size of the combined tables, MB (None before a run is stored)."""
        return None if self.table_bytes_per_run is None else self.runs * self.table_bytes_per_run / 1e6

    def describe(self, to_run: int, jobs: int | None) -> str:
        """One line: the study's size, the estimated time of what is left (on ``jobs``
        processes; None: the CPU time, for a cluster), the tables' size."""
        parts = [f"{self.runs:,} runs ({self.shape})"]
        if self.events_per_run is not None:
            parts.append(f"about {human_count(self.events_per_run)} events each")
        wall = self.wall_s(to_run, jobs or 1)
        if wall is not None and to_run:
            where = f"on {jobs} process{'es' if jobs > 1 else ''}" if jobs else "of CPU time"
            parts.append(f"{to_run:,} to run: {'' if wall < 1 else 'about '}{human_s(wall)} {where}")
        if self.table_mb is not None:
            parts.append(f"tables about {self.table_mb:,.1f} MB")
        return "study: " + ", ".join(parts)


def human_count(n: float) -> str:
    """A count for people: 850, 12 k, 3.4 M, 1.2 G."""
    for div, unit in ((1e9, " G"), (1e6, " M"), (1e3, " k")):
        if n >= div:
            return f"{n / div:.2g}{unit}" if n / div < 10 else f"{n / div:.0f}{unit}"
    return f"{n:.0f}"


def human_s(s: float) -> str:
    """A duration for people: 4 s, 12 min, 3.5 h, 2.1 days."""
    if s < 1:
        return "under 1 s"
    if s < 90:
        return f"{s:.0f} s"
    if s < 5400:
        return f"{s / 60:.0f} min"
    if s < 172_800:
        return f"{s / 3600:.1f} h"
    return f"{s / 86_400:.1f} days"


def shape(study: Study) -> str:
    """How a study's run count is made: each grid list's length, the zip length, the random
    samples and the seeds."""
    parts = []
    if study.grid:
        parts.append("grid " + " × ".join(str(len(v)) for v in study.grid.values()))
    if study.zip:
        parts.append(f"zip {len(next(iter(study.zip.values())))}")
    if study.random:
        parts.append(f"{study.random_samples:,} random samples")
    parts.append(f"{len(study.seeds):,} seed{'s' if len(study.seeds) != 1 else ''}")
    return ", ".join(parts)


def check_size(study: Study, max_study_runs: int = MAX_STUDY_RUNS) -> StudyCost:
    """The study's size, refused with a :class:`StudyError` if it has more than
    ``max_study_runs`` runs (computed from the lists' lengths: nothing is expanded)."""
    n = study.size
    cost = StudyCost(n, shape(study))
    if n > max_study_runs:
        raise StudyError(study.origin, f"the study has {n:,} runs ({cost.shape}), more than the limit of {max_study_runs:,}: "
                         "make it smaller, or raise the limit (wattlab sweep --max-study-runs N; "
                         "wattlab.sweep(..., max_study_runs=N))")
    return cost


def estimate_events(study: Study, cost: StudyCost) -> None:
    """Fill in the simulator's events estimate of the study's first run (a baseline run too
    when the study keeps savings)."""
    from wattlab import _core

    if not hasattr(_core, "estimate"):
        return
    try:
        e = _core.estimate(study.scenario_text, study.scenario_origin, overrides=list(study.first_point().overrides))
    except _core.ScenarioError:
        return  # reported by the overrides' check, with its location
    cost.events_per_run = float(e["events"]) * (2 if "savings" in study.outputs else 1)


def check_tables(cost: StudyCost, mean_run_bytes: float, max_table_mb: float, origin: str) -> None:
    """Refuse (:class:`StudyError`) a study whose combined tables, at ``mean_run_bytes`` per
    run, would exceed ``max_table_mb``."""
    cost.table_bytes_per_run = mean_run_bytes
    mb = cost.table_mb or 0.0
    if mb > max_table_mb:
        raise StudyError(origin, f"its combined tables would be about {mb:,.0f} MB ({mean_run_bytes / 1e3:,.1f} kB per run × "
                         f"{cost.runs:,} runs), more than the limit of {max_table_mb:,.0f} MB: keep fewer outputs or runs, or "
                         "raise the limit (wattlab sweep --max-table-mb MB; wattlab.sweep(..., max_table_mb=MB)); "
                         "the runs computed so far are stored")
