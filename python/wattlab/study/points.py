"""Run points whose caller needs the whole result (every table and time series, as
``api.RunResult``), not a study's chosen tables: the reproductions' runs.

A :class:`RunPoint` is a scenario (TOML text), typed overrides, a seed and whether to record
time series. :func:`run_points` runs them on the study engine's executors (local processes or a
Dask cluster), stores each finished run in ``DIR/runs/KEY.run`` (so an interrupted caller
resumes and a finished run is not recomputed) and yields each run's ``RunResult``, rebuilt in
the calling process, so that whatever measures it (a closure, say) never has to be pickled.

A stored run is the core's result as it crossed the boundary: its JSON summary, the effective
scenario, and every result table as an Arrow IPC file (zstd-compressed), read back without
pickle and without a format of wattlab's own.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Sequence

from wattlab import _core
from wattlab.study.engine import StoreWarning, ipc_bytes, read_ipc, results
from wattlab.study.pool import Lost, WorkerDied
from wattlab.study.profiles import profile_hashes
from wattlab.study.store import Damaged, Store
from wattlab.study.spec import canonical, toml_value

FORMAT = 3
"""Version of the stored form (3: Arrow IPC tables); part of every key, so a change of form is
never misread (a run stored in another form is computed again)."""


@dataclass(frozen=True)
class RunPoint:
    """One simulation run: what it depends on, and nothing else."""

    scenario: str
    """The scenario as TOML text."""
    seed: int
    overrides: tuple[tuple[str, Any], ...] = ()
    """Typed overrides (``("link.wired.delay", "20ms")``, ``("flow.0.bytes", 1_000_000)``),
    applied in order after the text."""
    timeseries: bool = False
    """Record time series (radio state changes, cwnd...)."""

    def override_strings(self) -> list[str]:
        """The overrides as ``key=value`` strings, each value a TOML literal of its type."""
        return [f"{k}={toml_value(v)}" for k, v in self.overrides]


def point_key(p: RunPoint) -> str:
    """The run's key: a hash of the scenario, overrides, seed, time-series flag, the contents of
    the profile files it names and the wattlab version and commit that computes it (a run made
    by another build, or with other profile powers, is never reused)."""
    doc = {"scenario": hashlib.sha256(p.scenario.encode()).hexdigest(), "overrides": p.override_strings(),
           "seed": p.seed, "timeseries": p.timeseries, "wattlab": [_core.__version__, _core.__commit__], "format": FORMAT}
    profiles = profile_hashes(p.scenario, "<scenario>", p.override_strings())
    if profiles:  # the profile files' contents (absent without any: those keys are unchanged)
        doc["profiles"] = profiles
    return hashlib.sha256(canonical(doc).encode()).hexdigest()[:20]


def run_point(task: tuple[str, RunPoint]) -> dict:
    """Run one point (in a worker) and return its raw result, encoded, under its key. Errors come
    back as their type's name and message: the core's exception types do not pickle."""
    from wattlab import api

    t0 = time.perf_counter()
    key, p = task
    try:
        res = api.run(text=p.scenario, seed=p.seed, overrides=p.override_strings(), timeseries=p.timeseries)
    except Exception as e:  # re-raised in the caller by run_points
        return {"key": key, "error": [type(e).__name__, str(e)]}
    return {"key": key, "tables": encode_run(res), "run": {"seed": p.seed, "completed": res.completed},
            "sim_s": res.wall_time_s, "wall_s": time.perf_counter() - t0, "worker": f"{os.uname().nodename}:{os.getpid()}"}


TABLE_SUFFIX = ".arrow"
"""A stored run's blob of a result table: ``NAME.arrow``, an Arrow IPC file."""
RESULT_BLOB = "result.json"
"""A stored run's blob of what is not a table: the JSON summary, captures written, wall time, warnings."""


def encode_run(res) -> dict[str, bytes]:
    """A run's blobs for the store: ``result.json`` (the JSON summary exactly as the core
    wrote it, the capture files, the wall time and the warnings), ``scenario.toml`` (the
    effective scenario) and every result table as ``NAME.arrow`` (Arrow IPC, zstd)."""
    from wattlab.columns import arrow

    head = {"summary_json": res.summary_json, "pcap_files": res.pcap_files, "wall_time_s": res.wall_time_s,
            "warnings": res.warnings}
    blobs = {RESULT_BLOB: json.dumps(head, sort_keys=True).encode(), "scenario.toml": res.effective_scenario.encode()}
    for name, table in res.tables.items():
        blobs[name + TABLE_SUFFIX] = ipc_bytes(arrow(table))
    return blobs


