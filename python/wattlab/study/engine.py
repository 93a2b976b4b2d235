"""Running a study: every run point on local worker processes or a Dask cluster, each run's
tables stored in ``DIR/runs/KEY.run`` as it finishes (so an interrupted study resumes and a
finished one is not recomputed), then one tidy Parquet file (and its CSV twin) per table in
``DIR``.

Determinism: a run depends only on the scenario, its overrides and its seed, and the combined
files are sorted by run key with a fixed column order and hold no wall-clock time, so they are
byte-identical whatever ran them (``--jobs 1``, ``--jobs 8`` or a Dask cluster). What does vary
(wall times, workers, dates) goes to ``DIR/timing.json``.

What survives what (the store's guarantees are in ``store``, the workers' in ``pool`` and
``cluster``, the size limits in ``cost``): every stored run is verified when read, a damaged
one recomputed; one session per directory; workers die with the sweep; a run whose worker dies
is recorded as failed; every file is renamed into place whole.
"""

from __future__ import annotations

import json
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping

from wattlab import _core
from wattlab.study import cluster, pool
from wattlab.study.cost import EARLY_CHECK_RUNS, MAX_STUDY_RUNS, MAX_TABLE_MB, StudyCost, check_size, check_tables, estimate_events
from wattlab.study.quantities import with_quantity_columns
from wattlab.study.spec import Point, Study, StudyError, check_overrides, load
from wattlab.study.store import Damaged, Store, TooLarge, atomic_write, read_bounded

RUN_COLUMNS = ["run_key", "seed", "run_status", "run_completed", "run_time_limit_hit"]
"""Per-run columns every table carries after the parameters (status: ``completed``,
``time-limit`` when the run ended at its time limit before every flow completed, ``failed``)."""
PROVENANCE_COLUMNS = ["wattlab_version", "wattlab_commit", "study_hash", "scenario_hash"]
RUNS_TABLE = "runs"
"""One row per run: parameters, seed, status, end time, events, error, provenance."""


@dataclass(frozen=True)
class Task:
    """What a worker needs for one run (picklable; the scenario travels as text)."""

    scenario_text: str
    scenario_origin: str
    point: Point
    outputs: tuple[str, ...]
    consts: tuple[tuple[str, Any], ...]
    """Columns of the same value for every run of the study (provenance)."""


def run_task(task: Task) -> dict:
    """Run one point and return its tables as Arrow IPC bytes, its row of the runs table and
    its timings. Module-level so that process pools and Dask can ship it."""
    t0 = time.perf_counter()
    from wattlab import api

    p = task.point
    tables: dict[str, bytes] = {}
    sim_s = 0.0
    try:
        # The scenario as its file (when it is one): a relative profile path is under the
        # scenario's directory, as in `wattlab run FILE`, not under the worker's cwd.
        origin = Path(task.scenario_origin)
        scn = api.Scenario(task.scenario_text, task.scenario_origin, origin if origin.is_file() else None)
        res = api.run(scn, seed=p.seed, overrides=list(p.overrides), baseline=None if "savings" in task.outputs else False)
        s = res.summary
        completed = bool(s["completed"])
        status = "completed" if completed else ("interrupted" if s.get("interrupted") else "time-limit")
        sim_s = res.wall_time_s + (res.baseline.wall_time_s if res.baseline is not None else 0.0)
        status_row = {"run_status": status, "run_completed": completed, "run_time_limit_hit": status == "time-limit",
                      "end_time_s": float(s["end_time_s"]), "events": int(s["events"]), "error": None}
        labels = _labels(task, status_row)
        for name in task.outputs:
            tables[name] = ipc_bytes(_labelled(arrow_table(res, name), labels))
    except Exception as e:  # a refused scenario, a failed simulation, MemoryError: recorded, not fatal
        tables = {}
        status_row = {"run_status": "failed", "run_completed": False, "run_time_limit_hit": False,
                      "end_time_s": None, "events": None, "error": f"{type(e).__name__}: {e}"}
    row = {**_labels(task, status_row), **{k: status_row[k] for k in ("end_time_s", "events", "error")}}
    return {"key": p.key, "tables": tables, "run": row, "sim_s": sim_s, "wall_s": time.perf_counter() - t0,
            "worker": f"{os.uname().nodename}:{os.getpid()}"}


