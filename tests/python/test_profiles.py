"""Device profiles as data files (issue 30 item 3): the phone profiles and their sources, a
profile file named by path in a scenario (relative to it), by `wattlab trace energy` and by the
live emulator's costing, `wattlab profiles FILE` checking one, and bad files failing with the
file, line and key."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import wattlab
from wattlab import trace
from conftest import ROOT, SCENARIOS

PROFILES = ROOT / "profiles"
CAPTURE = ROOT / "tests" / "data" / "energybox" / "burst10.pcap"
PHONES = ("samsung-galaxy-s2", "nexus-one", "htc-magic", "intel-5300-1x1")


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "wattlab.cli", *map(str, args)], capture_output=True, text=True,
                          timeout=120, cwd=cwd)


def test_the_phone_profiles_are_listed_with_their_sources():
    df = wattlab.profiles().set_index("name")
    for name in PHONES:
        assert name in df.index
    assert "EnergyBox" in df.loc["samsung-galaxy-s2", "source"]
    assert "PowerTutor" in df.loc["nexus-one", "source"]
    assert "Demystifying 802.11n" in df.loc["intel-5300-1x1", "source"]
    data = {p["name"]: p for p in json.loads(cli("profiles", "--json").stdout)}
    assert data["nexus-one"]["power_mw"]["sleep"] == 34.37 and data["nexus-one"]["ppdu_power"] == []
    # Every assumption is written down: the tx/rx split the phone sources lack, among others.
    assert "ASSUMPTION" in data["samsung-galaxy-s2"]["derived"]["power_mw.tx"]


def test_a_profile_file_is_checked_and_shown_and_a_bad_one_names_line_and_key(tmp_path):
    mine = tmp_path / "myphone.toml"
    text = (PROFILES / "samsung-galaxy-s2.toml").read_text().replace('name = "samsung-galaxy-s2"', 'name = "myphone"')
    text += '\n[[ppdu_power]]\nwidth_mhz = 40\nnss = 2\ntx_mw = 900.0\nsource = "test"\n'
    mine.write_text(text)
    r = cli("profiles", "--json", mine)
    assert r.returncode == 0, r.stderr
    [p] = json.loads(r.stdout)
    assert p["name"] == "myphone" and p["ppdu_power"] == [
        {"width_mhz": 40, "nss": 2, "tx_mw": 900.0, "rx_mw": None, "source": "test"}]
    r = cli("profiles", mine)
    assert r.returncode == 0 and "myphone" in r.stdout and "per-PPDU" in r.stdout, r.stdout
    mine.write_text(text.replace("nss = 2", "nss = 0"))
    r = cli("profiles", mine)
    line = next(i for i, l in enumerate(text.splitlines(), 1) if l == "nss = 2")
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert f"myphone.toml: line {line}" in r.stderr and "ppdu_power[0].nss" in r.stderr, r.stderr
    r = cli("profiles", tmp_path / "missing.toml")
    assert r.returncode == 2 and "missing.toml" in r.stderr and "cannot read profile" in r.stderr, r.stderr


def test_a_scenario_names_a_profile_file_beside_it(tmp_path):
    """The same download costed with the built-in profile and with a copy of its file named by
    path (relative to the scenario, run from another directory): the same energy, and the
    file recorded in the provenance."""
    (tmp_path / "profiles").mkdir()
    shutil.copy(PROFILES / "nexus-one.toml", tmp_path / "profiles" / "phone.toml")
    demo = (SCENARIOS / "demo.toml").read_text()
    assert 'profile = "wavelan-dsss"' in demo
    builtin = tmp_path / "builtin.toml"
    builtin.write_text(demo.replace('profile = "wavelan-dsss"', 'profile = "nexus-one"'))
    byfile = tmp_path / "byfile.toml"
    byfile.write_text(demo.replace('profile = "wavelan-dsss"', 'profile = "profiles/phone.toml"'))
    a, b = wattlab.run(builtin), wattlab.run(byfile)
    cols = ["policy", "energy_j", "time_tx_s", "time_sleep_s"]
    assert a.radios[cols].equals(b.radios[cols])
    assert (b.radios.profile == "nexus-one").all()
    out = tmp_path / "out"
    r = cli("run", byfile, "--out", out, cwd=ROOT / "python")
    assert r.returncode == 0, r.stderr
    prov = json.loads((out / "summary.json").read_text())["provenance"]
    [entry] = prov["profile_files"]
    assert entry.startswith(str(tmp_path / "profiles" / "phone.toml")) and " sha256:" in entry
    # A bad file: the scenario's key, the file's line and key; no traceback.
    (tmp_path / "profiles" / "phone.toml").write_text(
        (PROFILES / "nexus-one.toml").read_text().replace("tx = 404.46", "tx = -1"))
    r = cli("run", byfile)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert "radio.profile" in r.stderr and "phone.toml: line" in r.stderr and "power_mw.tx" in r.stderr, r.stderr


def test_trace_energy_reads_the_same_files(tmp_path):
    shutil.copy(PROFILES / "samsung-galaxy-s2.toml", tmp_path / "s2.toml")
    by_name = trace.energy(CAPTURE, profile="samsung-galaxy-s2")
    by_file = trace.energy(CAPTURE, profile=str(tmp_path / "s2.toml"))
    assert by_name.profile["name"] == by_file.profile["name"] == "samsung-galaxy-s2"
    assert by_name.energy.equals(by_file.energy)


def test_the_live_plan_costs_with_the_scenarios_profile_file(tmp_path):
    if not (ROOT / "target" / "release" / "wattlab-live").is_file():
        pytest.skip("target/release/wattlab-live is not built (make setup builds it)")
    from wattlab.live import runner

    shutil.copy(PROFILES / "nexus-one.toml", tmp_path / "phone.toml")
    scn = tmp_path / "live.toml"
    scn.write_text((SCENARIOS / "live-download.toml").read_text().replace(
        'profile = "wavelan-dsss"', 'profile = "phone.toml"'))
    plan = runner.load_plan(scn, None)
    assert plan["profile"] == str((tmp_path / "phone.toml").resolve()) and not plan["profile_overridden"]
    # What the live run hands to its costing reads the same profile.
    assert trace.energy(CAPTURE, profile=plan["profile"]).profile["name"] == "nexus-one"
