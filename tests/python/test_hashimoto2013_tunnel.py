"""`wattlab reproduce hashimoto2013-tunnel --quick` end to end (model side of seed 002 Ch. 4), the
simulator hook, and every claim driven to each of its verdicts with synthetic tables."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from wattlab.cli import app
from wattlab.reproduce import hashimoto2013_tunnel as h
from wattlab.reproduce.hashimoto2013_tunnel import claims, paper, simulator
from wattlab.reproduce.hashimoto2013_tunnel.reproduction import FILES, REPRODUCTION, SIM_FILE, SIM_FILES
from wattlab.reproduce.hashimoto2013_tunnel.experiments import gain_key
from conftest import assert_summary_readable

A, D, P, U = claims.AGREES, claims.DISAGREES, claims.PARTLY, claims.UNTESTED


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("tunnel")
    result = CliRunner().invoke(app, ["reproduce", "hashimoto2013-tunnel", "--quick", "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


def test_quick_run_writes_every_output_with_provenance(quick_run):
    for name in FILES:
        assert (quick_run / name).stat().st_size > 0, name
    cfg = json.loads((quick_run / "config.json").read_text())
    assert cfg["quick"] and cfg["provenance"]["commit"] and cfg["kbyte"] == 1024 and cfg["profile"] == "atheros-ar5004"
    summary = (quick_run / "summary.md").read_text()
    assert "Not run yet" in summary and "Made by wattlab" in summary
    assert "| 0.270 | 0.218 |" in summary and "| 0.690 | 0.614 |" in summary, "the thesis's key numbers beside ours"
    rows = [ln for ln in summary.splitlines() if ln.startswith(("| T", "| S1"))]
    assert len(rows) == 14 and all(len(re.split(r"(?<!\\)\|", ln)) == 7 for ln in rows), "5 cells per verdict row"


def test_key_numbers_and_sizes(quick_run):
    k = pd.read_csv(quick_run / "key_numbers.csv").set_index("key")
    assert k.loc["s_sctp_1500", "ours"] == 1532 == k.loc["s_sctp_1500", "thesis"]
    assert k.loc["s_sctp_40", "ours"] == 72 == k.loc["s_sctp_40", "thesis"]
    assert k.loc["s_wire_1500", "ours"] == 1556 and k.loc["s_wire_40", "ours"] == 96
    for q, p in paper.P_CAPTIONS.items():
        assert k.loc[f"p_q{q:g}", "ours"] == pytest.approx(p, rel=1e-9)
    assert k.loc["p_ratio_m1", "ours"] == pytest.approx(0.218, abs=0.001)
    assert k.loc["p_ratio_m5", "ours"] == pytest.approx(0.614, abs=0.001)
    s = pd.read_csv(quick_run / "sizes.csv")
    assert set(s.sctp_bytes) == {1532, 72, 1556, 96}


def test_simulator_side_is_not_faked(quick_run):
    mvs = pd.read_csv(quick_run / "model_vs_sim.csv")
    assert (mvs.status == "simulator not run yet").all() and mvs.sim_p_sleep_w.isna().all()
    f45 = pd.read_csv(quick_run / "fig45.csv")
    assert len(mvs) == len(f45) and (f45.rate_pps <= f45.r_max_pps).all()
    c = pd.read_csv(quick_run / "claims.csv").set_index("id")
    assert list(c.index) == [f"T{i}" for i in range(1, 14)] + ["S1"]
    assert c.loc["S1", "verdict"] == U and (c.drop("S1").verdict != U).all()


def test_same_config_same_bytes(quick_run, tmp_path):
    REPRODUCTION.run(h.Config.quick_preset(), tmp_path)
    for name in FILES:
        if name.endswith(".csv"):
            assert (tmp_path / name).read_bytes() == (quick_run / name).read_bytes(), name


def test_refuses_to_overwrite_and_bad_config_is_named(quick_run):
    r = CliRunner().invoke(app, ["reproduce", "hashimoto2013-tunnel", "--quick", "--out", str(quick_run)])
    assert r.exit_code != 0 and "--overwrite" in r.output and "Traceback" not in r.output
    with pytest.raises(ValueError, match="kbyte"):
        h.Config(kbyte=999).check()
    with pytest.raises(ValueError, match="sizing"):
        h.Config(sizing="jumbo").check()
    with pytest.raises(ValueError, match="d_th_ms"):
        h.Config(d_th_ms=[3.0]).check()


# ---- the simulator hook ----

def _sim_rows(f45: pd.DataFrame, factor, seeds=(1, 2)) -> pd.DataFrame:
    rows = []
    for i, r in f45.reset_index(drop=True).iterrows():
        k = factor(i) if callable(factor) else factor
        for s in seeds:
            rows.append({"q": r.q, "m": r.m, "aggregate_kBps": r.aggregate_kBps, "seed": s,
                         "p_cam_w": r.p_cam_w, "p_sleep_w": r.p_sleep_w * k})
    return pd.DataFrame(rows)


def test_grid_points_for_the_simulator(quick_run):
    f45 = pd.read_csv(quick_run / "fig45.csv")
    pts = simulator.grid_points(h.Config.quick_preset(), f45)
    pd.testing.assert_frame_equal(pts, simulator.grid_points(h.Config.quick_preset()))
    assert list(pts.columns) == ["q", "m", "n_flows", "aggregate_kBps", "flow_kBps", "kbyte"]
    assert (pts.aggregate_kBps == pts.n_flows * 150).all() and set(pts.m) == {1, 2, 5}


@pytest.mark.parametrize("factor,verdict", [(1.0, A), (lambda i: 1.0 if i % 3 else 1.4, P), (1.4, D)])
def test_sim_claim_reaches_each_verdict(quick_run, factor, verdict):
    f45 = pd.read_csv(quick_run / "fig45.csv")
    b = simulator.beside(f45, _sim_rows(f45, factor))
    assert (b.sim_runs == 2).all() and (b.status == "simulated").all()
    assert claims.model_vs_sim(b).verdict == verdict
    assert claims.model_vs_sim(simulator.beside(f45, None)).verdict == U


def test_sim_points_in_a_run(quick_run, tmp_path):
    f45 = pd.read_csv(quick_run / "fig45.csv")
    sim = _sim_rows(f45[f45.p_ratio > 0.3].iloc[:5], 1.02)  # 2 % on P_sleep: ≤ 2 % on these ratios too
    sim["delay_ms"] = 1.0
    res = REPRODUCTION.run(h.Config.quick_preset(), tmp_path, sim_points=sim)
    mvs = res["model_vs_sim"]
    assert (mvs.sim_delay_ms.dropna() == 1.0).all() and mvs.sim_delay_ms.notna().sum() == 5
    assert mvs.sim_runs.notna().sum() == 5 and (mvs.status == "no simulator run at this point").sum() == len(f45) - 5
    assert res.claims[-1].verdict == A and "5 of 5 points" in res.claims[-1].evidence
    assert "5 of" in res.summary_md and "Not run yet" not in res.summary_md


@pytest.mark.parametrize("mutate,msg", [(lambda d: d.drop(columns="p_sleep_w"), "missing column.*p_sleep_w"),
                                        (lambda d: d.assign(p_cam_w=["x"] + [1.0] * (len(d) - 1)), "row 1, column p_cam_w"),
                                        (lambda d: d.assign(p_cam_w=0.0), "p_cam_w: must be > 0")])
def test_bad_simulator_rows_are_named(quick_run, mutate, msg):
    f45 = pd.read_csv(quick_run / "fig45.csv")
    with pytest.raises(ValueError, match=msg):
        simulator.check(mutate(_sim_rows(f45.iloc[:3], 1.0)))


# ---- every claim to each verdict, synthetic tables ----

def _key(m1=0.27, m5=0.69, gains=None, drop=()):
    rows = [{"key": "p_ratio_m1", "thesis": 0.27, "ours": m1}, {"key": "p_ratio_m5", "thesis": 0.69, "ours": m5}]
    for (d, a), g in paper.FIG48_GAINS.items():
        rows.append({"key": gain_key(d, a), "thesis": g, "ours": (gains or {}).get((d, a), g)})
    return pd.DataFrame([r for r in rows if r["key"] not in drop])


@pytest.mark.parametrize("fn,kw,verdict", [
    (claims.key_m1, dict(m1=0.30), A), (claims.key_m1, dict(m1=0.20), P), (claims.key_m1, dict(m1=0.10), D),
    (claims.key_m1, dict(drop=("p_ratio_m1",)), U),
    (claims.key_m5, dict(m5=0.66), A), (claims.key_m5, dict(m5=0.61), P), (claims.key_m5, dict(m5=0.40), D),
    (claims.key_m5, dict(drop=("p_ratio_m5",)), U),
    (claims.fig48_gains, dict(), A), (claims.fig48_gains, dict(gains={(3.0, 800.0): 0.25}), P),
    (claims.fig48_gains, dict(gains={(10.0, 800.0): 0.3}), D), (claims.fig48_gains, dict(drop=(gain_key(3.0, 500.0),)), U),
])
def test_number_claims(fn, kw, verdict):
    assert fn(_key(**kw)).verdict == verdict


QS, MS, AGGS = (0.1, 0.2, 0.5), (1, 2, 5), (150.0, 300.0, 450.0, 600.0)


def _fig45_synth(cam_q=0.01, cam_q_growth=0.0, sleep_q=0.0004, flat_rise_q=(), low_first=()):
    """P_cam barely depends on q; P_sleep rises with a, by less for larger m, and with q (relatively
    more at large m). Knobs break one claim's checks at chosen points."""
    rows = []
    for q in QS:
        for m in MS:
            for a in AGGS:
                cam = 0.8 + 0.0002 * a + cam_q * q + cam_q_growth * q * a
                slope = 0.0012 if q in flat_rise_q else 0.0012 / m
                sleep = 0.01 + a * (slope + sleep_q * q)
                if (q, m) in low_first and a == AGGS[0]:
                    sleep = 0.9 * cam
                rows.append({"q": q, "m": m, "aggregate_kBps": a, "p_cam_w": cam, "p_sleep_w": sleep,
                             "p_ratio": (cam - sleep) / cam})
    return pd.DataFrame(rows)