def _labels(task: Task, status: dict) -> dict:
    p = task.point
    return {**dict(p.columns), "run_key": p.key, "seed": p.seed,
            **{k: status[k] for k in ("run_status", "run_completed", "run_time_limit_hit")}, **dict(task.consts)}


def arrow_table(res, name: str):
    """The run's table ``name`` as an Arrow table, the same columns as ``RunResult.NAME``:
    the core's table as it crossed the boundary (no pandas), or the savings rows."""
    import pyarrow as pa

    from wattlab import api
    from wattlab.columns import arrow

    if name == "savings":
        rows = api.savings_rows(res)
        return pa.Table.from_pylist(rows) if rows else pa.table({c: pa.array([], pa.null()) for c in api.SAVINGS_COLUMNS})
    return arrow(res.tables[name])


def _labelled(table, labels: dict):
    """``table`` with the run's label columns first (a parameter named like a table column is
    prefixed ``param.``)."""
    import pyarrow as pa

    n = table.num_rows
    names = set(table.column_names)
    cols, arrays = [], []
    for k, v in labels.items():
        cols.append(f"param.{k}" if k in names else k)
        arrays.append(pa.array([v] * n, _arrow_type(v)))
    return pa.Table.from_arrays([*arrays, *table.columns], names=[*cols, *table.column_names])


def _arrow_type(v):
    import pyarrow as pa

    if isinstance(v, bool):
        return pa.bool_()
    if isinstance(v, int):
        return pa.int64() if -2**63 <= v < 2**63 else pa.uint64()
    if isinstance(v, float):
        return pa.float64()
    if isinstance(v, str):
        return pa.string()
    return None


def ipc_bytes(table) -> bytes:
    """``table`` as the bytes of an Arrow IPC file (zstd-compressed buffers: a time series'
    repeated names shrink tenfold)."""
    import pyarrow as pa

    sink = pa.BufferOutputStream()
    with pa.ipc.new_file(sink, table.schema, options=pa.ipc.IpcWriteOptions(compression="zstd")) as w:
        w.write_table(table)
    return sink.getvalue().to_pybytes()


# ---------------------------------------------------------------------------------------------
# A study's runs in the store (study/store.py): the run's row of the runs table as the meta,
# each kept table as an Arrow IPC blob.


def put_run(store: Store, result: dict) -> None:
    """Store a finished run (its row and its tables)."""
    store.put(result["key"], {"run": result["run"]}, result["tables"])


def read_run(store: Store, key: str) -> tuple[dict, dict[str, bytes]]:
    """A stored run, verified: its row of the runs table and its tables (Arrow IPC bytes by
    name); raises ``store.Damaged``."""
    meta, tables = store.get(key)
    row = meta.get("run") if isinstance(meta, dict) else None
    if not isinstance(row, dict) or row.get("run_key") != key or "run_status" not in row:
        raise Damaged(store.path(key), "not a stored run of a study (no run row)")
    return row, tables


def read_ipc(data: bytes):
    """An Arrow table from Arrow IPC file bytes."""
    import pyarrow as pa

    return pa.ipc.open_file(pa.BufferReader(data)).read_all()


# ---------------------------------------------------------------------------------------------
# Executors: local processes (study/pool.py), or a Dask cluster (study/cluster.py).


def results(tasks: list, fn: Callable[[Any], dict] = run_task, jobs: int = 1, scheduler: Any = None,
            timeout: float = cluster.TIMEOUT_S) -> Iterator[Any]:
    """``fn(task)`` of every task, as they finish, or a :class:`~wattlab.study.pool.Lost` for a
    task whose worker died: on a Dask cluster if ``scheduler`` is given (its problems raised as
    one-line :class:`~wattlab.study.cluster.SchedulerError` within ``timeout`` seconds), else on
    ``jobs`` local processes (in this process if jobs == 1). ``fn`` must be a module-level
    function (it is pickled)."""
    if scheduler is not None:
        return cluster.run_dask(tasks, scheduler, fn, timeout)
    if jobs <= 1 or len(tasks) <= 1:
        return (fn(t) for t in tasks)
    import pandas  # noqa: F401  (imported once here, inherited by the forked workers: pyarrow uses it)
    import pyarrow.ipc  # noqa: F401

    from wattlab import api  # noqa: F401

    return pool.run_local(tasks, jobs, fn)


