"""Studies (`wattlab sweep`, `wattlab.sweep`): expansion with typed values, tidy Parquet with
status and provenance, determinism across --jobs and a Dask LocalCluster, resume without
recomputing, incomplete runs flagged and counted, located study errors, `run --compare`."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import wattlab
from wattlab.study import StudyError, load
from wattlab.study.spec import toml_value

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "scenarios" / "demo.toml"
WATTLAB = [sys.executable, "-m", "wattlab.cli"]
TABLES = ("flows", "radios", "flow_energy", "runs")


def small_study(**extra) -> dict:
    """12 very short downloads: 3 power modes × 2 RTTs × 2 seeds (about 2 ms each)."""
    return {"scenario": str(DEMO), "seeds": [1, 2], "outputs": ["flows", "radios", "flow_energy"],
            "set": {"flow.0.bytes": 20_000},
            "grid": {"wireless.wlan.power_save": ["cam", "psm", "cc"], "link.wired.delay": ["10ms", "40ms"]}, **extra}


def test_grid_zip_random_expand_with_types():
    st = load({"scenario": str(DEMO), "seeds": {"start": 5, "count": 2},
               "grid": {"flow.0.bytes": [20_000, 40_000], "wireless.wlan.down.loss.p": [0, 0.01]},
               "zip": {"link.wired.delay": ["10ms", "30ms", "90ms"], "link.wired.rate": ["10Mbps", "50Mbps", "100Mbps"]},
               "random": {"samples": 2, "seed": 7, "wireless.wlan.rate": {"uniform": [5, 20], "unit": "Mbps"},
                          "flow.0.tcp.cc": {"choice": ["newreno", "reno"]}}})
    pts = st.points()
    assert len(pts) == 2 * 2 * 3 * 2 * 2
    assert st.seeds == [5, 6]
    p = pts[0]
    ov = dict(o.split("=", 1) for o in p.overrides)
    assert ov["flow.0.bytes"] == "20000"            # an int stays an int
    assert ov["link.wired.delay"] == '"10ms"'       # a string stays a string
    assert ov["wireless.wlan.down.loss.p"] == "0"
    assert ov["wireless.wlan.rate"].endswith('Mbps"')
    cols = dict(p.columns)
    assert isinstance(cols["flow.0.bytes"], int)
    assert isinstance(cols["wireless.wlan.down.loss.p"], float)  # 0 and 0.01: one float column
    assert 5 <= cols["wireless.wlan.rate"] <= 20
    # zip advances together; random draws are the same for the same seed
    pairs = {(dict(q.params)["link.wired.delay"], dict(q.params)["link.wired.rate"]) for q in pts}
    assert pairs == {("10ms", "10Mbps"), ("30ms", "50Mbps"), ("90ms", "100Mbps")}
    again = load({"scenario": str(DEMO), "seeds": {"start": 5, "count": 2},
                  "grid": st.grid, "zip": st.zip,
                  "random": {"samples": 2, "seed": 7, "wireless.wlan.rate": {"uniform": [5, 20], "unit": "Mbps"},
                             "flow.0.tcp.cc": {"choice": ["newreno", "reno"]}}})
    assert [q.key for q in again.points()] == [q.key for q in pts]
    assert len({q.key for q in pts}) == len(pts)
    assert toml_value({"p": 0.5, "model": "bernoulli"}) == '{ "p" = 0.5, "model" = "bernoulli" }'
    assert toml_value(True) == "true"


def test_sweep_tidy_tables_and_determinism(tmp_path):
    a = wattlab.sweep(small_study(), tmp_path / "a", jobs=1)
    s = a.attrs["summary"]
    assert (s.total, s.computed, s.left) == (12, 12, 0)
    assert s.by_status == {"completed": 12}
    assert list(a.columns[:5]) == ["wireless.wlan.power_save", "link.wired.delay", "link.wired.delay_s", "run_key", "seed"]
    for col in ("run_status", "run_completed", "run_time_limit_hit", "wattlab_version", "wattlab_commit",
                "study_hash", "scenario_hash"):
        assert col in a.columns
    assert a["run_completed"].all() and len(a) == 12
    assert a["wattlab_commit"].iloc[0] == wattlab._core.__commit__
    radios = pd.read_parquet(tmp_path / "a" / "radios.parquet")
    assert set(radios["wireless.wlan.power_save"]) == {"cam", "psm", "cc"}
    runs = pd.read_parquet(tmp_path / "a" / "runs.parquet")
    assert len(runs) == 12 and runs["run_key"].is_unique
    # --jobs 2 gives the same bytes; wall times are only in timing.json
    wattlab.sweep(small_study(), tmp_path / "b", jobs=2)
    for t in TABLES:
        assert (tmp_path / "a" / f"{t}.parquet").read_bytes() == (tmp_path / "b" / f"{t}.parquet").read_bytes(), t
    assert json.loads((tmp_path / "a" / "timing.json").read_text())["runs"]


def test_dask_local_cluster_same_bytes(tmp_path):
    if importlib.util.find_spec("distributed") is None:
        pytest.skip("dask.distributed is not installed (pip install 'wattlab[dask]'; make setup installs it)")
    from dask.distributed import Client, LocalCluster

    wattlab.sweep(small_study(), tmp_path / "local", jobs=1)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        df = wattlab.sweep(small_study(), tmp_path / "dask", scheduler=client)
    assert df.attrs["summary"].computed == 12
    workers = {v["worker"] for v in json.loads((tmp_path / "dask" / "timing.json").read_text())["runs"].values()}
    assert len(workers) >= 1
    for t in TABLES:
        assert (tmp_path / "local" / f"{t}.parquet").read_bytes() == (tmp_path / "dask" / f"{t}.parquet").read_bytes(), t


def test_missing_dask_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "dask.distributed", None)
    with pytest.raises(RuntimeError, match=r"wattlab\[dask\]"):
        wattlab.sweep(small_study(), tmp_path, scheduler="tcp://127.0.0.1:1")


def test_interrupted_study_resumes_without_recomputing(tmp_path):
    out = tmp_path / "s"
    part = wattlab.sweep(small_study(), out, jobs=2, max_runs=5)
    s = part.attrs["summary"]
    assert (s.computed, s.reused, s.left) == (5, 0, 7)
    assert not (out / "flows.parquet").exists() and len(part) == 5
    rest = wattlab.sweep(small_study(), out, jobs=2).attrs["summary"]
    assert (rest.computed, rest.reused, rest.left) == (7, 5, 0)
    again = wattlab.sweep(small_study(), out, jobs=1).attrs["summary"]
    assert (again.computed, again.reused) == (0, 12)
    # runs lost (a kill mid-study) are the only ones recomputed
    lost = sorted((out / "runs").iterdir())[:3]
    for f in lost:
        f.unlink()
    redo = wattlab.sweep(small_study(), out, jobs=1).attrs["summary"]
    assert (redo.computed, redo.reused) == (3, 9)
    fresh = tmp_path / "fresh"
    wattlab.sweep(small_study(), fresh, jobs=1)
    for t in TABLES:
        assert (out / f"{t}.parquet").read_bytes() == (fresh / f"{t}.parquet").read_bytes(), t


def test_another_study_in_the_same_dir_is_refused(tmp_path):
    wattlab.sweep(small_study(seeds=[1]), tmp_path, jobs=1)
    with pytest.raises(StudyError, match="another study"):
        wattlab.sweep(small_study(seeds=[3]), tmp_path, jobs=1)


def test_incomplete_runs_are_flagged_and_counted(tmp_path):
    study = tmp_path / "limit.toml"
    study.write_text(f'scenario = "{DEMO}"\nseeds = [1]\n[set]\n"flow.0.bytes" = 20000\n'
                     '[grid]\n"simulation.duration" = ["50ms", "60s"]\n')
    r = subprocess.run([*WATTLAB, "sweep", str(study), "--out", str(tmp_path / "o"), "-j", "1"],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 3, r.stderr
    assert "1 of 2 runs completed" in r.stderr and "1 run(s) hit their time limit" in r.stderr
    runs = pd.read_parquet(tmp_path / "o" / "runs.parquet")
    assert list(runs["run_status"]) == ["time-limit", "completed"]
    flows = pd.read_parquet(tmp_path / "o" / "flows.parquet")
    assert list(flows["run_completed"]) == [False, True] and list(flows["run_time_limit_hit"]) == [True, False]
    r = subprocess.run([*WATTLAB, "sweep", str(study), "--out", str(tmp_path / "o"), "--allow-incomplete"],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0 and "0 computed now" in r.stderr


@pytest.mark.parametrize("text, where, key", [
    ('scenario = "{demo}"\nseeds = [1,\n', ":2:", None),
    ('scenario = "{demo}"\nseedz = 3\n', ":2:1:", "seedz"),
    ('scenario = "{demo}"\n\n[grid]\n"link.wired.rate" = "10Mbps"\n', ":4:1:", "grid.link.wired.rate"),
    ('scenario = "{demo}"\n[zip]\n"flow.0.bytes" = [1, 2]\n"link.wired.rate" = ["1Mbps"]\n', ":4:1:", "zip.link.wired.rate"),
    ('scenario = "{demo}"\n[grid]\n"flow.0.bytes" = [20000]\n"link.wired.rat" = ["10Mbps"]\n', ":4:1:", "grid.link.wired.rat"),
    ('scenario = "{demo}"\n[grid]\n  "flow.0.bytes" = ["1MB", "lots"]\n', ":3:3:", "grid.flow.0.bytes"),
    ('scenario = "nowhere.toml"\n', ":1:1:", "scenario"),
    ('scenario = "{demo}"\n[random]\n"link.wired.delay" = {{ uniform = [1, 2] }}\n', ":2:1:", "random"),
])
def test_study_errors_are_located(tmp_path, text, where, key):
    path = tmp_path / "bad.toml"
    path.write_text(text.format(demo=DEMO))
    with pytest.raises(StudyError) as e:
        wattlab.sweep(path, tmp_path / "out", jobs=1)
    msg = str(e.value)
    assert msg.startswith(f"{path}{where}"), msg
    assert e.value.key == key
    assert isinstance(e.value, wattlab.ScenarioError)
    r = subprocess.run([*WATTLAB, "sweep", str(path), "--out", str(tmp_path / "cli")], capture_output=True, text=True)
    assert r.returncode == 2 and f"{path}{where}" in r.stderr


def test_run_compare_prints_savings_against_the_first_value():
    r = subprocess.run([*WATTLAB, "run", str(DEMO), "--set", "flow.0.bytes=200000",
                        "--compare", "wireless.wlan.power_save=cam,psm,cc"], capture_output=True, text=True,
                       env={**os.environ, "COLUMNS": "200"})  # one header line (80 columns wrap it: test_tables.py)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    header = next(line for line in lines if "saving client" in line)
    assert "energy client (J)" in header and "slowdown" in header
    rows = {line.split()[0]: line for line in lines if line.split() and line.split()[0] in ("cam", "psm", "cc")}
    assert "(base)" in rows["cam"] and "%" in rows["psm"] and "%" in rows["cc"]
    r = subprocess.run([*WATTLAB, "run", str(DEMO), "--set", "flow.0.bytes=200000", "--json",
                        "--compare", "wireless.wlan.power_save=cam,psm"], capture_output=True, text=True)
    rows = json.loads(r.stdout)
    assert rows[0]["saving[client]"] == 0.0 and rows[1]["saving[client]"] > 0
    r = subprocess.run([*WATTLAB, "run", str(DEMO), "--compare", "wireless.wlan.power_save=cam"], capture_output=True, text=True)
    assert r.returncode == 2 and "at least two values" in r.stderr


def test_a_study_of_over_500_runs_is_interrupted_and_resumed(tmp_path, capsys):
    """504 tiny runs (6 points × 84 seeds): stopped after 200, resumed, then nothing to redo."""
    study = small_study(seeds={"start": 1, "count": 84}, grid={"wireless.wlan.power_save": ["cam", "psm", "cc"],
                                                               "link.wired.delay": ["10ms", "40ms"]},
                        outputs=["radios"])
    first = wattlab.sweep(study, tmp_path, jobs=2, max_runs=200, table="runs").attrs["summary"]
    assert (first.total, first.computed, first.left) == (504, 200, 304)
    df = wattlab.sweep(study, tmp_path, jobs=2, table="runs", progress=True)
    s = df.attrs["summary"]
    assert (s.computed, s.reused, s.left, s.by_status) == (304, 200, 0, {"completed": 504})
    assert len(df) == 504 and df["run_key"].is_unique
    err = capsys.readouterr().err
    assert "304/304" in err and "runs/s" in err and "ETA" in err
    assert wattlab.sweep(study, tmp_path, jobs=2, table="runs").attrs["summary"].computed == 0
