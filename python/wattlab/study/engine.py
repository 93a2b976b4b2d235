"""Running a study: every run point on a local process pool or a Dask cluster, each run's
tables stored in ``DIR/runs/KEY.run`` as it finishes (so an interrupted study resumes and a
finished one is not recomputed), then one tidy Parquet file per table in ``DIR``.

Determinism: a run depends only on the scenario, its overrides and its seed, and the combined
files are sorted by run key with a fixed column order and hold no wall-clock time, so they are
byte-identical whatever ran them (``--jobs 1``, ``--jobs 8`` or a Dask cluster). What does vary
(wall times, workers, dates) goes to ``DIR/timing.json``.
"""

from __future__ import annotations

import itertools
import json
import os
import sys
import time
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping

from wattlab import _core
from wattlab.study.quantities import with_quantity_columns
from wattlab.study.spec import Point, Study, StudyError, check_overrides, load

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
        res = api.run(text=task.scenario_text, seed=p.seed, overrides=list(p.overrides),
                      baseline=None if "savings" in task.outputs else False)
        s = res.summary
        completed = bool(s["completed"])
        status = "completed" if completed else ("interrupted" if s.get("interrupted") else "time-limit")
        sim_s = res.wall_time_s + (res.baseline.wall_time_s if res.baseline is not None else 0.0)
        status_row = {"run_status": status, "run_completed": completed, "run_time_limit_hit": status == "time-limit",
                      "end_time_s": float(s["end_time_s"]), "events": int(s["events"]), "error": None}
        labels = _labels(task, status_row)
        for name in task.outputs:
            tables[name] = _ipc_bytes(_labelled(arrow_table(res, name), labels))
    except (_core.ScenarioError, _core.SimulationError) as e:
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
    """The run's table ``name`` as an Arrow table, the same columns as ``RunResult.NAME``
    (built without pandas: a run's tables cost well under a millisecond)."""
    import numpy as np
    import pyarrow as pa

    from wattlab import api
    from wattlab.columns import columns

    s = res.summary
    if name in ("flows", "links", "agents"):
        return pa.Table.from_pylist(s.get(name, []))
    if name == "radios":
        return pa.Table.from_pylist(api.radio_rows(s["radios"]))
    if name == "savings":
        rows = api.savings_rows(res)
        return pa.Table.from_pylist(rows) if rows else pa.table({c: pa.array([], pa.null()) for c in api.SAVINGS_COLUMNS})
    raw = res._raw
    names = {"flow": raw["flow_names"]} if name in ("pages", "objects", "sockets") else {}
    data = {}
    for col, values in columns(raw[name]).items():
        if isinstance(values, tuple):
            v, missing = values
            data[col] = pa.array(np.asarray(v), mask=np.asarray(missing, dtype=bool))
        elif col in names and len(values):
            data[col] = pa.array(np.asarray(names[col], dtype=object)[np.asarray(values)].tolist(), pa.string())
        else:
            data[col] = pa.array(values if not isinstance(values, np.ndarray) else values)
    return pa.table(data)


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


def _ipc_bytes(table) -> bytes:
    import pyarrow as pa

    sink = pa.BufferOutputStream()
    with pa.ipc.new_file(sink, table.schema) as w:
        w.write_table(table)
    return sink.getvalue().to_pybytes()


# ---------------------------------------------------------------------------------------------
# Storage of finished runs: DIR/runs/KEY.run, each renamed into place whole.


class Store:
    """Finished runs of a study directory: one file per run, ``runs/KEY.run``: a JSON line
    (the run's row of the runs table and the length of each table) followed by each table as
    an Arrow IPC file. Written under a temporary name and renamed into place, so a run is
    there complete or not at all (one file per run: on a slow file system, each file opened
    costs about half a millisecond)."""

    SUFFIX = ".run"

    def __init__(self, out: Path):
        self.out = out
        self.runs = out / "runs"
        self.runs.mkdir(parents=True, exist_ok=True)
        for stale in self.runs.glob(".tmp-*"):  # a run being stored when the sweep was killed
            stale.unlink(missing_ok=True)
        self._cache: dict[str, tuple[dict, dict[str, bytes]]] = {}

    def done(self) -> set[str]:
        """Keys of the runs stored."""
        return {n[: -len(self.SUFFIX)] for n in os.listdir(self.runs) if n.endswith(self.SUFFIX) and not n.startswith(".")}

    def put(self, result: dict) -> None:
        key = result["key"]
        blobs = list(result["tables"].items())
        head = {"run": result["run"], "tables": [[name, len(data)] for name, data in blobs]}
        tmp = self.runs / f".tmp-{key}-{os.getpid()}"
        with open(tmp, "wb") as f:
            f.write(json.dumps(head, sort_keys=True, default=_json_default).encode() + b"\n")
            for _, data in blobs:
                f.write(data)
        os.replace(tmp, self.runs / f"{key}{self.SUFFIX}")

    def read(self, key: str) -> tuple[dict, dict[str, bytes]]:
        """A stored run: its row and its tables (Arrow IPC bytes by name)."""
        data = (self.runs / f"{key}{self.SUFFIX}").read_bytes()
        nl = data.index(b"\n")
        head = json.loads(data[:nl])
        tables, pos = {}, nl + 1
        for name, n in head["tables"]:
            tables[name] = data[pos:pos + n]
            pos += n
        return head["run"], tables

    def run_row(self, key: str) -> dict:
        return self.read(key)[0]