def _lines_synth(rising=QS, above=QS):
    rows = []
    for q in QS:
        for a in np.arange(100.0, 1001.0, 100.0):
            cam = 0.8 + 0.0002 * a * (1 if q in rising else -1)
            sleep = 0.1 + 0.002 * a if (a < 700 and q in above) else (0.5 * cam if a < 700 else cam)
            rows.append({"q": q, "m": 1, "aggregate_kBps": a, "p_cam_w": cam, "p_sleep_w": sleep})
    return pd.DataFrame(rows)


@pytest.mark.parametrize("fn,table,verdict", [
    (claims.cam_rises, _lines_synth(), A), (claims.cam_rises, _lines_synth(rising=(0.1, 0.2)), P),
    (claims.cam_rises, _lines_synth(rising=(0.1,)), D), (claims.cam_rises, _lines_synth().iloc[:0], U),
    (claims.exceeds_then_equals, _lines_synth(), A), (claims.exceeds_then_equals, _lines_synth(above=(0.1, 0.2)), P),
    (claims.exceeds_then_equals, _lines_synth(above=()), D), (claims.exceeds_then_equals, _lines_synth().iloc[:0], U),
    (claims.sleep_cuts, _fig45_synth(), A), (claims.sleep_cuts, _fig45_synth(low_first=[(q, 5) for q in QS]), P),
    (claims.sleep_cuts, _fig45_synth(low_first=[(q, m) for q in QS for m in (1, 2)]), D),
    (claims.sleep_cuts, _fig45_synth().iloc[:0], U),
    (claims.slower_rise, _fig45_synth(), A), (claims.slower_rise, _fig45_synth(flat_rise_q=(0.5,)), P),
    (claims.slower_rise, _fig45_synth(flat_rise_q=(0.2, 0.5)), D), (claims.slower_rise, _fig45_synth().iloc[:0], U),
    (claims.q_little_cam, _fig45_synth(), A), (claims.q_little_cam, _fig45_synth(cam_q=0.0, cam_q_growth=3e-4), P),
    (claims.q_little_cam, _fig45_synth(cam_q=0.5), D), (claims.q_little_cam, _fig45_synth().query("q == 0.1"), U),
    (claims.q_matters_large_m, _fig45_synth(), A), (claims.q_matters_large_m, _fig45_synth(sleep_q=0.0), D),
    (claims.q_matters_large_m, _fig45_synth().query("m == 1"), U),
])
def test_shape_claims(fn, table, verdict):
    assert fn(table).verdict == verdict


