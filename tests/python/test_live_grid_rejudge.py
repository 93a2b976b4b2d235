"""`wattlab live grid --rejudge STORED` and `--sim-set`: today's simulator against a stored
grid's live runs (no root: the "live" records here are written by the test, from a simulation,
so the verdict's outcome is known in advance and can be driven to pass and to fail)."""

from __future__ import annotations

import hashlib
import json

import pandas as pd
import pytest
from click.testing import CliRunner

from wattlab.cli_live import live_app
from wattlab.live import grid, grid_rejudge
from wattlab.live.netns import LiveInputError

SHAPE = grid.Shape(20, 20, 0)
SIZE = "300kB"


def _invoke(*args):
    return CliRunner().invoke(live_app, ["grid", *args], catch_exceptions=False)


def _stored(tmp_path, scale_on: float = 1.0, scale_cc: float = 1.0):
    """A stored grid of one shape (20 Mb/s, 20 ms, no loss), one run per mode, whose "live"
    records are this build's linux simulation of seed 1 with its times and energies scaled
    (1.0: the simulator agrees exactly), each with a run directory as a live run leaves it."""
    stored = tmp_path / "stored"
    spec = grid.GridSpec(rates_mbps=(20, 50), rtts_ms=(20,), losses_pct=(0,), runs=1, size=SIZE)
    (stored / "records").mkdir(parents=True)
    scale = {"always-on": scale_on, "cc": scale_cc}
    for mode in spec.modes:
        sim = grid.simulate(spec, SHAPE, mode, "linux", 1)
        key = f"live-{SHAPE.key}-{mode}-1-0123456789abcdef"
        rundir = stored / "live" / SHAPE.key / f"{mode}-1"
        rundir.mkdir(parents=True)
        (rundir / "tcp_settings.json").write_text(json.dumps({"kernel": {"release": "test"}}))
        rec = {**sim, "side": "live", "profile": "live", "verified": True, "time_s": sim["time_s"] * scale[mode],
               "energy_j": sim["energy_j"] * scale[mode], "capture_energy_j": sim["energy_j"] * scale[mode] * 1.05, "host_late_max_ms": 0.5, "load1_before": 1.0, "load1_after": 1.0,
               "dir": "/elsewhere/where/the/grid/ran", "started_utc": "2026-11-28T01:00:00Z", "shape": SHAPE.key,
               "rate_mbps": 20.0, "rtt_ms": 20.0, "loss_pct": 0.0, "size": SIZE, "key": key}
        (stored / "records" / f"{key}.json").write_text(json.dumps(rec))
    prov = {"grid": {k: (str(v) if k == "scenario" else v) for k, v in spec.__dict__.items()},
            "scenario_sha256_16": grid._file_hash(grid.DEFAULT_SCENARIO)}
    (stored / "provenance.json").write_text(json.dumps(prov, default=list))
    return stored


def _digest(d):
    return hashlib.sha256(b"".join(p.name.encode() + p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file())).hexdigest()


def test_help_names_the_options():
    r = _invoke("--help")
    assert "--rejudge" in r.output and "--sim-set" in r.output


@pytest.mark.parametrize("value, needle", [("autotune", "give [PROFILE:]KEY=VALUE"), ("bsd:flow.0.tcp.sack=true", "unknown profile `bsd`")])
def test_bad_sim_set_is_a_usage_error(tmp_path, value, needle):
    r = CliRunner().invoke(live_app, ["grid", "--out", str(tmp_path / "g"), "--sim-only", "--sim-set", value])
    assert r.exit_code == 2 and needle in r.output
    assert not (tmp_path / "g").exists()


def test_sim_set_applies_to_its_profile_and_keys_the_simulation():
    spec = grid.GridSpec(sim_sets=(("linux", "flow.0.tcp.autotune=false"), ("", "flow.0.tcp.sack=true")))
    assert spec.sim_overrides("linux") == ["flow.0.tcp.autotune=false", "flow.0.tcp.sack=true"]
    assert spec.sim_overrides("textbook") == ["flow.0.tcp.sack=true"]
    plain = grid.GridSpec()
    assert grid.sim_key(spec, SHAPE, "cc", "linux", 1, "h") != grid.sim_key(plain, SHAPE, "cc", "linux", 1, "h")
    # Every key names the simulated server's transmit path (SIM_HOST); a cc key also the
    # simulated agent's processing times (SIM_AGENT).
    assert grid.sim_key(plain, SHAPE, "always-on", "linux", 1, "h") == f"sim-{SHAPE.key}-always-on-linux-1-" + grid._hash(["h", "5MB", grid._core(), grid.SIM_HOST])
    assert grid.sim_key(plain, SHAPE, "cc", "linux", 1, "h") == f"sim-{SHAPE.key}-cc-linux-1-" + grid._hash(["h", "5MB", grid._core(), grid.SIM_HOST, grid.SIM_AGENT["cc"]])


