"""A live run of a ``wwp-bulk`` flow (paper 004's Wave & Wait Protocol): the WWP sender and
receiver (``wattlab-live wwp``, the core's own endpoint on a real UDP socket) in the flow's
``from`` and ``to`` namespaces, through the emulator with the scenario's impairments (VDROP,
VDELAY) in both directions; the receiver's data checked against the payload's SHA-256.

The sender starts at the flow's ``start`` on the emulator's timeline (so the loss process's
on/off phases line up with the simulator's), writes the payload until ``bytes`` or
``duration``, then closes. The bytes delivered within the flow's window are read off the
receiver's progress samples, so a run compares with the simulator's delivered bytes per minute.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from wattlab.live import netns
from wattlab.live.session import Session, built_testbed, report as session_report
from wattlab.live.netns import LiveError, LiveTimeLimit
from wattlab.live.radio_table import radio_table
from wattlab.live.result import LiveRunInfo

CLOSE_GRACE_S = 15.0
"""How long the WWP processes may run past the run's bound to close the connection (FIN,
FIN_ACK, the last waves of a stream cut at its duration); the measurement window is not
affected."""

ADDRS = {"client": netns.CLIENT_ADDR, "server": netns.SERVER_ADDR}
"""Address of each end's namespace."""


def delivered_at(progress: list, t_ns: int) -> int:
    """Bytes the receiver had delivered at Unix time ``t_ns``, from its ``[unix_ns, bytes]``
    samples (the last sample at or before ``t_ns``; 0 before the first)."""
    got = 0
    for t, b in progress:
        if t > t_ns:
            break
        got = b
    return int(got)


@dataclass
class WwpLiveResult(LiveRunInfo):
    """Everything a live WWP run produced (files are in ``out_dir``); the shared tail (energy,
    out_dir, wall time, notes, warnings) is :class:`~wattlab.live.result.LiveRunInfo`'s."""

    plan: dict
    """What ran (``wattlab-live plan``), with the flow's ``wwp`` part."""
    sender: dict
    """The sender's report: bytes written, their SHA-256, WWP counters."""
    receiver: dict
    """The receiver's report: bytes delivered, their SHA-256, progress samples, WWP counters."""
    emulator: dict
    """The emulator's report: per-channel counters (VDROP drops in ``lost``) and verdict lateness."""
    origin_ns: int
    """Unix ns of the emulator's time 0 (the scenario's time 0)."""
    expected_sha256: str
    """SHA-256 of the first ``delivered_bytes`` bytes of the payload."""

    @property
    def flow(self) -> dict:
        """The plan's ``wwp`` part: roles, bytes, duration, message size, parameters."""
        return self.plan["wwp"]

    @property
    def delivered_bytes(self) -> int:
        """Bytes the receiver read, in order, over the whole connection."""
        return int(self.receiver["delivered_bytes"])

    @property
    def window_s(self) -> float:
        """The measurement window: the flow's duration, else from its start to the run's end."""
        d = self.flow.get("duration_s")
        return float(d) if d else float(self.plan["horizon_s"]) - float(self.plan["start_s"])

    @property
    def delivered_in_window(self) -> int:
        """Bytes delivered from the flow's start to the end of its window (the simulator's count
        for a flow whose window ends with the run)."""
        end = self.origin_ns + int((float(self.plan["start_s"]) + self.window_s) * 1e9)
        return delivered_at(self.receiver["progress"], end)

    @property
    def delivered_per_min(self) -> float:
        """Bytes delivered per minute within the window."""
        return self.delivered_in_window * 60.0 / self.window_s if self.window_s > 0 else 0.0

    @property
    def sender_bytes(self) -> int:
        """The paper's sender bytes: DATA (retransmissions included), probes, FIN, the opener's handshake."""
        return int(self.sender["stats"]["sender_bytes"])

    @property
    def receiver_overhead(self) -> int:
        """The paper's receiver overhead: N-S_ACK, PROBE_ACK, P-S_ACK, FIN_ACK, the listener's handshake."""
        return int(self.receiver["stats"]["receiver_overhead_bytes"])

    @property
    def effort_overhead(self) -> float | None:
        """(sender bytes + receiver overhead − delivered) / delivered, over the whole connection."""
        d = self.delivered_bytes
        return (self.sender_bytes + self.receiver_overhead - d) / d if d else None

    @property
    def closed(self) -> bool:
        """Both ends closed the connection (FIN / FIN_ACK both ways)."""
        return self.sender["outcome"] == "closed" and self.receiver["outcome"] == "closed"

    @property
    def verified(self) -> bool:
        """What arrived is the payload: the receiver's digest is that of the payload's first
        ``delivered_bytes`` bytes, and the sender's if it closed cleanly (then every byte written
        arrived); a ``bytes`` flow must have delivered all of them."""
        ok = self.receiver["delivered_sha256"] == self.expected_sha256
        if self.closed:
            ok = ok and self.sender["written_bytes"] == self.delivered_bytes and self.sender["written_sha256"] == self.expected_sha256
        b = self.flow.get("bytes")
        return ok and (b is None or self.delivered_bytes == int(b))

    @property
    def host_late_max_ms(self) -> float:
        """The worst timing error of the testbed (ms): emulator verdicts or WWP timers behind time."""
        late = max(self.emulator["host"]["late_max_us"], self.sender["timer_late_max_us"], self.receiver["timer_late_max_us"])
        return late / 1e3

    def radios(self):
        """The client's energy table in the layout of ``wattlab run``'s radios (always-on and oracle
        costing of the capture), or None if it was not costed."""
        return None if self.energy is None else radio_table(self.energy, self.plan["client"])

    def summary(self) -> dict:
        """The run as one JSON-able dict (written as ``summary.json``)."""
        s, r = self.sender["stats"], self.receiver["stats"]
        return {
            "mode": "live",
            "kind": "wwp-bulk",
            "plan": self.plan,
            "verified": self.verified,
            "closed": self.closed,
            "expected": {"bytes": self.delivered_bytes, "sha256": self.expected_sha256},
            "wwp": {
                "delivered_bytes": self.delivered_bytes,
                "delivered_in_window": self.delivered_in_window,
                "window_s": self.window_s,
                "delivered_bytes_per_min": self.delivered_per_min,
                "original_data_bytes": int(s["original_data_bytes"]),
                "sender_bytes": self.sender_bytes,
                "receiver_overhead_bytes": self.receiver_overhead,
                "effort_overhead": self.effort_overhead,
                "retransmitted_segments": int(s["retransmitted_segments"]),
                "waves_sent": s["waves_sent"],
                "level_decisions": r["level_decisions"],
                "probe_cycles": int(s["probe_cycles"]),
                "nacked_segments": int(r["nacked_segments"]),
                "rec_t_expiries": int(r["rec_t_expiries"]),
            },
            "sender": self.sender,
            "receiver": self.receiver,
            "emulator": self.emulator,
            "origin_ns": self.origin_ns,
            **self.summary_tail(host_late_max_ms=self.host_late_max_ms),
        }


