"""`wattlab live grid`: the sim-vs-live grid (issue 33 item 2).

Without root: option parsing and its errors, the verdict driven to each of its values, the
80-column tables, a simulator-only grid (stored, resumed, re-simulated on request). As root
(CI): one grid point live (20 Mb/s, 20 ms, no loss, 1 MB), interrupted by --max-runs and
resumed, with the structure of every output and a sane sim/live agreement bound."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest
from click.testing import CliRunner

from test_live import needs_live, runs  # noqa: F401 - `runs` is a fixture
from wattlab.cli_live import live_app
from wattlab.live import grid
from wattlab.live.netns import LiveInputError


def _invoke(*args):
    return CliRunner().invoke(live_app, ["grid", *args], catch_exceptions=False)


# --------------------------------------------------------------------------------------------
# Without root


def test_help_names_every_option():
    r = _invoke("--help")
    assert r.exit_code == 0
    for opt in ("--out", "--scenario", "--rates", "--rtts", "--losses", "--runs", "--modes", "--profiles", "--size",
                "--time-limit", "--sysctl", "--time-tol", "--saving-tol", "--verdict-max-loss", "--max-runs", "--sim-only",
                "--resim", "--rerun-live", "--quiet", "--all"):
        assert opt in r.output, opt


@pytest.mark.parametrize("args, needle", [
    (["--rates", "0,20"], "outside (0, 1000]"),
    (["--rates", "20,x"], "`x` is not a number"),
    (["--rtts", "20,20"], "given twice"),
    (["--losses", "nan"], "outside [0, 50]"),
    (["--modes", "always-on,psm"], "unknown `psm`"),
    (["--profiles", "bsd"], "unknown `bsd`"),
    (["--runs", "0"], "0 is not in the range"),
])
def test_bad_options_are_usage_errors(tmp_path, args, needle):
    r = CliRunner().invoke(live_app, ["grid", "--out", str(tmp_path / "g"), *args])
    assert r.exit_code == 2
    assert needle in r.output
    assert not (tmp_path / "g").exists()  # nothing ran


def test_parse_numbers():
    assert grid.parse_numbers("5, 20,50", "--rates", 0, 1000, True) == (5.0, 20.0, 50.0)
    with pytest.raises(LiveInputError, match="--rtts 3000: 3000 is outside"):
        grid.parse_numbers("3000", "--rtts", 0, 2000)


def test_shape_overrides_put_the_rtt_on_the_wired_link():
    s = grid.Shape(20, 90, 0.5)
    assert s.key == "r20-d90-l0.5"
    assert s.overrides("1MB", 2) == ['wireless.0.rate="20Mbps"', 'link.0.delay="45ms"', "wireless.0.down.loss.p=0.005",
                                     'flow.0.bytes="1MB"', "simulation.seed=2"]


def _runs_frame(live_on, live_cc, sim_on, sim_cc, loss=0.0, e_live=(10.0, 7.0), e_sim=(10.0, 7.0)):
    """Records of one shape: live and linux-sim times/energies (one run, one seed)."""
    base = {"shape": grid.Shape(20, 20, loss).key, "rate_mbps": 20, "rtt_ms": 20, "loss_pct": loss, "run": 1, "seed": 1,
            "retransmitted": 0, "host_late_max_ms": 0.1, "load1_before": 1.0, "load1_after": 1.0, "verified": True}
    rows = [
        {**base, "side": "live", "profile": "live", "mode": "always-on", "time_s": live_on, "energy_j": e_live[0]},
        {**base, "side": "live", "profile": "live", "mode": "cc", "time_s": live_cc, "energy_j": e_live[1]},
        {**base, "side": "sim", "profile": "linux", "mode": "always-on", "time_s": sim_on, "energy_j": e_sim[0]},
        {**base, "side": "sim", "profile": "linux", "mode": "cc", "time_s": sim_cc, "energy_j": e_sim[1]},
    ]
    return pd.DataFrame(rows)


@pytest.mark.parametrize("case, want", [
    (dict(live_on=1.0, live_cc=1.2, sim_on=1.04, sim_cc=1.15), "pass"),
    (dict(live_on=1.0, live_cc=1.2, sim_on=1.06, sim_cc=1.2), "fail"),             # time +6 %
    (dict(live_on=1.0, live_cc=1.2, sim_on=1.0, sim_cc=1.2, e_sim=(10.0, 6.5)), "fail"),  # saving +5 pp
    (dict(live_on=1.0, live_cc=1.2, sim_on=1.5, sim_cc=1.2, loss=2.0), "report"),  # high loss: not judged
    (dict(live_on=None, live_cc=1.2, sim_on=1.0, sim_cc=1.2), "incomplete"),
])
def test_verdict_reaches_each_value(case, want):
    spec = grid.GridSpec(rates_mbps=(20,), rtts_ms=(20,), losses_pct=(case.get("loss", 0.0),), runs=1, profiles=("linux",))
    t = grid.summarize(spec, _runs_frame(**case))
    assert t.loc[0, "linux_verdict"] == want
    if want == "pass":
        assert t.loc[0, "linux_always-on_time_s_gap_pct"] == pytest.approx(4.0)
        assert t.loc[0, "live_saving_pct"] == pytest.approx(30.0)
        assert t.loc[0, "linux_saving_gap_pp"] == pytest.approx(0.0)


def _seeded_frame(live_cc, sim_cc, reverted=((1, 1, 1), (1, 1, 1))):
    """One shape, three seeds: the cc times per seed (always-on equal on both sides)."""
    frames = []
    for seed, (lc, sc) in enumerate(zip(live_cc, sim_cc), start=1):
        f = _runs_frame(live_on=1.0, live_cc=lc, sim_on=1.0, sim_cc=sc)
        f["run"], f["seed"] = seed, seed
        f["agent_reverted"] = [None, reverted[0][seed - 1], None, reverted[1][seed - 1]]
        frames.append(f)
    return pd.concat(frames, ignore_index=True)


@pytest.mark.parametrize("live_cc, sim_cc, medians, paired", [
    # Seed 2's run is far slower simulated: the medians (live 4.0, simulated 8.16) fail;
    # paired, the per-seed gaps +2 %, +400 %, +2 % have the median +2 %: pass.
    ((1.0, 4.0, 8.0), (1.02, 20.0, 8.16), "fail", "pass"),
    ((1.0, 4.0, 8.0), (1.5, 4.0, 12.0), "pass", "fail"),  # same medians, each seed +50 % / 0 / +50 %
    ((1.0, 4.0, 8.0), (1.02, 4.08, 8.16), "pass", "pass"),
])
def test_the_paired_verdict_compares_seed_with_seed(live_cc, sim_cc, medians, paired):
    spec = grid.GridSpec(rates_mbps=(20,), rtts_ms=(20,), losses_pct=(0.0,), runs=3, profiles=("linux",))
    t = grid.summarize(spec, _seeded_frame(live_cc, sim_cc, reverted=((1, 0, 1), (1, 1, 1))))
    assert (t.loc[0, "linux_verdict"], t.loc[0, "linux_paired_verdict"]) == (medians, paired)
    assert t.loc[0, "linux_paired_cc_seeds"] == 3 and t.loc[0, "linux_paired_cc_same_decision"] == 2
    text = grid.text_tables(spec, t)
    assert "Paired by seed" in text and " 2/3 " in text
    assert max(len(line) for line in text.splitlines()) <= 80, text


def test_a_live_record_is_keyed_by_the_plan_the_hosts_get():
    """A build that changes what the live hosts do (here the client's receive buffer) must not
    reuse live records made with the old plan; the scenario's own name does not matter."""
    spec, shape = grid.GridSpec(), grid.Shape(20, 20, 0)
    plan = {"scenario": "a", "recv_buffer": 3145728, "cc": "cubic"}
    same = grid.live_key(spec, shape, "cc", 1, "h", "k", dict(plan, scenario="b"))
    assert grid.live_key(spec, shape, "cc", 1, "h", "k", plan) == same
    assert grid.live_key(spec, shape, "cc", 1, "h", "k", dict(plan, recv_buffer=None)) != same


def test_tables_fit_80_columns():
    spec = grid.GridSpec(rates_mbps=(20,), rtts_ms=(20,), losses_pct=(0.0,), runs=1, profiles=("linux", "textbook"))
    t = grid.summarize(spec, _runs_frame(live_on=12.345, live_cc=123.456, sim_on=12.0, sim_cc=100.0))
    text = grid.text_tables(spec, t)
    assert "20M 20ms 0%" in text and "fail" in text  # cc is 19 % short of live
    assert max(len(line) for line in text.splitlines()) <= 80, text


def test_sim_only_grid_is_stored_and_resumed(tmp_path):
    out = tmp_path / "g"
    args = ["--out", str(out), "--rates", "20", "--rtts", "20", "--losses", "0,1", "--runs", "2", "--size", "200kB",
            "--sim-only", "--quiet"]
    r = _invoke(*args)
    assert r.exit_code == 0, r.output
    recs = sorted((out / "records").glob("sim-*.json"))
    assert len(recs) == 2 * 2 * 2 * 2  # shapes × modes × profiles × seeds
    t = pd.read_csv(out / "grid.csv")
    assert list(t["shape"]) == ["r20-d20-l0", "r20-d20-l1"]
    assert (t["linux_verdict"] == "incomplete").all()  # no live side: nothing to judge
    # Linux's IW10 and 3 MiB window finish a 200 kB download sooner than the textbook's IW2/64 KB.
    assert (t["linux_always-on_time_s"] < t["textbook_always-on_time_s"]).all()
    assert math.isfinite(t.loc[0, "linux_saving_pct"])
    prov = json.loads((out / "provenance.json").read_text())
    assert prov["grid"]["rates_mbps"] == [20.0] and prov["wattlab_commit"] and prov["kernel"]["release"]
    assert (out / "runs.parquet").exists() and not (out / "grid.png").exists()  # a figure needs the live side
    first = {p.name: p.read_bytes() for p in recs}
    grid_first = (out / "grid.csv").read_bytes()
    tally = grid.run_grid(grid.GridSpec(rates_mbps=(20,), rtts_ms=(20,), losses_pct=(0, 1), runs=2, size="200kB", live=False), out)
    assert (tally.sim_new, tally.sim_stored) == (0, 16)
    assert (out / "grid.csv").read_bytes() == grid_first
    tally = grid.run_grid(grid.GridSpec(rates_mbps=(20,), rtts_ms=(20,), losses_pct=(0,), runs=1, size="200kB", live=False), out,
                          resim=True)
    assert (tally.sim_new, tally.sim_stored) == (4, 0)
    # Deterministic: the re-simulated records hold the same numbers.
    redone = [p for p in recs if "-l0-" in p.name and ("-linux-1-" in p.name or "-textbook-1-" in p.name)]
    assert len(redone) == 4
    for p in redone:
        a, b = json.loads(first[p.name]), json.loads(p.read_text())
        assert (a["time_s"], a["energy_j"]) == (b["time_s"], b["energy_j"])


def test_a_bad_scenario_is_refused_before_anything_runs(tmp_path):
    scn = tmp_path / "s.toml"
    scn.write_text("name = 1\n")
    r = CliRunner().invoke(live_app, ["grid", "--out", str(tmp_path / "g"), "--scenario", str(scn), "--sim-only"])
    assert r.exit_code == 2
    assert "s.toml" in r.output
    assert not (tmp_path / "g" / "records").exists()


# --------------------------------------------------------------------------------------------
# As root: one grid point live


@needs_live
def test_one_grid_point_live_resumed(tmp_path, runs):  # noqa: F811 - `runs` is the fixture
    out = tmp_path / "g"
    args = ["--out", str(out), "--rates", "20", "--rtts", "20", "--losses", "0", "--runs", "1", "--size", "1MB", "--quiet"]
    r = _invoke(*args, "--max-runs", "1")
    assert r.exit_code == 3, r.output  # stopped with a run left
    assert len(list((out / "records").glob("live-*.json"))) == 1
    r = _invoke(*args)
    assert r.exit_code == 0, r.output
    assert "live" in r.output and "20M 20ms 0%" in r.output
    live_recs = [json.loads(p.read_text()) for p in (out / "records").glob("live-*.json")]
    assert sorted(x["mode"] for x in live_recs) == ["always-on", "cc"]
    for rec in live_recs:
        assert rec["verified"] and rec["linux_cc"] == "cubic"
        assert rec["load1_before"] >= 0 and rec["host_late_max_ms"] >= 0
        s = rec["tcp_settings"]
        assert s["client"]["sysctls"]["net.ipv4.tcp_sack"] == "1"
        assert s["server"]["sysctls"]["net.ipv4.tcp_invalid_ratelimit"] == "0"
        assert any("initcwnd 10" in route for route in s["server"]["routes"])
        assert s["kernel"]["release"]
    t = pd.read_csv(out / "grid.csv")
    row = t.iloc[0]
    assert row["live_always-on_n"] == 1 and row["live_cc_n"] == 1
    assert row["linux_verdict"] in ("pass", "fail")
    # The live side against physics: 1 MB at 20 Mb/s takes at least 0.4 s on the wire, and
    # Linux over a loss-free 20 ms path finishes within 2x that.
    least = 1e6 * 8 / 20e6
    assert least < row["live_always-on_time_s"] < 2 * least + 0.2, row.to_dict()
    # A sane agreement, not the issue's ±5 % (the grid reports that): every profile's
    # completion time within a factor of 2 of live, so a shape applied wrongly (another rate or
    # RTT) fails, and the saving within 40 points. Measured 2026-11-28 on this point: linux
    # +50 % (the simulated CUBIC overflows the hop's 100-packet queue in slow start, 229
    # retransmissions against none live), textbook +5 %; saving gap +27 pp (linux).
    for profile in ("linux", "textbook"):
        for mode in ("always-on", "cc"):
            assert abs(row[f"{profile}_{mode}_time_s_gap_pct"]) < 100, (profile, mode, row.to_dict())
        assert abs(row[f"{profile}_saving_gap_pp"]) < 40, (profile, row.to_dict())
    prov = json.loads((out / "provenance.json").read_text())
    assert prov["testbed_tcp"]["client"]["sysctls"]["net.ipv4.tcp_timestamps"] == "1"
    assert prov["load1"]["max"] >= prov["load1"]["min"]
    assert (out / "grid.png").stat().st_size > 10_000
    # Stored: nothing runs again.
    tally = grid.run_grid(grid.GridSpec(rates_mbps=(20,), rtts_ms=(20,), losses_pct=(0,), runs=1, size="1MB"), out)
    assert (tally.live_new, tally.live_stored, tally.sim_new) == (0, 2, 0)
