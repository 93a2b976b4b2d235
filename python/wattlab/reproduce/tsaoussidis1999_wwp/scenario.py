"""The scenario of one Table 1 run: ``stream.toml`` (two mobile stations on their own hops to
one AP, a TCP Tahoe stream) with the set's VDROP and VDELAY on the sender's hop in both
directions, the configuration's values, and the WWP stream in place of TCP's for WWP."""

from __future__ import annotations

from typing import Any

from wattlab.scenario_units import Duration

from ..scenarios import base
from .config import Config
from .paper import TestSet

BASE = base(__package__, "stream.toml")
"""The base scenario of every run."""


def impairment(s: TestSet, offset_fraction: float) -> dict[str, Any]:
    """One direction's VDROP and VDELAY (the hop's ``up`` or ``down`` table)."""
    loss: dict[str, Any] = {"model": "every-nth", "n": s.vdrop_every}
    if s.phase_s is not None:
        loss.update(on=Duration.s(s.phase_s), offset=Duration.s(offset_fraction * 2 * s.phase_s))
    out: dict[str, Any] = {"loss": loss}
    if s.vdelay_ms > 0:
        out.update(jitter={"model": "uniform", "min": Duration(0), "max": Duration.ms(s.vdelay_ms)}, reorder=True)
    return out


def flow(protocol: str, cfg: Config) -> list[tuple[str, Any]]:
    """The stream's overrides: TCP Tahoe's settings, or the WWP stream (its defaults) in its place."""
    if protocol == "wwp":
        return [("flow.0", {"kind": "wwp-bulk", "name": "wwp", "from": "a", "to": "b", "packet_size": cfg.message_bytes,
                            "duration": Duration.s(cfg.snapshot_s),
                            "wwp": {"handshake_retries": cfg.wwp_handshake_retries}})]
    return [("flow.0.tcp.mss", cfg.message_bytes), ("flow.0.tcp.min_rto", cfg.tcp_min_rto)]


def overrides(s: TestSet, protocol: str, offset_fraction: float, cfg: Config) -> list[tuple[str, Any]]:
    """Every override of one run."""
    imp = impairment(s, offset_fraction)
    return [("name", f"tsaoussidis1999-wwp set {s.number} {protocol}"),
            ("simulation.duration", Duration.s(cfg.snapshot_s)),
            *((f"node.{n}.radio.profile", cfg.profile) for n in ("a", "b")),
            *((f"wireless.{i}.{k}", v) for i in (0, 1) for k, v in (("rate", cfg.rate), ("delay", cfg.delay))),
            ("wireless.0.up", imp), ("wireless.0.down", imp),
            *flow(protocol, cfg)]