def test_q_matters_partly():
    """Half the aggregates where q's relative effect at m = 5 does not exceed m = 1's."""
    t = _fig45_synth()
    hit = (t.m == 5) & t.aggregate_kBps.isin([450.0, 600.0])
    t.loc[hit, "p_sleep_w"] = 0.01 + t.loc[hit, "aggregate_kBps"] * 0.0012 / 5
    t["p_ratio"] = (t.p_cam_w - t.p_sleep_w) / t.p_cam_w
    assert claims.q_matters_large_m(t).verdict == P


def _fig46_synth(linear=(), bad_delay=(), gains=(0.2, 0.3, 0.4)):
    rows = []
    for a, g in zip((150.0, 300.0, 450.0), gains):
        r = 450.0 * 1024 / 1500 * a / 450.0
        for m in range(1, 11):
            ratio = 0.5 + (g * (m - 1) / 9 if a in linear else g * (1 - np.exp(-(m - 1) / 1.2)) / (1 - np.exp(-9 / 1.2)))
            delay = 1e3 * (m - 1) / (2 * r) * (1 + (0.05 * m if a in bad_delay else 0))
            rows.append({"q": 0.1, "aggregate_kBps": a, "m": m, "p_ratio": ratio, "delay_ms": delay})
    return pd.DataFrame(rows)


