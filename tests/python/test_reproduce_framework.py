"""The reproduction framework (issue 28, point 3): the registry makes the CLI, every reproduction
follows one contract, its scenarios are base TOML files with typed overrides (no scenario text
built in Python), and one verdict module's named rules reach each verdict at their stated bands."""

from __future__ import annotations

import ast
import dataclasses
import json
import math
import tomllib
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from wattlab import _core
from wattlab.cli import app
from wattlab.reproduce import BY_NAME, REGISTRY, REPRODUCTIONS, framework, verdict
from wattlab.reproduce.options import Command, Option
from wattlab.reproduce.scenarios import base, strings
from wattlab.scenario_units import Duration, Rate, Size
from wattlab.study.spec import toml_value

REPRODUCE = Path(__file__).resolve().parents[2] / "python" / "wattlab" / "reproduce"
A, P, D, U = verdict.AGREES, verdict.PARTLY, verdict.DISAGREES, verdict.UNTESTED


# --- the registry and the contract ---------------------------------------------------------------

def test_the_registry_lists_all_seven_reproductions_and_each_loads_its_contract():
    assert len(REGISTRY) == 7
    assert set(REPRODUCTIONS) == {"hashimoto2013", "hashimoto2013-tunnel", "kontogiannis2005", "modern-phone", "psna",
                                  "tsaoussidis1999-wwp", "wwp", "yan-cc"}
    for e in REGISTRY:
        rep = e.load()
        assert isinstance(rep, framework.Reproduction) and rep.name == e.name
        assert "claims.csv" in rep.files and "summary.md" in rep.files and "config.json" in rep.files
        cfg_mod = e.config()
        assert rep.config is cfg_mod.Config and isinstance(cfg_mod.COMMAND, Command)
        fields = {f.name for f in dataclasses.fields(cfg_mod.Config)}
        assert cfg_mod.COMMAND.seed_field in fields
        for o in cfg_mod.COMMAND.options:  # every declared option sets a field the Config has
            assert o.field is None or o.field in fields, (e.name, o.flags)
        for preset in (cfg_mod.Config.full(), cfg_mod.Config.quick_preset()):
            preset.check()
            json.dumps(preset.as_dict())


def test_each_command_is_generated_with_the_common_and_its_own_options():
    for name, e in BY_NAME.items():
        r = CliRunner().invoke(app, ["reproduce", name, "--help"], terminal_width=120)
        assert r.exit_code == 0, r.output
        for flag in ("--quick", "--out", "--seed", "--jobs", "--scheduler", "--max-runs", "--overwrite", "--json"):
            assert flag in r.output, (name, flag)
        for o in e.config().COMMAND.options:
            assert o.flags[0].split("/")[0] in r.output, (name, o.flags)
        assert ("Alias of" in r.output) == (name != e.name)


def test_a_bad_own_option_exits_2_naming_it(tmp_path):
    r = CliRunner().invoke(app, ["reproduce", "psna", "--quick", "--arch", "carrier-pigeon", "--out", str(tmp_path)])
    assert r.exit_code == 2 and "unknown architecture 'carrier-pigeon'" in r.output and "Traceback" not in r.output
    assert not any(tmp_path.iterdir()), "nothing written"


def test_an_unknown_run_input_is_refused(tmp_path):
    from wattlab.reproduce.tsaoussidis1999_wwp.reproduction import REPRODUCTION

    with pytest.raises(TypeError, match="takes no sim_points"):
        REPRODUCTION.run(REPRODUCTION.config.quick_preset(), tmp_path, sim_points=None)


def test_options_go_to_their_config_fields():
    cmd = BY_NAME["kontogiannis2005"].config().COMMAND
    assert [o.field for o in cmd.options] == ["seeds", "variants", "per_reading", "error_layer", "exp2_senders",
                                              "timer_tick_ms", "min_rto_ms", "vegas_retransmit", "live", "live_per", "live_models",
                                              "live_variants", "live_bytes", "live_time_limit_s", "alpha", "b"]
    variant = next(o for o in cmd.options if o.field == "variants")
    assert variant.multiple and variant.convert("VEGAS") == "vegas"
    assert BY_NAME["hashimoto2013-tunnel"].config().COMMAND.seed_field == "sim_base_seed"


