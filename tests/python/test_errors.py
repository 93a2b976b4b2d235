"""Malformed scenarios give a clear error naming file, line and key (issue 2, test 6)."""

from __future__ import annotations

import subprocess
import sys

import pytest

import wattlab
from conftest import wlan_scenario

BASE = wlan_scenario()


def _error_for(text: str) -> wattlab.ScenarioError:
    with pytest.raises(wattlab.ScenarioError) as info:
        wattlab.validate(text=text)
    return info.value


def test_unknown_key_names_line_and_key():
    text = BASE.replace('rate = "20Mbps"', 'rate = "20Mbps"\nrat = "1Mbps"')
    e = _error_for(text)
    assert "unknown field `rat`" in e.message
    assert e.line == text.splitlines().index('rat = "1Mbps"') + 1
    assert e.key and "wireless" in e.key


@pytest.mark.parametrize(("old", "new", "key", "says"), [
    pytest.param('rate = "100Mbps"', "rate = true", "link[0].rate", "rate", id="wrong-type-names-key"),
    # Inside [[flow]] (read by its kind, spans kept) the error names the field and its line.
    pytest.param('bytes = "1MB"', "bytes = true", "flow[0].bytes", "expected a size", id="wrong-type-inside-a-flow-names-the-flow"),
    pytest.param('rate = "100Mbps"', 'rate = "-100Mbps"', "link[0].rate", "negative", id="negative-rate-is-rejected-with-reason"),
])
def test_a_bad_value_names_key_line_and_reason(old, new, key, says):
    text = BASE.replace(old, new)
    e = _error_for(text)
    assert e.key == key
    assert says in e.message
    assert e.line == text.splitlines().index(new) + 1


def test_unknown_profile_lists_known_ones():
    text = BASE.replace('"wavelan-dsss"', '"wavelan-9000"')
    e = _error_for(text)
    assert "unknown device profile `wavelan-9000`" in e.message
    assert "orinoco" in e.message and "atheros-ar5004" in e.message
    assert e.line == next(i for i, l in enumerate(text.splitlines(), 1) if "wavelan-9000" in l)


def test_unknown_node_reference_and_bad_probability():
    e = _error_for(BASE.replace('server = "server"', 'server = "srv"'))
    assert "unknown node `srv`" in e.message and e.line is not None
    e = _error_for(wlan_scenario(loss=1.5))
    assert "not a probability" in e.message


def test_unknown_congestion_control_lists_valid_ones():
    e = _error_for(BASE + 'tcp = { cc = "bbr9" }\n')
    assert "unknown congestion control `bbr9`" in e.message and "newreno" in e.message