def notes(plan: dict) -> list[str]:
    """What a live WWP run does differently from the simulator."""
    return [
        "WWP segments travel in UDP datagrams over IPv4 (28 bytes of headers each, which the emulator "
        "serializes as the simulator's datagram socket layer does); WWP's own counters exclude them",
        "timers run on the host's clock: a wave's time T(i) includes the hosts' scheduling delays",
    ]


def origin_ns(out: Path) -> int:
    """The emulator's time 0 (Unix ns), from the line it prints before ``ready``."""
    for line in (out / "emulator.out").read_text(errors="replace").splitlines():
        if line.startswith("origin_unix_ns "):
            return int(line.split()[1])
    raise LiveError(f"the emulator did not report its origin; logs in {out}")


def run_flow(session, limit: float) -> int:
    """Start the receiver, then the sender at the flow's start, and wait for both within
    ``limit`` (+ :data:`CLOSE_GRACE_S`) seconds of the scenario's clock. Returns the origin."""
    p, out, exe = session.plan, session.out, session.exe
    w = p["wwp"]
    origin = origin_ns(out)
    base = [exe, "wwp", *session.scn]
    end_ns = origin + int((limit + CLOSE_GRACE_S) * 1e9)
    left = lambda: max(0.5, (end_ns - time.time_ns()) / 1e9)  # noqa: E731 - seconds to the hard end
    raddr = f"{ADDRS[w['receiver']]}:{p['port']}"
    session.step("starting the WWP receiver")
    recv = session.start("the WWP receiver", w["receiver"], [*base, "--role", "receiver", "--bind", raddr,
                          "--time-limit", f"{left():.3f}", "--report", str(out / "wwp_receiver.json")], "wwp_receiver.out", "wwp_receiver.log")
    session.ready(recv, "wwp_receiver.out", "ready")
    start_ns = origin + int(float(p["start_s"]) * 1e9)
    session.step("WWP transfer")
    send = session.start("the WWP sender", w["sender"], [*base, "--role", "sender", "--bind", f"{ADDRS[w['sender']]}:0",
                          "--peer", raddr, "--start-at-unix-ns", str(start_ns), "--time-limit", f"{max(0.5, (end_ns - start_ns) / 1e9):.3f}",
                          "--report", str(out / "wwp_sender.json")], "wwp_sender.out", "wwp_sender.log")
    hard = time.monotonic() + left() + 10.0
    ours = (send, recv)
    while any(q.popen.poll() is None for q in ours):
        for q in session.procs:
            rc = q.popen.poll()
            if rc is not None and (q not in ours or rc != 0):
                raise session.failure(q, " during the WWP transfer")
        if time.monotonic() > hard:
            raise LiveTimeLimit(f"the WWP hosts did not end within the run's bound ({limit:g} s + {CLOSE_GRACE_S:g} s to close); logs in {out}")
        time.sleep(0.05)
    for q in ours:
        if q.popen.returncode != 0:
            raise session.failure(q)
    time.sleep(0.2)  # the last datagrams reach the capture
    session.tb.stop_all()
    return origin


def live(plan: dict, scn: list[str], out: Path, by_role: dict, limit: float, step: Callable[[str], None]) -> int:
    """Build the testbed, run the WWP flow through the emulator, and remove it whatever happens."""
    with built_testbed(plan, step, by_role) as tb:
        s = Session(plan, scn, out, tb, limit, step)
        s.emulator("always-on")
        s.capture()
        return run_flow(s, limit)


def report(out: Path, name: str) -> dict:
    """A WWP process's JSON report (``wwp_sender``, ``wwp_receiver``)."""
    return session_report(out, name)


def time_bound(plan: dict, limit: float | None) -> float:
    """The run's bound on the scenario's clock: ``limit``, else the scenario's stop time (at
    most 600 s); it must reach past the flow's start."""
    from wattlab.live.checks import DEFAULT_TIME_LIMIT_S
    from wattlab.live.netns import LiveInputError

    bound = limit if limit is not None else min(float(plan["horizon_s"]), DEFAULT_TIME_LIMIT_S)
    if bound <= float(plan["start_s"]):
        raise LiveInputError(f"the WWP flow starts at {plan['start_s']:g} s, not before the run's bound of {bound:g} s: raise --time-limit")
    return bound
