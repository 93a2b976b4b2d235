"""Seed 001's PSNA live (issue 19): the daemon in the AP's namespace with Linux TCP to the fixed
host, the mobile in the client's with PS-TP over UDP, its radio switches forwarded to the
emulator; the object checked by SHA-256 at the receiving application; and the same scaled
scenario simulated and live agreeing in completion time (within 20 %) and the card's on-time
(within 25 %), both directions. A fixed host that resets the connection gives the mobile a
clear error, not a hang.

Tests that need root, network namespaces and NFQUEUE skip elsewhere with the reason (the same
check as ``test_live.py``); CI runs them as root. Every run has a time bound and removes its
namespaces.
"""

from __future__ import annotations

import json
import signal
import time

import pytest

from conftest import ROOT, SCENARIOS
from test_live import _namespaces_of, _start_cli_run, needs_live, runs  # noqa: F401 - `runs` is a fixture
from wattlab import api, live
from wattlab.live import runner
from wattlab.live import netns, psna

PSNA = SCENARIOS / "live-psna.toml"
SEND = 'flow.0.kind="psna-send"'

COMPLETION_AGREEMENT = 0.20
"""The issue's bound on completion time, live against simulated (baseline: the simulator)."""
ON_TIME_AGREEMENT = 0.25
"""The issue's bound on the card's on-time, live against simulated."""


def _needs_binary() -> None:
    if not (ROOT / "target" / "release" / "wattlab-live").is_file():
        pytest.skip("target/release/wattlab-live is not built (make setup builds it)")


# ---- without root -----------------------------------------------------------------------


def test_the_psna_scenario_plans_with_its_own_policy():
    """The plan of a PSNA flow: policy psna by default, the flow's parts; other policies refused."""
    _needs_binary()
    p = runner.load_plan(PSNA, None)
    assert (p["policy"], p["kind"], p["power_save"]) == ("psna", "psna-read", "psna")
    assert p["psna"]["direction"] == "read" and p["psna"]["daemon_port"] == 7300 and p["psna"]["rto_s"] == 0.1
    assert runner.load_plan(PSNA, None, [SEND])["kind"] == "psna-send"
    with pytest.raises(live.LiveInputError, match="--policy cc: a PSNA flow's radio is switched by its mobile"):
        runner.load_plan(PSNA, "cc")
    with pytest.raises(live.LiveInputError, match="--policy psna needs a psna-read or psna-send flow"):
        runner.load_plan(SCENARIOS / "live-download.toml", "psna")
    with pytest.raises(live.LiveInputError, match="`live compare` compares TCP downloads"):
        live.compare(PSNA)
    # A scenario override of the radio's transitions is flagged: the live costing goes by name.
    assert not p["profile_overridden"]
    over = 'node.2.radio.transitions=[{ from = "off", to = "idle", duration = "10ms", power_mw = 1000.0 }]'
    q = runner.load_plan(PSNA, None, [over])
    assert q["profile_overridden"] and "not applied to the live energy" in runner._profile_warnings(q)[0]


def test_a_result_is_verified_only_with_the_payload_at_the_receiving_application():
    """``verified`` looks at the mobile (read) or the fixed host (send), length and digest."""
    plan = {"psna": {"direction": "read"}, "bytes": 10}
    ok = {"outcome": "completed", "bytes": 10, "sha256": "ab"}

    def res(mobile, fh=None, direction="read"):
        return psna.PsnaLiveResult(plan={**plan, "psna": {"direction": direction}}, mobile=mobile, daemon={}, fh=fh,
                                   emulator={}, expected_sha256="ab", energy=None, out_dir=ROOT)

    assert res(ok).verified
    assert not res({**ok, "sha256": "cd"}).verified
    assert not res({**ok, "bytes": 9}).verified
    assert not res({**ok, "outcome": "failed"}).verified
    assert res({"outcome": "completed", "bytes": 0, "sha256": ""}, {"bytes": 10, "sha256": "ab"}, "send").verified
    assert not res({"outcome": "completed", "bytes": 0, "sha256": ""}, None, "send").verified
    assert not res({"outcome": "completed", "bytes": 0, "sha256": ""}, {"bytes": 10, "sha256": "x"}, "send").verified