@pytest.mark.parametrize(("tcp", "key", "says"), [
    pytest.param('profile = "bsd"', "profile", "unknown TCP profile `bsd` (known: textbook, linux)", id="unknown-tcp-profile-lists-known-ones"),
    # The linux profile's 16 MiB window cannot be advertised with a written shift of 2.
    pytest.param('profile = "linux", window_scale = 2', "window_scale", "at least 9", id="linux-profile-window-scale-too-small"),
    pytest.param('cc = "cubic", hystart = "fast"', "hystart", "unknown hystart `fast` (known: off, linux, hystart++)", id="unknown-hystart-lists-known-ones"),
    pytest.param('hystart = "linux"', "hystart", 'set tcp.cc = "cubic"', id="hystart-without-cubic"),
    pytest.param('cc = "vegas", vegas_retransmit = "bsd"', "vegas_retransmit", "unknown vegas_retransmit `bsd` (known: rfc, ns2)",
                 id="unknown-vegas-retransmit-lists-known-ones"),
    pytest.param('cc = "tahoe", vegas_retransmit = "ns2"', "vegas_retransmit", 'set tcp.cc = "vegas" (it is tahoe)', id="vegas-retransmit-without-vegas"),
    pytest.param('slow_start_after_idle = "yes"', "slow_start_after_idle", "expected a boolean", id="tcp-switch-not-a-boolean"),
    pytest.param("rack = true", "rack", "needs SACK", id="rack-without-sack"),
    pytest.param("tlp = true", "tlp", "needs SACK", id="tlp-without-sack"),
    pytest.param("sack_compress = true", "sack_compress", "needs SACK", id="sack-compress-without-sack"),
    pytest.param('cc = "cubic", cubic = "bic"', "cubic", "unknown cubic `bic` (known: rfc9438, linux)", id="unknown-cubic-variant-lists-known-ones"),
    pytest.param('cubic = "linux"', "cubic", 'set tcp.cc = "cubic" (it is newreno)', id="cubic-variant-without-cubic"),
    pytest.param('rto = "bsd"', "rto", "unknown rto `bsd` (known: rfc6298, linux)", id="unknown-rto-lists-known-ones"),
    pytest.param('rto = "linux", timer_tick = "500ms"', "rto", "remove tcp.timer_tick", id="linux-rto-with-a-coarse-timer"),
    pytest.param('profile = "linux", ooo_limit = "ranges64"', "ooo_limit", "unknown ooo_limit `ranges64` (known: ranges32, rcvbuf)",
                 id="unknown-ooo-limit-lists-known-ones"),
    pytest.param('profile = "linux", prr_variant = "bsd"', "prr_variant", "unknown prr_variant `bsd` (known: rfc6937, linux)",
                 id="unknown-prr-variant-lists-known-ones"),
    pytest.param('prr_variant = "linux"', "prr_variant", "set tcp.prr = true", id="prr-variant-without-prr"),
    pytest.param('profile = "linux", rto_rearm = "bsd"', "rto_rearm", "unknown rto_rearm `bsd` (known: rfc6298, linux)",
                 id="unknown-rto-rearm-lists-known-ones"),
    pytest.param('profile = "linux", rto_timer = "jiffies"', "rto_timer", "unknown rto_timer `jiffies` (known: exact, linux)",
                 id="unknown-rto-timer-lists-known-ones"),
    pytest.param('rto_timer = "linux", timer_tick = "500ms"', "rto_timer", "remove tcp.timer_tick", id="linux-rto-timer-with-a-coarse-timer"),
    pytest.param('profile = "linux", rtt_sample = "bsd"', "rtt_sample", "unknown rtt_sample `bsd` (known: rfc, linux)",
                 id="unknown-rtt-sample-lists-known-ones"),
    pytest.param('profile = "linux", in_flight = "pipe"', "in_flight", "unknown in_flight `pipe` (known: rfc5681, linux)",
                 id="unknown-in-flight-lists-known-ones"),
    pytest.param('in_flight = "linux"', "in_flight", "set tcp.sack = true", id="in-flight-without-sack"),
    pytest.param('profile = "linux", recovery_point = "bsd"', "recovery_point",
                 "unknown recovery_point `bsd` (known: rfc6675, linux)", id="unknown-recovery-point-lists-known-ones"),
    pytest.param('recovery_point = "linux"', "recovery_point", "set tcp.sack = true", id="recovery-point-without-sack"),
    pytest.param('profile = "linux", scaling_ratio = 300', "scaling_ratio", "out of range: must be 0..=255/256", id="scaling-ratio-out-of-range"),
    pytest.param("scaling_ratio = 162", "scaling_ratio", "set tcp.autotune = true", id="scaling-ratio-without-autotune"),
    pytest.param('profile = "linux", ack_pushed = 1', "ack_pushed", "expected a boolean", id="ack-pushed-not-a-boolean"),
    pytest.param('cc = "bbr9"', "cc", "unknown congestion control `bbr9` (known: tahoe, reno, newreno, sack, vegas, westwood, cubic, ackloss)",
                 id="unknown-cc-lists-known-ones"),
    pytest.param("cubic_idle_shift = true", "cubic_idle_shift", 'set tcp.cc = "cubic" (it is newreno)', id="cubic-idle-shift-without-cubic"),
    pytest.param('cc = "sack", sack = false', "sack", 'cc = "sack" needs SACK: remove tcp.sack = false', id="sack-cc-without-sack"),
    pytest.param("ack_every = 4, delayed_ack = false", "ack_every", "tcp.ack_every > 2 needs delayed ACK", id="ack-every-without-delayed-ack"),
])
def test_a_bad_tcp_setting_names_field_and_line(tcp, key, says):
    """Each bad ``tcp`` setting of a flow is refused naming ``flow[0].tcp.KEY``, at the line of
    its ``tcp = { ... }`` table (the scenario's last), with the reason."""
    text = BASE + f"tcp = {{ {tcp} }}\n"
    e = _error_for(text)
    assert e.key == f"flow[0].tcp.{key}" and f"flow[0].tcp.{key}" in str(e)
    assert says in e.message
    assert e.line == len(text.splitlines())


