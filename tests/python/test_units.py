"""The units table (``wattlab.units``) and the numbers a study's tables carry beside the
quantities its parameters give as text (issue 27, item 4: "delays come back as strings")."""

from __future__ import annotations

import pandas as pd
import pytest

import wattlab
from conftest import SCENARIOS
from wattlab import _core, units


@pytest.mark.parametrize("text, want", [
    ("5ms", ("duration", 0.005)), ("1.5s", ("duration", 1.5)), ("100us", ("duration", 1e-4)), ("2min", ("duration", 120.0)),
    ("10Mbps", ("rate", 1e7)), ("2MB/s", ("rate", 1.6e7)), ("64kbps", ("rate", 64e3)),
    ("1MB", ("size", 1e6)), ("64KiB", ("size", 65536.0)),
    ("20000", None), ("cam", None), ("10m", None), ("5 parsecs", None),
])
def test_quantities_parse_as_the_scenario_loader_parses_them(text, want):
    got = _core.quantity(text)
    assert got == (want if want is None else (want[0], pytest.approx(want[1])))


@pytest.mark.parametrize("column, values, want", [
    ("energy_j", [0.5, 15.8], "energy (J)"),
    ("energy_j", [0.05, 0.09], "energy (mJ)"),
    ("link.wired.delay_s", [0.005, 0.1], "wired link delay (ms)"),
    ("link.wired.rate_bps", [1e7, 1e8], "wired link rate (Mb/s)"),
    ("flow.0.bytes", [20_000, 60_000], "flow 0 size (kB)"),
    ("flow.0.bytes_bytes", [1e6], "flow 0 size (MB)"),
    ("goodput_bps", [3.3e6], "goodput (Mb/s)"),
    ("completion_time_s", [2.5], "completion time (s)"),
    ("saving", [0.46], "saving (%)"),
    ("time_idle_high_s", [0.2], "time in idle high (ms)"),
    ("wireless.wlan.down.loss.p", [0.01], "wlan downlink loss probability"),
    ("wireless.wlan.power_save", [], "wlan power-save mode"),
    ("avg_power_mw", [816.5], "average power (mW)"),
    ("avg_power_mw", [1344.0], "average power (W)"),
])
def test_labels_name_the_quantity_and_its_unit(column, values, want):
    assert units.label(column, values)[0] == want


def test_columns_of_one_unit_share_a_prefix_in_a_table():
    shown = units.shared_displays({"energy_j": [12.47], "energy_transitions_j": [0.575], "duration_s": [9.3]})
    assert shown["energy_j"] == shown["energy_transitions_j"] == units.Display("J", 1.0)
    assert shown["duration_s"].unit == "s"


def test_study_tables_carry_numbers_beside_text_quantities(tmp_path):
    study = {"scenario": str(SCENARIOS / "demo.toml"), "seeds": [1], "set": {"flow.0.bytes": 20_000},
             "grid": {"link.wired.delay": ["5ms", "50ms"], "wireless.wlan.power_save": ["cam"]},
             "zip": {"link.wired.rate": ["10Mbps", "1Gbps"]},
             "random": {"samples": 1, "seed": 3, "simulation.duration": {"uniform": [50, 60], "unit": "s", "digits": 1}}}
    radios = wattlab.sweep(study, tmp_path / "s", jobs=1, table="radios")
    cols = list(radios.columns)
    for key, suffix in (("link.wired.delay", "_s"), ("link.wired.rate", "_bps"), ("simulation.duration", "_s")):
        assert cols.index(key + suffix) == cols.index(key) + 1  # right after its parameter
        assert radios[key + suffix].dtype == "float64"
    assert "wireless.wlan.power_save_s" not in cols and not any(c.startswith("wireless.wlan.power_save_") for c in cols)
    pairs = dict(zip(radios["link.wired.delay"], radios["link.wired.delay_s"]))
    assert pairs == {"5ms": pytest.approx(0.005), "50ms": pytest.approx(0.05)}
    assert set(radios["link.wired.rate_bps"]) == {1e7, 1e9}
    assert (radios["simulation.duration_s"] == radios["simulation.duration"]).all()  # drawn in s, stored in s
    # every table and runs.parquet: the same columns, also for a study read back from its folder
    runs = pd.read_parquet(tmp_path / "s" / "runs.parquet")
    assert {"link.wired.delay_s", "link.wired.rate_bps", "simulation.duration_s"} <= set(runs.columns)
    flows = pd.read_parquet(tmp_path / "s" / "flows.parquet")
    assert set(flows["link.wired.delay_s"]) == {0.005, 0.05}
