"""`wattlab reproduce hashimoto2013 --quick` end to end, the closed-form tables exactly, and every
claim of seed 002 driven to each of its verdicts with synthetic tables."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from wattlab.cli import app
from wattlab.reproduce.hashimoto2013 import claims, closed_form
from wattlab.reproduce.hashimoto2013.reproduction import FILES as OUTPUT_FILES
from conftest import assert_summary_readable


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("hashimoto")
    result = CliRunner().invoke(app, ["reproduce", "hashimoto2013", "--quick", "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


def test_quick_run_writes_every_output(quick_run):
    out = quick_run
    for name in OUTPUT_FILES:
        assert (out / name).stat().st_size > 0, name
    cfg = json.loads((out / "config.json").read_text())
    assert cfg["quick"] and cfg["provenance"]["commit"]
    summary = (out / "summary.md").read_text()
    assert "| 7 | 1 1 1 1 1 1 2 3 3 6 | 20 | 0.6250 | 0.62 |" in summary
    c = pd.read_csv(out / "claims.csv")
    assert len(c) == 35 and (c.verdict != claims.UNTESTED).all(), c[["id", "verdict"]]
    # The testbed sweeps' claims (B1–B13) compare mixes and run lengths the quick preset changes.
    assert set(c[c.id.str.match(r"B\d+$")].verdict) == {claims.NOT_COMPARABLE}
    # E1–E4 are arithmetic on the thesis's own inputs: "check", never counted as agreement.
    assert set(c[c.id.str.startswith("E")].verdict) == {claims.CHECK}


def test_quick_fairness_table_is_consistent(quick_run):
    f = pd.read_csv(quick_run / "fairness.csv")
    r = pd.read_csv(quick_run / "fairness_runs.csv")
    assert len(f) == 2 * 2 * 3 and (f.runs == 3).all()
    assert np.allclose(r.total_mbps, r.up_mbps + r.down_mbps)
    flows = r.filter(like="x_").sum(axis=1)
    assert np.allclose(flows, r.total_mbps)
    assert (r.jain <= 1 + 1e-12).all() and (r.F <= 1 + 1e-12).all()
    assert (r.total_mbps < 29.6).all(), "no scheme beats the MAC maximum"


def test_quick_relocation_table_is_consistent(quick_run):
    """Fig. 2.6: one row per scheme over the seeds; near and far means are the flows' own."""
    from wattlab.reproduce.hashimoto2013 import relocation

    t = pd.read_csv(quick_run / "relocation.csv")
    r = pd.read_csv(quick_run / "relocation_runs.csv")
    f = pd.read_csv(quick_run / "fairness.csv")
    assert list(t.scheme) == ["reno", "ackloss", "prioritised-ap"] and (t.runs == 3).all()
    assert np.allclose(r.near_mbps, r[[f"x_{n}" for n in relocation.near_flows()]].mean(axis=1))
    assert np.allclose(r.far_mbps, r[[f"x_{n}" for n in relocation.far_flows()]].mean(axis=1))
    assert (r.captures > 0).all() and (r.captures <= r.collisions).all()
    ref = f[(f.mix == "10up") & ~f.delayed_ack].set_index("scheme")["jain"]
    assert np.allclose(t.set_index("scheme")["jain_4m"], ref.reindex(t.scheme))
    summary = (quick_run / "summary.md").read_text()
    assert "## Relocation (Fig. 2.6)" in summary and "relocation case" not in summary.split("## Not reproduced")[-1]


def test_table21_jain_example_and_table23_exact():
    t = closed_form.table21()
    assert (t.jain.round(2) == t.paper_jain).all() and (t.F.round(2) == t.paper_F).all()
    v = t.dropna(subset=["paper_variance"])
    assert list(v.variance) == pytest.approx([2.25, 4.0, 9.0])
    ex = closed_form.jain_example()
    assert round(ex["jain_small"], 2) == round(ex["jain_large"], 2) == 0.82
    t23 = closed_form.table23()
    assert list(t23.b_est_packets.round(1)) == [76.9, 50.2, 243.4]


def test_table31_analysis_within_10_percent_up_to_25_mbps():
    t = closed_form.table31_analysis()
    mod = t[t.cross_mbps <= 25]
    assert (mod[mod.cross_mbps >= 20].vs_paper_analysis_pct.abs() <= 10).all(), mod
    # The 12 Mb/s row is the W_bdp cap: RTT/W_bdp = E[t^t] + E[t^r] = 1.017 ms with our frame timing.
    assert mod.set_index("cross_mbps").loc[12, "analysis_ms"] == pytest.approx(1.056, abs=0.002)