def test_the_cc_simulations_carry_the_live_agents_processing_time(monkeypatch):
    seen = {}

    class Sim:
        summary = {"flows": [{"completion_time_s": 1.0, "retransmitted_segments": 0, "completed": True}]}
        radios = pd.DataFrame([{"policy": "cc", "energy_j": 1.0}, {"policy": "always-on", "energy_j": 2.0}])
        agents = pd.DataFrame()

    def run(scenario, overrides):
        seen[overrides[0]] = list(overrides)
        return Sim()

    monkeypatch.setattr("wattlab.api.run", run)
    spec = grid.GridSpec(sim_sets=(("linux", 'wireless.0.agent.incoming_delay="0us"'),))
    grid.simulate(spec, SHAPE, "cc", "linux", 1)
    grid.simulate(spec, SHAPE, "always-on", "linux", 1)
    cc, cam = seen['wireless.0.power_save="cc"'], seen['wireless.0.power_save="cam"']
    assert all(o in cc for o in grid.SIM_AGENT["cc"]) and all(o in cc and o in cam for o in grid.SIM_HOST)
    # Always-on has no agent: only the --sim-set override (which a real always-on run refuses).
    assert [o for o in cam if "agent." in o] == ['wireless.0.agent.incoming_delay="0us"']
    # --sim-set comes after the agent's times, so it can replace them.
    assert cc.index('wireless.0.agent.incoming_delay="0us"') > cc.index(grid.SIM_AGENT["cc"][0])


def test_rejudge_passes_against_its_own_numbers_and_leaves_the_stored_grid_alone(tmp_path):
    stored = _stored(tmp_path)
    before = _digest(stored)
    out = tmp_path / "re"
    r = _invoke("--out", str(out), "--rejudge", str(stored), "--profiles", "linux")
    assert r.exit_code == 0, r.output
    assert _digest(stored) == before
    t = pd.read_csv(out / "grid.csv")
    assert list(t["shape"]) == ["r20-d20-l0"]  # the stored shapes with live runs
    row = t.iloc[0]
    assert row["linux_verdict"] == "pass"
    assert row["linux_always-on_time_s_gap_pct"] == pytest.approx(0.0) and row["linux_saving_gap_pp"] == pytest.approx(0.0)
    assert "left out: 50 Mb/s 20 ms 0 %" in r.output  # the stored axes' shape without a live run is named
    prov = json.loads((out / "provenance.json").read_text())
    assert prov["rejudged"]["live_from"] == str(stored.resolve()) and prov["rejudged"]["live_records"] == 2
    assert prov["rejudged"]["no_live_runs"] == ["r50-d20-l0"]
    assert prov["testbed_tcp"] == {"kernel": {"release": "test"}}  # found where the run directory now is
    runs = pd.read_csv(out / "runs.csv")
    assert set(runs[runs.side == "live"]["dir"]) == {str(stored.resolve() / "live" / SHAPE.key / m) for m in ("always-on-1", "cc-1")}
    assert (out / "grid.png").exists()


def test_rejudge_fails_when_the_live_side_differs_and_sim_set_changes_the_simulation(tmp_path):
    stored = _stored(tmp_path, scale_on=1.10)  # live 10 % slower always-on than the model
    out = tmp_path / "re"
    spec = grid_rejudge.narrow(grid_rejudge.stored_spec(stored), rates_mbps=(20,))
    _, t = grid_rejudge.rejudge(grid.GridSpec(**{**spec.__dict__, "profiles": ("linux",)}), stored, out)
    assert t.iloc[0]["linux_verdict"] == "fail"
    assert t.iloc[0]["linux_always-on_time_s_gap_pct"] == pytest.approx(100 * (1 / 1.10 - 1))
    assert grid_rejudge.verdict_counts(t, "linux") == {"fail": 1}
    # A --sim-set for linux changes linux's simulation (a 16 KB window is much slower) and is
    # stored under its own key beside the first.
    spec2 = grid.GridSpec(**{**spec.__dict__, "profiles": ("linux",),
                             "sim_sets": (("linux", "flow.0.tcp.recv_buffer=16384"), ("textbook", "flow.0.tcp.sack=true"))})
    _, t2 = grid_rejudge.rejudge(spec2, stored, out)
    assert t2.iloc[0]["linux_always-on_time_s"] > 1.5 * t.iloc[0]["linux_always-on_time_s"]
    assert len(list((out / "records").glob("sim-*.json"))) == 4


