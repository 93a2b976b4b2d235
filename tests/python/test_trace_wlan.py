"""`wattlab trace energy` on 802.11 monitor captures (issue 31 item 1): the generated radiotap
capture in tests/data/wlan is costed from its IP packets, its skipped frames are reported by
reason, and a corrupt radiotap header is a clear error with its byte offset."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

WLAN = Path(__file__).resolve().parents[1] / "data" / "wlan"


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "wattlab.cli", "trace", "energy", *args], capture_output=True, text=True, timeout=120)


def test_a_radiotap_capture_is_costed_from_its_ip_packets():
    p = run_cli(str(WLAN / "radiotap.pcap"), "--client", "10.0.0.2", "--json", "--policy", "always-on")
    assert p.returncode == 0, p.stderr
    cap = json.loads(p.stdout)["capture"]
    # 25 records: 7 IP packets (an A-MSDU carries two), 17 management/control/null frames,
    # one encrypted data frame, one frame with a bad FCS.
    assert cap["records"] == 25 and cap["ip_packets"] == 7
    assert cap["skipped"]["not IP"] == 17
    assert cap["skipped"]["802.11 protected frame (payload encrypted)"] == 1
    assert cap["skipped"]["802.11 frame with a bad FCS"] == 1
    assert (cap["packets_down"], cap["packets_up"]) == (6, 1)


def test_a_corrupt_radiotap_header_is_an_error_with_its_offset(tmp_path):
    b = bytearray((WLAN / "radiotap.pcap").read_bytes())
    first = 24 + 16 + int.from_bytes(b[32:36], "little")  # record 1
    b[first + 16 + 2] = 12  # it_len 23 -> 12: the TSFT field runs past it
    bad = tmp_path / "bad.pcap"
    bad.write_bytes(bytes(b))
    p = run_cli(str(bad), "--client", "10.0.0.2")
    assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr
    assert f"bad.pcap: packet 1 at byte offset {first}: corrupt radiotap header" in p.stderr, p.stderr
    assert f"file offset {first + 16 + 8}" in p.stderr, p.stderr


def test_the_observed_policy_costs_the_power_save_sequence_from_the_cli(tmp_path):
    """psm.pcap's hand-computed timeline (tests/data/wlan/make_captures.py `psm_frames`):
    tx 176 µs, rx 472 µs, asleep 247,836 µs, idle 1,592 µs; the counts in summary.json."""
    p = run_cli(str(WLAN / "psm.pcap"), "--client", "10.0.0.2", "--client-mac", "02:00:00:00:00:02",
                "--profile", "wavelan-turbo-2mbps", "--policy", "observed", "--policy", "always-on",
                "--out", str(tmp_path / "out"), "--no-plot")
    assert p.returncode == 0, p.stderr
    s = json.loads((tmp_path / "out" / "summary.json").read_text())
    o = s["observed"]["observed"]
    assert (o["tx_frames"], o["responses_inferred"], o["beacons"], o["dozes"], o["aid"]) == (4, 1, 3, 3, 1)
    assert s["provenance"]["options"]["client_mac"] == "02:00:00:00:00:02"
    import pandas as pd
    states = pd.read_csv(tmp_path / "out" / "states.csv")
    obs = states[states.policy == "observed"].set_index("state")
    for state, us in (("tx", 176), ("rx", 472), ("sleep", 247_836), ("idle", 1_592)):
        assert round(obs.loc[state, "time_s"] * 1e6) == us, (state, obs)


def test_observed_without_client_mac_or_with_a_bad_one_is_a_clear_error():
    p = run_cli(str(WLAN / "psm.pcap"), "--client", "10.0.0.2", "--policy", "observed")
    assert p.returncode == 2 and "Traceback" not in p.stderr and "--client-mac" in p.stderr, p.stderr
    p = run_cli(str(WLAN / "psm.pcap"), "--client", "10.0.0.2", "--policy", "observed", "--client-mac", "02:00:zz")
    assert p.returncode == 2 and "Traceback" not in p.stderr and "is not a MAC address" in p.stderr, p.stderr
    p = run_cli(str(WLAN / "psm.pcap"), "--client", "10.0.0.2", "--policy", "observed:listen=sometimes",
                "--client-mac", "02:00:00:00:00:02")
    assert p.returncode == 2 and "`sometimes` is not `beacons` or `none`" in p.stderr, p.stderr