# ---------------------------------------------------------------- synthetic tables for the claims

def _fair(over=None):
    """A fairness table where every claim agrees; ``over`` maps (mix, delack, scheme) → column changes."""
    base = {
        "reno": dict(total_mbps=24.0, down_share=0.01, jain=0.4, F=0.45, up_rtt_ms=2500.0, min_flow_mbps=0.0),
        "ackloss": dict(total_mbps=22.5, down_share=0.48, jain=0.97, F=0.9, up_rtt_ms=230.0, min_flow_mbps=1.5),
        "prioritised-ap": dict(total_mbps=21.0, down_share=0.5, jain=0.98, F=0.91, up_rtt_ms=1700.0, min_flow_mbps=1.6),
    }
    rows = []
    for mix in ("10up", "5u5d"):
        for d in (False, True):
            for s, v in base.items():
                row = dict(mix=mix, delayed_ack=d, scheme=s, **v)
                if d:
                    row["total_mbps"] += 2.0
                row["swm_1s"], row["swm_10s"] = row["F"] - 0.1, row["F"]
                row.update((over or {}).get((mix, d, s), {}))
                rows.append(row)
    return pd.DataFrame(rows)


def _t31(model=(1.0, 1.6, 2.0, 3.2, 8.0, 22.0), sim=(0.98, 1.55, 2.05, 3.4, 11.0, 50.0)):
    t = pd.DataFrame({"cross_mbps": [12, 20, 22, 25, 28, 29], "analysis_ms": model,
                      "paper_analysis_ms": [0.954, 1.66, 1.97, 3.19, 7.59, 21.6], "sim_ms": sim})
    t["vs_paper_analysis_pct"] = 100 * (t.analysis_ms / t.paper_analysis_ms - 1)
    t["model_vs_sim_pct"] = 100 * (t.analysis_ms / t.sim_ms - 1)
    return t


def _sweep(r1=0.9, r5=0.4, lat_slope=5.0, rtt_gain=(0.3, 0.2, 0.1, 0.05), curve=lambda m: 0.3 + 0.7 / m):
    rows = [dict(p=0.001, rtt_ms=100.0, m=m, r_energy=r1 if m == 1 else r5 if m == 5 else (r1 + r5) / 2,
                 latency_s=10 + lat_slope * m) for m in range(1, 11)]
    for rtt, g in zip((20.0, 50.0, 100.0, 200.0), rtt_gain):
        for m in range(1, 11):
            r = curve(m) if m not in (1, 5) else (0.6 if m == 1 else 0.6 - g)
            rows.append(dict(p=0.01, rtt_ms=rtt, m=m, r_energy=r, latency_s=20 + lat_slope * m))
    return pd.DataFrame(rows)


def _maps(lo=0.97, hi=0.05):
    return pd.DataFrame({"p": [1e-4, 1e-1], "rtt_ms": [100.0, 100.0], "m": [1, 1], "r_energy": [lo, hi]})


def _mvs(cam=(5.0,) * 6, sleep=(5.0,) * 6):
    return pd.DataFrame({"cam_err_pct": cam, "sleep_err_pct": sleep})


def _t21(bad=0):
    t = closed_form.table21()
    t.loc[: bad - 1, "jain"] += 0.1
    return t


def _t23(b=(76.9, 50.2, 243.4)):
    return pd.DataFrame({"ap": ["Buffalo", "NEC", "Corega"], "b_est_packets": b, "paper_b_est_packets": [76.9, 50.2, 243.4]})


DESIGN = closed_form.design_conditions()


def _rel(over=None):
    """A relocation table (relocation.csv's columns the claims read) where F8 and F9 agree."""
    base = {"prioritised-ap": dict(jain=0.80, jain_4m=0.97, jain_change=-0.17, near_mbps=3.4, far_mbps=2.1,
                                   near_far_ratio=1.62, captures=900),
            "ackloss": dict(jain=0.95, jain_4m=0.96, jain_change=-0.01, near_mbps=2.6, far_mbps=2.5,
                            near_far_ratio=1.04, captures=500),
            "reno": dict(jain=0.6, jain_4m=0.6, jain_change=0.0, near_mbps=4.0, far_mbps=1.0, near_far_ratio=4.0,
                         captures=800)}
    for k, v in (over or {}).items():
        base[k] = {**base[k], **v}
    return pd.DataFrame([{"mix": "10up-relocated", "scheme": s, **v} for s, v in base.items()])


