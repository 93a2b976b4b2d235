"""The toy datagram engine live (issue 28: a new engine runs in the simulator and live through
the generic socket and host): ``wattlab-live echo`` on the generic host, its server in the
testbed's server namespace and its client in the client namespace, through the link/AP emulator
running the path of ``live-download.toml`` (30 ms each way on the wired link, 20 Mb/s hop).
Every request comes back whole (the payload is a pattern the engine checks), and each round-trip
time is the emulated path's: at least its base RTT, and not much more on an idle path.

Needs root, network namespaces and NFQUEUE; skips elsewhere with the reason (the same check as
``test_live.py``). Every process has a time limit and the namespaces are removed on exit."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest

from conftest import ROOT, SCENARIOS
from test_live import needs_live
from wattlab.live import netns, runner, session

DOWNLOAD = SCENARIOS / "live-download.toml"
BIN = ROOT / "target" / "release" / "wattlab-live"


def _echo(tb: netns.Testbed, out: Path, count: int, server: bool = True) -> tuple[dict, dict | None]:
    """Runs an echo server (if ``server``) and a client of ``count`` requests in ``tb``;
    returns their reports."""
    exe = str(BIN)
    srv = None
    if server:
        srv = tb.start("server", [exe, "echo", "--bind", f"{netns.SERVER_ADDR}:7", "--time-limit", "60", "--report", str(out / "server.json")],
                       stdout=out / "server.out", stderr=out / "server.log")
        deadline = time.monotonic() + 10
        while "ready" not in ((out / "server.out").read_text() if (out / "server.out").exists() else ""):
            assert srv.poll() is None and time.monotonic() < deadline, "the echo server did not start"
            time.sleep(0.02)
    argv = ["ip", "netns", "exec", tb.ns("client"), exe, "echo", "--bind", f"{netns.CLIENT_ADDR}:0", "--peer", f"{netns.SERVER_ADDR}:7",
            "--count", str(count), "--size", "1200", "--interval-ms", "20", "--rto-ms", "500", "--max-retries", "2",
            "--time-limit", "30", "--report", str(out / "client.json")]
    p = subprocess.run(argv, capture_output=True, text=True, timeout=40)
    assert p.returncode == 0, p.stderr
    tb.stop_all()
    return json.loads((out / "client.json").read_text()), json.loads((out / "server.json").read_text()) if server else None


@pytest.fixture
def testbed(tmp_path):
    """The three namespaces with the emulator of ``live-download.toml``'s path on the AP."""
    plan = runner.load_plan(DOWNLOAD, "always-on")
    tb = netns.Testbed()
    try:
        tb.claim()
        tb.build(plan)
        s = session.Session(plan, ["--scenario", str(DOWNLOAD), "--policy", "always-on"], tmp_path, tb, 60.0, lambda _m: None)
        s.emulator("always-on")
        yield tb, plan
    finally:
        tb.teardown()


@needs_live
def test_the_echo_engine_runs_live_through_the_emulated_path(testbed, tmp_path):
    tb, plan = testbed
    client, server = _echo(tb, tmp_path, count=20)
    assert client["outcome"] == "completed", client
    st = client["stats"]
    assert (st["requests"], st["echoes"], st["bad"]) == (20, 20, 0), st  # every echo intact
    assert server["stats"]["served"] >= 20 and server["host"]["refused"] == 0, server
    base_ms = plan["base_rtt_s"] * 1e3  # 60 ms: the wired link's 30 ms each way
    rtts = client["rtt_ms"]
    assert len(rtts) == 20
    # At least the path's delay plus two 1228-byte frames at 20 Mb/s, and no queue on an idle path.
    floor = base_ms + 2 * 1228 * 8 / 20e6 * 1e3
    assert min(rtts) >= floor - 0.5, (floor, rtts)
    assert sorted(rtts)[len(rtts) // 2] < floor + 15, (floor, rtts)


@needs_live
def test_a_live_echo_client_without_a_server_gives_up_after_its_retries(testbed, tmp_path):
    tb, _ = testbed
    client, _ = _echo(tb, tmp_path, count=3, server=False)
    assert client["outcome"] == "failed: request 0 unanswered", client
    assert (client["stats"]["requests"], client["stats"]["retransmissions"], client["host"]["received"]) == (1, 2, 0)
