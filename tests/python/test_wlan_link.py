"""Issue 29, items 3-4 from Python: `position`, `[wlan.propagation]` and `rate = "ideal" |
"minstrel-ht"` run, are deterministic, and bad values are clear errors at their line."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

import wattlab

from conftest import wired_path


def scenario(distance_m: float = 45.0, rate: str = "minstrel-ht", propagation: str = "[wlan.propagation]\n") -> str:
    """server -- ap ~~ client, the client `distance_m` from the AP, uploading for 2 s."""
    return f"""
name = "link-test"
[simulation]
duration = "2s"
{wired_path("wavelan-dsss", "100Mbps", "5ms")}
[[wlan]]
ap = "ap"
stations = ["client"]
phy = "80211a"
rate = "{rate}"
{propagation}
[[flow]]
name = "up"
kind = "bulk-upload"
client = "client"
server = "server"
bytes = "1GB"
""".replace('kind = "ap"\n', 'kind = "ap"\nposition = [0, 0]\n').replace(
        'kind = "host"\nradio', f'kind = "host"\nposition = [{distance_m}, 0]\nradio')


def delivered(text: str, seed: int = 1) -> int:
    return int(wattlab.run(text=text, seed=seed).flows["bytes_delivered"].iloc[0])


def test_rate_control_finds_a_rate_where_the_constant_one_fails():
    # 45 m: SNR 13.7 dB; 54 Mb/s needs ~ 22 dB.
    fixed = delivered(scenario(rate="54Mbps"))
    assert fixed < 100_000
    for alg in ("minstrel-ht", "ideal"):
        assert delivered(scenario(rate=alg)) > 1_000_000, alg


def test_rate_columns_reach_the_table():
    # 45 m on 802.11a: a constant 12 Mb/s sends every data MPDU at 12 Mb/s both ways; the
    # ideal choice moves to a faster legacy rate (24 Mb/s at 13.7 dB), the MCS column stays -1.
    st = wattlab.run(text=scenario(rate="12Mbps"), seed=1).wlan_stations
    client = st[st["role"] == "station"].iloc[0]
    assert client["rate_mpdus"] > 100
    assert (client["rate_mbps_mean"], client["rate_mode_mbps"], client["mcs_mode"]) == (12.0, 12.0, -1)
    assert (client["rate_up_mbps"], client["rate_down_mbps"]) == (12.0, 12.0)
    st = wattlab.run(text=scenario(rate="ideal"), seed=1).wlan_stations
    client = st[st["role"] == "station"].iloc[0]
    assert client["rate_mode_mbps"] > 12.0, client["rate_mode_mbps"]


def test_same_seed_same_bytes():
    text = scenario(propagation="[wlan.propagation]\nshadowing_sigma_db = 6\n", distance_m=30.0)
    a, b = wattlab.run(text=text, seed=4), wattlab.run(text=text, seed=4)
    assert a.flows.equals(b.flows) and a.summary["wlans"] == b.summary["wlans"]


def _error(text: str) -> wattlab.ScenarioError:
    with pytest.raises(wattlab.ScenarioError) as info:
        wattlab.validate(text=text)
    return info.value


@pytest.mark.parametrize("change, key, line, words", [
    (('rate = "minstrel-ht"\n[wlan.propagation]\n', 'rate = "minstrel-ht"\n'), "wlan[0].rate", 'rate = "minstrel-ht"',
     "needs [wlan.propagation]"),
    (('rate = "minstrel-ht"', 'rate = "minstrel"'), "wlan[0].rate", 'rate = "minstrel"',
     "neither a rate nor a rate-control algorithm"),
    (("position = [45.0, 0]", "position = [45.0]"), "node[2].position", "position = [45.0]", "[x, y] or [x, y, z]"),
    (("[wlan.propagation]\n", "[wlan.propagation]\nexponent = 12\n"), "wlan[0].propagation", "[wlan.propagation]",
     "exponent = 12"),
])
def test_bad_values_name_key_and_line(change, key, line, words):
    text = scenario().replace(*change)
    e = _error(text)
    assert e.key == key and words in e.message, e
    assert e.line == text.splitlines().index(line) + 1, e


def test_cli_error_without_traceback(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text(scenario(propagation="[wlan.propagation]\nmodel = \"two-ray\"\n"))
    proc = subprocess.run([sys.executable, "-m", "wattlab.cli", "run", str(bad)], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 2
    assert f"{bad}:" in proc.stderr and "unknown propagation model `two-ray`" in proc.stderr
    assert "Traceback" not in proc.stderr and "panicked" not in proc.stderr


def test_run_prints_the_wlan_stations_within_80_columns(tmp_path):
    path = tmp_path / "ok.toml"
    path.write_text(scenario(rate="12Mbps"))
    proc = subprocess.run([sys.executable, "-m", "wattlab.cli", "run", str(path), "--allow-incomplete"],
                          capture_output=True, text=True, timeout=60, env={**os.environ, "COLUMNS": "80"})
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "WLAN stations" in out and "MCS" in out
    wlan = out[out.index("WLAN stations"):]
    row = next(line for line in wlan.splitlines() if line.strip().startswith("client"))
    assert row.split()[-3:] == ["12.0", "12.0", "12.0"], row  # mean, up, down (Mb/s)
    assert max(len(line.rstrip()) for line in out.splitlines()) <= 80
