"""A scenario is parsed once (issue 28 point 1): `wattlab run --set …` with a power mode reads
its scenario with one TOML parse for the run, its baseline and the savings, and the baseline's
summary.json says whose baseline it is: the user's file, its SHA-256 and the overrides."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys

from click.testing import CliRunner

from conftest import SCENARIOS
from wattlab import _core
from wattlab.cli import app

DEMO = SCENARIOS / "demo.toml"
SETS = ["wireless.wlan.power_save=psm", "flow.download.bytes=200kB"]


def test_a_run_with_set_and_a_power_mode_parses_its_scenario_once(tmp_path):
    # Before: effective_scenario, without_power_save and run_scenario (twice) read it up to
    # six times.
    args = ["run", str(DEMO), *(a for s in SETS for a in ("--set", s)), "--out", str(tmp_path / "o"), "--json"]
    before = _core._document_parses()
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 0, r.output
    assert _core._document_parses() - before == 1
    doc = json.loads(r.stdout)
    assert [row["mode"] for row in doc["savings"]] == ["psm"], "the baseline ran from the same parse"
    # Without a power mode there is no baseline, and still one parse.
    before = _core._document_parses()
    assert CliRunner().invoke(app, ["run", str(DEMO), "--set", "flow.download.bytes=200kB", "-q"]).exit_code == 0
    assert _core._document_parses() - before == 1


def test_the_baselines_summary_names_the_users_file_its_hash_and_the_overrides(tmp_path):
    # Before: out/baseline/summary.json said overrides=[] and hashed the generated TOML.
    out = tmp_path / "o"
    cmd = [sys.executable, "-m", "wattlab.cli", "run", str(DEMO), *(a for s in SETS for a in ("--set", s)), "--out", str(out)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    sha = hashlib.sha256(DEMO.read_bytes()).hexdigest()
    base = json.loads((out / "baseline" / "summary.json").read_text())["provenance"]
    assert (base["scenario"], base["scenario_sha256"], base["overrides"]) == (str(DEMO), sha, SETS)
    assert base["baseline"] == "power saving off: wireless.wlan (psm)"
    run = json.loads((out / "summary.json").read_text())["provenance"]
    assert "baseline" not in run and {**run, "baseline": base["baseline"]} == base, (run, base)
    # The baseline's scenario.toml is the one it ran, saying of what it is the baseline.
    text = (out / "baseline" / "scenario.toml").read_text()
    assert text.startswith(f"# {DEMO} with --set {' --set '.join(SETS)}, power saving off: wireless.wlan (psm)\n")
    assert 'power_save = "cam"' in text and 'bytes = "200kB"' in text
