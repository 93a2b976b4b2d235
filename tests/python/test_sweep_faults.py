"""The study engine under faults (issue 27, item 7, and the Python API's item 10): damaged
stored runs are named and recomputed (or skipped), two sweeps into one folder, kill -9 of the
sweep, a kill while combining, failed and lost runs recorded and not retried, Dask problems as
one-line errors in a bounded time, size limits and study-file types checked before anything
runs, two names for one setting, exit codes, and CSV beside every Parquet table.

Every wait here is bounded (a subprocess timeout, a polling deadline)."""

from __future__ import annotations

import importlib.util
import json
import os
import resource
import shutil
import signal
import socket
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pandas as pd
import pytest

import wattlab
from wattlab.study import StudyError, engine

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "scenarios" / "demo.toml"
WATTLAB = [sys.executable, "-m", "wattlab.cli"]
TIMEOUT = 120  # s: the bound on any subprocess here


def tiny(n_seeds: int = 2, **extra) -> dict:
    """3 modes × ``n_seeds`` very short downloads (about 2 ms each)."""
    return {"scenario": str(DEMO), "seeds": list(range(1, n_seeds + 1)), "outputs": ["flows", "radios"],
            "set": {"flow.0.bytes": 20_000}, "grid": {"wireless.wlan.power_save": ["cam", "psm", "cc"]}, **extra}


def study_file(tmp_path: Path, name: str = "s.toml", n_seeds: int = 2, nbytes: int = 20_000) -> Path:
    p = tmp_path / name
    p.write_text(f'scenario = "{DEMO}"\nseeds = {{ start = 1, count = {n_seeds} }}\noutputs = ["flows", "radios"]\n'
                 f'[set]\n"flow.0.bytes" = {nbytes}\n[grid]\n"wireless.wlan.power_save" = ["cam", "psm", "cc"]\n')
    return p