def lost_result(task: Task, reason: str) -> dict:
    """The failed run of a task whose worker died (recorded like any failed run)."""
    status = {"run_status": "failed", "run_completed": False, "run_time_limit_hit": False}
    row = {**_labels(task, status), "end_time_s": None, "events": None, "error": f"the run did not finish: {reason}"}
    return {"key": task.point.key, "tables": {}, "run": row, "sim_s": 0.0, "wall_s": 0.0, "worker": "lost"}


# ---------------------------------------------------------------------------------------------
# The study as a whole


class StoreWarning(UserWarning):
    """A stored run was damaged (it is recomputed, or skipped with ``skip_damaged``)."""


@dataclass
class SweepSummary:
    """What a sweep did: runs in the study, computed now, reused from earlier, and by status."""

    total: int
    computed: int
    reused: int
    left: int
    by_status: dict[str, int]
    out: Path
    tables: list[str]
    elapsed_s: float
    damaged: list[str] = field(default_factory=list)
    """Stored runs found damaged (each ``path: reason``): recomputed, or skipped."""
    cost: StudyCost | None = None
    """The study's size and estimated cost."""

    @property
    def finished(self) -> bool:
        """Every run is stored (or, with ``skip_damaged``, accounted for) and the tables written."""
        return self.left == 0