@pytest.mark.parametrize("fn,table,verdict", [
    # T9 evaluates the thesis's closed form at its own inputs: "check" or "check failed", not agreement.
    (claims.converges, _fig46_synth(), claims.CHECK), (claims.converges, _fig46_synth(linear=(150.0,)), claims.CHECK_FAILED),
    (claims.converges, _fig46_synth(linear=(150.0, 300.0, 450.0), bad_delay=(150.0, 300.0)), claims.CHECK_FAILED),
    (claims.converges, _fig46_synth().query("m < 3"), U),
    (claims.gain_grows, _fig46_synth(), A), (claims.gain_grows, _fig46_synth(gains=(0.2, 0.4, 0.3)), P),
    (claims.gain_grows, _fig46_synth(gains=(0.4, 0.3, 0.2)), D), (claims.gain_grows, _fig46_synth().iloc[:0], U),
])
def test_fig46_claims(fn, table, verdict):
    assert fn(table).verdict == verdict


def _fig48_synth(shape="linear"):
    a = np.arange(50.0, 1001.0, 50.0)
    y = {"linear": np.maximum(0.9 - 0.0015 * a, 0.0), "curved": np.maximum(0.9 * np.cos(a / 650.0) ** 8, 0.0),
         "never": 0.9 * np.cos(a / 1000.0) ** 8 + 0.05}[shape]
    if shape == "curved":
        y[a >= 700] = 0.0
    return pd.DataFrame({"aggregate_kBps": a, "d_th_ms": 0.0, "p_ratio": y})


@pytest.mark.parametrize("shape,verdict", [("linear", A), ("curved", P), ("never", D)])
def test_d0_linear_claim(shape, verdict):
    assert claims.d0_linear(_fig48_synth(shape)).verdict == verdict


def test_d0_linear_untested_without_rows():
    assert claims.d0_linear(_fig48_synth().iloc[:0]).verdict == U


def test_json_prints_the_claims(tmp_path):
    r = CliRunner().invoke(app, ["reproduce", "hashimoto2013-tunnel", "--quick", "--json", "--out", str(tmp_path)])
    assert r.exit_code == 0, r.output
    recs = json.loads(r.stdout)
    assert [c["id"] for c in recs][-1] == "S1" and len(recs) == 14
    assert {"id", "thesis", "test", "verdict", "evidence"} <= set(recs[0])


def _mixed_synth(dev_half=0.02, dev_full=0.04):
    rows = []
    for share, dev in ((0.0, 0.0), (0.5, dev_half), (1.0, dev_full)):
        for m in (1, 2, 5):
            for a in (150.0, 300.0):
                rows.append({"down_share": share, "m": m, "aggregate_kBps": a, "p_cam_w": 0.85 * (1 - dev),
                             "p_sleep_w": 0.3 / m * (1 + dev)})
    return pd.DataFrame(rows)


@pytest.mark.parametrize("table,verdict", [(_mixed_synth(), A), (_mixed_synth(dev_full=0.2), P),
                                           (_mixed_synth(0.2, 0.3), D), (_mixed_synth().query("down_share == 0"), U)])
def test_mixed_claim(table, verdict):
    assert claims.mixed_similar(table).verdict == verdict


