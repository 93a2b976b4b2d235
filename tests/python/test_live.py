"""The live testbed (issue 7): real Linux TCP between network namespaces, through wattlab's
userspace emulator, with the client-centered agent on NFQUEUE; and its hostile inputs (issue
16, item 9): options, scenarios and output directories refused before anything runs, a
streamed payload, dying processes and clean-up during and after a run.

Tests that need root, network namespaces and NFQUEUE skip elsewhere, naming what is missing;
CI runs them as root. Every live run has a time bound and removes its namespaces. Tests look
only at the namespaces of the runs they start (by run id), and the clean-up command runs in a
private mount namespace, so a colleague's live runs on the same machine are never touched.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from conftest import ROOT, SCENARIOS
from wattlab import live
from wattlab.live import netns, runner, session

YAN = SCENARIOS / "yan-cc-download.toml"
DOWNLOAD = SCENARIOS / "live-download.toml"
WATTLAB = [str(Path(sys.executable).parent / "wattlab")]


def _live_reason() -> str | None:
    """Why the live tests cannot run here, or None."""
    if os.geteuid() != 0:
        return "the live testbed needs root (network namespaces, iptables); CI runs these tests as root"
    for tool, pkg in netns.TOOLS.items():
        if shutil.which(tool) is None:
            return f"{tool} is missing (Debian package {pkg}; `make setup` installs it as root)"
    probe = "wlprobe-nfq"
    try:
        subprocess.run(["ip", "netns", "add", probe], check=True, capture_output=True, timeout=10)
        r = subprocess.run(["ip", "netns", "exec", probe, "iptables", "-A", "OUTPUT", "-j", "NFQUEUE", "--queue-num", "9"], capture_output=True, text=True, timeout=10)
        if r.returncode != 0:
            return f"iptables NFQUEUE is not available in a network namespace: {r.stderr.strip()}"
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as e:
        return f"cannot create a network namespace: {e}"
    finally:
        subprocess.run(["ip", "netns", "delete", probe], capture_output=True, timeout=10)
    if not (ROOT / "target" / "release" / "wattlab-live").is_file() and "WATTLAB_LIVE_BIN" not in os.environ:
        return "target/release/wattlab-live is not built (make setup builds it)"
    return None


LIVE_REASON = _live_reason()
needs_live = pytest.mark.skipif(LIVE_REASON is not None, reason=str(LIVE_REASON))


def _our_namespaces() -> list[str]:
    return [n for n in netns.list_namespaces() if netns._is_ours(n)] if shutil.which("ip") else []


def _namespaces_of(run_id: str) -> list[str]:
    """The namespaces of one run (other runs, e.g. a colleague's tests, are not looked at)."""
    return [n for n in netns.list_namespaces() if netns._run_id(n) == run_id]


@pytest.fixture
def runs(monkeypatch) -> list[str]:
    """Run ids of the live runs this test starts in-process (recorded when they take their lock)."""
    ids: list[str] = []
    claim = netns.Testbed.claim

    def recording(self):
        ids.append(self.run_id)
        claim(self)

    monkeypatch.setattr(netns.Testbed, "claim", recording)
    return ids


def _run_id_of(pid: int, timeout: float = 30.0) -> str:
    """The run id of the live run in process ``pid`` (from its lock file), once its three
    namespaces exist."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for lock in netns.RUN_DIR.glob("wl*.lock") if netns.RUN_DIR.is_dir() else ():
            rid = lock.stem[len(netns.PREFIX):]
            with contextlib.suppress(OSError):
                if lock.read_text().strip() == str(pid) and len(_namespaces_of(rid)) == 3:
                    return rid
        time.sleep(0.05)
    raise AssertionError(f"process {pid} never created its namespaces")


def _start_cli_run(out: Path, *extra: str, scenario: Path = DOWNLOAD, started: str = "fetch.log") -> tuple[subprocess.Popen, str]:
    """``wattlab live run`` in a child process, once it is transferring (its ``started`` log
    exists: the downloading client's by default): (process, run id)."""
    proc = subprocess.Popen([*WATTLAB, "live", "run", str(scenario), "--out", str(out), "--time-limit", "60", *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    rid = _run_id_of(proc.pid)
    deadline = time.monotonic() + 30
    while not (out / started).exists() and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.02)
    assert (out / started).exists(), f"the run never started its transfer ({started})"
    return proc, rid


def _cli(argv: list[str], monkeypatch=None, root: bool | None = None):
    """Invoke the CLI in-process; ``root=False`` pretends not to be root."""
    from click.testing import CliRunner

    from wattlab.cli import app

    if root is False:
        monkeypatch.setattr(os, "geteuid", lambda: 1000)
    return CliRunner().invoke(app, argv)


def _needs_binary() -> None:
    if not (ROOT / "target" / "release" / "wattlab-live").is_file():
        pytest.skip("target/release/wattlab-live is not built (make setup builds it)")


# ---- without root -----------------------------------------------------------------------


def test_without_root_the_error_says_so(monkeypatch):
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    with pytest.raises(live.LiveError, match="needs root"):
        live.require_root()
    with pytest.raises(live.LiveError, match="needs root"):
        live.run(YAN, "cc", time_limit=5)


def test_cli_without_root_exits_nonzero_with_the_reason(monkeypatch):
    from click.testing import CliRunner

    from wattlab.cli import app

    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    for argv in (["live", "run", str(YAN), "--policy", "cc"], ["live", "compare", str(YAN)], ["live", "cleanup"]):
        r = CliRunner().invoke(app, argv)
        assert r.exit_code == 2, (argv, r.output)
        assert "needs root" in r.output and r.exception is None or isinstance(r.exception, SystemExit)


def test_plan_reads_the_scenario_like_the_simulator():
    if not (ROOT / "target" / "release" / "wattlab-live").is_file():
        pytest.skip("target/release/wattlab-live is not built (make setup builds it)")
    p = runner.load_plan(YAN, "cc")
    assert p["bytes"] == 5_000_000 and p["request"] == 100 and p["port"] == 80
    assert (p["cc"], p["linux_cc"], p["sack"], p["timestamps"]) == ("reno", "reno", False, True)
    assert p["recv_buffer"] == 65535 and p["window_scale"] is None and p["initial_cwnd"] == 2
    assert p["hop_rate_bps"] == 20_000_000 and p["power_save"] == "cc" and p["profile"] == "wavelan-dsss"
    assert p["base_rtt_s"] == pytest.approx(0.060, abs=1e-4)
    assert p["overrides"] == ['wireless.0.power_save="cc"']
    assert runner.load_plan(YAN, "psm")["power_save"] == "ideal-psm"
    assert runner.load_plan(YAN, "always-on")["detection"] is None


def test_linux_profile_reaches_the_live_plan_and_unturnable_switches_are_refused():
    if not (ROOT / "target" / "release" / "wattlab-live").is_file():
        pytest.skip("target/release/wattlab-live is not built (make setup builds it)")
    p = runner.load_plan(YAN, "cc", ['flow.0.tcp.profile="linux"'])
    # The scenario's written cc = "reno" overrides the profile's cubic; the rest is Linux's.
    assert (p["cc"], p["sack"], p["timestamps"], p["initial_cwnd"]) == ("reno", True, True, 10)
    assert (p["recv_buffer"], p["window_scale"], p["autotune"]) == (16 << 20, 10, True)
    # Linux's cwnd restart after idle follows the option: the testbed sets the sysctl from it.
    assert p["slow_start_after_idle"] is True
    assert runner.load_plan(YAN, "cc")["slow_start_after_idle"] is False
    assert runner.load_plan(YAN, "cc", ['flow.0.tcp.profile="linux"', "flow.0.tcp.slow_start_after_idle=false"])["slow_start_after_idle"] is False
    for key in ("prr", "quick_ack", "rack", "tlp", "sack_compress"):
        with pytest.raises(live.LiveError, match=f"tcp.{key}: a live run uses Linux's TCP"):
            runner.load_plan(YAN, "cc", [f"flow.0.tcp.{key}=false"])
    cubic = ['flow.0.tcp.profile="linux"', 'flow.0.tcp.cc="cubic"']
    for mode in ("off", "hystart++"):
        with pytest.raises(live.LiveError, match="tcp.hystart: a live run uses Linux's CUBIC"):
            runner.load_plan(YAN, "cc", [*cubic, f'flow.0.tcp.hystart="{mode}"'])
    assert runner.load_plan(YAN, "cc", [*cubic, 'flow.0.tcp.hystart="linux"'])["cc"] == "cubic"
    with pytest.raises(live.LiveError, match="tcp.cubic_idle_shift: a live run uses Linux's CUBIC"):
        runner.load_plan(YAN, "cc", [*cubic, "flow.0.tcp.cubic_idle_shift=false"])
    assert runner.load_plan(YAN, "cc", [*cubic, "flow.0.tcp.autotune=false"])["autotune"] is False
    with pytest.raises(live.LiveError, match="tcp.cubic: a live run uses Linux's CUBIC, whose window arithmetic is `linux`"):
        runner.load_plan(YAN, "cc", [*cubic, 'flow.0.tcp.cubic="rfc9438"'])
    assert runner.load_plan(YAN, "cc", [*cubic, 'flow.0.tcp.cubic="linux"'])["cc"] == "cubic"
    with pytest.raises(live.LiveError, match="tcp.rto: a live run uses Linux's TCP"):
        runner.load_plan(YAN, "cc", [*cubic, 'flow.0.tcp.rto="rfc6298"'])
    assert runner.load_plan(YAN, "cc", [*cubic, 'flow.0.tcp.rto="linux"'])["cc"] == "cubic"
    vegas = ['flow.0.tcp.cc="vegas"']
    with pytest.raises(live.LiveError, match="tcp.vegas_retransmit: a live run uses Linux's Vegas"):
        runner.load_plan(YAN, "cc", [*vegas, 'flow.0.tcp.vegas_retransmit="ns2"'])
    assert runner.load_plan(YAN, "cc", [*vegas, 'flow.0.tcp.vegas_retransmit="rfc"'])["cc"] == "vegas"
    # Linux bounds its out-of-order queue by memory only: a written count bound is refused.
    with pytest.raises(live.LiveError, match="tcp.ooo_limit: a live run uses Linux's TCP"):
        runner.load_plan(YAN, "cc", ['flow.0.tcp.ooo_limit="ranges32"'])
    assert runner.load_plan(YAN, "cc", ['flow.0.tcp.ooo_limit="rcvbuf"'])["cc"] == "reno"
    # Linux's PRR is tcp_cwnd_reduction's: the RFC's pseudocode is refused.
    prr = ["flow.0.tcp.sack=true", "flow.0.tcp.prr=true"]
    with pytest.raises(live.LiveError, match="tcp.prr_variant: a live run uses Linux's TCP"):
        runner.load_plan(YAN, "cc", [*prr, 'flow.0.tcp.prr_variant="rfc6937"'])
    assert runner.load_plan(YAN, "cc", [*prr, 'flow.0.tcp.prr_variant="linux"'])["cc"] == "reno"
    # Linux restarts its retransmission timer on resending snd_una's segment: RFC 6298's rule is refused.
    with pytest.raises(live.LiveError, match="tcp.rto_rearm: a live run uses Linux's TCP"):
        runner.load_plan(YAN, "cc", ['flow.0.tcp.rto_rearm="rfc6298"'])
    assert runner.load_plan(YAN, "cc", ['flow.0.tcp.rto_rearm="linux"'])["cc"] == "reno"
    # Linux's RTO fires on the jiffies wheel and is fed by its own RTT samples: the RFC ones are refused.
    for key, rfc in (("rto_timer", "exact"), ("rtt_sample", "rfc")):
        with pytest.raises(live.LiveError, match=f"tcp.{key}: a live run uses Linux's TCP"):
            runner.load_plan(YAN, "cc", [f'flow.0.tcp.{key}="{rfc}"'])
        assert runner.load_plan(YAN, "cc", [f'flow.0.tcp.{key}="linux"'])["cc"] == "reno"
    # Linux ACKs pushed data at the read and its server pushes at the window's end: not switchable.
    for key in ("ack_pushed", "push_window_end"):
        with pytest.raises(live.LiveError, match=f"tcp.{key}: a live run uses Linux's TCP"):
            runner.load_plan(YAN, "cc", [f"flow.0.tcp.{key}=false"])
        assert runner.load_plan(YAN, "cc", [f"flow.0.tcp.{key}=true"])["cc"] == "reno"
    # Linux restarts SACK recovery at the recovery point.
    sack = ["flow.0.tcp.sack=true"]
    for key, rfc in (("recovery_point", "rfc6675"), ("in_flight", "rfc5681")):
        with pytest.raises(live.LiveError, match=f"tcp.{key}: a live run uses Linux's TCP"):
            runner.load_plan(YAN, "cc", [*sack, f'flow.0.tcp.{key}="{rfc}"'])
        assert runner.load_plan(YAN, "cc", [*sack, f'flow.0.tcp.{key}="linux"'])["cc"] == "reno"


def test_plan_errors_name_the_problem(tmp_path):
    if not (ROOT / "target" / "release" / "wattlab-live").is_file():
        pytest.skip("target/release/wattlab-live is not built (make setup builds it)")
    with pytest.raises(live.LiveError, match="web.toml: flow `web`: a live web flow browses one server .* it has 3"):
        runner.load_plan(SCENARIOS / "web.toml", "always-on")
    two = tmp_path / "two.toml"
    two.write_text(YAN.read_text() + '\n[[flow]]\nkind = "ping"\nfrom = "client"\nto = "server"\n')
    with pytest.raises(live.LiveError, match="a live run needs exactly one \\[\\[flow\\]\\], of kind \"bulk-download\""):
        runner.load_plan(two, "always-on")
    bad = tmp_path / "bad.toml"
    bad.write_text(YAN.read_text().replace('rate = "20Mbps"', 'rate = "20 parsecs"'))
    with pytest.raises(live.LiveError, match="bad.toml:[0-9]+"):
        runner.load_plan(bad, "cc")
    with pytest.raises(live.LiveError, match="Tahoe"):
        runner.load_plan(YAN, "always-on", ["flow.0.tcp.cc=tahoe"])
    with pytest.raises(live.LiveError, match="unknown live policy"):
        runner.load_plan(YAN, "bsd")
    with pytest.raises(live.LiveError, match="tcp.timer_tick: a live run uses Linux's TCP"):
        runner.load_plan(YAN, "always-on", ['flow.0.tcp.timer_tick="500ms"'])


def test_a_hosts_modelled_transmit_time_is_refused_live():
    # node.tx_time models a host's transmit path in the simulator; live, the host's own is used.
    if not (ROOT / "target" / "release" / "wattlab-live").is_file():
        pytest.skip("target/release/wattlab-live is not built (make setup builds it)")
    with pytest.raises(live.LiveError, match="node `server`.tx_time: a live run sends through the hosts' own transmit paths"):
        runner.load_plan(YAN, "cc", ['node.0.tx_time="5us"'])
    assert runner.load_plan(YAN, "cc", ['node.0.tx_time="0s"'])["power_save"] == "cc"


# ---- hostile input (issue 16, item 9): refused before anything runs, root or not -------


@pytest.mark.parametrize("value", ["nan", "-5", "0", "inf", "1e300", "3601", "-0.0"])
def test_time_limit_out_of_range_is_refused_up_front(monkeypatch, value):
    r = _cli(["live", "run", str(DOWNLOAD), f"--time-limit={value}"], monkeypatch, root=False)
    assert r.exit_code == 2, r.output
    assert "--time-limit" in r.output and "0 < S <= 3600" in r.output, r.output
    assert "needs root" not in r.output and "exited" not in r.output and r.exception is None or isinstance(r.exception, SystemExit)
    r = _cli(["live", "compare", str(DOWNLOAD), f"--time-limit={value}"], monkeypatch)
    assert r.exit_code == 2 and "0 < S <= 3600" in r.output, r.output


def test_api_checks_the_types_of_its_arguments(monkeypatch):
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    cases = [
        (dict(time_limit=True), "number of seconds"),
        (dict(time_limit="5"), "number of seconds"),
        (dict(overrides="wireless.0.rate=1Mbps"), "list of strings"),
        (dict(overrides=[1]), "strings, not int"),
        (dict(sysctls="client:net.ipv4.tcp_sack=1"), "list of strings"),
        (dict(policy="bsd"), "unknown live policy"),
        (dict(out_dir=True), "path"),
    ]
    for kwargs, want in cases:
        with pytest.raises(live.LiveInputError, match=want):
            live.run(DOWNLOAD, **{"policy": "always-on", **kwargs})
    for scenario in ({"name": "x"}, None, 5):
        with pytest.raises(live.LiveInputError, match="path to a .toml file"):
            live.run(scenario)


def test_scenario_paths_that_are_not_files_are_refused(tmp_path, monkeypatch):
    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)  # reading it would block forever
    big = tmp_path / "big.toml"
    big.write_bytes(b"#" * (2 << 20))
    cases = [
        (tmp_path, "is a directory"), (tmp_path / "missing.toml", "no such file"), ("/dev/null", "not a regular file"),
        ("/dev/zero", "not a regular file"), (fifo, "not a regular file"), (big, "at most 1,048,576 bytes"),
    ]
    for path, want in cases:
        t = time.monotonic()
        r = _cli(["live", "run", str(path)], monkeypatch, root=False)
        assert r.exit_code == 2 and want in r.output, (path, r.output)
        assert "--set" not in r.output and "power_save" not in r.output, r.output  # no override the user never gave
        assert time.monotonic() - t < 5, path


def test_an_empty_scenario_names_what_is_missing_not_an_override(tmp_path, monkeypatch):
    _needs_binary()
    empty = tmp_path / "empty.toml"
    empty.write_text("")
    for policy in ("always-on", "cc", "psm", "adaptive-psm"):
        r = _cli(["live", "run", str(empty), "--policy", policy], monkeypatch, root=False)
        assert r.exit_code == 2 and "exactly one [[wireless]] hop" in r.output, r.output
        assert "--set" not in r.output and "power_save" not in r.output, r.output


@pytest.mark.parametrize("spec, want", [
    ("client:net.ipv4.tcp_sack", "expected ROLE:KEY=VALUE"),
    ("router:net.ipv4.tcp_sack=1", "expected ROLE:KEY=VALUE"),
    ("client:kernel.pid_max=99999", "expected ROLE:KEY=VALUE"),
    ("client:net.ipv4.../x=1", "expected ROLE:KEY=VALUE"),
    ("client:net.ipv4.no_such_setting=1", "no such sysctl"),
    ("client:net.ipv4.tcp_sack=", "empty or has control characters"),
    ("client:net.ipv4.tcp_sack=1\n0", "empty or has control characters"),
])
def test_bad_sysctl_is_refused_up_front(monkeypatch, spec, want):
    r = _cli(["live", "run", str(DOWNLOAD), "--sysctl", spec], monkeypatch, root=False)
    assert r.exit_code == 2 and want in r.output and "needs root" not in r.output, r.output


def test_bad_set_is_refused_with_the_users_own_words(monkeypatch):
    _needs_binary()
    cases = [
        ("foo", "expected KEY=VALUE"), ("=1", "expected KEY=VALUE"),
        ('wireless.hop.power_save="cam"', "set by --policy"), ('wireless.0.power_save="psm"', "set by --policy"),
        ('wireless.0.rate="[/]"', "wireless.0.rate"), ("flow.0.tcp.cc=tahoe", "Tahoe"),
    ]
    for value, want in cases:
        r = _cli(["live", "run", str(YAN), "--policy", "cc", "--set", value], monkeypatch, root=False)
        assert r.exit_code == 2 and want in r.output, (value, r.output)
        assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
        if "power_save" not in value:
            assert "power_save" not in r.output, r.output


def test_a_download_that_cannot_finish_in_time_is_refused_up_front(monkeypatch):
    _needs_binary()
    need = runner.checks.least_time_s(runner.load_plan(DOWNLOAD, "always-on"))
    assert 2.0 < need < 3.0  # 5 MB at 20 Mb/s plus two 60 ms round trips
    for value in ("0.5", "2"):
        r = _cli(["live", "run", str(DOWNLOAD), "--time-limit", value], monkeypatch, root=False)
        assert r.exit_code == 2, r.output
        assert f"needs at least {need:.1f} s, more than --time-limit {value} s" in r.output, r.output
    # A scenario whose own duration is too short is refused the same way without --time-limit.
    r = _cli(["live", "run", str(DOWNLOAD), "--set", 'simulation.duration="1s"'], monkeypatch, root=False)
    assert r.exit_code == 2 and "the default bound of 1 s (the scenario's duration" in r.output, r.output


def test_a_huge_payload_is_refused_before_anything_is_written(tmp_path, monkeypatch):
    # 100 GB with --time-limit 5 used to write 25 GB to the temporary directory first and
    # leave it there when killed. Now it is refused at once: nothing is written, nothing runs
    # (as root too: no namespace is created).
    _needs_binary()
    big = tmp_path / "big.toml"
    big.write_text(DOWNLOAD.read_text().replace('bytes = "5MB"', 'bytes = "100GB"'))
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    before = set(_our_namespaces())
    t = time.monotonic()
    r = _cli(["live", "run", str(big), "--time-limit", "5"])
    assert r.exit_code == 2, r.output
    assert "100,000,000,000 B at 20 Mbit/s) needs at least 40,000.1 s, more than a live run may take (3600 s)" in r.output, r.output
    assert time.monotonic() - t < 5 and list(tmp.iterdir()) == []
    assert set(_our_namespaces()) <= before


def test_out_that_is_a_file_or_not_empty_is_refused(tmp_path, monkeypatch):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "client.pcap").write_bytes(b"the user's own capture")
    a_file = tmp_path / "f.txt"
    a_file.write_text("keep")
    for out, want in [(a_file, "is not a directory"), ("/dev/null", "is not a directory"), (mine, "is not empty (client.pcap)"),
                      ("", "--out is empty")]:
        r = _cli(["live", "run", str(DOWNLOAD), "--out", str(out)], monkeypatch, root=False)
        assert r.exit_code == 2 and want in r.output, (out, r.output)
    r = _cli(["live", "compare", str(DOWNLOAD), "--out", str(mine)], monkeypatch, root=False)
    assert r.exit_code == 2 and "is not empty" in r.output, r.output
    assert (mine / "client.pcap").read_bytes() == b"the user's own capture" and a_file.read_text() == "keep"
    inside = tmp_path / "in"
    inside.mkdir()
    (inside / "plan.json").write_text(DOWNLOAD.read_text())  # a scenario named like an output
    with pytest.raises(live.LiveInputError, match="would overwrite the scenario"):
        live.run(inside / "plan.json", out_dir=inside, overwrite=True)


RUST_PANIC_LOG = """\
thread 'main' (7146) panicked at /rustc/59807616/library/core/src/time.rs:962:23:
cannot convert float seconds to Duration: value is either too big or NaN
stack backtrace:
   0: __rustc::rust_begin_unwind
             at /rustc/59807616/library/std/src/panicking.rs:689:5
""" + "   1: frame\\n" * 100


def test_a_dead_process_is_described_with_its_panic_text(tmp_path):
    log = tmp_path / "server.log"
    log.write_text(RUST_PANIC_LOG)
    empty = tmp_path / "server.out"
    empty.write_text("")

    class Done:
        def __init__(self, rc):
            self.returncode = rc

    text = session.Proc("the server", Done(101), (log, empty)).exit_text()
    assert text.startswith("the server panicked (a wattlab bug): cannot convert float seconds to Duration"), text
    assert "time.rs:962:23" in text and "frame" not in text
    assert session.Proc("the client", Done(-9), (empty,)).exit_text() == "the client was killed by SIGKILL: (no output)"
    assert session.Proc("tcpdump", Done(1), (log,)).exit_text().startswith("tcpdump exited with status 1: ")


def test_payload_directories_left_by_killed_runs_are_removed(tmp_path):
    def payload_dir(name: str, age_s: float) -> Path:
        d = tmp_path / f"{netns.PAYLOAD_DIR_PREFIX}{name}"
        d.mkdir()
        (d / "payload.bin").write_bytes(b"x" * 4096)
        for p in (d / "payload.bin", d):
            os.utime(p, (time.time() - age_s,) * 2)
        return d

    old, fresh, busy = payload_dir("old", 3600), payload_dir("fresh", 0), payload_dir("busy", 3600)
    link = tmp_path / f"{netns.PAYLOAD_DIR_PREFIX}link"
    link.symlink_to(old)
    other = tmp_path / "wattlab-live-results"
    other.mkdir()
    with open(busy / "payload.bin", "rb"):  # a server of an earlier version still sending it
        gone = netns.remove_payload_dirs(tmp_path)
    assert gone == [old]
    assert not old.exists() and fresh.exists() and busy.exists() and other.exists() and link.is_symlink()


# ---- live (root) ------------------------------------------------------------------------


@needs_live
def test_always_on_download_is_intact_at_the_emulated_rate(tmp_path, tcpdump, runs, monkeypatch):
    # The payload is streamed: nothing goes to the temporary directory (issue 16, item 9:
    # a 100 GB payload used to be written there first).
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    out = tmp_path / "out"
    res = live.run(DOWNLOAD, "always-on", out_dir=out, time_limit=60, sysctls=["server:net.ipv4.tcp_invalid_ratelimit=500"])
    assert res.verified, res.fetch
    assert list(tmp.iterdir()) == []
    assert res.server["sha256"] == res.expected_sha256 == res.fetch["sha256"]
    assert res.expected_sha256 == hashlib.sha256(_payload_bytes(res.plan["bytes"], res.plan["seed"])).hexdigest()
    # A --sysctl that replaces one of the testbed's own settings is applied, with a warning.
    assert any("tcp_invalid_ratelimit" in w for w in res.warnings), res.warnings
    rate = res.plan["hop_rate_bps"]
    # Goodput over the data phase, from the first byte to the FIN: the hop is the bottleneck,
    # so it approaches but never exceeds the emulated rate (payload is 1448/1500 of a frame).
    data_s = (res.fetch["done_ns"] - res.fetch["first_byte_ns"]) / 1e9
    goodput = res.fetch["bytes"] * 8 / data_s
    assert 0.75 * rate < goodput <= rate * 1448 / 1500 * 1.01, goodput
    assert runs and not _namespaces_of(runs[0]) and not netns.lock_path(runs[0]).exists()
    p = subprocess.run([tcpdump, "-nr", str(out / "client.pcap")], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert len(p.stdout.splitlines()) > 3000
    e = res.energy.energy.set_index("policy")
    assert e.loc["oracle", "energy_j"] < e.loc["always-on", "energy_j"]
    assert (out / "summary.json").is_file() and (out / "energy" / "energy.csv").is_file()
    # The judged energy is the SYN-to-last-byte window's; the capture goes on with the close
    # (the client's FIN and the server's ACK, awake always-on), kept as capture_energy_j.
    s = json.loads((out / "summary.json").read_text())
    assert s["window_ns"] == [res.fetch["connect_ns"], res.fetch["done_ns"]]
    assert s["capture_energy_j"] == pytest.approx(float(e.loc["always-on", "energy_j"]))
    assert s["capture_energy_j"] > s["energy_j"] == pytest.approx(res.energy_j)
    assert (out / "energy_window" / "energy.csv").is_file()


def _payload_bytes(n: int, key: int) -> bytes:
    """The payload as ``wattlab-live payload --dump`` writes it."""
    p = subprocess.run([str(runner.binary()), "payload", "--bytes", str(n), "--payload-key", str(key), "--dump"],
                       capture_output=True, timeout=60, check=True)
    return p.stdout


@needs_live
def test_cc_agent_shapes_real_tcp_and_saves_energy_with_loss(tmp_path):
    res = live.run(YAN, "cc", out_dir=tmp_path, overrides=["wireless.0.down.loss.p=0.01"], time_limit=90)
    assert res.verified, res.fetch
    a = res.agent["agent"]
    assert a["shaped_connections"] == 1 and a["closed_acks"] > 50 and a["open_acks"] > 10
    assert a["probes"] > 5 and a["probe_responses"] > 0  # the kernel answers the window probes
    assert res.agent["host"]["injected"] >= a["open_acks"] + a["probes"]
    # Closed (window 0) and open (window > 0) ACKs from the client are in the capture.
    windows = _client_ack_windows(tmp_path / "client.pcap")
    assert windows.count(0) > 50 and sum(1 for w in windows if w > 0) > 10
    e = res.energy.energy.set_index("policy")
    assert e.loc["replay", "energy_j"] < e.loc["always-on", "energy_j"]
    assert e.loc["replay", "time_sleep_s"] > 0.5
    assert res.transfer_time_s < 90


@needs_live
def test_adaptive_psm_runs_on_the_emulators_hop(tmp_path):
    """The emulator runs the core's adaptive-PSM machine on its hop (100 ms timeout). With a
    120 ms RTT (60 ms each way on the wired link) slow start leaves gaps longer than the
    timeout: the station dozes inside the download, the AP end holds what arrives meanwhile
    until a beacon instant, the download is intact, and its radio schedule replayed over the
    capture has sleep and costs less than always-on."""
    res = live.run(YAN, "adaptive-psm", out_dir=tmp_path, time_limit=90, overrides=['link.internet.delay="60ms"'])
    assert res.verified, res.fetch
    assert res.plan["power_save"] == "adaptive-psm:timeout=100ms"
    ps = res.emulator["path"]["psm"]
    assert ps["dozes"] >= 2 and ps["doze_ns"] > 0 and ps["packets_held"] > 0, ps
    assert (tmp_path / "transitions.csv").is_file()
    e = res.energy.energy.set_index("policy")
    assert e.loc["replay", "time_sleep_s"] > 0
    assert e.loc["replay", "energy_j"] < e.loc["always-on", "energy_j"]


def _client_ack_windows(pcap: Path) -> list[int]:
    """Window field of every TCP segment the client sent, as tcpdump reads the capture."""
    p = subprocess.run(["tcpdump", "-nr", str(pcap), f"tcp and src host {netns.CLIENT_ADDR}"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    return [int(m) for m in re.findall(r" win (\d+)", p.stdout)]


@needs_live
def test_sim_and_live_agree_on_time_and_cc_saving(tmp_path):
    # A live run is a single sample of real time: when the VM stalls, verdicts and timers run
    # milliseconds late and packets meet delays the scenario does not have (measured: 14–20 ms
    # stalls in one CI run, 7 packets lost asleep). Such a run is repeated once, not accepted.
    for attempt in range(2):
        df = live.compare(YAN, out_dir=tmp_path / f"attempt{attempt}", time_limit=90)
        t = df.set_index(["mode", "policy"])
        within = abs(t.loc[("live", "cc"), "saving"] - t.loc[("sim", "cc"), "saving"]) <= 0.10
        if within or df[df["mode"] == "live"].host_late_max_ms.max() < 5.0:
            break
    assert bool(t.loc[("live", "always-on"), "verified"]) and bool(t.loc[("live", "cc"), "verified"])
    sim_t, live_t = t.loc[("sim", "always-on"), "transfer_time_s"], t.loc[("live", "always-on"), "transfer_time_s"]
    assert abs(live_t / sim_t - 1) <= 0.20, (sim_t, live_t)
    sim_s, live_s = t.loc[("sim", "cc"), "saving"], t.loc[("live", "cc"), "saving"]
    assert abs(live_s - sim_s) <= 0.10, (sim_s, live_s)
    assert (tmp_path / f"attempt{attempt}" / "compare.csv").is_file()


@needs_live
def test_linux_cubic_with_hystart_matches_live_time_and_retransmissions(tmp_path):
    # Linux's CUBIC leaves slow start by HyStart near the BDP, before the AP's 100-packet queue
    # overflows: live and simulated both resend ~5 segments (measured 5 / 5, 5, 5 and 2.782 s
    # against 2.73-2.78 s live; without HyStart the simulator resends ~576 and takes 3.09 s).
    cubic = ['flow.0.tcp.profile="linux"', 'flow.0.tcp.cc="cubic"']
    for attempt in range(2):
        df = live.compare(YAN, overrides=cubic, out_dir=tmp_path / f"attempt{attempt}", time_limit=90)
        t = df.set_index(["mode", "policy"])
        if t.loc[("live", "always-on"), "host_late_max_ms"] < 5.0:
            break
    assert bool(t.loc[("live", "always-on"), "verified"])
    sim_t, live_t = t.loc[("sim", "always-on"), "transfer_time_s"], t.loc[("live", "always-on"), "transfer_time_s"]
    assert abs(live_t / sim_t - 1) <= 0.10, (sim_t, live_t)
    sim_r, live_r = t.loc[("sim", "always-on"), "retransmitted"], t.loc[("live", "always-on"), "retransmitted"]
    assert sim_r <= 20 and live_r <= 50, (sim_r, live_r)


@needs_live
def test_interrupting_a_run_leaves_no_namespace(tmp_path):
    proc, rid = _start_cli_run(tmp_path, "--policy", "cc", scenario=YAN)
    time.sleep(1.0)  # into the transfer
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err
    assert not _namespaces_of(rid) and not netns.lock_path(rid).exists()


ISOLATED = """
set -e
mkdir -p /run/netns {run_dir}
mount -t tmpfs wattlab-test /run/netns
mount -t tmpfs wattlab-test {run_dir}
ip netns add wl0badc0de-client          # a crashed run of ours
ip netns add wl0badc0de-ap
ip netns add wl1234abcd-server          # a run in progress: it holds its lock
ip netns add wlx-not-ours
ip netns add wlnothex00-client          # looks like ours, is not
exec 9>{run_dir}/wl1234abcd.lock
flock -x 9
echo 4242 >&9
TMPDIR={tmp} {wattlab} live cleanup --json > {tmp}/out.json 2> {tmp}/err.txt
ip netns list > {tmp}/left.txt
"""


@needs_live
def test_cleanup_removes_only_our_leftovers(tmp_path):
    # In a private mount namespace with its own /run/netns, lock directory and TMPDIR, so the
    # real command runs without touching anyone else's namespaces (e.g. a colleague's tests).
    if shutil.which("unshare") is None or shutil.which("flock") is None:
        pytest.skip("unshare and flock (util-linux) are needed to isolate the clean-up")
    old = tmp_path / "wattlab-live-payload-old"
    old.mkdir()
    (old / "payload.bin").write_bytes(b"x" * 1000)
    os.utime(old / "payload.bin", (time.time() - 3600,) * 2)
    os.utime(old, (time.time() - 3600,) * 2)
    fresh = tmp_path / "wattlab-live-payload-fresh"  # a run of an earlier version starting now
    fresh.mkdir()
    script = ISOLATED.format(run_dir=netns.RUN_DIR, tmp=tmp_path, wattlab=WATTLAB[0])
    p = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", script],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert sorted(json.loads((tmp_path / "out.json").read_text())) == ["wl0badc0de-ap", "wl0badc0de-client"]
    left = {line.split()[0] for line in (tmp_path / "left.txt").read_text().splitlines()}
    assert left == {"wl1234abcd-server", "wlx-not-ours", "wlnothex00-client"}
    err = (tmp_path / "err.txt").read_text()
    assert "wattlab-live-payload-old" in err and "wl1234abcd (pid 4242)" in err, err
    assert not old.exists() and fresh.exists()
    assert not netns._is_ours("wlnothex00-client") and netns._is_ours("wl0badc0de-client")


@needs_live
def test_cleanup_during_a_run_leaves_it_alone(tmp_path):
    proc, rid = _start_cli_run(tmp_path / "out")
    assert rid in live.in_progress() and live.in_progress()[rid] == proc.pid
    assert live.cleanup(run_ids={rid}) == []  # the run holds its lock
    out, err = proc.communicate(timeout=90)
    assert proc.returncode == 0, err
    assert "verified" in out
    assert not _namespaces_of(rid) and not netns.lock_path(rid).exists()


@needs_live
def test_namespaces_removed_during_a_run_are_reported_as_such(tmp_path):
    # What `wattlab live cleanup` of an earlier version, or `ip netns delete`, did to a run:
    # it used to end with only "the client failed: (no output)".
    proc, rid = _start_cli_run(tmp_path / "out")
    names = _namespaces_of(rid)
    pids = [pid for n in names for pid in subprocess.run(["ip", "netns", "pids", n], capture_output=True, text=True, timeout=10).stdout.split()]
    for n in names:  # first the names, then the processes: the run sees both gone at once
        subprocess.run(["ip", "netns", "delete", n], check=True, timeout=10)
    for pid in pids:  # our run's processes only
        with contextlib.suppress(ProcessLookupError):
            os.kill(int(pid), signal.SIGKILL)
    t = time.monotonic()
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 1, err
    assert "namespaces" in err and "were removed while it ran" in err and "killed by SIGKILL" in err, err
    assert time.monotonic() - t < 10 and not netns.lock_path(rid).exists()


@needs_live
def test_a_dying_emulator_ends_the_run_at_once_and_cleans_up(tmp_path):
    proc, rid = _start_cli_run(tmp_path / "out")
    pids = subprocess.run(["ip", "netns", "pids", f"wl{rid}-ap"], capture_output=True, text=True, timeout=10).stdout.split()
    assert pids, "no emulator in the AP's namespace"
    t = time.monotonic()
    for pid in pids:  # only our run's emulator lives there
        os.kill(int(pid), signal.SIGKILL)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 1, err
    assert "the emulator was killed by SIGKILL during the download: " in err, err
    assert time.monotonic() - t < 10  # not the 60 s time limit
    assert not _namespaces_of(rid) and not netns.lock_path(rid).exists()


@needs_live
def test_a_server_panic_is_reported_with_its_text(tmp_path):
    # A wattlab-live whose `serve` panics (as it did on --time-limit nan): the run says so, with
    # the panic's message, instead of "the server exited (101) before it was ready: (no output)".
    fake = tmp_path / "wattlab-live"
    fake.write_text(
        "#!/bin/sh\n"
        'if [ "$1" = serve ]; then\n'
        f"  printf '%s' '{RUST_PANIC_LOG}' >&2\n"
        "  exit 101\n"
        "fi\n"
        f'exec {runner.binary()} "$@"\n'
    )
    fake.chmod(0o755)
    env = {**os.environ, "WATTLAB_LIVE_BIN": str(fake)}
    p = subprocess.run([*WATTLAB, "live", "run", str(DOWNLOAD), "--out", str(tmp_path / "out"), "--time-limit", "30"],
                       capture_output=True, text=True, timeout=120, env=env)
    assert p.returncode == 1, p.stderr
    assert "the server panicked before it was ready (a wattlab bug): cannot convert float seconds to Duration" in p.stderr, p.stderr
    assert "time.rs:962:23" in p.stderr and "frame" not in p.stderr and "Traceback" not in p.stderr


@needs_live
def test_a_killed_run_is_removed_by_cleanup(tmp_path):
    proc, rid = _start_cli_run(tmp_path / "out")
    proc.kill()  # SIGKILL: no clean-up of its own
    proc.communicate(timeout=30)
    assert len(_namespaces_of(rid)) == 3 and rid not in live.in_progress()
    gone = live.cleanup(run_ids={rid})
    assert sorted(gone) == sorted(f"wl{rid}-{role}" for role in netns.ROLES)
    assert not _namespaces_of(rid) and not netns.lock_path(rid).exists()


@needs_live
def test_a_sysctl_the_kernel_refuses_is_bad_input_and_cleaned_up(tmp_path, runs):
    with pytest.raises(live.LiveInputError, match="--sysctl client:net.ipv4.tcp_sack=banana: the kernel refused it"):
        live.run(DOWNLOAD, out_dir=tmp_path, time_limit=30, sysctls=["client:net.ipv4.tcp_sack=banana"])
    assert runs and not _namespaces_of(runs[0]) and not netns.lock_path(runs[0]).exists()