def run_study(
    study: Study,
    out: Path,
    jobs: int = 1,
    scheduler: Any = None,
    max_runs: int | None = None,
    on_result: Callable[[int, int], None] | None = None,
    on_start: Callable[[int, int], None] | None = None,
    *,
    retry_failed: bool = False,
    skip_damaged: bool = False,
    max_study_runs: int = MAX_STUDY_RUNS,
    max_table_mb: float = MAX_TABLE_MB,
    scheduler_timeout: float = cluster.TIMEOUT_S,
    on_plan: Callable[[StudyCost, int], None] | None = None,
    report: Callable[[str], None] | None = None,
) -> SweepSummary:
    """Run what is not yet stored in ``out`` (at most ``max_runs`` new runs), then, if every
    run is stored, write the combined tables.

    Before anything runs, the study's size is checked against ``max_study_runs`` and its cost
    estimated (``on_plan(cost, to_run)`` is called with it). Every stored run is verified; a
    damaged one is reported (``report(message)``) and recomputed, its file moved to
    ``runs/damaged/`` (with ``skip_damaged``: left alone, and listed as ``damaged`` in the runs
    table). Failed runs stay failed unless ``retry_failed``. ``out`` is locked for the
    session (``store.Busy`` if another holds it). ``on_start(to_run, total)`` is called once,
    ``on_result(done_now, to_run)`` after each run."""
    if max_runs is not None and (isinstance(max_runs, bool) or not isinstance(max_runs, int) or max_runs < 0):
        raise ValueError(f"max_runs must be None or an int >= 0, not {max_runs!r}")
    cost = check_size(study, max_study_runs)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    say = report or (lambda m: None)
    with Store(out) as store:
        check_overrides(study)
        estimate_events(study, cost)
        points = study.points()
        keys = [p.key for p in points]
        if len(set(keys)) != len(keys):
            raise StudyError(study.origin, "two run points are the same (a value repeated in a grid?)")
        _write_manifest(study, out, points)
        rows, sizes, damaged = _verify(store, keys)
        damaged_rows: dict[str, dict] = {}
        consts = (("wattlab_version", _core.__version__), ("wattlab_commit", _core.__commit__),
                  ("study_hash", study.study_hash), ("scenario_hash", study.scenario_hash))
        by_key = {p.key: p for p in points}
        for i, (k, e) in enumerate(damaged.items()):
            if skip_damaged:
                task = Task(study.scenario_text, study.scenario_origin, by_key[k], tuple(study.outputs), consts)
                damaged_rows[k] = {**_labels(task, {"run_status": "damaged", "run_completed": False, "run_time_limit_hit": False}),
                                   "end_time_s": None, "events": None, "error": f"stored run damaged: {e}"}
            else:
                store.set_aside(k)
            if i < 10:
                say(f"damaged stored run {e}; " + ("skipped (--skip-damaged)" if skip_damaged else
                                                   "computing it again (the damaged file is kept in runs/damaged/)"))
        if len(damaged) > 10:
            say(f"... and {len(damaged) - 10} more damaged stored runs")
        todo = [p for p in points if (p.key not in rows and p.key not in damaged_rows)
                or (retry_failed and rows.get(p.key, {}).get("run_status") == "failed")]
        reused = len(points) - len(todo) - len(damaged_rows)
        if sizes:
            check_tables(cost, sum(sizes.values()) / len(sizes), max_table_mb, study.origin)
        if max_runs is not None:
            todo = todo[:max_runs]
        if on_plan:
            on_plan(cost, len(todo))
        tasks = [Task(study.scenario_text, study.scenario_origin, p, tuple(study.outputs), consts) for p in todo]
        t0 = time.perf_counter()
        timing = _load_timing(out)
        done_now = results(tasks, run_task, jobs, scheduler, scheduler_timeout) if tasks else iter(())
        if on_start:
            on_start(len(tasks), len(points))
        n = 0
        try:
            for r in done_now:
                if isinstance(r, pool.Lost):
                    r = lost_result(r.task, r.reason)
                try:
                    put_run(store, r)
                except TooLarge as e:
                    r = {**r, "tables": {}, "run": {**r["run"], "run_status": "failed", "run_completed": False,
                                                    "run_time_limit_hit": False, "error": f"not stored: {e}"}}
                    put_run(store, r)
                rows[r["key"]] = r["run"]
                sizes[r["key"]] = os.path.getsize(store.path(r["key"]))
                timing["runs"][r["key"]] = {"wall_s": round(r["wall_s"], 6), "sim_s": round(r["sim_s"], 6), "worker": r["worker"]}
                n += 1
                if on_result:
                    on_result(n, len(tasks))
                if n == EARLY_CHECK_RUNS and cost.table_bytes_per_run is None:
                    check_tables(cost, sum(sizes.values()) / len(sizes), max_table_mb, study.origin)
        finally:
            close = getattr(done_now, "close", None)
            if close:
                close()
            elapsed = time.perf_counter() - t0
            timing["sessions"].append({"started": time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(time.time() - elapsed)),
                                       "elapsed_s": round(elapsed, 3), "computed": n, "jobs": jobs,
                                       "scheduler": None if scheduler is None else str(getattr(scheduler, "scheduler", scheduler))})
            atomic_write(out / "timing.json", (json.dumps(timing, indent=1, sort_keys=True) + "\n").encode())
        left = sum(k not in rows and k not in damaged_rows for k in keys)
        by_status: dict[str, int] = {}
        for k in keys:
            row = rows.get(k) or damaged_rows.get(k)
            if row is not None:
                by_status[row["run_status"]] = by_status.get(row["run_status"], 0) + 1
        tables = []
        if left == 0:
            check_tables(cost, sum(sizes.values()) / max(1, len(sizes)), max_table_mb, study.origin)
            tables = _combine(study, store, points, out, damaged_rows)
    return SweepSummary(len(points), n, reused, left, by_status, out, tables, elapsed,
                        [str(e) for e in damaged.values()], cost)


def _verify(store: Store, keys: list[str]) -> tuple[dict[str, dict], dict[str, int], dict[str, Damaged]]:
    """Read and verify every stored run of ``keys``: their rows, their files' sizes, and the
    damaged ones (key → :class:`Damaged`)."""
    rows, sizes, damaged = {}, {}, {}
    present = store.present()
    for k in keys:
        if k not in present:
            continue
        try:
            rows[k] = read_run(store, k)[0]
            sizes[k] = os.path.getsize(store.path(k))
        except Damaged as e:
            damaged[k] = e
    return rows, sizes, damaged