def test_sim_points_from_a_csv_file(quick_run, tmp_path):
    f45 = pd.read_csv(quick_run / "fig45.csv")
    path = tmp_path / "sim.csv"
    _sim_rows(f45, 1.0).to_csv(path, index=False)
    out = tmp_path / "out"
    r = CliRunner().invoke(app, ["reproduce", "hashimoto2013-tunnel", "--quick", "--sim-points", str(path), "--json",
                                 "--out", str(out)])
    assert r.exit_code == 0, r.output
    s1 = json.loads(r.stdout)[-1]
    assert s1["id"] == "S1" and s1["verdict"] == A
    assert json.loads((out / "config.json").read_text())["sim_points_csv"] == str(path), "provenance names the file"


def test_bad_sim_points_file_is_named(quick_run, tmp_path):
    f45 = pd.read_csv(quick_run / "fig45.csv")
    bad = _sim_rows(f45.iloc[:3], 1.0).astype({"p_sleep_w": object})
    bad.loc[2, "p_sleep_w"] = "n/a"
    path = tmp_path / "sim.csv"
    bad.to_csv(path, index=False)
    for arg, says in ((str(path), f"{path}: line 4, column p_sleep_w"), (str(tmp_path / "none.csv"), "no such file")):
        r = CliRunner().invoke(app, ["reproduce", "hashimoto2013-tunnel", "--quick", "--sim-points", arg,
                                     "--out", str(tmp_path / "o")])
        assert r.exit_code != 0 and says in r.output and "Traceback" not in r.output, r.output


# ---- the simulator run by the reproduction (--simulate) ----

def _tiny(**kw) -> h.Config:
    """Fig. 4.5's q = 0.5 panel only (4 aggregates × m = 1, 2, 5: 12 simulator runs of 2 s), and
    Figs. 4.6–4.8 at 150 and 450 kB/s with m = 1 and 5 (4 more runs)."""
    cfg = h.Config.quick_preset()
    cfg.q_values, cfg.simulate, cfg.sim_duration_s = [0.5], True, 2.0
    cfg.m_sim_fig46, cfg.n_flows_sim_fig46 = [1, 5], [1, 3]
    for k, v in kw.items():
        setattr(cfg, k, v)
    return cfg


def test_simulate_judges_s1_from_its_own_runs(tmp_path):
    from wattlab.reproduce import runner

    cfg = _tiny()
    with runner.engine(tmp_path / "o", jobs=1) as eng:
        res = REPRODUCTION.run(cfg, tmp_path / "o", workers=1)
    assert eng.tally.computed == 16 and eng.tally.reused == 0
    mvs = res["model_vs_sim"]
    assert len(mvs) == 12 and (mvs.status == "simulated").all() and (mvs.sim_runs == 1).all()
    runs = pd.read_csv(tmp_path / "o" / SIM_FILE)
    assert len(runs) == 12 and set(simulator.SIM_COLUMNS) <= set(runs.columns)
    # The engine's rows are the in-process simulator's rows, byte for byte (same scenarios, same seed).
    pts = simulator.grid_points(cfg)
    direct = simulator.simulate(pts, duration_s=2.0).drop(columns="p_mode_w")
    pd.testing.assert_frame_equal(runs[direct.columns].reset_index(drop=True), direct, check_dtype=False)
    # S1's verdict is the one its rule gives on these rows, and it says how many points it judged.
    s1 = res.claims[-1]
    assert s1.id == "S1" and s1.verdict == claims.model_vs_sim(simulator.beside(pd.read_csv(tmp_path / "o" / "fig45.csv"),
                                                                                  runs)).verdict
    assert s1.verdict != U and "of 12 grid points" in s1.evidence
    per_m = re.findall(r"m (\d) (\d+)/(\d+)", s1.evidence.split("within by m:")[1])
    assert [m for m, _, _ in per_m] == ["1", "2", "5"] and all(n == "4" for _, _, n in per_m)
    assert sum(int(k) for _, k, _ in per_m) == int(s1.evidence.split(" of ")[0])
    assert "model and simulator" in res.summary_md and "simulated here" in res.summary_md
    # Run again into the same directory: every run is reused from OUT/runs, and the rows are the same bytes.
    before = (tmp_path / "o" / SIM_FILE).read_bytes()
    with runner.engine(tmp_path / "o", jobs=1) as eng:
        REPRODUCTION.run(cfg, tmp_path / "o", workers=1, overwrite=True)
    assert eng.tally.computed == 0 and eng.tally.reused == 16
    assert (tmp_path / "o" / SIM_FILE).read_bytes() == before
    _check_fig46_48_side(tmp_path / "o", res, cfg)