@pytest.mark.parametrize("args, needle", [
    (["--rates", "5"], "the stored grid has no rates 5"),
    (["--sim-set", "linux:flow.0.tcp.nonsense=1"], "nonsense"),
])
def test_rejudge_refuses_what_the_stored_grid_cannot_answer(tmp_path, args, needle):
    stored = _stored(tmp_path)
    r = CliRunner().invoke(live_app, ["grid", "--out", str(tmp_path / "re"), "--rejudge", str(stored), *args])
    assert r.exit_code == 2, r.output
    assert needle in r.output
    assert not (tmp_path / "re" / "records").exists()


def test_rejudge_refuses_its_own_directory_and_another_scenario(tmp_path):
    stored = _stored(tmp_path)
    r = CliRunner().invoke(live_app, ["grid", "--out", str(stored), "--rejudge", str(stored)])
    assert r.exit_code == 2 and "another --out" in r.output
    scn = tmp_path / "other.toml"
    scn.write_text(grid.DEFAULT_SCENARIO.read_text() + "\n# changed\n")
    with pytest.raises(LiveInputError, match="hash"):
        grid_rejudge.stored_spec(stored, scn)
    with pytest.raises(LiveInputError, match="not a grid's results directory"):
        grid_rejudge.stored_spec(tmp_path)


def test_live_records_keep_only_verified_runs_of_the_same_scenario_and_size(tmp_path):
    stored = _stored(tmp_path)
    spec = grid_rejudge.stored_spec(stored)
    assert sorted(grid_rejudge.live_records(stored, spec)) == [(SHAPE.key, "always-on", 1), (SHAPE.key, "cc", 1)]
    for mode, change in (("always-on", {"scenario_hash": "0000000000000000"}), ("cc", {"verified": False})):
        path = next((stored / "records").glob(f"live-{SHAPE.key}-{mode}-1-*.json"))
        path.write_text(json.dumps({**json.loads(path.read_text()), **change}))
    assert grid_rejudge.live_records(stored, spec) == {}
    with pytest.raises(LiveInputError, match="no verified live run"):
        grid_rejudge.rejudge(spec, stored, tmp_path / "re")


def test_a_grid_run_in_parts_is_judged_on_every_part(tmp_path):
    """provenance.json keeps the axes of a grid's last invocation only (the grid is run in
    parts with --rates/--rtts/--losses into one directory): the stored records hold the rest."""
    stored = _stored(tmp_path)
    prov = json.loads((stored / "provenance.json").read_text())
    prov["grid"]["rates_mbps"], prov["grid"]["rtts_ms"] = [50.0], [90.0]
    (stored / "provenance.json").write_text(json.dumps(prov))
    spec = grid_rejudge.stored_spec(stored)
    # The shapes judged are the ones with stored live runs (20 Mb/s 20 ms), not the last part's.
    assert (spec.rates_mbps, spec.rtts_ms, spec.losses_pct, spec.runs) == ((20.0,), (20.0,), (0.0,), 1)
    assert sorted(grid_rejudge.live_records(stored, grid_rejudge.narrow(spec, rates_mbps=(20,), rtts_ms=(20,)))) == [
        (SHAPE.key, "always-on", 1), (SHAPE.key, "cc", 1)]


def test_a_scenario_whose_first_node_is_not_the_server_is_refused(tmp_path):
    """SIM_HOST addresses the server as node 0."""
    body = '[[node]]\nname = "{0}"\n[[node]]\nname = "{1}"\n[[flow]]\nclient = "client"\nserver = "server"\n'
    bad, good = tmp_path / "bad.toml", tmp_path / "good.toml"
    bad.write_text(body.format("client", "server"))
    good.write_text(body.format("server", "client"))
    with pytest.raises(LiveInputError, match="as node 0.*put the flow's server `server` first"):
        grid._check_server_first(bad)
    grid._check_server_first(good)
