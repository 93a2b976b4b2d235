"""A live run of a ``psna-read`` / ``psna-send`` flow (paper 001's Power Saving Network
Architecture): the PSNA daemon (``wattlab-live psna-daemon``) in the AP's namespace, with real
Linux TCP to the fixed host in the server's namespace (``serve`` for a read, ``sink`` for a
send); the mobile (``wattlab-live psna-mobile``) in the client's namespace, PS-TP over UDP
between the two. Both are the core's engines, as the simulator runs them.

The emulator queues the AP's own packets too (INPUT and OUTPUT of its two interfaces): the
mobile's PS-TP crosses only the hop's channels, the daemon's TCP only the wired ones. The
mobile sends its radio switches to the emulator over a Unix socket, so frames reaching it while
its card is off are lost (the simulator's ``[[wireless]]`` hop); it logs them to
``transitions.csv``, and the energy is the replay of that schedule over the client's capture.
The received object is checked against the payload's SHA-256 at the receiving application
(the mobile for a read, the fixed host for a send).
"""

from __future__ import annotations

import json
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from wattlab.live import netns
from wattlab.live.session import Session, built_testbed
from wattlab.live.netns import LiveError, LiveTimeLimit, Testbed
from wattlab.live.radio_table import radio_table
from wattlab.live.result import LiveRunInfo

FH_GRACE_S = 10.0
"""How long the fixed host may take after the mobile's end to see the daemon close."""


@dataclass
class PsnaLiveResult(LiveRunInfo):
    """Everything a live PSNA run produced (files are in ``out_dir``); the shared tail (energy,
    out_dir, wall time, notes, warnings) is :class:`~wattlab.live.result.LiveRunInfo`'s."""

    plan: dict
    """What ran (``wattlab-live plan``), with the flow's ``psna`` part."""
    mobile: dict
    """The mobile's report: outcome, error, times, bytes and SHA-256, radio switches, residuals."""
    daemon: dict
    """The daemon's report: FH bytes, residuals announced, estimator, polls, FH errors."""
    fh: dict | None
    """The fixed host's report (``serve`` for a read, ``sink`` for a send); None if it failed."""
    emulator: dict
    """The emulator's report (``dropped_radio_off``: frames that reached the card while off)."""
    expected_sha256: str
    """SHA-256 of the ``bytes``-byte payload."""

    @property
    def read(self) -> bool:
        """A read (the mobile receives the object) rather than a send."""
        return self.plan["psna"]["direction"] == "read"

    @property
    def completed(self) -> bool:
        """The mobile reports the transfer completed."""
        return self.mobile["outcome"] == "completed"

    @property
    def verified(self) -> bool:
        """The receiving application holds the payload: the mobile's object (read) or what the
        fixed host received (send) has the payload's length and SHA-256."""
        want = int(self.plan["bytes"])
        if self.read:
            got = self.mobile
        else:
            got = self.fh or {"bytes": -1, "sha256": ""}
        return self.completed and int(got["bytes"]) == want and got["sha256"] == self.expected_sha256

    @property
    def completion_s(self) -> float | None:
        """From the application's request to the transfer's end at the mobile (the simulator's
        flow completion time), or None if it did not complete."""
        m = self.mobile
        return (m["done_ns"] - m["start_ns"]) / 1e9 if self.completed else None

    @property
    def radio_on_s(self) -> float:
        """The card's on-time from the request to the transfer's end."""
        return float(self.mobile["radio_on_s"])

    @property
    def host_late_max_ms(self) -> float:
        """The emulator's worst verdict lateness (ms): milliseconds mean the run was disturbed."""
        return self.emulator["host"]["late_max_us"] / 1e3

    def radios(self):
        """The client's energy table in the layout of ``wattlab run``'s radios, the replayed
        schedule named ``psna``, or None if it was not costed."""
        return None if self.energy is None else radio_table(self.energy, self.plan["client"], "psna")

    def energy_j(self) -> float | None:
        """The card's energy under the replayed PSNA schedule over the whole capture (J)."""
        if self.energy is None:
            return None
        e = self.energy.energy
        return float(e[e.policy == "replay"].energy_j.iloc[0])

    def summary(self) -> dict:
        """The run as one JSON-able dict (written as ``summary.json``)."""
        m, d = self.mobile, self.daemon
        return {
            "mode": "live",
            "kind": self.plan["kind"],
            "plan": self.plan,
            "verified": self.verified,
            "expected": {"bytes": int(self.plan["bytes"]), "sha256": self.expected_sha256},
            "psna": {
                "outcome": m["outcome"],
                "error": m["error"],
                "completion_s": self.completion_s,
                "radio_on_s": self.radio_on_s,
                "energy_j": self.energy_j(),
                "polls": m["polls"],
                "sleeps": m["sleeps"],
                "requests": m["requests"],
                "retransmissions": m["retransmissions"],
                "radio_switches": len(m["radio"]),
                "residuals": len(m["residuals"]),
                "first_residual_s": (m["residuals"][0][0] - m["start_ns"]) / 1e9 if m["residuals"] else None,
                "dropped_radio_off": self.emulator["path"]["dropped_radio_off"] + m["dropped_radio_off"],
                "estimator_samples": d.get("samples"),
                "final_estimate_bps": d.get("final_estimate_bps"),
                "fh_errors": d.get("fh_errors"),
            },
            "mobile": m,
            "daemon": d,
            "fh": self.fh,
            "emulator": self.emulator,
            **self.summary_tail(host_late_max_ms=self.host_late_max_ms),
        }