# --- scenarios: base files and typed overrides ---------------------------------------------------

def test_no_reproduction_builds_scenario_text_in_python():
    """Every scenario is a base TOML file of its package; Python only passes typed overrides."""
    bad = []
    for path in REPRODUCE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.Constant, ast.JoinedStr)):
                text = node.value if isinstance(node, ast.Constant) else "".join(
                    v.value for v in node.values if isinstance(v, ast.Constant))
                if isinstance(text, str) and any(k in text for k in ("[[node]]", "[[flow]]", "[simulation]", "[[link]]")):
                    bad.append(f"{path.relative_to(REPRODUCE)}:{node.lineno}")
    assert not bad, bad
    tomls = sorted(p.relative_to(REPRODUCE).as_posix() for p in REPRODUCE.rglob("*.toml"))
    assert len(tomls) >= 6 and all("/" in t for t in tomls), tomls
    for t in tomls:  # each base parses and names itself
        assert tomllib.loads((REPRODUCE / t).read_text())["name"]


def test_quantities_render_exactly_and_parse_back_to_the_same_integers():
    assert str(Duration.ms(2.5)) == "2500us" and str(Duration.s(60)) == "60s" and str(Duration(1)) == "1ns"
    assert str(Duration(0)) == "0s" and str(Rate.mbps(20)) == "20Mbps" and str(Rate(1_250)) == "1250bps"
    assert str(Size.kb(25_446)) == "25446kB" and str(Size.mb(1000)) == "1GB" and str(Size(536)) == "536B"
    for q, kind, si in ((Duration.s(0.1234567), "duration", 0.1234567), (Rate.kbps(24), "rate", 24_000.0),
                        (Size.mb(2.5), "size", 2_500_000.0)):
        assert _core.quantity(str(q)) == (kind, pytest.approx(si, rel=0, abs=1e-12))
    assert toml_value({"start": Duration.ms(10), "n": 3, "on": True}) == '{ "start" = "10ms", "n" = 3, "on" = true }'
    with pytest.raises(ValueError, match="finite number"):
        Duration.s(-1.0)
    with pytest.raises(ValueError, match="finite number"):
        Rate.mbps(math.nan)


def test_overrides_apply_in_order_and_an_extended_array_keeps_the_base_entries():
    b = base("wattlab.reproduce.yan_cc", "download.toml")
    assert b is base("wattlab.reproduce.yan_cc", "download.toml"), "read once"
    over = [b.extended("node", [{"name": "tcp1", "kind": "host"}]), ("node.client.radio.profile", "orinoco"),
            ("link.internet.delay", Duration.ms(7))]
    scn = b.effective(over)
    assert [n["name"] for n in scn["node"]] == ["server", "ap", "client", "tcp1"]
    assert scn["node"][2]["radio"]["profile"] == "orinoco" and scn["link"][0]["delay"] == "7ms"
    assert strings(over)[-1] == 'link.internet.delay="7ms"'
    assert b.text == (REPRODUCE / "yan_cc" / "download.toml").read_text(), "the job runs the file itself"


def test_a_job_runs_its_base_with_its_overrides(tmp_path):
    from wattlab.reproduce.tsaoussidis1999_wwp import paper, scenario
    from wattlab.reproduce.tsaoussidis1999_wwp.config import Config

    cfg = Config.quick_preset()
    cfg.snapshot_s = 2.0
    over = scenario.overrides(paper.SETS[0], "wwp", 0.5, cfg)
    job = scenario.BASE.job(3, {"set": 1}, over)
    assert job.scenario == scenario.BASE.text and dict(job.overrides)["simulation.duration"] == Duration.s(2)
    res = scenario.BASE.run(job.seed, over)
    assert res.summary["flows"][0]["name"] == "wwp" and res.summary["end_time_s"] == pytest.approx(2.0)
    assert any("wireless.0.up=" in o for o in res.provenance["overrides"]), "provenance names the overrides"


# --- verdicts ------------------------------------------------------------------------------------