def _read_json(path: Path) -> Any:
    """A JSON file the engine wrote (``study.json``, ``timing.json``), or None if it is
    missing or not one (read bounded: a FIFO or a device put in its place never hangs it)."""
    if not os.path.lexists(path):
        return None
    try:
        return json.loads(read_bounded(path, 256 << 20))
    except (Damaged, ValueError):
        return None


def _load_timing(out: Path) -> dict:
    doc = _read_json(out / "timing.json")
    if isinstance(doc, dict) and isinstance(doc.get("runs"), dict) and isinstance(doc.get("sessions"), list):
        return doc
    return {"runs": {}, "sessions": []}


def _write_manifest(study: Study, out: Path, points: list[Point]) -> None:
    """``study.json``: the study's hash, its base scenario, the parameters and every run point;
    refuses a directory that holds another study's runs."""
    path = out / "study.json"
    doc = {"study_hash": study.study_hash, "name": study.name, "study_file": study.origin,
           "scenario": study.scenario_origin, "scenario_hash": study.scenario_hash,
           "wattlab_version": _core.__version__, "wattlab_commit": _core.__commit__,
           "parameters": study.param_names, "fixed": study.fixed, "outputs": study.outputs, "seeds": list(study.seeds),
           "runs": len(points), "figures": study.figures}
    old = _read_json(path)
    if isinstance(old, dict):
        if old.get("study_hash") not in (None, study.study_hash):
            raise StudyError(study.origin, f"{out} holds the results of another study ({old.get('study_file')}, "
                             f"hash {str(old.get('study_hash'))[:12]}); choose another --out")
    atomic_write(path, (json.dumps(doc, indent=1, sort_keys=True, default=str) + "\n").encode())
    if study.text is not None:
        atomic_write(out / "study.toml", study.text.encode())


def _combine(study: Study, store: Store, points: list[Point], out: Path, damaged_rows: Mapping[str, dict]) -> list[str]:
    """Write ``out/TABLE.parquet`` and ``out/TABLE.csv`` for every output and for the runs
    table: the runs' rows concatenated in the study's order of points (grid, zip, random,
    seeds; each run's rows in their own order): the same whatever order the runs finished in.
    Runs skipped as damaged have a row in the runs table only. Each file is written under a
    temporary name and renamed: a kill leaves the old file or the new one."""
    import pandas as pd
    import pyarrow as pa

    stored = []
    for p in points:
        if p.key in damaged_rows:
            stored.append((damaged_rows[p.key], {}))
        else:
            try:
                stored.append(read_run(store, p.key))
            except Damaged as e:
                raise StudyError(study.origin, f"damaged stored run {e} (changed during the sweep?): run the same "
                                 "command again to compute it again") from None
    written = []
    for name in study.outputs:
        parts = [read_ipc(tables[name]) for _, tables in stored if name in tables]
        parts = [t for t in parts if t.num_rows]
        if parts:
            table = pa.concat_tables(parts, promote_options="permissive")
            table = table.replace_schema_metadata(None)
        else:
            table = pa.table({c: pa.array([], pa.null()) for c in [*study.param_names, *RUN_COLUMNS]})
        write_table(with_quantity_columns(table, study), out, name)
        written.append(name)
    rows = [row for row, _ in stored]
    cols = [*study.param_names, *RUN_COLUMNS, "end_time_s", "events", "error", *PROVENANCE_COLUMNS]
    df = pd.DataFrame(rows)
    df = df[[c for c in cols if c in df.columns]]
    write_table(with_quantity_columns(pa.Table.from_pandas(df, preserve_index=False).replace_schema_metadata(None), study), out, RUNS_TABLE)
    written.append(RUNS_TABLE)
    return written


def write_table(table, out: Path, name: str) -> None:
    """``out/NAME.parquet`` and ``out/NAME.csv`` (for R and spreadsheets: the same rows and
    columns; a column of tables or lists as its JSON text), each written whole (renamed into
    place)."""
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    atomic_write(out / f"{name}.parquet", lambda p: pq.write_table(table, p))
    atomic_write(out / f"{name}.csv", lambda p: pcsv.write_csv(_csv_ready(table), p))


