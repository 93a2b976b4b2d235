"""The reproductions on the study engine: a stored run gives back the same RunResult, a
reproduction stopped part way (--max-runs) resumes without recomputing its finished runs, and
its tables are the same bytes with --jobs 1, --jobs 2 or a Dask LocalCluster.

The reproduction is seed 004's quick preset (39 one-minute simulations, well under a second
of simulation): the cheapest."""

from __future__ import annotations

import importlib.util
import re

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from conftest import SCENARIOS

import wattlab
from wattlab.cli import app
from wattlab.reproduce import runner
from wattlab.reproduce.tsaoussidis1999_wwp import experiments, hypotheses
from wattlab.reproduce.tsaoussidis1999_wwp.config import Config
from wattlab.reproduce.tsaoussidis1999_wwp.reproduction import FILES as OUTPUT_FILES
from wattlab.study.points import RunPoint, Tally, encode_run, point_key, result_of, run_points
from wattlab.study.store import Damaged

CSVS = [n for n in OUTPUT_FILES if n.endswith(".csv")]
DEMO = SCENARIOS / "demo.toml"
RUNS = len(experiments.jobs(Config.quick_preset())) + len(hypotheses.jobs(Config.quick_preset()))
"""Runs of the quick reproduction: Table 1's 24 and gap 1's 39 (15 TCP and 2 × 12 WWP variant runs)."""


def reproduce(out, *args):
    """`wattlab reproduce wwp --quick --out OUT ARGS...`: exit code and stderr."""
    r = CliRunner().invoke(app, ["reproduce", "wwp", "--quick", "--out", str(out), *args])
    return r.exit_code, r.stderr


def counts(stderr: str) -> tuple[int, int]:
    """(computed now, stored before) from the closing note."""
    m = re.search(r"(\d+) computed now, (\d+) stored before", stderr)
    assert m, stderr
    return int(m[1]), int(m[2])


def test_a_stored_run_gives_back_the_same_result():
    text = DEMO.read_text()
    direct = wattlab.run(text=text, seed=3, timeseries=True)
    blobs = encode_run(direct)
    stored = result_of(blobs)
    assert stored.summary_json == direct.summary_json and stored.effective_scenario == direct.effective_scenario
    assert set(stored.tables) == set(direct.tables)
    for name in ("flows", "radios", "links", "sockets", "flow_energy", "pages", "objects", "agent_events", "flow_series",
                 "queue_series", "radio_series", "wlans", "wlan_stations"):
        a, b = getattr(direct, name), getattr(stored, name)
        assert a is not None and b is not None, name
        pd.testing.assert_frame_equal(a, b, check_exact=True, obj=name)
    # every table is an Arrow IPC file (no pickle, no format of wattlab's own)
    import pyarrow as pa

    tables = [n for n in blobs if n.endswith(".arrow")]
    assert "flows.arrow" in tables and "timeseries_radio.arrow" in tables
    assert all(pa.ipc.open_file(pa.BufferReader(blobs[n])).read_all().num_columns for n in ("flows.arrow", "radios.arrow"))


def test_a_stored_run_in_another_form_is_damaged_not_misread(tmp_path):
    blobs = encode_run(wattlab.run(DEMO, seed=3))
    # the form before Arrow: a zlib JSON document and an array blob
    with pytest.raises(Damaged, match="not a stored run of this wattlab"):
        result_of({"raw.json.z": b"x", "arrays.bin": b"", "scenario.toml": b""}, tmp_path / "old.run")
    with pytest.raises(Damaged, match="not a stored run of this wattlab"):
        result_of({**blobs, "flows.arrow": b"not arrow"})


def test_run_points_store_dedupe_and_errors(tmp_path):
    text = DEMO.read_text()
    pts = [RunPoint(text, 1), RunPoint(text, 1), RunPoint(text, 1, (("flow.0.bytes", 20_000),))]
    assert point_key(pts[0]) == point_key(pts[1]) != point_key(pts[2])
    t = Tally()
    got = dict(run_points(pts, tmp_path, jobs=2, tally=t))
    assert (t.computed, t.reused, len(got)) == (2, 0, 2)
    assert got[point_key(pts[2])].flows["bytes_delivered"].iloc[0] == 20_000  # typed override applied
    t2 = Tally()
    again = dict(run_points(pts, tmp_path, jobs=2, tally=t2))
    assert (t2.computed, t2.reused) == (0, 2)
    assert again[point_key(pts[0])].summary_json == got[point_key(pts[0])].summary_json
    # a worker's error comes back with its own type, and nothing is stored for it
    with pytest.raises(wattlab.ScenarioError, match="rat"):
        list(run_points([RunPoint(text, 1, (("link.wired.rat", "5ms"),))], tmp_path, jobs=1))
    assert len(list((tmp_path / "runs").iterdir())) == 2


def test_interrupted_reproduction_resumes_without_recomputing(tmp_path):
    out = tmp_path / "a"
    code, err = reproduce(out, "--jobs", "2", "--max-runs", "10")
    assert code == 3, err
    assert "run the same command again" in err
    assert not any((out / n).exists() for n in OUTPUT_FILES), "nothing is written before every run is done"
    stored = {f.name: f.stat().st_mtime_ns for f in (out / "runs").iterdir()}
    assert len(stored) == 10
    code, err = reproduce(out, "--jobs", "2")
    assert code == 0, err
    assert RUNS == 63 and counts(err) == (RUNS - 10, 10)
    for name, mtime in stored.items():
        assert (out / "runs" / name).stat().st_mtime_ns == mtime, f"{name} was recomputed"
    code, err = reproduce(out, "--jobs", "1", "--overwrite")  # a finished reproduction: nothing recomputed
    assert code == 0 and counts(err) == (0, RUNS), err
    fresh = tmp_path / "b"
    code, err = reproduce(fresh, "--jobs", "1")
    assert code == 0 and counts(err) == (RUNS, 0), err
    for n in CSVS:
        assert (out / n).read_bytes() == (fresh / n).read_bytes(), n


def test_dask_local_cluster_same_tables(tmp_path):
    if importlib.util.find_spec("distributed") is None:
        pytest.skip("dask.distributed is not installed (pip install 'wattlab[dask]'; make setup installs it)")
    from dask.distributed import Client, LocalCluster

    from wattlab.reproduce import tsaoussidis1999_wwp as w
    from wattlab.reproduce.tsaoussidis1999_wwp.reproduction import REPRODUCTION

    code, err = reproduce(tmp_path / "local", "--jobs", "2")
    assert code == 0, err
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client, runner.engine(tmp_path / "dask", scheduler=client) as eng:
        REPRODUCTION.run(w.Config.quick_preset(), tmp_path / "dask")
    assert (eng.tally.computed, eng.tally.reused) == (RUNS, 0)
    for n in CSVS:
        assert (tmp_path / "local" / n).read_bytes() == (tmp_path / "dask" / n).read_bytes(), n


def test_without_an_engine_run_jobs_stores_nothing_and_keeps_job_order(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    text = DEMO.read_text()
    jobs = [runner.Job(text, s, {"i": i}) for i, s in enumerate([3, 1, 2, 1])]
    df = runner.run_jobs(jobs, lambda job, res: {"events": res.summary["events"]}, "t", workers=2)
    assert list(df["i"]) == [0, 1, 2, 3] and list(df["seed"]) == [3, 1, 2, 1]
    assert df["events"].iloc[1] == df["events"].iloc[3]
    assert not (tmp_path / "runs").exists()