@pytest.mark.parametrize("rule, args, want", [
    (verdict.checks, ([True, True], 1.0, 0.5), A), (verdict.checks, ([True, False], 1.0, 0.5), P),
    (verdict.checks, ([True, False, False], 1.0, 0.5), D), (verdict.checks, ([], 1.0, 0.5), U),
    (verdict.checks, ([True, True, True, False], 0.75, 0.5), A),
    (verdict.share, (0.75, 0.75, 0.5), A), (verdict.share, (0.74, 0.75, 0.5), P), (verdict.share, (0.49, 0.75, 0.5), D),
    (verdict.at_most, (0.10, 0.10, 0.25), A), (verdict.at_most, (0.2, 0.10, 0.25), P), (verdict.at_most, (0.3, 0.1, 0.25), D),
    (verdict.at_least, (5.0, 5.0, 2.0), A), (verdict.at_least, (3.0, 5.0, 2.0), P), (verdict.at_least, (1.9, 5.0, 2.0), D),
    (verdict.within, ([0.05, -0.1], 0.10, 0.25), A), (verdict.within, ([0.05, -0.2], 0.10, 0.25), P),
    (verdict.within, ([0.05, -0.3], 0.10, 0.25), D),
    (verdict.within_rel, ([(1.15, 1.0)], 0.15, 0.30), A), (verdict.within_rel, ([(0.75, 1.0)], 0.15, 0.30), P),
    (verdict.within_rel, ([(1.31, 1.0)], 0.15, 0.30), D),
    (verdict.factor_within, ([(120.0, 80.0)], 1.5, 3.0), A), (verdict.factor_within, ([(30.0, 80.0)], 1.5, 3.0), P),
    (verdict.factor_within, ([(10.0, 80.0)], 1.5, 3.0), D), (verdict.factor_within, ([], 1.5, 3.0), U),
    (verdict.in_band, (1.2, (0.9, 1.2), (0.75, 1.5)), A), (verdict.in_band, ([1.0, 1.3], (0.9, 1.2), (0.75, 1.5)), P),
    (verdict.in_band, (0.7, (0.9, 1.2), (0.75, 1.5)), D),
    (verdict.graded, (True, False), A), (verdict.graded, (False, True), P), (verdict.graded, (False, False), D),
])
def test_each_rule_reaches_each_verdict_at_its_stated_bands(rule, args, want):
    assert rule(*args) == want


def test_worst_tally_and_the_claims_table():
    assert verdict.worst(A, D, P) == D and verdict.worst(A, A) == A
    claims = [verdict.Claim("C1", "x | y", "t", A, "ours"), verdict.Claim("C2", "z", "", U, "", claim="what", reason="why")]
    assert verdict.tally(claims) == "1 agree, 0 partly, 0 disagree, 1 not tested"
    df = verdict.frame(claims, (("id", "id"), ("thesis", "paper"), ("verdict", "verdict")))
    assert list(df.columns) == ["id", "thesis", "verdict"] and df.thesis.tolist() == ["x | y", "z"]
    table = framework.claims_table(claims)
    assert "x \\| y" in table[2] and "**C2**: what" in table[3] and table[0].endswith("likely reason for the gap |")


def test_every_reproduction_uses_the_one_vocabulary():
    """No module defines its own verdict strings or Claim record (they import reproduce.verdict)."""
    for path in REPRODUCE.rglob("*.py"):
        if path.name == "verdict.py":
            continue
        text = path.read_text()
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Assign):
                values = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
                assert not any(isinstance(v, ast.Constant) and v.value in verdict.VERDICTS for v in values), \
                    f"{path}:{node.lineno} defines a verdict"
        assert "class Claim" not in text and "def claims_frame" not in text, path


def test_click_types_in_options_are_click_types():
    for e in REGISTRY:
        for o in e.config().COMMAND.options:
            assert isinstance(o, Option)
            assert o.type is None or isinstance(o.type, click.ParamType) or o.type in (int, float, str), (e.name, o.flags)