def _csv_ready(table):
    """``table`` with the columns CSV cannot hold (nested, or all null) as strings."""
    import pyarrow as pa

    cols = []
    for col in table.columns:
        t = col.type
        if pa.types.is_nested(t) or pa.types.is_dictionary(t):
            col = pa.array([None if v is None else json.dumps(v, default=str) for v in col.to_pylist()], pa.string())
        elif pa.types.is_null(t):
            col = pa.array([None] * len(col), pa.string())
        cols.append(col)
    return pa.Table.from_arrays(cols, names=table.column_names)


# ---------------------------------------------------------------------------------------------
# The Python API


def sweep(
    study: str | os.PathLike | Mapping | Study,
    out: str | os.PathLike | None = None,
    *,
    grid: Mapping[str, Iterable] | None = None,
    zip: Mapping[str, Iterable] | None = None,
    set: Mapping[str, Any] | None = None,
    seeds: Iterable[int] | None = None,
    outputs: Iterable[str] | None = None,
    jobs: int | None = None,
    scheduler: Any = None,
    table: str = "flows",
    max_runs: int | None = None,
    progress: bool = False,
    retry_failed: bool = False,
    skip_damaged: bool = False,
    max_study_runs: int = MAX_STUDY_RUNS,
    max_table_mb: float = MAX_TABLE_MB,
    scheduler_timeout: float = cluster.TIMEOUT_S,
):
    """Run a study and return one of its tables (``table``: ``flows`` by default, or any
    output, or ``runs``: one row per run) as a tidy DataFrame with a column per parameter, the
    seed, the run's status and provenance.

    ``study`` is a study file's path, a dict of the same shape (``{"scenario": "demo.toml",
    "grid": {"link.wired.delay": ["10ms", "50ms"]}, "seeds": [1, 2]}``), or a parsed study;
    ``grid``, ``zip``, ``set``, ``seeds`` and ``outputs`` given here replace the study's. Values
    are typed Python values (``{"flow.0.bytes": [100_000, 1_000_000]}``; a grid or zip entry is
    a list of values: a lone string is refused, never iterated letter by letter), passed to the
    scenario with their types. Results go to ``out`` (resumable: a second call computes only
    what is missing) or, with ``out=None``, to a new directory ``wattlab-sweep-*`` in the
    system's temporary directory, which is kept: ``df.attrs["summary"].out`` says where the
    other tables are. ``jobs`` local processes (default: one per core), or ``scheduler``: a Dask
    scheduler address or ``dask.distributed.Client`` (its problems raise a one-line
    ``SchedulerError`` within ``scheduler_timeout`` seconds).

    ``df.attrs["summary"]`` is the :class:`SweepSummary`. Runs that did not complete are in
    the table with ``run_completed`` False and ``run_status`` saying why; counted in the
    summary. ``max_runs`` (>= 0) computes at most that many new runs (the table then covers the
    runs stored so far and the combined files are not written). Failed runs are not computed
    again unless ``retry_failed``; a damaged stored run is computed again (a ``StoreWarning``
    says which) unless ``skip_damaged``. A study of more than ``max_study_runs`` runs, or whose
    tables would exceed ``max_table_mb``, is refused (``StudyError``) before it runs.
    """
    import pandas as pd

    if max_runs is not None and (isinstance(max_runs, bool) or not isinstance(max_runs, int) or max_runs < 0):
        raise ValueError(f"max_runs must be None (every run) or an int >= 0, not {max_runs!r}")
    if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1):
        raise ValueError(f"jobs must be None (one per core) or an int >= 1, not {jobs!r}")
    if not isinstance(table, str):
        raise TypeError(f"table must be a table's name (a str), not {type(table).__name__}")
    if isinstance(study, Study):
        st = study
    elif isinstance(study, Mapping):
        doc = dict(study)
        st = None
    else:
        st = load(study)
    if st is None or any(x is not None for x in (grid, zip, set, seeds, outputs)):
        base = dict(doc if st is None else _doc_of(st))
        for k, v in (("grid", grid), ("zip", zip)):
            if v is not None:
                base[k] = {kk: _values(vv) for kk, vv in v.items()} if isinstance(v, Mapping) else v
        if set is not None:
            base["set"] = set
        if seeds is not None:
            base["seeds"] = _values(seeds)
        if outputs is not None:
            base["outputs"] = _values(outputs)
        st = load(base)
    if table not in (*st.outputs, RUNS_TABLE):
        raise ValueError(f"table {table!r} is not one of this study's tables: {', '.join([*st.outputs, RUNS_TABLE])} "
                         "(add it to outputs)")
    if jobs is None:
        jobs = os.cpu_count() or 1
    if out is None:
        import tempfile

        out = tempfile.mkdtemp(prefix="wattlab-sweep-")
    bar = ProgressBar(sys.stderr) if progress else None

    def warn(message: str) -> None:
        import warnings

        warnings.warn(message, StoreWarning, stacklevel=3)

    try:
        summary = run_study(st, Path(out), jobs=jobs, scheduler=scheduler, max_runs=max_runs,
                            on_start=bar.start if bar else None, on_result=bar.advance if bar else None,
                            retry_failed=retry_failed, skip_damaged=skip_damaged, max_study_runs=max_study_runs,
                            max_table_mb=max_table_mb, scheduler_timeout=scheduler_timeout, report=warn,
                            on_plan=(lambda cost, n: print(cost.describe(n, jobs), file=sys.stderr)) if progress else None)
    finally:
        if bar:
            bar.stop()
    if summary.finished:
        df = pd.read_parquet(Path(out) / f"{table}.parquet")
    else:
        df = _partial(st, Path(out), table)
    df.attrs["summary"] = summary
    return df