def read_ipc(data: bytes):
    """An Arrow table from Arrow IPC file bytes."""
    import pyarrow as pa

    return pa.ipc.open_file(pa.BufferReader(data)).read_all()


def _json_default(o):
    import numpy as np

    if isinstance(o, np.generic):
        return o.item()
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")


# ---------------------------------------------------------------------------------------------
# Executors: a local process pool, or a Dask distributed client.


def _local_results(tasks: list, jobs: int, fn: Callable[[Any], dict] = run_task) -> Iterator[dict]:
    """``fn(task)`` of every task as they finish (``run_task`` by default), on ``jobs`` local
    processes (in this process if jobs == 1).
    The workers are forked as soon as this is called (before any progress-bar thread starts),
    so they start in milliseconds with wattlab, pandas and pyarrow already imported."""
    if jobs <= 1 or len(tasks) <= 1:
        return (fn(t) for t in tasks)
    import multiprocessing as mp

    import pandas  # noqa: F401  (imported once here, inherited by the forked workers: pyarrow uses it)
    import pyarrow.ipc  # noqa: F401

    from wattlab import api  # noqa: F401

    method = "fork" if "fork" in mp.get_all_start_methods() else "spawn"
    pool = ProcessPoolExecutor(max_workers=min(jobs, len(tasks)), mp_context=mp.get_context(method),
                               initializer=_ignore_sigint)
    it = iter(tasks)
    pending: set[Future] = {pool.submit(fn, t) for t in itertools.islice(it, jobs * 4)}

    def finished_results() -> Iterator[dict]:
        nonlocal pending
        finished = False
        try:
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for f in done:
                    nxt = next(it, None)
                    if nxt is not None:
                        pending.add(pool.submit(fn, nxt))
                    yield f.result()
            finished = True
        finally:
            if finished:
                pool.shutdown(wait=True)
            else:
                # Ctrl-C or an error: the runs under way are lost (they were not stored), the
                # workers are stopped at once rather than left to finish them.
                procs = list(getattr(pool, "_processes", {}).values())
                pool.shutdown(wait=False, cancel_futures=True)
                for proc in procs:
                    proc.terminate()

    return finished_results()