def notes(plan: dict) -> list[str]:
    """What a live PSNA run does differently from the simulator."""
    return [
        "the daemon's fixed-host connection is Linux TCP (reno module, PRR, RACK), not the simulator's",
        "the daemon counts estimator packets as ⌈bytes / 1460⌉ per read of its socket (the simulator: one per segment)",
        "a send's acknowledged bytes are read from the socket (SIOCOUTQ) every 10 ms while some are outstanding (simulator: 50 ms)",
        "PS-TP messages travel in UDP datagrams over IPv4; timers run on the host's clock",
    ]


def radio_socket(tb: Testbed) -> Path:
    """The Unix socket the emulator takes the mobile's radio switches on (``cleanup`` removes
    it after a killed run)."""
    return netns.radio_socket_path(tb.run_id)


def _emulator(s, tb: Testbed) -> None:
    """The emulator, queueing forwarded packets and the AP's own on both interfaces."""
    for chain, opt in (("INPUT", "-i"), ("OUTPUT", "-o")):
        for dev in (netns.AP_CLIENT_IF, netns.AP_SERVER_IF):
            tb.sh("ap", "iptables", "-A", chain, opt, dev, "-j", "NFQUEUE", "--queue-num", "1")
    s.emulator("psna", extra=["--radio-socket", str(radio_socket(tb))])


def _fh(s) -> object:
    """The fixed host: ``serve`` (a read: request, then the object) or ``sink`` (a send)."""
    p, out, exe = s.plan, s.out, s.exe
    idle = f"{s._idle_s() + p['start_s']:.3f}"
    listen = f"{netns.SERVER_ADDR}:{p['port']}"
    if p["psna"]["direction"] == "read":
        argv = [exe, "serve", "--listen", listen, "--bytes", str(p["bytes"]), "--payload-key", str(p["seed"]),
                "--request", str(p["request"]), "--cc", p["linux_cc"], "--idle-timeout", idle, "--report", str(out / "fh.json")]
        stop = p["psna"].get("fh_stop_after")
        if stop is not None:
            argv += ["--abort-after", str(stop)]
    else:
        rb = int(p["recv_buffer"])
        clamp = rb if p["window_scale"] is not None else min(rb, 65535)
        argv = [exe, "sink", "--listen", listen, "--cc", p["linux_cc"], "--window-clamp", str(clamp), "--buffer", str(rb),
                "--idle-timeout", idle, "--report", str(out / "fh.json")]
    proc = s.start("the fixed host", "server", argv, "fh.out", "fh.log")
    s.ready(proc, "fh.out", "ready")
    return proc