def _check_fig46_48_side(out, res, cfg):
    """The Figs. 4.6–4.8 simulator side of a tiny --simulate run: its points, their rows, the summary."""
    s46 = pd.read_csv(out / "sim_fig46_47.csv")
    ran = s46[s46.sim_runs.notna()]
    assert len(s46) == len(pd.read_csv(out / "fig46_47.csv")), "every model point listed, the simulated ones filled"
    assert sorted(zip(ran.aggregate_kBps, ran.m)) == [(150.0, 1), (150.0, 5), (450.0, 1), (450.0, 5)]
    assert (ran.q == 0.1).all() and ran.sim_p_ratio.between(-1, 1).all() and (ran.sim_p_cam_w > ran.sim_p_sleep_w).any()
    # The simulated P_ratio rises with m at a fixed aggregate, as the model's does (fewer wake-ups per packet).
    for a, g in ran.groupby("aggregate_kBps"):
        assert g.set_index("m").sim_p_ratio[5] > g.set_index("m").sim_p_ratio[1], a
    s48 = pd.read_csv(out / "sim_fig48.csv")
    assert sorted(s48.aggregate_kBps.unique()) == [150.0, 450.0] and set(s48.d_th_ms) == set(cfg.d_th_ms)
    # The measured inlet wait: none at m = 1 (released on arrival), and at m = 5 more than nothing but at most the
    # inlet timeout (20 ms), however far the model's (m − 1)/(2R) goes (18.9 ms at 150 kB/s).
    d = ran.set_index(["aggregate_kBps", "m"]).sim_delay_ms
    assert d[150.0, 1] == 0 and d[450.0, 1] == 0 and 0 < d[150.0, 5] <= 20 and 0 < d[450.0, 5] <= 20
    # Fig. 4.8's simulated choice keeps to the bound by its own measured delay.
    for r in s48[s48.sim_m > 0].itertuples():
        assert d[r.aggregate_kBps, r.sim_m] <= r.d_th_ms + 1e-9, r
    assert "### Figs. 4.6–4.8 (q = 0.1)" in res.summary_md
    r = ran[(ran.aggregate_kBps == 450) & (ran.m == 5)].iloc[0]
    assert "| 5 | " in res.summary_md and f"{r.p_ratio:.3f} / {r.sim_p_ratio:.3f}" in res.summary_md


def test_simulate_on_the_cli_and_its_bad_options(tmp_path):
    out = tmp_path / "o"
    r = CliRunner().invoke(app, ["reproduce", "hashimoto2013-tunnel", "--quick", "--simulate", "--max-runs", "3", "-j", "1",
                                 "--out", str(out)])
    assert r.exit_code == 3 and "run the same command again" in r.output, r.output  # stopped after 3 of 84
    assert len(list((out / "runs").iterdir())) == 3
    r = CliRunner().invoke(app, ["reproduce", "hashimoto2013-tunnel", "--quick", "--simulate", "--sim-points", "x.csv",
                                 "--out", str(tmp_path / "p")])
    assert r.exit_code == 2 and "exclude each other" in r.output and "Traceback" not in r.output
    with pytest.raises(ValueError, match="sim_duration_s"):
        _tiny(sim_duration_s=0.0).check()
    with pytest.raises(ValueError, match="exclude each other"):
        _tiny(sim_points_csv="x.csv").check()


def test_an_earlier_simulate_runs_rows_do_not_survive_a_model_only_rerun(tmp_path):
    (tmp_path / SIM_FILE).write_text("q,m\n")
    (tmp_path / "sim_fig48.csv").write_text("q,m\n")
    with pytest.raises(ValueError, match="sim_runs.csv"):
        REPRODUCTION.run(h.Config.quick_preset(), tmp_path)
    REPRODUCTION.run(h.Config.quick_preset(), tmp_path, overwrite=True)
    assert not any((tmp_path / name).exists() for name in SIM_FILES)