def _values(v: Any) -> Any:
    """A grid's, zip's, seeds' or outputs' values as a list, from any iterable of them; a str,
    bytes or mapping is passed on as it is (for the study's own check to refuse or accept as
    one value), never iterated."""
    if isinstance(v, (str, bytes, Mapping, range)) or not hasattr(v, "__iter__"):
        return v
    return list(v)


def _doc_of(st: Study) -> dict:
    doc = {"scenario": st.scenario_origin, "seeds": st.seeds, "outputs": st.outputs, "set": st.fixed,
           "grid": st.grid, "zip": st.zip, "name": st.name, "figure": st.figures}
    if st.random:
        doc["random"] = {"samples": st.random_samples, "seed": st.random_seed,
                         **{k: {**v, **({"unit": st.units[k]} if k in st.units else {})} for k, v in st.random.items()}}
    return doc


def _partial(st: Study, out: Path, table: str):
    """``table`` of the runs stored so far (verified; damaged ones left out)."""
    import pandas as pd
    import pyarrow as pa

    with Store(out) as store:
        done = store.present()
        keys = [p.key for p in st.points() if p.key in done]
        stored = []
        for k in keys:
            try:
                stored.append(read_run(store, k))
            except Damaged:
                continue
    if table == RUNS_TABLE:
        rows = pd.DataFrame([row for row, _ in stored])
        return with_quantity_columns(pa.Table.from_pandas(rows, preserve_index=False), st).to_pandas() if len(rows) else rows
    frames = [with_quantity_columns(read_ipc(tables[table]), st).to_pandas() for _, tables in stored if table in tables]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


class ProgressBar:
    """A rich progress bar on stderr (or ``console``): runs done of those to run, runs/s and ETA."""

    def __init__(self, stream=None, label: str = "sweep", console=None):
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

        class RateColumn(TextColumn):
            def render(self, task):
                from rich.text import Text

                speed = task.finished_speed or task.speed
                return Text("-- runs/s" if not speed else f"{speed:.1f} runs/s")

        self.progress = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), RateColumn(""),
                                 TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
                                 console=console or Console(file=stream), transient=False)
        self.label = label
        self.task = None

    def start(self, to_run: int, total: int) -> None:
        if to_run == 0:  # everything was stored before: nothing to show
            return
        self.progress.start()
        self.task = self.progress.add_task(self.label, total=to_run)

    def advance(self, n: int, to_run: int) -> None:
        """``n`` of ``to_run`` runs done."""
        self.progress.update(self.task, completed=n)

    def stop(self) -> None:
        self.progress.stop()