def test_cleanup_removes_the_radio_socket_of_a_dead_run_only(tmp_path, monkeypatch):
    """``cleanup`` removes a killed PSNA run's radio socket, not one of a run in progress (its
    lock is held) nor a file that only looks like one."""
    import fcntl
    import os

    monkeypatch.setattr(netns, "RUN_DIR", tmp_path)
    monkeypatch.setattr(netns, "list_namespaces", lambda: [])  # touch no namespace, need no `ip`
    dead, alive = netns.radio_socket_path("0badc0de"), netns.radio_socket_path("1234abcd")
    other = tmp_path / "wlnothex0-radio.sock"
    for p in (dead, alive, other):
        p.write_text("")
    fd = os.open(netns.lock_path("1234abcd"), os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        netns.cleanup(run_ids={"0badc0de", "1234abcd", "nothex0"})
    finally:
        os.close(fd)
    assert not dead.exists() and alive.exists() and other.exists()


# ---- as root ------------------------------------------------------------------------------


def _sim(overrides: list[str]) -> dict:
    """The simulated flow of the same scenario (the PSNA metrics columns)."""
    return api.run(PSNA, overrides=overrides, baseline=False).summary["flows"][0]


@needs_live
@pytest.mark.parametrize("direction", ["read", "send"])
def test_live_and_simulated_psna_agree(tmp_path, direction, runs):  # noqa: F811
    """The live run delivers the object intact (SHA-256 at the receiving application), the card
    is switched off while the daemon fetches (read) or relays (send), the replayed energy is
    below always-on over the same capture, and completion time and on-time agree with the
    simulator within the issue's bounds."""
    ov = [SEND] if direction == "send" else []
    sim = _sim(ov)
    assert sim["completed"]
    t_sim, on_sim = sim["completion_time_s"], sim["radio_on_s"]
    # A run the host disturbed (the emulator's verdicts milliseconds late: a busy machine or a
    # VM stall) met delays the scenario does not have; it is repeated once, as test_live does.
    for attempt in range(2):
        res = live.run(PSNA, out_dir=tmp_path / f"live{attempt}", overrides=ov, time_limit=60)
        t_live, on_live = res.completion_s, res.radio_on_s
        within = abs(t_live - t_sim) <= COMPLETION_AGREEMENT * t_sim and abs(on_live - on_sim) <= ON_TIME_AGREEMENT * on_sim
        if within or res.host_late_max_ms < 5.0:
            break
    assert res.verified and res.completed, res.summary()["psna"]
    assert (res.out_dir / "transitions.csv").read_text().count("off") >= 2
    m = res.mobile
    assert m["sleeps"] >= 1 and m["residuals"][-1][1] == 0
    e = res.energy.energy
    assert float(e[e.policy == "replay"].energy_j.iloc[0]) < 0.5 * float(e[e.policy == "always-on"].energy_j.iloc[0])
    msg = f"{direction}: completion live {t_live:.3f} s sim {t_sim:.3f} s; on-time live {on_live:.3f} s sim {on_sim:.3f} s"
    print(msg)
    assert abs(t_live - t_sim) <= COMPLETION_AGREEMENT * t_sim, msg
    assert abs(on_live - on_sim) <= ON_TIME_AGREEMENT * on_sim, msg
    assert not any(_namespaces_of(r) for r in runs)


@needs_live
def test_a_fixed_host_that_aborts_gives_the_mobile_a_clear_error(tmp_path, runs):  # noqa: F811
    """The fixed host resets the connection after 100 kB: the daemon reports it, the mobile
    fails with the daemon's error at its next poll (within the residual it slept), no hang."""
    t0 = time.monotonic()
    with pytest.raises(live.LiveError, match="the PSNA transfer failed: daemon error: .*abort"):
        live.run(PSNA, out_dir=tmp_path / "abort", overrides=['flow.0.psna={ fh_stop_after = "100kB" }'], time_limit=60)
    assert time.monotonic() - t0 < 60
    s = json.loads((tmp_path / "abort" / "summary.json").read_text())
    assert s["psna"]["outcome"] == "failed" and not s["verified"]
    assert any("reset" in e for e in s["daemon"]["fh_errors"]), s["daemon"]["fh_errors"]
    assert not any(_namespaces_of(r) for r in runs)


@needs_live
def test_interrupting_a_psna_run_leaves_nothing_behind(tmp_path):
    """SIGINT while the mobile sleeps: exit 130, no namespace, no lock, no radio socket."""
    _needs_binary()
    proc, rid = _start_cli_run(tmp_path, scenario=PSNA, started="psna_mobile.log")
    time.sleep(2.0)  # past the first Residual_Time: the card is off
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err
    assert not _namespaces_of(rid) and not netns.lock_path(rid).exists()
    assert not netns.radio_socket_path(rid).exists()


@needs_live
def test_frames_for_a_card_that_is_off_are_lost_on_the_hop(tmp_path, runs):  # noqa: F811
    """A hop slower than PS-TP's timer (60 ms each way, RTO 100 ms): every request is sent twice,
    and the answer to the last retransmission reaches the card after the mobile switched it off;
    the emulator drops it (the simulator's run ends with the transfer, before that frame). The
    object still arrives intact, and live agrees with the simulator on completion and on-time."""
    ov = ['wireless.hop.delay="60ms"', 'flow.0.psna={ rto = "100ms" }', 'flow.0.bytes="100kB"']
    res = live.run(PSNA, out_dir=tmp_path / "slow-hop", overrides=ov, time_limit=60)
    assert res.verified, res.summary()["psna"]
    assert res.mobile["retransmissions"] >= res.mobile["requests"] - 2, res.mobile
    assert res.emulator["path"]["dropped_radio_off"] >= 1, res.emulator["path"]
    sim = _sim(ov)
    t_sim, on_sim = sim["completion_time_s"], sim["radio_on_s"]
    msg = f"completion live {res.completion_s:.3f} s sim {t_sim:.3f} s; on-time live {res.radio_on_s:.3f} s sim {on_sim:.3f} s"
    print(msg)
    assert abs(res.completion_s - t_sim) <= COMPLETION_AGREEMENT * t_sim, msg
    assert abs(res.radio_on_s - on_sim) <= ON_TIME_AGREEMENT * on_sim, msg
    assert not any(_namespaces_of(r) for r in runs)