def _ignore_sigint() -> None:
    """In a local worker: Ctrl-C is the parent's to handle (it stops the workers)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _dask_results(tasks: list, scheduler: Any, fn: Callable[[Any], dict] = run_task) -> Iterator[dict]:
    """``fn(task)`` of every task as they finish on a Dask distributed cluster (``scheduler``:
    an address such as ``tcp://host:8786``, or a ``dask.distributed.Client``)."""
    try:
        from dask.distributed import Client, as_completed
    except ImportError:
        raise RuntimeError("--scheduler needs Dask's distributed scheduler, which is not installed: "
                           "pip install 'wattlab[dask]' (or pip install 'dask[distributed]')") from None
    own = not isinstance(scheduler, Client)
    client = Client(scheduler) if own else scheduler
    try:
        futures = client.map(fn, tasks, pure=False)
        for f in as_completed(futures):
            yield f.result()
            f.release()
    finally:
        if own:
            client.close()


def results(tasks: list, fn: Callable[[Any], dict] = run_task, jobs: int = 1, scheduler: Any = None) -> Iterator[dict]:
    """``fn(task)`` of every task, as they finish: on a Dask cluster if ``scheduler`` is given,
    else on ``jobs`` local processes. ``fn`` must be a module-level function (it is pickled)."""
    return _dask_results(tasks, scheduler, fn) if scheduler is not None else _local_results(tasks, jobs, fn)


# ---------------------------------------------------------------------------------------------
# The study as a whole


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

    @property
    def finished(self) -> bool:
        return self.left == 0


def run_study(
    study: Study,
    out: Path,
    jobs: int = 1,
    scheduler: Any = None,
    max_runs: int | None = None,
    on_result: Callable[[int, int], None] | None = None,
    on_start: Callable[[int, int], None] | None = None,
) -> SweepSummary:
    """Run what is not yet stored in ``out`` (at most ``max_runs`` new runs), then, if every
    run is stored, write the combined tables. ``on_start(to_run, total)`` is called once,
    ``on_result(done_now, to_run)`` after each run."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    check_overrides(study)
    points = study.points()
    keys = [p.key for p in points]
    if len(set(keys)) != len(keys):
        raise StudyError(study.origin, "two run points are the same (a value repeated in a grid?)")
    _write_manifest(study, out, points)
    store = Store(out)
    done = store.done()
    todo = [p for p in points if p.key not in done]
    reused = len(points) - len(todo)
    if max_runs is not None:
        todo = todo[:max_runs]
    consts = (("wattlab_version", _core.__version__), ("wattlab_commit", _core.__commit__),
              ("study_hash", study.study_hash), ("scenario_hash", study.scenario_hash))
    tasks = [Task(study.scenario_text, study.scenario_origin, p, tuple(study.outputs), consts) for p in todo]
    t0 = time.perf_counter()
    timing = _load_timing(out)
    done_now = results(tasks, run_task, jobs, scheduler)
    if on_start:
        on_start(len(tasks), len(points))
    n = 0
    try:
        for r in done_now:
            store.put(r)
            timing["runs"][r["key"]] = {"wall_s": round(r["wall_s"], 6), "sim_s": round(r["sim_s"], 6), "worker": r["worker"]}
            n += 1
            if on_result:
                on_result(n, len(tasks))
    finally:
        elapsed = time.perf_counter() - t0
        timing["sessions"].append({"started": time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(time.time() - elapsed)),
                                   "elapsed_s": round(elapsed, 3), "computed": n, "jobs": jobs,
                                   "scheduler": None if scheduler is None else str(getattr(scheduler, "scheduler", scheduler))})
        (out / "timing.json").write_text(json.dumps(timing, indent=1, sort_keys=True) + "\n")
    done = store.done()
    left = sum(k not in done for k in keys)
    by_status: dict[str, int] = {}
    for k in keys:
        if k in done:
            s = store.run_row(k)["run_status"]
            by_status[s] = by_status.get(s, 0) + 1
    tables = _combine(study, store, points, out) if left == 0 else []
    return SweepSummary(len(points), n, reused, left, by_status, out, tables, elapsed)


def _load_timing(out: Path) -> dict:
    p = out / "timing.json"
    if p.is_file():
        try:
            doc = json.loads(p.read_text())
            if isinstance(doc.get("runs"), dict) and isinstance(doc.get("sessions"), list):
                return doc
        except ValueError:
            pass
    return {"runs": {}, "sessions": []}


def _write_manifest(study: Study, out: Path, points: list[Point]) -> None:
    """``study.json``: the study's hash, its base scenario, the parameters and every run point;
    refuses a directory that holds another study's runs."""
    path = out / "study.json"
    doc = {"study_hash": study.study_hash, "name": study.name, "study_file": study.origin,
           "scenario": study.scenario_origin, "scenario_hash": study.scenario_hash,
           "wattlab_version": _core.__version__, "wattlab_commit": _core.__commit__,
           "parameters": study.param_names, "fixed": study.fixed, "outputs": study.outputs, "seeds": study.seeds,
           "runs": len(points), "figures": study.figures}
    if path.is_file():
        try:
            old = json.loads(path.read_text())
        except ValueError:
            old = {}
        if old.get("study_hash") not in (None, study.study_hash):
            raise StudyError(study.origin, f"{out} holds the results of another study ({old.get('study_file')}, "
                             f"hash {str(old.get('study_hash'))[:12]}); choose another --out")
    path.write_text(json.dumps(doc, indent=1, sort_keys=True, default=str) + "\n")
    if study.text is not None:
        (out / "study.toml").write_text(study.text)


def _combine(study: Study, store: Store, points: list[Point], out: Path) -> list[str]:
    """Write ``out/TABLE.parquet`` for every output and ``out/runs.parquet``: the runs' rows
    concatenated in the study's order of points (grid, zip, random, seeds; each run's rows in
    their own order): the same whatever order the runs finished in."""
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    ordered = [p.key for p in points]
    stored = [store.read(k) for k in ordered]
    written = []
    for name in study.outputs:
        parts = [read_ipc(tables[name]) for _, tables in stored if name in tables]
        parts = [t for t in parts if t.num_rows]
        if parts:
            table = pa.concat_tables(parts, promote_options="permissive")
            table = table.replace_schema_metadata(None)
        else:
            table = pa.table({c: pa.array([], pa.null()) for c in [*study.param_names, *RUN_COLUMNS]})
        pq.write_table(with_quantity_columns(table, study), out / f"{name}.parquet")
        written.append(name)
    rows = [row for row, _ in stored]
    cols = [*study.param_names, *RUN_COLUMNS, "end_time_s", "events", "error", *PROVENANCE_COLUMNS]
    df = pd.DataFrame(rows)
    df = df[[c for c in cols if c in df.columns]]
    runs = with_quantity_columns(pa.Table.from_pandas(df, preserve_index=False).replace_schema_metadata(None), study)
    pq.write_table(runs, out / f"{RUNS_TABLE}.parquet")
    written.append(RUNS_TABLE)
    return written


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
):
    """Run a study and return one of its tables (``table``: ``flows`` by default, or any
    output, or ``runs``: one row per run) as a tidy DataFrame with a column per parameter, the
    seed, the run's status and provenance.

    ``study`` is a study file's path, a dict of the same shape (``{"scenario": "demo.toml",
    "grid": {"link.wired.delay": ["10ms", "50ms"]}, "seeds": [1, 2]}``), or a parsed study;
    ``grid``, ``zip``, ``set``, ``seeds`` and ``outputs`` given here replace the study's. Values
    are typed Python values (``{"flow.0.bytes": [100_000, 1_000_000]}``), passed to the scenario
    with their types. Results go to ``out`` (resumable: a second call computes only what is
    missing) or, with ``out=None``, to a temporary directory. ``jobs`` local processes (default:
    one per core), or ``scheduler``: a Dask scheduler address or ``dask.distributed.Client``.

    ``df.attrs["summary"]`` is the :class:`SweepSummary`. Runs that did not complete are in
    the table with ``run_completed`` False and ``run_status`` saying why; counted in the
    summary. ``max_runs`` computes at most that many new runs (the table then covers the runs
    stored so far and the combined files are not written).
    """
    import tempfile

    import pandas as pd

    if isinstance(study, Study):
        st = study
    elif isinstance(study, Mapping):
        doc = dict(study)
        st = None
    else:
        st = load(study)
    if st is None or any(x is not None for x in (grid, zip, set, seeds, outputs)):
        base = doc if st is None else _doc_of(st)
        base = dict(base)
        for k, v in (("grid", grid), ("zip", zip), ("set", set)):
            if v is not None:
                base[k] = {kk: list(vv) if k != "set" else vv for kk, vv in v.items()}
        if seeds is not None:
            base["seeds"] = list(seeds)
        if outputs is not None:
            base["outputs"] = list(outputs)
        st = load(base)
    if jobs is None:
        jobs = os.cpu_count() or 1
    tmp = None
    if out is None:
        tmp = tempfile.TemporaryDirectory(prefix="wattlab-sweep-")
        out = tmp.name
    try:
        bar = ProgressBar(sys.stderr) if progress else None
        summary = run_study(st, Path(out), jobs=jobs, scheduler=scheduler, max_runs=max_runs,
                            on_start=bar.start if bar else None, on_result=bar.advance if bar else None)
        if bar:
            bar.stop()
        if summary.finished:
            df = pd.read_parquet(Path(out) / f"{table}.parquet")
        else:
            df = _partial(st, Path(out), table)
    finally:
        if tmp is not None:
            tmp.cleanup()
    df.attrs["summary"] = summary
    return df


def _doc_of(st: Study) -> dict:
    doc = {"scenario": st.scenario_origin, "seeds": st.seeds, "outputs": st.outputs, "set": st.fixed,
           "grid": st.grid, "zip": st.zip, "name": st.name, "figure": st.figures}
    if st.random:
        doc["random"] = {"samples": st.random_samples, "seed": st.random_seed,
                         **{k: {**v, **({"unit": st.units[k]} if k in st.units else {})} for k, v in st.random.items()}}
    return doc


def _partial(st: Study, out: Path, table: str):
    import pandas as pd
    import pyarrow as pa

    store = Store(out)
    done = store.done()
    keys = [p.key for p in st.points() if p.key in done]
    if table == RUNS_TABLE:
        rows = pd.DataFrame([store.run_row(k) for k in keys])
        return with_quantity_columns(pa.Table.from_pandas(rows, preserve_index=False), st).to_pandas() if len(rows) else rows
    frames = [with_quantity_columns(read_ipc(t[table]), st).to_pandas() for k in keys if table in (t := store.read(k)[1])]
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
