"""`wattlab reproduce modern-phone --quick` (issue 30, item 5) end to end, its comparisons at
equal work, its Pareto front, where each scheme applies, and every finding driven to each of
its verdicts with synthetic summary tables."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest
from click.testing import CliRunner

from wattlab.cli import app
from wattlab.reproduce.modern_phone import experiments, findings, schemes as sch
from wattlab.reproduce.modern_phone.config import INTERACTIVE, PHYS, SCHEME_FAMILIES, WORKLOADS, Config, available_schemes
from wattlab.reproduce.modern_phone.reproduction import FILES
from wattlab.reproduce.modern_phone.scenario import BASE, overrides
from conftest import assert_summary_readable

A, P, D, U = findings.AGREES, findings.PARTLY, findings.DISAGREES, findings.UNTESTED
DEFAULT = "adaptive-psm:timeout=100ms"


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    """One quick study through the CLI, shared by the checks below."""
    out = tmp_path_factory.mktemp("modern-phone")
    result = CliRunner().invoke(app, ["reproduce", "modern-phone", "--quick", "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


def test_quick_run_writes_every_output_and_runs_every_applicable_point(quick_run):
    out = quick_run
    for name in FILES:
        assert (out / name).stat().st_size > 0, name
    cfg = json.loads((out / "config.json").read_text())
    assert cfg["quick"] and cfg["provenance"]["commit"]
    t = pd.read_csv(out / "summary.csv")
    app_ = pd.read_csv(out / "applicability.csv")
    ran = app_[app_.runs]
    assert set(map(tuple, ran[["workload", "phy", "scheme"]].values)) == set(map(tuple, t[["workload", "phy", "scheme"]].values))
    assert set(t.workload) == set(WORKLOADS) and set(t.phy) == set(PHYS)
    assert (app_[~app_.runs].why_not.str.len() > 20).all(), "every scheme left out says why"
    cam = t[t.scheme == "cam"]
    assert (cam.saving_vs_cam_pct == 0).all() and cam.equal_work.all()
    # Delays are real numbers: CAM's video stream is about the wired delay (20 ms one way).
    video = cam[cam.workload == "video"]
    assert ((video.delay_p50_ms > 19) & (video.delay_p50_ms < 40)).all()
    c = pd.read_csv(out / "claims.csv")
    assert list(c.id) == [f"F{i}" for i in range(1, 8)] and set(c.verdict) <= {A, P, D, U}
    assert_summary_readable(out, 6)


def test_a_point_that_lost_work_has_no_saving(quick_run):
    """Savings only at equal work: a run that lost data against CAM shows none, and says why."""
    runs = pd.read_csv(quick_run / "runs.csv")
    lost = runs[runs.same_work_vs_cam == False]  # noqa: E712  (a column of bools read from CSV)
    assert lost.saving_vs_cam.isna().all()
    assert (lost.lost_vs_cam.fillna("").str.len() > 0).all()
    same = runs[runs.same_work_vs_cam == True]  # noqa: E712
    assert same.saving_vs_cam.notna().all()
    assert same.lost_vs_cam.isna().all(), "no loss is described where the work was the same"


def _runs(rows):
    base = {"family": "x", "energy_j": 1.0, "j_per_mb": 1.0, "energy_per_hour_j": 1.0, "mean_power_mw": 1.0,
            "sleep_fraction": 0.5, "delay_p50_ms": 1.0, "delay_p99_ms": 1.0, "added_p50_ms": 0.0, "added_p99_ms": 0.0,
            "completion_s": 1.0, "completed": True, "same_work_vs_default": None, "saving_vs_default": math.nan}
    return pd.DataFrame([{**base, **r} for r in rows])


def test_points_keep_a_saving_only_where_every_seed_did_the_work():
    runs = _runs([
        {"workload": "bulk", "phy": "802.11a", "scheme": "psm", "seed": 1, "same_work_vs_cam": True, "saving_vs_cam": 0.4, "lost_vs_cam": ""},
        {"workload": "bulk", "phy": "802.11a", "scheme": "psm", "seed": 2, "same_work_vs_cam": True, "saving_vs_cam": 0.2, "lost_vs_cam": ""},
        {"workload": "bulk", "phy": "802.11a", "scheme": "bsd-50", "seed": 1, "same_work_vs_cam": True, "saving_vs_cam": 0.9, "lost_vs_cam": ""},
        {"workload": "bulk", "phy": "802.11a", "scheme": "bsd-50", "seed": 2, "same_work_vs_cam": False, "saving_vs_cam": math.nan,
         "lost_vs_cam": "lost 1 MB"},
    ])
    p = experiments.points(runs).set_index("scheme")
    assert p.at["psm", "saving_vs_cam"] == pytest.approx(0.3) and p.at["psm", "equal_work_vs_cam"]
    assert math.isnan(p.at["bsd-50", "saving_vs_cam"]) and not p.at["bsd-50", "equal_work_vs_cam"]
    assert p.at["bsd-50", "lost_vs_cam"] == "lost 1 MB"


def test_pareto_front_keeps_only_undominated_points():
    df = pd.DataFrame({"d": [1, 2, 3, 2, 5, math.nan], "e": [5, 2, 1, 3, 1, 0]})
    assert experiments.pareto(df, "d", "e").tolist() == [True, True, True, False, False, False]


def test_where_schemes_apply():
    cfg = Config.quick_preset()
    cfg.schemes = list(SCHEME_FAMILIES)  # every family, whether this build has its mode or not
    by = {s.key: s for s in sch.schemes(cfg)}
    twt = next(s for s in by.values() if s.family == "twt")
    assert "802.11ax" in sch.not_applicable(twt, "bulk", "802.11a") and not sch.not_applicable(twt, "bulk", "802.11ax")
    for fam in ("cc", "tunnel", "psna", "wwp"):
        s = next(x for x in by.values() if x.family == fam)
        assert all(sch.not_applicable(s, w, "802.11a") for w in ("video", "voip")), fam
        assert not sch.not_applicable(s, "bulk", "802.11a") and not sch.not_applicable(s, "sync", "802.11a")
    assert not sch.not_applicable(by["cc"], "web", "802.11a") and sch.not_applicable(by["psna"], "web", "802.11a")
    for s in by.values():  # the 802.11 modes apply everywhere their PHY can carry them
        if s.family in ("cam", "psm", "adaptive-psm", "u-apsd", "bsd"):
            assert not any(sch.not_applicable(s, w, p) for w in WORKLOADS for p in PHYS), s.key


def test_psna_and_wwp_carry_the_same_downloads_under_the_same_names():
    cfg = Config.quick_preset()
    by = {s.family: s for s in sch.schemes(cfg)}
    for fam, kind in (("psna", "psna-read"), ("wwp", "wwp-bulk")):
        flows = dict(by[fam].overrides(experiments.workloads.flows("sync", cfg)))["flow"]
        assert [f["kind"] for f in flows] == [kind] * cfg.sync_transfers
        assert [f["name"] for f in flows] == [f"sync{k}" for k in range(cfg.sync_transfers)]
        assert {f["bytes"] for f in flows} == {cfg.sync_bytes}
    ports = [f["psna"]["daemon_port"] for f in dict(by["psna"].overrides(experiments.workloads.flows("sync", cfg)))["flow"]]
    assert len(set(ports)) == len(ports), "one daemon port per transfer"


def test_the_ax_scenario_is_he_with_an_mcs_and_the_schemes_table():
    cfg = Config.quick_preset()
    s = next(x for x in sch.schemes(cfg) if x.family == "u-apsd")
    sc = BASE.effective(overrides("voip", "802.11ax", s, cfg))
    w = sc["wlan"][0]
    assert w["phy"] == "802.11ax" and w["mcs"] == cfg.ax_mcs and "rate" not in w
    assert w["power_save"]["mode"] == "u-apsd"
    assert [f["name"] for f in sc["flow"]] == ["voice-down", "voice-up"]


def test_config_refuses_unknown_names():
    cfg = Config.quick_preset()
    cfg.schemes = ["psm", "carrier-pigeon"]
    with pytest.raises(ValueError, match="unknown scheme 'carrier-pigeon'"):
        cfg.check()
    cfg = Config.quick_preset()
    cfg.schemes = ["psm"]
    cfg.check()
    assert cfg.schemes[0] == "cam", "CAM is always run: every saving is against it"
    assert Config.quick_preset().schemes == available_schemes(), "by default every scheme this build has"
    assert {"cam", "psm", "adaptive-psm", "u-apsd", "bsd", "cc", "psna", "wwp", "tunnel"} <= set(available_schemes())


# --- findings, each driven to each verdict ------------------------------------------------------

def table(rows: list[dict]) -> pd.DataFrame:
    """A summary table (the columns the findings read), one row per dict over defaults."""
    base = {"scheme": "", "workload": "", "phy": "802.11a", "equal_work": True, "saving_vs_cam_pct": 50.0,
            "saving_vs_default_pct": math.nan, "added_p99_ms": 0.0, "on_front": False, "lost_vs_cam": "", "j_per_mb": 1.0,
            "sleep_fraction": 0.5}
    return pd.DataFrame([{**base, **r} for r in rows], columns=list(base))


def verdict_of(finding, t: pd.DataFrame) -> str:
    f = {"F1": lambda: findings.default_saves(t, DEFAULT), "F2": lambda: findings.psm_delay(t),
         "F3": lambda: findings.seeds_still_save(t, DEFAULT), "F4": lambda: findings.twt_saves(t, DEFAULT),
         "F5": lambda: findings.seeds_dominated(t), "F6": lambda: findings.equal_work(t),
         "F7": lambda: findings.ax_cheaper(t)}[finding]
    return f().verdict


def _many(scheme: str, values: list[dict], **common) -> list[dict]:
    return [{"scheme": scheme, "workload": w, **common, **v} for w, v in zip(WORKLOADS, values)]


@pytest.mark.parametrize("vals, want", [
    ([{}] * 4, A),
    ([{}] * 3 + [{"saving_vs_cam_pct": -5.0}], P),
    ([{}] + [{"equal_work": False}] * 3, D),
    ([], U),
])
def test_f1_default_saves(vals, want):
    assert verdict_of("F1", table(_many(DEFAULT, vals))) == want


@pytest.mark.parametrize("added, want", [([150, 120, 300], A), ([150, 120, 30], P), ([10, 20, 300], D), ([], U)])
def test_f2_psm_delay(added, want):
    rows = [{"scheme": "psm", "workload": w, "added_p99_ms": a} for w, a in zip(INTERACTIVE, added)]
    rows.append({"scheme": "psm", "workload": "bulk", "added_p99_ms": 0.0})  # not interactive: not a case
    assert verdict_of("F2", table(rows)) == want


@pytest.mark.parametrize("savings, want", [([5, 2, 3], A), ([5, 0.5, 2], P), ([-5, -1, math.nan], D), ([], U)])
def test_f3_seed_schemes_still_save(savings, want):
    rows = [{"scheme": "cc", "workload": w, "saving_vs_default_pct": s} for w, s in zip(WORKLOADS, savings)]
    rows += [{"scheme": "psm", "workload": w, "saving_vs_default_pct": 99.0} for w in WORKLOADS]  # not a paper's scheme
    assert verdict_of("F3", table(rows)) == want


@pytest.mark.parametrize("savings, want", [([5, 1], A), ([5, 0.9], P), ([-5, math.nan], D), ([], U)])
def test_f4_twt_saves(savings, want):
    rows = [{"scheme": "twt:interval=100ms,duration=8000us", "phy": "802.11ax", "workload": w, "saving_vs_default_pct": s}
            for w, s in zip(WORKLOADS, savings)]
    assert verdict_of("F4", table(rows)) == want


@pytest.mark.parametrize("fronts, want", [([False, False], A), ([True, False], P), ([True, True], D)])
def test_f5_seed_schemes_dominated(fronts, want):
    rows = []
    for w, on in zip(WORKLOADS, fronts):
        rows += [{"scheme": DEFAULT, "workload": w, "on_front": True}, {"scheme": "tunnel-m5", "workload": w, "on_front": on}]
    assert verdict_of("F5", table(rows)) == want
    assert verdict_of("F5", table([])) == U


@pytest.mark.parametrize("equal, want", [([True] * 4, A), ([True] * 3 + [False], P), ([True] + [False] * 3, D)])
def test_f6_equal_work(equal, want):
    rows = [{"scheme": "psm", "workload": w, "equal_work": e, "lost_vs_cam": "" if e else "lost 1 MB"} for w, e in zip(WORKLOADS, equal)]
    assert verdict_of("F6", table(rows)) == want


@pytest.mark.parametrize("ax, want", [([0.5, 0.5], A), ([0.5, 2.0], P), ([2.0, 2.0], D)])
def test_f7_ax_cheaper(ax, want):
    rows = []
    for w, j in zip(WORKLOADS, ax):
        rows += [{"scheme": "psm", "workload": w, "phy": "802.11a", "j_per_mb": 1.0},
                 {"scheme": "psm", "workload": w, "phy": "802.11ax", "j_per_mb": j}]
    rows += [{"scheme": "cam", "workload": "bulk", "phy": p, "j_per_mb": 1.0, "sleep_fraction": 0.0} for p in PHYS]
    assert verdict_of("F7", table(rows)) == want, "an always-on radio is not a case"
    assert verdict_of("F7", table(rows[-2:])) == U


@pytest.mark.parametrize("profile, says", [
    ("nosuch", "unknown device profile `nosuch`"),
    ("BAD", "line 3, column 8: key `power_mw.idle`"),
    ("/no/such/profile.toml", "no such profile file"),
])
def test_a_bad_profile_exits_2_naming_it_and_writes_nothing(tmp_path, profile, says):
    if profile == "BAD":
        profile = str(tmp_path / "bad.toml")
        (tmp_path / "bad.toml").write_text('name = "x"\n[power_mw]\nidle = "lots"\n')
    out = tmp_path / "out"
    r = CliRunner().invoke(app, ["reproduce", "modern-phone", "--quick", "--profile", profile, "--out", str(out)])
    assert r.exit_code == 2 and says in r.output and "Traceback" not in r.output, r.output
    assert not out.exists() or not any(out.iterdir())


def test_a_profile_file_relative_to_the_working_directory_runs(tmp_path, monkeypatch):
    """A phone profile of one's own, given as a file: resolved before the runs (their scenarios
    are texts) and recorded in config.json as an absolute path."""
    from conftest import ROOT

    (tmp_path / "myphone.toml").write_text((ROOT / "profiles" / "samsung-galaxy-s2.toml").read_text().replace(
        'name = "samsung-galaxy-s2"', 'name = "myphone"'))
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(app, ["reproduce", "modern-phone", "--quick", "--profile", "myphone.toml", "--workload", "voip",
                                 "--phy", "802.11a", "--scheme", "u-apsd", "--out", "out"])
    assert r.exit_code == 0, r.output
    assert json.loads((tmp_path / "out" / "config.json").read_text())["profile"] == str(tmp_path / "myphone.toml")
    t = pd.read_csv(tmp_path / "out" / "summary.csv").set_index("scheme")
    assert t.at["u-apsd", "saving_vs_cam_pct"] > 50, "U-APSD sleeps through a call (the uplink voice triggers)"