def run_flow(s, tb: Testbed, limit: float) -> None:
    """Start the fixed host and the daemon, then the mobile at the flow's start; wait for the
    mobile within ``limit`` seconds, let the fixed host finish, stop the rest."""
    p, out, exe = s.plan, s.out, s.exe
    fh = _fh(s)
    scn = s.scn
    daemon_addr = f"{netns.AP_CLIENT_ADDR}:{p['psna']['daemon_port']}"
    s.step("starting the PSNA daemon")
    d = s.start("the PSNA daemon", "ap", [exe, "psna-daemon", *scn, "--bind", daemon_addr, "--time-limit", f"{limit + 60:.3f}",
                                         "--report", str(out / "psna_daemon.json")], "psna_daemon.out", "psna_daemon.log")
    s.ready(d, "psna_daemon.out", "ready")
    time.sleep(float(p["start_s"]))  # at most the bound (checks.time_bound)
    s.step("PSNA transfer")
    m = s.start("the PSNA mobile", "client", [exe, "psna-mobile", *scn, "--bind", f"{netns.CLIENT_ADDR}:0", "--daemon", daemon_addr,
                                               "--fh", netns.SERVER_ADDR, "--radio-socket", str(radio_socket(tb)),
                                               "--transitions", str(out / "transitions.csv"), "--time-limit", f"{limit:.3f}",
                                               "--report", str(out / "psna_mobile.json")], None, "psna_mobile.log")
    hard = time.monotonic() + limit + 10.0
    while m.popen.poll() is None:
        for q in s.procs:
            rc = q.popen.poll()
            if rc is not None and q is not m and not (q is fh and rc == 0):
                if q is fh and p["psna"].get("fh_stop_after") is not None:
                    continue  # the test hook: the fixed host resets the connection and ends
                raise s.failure(q, " during the PSNA transfer")
        if time.monotonic() > hard:
            raise LiveTimeLimit(f"the PSNA mobile did not end within the run's bound ({limit:g} s); logs in {out}")
        time.sleep(0.05)
    if m.popen.returncode != 0:
        raise s.failure(m)
    try:
        fh.popen.wait(timeout=FH_GRACE_S)
    except subprocess.TimeoutExpired:
        pass  # still waiting for the daemon's FIN: stopped below, its report says what it got
    time.sleep(0.2)  # the last datagrams reach the capture
    tb.stop_all()


def live(plan: dict, scn: list[str], out: Path, by_role: dict, limit: float, step: Callable[[str], None]) -> None:
    """Build the testbed, run the PSNA flow through the emulator, and remove it whatever happens."""
    with built_testbed(plan, step, by_role, remove=radio_socket) as tb:
        s = Session(plan, scn, out, tb, limit, step)
        _emulator(s, tb)
        s.capture()
        run_flow(s, tb, limit)


def optional_report(out: Path, name: str) -> dict | None:
    """A process's JSON report, or None if it wrote none (e.g. a fixed host that failed)."""
    try:
        return json.loads((out / f"{name}.json").read_text())
    except (OSError, ValueError):
        return None


def check_outcome(res: PsnaLiveResult, limit: float) -> None:
    """Raise for a run that did not deliver: a time limit (:class:`LiveTimeLimit`), a failed
    transfer or corrupt data (:class:`LiveError`, with the mobile's error)."""
    m = res.mobile
    if m["outcome"] == "time-limit":
        raise LiveTimeLimit(f"the PSNA transfer did not finish within the run's bound ({limit:g} s); results in {res.out_dir}")
    if m["outcome"] == "failed":
        raise LiveError(f"the PSNA transfer failed: {m['error']}; results in {res.out_dir}")
    if not res.verified:
        raise LiveError(f"the PSNA transfer completed but the data is not the payload (length or SHA-256 differ); results in {res.out_dir}")