def sweep_cli(*args, timeout: float = TIMEOUT, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([*WATTLAB, "sweep", *map(str, args)], capture_output=True, text=True, cwd=ROOT, timeout=timeout, **kw)


def table_bytes(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(out.glob("*.parquet"))}


# ---------------------------------------------------------------------------------------------
# Damaged stored runs


def damage(path: Path, kind: str, other: Path) -> None:
    """Damage a stored run file the way the hostile trial did."""
    data = path.read_bytes()
    path.unlink()
    if kind == "empty":
        path.write_bytes(b"")
    elif kind == "truncated":
        path.write_bytes(data[: len(data) // 2])
    elif kind == "garbage":
        path.write_bytes(os.urandom(len(data)))
    elif kind == "directory":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev-zero":
        path.symlink_to("/dev/zero")
    elif kind == "copied-over":
        shutil.copyfile(other, path)
    elif kind == "bit-flip":
        b = bytearray(data)
        b[len(b) * 3 // 4] ^= 0x10  # inside a table: parses, but its numbers are wrong
        path.write_bytes(bytes(b))


KINDS = {"empty": "empty", "truncated": "truncated", "garbage": "not a wattlab run file", "directory": "a directory",
         "fifo": "a FIFO", "dev-zero": "a character device", "copied-over": "holds run", "bit-flip": "checksum mismatch"}


def test_each_kind_of_damaged_run_is_named_and_recomputed(tmp_path):
    """Eight stored runs, each damaged one way: the sweep names each file and why, recomputes
    them (bounded time: a FIFO or /dev/zero must not hang it) and writes the same tables as
    a fresh sweep, keeping the damaged files aside."""
    study = study_file(tmp_path, n_seeds=3)  # 9 runs
    out, fresh = tmp_path / "o", tmp_path / "fresh"
    assert sweep_cli(study, "--out", out, "-j", "1").returncode == 0
    assert sweep_cli(study, "--out", fresh, "-j", "1").returncode == 0
    files = sorted((out / "runs").glob("*.run"))
    assert len(files) == 9
    for f, kind in zip(files, KINDS):
        damage(f, kind, files[-1])
    r = sweep_cli(study, "--out", out, "-j", "2", timeout=60)
    assert r.returncode == 0, r.stderr
    for f, kind in zip(files, KINDS):
        line = next((ln for ln in r.stderr.splitlines() if str(f) in ln), "")
        assert KINDS[kind] in line and "computing it again" in line, (kind, r.stderr)
    assert "9 runs: 8 computed now" in r.stderr
    assert table_bytes(out) == table_bytes(fresh)
    assert len(list((out / "runs" / "damaged").iterdir())) == 8


def test_a_damaged_run_is_skipped_with_skip_damaged(tmp_path):
    study = study_file(tmp_path)
    out = tmp_path / "o"
    assert sweep_cli(study, "--out", out, "-j", "1").returncode == 0
    victim = sorted((out / "runs").glob("*.run"))[0]
    damage(victim, "bit-flip", victim)
    r = sweep_cli(study, "--out", out, "--skip-damaged")
    assert r.returncode == 1, r.stderr
    assert str(victim) in r.stderr and "skipped" in r.stderr
    runs = pd.read_parquet(out / "runs.parquet")
    row = runs[runs["run_key"] == victim.stem].iloc[0]
    assert row["run_status"] == "damaged" and str(victim) in row["error"]
    assert victim.stem not in set(pd.read_parquet(out / "flows.parquet")["run_key"])
    assert victim.is_file()  # left as it was
    # From Python: a StoreWarning names it, and without skip_damaged it is recomputed
    with pytest.warns(UserWarning, match=str(victim)):
        df = wattlab.sweep(study, out, jobs=1, table="runs")
    assert df.attrs["summary"].computed == 1 and set(df["run_status"]) == {"completed"}


def test_reproduction_runs_are_verified_too(tmp_path):
    """The reproductions' run store (points.py) shares the verification."""
    from wattlab.study.points import RunPoint, run_points

    text = DEMO.read_text()
    pts = [RunPoint(text, s, (("flow.0.bytes", 20_000),)) for s in (1, 2)]
    first = {k: r.summary_json for k, r in run_points(pts, tmp_path)}
    victim = sorted((tmp_path / "runs").glob("*.run"))[0]
    damage(victim, "truncated", victim)
    with pytest.warns(UserWarning, match="truncated"):
        again = {k: r.summary_json for k, r in run_points(pts, tmp_path)}
    assert again == first


# ---------------------------------------------------------------------------------------------
# Two sessions, kill -9, a kill while combining


def _slow_study(tmp_path: Path) -> Path:
    """6000 runs of 30 MB downloads (~25 ms each): a sweep that is still running when looked at."""
    return study_file(tmp_path, "slow.toml", n_seeds=2000, nbytes=30_000_000)


def _wait_for(cond, what: str, limit: float = 60.0) -> None:
    deadline = time.monotonic() + limit
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def test_a_second_sweep_into_the_same_folder_is_refused_and_the_first_is_intact(tmp_path):
    out = tmp_path / "o"
    first = subprocess.Popen([*WATTLAB, "sweep", str(_slow_study(tmp_path)), "--out", str(out), "-j", "1"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        _wait_for(lambda: (out / "runs").is_dir() and any((out / "runs").glob("*.run")), "the first sweep's first run")
        r = sweep_cli(_slow_study(tmp_path), "--out", out, "-j", "1", timeout=60)
        assert first.poll() is None, "the first sweep ended before the second started: make its study longer"
        assert r.returncode == 2, r.stderr
        lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
        assert len(lines) == 1 and f"pid {first.pid}" in lines[0] and "in use by another wattlab session" in lines[0], r.stderr
        time.sleep(0.5)  # the first goes on storing runs meanwhile
        first.send_signal(signal.SIGINT)
        _, err = first.communicate(timeout=TIMEOUT)
    finally:
        if first.poll() is None:
            first.kill()
    assert first.returncode == 130 and "interrupted" in err and "Traceback" not in err, err
    # every run the first sweep stored is intact, and none of its files was removed under it
    from wattlab.study.store import Store

    with Store(out) as store:
        keys = store.present()
        assert len(keys) >= 1
        for k in keys:
            engine.read_run(store, k)
    # from Python: the same refusal while this process holds the folder
    from wattlab.study.store import lock

    held = lock(out)
    try:
        pid = subprocess.run([sys.executable, "-c", f"import wattlab; wattlab.sweep({str(_slow_study(tmp_path))!r}, {str(out)!r}, jobs=1)"],
                             capture_output=True, text=True, timeout=TIMEOUT)
        assert pid.returncode != 0 and "Busy" in pid.stderr and f"pid {os.getpid()}" in pid.stderr
    finally:
        held.release()


def _children(pid: int) -> list[int]:
    kids = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                kids.append(int(d.name))
    return kids


def test_kill_9_of_the_sweep_leaves_no_worker_behind(tmp_path):
    out = tmp_path / "o"
    parent = subprocess.Popen([*WATTLAB, "sweep", str(_slow_study(tmp_path)), "--out", str(out), "-j", "2"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
    workers: list[int] = []
    try:
        _wait_for(lambda: (out / "runs").is_dir() and any((out / "runs").glob("*.run")), "the first run")
        workers = _children(parent.pid)
        assert len(workers) == 2, workers
        parent.send_signal(signal.SIGKILL)
        parent.wait(timeout=10)
        deadline = time.monotonic() + 10  # the bound: PR_SET_PDEATHSIG acts at once, the fallback watch within 1 s
        while any(Path(f"/proc/{w}").exists() and "zombie" not in Path(f"/proc/{w}/status").read_text() for w in workers):
            assert time.monotonic() < deadline, f"workers {workers} still alive 10 s after kill -9 of their sweep"
            time.sleep(0.05)
    finally:
        if parent.poll() is None:
            parent.kill()
        for w in workers:  # (only if the test failed: they outlived their sweep)
            try:
                os.kill(w, signal.SIGKILL)
            except ProcessLookupError:
                pass
    # and the lock died with it: the same command resumes
    r = sweep_cli(_slow_study(tmp_path), "--out", out, "-j", "1", "--max-runs", "1")
    assert r.returncode == 3 and "1 computed now" in r.stderr, r.stderr


def test_a_kill_while_combining_leaves_the_old_tables_whole(tmp_path, monkeypatch):
    """A failure between writing a table and renaming it into place: the previous table stays,
    byte for byte, and no partial file is left (not even under a temporary name)."""
    import pyarrow.parquet as pq

    out = tmp_path / "o"
    wattlab.sweep(tiny(), out, jobs=1)
    before = table_bytes(out)
    real = pq.write_table

    def half_then_die(table, where, *a, **kw):
        real(table.slice(0, 1), where, *a, **kw)  # something is on disk
        with open(where, "r+b") as f:
            f.truncate(100)
        raise KeyboardInterrupt  # ... and then the kill

    monkeypatch.setattr(pq, "write_table", half_then_die)
    victim = sorted((out / "runs").glob("*.run"))[0]
    victim.unlink()  # one run to compute, then the combine
    with pytest.raises(KeyboardInterrupt):
        wattlab.sweep(tiny(), out, jobs=1)
    assert table_bytes(out) == before
    assert not [p for p in out.iterdir() if p.name.startswith(".tmp-")]
    monkeypatch.setattr(pq, "write_table", real)
    wattlab.sweep(tiny(), out, jobs=1)
    assert table_bytes(out) == before


# ---------------------------------------------------------------------------------------------
# Failed and lost runs


def _dies_on_seed_2(task):
    """A run_task whose worker is killed (as by the out-of-memory killer) on seed 2."""
    if task.point.seed == 2:
        os.kill(os.getpid(), signal.SIGKILL)
    return _REAL_RUN_TASK(task)


def _memory_error_on_seed_2(task):
    from wattlab import api

    if task.point.seed == 2:
        real = api.run
        api.run = lambda *a, **kw: (_ for _ in ()).throw(MemoryError("simulated: out of memory"))
        try:
            return _REAL_RUN_TASK(task)
        finally:
            api.run = real
    return _REAL_RUN_TASK(task)


_REAL_RUN_TASK = engine.run_task


@pytest.mark.parametrize("fault, jobs, error", [(_dies_on_seed_2, 2, "killed by SIGKILL"),
                                                (_memory_error_on_seed_2, 1, "MemoryError")])
def test_failed_and_lost_runs_are_recorded_and_not_retried(tmp_path, monkeypatch, fault, jobs, error):
    out = tmp_path / "o"
    monkeypatch.setattr(engine, "run_task", fault)
    df = wattlab.sweep(tiny(), out, jobs=jobs, table="runs")
    s = df.attrs["summary"]
    assert s.finished and s.by_status == {"completed": 3, "failed": 3}, s
    failed = df[df["run_status"] == "failed"]
    assert set(failed["seed"]) == {2} and all(error in e for e in failed["error"]), failed["error"].tolist()
    assert set(pd.read_parquet(out / "flows.parquet")["seed"]) == {1}
    monkeypatch.setattr(engine, "run_task", _REAL_RUN_TASK)
    again = wattlab.sweep(tiny(), out, jobs=jobs, table="runs").attrs["summary"]
    assert (again.computed, again.by_status.get("failed")) == (0, 3)  # not retried
    retried = wattlab.sweep(tiny(), out, jobs=jobs, table="runs", retry_failed=True)
    assert retried.attrs["summary"].computed == 3 and set(retried["run_status"]) == {"completed"}


def test_cli_failed_runs_exit_1_and_retry_failed(tmp_path):
    """A run stored as failed: exit 1 naming --retry-failed; a rerun does not repeat it,
    --retry-failed does."""
    study = tmp_path / "f.toml"
    study.write_text(f'scenario = "{DEMO}"\nseeds = [1]\n[set]\n"flow.0.bytes" = 20000\n'
                     '[grid]\n"simulation.duration" = ["60s"]\n')
    out = tmp_path / "o"
    r = sweep_cli(study, "--out", out)
    assert r.returncode == 0, r.stderr
    # Turn the stored run into a failed one, as a run that failed would be stored.
    from wattlab.study.store import Store

    with Store(out) as store:
        (key,) = store.present()
        row, tables = engine.read_run(store, key)
        store.put(key, {"run": {**row, "run_status": "failed", "run_completed": False, "error": "SimulationError: boom"}}, {})
    r = sweep_cli(study, "--out", out)
    assert r.returncode == 1 and "0 computed now" in r.stderr and "--retry-failed" in r.stderr, r.stderr
    r = sweep_cli(study, "--out", out, "--retry-failed")
    assert r.returncode == 0 and "1 computed now" in r.stderr, r.stderr


# ---------------------------------------------------------------------------------------------
# Dask problems: one line, bounded time


needs_dask = pytest.mark.skipif(importlib.util.find_spec("distributed") is None,
                                reason="dask.distributed is not installed (pip install 'wattlab[dask]'; make setup installs it)")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@needs_dask
@pytest.mark.parametrize("address, message", [
    ("tcp://127.0.0.1:{port}", "nothing listens there"),
    ("no-such-address", "not a Dask scheduler address"),
    ("tcp://127.0.0.1:99999", "not a Dask scheduler address"),
])
def test_a_bad_scheduler_address_is_one_line_at_once(tmp_path, address, message):
    t0 = time.monotonic()
    r = sweep_cli(study_file(tmp_path), "--out", tmp_path / "o", "--scheduler", address.format(port=_free_port()),
                  "--scheduler-timeout", "5", timeout=60)
    elapsed = time.monotonic() - t0
    errors = [ln for ln in r.stderr.splitlines() if ln.startswith("error")]
    assert r.returncode == 2 and len(errors) == 1 and message in errors[0], r.stderr
    assert "Traceback" not in r.stderr
    assert elapsed < 60


@needs_dask
def test_a_scheduler_without_workers_and_a_lost_scheduler_are_one_line_errors(tmp_path):
    from dask.distributed import Client, LocalCluster

    from wattlab.study.cluster import SchedulerError

    with LocalCluster(n_workers=0, processes=False, dashboard_address=None) as cluster:
        t0 = time.monotonic()
        with pytest.raises(SchedulerError, match="has no worker"):
            wattlab.sweep(tiny(), tmp_path / "a", scheduler=cluster.scheduler_address, scheduler_timeout=1)
        assert time.monotonic() - t0 < 30
    # the scheduler goes away mid-sweep: an error within the bound, the runs back are stored
    cluster = LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None)
    client = Client(cluster, set_as_default=False)
    closed = []

    def close_after_first(n, _total):
        if n == 1 and not closed:
            closed.append(time.monotonic())
            cluster.close()

    t0 = time.monotonic()
    try:
        with pytest.raises(SchedulerError, match="scheduler"):
            engine.run_study(wattlab.study.load(tiny(n_seeds=40)), tmp_path / "b", scheduler=client.scheduler.address,
                             scheduler_timeout=2, on_result=close_after_first)
    finally:
        client.close()
        cluster.close()
    assert closed and time.monotonic() - closed[0] < 30
    assert len(list((tmp_path / "b" / "runs").glob("*.run"))) >= 1


# ---------------------------------------------------------------------------------------------
# Size and types before anything runs


def _limited(cmd: list[str], timeout: float = 60) -> subprocess.CompletedProcess:
    """Run ``cmd`` under a 2 GB address-space limit (a study expanded in memory would fail)."""
    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
    return subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=timeout, preexec_fn=limit)


@pytest.mark.parametrize("body, shape", [
    ('[grid]\n' + "".join(f'"node.client.x{i}" = [{", ".join(map(str, range(10)))}]\n' for i in range(7)),
     "grid 10 × 10 × 10 × 10 × 10 × 10 × 10"),
    ('seeds = { start = 1, count = 100000000 }\n', "100,000,000 seeds"),
    ('[random]\nsamples = 100000000\n"wireless.wlan.down.loss.p" = { uniform = [0.0, 0.1] }\n', "100,000,000 random samples"),
])
def test_huge_studies_are_refused_up_front(tmp_path, body, shape):
    study = tmp_path / "huge.toml"
    study.write_text(f'scenario = "{DEMO}"\n' + body)
    t0 = time.monotonic()
    r = _limited([*WATTLAB, "sweep", str(study), "--out", str(tmp_path / "o")])
    assert r.returncode == 2, r.stderr
    assert "more than the limit of 100,000" in r.stderr and shape in r.stderr and "--max-study-runs" in r.stderr, r.stderr
    assert time.monotonic() - t0 < 30
    assert not (tmp_path / "o" / "runs").exists()


def test_the_size_limits_can_be_raised(tmp_path):
    study = study_file(tmp_path)  # 6 runs
    r = sweep_cli(study, "--out", tmp_path / "a", "--max-study-runs", "5")
    assert r.returncode == 2 and "6 runs" in r.stderr and "limit of 5" in r.stderr
    r = sweep_cli(study, "--out", tmp_path / "a", "--max-study-runs", "6")
    assert r.returncode == 0 and "study: 6 runs" in r.stderr and "events each" in r.stderr, r.stderr
    r = sweep_cli(study, "--out", tmp_path / "a", "--max-table-mb", "0.001")
    assert r.returncode == 2 and "combined tables would be about" in r.stderr and "--max-table-mb" in r.stderr, r.stderr


@pytest.mark.parametrize("text, key, message", [
    ('seeds = {{ start = "1", count = 3 }}\n', "seeds", "`start` must be an integer, not \"1\" (a string)"),
    ('seeds = {{ start = 1, count = 3.0 }}\n', "seeds", "`count` must be an integer, not 3.0 (a float)"),
    ('seeds = [1, 2.5]\n', "seeds", "not 2.5 (a float)"),
    ('[random]\nsamples = 2.0\n"wireless.wlan.down.loss.p" = {{ uniform = [0.0, 0.1] }}\n', "random.samples", "not 2.0 (a float)"),
    ('[random]\nsamples = 2\nseed = 1.5\n"wireless.wlan.down.loss.p" = {{ uniform = [0.0, 0.1] }}\n', "random.seed", "not 1.5"),
    ('[random]\nsamples = 2\n"wireless.wlan.down.loss.p" = {{ uniform = [0.0, 0.1], digits = "2" }}\n',
     "random.wireless.wlan.down.loss.p", "digits is an integer"),
    ('[random]\nsamples = 2\n"wireless.wlan.down.loss.p" = {{ uniform = [0.0, inf] }}\n',
     "random.wireless.wlan.down.loss.p", "two finite numbers"),
])
def test_wrong_types_in_a_study_file_are_located(tmp_path, text, key, message):
    path = tmp_path / "bad.toml"
    path.write_text(f'scenario = "{DEMO}"\n' + text.format())
    with pytest.raises(StudyError) as e:
        wattlab.study.load(path)
    assert e.value.key == key and message in str(e.value), str(e.value)
    assert str(e.value).startswith(f"{path}:"), str(e.value)
    r = sweep_cli(path, "--out", tmp_path / "o")
    assert r.returncode == 2 and f"{path}:" in r.stderr and "internal error" not in r.stderr, r.stderr


def test_a_study_file_that_is_not_utf8_or_not_a_file_is_refused(tmp_path):
    bad = tmp_path / "latin1.toml"
    bad.write_bytes(f'scenario = "{DEMO}"\nname = "caf'.encode() + b"\xe9" + b'"\n')
    r = sweep_cli(bad, "--out", tmp_path / "o")
    assert r.returncode == 2 and f"{bad}:2:12: not UTF-8 text (byte 0xe9)" in r.stderr, r.stderr
    with pytest.raises(StudyError, match="not UTF-8"):
        wattlab.study.load(bad)
    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)
    with pytest.raises(StudyError, match="a FIFO"):
        wattlab.study.load(fifo)


@pytest.mark.parametrize("doc, key, message", [
    ({"set": {"flow.download.bytes": 30_000}, "grid": {"flow.0.bytes": [20_000, 40_000]}},
     "grid.flow.0.bytes", "the same scenario setting as `set.flow.download.bytes`"),
    ({"grid": {"flow.0.bytes": [20_000, 40_000], "flow.download.bytes": [1, 2]}},
     "grid.flow.download.bytes", "the same scenario setting as `grid.flow.0.bytes`"),
    ({"grid": {"flow.0.bytes": [20_000, 40_000]}, "zip": {"flow.download": [{"bytes": 5}]}},
     "zip.flow.download", "overlaps `grid.flow.0.bytes`"),
])
def test_two_names_for_one_setting_are_refused(tmp_path, doc, key, message):
    with pytest.raises(StudyError) as e:
        wattlab.study.load({"scenario": str(DEMO), "seeds": [1], **doc})
    assert e.value.key == key and message in str(e.value), str(e.value)
    # a [set] table refined by a parameter inside it is fine (the parameter is applied after it)
    wattlab.study.load({"scenario": str(DEMO), "seeds": [1], "set": {"link.wired": {"name": "wired", "a": "server",
                        "b": "ap", "rate": "100Mbps", "delay": "10ms"}}, "grid": {"link.wired.delay": ["5ms", "20ms"]}})


# ---------------------------------------------------------------------------------------------
# Exit codes and folders that are not a run's


def test_max_runs_with_runs_left_exits_3(tmp_path):
    study = study_file(tmp_path)
    r = sweep_cli(study, "--out", tmp_path / "o", "--max-runs", "2")
    assert r.returncode == 3 and "4 run(s) left" in r.stderr, r.stderr
    r = sweep_cli(study, "--out", tmp_path / "o")
    assert r.returncode == 0 and "4 computed now" in r.stderr and "2 stored before" in r.stderr
    help_text = " ".join(subprocess.run([*WATTLAB, "sweep", "--help"], capture_output=True, text=True).stdout.split())
    assert "3 runs are left" in help_text and "exit 3 if runs are left" in help_text


def test_run_overwrite_refuses_a_sweep_folder(tmp_path):
    out = tmp_path / "o"
    wattlab.sweep(tiny(), out, jobs=1)
    before = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    r = subprocess.run([*WATTLAB, "run", str(DEMO), "--out", str(out), "--overwrite"], capture_output=True, text=True, timeout=TIMEOUT)
    assert r.returncode == 2 and "holds a sweep's results" in r.stderr, r.stderr
    assert len([ln for ln in r.stderr.splitlines() if ln.strip()]) == 1
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()} == before


def test_every_table_has_a_csv_twin(tmp_path):
    out = tmp_path / "o"
    wattlab.sweep(tiny(outputs=["flows", "radios", "flow_energy", "savings"]), out, jobs=1)
    for name in ("flows", "radios", "flow_energy", "savings", "runs"):
        pq_df = pd.read_parquet(out / f"{name}.parquet")
        csv_df = pd.read_csv(out / f"{name}.csv")
        assert list(csv_df.columns) == list(pq_df.columns), name
        assert len(csv_df) == len(pq_df) and list(csv_df["run_key"]) == list(pq_df["run_key"]), name
    # the CSVs are deterministic too
    wattlab.sweep(tiny(outputs=["flows", "radios", "flow_energy", "savings"]), tmp_path / "b", jobs=2)
    for p in out.glob("*.csv"):
        assert p.read_bytes() == (tmp_path / "b" / p.name).read_bytes(), p.name


# ---------------------------------------------------------------------------------------------
# The Python API (item 10)


def test_api_refuses_bad_arguments_before_running(tmp_path):
    with pytest.raises(ValueError, match="max_runs"):
        wattlab.sweep(tiny(), tmp_path / "a", max_runs=-1)
    with pytest.raises(StudyError, match="a grid parameter needs a non-empty list") as e:
        wattlab.sweep(tiny(), tmp_path / "b", grid={"flow.0.bytes": "123"})
    assert e.value.key == "grid.flow.0.bytes"
    t0 = time.monotonic()
    with pytest.raises(ValueError, match="table 'bogus' is not one of this study's tables"):
        wattlab.sweep(tiny(), tmp_path / "c", table="bogus")
    assert not (tmp_path / "c").exists()  # refused before anything ran
    with pytest.raises(StudyError, match="unknown output"):
        wattlab.sweep(tiny(), tmp_path / "d", outputs=["flows", "bogus"])
    df = wattlab.sweep(tiny(), tmp_path / "e", outputs="flows", jobs=1)  # one name, not its letters
    assert df.attrs["summary"].tables == ["flows", "runs"]
    assert len(wattlab.sweep(tiny(), tmp_path / "f", max_runs=0, jobs=1)) == 0


def test_api_out_none_keeps_the_other_tables(tmp_path):
    df = wattlab.sweep(tiny(), None, jobs=1, table="radios")
    out = df.attrs["summary"].out
    try:
        assert out.is_dir() and out.name.startswith("wattlab-sweep-")
        for t in ("flows", "radios", "runs"):
            assert (out / f"{t}.parquet").is_file() and (out / f"{t}.csv").is_file()
        assert len(pd.read_parquet(out / "flows.parquet")) == 6
    finally:
        shutil.rmtree(out, ignore_errors=True)


def test_trace_plot_after_its_timeline_folder_is_gone(tmp_path):
    import struct

    import wattlab.trace

    cap = tmp_path / "c.pcap"
    pkt = lambda n: (b"\x45\x00" + struct.pack("!H", 100) + bytes(8) + bytes([10, 0, 0, 2, 10, 0, 0, 9]) + bytes(80))  # noqa: E731
    with cap.open("wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, 65535, 101))
        for i in range(20):
            f.write(struct.pack("<IIII", 1 + i, 0, 100, 100) + pkt(i))
    t = wattlab.trace.energy(cap, timeline_dir=tmp_path / "tl")
    assert t.timeline_files
    shutil.rmtree(tmp_path / "tl")
    with pytest.raises(FileNotFoundError, match=r"no longer exists .*timeline_dir"):
        t.plot(tmp_path / "x.png")
    assert not (tmp_path / "x.png").exists()
