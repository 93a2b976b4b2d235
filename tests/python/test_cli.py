"""What a user relies on from every run (issue 15): which baseline a saving has, what made a
result, that earlier results are not silently mixed, that an incomplete run says so, and the
command-line conventions (stdout for results, stderr for the rest, --json, --quiet, --version)."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import tomllib

import pandas as pd
import pytest
from click.testing import CliRunner

import wattlab
from conftest import ROOT, SCENARIOS
from wattlab.cli import app

YAN = SCENARIOS / "yan-cc-download.toml"
DEMO = SCENARIOS / "demo.toml"


def cli(*args: str):
    return CliRunner().invoke(app, [str(a) for a in args])


# Item 2: every radio row says what it is; a power mode's saving has the right baseline.


def test_radio_rows_say_accounting_or_power_mode():
    res = wattlab.run(YAN)
    basis = dict(zip(res.radios.policy, res.radios.basis))
    assert basis == {"always-on": "accounting", "oracle": "accounting", "cc": "mode"}


def test_a_power_modes_saving_is_against_the_same_traffic_without_it():
    res = wattlab.run(YAN, baseline=True)
    s = res.savings.set_index("mode").loc["cc"]
    # The baseline is the same scenario with power_save = "cam": plain TCP, radio on.
    base = res.baseline.summary
    assert [r["policy"] for r in base["radios"] if r["basis"] == "mode"] == []
    assert s.baseline_energy_j == pytest.approx(res.baseline.energy("always-on"))
    assert s.saving == pytest.approx(1 - res.energy("cc") / res.baseline.energy("always-on"))
    # 33.7 %, not the 49 % of "cc over always-on of the agent-shaped traffic".
    shaped = 1 - res.energy("cc") / res.energy("always-on")
    assert 0.25 < s.saving < 0.45 and shaped - s.saving > 0.1
    assert s.slowdown > 0  # the agent's bursts take longer than plain TCP


def test_the_table_prints_no_saving_against_the_shaped_traffic():
    r = cli("run", YAN)
    assert r.exit_code == 0, r.output
    row = next(line for line in r.stdout.splitlines() if line.split()[1:3] == ["cc", "mode"])
    assert "%" not in row  # the mode row of the energy table has no percentage
    assert "Power mode vs the same traffic without it" in r.stdout and "power_save = cam" in r.stdout
    r = cli("run", YAN, "--no-baseline")
    assert "Power mode vs" not in r.stdout and "--no-baseline" in r.stderr


def test_a_baseline_is_refused_when_nothing_saves_power():
    with pytest.raises(wattlab.ScenarioError, match="no station uses a power-save mode"):
        wattlab.run(DEMO, baseline=True)
    assert cli("run", DEMO, "--baseline").exit_code == 2


# Item 3: provenance, the effective scenario, headers from effective values.


def test_runs_record_what_produced_them(tmp_path):
    out = tmp_path / "r"
    sets = ["link.wired.delay=45ms", "flow.0.bytes=1MB"]
    r = cli("run", DEMO, "--seed", "7", *[a for s in sets for a in ("--set", s)], "--out", out)
    assert r.exit_code == 0, r.output
    prov = json.loads((out / "summary.json").read_text())["provenance"]
    assert prov["scenario"] == str(DEMO) and prov["overrides"] == sets and prov["seed"] == 7
    assert prov["scenario_sha256"] == hashlib.sha256(DEMO.read_bytes()).hexdigest()
    assert prov["wattlab_version"] == wattlab.__version__ and prov["commit"]
    eff = tomllib.loads((out / "scenario.toml").read_text())
    assert eff["link"][0]["delay"] == "45ms" and eff["flow"][0]["bytes"] == "1MB"
    # The header names the overrides; the scenario as it ran reproduces the run exactly.
    assert "--set link.wired.delay=45ms --set flow.0.bytes=1MB" in r.stdout.replace("\n", " ")
    again = wattlab.run(out / "scenario.toml", seed=7)
    assert again.summary["flows"] == json.loads((out / "summary.json").read_text())["flows"]
    # Each flow's energy at its end radios, one row per meter, exact to the nJ.
    fe = pd.read_csv(out / "flow_energy.csv")
    assert list(fe.policy) == list(pd.read_csv(out / "radios.csv").policy) and (fe.node == "client").all()
    assert (fe.to_completion_nj * 1e-9 - fe.to_completion_j).abs().max() < 1e-9


def test_trace_results_record_what_produced_them(tmp_path):
    cap = ROOT / "examples" / "web-5-pages.pcap"
    r = cli("trace", "energy", cap, "--policy", "always-on", "--phy", "link@20", "--out", tmp_path / "t", "--no-plot")
    assert r.exit_code == 0, r.output
    prov = json.loads((tmp_path / "t" / "summary.json").read_text())["provenance"]
    assert prov["capture"] == str(cap) and prov["capture_sha256"] == hashlib.sha256(cap.read_bytes()).hexdigest()
    assert prov["options"]["policies"] == ["always-on"] and prov["options"]["phy"] == "link@20"
    assert prov["wattlab_version"] == wattlab.__version__


# Item 4: results are never mixed or overwritten silently.


def test_out_must_be_empty_unless_overwrite(tmp_path):
    out = tmp_path / "r"
    assert cli("run", DEMO, "--out", out, "--set", "flow.0.bytes=100KB").exit_code == 0
    (out / "my-notes.txt").write_text("mine")
    r = cli("run", DEMO, "--out", out, "--pcap", "client:wlan0", "--set", "flow.0.bytes=100KB")
    assert r.exit_code == 2 and "--overwrite" in r.stderr and "not empty" in r.stderr
    assert not (out / "client-wlan0.pcap").exists()
    r = cli("run", YAN, "--out", out, "--overwrite", "--set", "flow.0.bytes=100KB")
    assert r.exit_code == 0, r.output
    assert (out / "my-notes.txt").read_text() == "mine"  # not ours: kept
    assert json.loads((out / "summary.json").read_text())["scenario"] == "yan-cc-download"
    assert (out / "baseline" / "summary.json").is_file() and (out / "savings.csv").is_file()


def test_out_never_overwrites_the_scenario(tmp_path):
    own = tmp_path / "scenario.toml"
    own.write_text(DEMO.read_text())
    r = cli("run", own, "--out", tmp_path, "--overwrite")
    assert r.exit_code == 2 and "would overwrite the input" in r.stderr
    assert own.read_text() == DEMO.read_text()


# Item 5: an incomplete run says so; options that would do nothing are refused.


def test_an_incomplete_run_exits_3_unless_allowed():
    r = cli("run", DEMO, "--set", "simulation.duration=1s")
    assert r.exit_code == 3 and "time limit" in r.stderr and "download" in r.stderr
    assert cli("run", DEMO, "--set", "simulation.duration=1s", "--allow-incomplete").exit_code == 0


@pytest.mark.parametrize("args,needs", [(["--timeseries"], "--timeseries needs --out"), (["--parquet"], "--parquet needs --out"),
                                        (["--pcap", "client:wlan0"], "--pcap needs --out")])
def test_options_that_would_do_nothing_are_refused(args, needs):
    r = cli("run", DEMO, *args)
    assert r.exit_code == 2 and needs in r.stderr


# Item 8: command-line conventions.


def test_version():
    r = cli("--version")
    assert r.exit_code == 0 and r.stdout.startswith(f"wattlab {wattlab.__version__} (commit ")


def test_stdout_is_the_result_and_quiet_silences_the_rest(tmp_path):
    r = cli("run", DEMO, "--json", "--out", tmp_path / "a", "--set", "flow.0.bytes=100KB")
    assert r.exit_code == 0
    assert json.loads(r.stdout)["scenario"] == "demo"  # nothing else on stdout
    assert "wrote" in r.stderr
    r = cli("run", DEMO, "--quiet", "--out", tmp_path / "b", "--set", "flow.0.bytes=100KB")
    assert r.exit_code == 0 and r.stderr == "" and "Flows" in r.stdout


@pytest.mark.parametrize("argv", [["profiles", "--json"], ["bench", "--case", "tcp-100mb", "--repeat", "1", "--json"],
                                  ["validate", str(DEMO), "--json"]])
def test_json_on_commands_that_print_a_result(argv):
    r = cli(*argv)
    assert r.exit_code == 0, r.output
    json.loads(r.stdout)


def test_validate_reports_every_file(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text(DEMO.read_text().replace('delay = "30ms"', "delay = 30"))
    worse = tmp_path / "worse.toml"
    worse.write_text("name = [")
    r = cli("validate", DEMO, bad, worse)
    assert r.exit_code == 2
    assert f"ok {DEMO}" in r.stdout
    assert "bad.toml:32" in r.stderr and "no unit" in r.stderr and "worse.toml:1" in r.stderr
    assert "2 of 3 scenario files invalid" in r.stderr
    recs = json.loads(cli("validate", DEMO, bad, "--json").stdout)
    assert [x["ok"] for x in recs] == [True, False] and recs[1]["error"]["line"] == 32


def test_help_shows_readable_metavars():
    r = cli("run", "--help")
    for m in ("SCENARIO.toml", "--seed N", "--out DIR", "--pcap NODE:IFACE", "--set KEY=VALUE", "Exit codes"):
        assert m in r.stdout, m


def test_help_and_a_plain_run_import_no_heavy_module():
    """`wattlab --help` and a run printed as tables load neither pandas, matplotlib nor pyarrow
    (their imports took 0.45 s of a 0.55 s run; start-up is measured in docs/benchmarks.md)."""
    code = (
        "import sys\nfrom wattlab.cli import app\n"
        "for argv in (['--help'], ['run', 'scenarios/demo.toml', '--set', 'flow.0.bytes=10KB', '-q']):\n"
        "    try:\n        app(argv, prog_name='wattlab')\n    except SystemExit:\n        pass\n"
        "print('HEAVY', sorted(m for m in ('pandas', 'matplotlib', 'pyarrow', 'numpy') if m in sys.modules))\n"
    )
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert "HEAVY []" in r.stdout, r.stdout[-500:] + r.stderr[-2000:]


def test_user_text_with_brackets_is_printed_as_is(tmp_path):
    d = tmp_path / "[bold]x"
    d.mkdir()
    r = cli("run", d / "missing.toml")
    assert r.exit_code == 2 and "[bold]x" in r.stderr and "Traceback" not in r.output


def test_profiles_cite_papers_not_local_paths():
    for p in wattlab._core.profiles():
        text = p["source"] + " ".join(t["source"] for t in p["transitions"]) + " ".join(p["derived"].values())
        assert "/work/" not in text and "notes/" not in text, p["name"]


@pytest.mark.parametrize("argv", [["run"], ["validate"], ["profiles"], ["bench"], ["check"], ["trace", "energy"],
                                  ["live", "run"], ["live", "compare"], ["live", "cleanup"],
                                  ["reproduce", "kontogiannis2005"], ["reproduce", "yan-cc"], ["reproduce", "psna"]])
def test_every_command_that_prints_a_result_has_json(argv):
    r = cli(*argv, "--help")
    assert r.exit_code == 0 and "--json" in r.stdout, argv


# Issue 16, item 7: no traceback from the command line.


@pytest.mark.parametrize("argv,says", [
    (["run", DEMO, "--seed", "-1"], "--seed"),
    (["run", DEMO, "--seed", str(2**64)], "--seed"),
    (["run", DEMO, "--out", "/dev/null"], "not a directory"),
    (["run", DEMO, "--out", "/proc/wattlab-nope/x"], "cannot create the directory"),
    (["run", DEMO, "--out", ""], "empty directory name"),
    (["run", SCENARIOS], "is a directory"),
    (["run", "/dev/zero"], "not a regular file"),
    (["validate", SCENARIOS], "is a directory"),
])
def test_bad_paths_and_numbers_are_errors_not_tracebacks(argv, says):
    """Through the real entry point (main), as a user's shell runs it."""
    r = subprocess.run([sys.executable, "-c", "from wattlab.cli import main; main()", *map(str, argv)],
                       cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 2, (argv, r.returncode, r.stderr)
    assert says in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_interrupt_is_one_line_and_exit_130(monkeypatch):
    from wattlab import api
    from wattlab.cli import main

    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(api, "run", interrupted)
    monkeypatch.setattr(sys, "argv", ["wattlab", "run", str(DEMO)])
    with pytest.raises(SystemExit) as e:
        main()
    assert e.value.code == 130


def test_an_unexpected_error_is_one_line_naming_a_bug(monkeypatch, capsys):
    from wattlab import api
    from wattlab.cli import main

    def broken(*a, **k):
        raise ValueError("[b]boom[/b]")

    monkeypatch.setattr(api, "run", broken)
    monkeypatch.setattr(sys, "argv", ["wattlab", "run", str(DEMO)])
    monkeypatch.delenv("WATTLAB_TRACEBACK", raising=False)
    with pytest.raises(SystemExit) as e:
        main()
    err = capsys.readouterr().err
    assert e.value.code == 1 and "internal error" in err and "[b]boom[/b]" in err and "wattlab bug" in err
