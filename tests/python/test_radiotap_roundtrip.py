"""Issue 31 item 4: a simulated 802.11 capture (`wattlab run --pcap client:wlan0 --link radiotap`)
costed by `wattlab trace energy --policy observed` against the simulator's own metered energy of
the client's radio. CAM agrees within 0.1 %; PSM does not yet (-0.45 %, measured 2026-11-27:
0.8626 J observed vs 0.8665 J metered on this scenario), an open gap marked as such."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TEST_RS = ROOT / "crates" / "wattlab-sim" / "src" / "wlan" / "radiotap_tests.rs"


def scenario(mode: str) -> str:
    """The Rust tshark test's scenario (ping, then a 200 kB download) on 802.11a in `mode`."""
    text = re.search(r'format!\(\s*r#"(.*?)"#', TEST_RS.read_text(), re.S).group(1)
    text = text.replace("{{", "{").replace("}}", "}")
    return (text.replace("{phy}", 'phy = "802.11a"\nrate = "54Mbps"\n').replace("{mode}", mode)
            .replace("{trigger}", "").replace("{extra}", ""))


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "wattlab.cli", *args], capture_output=True, text=True, timeout=300)


def round_trip(tmp_path: Path, mode: str) -> tuple[float, float]:
    """(metered, observed) energy of the client's radio, J."""
    scn = tmp_path / f"{mode}.toml"
    scn.write_text(scenario(mode))
    out = tmp_path / mode
    p = cli("run", str(scn), "--out", str(out), "--pcap", "client:wlan0", "--link", "radiotap", "--no-baseline",
            "--json", "-q")
    assert p.returncode == 0, p.stderr
    s = json.loads(p.stdout)
    assert s["provenance"]["pcap_epoch"] == "2000-01-01T00:00:00Z"
    metered = next(r["energy_j"] for r in s["radios"] if r["node"] == "client" and r["policy"] == ("always-on" if mode == "cam" else mode))
    t = cli("trace", "energy", str(out / "client-wlan0.pcap"), "--client-mac", "02:00:00:00:00:03",
            "--profile", "wavelan-dsss", "--policy", "observed", "--json")
    assert t.returncode == 0, t.stderr
    observed = next(p["energy_j"] for p in json.loads(t.stdout)["policies"] if p["policy"].startswith("observed"))
    return metered, observed


def test_cam_round_trip_within_a_tenth_of_a_percent(tmp_path):
    metered, observed = round_trip(tmp_path, "cam")
    assert abs(observed / metered - 1) < 0.001, (metered, observed)


@pytest.mark.xfail(strict=True, reason="open gap: the observed PSM energy is 0.45 % below the meter's (issue 31 item 4)")
def test_psm_round_trip_within_a_tenth_of_a_percent(tmp_path):
    metered, observed = round_trip(tmp_path, "psm")
    assert abs(observed / metered - 1) < 0.001, (metered, observed)