def test_check_and_quick_verdicts_are_counted_apart_from_agreement():
    """Issue 32: arithmetic on the paper's inputs is a "check", a quick preset's changed quantity
    "quick: not comparable"; neither is counted as agreement."""
    assert verdict.arithmetic(A) == verdict.CHECK
    assert verdict.arithmetic(P) == verdict.arithmetic(D) == verdict.CHECK_FAILED
    assert verdict.arithmetic(U) == U
    claims = [verdict.Claim("E1", "p", "t", verdict.CHECK, "ok"), verdict.Claim("E2", "p", "t", verdict.CHECK_FAILED, "no"),
              verdict.Claim("C1", "p", "t", A, "ours"), verdict.Claim("C2", "p", "t", U, "")]
    quick = verdict.mark_quick(claims, {"C1": "1 MB files, the paper's 10 MB", "C2": "x"})
    assert [c.verdict for c in quick] == [verdict.CHECK, verdict.CHECK_FAILED, verdict.NOT_COMPARABLE, U]
    assert 'the rule would say "agrees"' in quick[2].evidence and "1 MB files" in quick[2].evidence
    assert verdict.counts(quick)[A] == 0
    assert verdict.tally(quick) == ("0 agree, 0 partly, 0 disagree, 1 not tested; 2 checks of the paper's own arithmetic "
                                    "(1 failed; not counted as agreement); 1 quick: not comparable")
    assert verdict.tally(claims[2:]) == "1 agree, 0 partly, 0 disagree, 1 not tested"


def test_the_printed_share_rule_is_the_codes():
    assert verdict.share_rule(1.0, 0.5, "(set, condition) checks") == \
        "agrees when every one of a claim's (set, condition) checks holds, partly from 50 %, else disagrees"
    assert verdict.share_rule(0.75, 0.5).startswith("agrees when at least 75 % of a claim's checks hold")
    from wattlab.reproduce.kontogiannis2005 import claims as k
    from wattlab.reproduce.tsaoussidis1999_wwp import claims as w
    assert k.RULE.startswith(verdict.share_rule(k.MAJORITY, k.HALF, "(point, condition) checks"))
    assert w.RULE == verdict.share_rule(w.ALL_HOLD, w.HALF_HOLD, "(set, condition) checks")
    assert "75 %" not in w.RULE and verdict.checks([True, True, True, False], w.ALL_HOLD, w.HALF_HOLD) == P


def test_the_cli_table_shows_every_verdict(tmp_path):
    from wattlab.cli_reproduce import VERDICT_STYLE

    assert set(VERDICT_STYLE) == set(verdict.VERDICTS)


def test_quick_marks_match_ids_and_prefixes():
    claims = [verdict.Claim(i, "p", "t", A, "e") for i in ("table1-30ms", "table1-45ms", "jriver", "fig7-psm")]
    got = verdict.mark_quick(claims, {"table1-*": "1 MB", "jriver": "1 MB"})
    assert [c.verdict for c in got] == [verdict.NOT_COMPARABLE] * 3 + [A]


def test_each_reproduction_names_what_its_quick_preset_changes():
    from wattlab.reproduce import BY_NAME

    changed = {}
    for name in ("kontogiannis2005", "yan-cc", "hashimoto2013", "hashimoto2013-tunnel", "psna", "tsaoussidis1999-wwp"):
        rep, cfg = BY_NAME[name].load(), BY_NAME[name].config().Config
        assert rep.quick_changes(cfg.full()) == {}, name  # the full preset is the compared quantity
        changed[name] = rep.quick_changes(cfg.quick_preset())
    assert set(changed["kontogiannis2005"]) == {"R2.5", "R2.6"} and "1 MiB flows" in changed["kontogiannis2005"]["R2.6"]
    assert "table1-*" in changed["yan-cc"] and "fig7-psm" not in changed["yan-cc"]
    assert set(changed["hashimoto2013"]) == {"F7", *(f"B{i}" for i in range(1, 14))}
    assert set(changed["hashimoto2013-tunnel"]) == {"T9", "T10", "T11"}
    # psna and WWP's quick presets only run fewer seeds: the same quantities.
    assert changed["psna"] == changed["tsaoussidis1999-wwp"] == {}