@pytest.mark.parametrize("claim,arg,verdict", [
    # E1–E3: arithmetic on the thesis's own inputs, "check" or "check failed", never "agrees".
    (lambda t: claims.table21(t, closed_form.jain_example()), _t21(), claims.CHECK),
    (lambda t: claims.table21(t, closed_form.jain_example()), _t21(2), claims.CHECK_FAILED),
    (lambda t: claims.table21(t, closed_form.jain_example()), _t21(8), claims.CHECK_FAILED),
    (claims.table23, _t23(), claims.CHECK),
    (claims.table23, _t23((77.5, 50.2, 243.4)), claims.CHECK_FAILED),
    (claims.table23, _t23((100.0, 50.2, 243.4)), claims.CHECK_FAILED),
    (claims.table23, _t23().iloc[:0], claims.UNTESTED),
    (claims.design, DESIGN, claims.CHECK),
    (claims.design, {**DESIGN, "e_sa_max_j": 80e-6}, claims.CHECK_FAILED),
    (claims.design, {**DESIGN, "e_sa_max_j": 1.0, "e_as_max_j": 1.0}, claims.CHECK_FAILED),
    (claims.design, {}, claims.UNTESTED),
    (claims.reno_starves, _fair(), claims.AGREES),
    (claims.reno_starves, _fair({("5u5d", True, "reno"): dict(down_share=0.15)}), claims.PARTLY),
    (claims.reno_starves, _fair({("5u5d", d, "reno"): dict(down_share=0.3) for d in (False, True)}), claims.DISAGREES),
    (claims.reno_starves, _fair().iloc[:0], claims.UNTESTED),
    (claims.ackloss_share, _fair(), claims.AGREES),
    (claims.ackloss_share, _fair({("5u5d", False, "ackloss"): dict(down_share=0.3)}), claims.PARTLY),
    (claims.ackloss_share, _fair({("5u5d", False, "ackloss"): dict(down_share=0.1)}), claims.DISAGREES),
    (claims.ackloss_share, _fair({("5u5d", False, "ackloss"): dict(down_share=0.7)}), claims.DISAGREES),
    (claims.ackloss_share, _fair()[lambda d: d.scheme == "reno"], claims.UNTESTED),
    (claims.ackloss_total, _fair(), claims.AGREES),
    (claims.ackloss_total, _fair({("5u5d", False, "ackloss"): dict(total_mbps=19.4)}), claims.PARTLY),
    (claims.ackloss_total, _fair({("5u5d", False, "ackloss"): dict(total_mbps=15.0)}), claims.DISAGREES),
    (claims.ackloss_total, _fair()[lambda d: d.scheme != "ackloss"], claims.UNTESTED),
    (claims.lowest_rtt, _fair(), claims.AGREES),
    (claims.lowest_rtt, _fair({("10up", False, "prioritised-ap"): dict(up_rtt_ms=100.0)}), claims.PARTLY),
    (claims.lowest_rtt, _fair({("10up", False, "ackloss"): dict(up_rtt_ms=3000.0)}), claims.DISAGREES),
    (claims.lowest_rtt, _fair()[lambda d: d.scheme != "prioritised-ap"], claims.UNTESTED),
    (claims.upstream_fairness, _fair(), claims.AGREES),
    (claims.upstream_fairness, _fair({("10up", False, "ackloss"): dict(jain=0.5)}), claims.PARTLY),
    (claims.upstream_fairness, _fair({("10up", False, s): dict(jain=0.3) for s in ("ackloss", "prioritised-ap")}),
     claims.DISAGREES),
    (claims.upstream_fairness, _fair()[lambda d: d.mix == "5u5d"], claims.UNTESTED),
    (claims.delayed_ack, _fair(), claims.AGREES),
    (claims.delayed_ack, _fair({("5u5d", True, "reno"): dict(total_mbps=20.0)}), claims.PARTLY),
    (claims.delayed_ack, _fair({("5u5d", True, "reno"): dict(total_mbps=20.0, jain=0.99),
                                  ("5u5d", True, "ackloss"): dict(total_mbps=20.0)}), claims.DISAGREES),
    (claims.delayed_ack, _fair()[lambda d: ~d.delayed_ack], claims.UNTESTED),
    (claims.swm, _fair(), claims.AGREES),
    (claims.swm, _fair({(m, d, "ackloss"): dict(swm_1s=0.0) for m in ("10up", "5u5d") for d in (False, True)}), claims.PARTLY),
    (claims.swm, _fair({(m, d, "ackloss"): dict(swm_1s=0.0, swm_10s=0.0) for m in ("10up", "5u5d") for d in (False, True)}),
     claims.DISAGREES),
    (claims.swm, _fair()[lambda d: d.scheme == "reno"], claims.UNTESTED),
    (claims.table31_analysis, _t31(), claims.AGREES),
    (claims.table31_analysis, _t31(model=(1.2, 1.6, 2.0, 3.2, 8.0, 22.0)), claims.PARTLY),
    (claims.table31_analysis, _t31(model=(2.0, 3.0, 2.0, 5.0, 8.0, 22.0)), claims.DISAGREES),
    (claims.table31_analysis, None, claims.UNTESTED),
    (claims.table31_validity, _t31(), claims.AGREES),
    (claims.table31_validity, _t31(sim=(0.98, 1.55, 2.05, 3.4, 8.0, 22.0)), claims.PARTLY),
    (claims.table31_validity, _t31(sim=(2.0, 3.0, 4.0, 5.0, 8.0, 22.0)), claims.DISAGREES),
    (claims.table31_validity, _t31(sim=(np.nan,) * 6), claims.UNTESTED),
    (claims.sleep_saving, _sweep(), claims.AGREES),
    (claims.sleep_saving, _sweep(r1=0.97), claims.PARTLY),
    (claims.sleep_saving, _sweep(r1=1.05), claims.DISAGREES),
    (claims.sleep_saving, _sweep()[lambda d: d.p == 0.01], claims.UNTESTED),
    (claims.burst_gain, _sweep(), claims.AGREES),
    (claims.burst_gain, _sweep(r5=0.6), claims.PARTLY),
    (claims.burst_gain, _sweep(r5=0.85), claims.DISAGREES),
    (claims.burst_gain, _sweep()[lambda d: d.m != 5], claims.UNTESTED),
    (claims.latency_vs_gain, _sweep(), claims.AGREES),
    (claims.latency_vs_gain, _sweep(curve=lambda m: 1.0 - 0.05 * m), claims.PARTLY),
    (claims.latency_vs_gain, _sweep(curve=lambda m: 1.0 - 0.05 * m, lat_slope=0.0), claims.DISAGREES),
    (claims.latency_vs_gain, _sweep()[lambda d: d.p == 0.001], claims.UNTESTED),
    (claims.burst_small_rtt, _sweep(), claims.AGREES),
    (claims.burst_small_rtt, _sweep(rtt_gain=(0.3, 0.1, 0.2, 0.05)), claims.PARTLY),
    (claims.burst_small_rtt, _sweep(rtt_gain=(0.05, 0.1, 0.2, 0.3)), claims.DISAGREES),
    (claims.burst_small_rtt, _sweep()[lambda d: d.p == 0.001], claims.UNTESTED),
    (claims.p_shape, _maps(), claims.AGREES),
    (claims.p_shape, _maps(lo=0.8), claims.PARTLY),
    (claims.p_shape, _maps(lo=0.8, hi=0.5), claims.DISAGREES),
    (claims.p_shape, _maps().iloc[:0], claims.UNTESTED),
    (claims.model_vs_sim, _mvs(), claims.AGREES),
    (claims.model_vs_sim, _mvs(sleep=(50.0,) * 6), claims.PARTLY),
    (claims.model_vs_sim, _mvs(cam=(5.0, 50, 50, 50, 50, 50), sleep=(50.0,) * 6), claims.DISAGREES),
    (claims.model_vs_sim, _mvs().iloc[:0], claims.UNTESTED),
    (claims.relocation_prioritised, _rel(), claims.AGREES),
    (claims.relocation_prioritised, _rel({"prioritised-ap": dict(near_far_ratio=1.05)}), claims.PARTLY),
    (claims.relocation_prioritised, _rel({"prioritised-ap": dict(near_far_ratio=1.05, jain_change=-0.01)}),
     claims.DISAGREES),
    (claims.relocation_prioritised, _rel()[lambda d: d.scheme != "prioritised-ap"], claims.UNTESTED),
    (claims.relocation_prioritised, _rel({"prioritised-ap": dict(jain_4m=np.nan)}), claims.UNTESTED),
    (claims.relocation_ackloss, _rel(), claims.AGREES),
    (claims.relocation_ackloss, _rel({"ackloss": dict(near_far_ratio=1.5)}), claims.PARTLY),
    (claims.relocation_ackloss, _rel({"ackloss": dict(near_far_ratio=0.6, jain_change=-0.2)}), claims.DISAGREES),
    (claims.relocation_ackloss, None, claims.UNTESTED),
])
def test_each_claim_reaches_each_verdict(claim, arg, verdict):
    assert claim(arg).verdict == verdict


def test_every_summary_table_row_has_its_headers_cell_count(quick_run):
    """A cell's own `|` is escaped, and the paper is never called "seed" (issue 27)."""
    assert_summary_readable(quick_run, 5)
