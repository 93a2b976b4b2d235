"""`wattlab reproduce kontogiannis2005 --quick`: seed 003's study end to end, and its bad input."""

import json

import pandas as pd
import pytest
from click.testing import CliRunner

from wattlab.cli import app
from wattlab.reproduce import kontogiannis2005 as k, verdict
from wattlab.reproduce.kontogiannis2005.reproduction import FILES
from conftest import assert_summary_readable

CLAIMS = [f"R1.{i}" for i in range(1, 9)] + [f"R2.{i}" for i in range(1, 8)]
VERDICTS = set(verdict.VERDICTS)


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    """One quick reproduction through the CLI, shared by the checks below."""
    out = tmp_path_factory.mktemp("k2005")
    result = CliRunner().invoke(app, ["reproduce", "kontogiannis2005", "--quick", "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out, result.output


def test_quick_run_writes_every_output(quick_run):
    out, output = quick_run
    for name in FILES:
        assert (out / name).stat().st_size > 0, name
    for fig in ("fig2_goodput.png", "fig3_eee.png", "fig4_systems.png"):
        assert (out / fig).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    cfg = json.loads((out / "config.json").read_text())
    assert cfg["quick"] and cfg["alpha"] == 1.0 and cfg["b"] == 0.45 and cfg["per_reading"] == "bad-state"
    assert cfg["provenance"]["wattlab_version"] and cfg["provenance"]["commit"]  # what made the results
    assert "Made by wattlab" in (out / "summary.md").read_text()
    assert "R2.7" in output  # the verdict table is printed


def test_every_claim_gets_a_verdict_with_numbers(quick_run):
    out, _ = quick_run
    claims = pd.read_csv(out / "claims.csv")
    assert list(claims.id) == CLAIMS
    assert set(claims.verdict) <= VERDICTS
    # R2.5 and R2.6 are the paper's numbers for 10 MiB flows; the quick preset runs 1 MiB (issue 32).
    quick = claims.set_index("id").loc[["R2.5", "R2.6"]]
    assert (quick.verdict == verdict.NOT_COMPARABLE).all() and quick.evidence.str.contains("1 MiB flows").all()
    summary = (out / "summary.md").read_text()
    for cid, v, evidence in zip(claims.id, claims.verdict, claims.evidence):
        assert f"| {cid} | **{v}** |" in summary
        if v != "not tested":
            assert any(ch.isdigit() for ch in evidence), cid


def test_experiment1_is_physically_consistent(quick_run):
    out, _ = quick_run
    runs = pd.read_csv(out / "exp1_runs.csv")
    points = pd.read_csv(out / "exp1_points.csv")
    assert set(runs.variant) == set(k.VARIANTS) and set(runs.model) == {"random", "burst"}
    assert runs.completed.all(), "every single flow delivers its bytes"
    # Thr_max ≥ Throughput ≥ Goodput (seed 003 §4), and 3E is at least the headers' 40/1064.
    assert (runs.throughput_bps <= runs.thr_max_bps * 1.001).all()
    assert (runs.goodput_bps < runs.throughput_bps).all()
    assert (runs.eee >= 40 / 1064 - 1e-9).all()
    # More errors, less goodput: the sweep's end is far below its start for every variant.
    for (model, variant), g in points.groupby(["model", "variant"]):
        g = g.sort_values("per")
        assert g.goodput_bps.iloc[-1] < 0.5 * g.goodput_bps.iloc[0], (model, variant)
    # Error-free, a 1024-byte TCP flow over 2 Mb/s 802.11 with its ACKs on the same channel
    # gets 1.1–1.4 Mb/s; Thr_max (UDP saturation) is about 1.6 Mb/s.
    clean = points[points.per == 0]
    assert clean.goodput_bps.between(1.1e6, 1.4e6).all(), clean[["variant", "goodput_bps"]]
    assert runs.thr_max_bps.between(1.5e6, 1.7e6).all()


def test_experiment2_systems(quick_run):
    out, _ = quick_run
    p = pd.read_csv(out / "exp2_points.csv")
    assert set(p.variant) == {"tahoe", "vegas"} and sorted(set(p.flows)) == [1, 3, 5, 8]
    assert p.fairness.between(0.0, 1.0 + 1e-9).all()
    assert (p[p.flows == 1].fairness == 1.0).all()
    runs = pd.read_csv(out / "exp2_runs.csv")
    assert runs.completed.all()


def test_unknown_variant_lists_the_valid_ones(tmp_path):
    r = CliRunner().invoke(app, ["reproduce", "kontogiannis2005", "--quick", "--variant", "hybla", "--out", str(tmp_path)])
    assert r.exit_code == 2
    assert "unknown TCP variant 'hybla'" in r.output and "tahoe, reno, newreno, sack, vegas, westwood" in r.output
    assert not any(tmp_path.iterdir()), "nothing is written for a rejected configuration"


@pytest.mark.parametrize("args,reason", [(["--b", "-0.1"], "finite number ≥ 0"), (["--alpha", "0.3"], "exceeds α")])
def test_invalid_alpha_or_b_is_rejected_with_a_reason(tmp_path, args, reason):
    r = CliRunner().invoke(app, ["reproduce", "kontogiannis2005", "--quick", *args, "--out", str(tmp_path)])
    assert r.exit_code == 2
    assert reason in r.output


def test_an_earlier_run_is_not_overwritten(quick_run):
    out, _ = quick_run
    before = (out / "summary.md").read_bytes()
    r = CliRunner().invoke(app, ["reproduce", "kontogiannis2005", "--quick", "--out", str(out)])
    assert r.exit_code == 2 and "--overwrite" in r.output
    assert (out / "summary.md").read_bytes() == before


def test_every_summary_table_row_has_its_headers_cell_count(quick_run):
    """A cell's own `|` is escaped, and the paper is never called "seed" (issue 27)."""
    assert_summary_readable(quick_run[0], 3)


def test_quick_run_settles_issue_32_gap_2_with_generated_sentences(quick_run):
    """Separate senders, both ns-2 timers, ns-2's Vegas loss rules (alone and with ns-2.28's timer)
    and the other PER reading each rerun and concluded."""
    out, _ = quick_run
    h = pd.read_csv(out / "hypotheses.csv")
    assert set(h.hypothesis) == {"senders", "timer ns-2.27", "timer ns-2.28", "vegas ns2", "vegas ns2 + ns-2.28",
                                 "reading"}
    assert set(h[h.hypothesis == "senders"].claim) == {f"R2.{i}" for i in range(1, 8)}
    assert set(h[h.hypothesis == "reading"].claim) == {f"R1.{i}" for i in range(1, 9)}
    assert set(h.main) | set(h.alternative) <= VERDICTS
    # the main run's verdicts are the ones hypotheses.csv compares against
    main = pd.read_csv(out / "claims.csv").set_index("id").verdict
    assert all(main[r.claim] == r.main for r in h[h.hypothesis.isin(["senders", "reading"])].itertuples())
    sep = pd.read_csv(out / "hyp_senders_points.csv")
    assert sorted(set(sep.flows)) == [1, 3, 5, 8] and sep.fairness.between(0.0, 1.0 + 1e-9).all()
    timer = pd.read_csv(out / "hyp_timer_points.csv")
    assert set(timer.variant) == {"tahoe", "sack", "vegas"} and set(timer.per) == {0.03, 0.07}
    vegas = pd.read_csv(out / "hyp_vegas_points.csv")
    assert set(vegas.setting) == {"ns2", "ns2 + ns-2.28"} and set(vegas.per) == {0.03, 0.07}
    assert set(vegas.variant) == {"tahoe", "sack", "vegas"}
    # the Tahoe/SACK rows are the reference runs': the main run's, and ns-2.28's timer hypothesis's
    p1 = pd.read_csv(out / "exp1_points.csv").set_index(["model", "per", "variant"]).goodput_bps
    alone = vegas[(vegas.setting == "ns2") & (vegas.variant == "tahoe")]
    assert all(p1[(r.model, r.per, "tahoe")] == r.goodput_bps for r in alone.itertuples())
    # ns-2's rules change Vegas's runs (the option reached the flows)
    v = vegas[(vegas.setting == "ns2") & (vegas.variant == "vegas")]
    assert any(p1[(r.model, r.per, "vegas")] != r.goodput_bps for r in v.itertuples())
    reading = pd.read_csv(out / "hyp_reading_points.csv")
    assert set(reading.model) == {"random", "burst"} and len(reading) == len(pd.read_csv(out / "exp1_points.csv"))
    section = (out / "summary.md").read_text().split("## Issue 32 gap 2")[1].split("## Verdicts")[0]
    for head in ("**separate senders**", "**timer as ns-2.27**", "**timer as ns-2.28**", "**Vegas loss rules `ns2`**",
                 "**Vegas loss rules `ns2` with ns-2.28's timer**", "**reading**"):
        assert f"- {head}" in section
    assert "explain" in section and "under `bad-state` / `average`" in section
