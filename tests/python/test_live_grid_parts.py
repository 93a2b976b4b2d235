"""`wattlab live grid` measured in parts into one directory (no root): every invocation is
recorded in provenance.json (its axes, options, commit, time, load range, tally) with the union
of the shapes the records hold; `--all` rebuilds the whole directory's tables; `--rejudge`
takes every shape with a stored live run, whichever part measured it, and names the requested
shapes that have none. An older provenance.json (one `grid`, no `invocations`: the file the
2026-11-28 grid of tests/data/live-grid/ wrote) is still read."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from wattlab.cli_live import live_app
from wattlab.live import grid, grid_provenance, grid_rejudge
from wattlab.live.netns import LiveInputError

SIZE = "300kB"
OLD_PROV = Path(__file__).resolve().parents[1] / "data" / "live-grid" / "provenance-one-invocation.json"
A = grid.Shape(20, 20, 0)
B = grid.Shape(50, 20, 2)


def _invoke(*args):
    return CliRunner().invoke(live_app, ["grid", *args], catch_exceptions=False)


def _sim_part(out, rates, losses):
    """One simulator-only part of a grid (one run, always-on, linux) into ``out``."""
    r = _invoke("--out", str(out), "--sim-only", "--quiet", "--size", SIZE, "--runs", "1", "--modes", "always-on",
                "--profiles", "linux", "--rtts", "20", "--rates", rates, "--losses", losses)
    assert r.exit_code == 0, r.output
    return r


def test_every_invocation_is_recorded_and_all_prints_the_whole_directory(tmp_path):
    out = tmp_path / "g"
    _sim_part(out, "20", "0")
    _sim_part(out, "50", "2")
    prov = json.loads((out / "provenance.json").read_text())
    assert prov["grid"]["rates_mbps"] == [50.0] and prov["grid"]["losses_pct"] == [2.0]  # this invocation, as before
    inv = prov["invocations"]
    assert [i["shapes"] for i in inv] == [[A.key], [B.key]]
    assert [i["grid"]["rates_mbps"] for i in inv] == [[20.0], [50.0]]
    for i in inv:
        assert i["wattlab_commit"] == prov["wattlab_commit"] and i["started_utc"] <= i["written_utc"]
        assert i["load1"] is None and i["tally"]["sim_new"] == 1  # no live run: no load range
    assert [(s["key"], s["sim"], s["live_verified"]) for s in prov["shapes"]] == [(A.key, 1, 0), (B.key, 1, 0)]
    # Without --all the tables are this invocation's; with it, the whole directory's (and
    # nothing is simulated again), not the product of the axes (20 Mb/s at 2 % never ran).
    assert list(pd.read_csv(out / "grid.csv")["shape"]) == [B.key]
    r = _invoke("--out", str(out), "--sim-only", "--size", SIZE, "--runs", "1", "--modes", "always-on", "--profiles", "linux",
                "--rates", "50", "--rtts", "20", "--losses", "2", "--all", "--max-runs", "0")
    assert r.exit_code == 0, r.output
    assert list(pd.read_csv(out / "grid.csv")["shape"]) == [A.key, B.key]
    assert "20M 20ms 0%" in r.output and "50M 20ms 2%" in r.output and "20M 20ms 2%" not in r.output
    prov = json.loads((out / "provenance.json").read_text())
    assert len(prov["invocations"]) == 3 and prov["invocations"][-1]["shapes"] == [A.key, B.key]
    assert prov["invocations"][-1]["tally"]["sim_stored"] == 2 and prov["invocations"][-1]["tally"]["sim_new"] == 0


def test_an_older_provenance_is_the_first_invocation(tmp_path):
    out = tmp_path / "g"
    out.mkdir()
    shutil.copy(OLD_PROV, out / "provenance.json")
    old = json.loads(OLD_PROV.read_text())
    assert "invocations" not in old  # the format this test is about
    inv = grid_provenance.invocations(old)
    assert len(inv) == 1 and inv[0]["older_format"] and len(inv[0]["shapes"]) == 27
    assert inv[0]["wattlab_commit"] == old["wattlab_commit"] and inv[0]["tally"] == old["this_invocation"]
    # --rejudge reads it (no live record here: the stored axes are kept).
    s = grid_rejudge.stored_spec(out)
    assert (s.rates_mbps, s.runs, s.size) == ((5.0, 20.0, 50.0), 3, "5MB")
    _sim_part(out, "20", "0")
    prov = json.loads((out / "provenance.json").read_text())
    assert len(prov["invocations"]) == 2 and prov["invocations"][0]["older_format"]
    assert prov["invocations"][0]["grid"] == old["grid"] and prov["invocations"][1]["shapes"] == [A.key]
    # --all widens to the older invocation's 27 shapes as well.
    spec = grid.whole_spec(grid.GridSpec(rates_mbps=(20,), rtts_ms=(20,), losses_pct=(0,)), out)
    assert len(spec.shapes()) == 27 and spec.shape_keys is None


def _live_record(stored, shape, mode, scale=1.0):
    """A "live" record of ``shape`` written from this build's linux simulation of seed 1 (so the
    verdict's outcome is known), as test_live_grid_rejudge does."""
    spec = grid.GridSpec(rates_mbps=(shape.rate_mbps,), rtts_ms=(shape.rtt_ms,), losses_pct=(shape.loss_pct,), runs=1, size=SIZE)
    sim = grid.simulate(spec, shape, mode, "linux", 1)
    key = f"live-{shape.key}-{mode}-1-0123456789abcdef"
    rec = {**sim, "side": "live", "profile": "live", "verified": True, "time_s": sim["time_s"] * scale,
           "energy_j": sim["energy_j"] * scale, "host_late_max_ms": 0.5, "load1_before": 1.0, "load1_after": 2.0,
           "dir": "/elsewhere", "started_utc": "2026-11-28T01:00:00Z", "shape": shape.key, "rate_mbps": shape.rate_mbps,
           "rtt_ms": shape.rtt_ms, "loss_pct": shape.loss_pct, "size": SIZE, "key": key,
           "scenario_hash": grid._file_hash(grid.DEFAULT_SCENARIO)}
    (stored / "records" / f"{key}.json").write_text(json.dumps(rec))


