"""Hostile and clumsy use of the Python API and of a running simulation (issue 16, items 3, 5,
6 and 10): wattlab errors that derive from Exception, explicit paths vs text, type checks,
the cost warning, progress, and Ctrl-C stopping a run with its partial results."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest

import wattlab
from wattlab import _core
from conftest import SCENARIOS, wlan_scenario

DEMO = SCENARIOS / "demo.toml"

# A UDP flood that would run for days: 1000 Gb/s for an hour.
FLOOD = """
[simulation]
duration = "60min"
[[node]]
name = "a"
kind = "host"
[[node]]
name = "b"
kind = "host"
[[link]]
a = "a"
b = "b"
rate = "1000Gbps"
delay = "1ms"
[[flow]]
kind = "udp-cbr"
name = "flood"
from = "a"
to = "b"
rate = "1000Gbps"
"""


def test_a_panic_is_an_internal_error_not_a_base_exception():
    # Item 3: pyo3's PanicException is a BaseException that `except Exception` misses.
    with pytest.raises(wattlab.InternalError) as info:
        _core._panic_for_tests("boom at byte 3")
    assert isinstance(info.value, Exception) and isinstance(info.value, wattlab.WattlabError)
    assert "this is a wattlab bug, please report it" in str(info.value) and "boom at byte 3" in str(info.value)
    for cls in (wattlab.ScenarioError, wattlab.SimulationError, wattlab.InternalError):
        assert issubclass(cls, wattlab.WattlabError) and issubclass(cls, Exception)


def test_paths_and_text_are_explicit():
    # Item 10: "/nope" was parsed as TOML ("key with no value").
    with pytest.raises(FileNotFoundError, match="scenario file not found: /nope"):
        wattlab.run("/nope")
    with pytest.raises(TypeError, match="looks like TOML text.*text="):
        wattlab.run(DEMO.read_text())
    text = wlan_scenario(bytes_="50kB")
    by_text = wattlab.run(text=text, seed=2)
    by_object = wattlab.run(wattlab.Scenario.from_text(text, "mine.toml"), seed=2)
    assert by_text.summary["flows"] == by_object.summary["flows"] and by_text.summary["events"] == by_object.summary["events"]
    assert by_text.provenance["scenario"] == "<scenario>" and by_object.provenance["scenario"] == "mine.toml"
    assert by_text.provenance["scenario_sha256"] == by_object.provenance["scenario_sha256"]
    by_str = wattlab.run(str(DEMO), overrides=["flow.download.bytes=50kB"])
    by_path = wattlab.run(DEMO, overrides=["flow.download.bytes=50kB"])
    assert by_str.summary_json == by_path.summary_json
    with pytest.raises(TypeError, match="not both"):
        wattlab.run(DEMO, text=text)
    with pytest.raises(TypeError, match="no scenario"):
        wattlab.run()
    wattlab.validate(text=text)
    wattlab.validate(wattlab.Scenario.from_file(DEMO))


@pytest.mark.parametrize(
    ("kwargs", "error", "says"),
    [
        ({"scenario": {"node": []}}, TypeError, "a dict is not a scenario"),
        ({"scenario": b"demo.toml"}, TypeError, "not bytes"),
        ({"scenario": 42}, TypeError, "not int"),
        ({"overrides": "flow.download.bytes=1kB"}, TypeError, "not a single str"),
        ({"overrides": [1]}, TypeError, "not int"),
        ({"pcap": "client:wlan0"}, TypeError, "not a single str"),
        ({"seed": True}, TypeError, "seed must be an int, not bool"),
        ({"seed": 1.5}, TypeError, "not float"),
        ({"seed": -1}, ValueError, r"\[0, 2\*\*64\)"),
        ({"seed": 2**64}, ValueError, r"\[0, 2\*\*64\)"),
        ({"timeseries": "no"}, TypeError, "timeseries must be True or False"),
        ({"baseline": 1}, TypeError, "baseline must be True, False or None"),
        ({"out_dir": ""}, ValueError, "out_dir is empty"),
        ({"out_dir": 3}, TypeError, "out_dir must be"),
        ({"progress": 3}, TypeError, "progress must be callable"),
    ],
)
def test_arguments_of_the_wrong_kind_are_refused_before_running(kwargs, error, says):
    args = {"scenario": DEMO, **kwargs}
    with pytest.raises(error, match=says):
        wattlab.run(**args)


def test_unusable_files_and_huge_text_are_scenario_errors(tmp_path):
    with pytest.raises(wattlab.ScenarioError, match="not a regular file"):
        wattlab.run("/dev/zero")
    with pytest.raises(wattlab.ScenarioError, match="is a directory"):
        wattlab.validate(tmp_path)
    with pytest.raises(wattlab.ScenarioError, match="16 MiB"):
        wattlab.validate(text="#" * (_core.MAX_SCENARIO_BYTES + 1))
    bad = tmp_path / "latin1.toml"
    bad.write_bytes(b'name = "caf\xe9"\n')
    with pytest.raises(wattlab.ScenarioError, match=r"latin1.toml:1:\d+: not UTF-8 text \(byte 11\)"):
        wattlab.validate(bad)


def test_a_runaway_run_is_warned_about_and_progress_can_stop_it():
    # Item 5: a CBR at a huge rate ran for days without a word.
    with pytest.warns(wattlab.CostWarning, match=r"1\.2e\+?12 events.*flow `flood` \(udp-cbr\).*lower its rate"):
        wattlab.validate(text=FLOOD)
    seen = []

    class Enough(Exception):
        pass

    def progress(p: wattlab.Progress) -> None:
        seen.append(p)
        if len(seen) == 2:
            raise Enough

    t0 = time.monotonic()
    with pytest.warns(wattlab.CostWarning), pytest.raises(Enough):
        wattlab.run(text=FLOOD, progress=progress)
    assert time.monotonic() - t0 < 5
    assert seen[0].end_s == 3600.0 and 0 < seen[0].sim_time_s < seen[1].sim_time_s and seen[1].events > seen[0].events
    # An ordinary run gives no warning and no progress calls.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = wattlab.run(text=wlan_scenario(bytes_="50kB"), progress=seen.append)
    assert len(seen) == 2 and res.warnings == [] and not res.interrupted


def _start(code: list[str], tmp_path: Path) -> subprocess.Popen:
    (tmp_path / "flood.toml").write_text(FLOOD)
    return subprocess.Popen(code, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _interrupt(proc: subprocess.Popen, ready: Path, after: float = 1.0) -> tuple[int, str, str, float]:
    """SIGINT ``after`` s once ``ready`` exists (the run is past start-up: on a loaded machine
    importing the CLI alone can take longer than a fixed delay), at most 60 s of waiting."""
    deadline = time.monotonic() + 60
    while not ready.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(after)
    assert proc.poll() is None, proc.communicate()
    proc.send_signal(signal.SIGINT)
    t0 = time.monotonic()
    out, err = proc.communicate(timeout=20)
    return proc.returncode, out, err, time.monotonic() - t0


def test_ctrl_c_stops_a_cli_run_with_its_partial_results(tmp_path):
    # Item 6: the Rust loop never returned to Python, so Ctrl-C did nothing.
    wattlab_cli = Path(sys.executable).parent / "wattlab"
    proc = _start([str(wattlab_cli), "run", "flood.toml", "--out", "res"], tmp_path)
    code, out, err, took = _interrupt(proc, tmp_path / "res")
    assert code == 130, err
    assert took < 5, f"stopped {took:.1f} s after SIGINT"
    lines = [line for line in err.splitlines() if line.strip()]
    assert "Traceback" not in err and lines[-1].startswith("interrupted at "), err
    assert "partial results (marked interrupted) are in res" in lines[-1]
    summary = json.loads((tmp_path / "res" / "summary.json").read_text())
    assert summary["interrupted"] is True and summary["completed"] is False
    assert 0 < summary["end_time_s"] < 3600 and summary["events"] > 0
    assert (tmp_path / "res" / "flows.csv").exists()


def test_ctrl_c_in_the_api_raises_run_interrupted_with_the_results(tmp_path):
    code = (
        "import wattlab\n"
        "open('started', 'w').close()\n"
        "try:\n"
        "    wattlab.run('flood.toml')\n"
        "except wattlab.RunInterrupted as e:\n"
        "    r = e.result\n"
        "    print(isinstance(e, KeyboardInterrupt), r.interrupted, r.completed, r.summary['events'] > 0, r.flows.loc[0, 'name'])\n"
    )
    proc = _start([sys.executable, "-W", "ignore", "-c", code], tmp_path)
    rc, out, err, _ = _interrupt(proc, tmp_path / "started")
    assert rc == 0, err
    assert out.split() == ["True", "True", "False", "True", "flood"], err