def test_rack_and_tlp_are_accepted_with_sack():
    # With SACK (or the linux profile, which has it) both are accepted.
    wattlab.validate(text=BASE + "tcp = { sack = true, rack = true, tlp = true }\n")
    wattlab.validate(text=BASE + 'tcp = { profile = "linux", rack = false, tlp = false }\n')


def test_override_errors_name_the_override():
    with pytest.raises(wattlab.ScenarioError) as info:
        wattlab.validate(text=BASE, overrides=["link.nosuch.rate=1Mbps"])
    assert "no entry named `nosuch`" in str(info.value)


def test_cli_reports_error_without_traceback(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text(BASE.replace('rate = "100Mbps"', 'rate = "fast"'))
    proc = subprocess.run(
        [sys.executable, "-m", "wattlab.cli", "run", str(bad)], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 2
    assert f"{bad}:" in proc.stderr and "link[0].rate" in proc.stderr
    assert "Traceback" not in proc.stderr and "panicked" not in proc.stderr
    assert bad.read_text().count('rate = "fast"') == 1  # the user's file is untouched


def test_cli_missing_file(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "wattlab.cli", "run", str(tmp_path / "nope.toml")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2 and "not found" in proc.stderr and "Traceback" not in proc.stderr


def test_a_key_of_another_kind_is_refused_by_the_flows_kind():
    # Issue 28: each kind reads its own struct, so a web key on a bulk download is named as
    # such (on main it was a type error about a sequence), at its line, with the kind's keys.
    text = BASE.replace('bytes = "1MB"', 'bytes = "1MB"\nservers = 3')
    e = _error_for(text)
    assert e.key == "flow[0].servers"
    assert e.line == text.splitlines().index("servers = 3") + 1
    assert e.message.startswith('`servers` does not apply to kind = "bulk-download" (its keys: name, start, port, dscp, client,')
    # A key no kind has lists this kind's keys only, not every kind's.
    e = _error_for(BASE.replace('bytes = "1MB"', 'bytes = "1MB"\nbites = 3'))
    assert e.message.startswith("unknown field `bites` (kind = \"bulk-download\" takes:") and "servers" not in e.message


def test_hystart_errors_name_field_and_line():
    text = BASE + 'tcp = { cc = "cubic", hystart = "fast" }\n'
    e = _error_for(text)
    assert "flow[0].tcp.hystart" in str(e) and "unknown hystart `fast` (known: off, linux, hystart++)" in e.message
    assert e.line == next(i for i, l in enumerate(text.splitlines(), 1) if '"fast"' in l)
    e = _error_for(BASE + 'tcp = { hystart = "linux" }\n')
    assert "flow[0].tcp.hystart" in str(e) and 'set tcp.cc = "cubic"' in e.message


def test_a_nodes_tx_time_is_range_checked_with_node_and_line():
    # node.tx_time (a host's transmit time per packet, `stack::TxPath`): 0..=1 ms, with a unit.
    lines = BASE.splitlines()
    at = lines.index('kind = "host"')
    node = sum(1 for l in lines[:at] if l == "[[node]]") - 1
    for value, says in (('"2ms"', "out of range: must be"), ('"5"', "has no unit")):
        text = "\n".join([*lines[: at + 1], f"tx_time = {value}", *lines[at + 1 :]]) + "\n"
        e = _error_for(text)
        assert f"node[{node}].tx_time" in str(e) and says in e.message
        assert e.line == at + 2
    ok = "\n".join([*lines[: at + 1], 'tx_time = "5us"', *lines[at + 1 :]]) + "\n"
    wattlab.validate(text=ok)