def _two_part_grid(tmp_path, provenance_of_last_part_only: bool):
    """A grid measured in two parts, A (20 Mb/s, 20 ms, 0 %) then B (50 Mb/s, 20 ms, 2 %), one run
    per mode; its provenance.json is either the older format naming only the last part's axes
    (what the bug left behind) or the new one with both invocations."""
    stored = tmp_path / "stored"
    (stored / "records").mkdir(parents=True)
    for shape in (A, B):
        for mode in grid.MODES:
            _live_record(stored, shape, mode)
    grids = [grid.GridSpec(rates_mbps=(s.rate_mbps,), rtts_ms=(s.rtt_ms,), losses_pct=(s.loss_pct,), runs=1, size=SIZE)
             for s in (A, B)]
    as_json = lambda g: {k: (str(v) if k == "scenario" else v) for k, v in g.__dict__.items()}  # noqa: E731
    prov = {"grid": as_json(grids[-1]), "scenario_sha256_16": grid._file_hash(grid.DEFAULT_SCENARIO)}
    if not provenance_of_last_part_only:
        prov["invocations"] = [{"grid": as_json(g), "shapes": [s.key]} for g, s in zip(grids, (A, B))]
    (stored / "provenance.json").write_text(json.dumps(prov, default=list))
    return stored


@pytest.mark.parametrize("last_part_only", [True, False])
def test_rejudge_takes_every_measured_shape_of_a_multi_part_grid(tmp_path, last_part_only):
    stored = _two_part_grid(tmp_path, last_part_only)
    spec = grid_rejudge.stored_spec(stored)
    assert [s.key for s in spec.shapes()] == [A.key, B.key]  # not the product: 20 Mb/s at 2 % never ran
    assert grid_rejudge.unmeasured(spec, stored) == []  # every shape a part ran has live runs
    assert [s.key for s in grid_rejudge.unmeasured(spec, stored, losses_pct=(0, 2))] == ["r20-d20-l2", "r50-d20-l0"]
    r = _invoke("--out", str(tmp_path / "re"), "--rejudge", str(stored), "--profiles", "linux", "--rates", "20,50",
                "--losses", "0")
    assert r.exit_code == 0, r.output
    assert "no stored live run at 1 requested shape(s), left out: 50 Mb/s 20 ms 0 %" in r.output
    t = pd.read_csv(tmp_path / "re" / "grid.csv")
    assert list(t["shape"]) == [A.key] and t.iloc[0]["linux_verdict"] == "pass"
    prov = json.loads((tmp_path / "re" / "provenance.json").read_text())
    assert prov["rejudged"]["no_live_runs"] == ["r50-d20-l0"] and prov["rejudged"]["live_records"] == 2
    # The part measured first (refused before the fix when the provenance named the last part only).
    _, t = grid_rejudge.rejudge(grid_rejudge.narrow(spec, losses_pct=(0,)), stored, tmp_path / "re2")
    assert list(t["shape"]) == [A.key] and t.iloc[0]["linux_verdict"] == "pass"
    _, t = grid_rejudge.rejudge(spec, stored, tmp_path / "re3")
    assert list(t["shape"]) == [A.key, B.key] and list(t["linux_verdict"]) == ["pass", "report"]


def test_rejudge_refuses_what_no_part_measured(tmp_path):
    stored = _two_part_grid(tmp_path, True)
    spec = grid_rejudge.stored_spec(stored)
    with pytest.raises(LiveInputError, match="the stored grid has no rates 5 "):
        grid_rejudge.narrow(spec, rates_mbps=(5,))
    with pytest.raises(LiveInputError, match=r"no stored live run at any requested shape \(20 Mb/s 20 ms 2 %\)"):
        grid_rejudge.narrow(spec, rates_mbps=(20,), losses_pct=(2,))
    r = CliRunner().invoke(live_app, ["grid", "--out", str(tmp_path / "re"), "--rejudge", str(stored), "--rates", "20",
                                      "--losses", "2"])
    assert r.exit_code == 2 and "no stored live run at any requested shape" in r.output
    assert not (tmp_path / "re").exists()