def test_fig48_beside_takes_the_best_simulated_m_within_the_delay_bound():
    # Two aggregates; the model's D of each m decides what D_th allows; the simulator's ratios differ from the model's.
    sim46 = pd.DataFrame({"aggregate_kBps": [150.0] * 3 + [450.0] * 3, "m": [1, 2, 5] * 2,
                          "delay_ms": [0.0, 4.0, 16.0, 0.0, 1.5, 6.0],
                          "p_ratio": [-0.1, 0.2, 0.5, 0.2, 0.4, 0.6], "sim_p_ratio": [-0.2, 0.3, 0.4, 0.1, 0.5, 0.45],
                          "sim_runs": [1.0] * 6})
    fig48 = pd.DataFrame({"aggregate_kBps": [150.0, 150.0, 450.0, 450.0], "d_th_ms": [0.0, 5.0] * 2,
                          "p_ratio": [0.0, 0.25, 0.2, 0.65], "m": [0, 2, 1, 6]})
    got = simulator.fig48_beside(sim46, fig48, stay_awake=True).set_index(["aggregate_kBps", "d_th_ms"])
    assert got.loc[(150.0, 0.0), ["sim_p_ratio", "sim_m", "model_p_ratio_same_m", "model_m_same_m"]].tolist() == [0.0, 0, 0.0, 0]
    assert got.loc[(150.0, 5.0), ["sim_p_ratio", "sim_m", "model_p_ratio_same_m", "model_m_same_m"]].tolist() == [0.3, 2, 0.2, 2]
    # At 450 kB/s and 5 ms the simulator's best is m = 2 while the model's over the same m is m = 2 too, not m = 5 (6 ms).
    assert got.loc[(450.0, 5.0), ["sim_p_ratio", "sim_m", "p_ratio", "m"]].tolist() == [0.5, 2, 0.65, 6]
    raw = simulator.fig48_beside(sim46, fig48, stay_awake=False).set_index(["aggregate_kBps", "d_th_ms"])
    assert raw.loc[(150.0, 0.0), ["sim_p_ratio", "sim_m"]].tolist() == [-0.2, 1], "no stay-awake: m = 1's loss stands"
    assert simulator.fig48_beside(sim46.assign(sim_runs=np.nan), fig48, True).empty
    # With the simulator's own measured delays its choice follows them, the model's still the model's D.
    measured = simulator.fig48_beside(sim46.assign(sim_delay_ms=[0.0, 4.0, 4.5, 0.0, 1.5, 4.0]), fig48, True)
    got = measured.set_index(["aggregate_kBps", "d_th_ms"])
    assert got.loc[(450.0, 5.0), ["sim_p_ratio", "sim_m", "model_p_ratio_same_m", "model_m_same_m"]].tolist() == [0.5, 2, 0.4, 2]
    assert got.loc[(150.0, 5.0), ["sim_p_ratio", "sim_m", "model_p_ratio_same_m", "model_m_same_m"]].tolist() == [0.4, 5, 0.2, 2]


def test_fig_4_6_draws_the_simulated_points_and_fig_4_7_says_it_has_none(tmp_path, quick_run):
    from wattlab.reproduce.hashimoto2013_tunnel import figures

    f46 = pd.read_csv(quick_run / "fig46_47.csv")
    pick = f46[f46.m.isin([1, 4]) & f46.n_flows.isin([1])]
    sim = pick[["q", "m", "aggregate_kBps"]].assign(p_cam_w=1.0, p_sleep_w=0.5, seed=1)
    drawn = {}
    orig = figures.finish

    def spy(fig, path, title, caption, **kw):
        drawn[path.name] = (sum(len(ax.lines) for ax in fig.axes), caption)
        return orig(fig, path, title, caption, **kw)

    figures.finish = spy
    try:
        figures.fig_4_6_4_7(f46, tmp_path)
        plain = dict(drawn)
        figures.fig_4_6_4_7(f46, tmp_path, simulator.beside(f46, sim))
        no_delay = dict(drawn)
        figures.fig_4_6_4_7(f46, tmp_path, simulator.beside(f46, sim.assign(delay_ms=[0.0, 5.0])))
    finally:
        figures.finish = orig
    assert no_delay["fig_4_6.png"][0] == plain["fig_4_6.png"][0] + 1 and "Crosses" in no_delay["fig_4_6.png"][1]
    assert no_delay["fig_4_7.png"][0] == plain["fig_4_7.png"][0] and "no such column" in no_delay["fig_4_7.png"][1]
    assert drawn["fig_4_7.png"][0] == plain["fig_4_7.png"][0] + 1 and "inlet's mean wait" in drawn["fig_4_7.png"][1]
    assert (tmp_path / "fig_4_6.png").stat().st_size > 0