def result_of(blobs: Mapping[str, bytes], path: Path | None = None):
    """An ``api.RunResult`` from a stored run's blobs; raises ``store.Damaged`` if they are not
    a run in this form (a run stored by another wattlab, or blobs that do not read)."""
    from wattlab import api

    try:
        head = json.loads(blobs[RESULT_BLOB])
        tables = {n[: -len(TABLE_SUFFIX)]: read_ipc(b) for n, b in blobs.items() if n.endswith(TABLE_SUFFIX)}
        raw = {"summary_json": head["summary_json"], "pcap_files": head["pcap_files"], "wall_time_s": head["wall_time_s"],
               "warnings": head["warnings"], "tables": tables, "interrupt": None}
        return api.RunResult(raw, blobs["scenario.toml"].decode())
    except Exception as e:  # a missing blob, an IPC file that does not read, JSON that is not a result
        raise Damaged(path or Path("<stored run>"), f"not a stored run of this wattlab ({type(e).__name__}: {e})") from None


@dataclass
class Tally:
    """What :func:`run_points` did: runs computed now, reused from the store, left undone
    (``max_runs``), and each run's wall time."""

    computed: int = 0
    reused: int = 0
    left: int = 0
    wall_s: list[float] = field(default_factory=list)


def run_points(
    points: Sequence[RunPoint],
    out: Path | None = None,
    *,
    jobs: int = 1,
    scheduler: Any = None,
    max_runs: int | None = None,
    tally: Tally | None = None,
    on_start: Callable[[int, int], None] | None = None,
    on_result: Callable[[int, int], None] | None = None,
) -> Iterator[tuple[str, Any]]:
    """Yield ``(key, RunResult)`` once per distinct point (see :func:`point_key`): first those
    stored in ``out/runs`` by an earlier call, then the others as they finish on ``jobs`` local
    processes or the Dask ``scheduler``, each stored at once. At most ``max_runs`` are computed;
    the rest are counted in ``tally.left``. ``out=None``: nothing stored. A run that raises
    re-raises here, with the same type when it is a wattlab or builtin error."""
    tally = tally if tally is not None else Tally()
    unique: dict[str, RunPoint] = {}
    for p in points:
        unique.setdefault(point_key(p), p)
    store = Store(Path(out)) if out is not None else None
    running: Iterator = iter(())
    try:
        done = _verified(store, unique) if store is not None else set()
        todo = [(k, p) for k, p in unique.items() if k not in done]
        if max_runs is not None:
            tally.left += max(0, len(todo) - max_runs)
            todo = todo[:max_runs]
        running = results(todo, run_point, jobs, scheduler) if todo else iter(())
        for k in unique:
            if k in done:
                tally.reused += 1
                yield k, result_of(store.get(k)[1], store.path(k))
        if on_start:
            on_start(len(todo), len(unique))
        for n, r in enumerate(running, 1):
            if isinstance(r, Lost):
                raise WorkerDied(f"a run could not be computed: {r.reason}")
            if "error" in r:
                raise _error(*r["error"])
            if store is not None:
                store.put(r["key"], r["run"], r["tables"])
            tally.computed += 1
            tally.wall_s.append(r["wall_s"])
            if on_result:
                on_result(n, len(todo))
            yield r["key"], result_of(r["tables"])
    finally:
        close = getattr(running, "close", None)
        if close:
            close()
        if store is not None:
            store.close()


def _verified(store: Store, unique: Mapping[str, RunPoint]) -> set[str]:
    """Keys of ``unique`` stored and intact; a damaged one is reported (a ``StoreWarning``)
    and moved to ``runs/damaged/``, to be computed again."""
    import warnings

    present = store.present()
    ok = set()
    for k in unique:
        if k not in present:
            continue
        try:
            result_of(store.get(k)[1], store.path(k))
            ok.add(k)
        except Damaged as e:
            store.set_aside(k)
            warnings.warn(f"damaged stored run {e}; computing it again (the damaged file is kept in runs/damaged/)",
                          StoreWarning, stacklevel=3)
    return ok


def _error(name: str, message: str) -> Exception:
    """The worker's exception, rebuilt: a wattlab error of the same type, a builtin one, or a
    RuntimeError naming the type."""
    import builtins

    cls = getattr(_core, name, None) or getattr(builtins, name, None)
    if isinstance(cls, type) and issubclass(cls, Exception):
        try:
            return cls(message)
        except Exception:
            pass
    return RuntimeError(f"{name}: {message}")