def test_every_summary_table_row_has_its_headers_cell_count(quick_run):
    """A cell's own `|` is escaped, and the paper is never called "seed" (issue 27)."""
    assert_summary_readable(quick_run, 3)


# ---- issue 32: the association's start and Max.Burst ----

def test_association_settings_are_real_scenario_keys():
    over = dict(simulator.overrides(0.1, 5, 3, 150.0, 1024))
    assert "tunnel.0.handshake" not in over and "tunnel.0.max_burst" not in over, "defaults: handshake on, no Max.Burst"
    over = dict(simulator.overrides(0.1, 5, 3, 150.0, 1024, handshake=False, max_burst=4))
    assert over["tunnel.0.handshake"] is False and over["tunnel.0.max_burst"] == 4
    eff = simulator.BASE.effective(simulator.overrides(0.1, 5, 3, 150.0, 1024, handshake=False, max_burst=4))
    assert eff["tunnel"][0]["handshake"] is False and eff["tunnel"][0]["max_burst"] == 4


def test_the_handshake_and_max_burst_show_in_a_run():
    from wattlab.reproduce.hashimoto2013_tunnel import association

    def ends(**kw):
        return {t["side"]: t for t in simulator.run_point(0.1, 5, 3, 150.0, 1024, duration_s=2.0, **kw).summary["tunnels"]}
    hs, pre, mb = ends(), ends(handshake=False), ends(max_burst=4)
    assert hs["client"]["handshake_sent"] == 2 and hs["ap"]["handshake_sent"] == 2 and hs["ap"]["established_ns"] > 0
    assert pre["client"]["handshake_sent"] == 0 and pre["ap"]["established_ns"] == 0
    assert sum(t["max_burst_limited"] for t in mb.values()) > 0 == sum(t["max_burst_limited"] for t in hs.values())
    assert set(association.SETTINGS) == {"pre-established (no INIT handshake)", "Max.Burst = 4"}


def _assoc_rows(p_sleep_b, goodput_b):
    keys = {"q": [0.1, 0.1], "m": [1, 5], "aggregate_kBps": [150.0, 450.0]}
    a = pd.DataFrame({**keys, "p_sleep_w": [0.5, 0.3], "goodput_kBps": [150.0, 450.0]})
    b = pd.DataFrame({**keys, "p_sleep_w": p_sleep_b, "goodput_kBps": goodput_b})
    return a, b


@pytest.mark.parametrize("p_sleep_b, within, says", [
    ([0.5, 0.3], 7, "within what the seed alone does (at most 2.0%, 1 points, S1 ±1): no effect measurable"),
    ([0.5, 0.305], 8, "within what the seed alone does"),                    # as much as the seed: nothing
    ([0.5, 0.33], 8, "within what the seed alone does"),                     # larger, but at no more points
    ([0.55, 0.33], 8, "more than the seed alone (at most 2.0%, 1 points), but not S1 beyond the seed's spread: "
                      "it does not explain"),
    ([0.55, 0.33], 9, "S1 moves by 2 points, more than the seed alone (1): it explains part of the gap's count"),
])
def test_association_sentence_reaches_each_conclusion(p_sleep_b, within, says):
    from wattlab.reproduce.hashimoto2013_tunnel import association as asc

    a, noise = _assoc_rows([0.5, 0.306], [150.0, 450.0])  # the next seed: P_sleep +2 % at one point, S1 7 → 8
    ref = asc.compare(asc.REFERENCE, "Fig. 4.5 grid", a, noise, 7, 8)
    _, b = _assoc_rows(p_sleep_b, [150.0, 450.0])
    r = asc.compare("Max.Burst = 4", "Fig. 4.5 grid", a, b, 7, within)
    s = asc.sentence(r, ref)
    assert says in s, s
    table = pd.DataFrame([ref, r])
    assert asc.sentences(table) == [asc.sentence(ref), s] and "the spread the settings are judged against" in asc.sentences(table)[0]
    ref46 = asc.compare(asc.REFERENCE, "Figs. 4.6-4.7 points", a, noise, -1, -1)
    s46 = asc.sentence(asc.compare("x", "Figs. 4.6-4.7 points", a, b, -1, -1), ref46)
    assert "S1" not in s46 and ("on points no claim rests on alone" in s46) == (p_sleep_b[0] == 0.55)
