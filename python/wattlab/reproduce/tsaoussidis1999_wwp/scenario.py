"""The scenario of one Table 1 run: two mobile stations (the sender and the receiver) on their
own hops to one AP, VDROP and VDELAY on the sender's hop in both directions, one WWP or TCP
Tahoe stream of 1024-byte messages for the snapshot's length."""

from __future__ import annotations

from .config import Config
from .paper import TestSet


def impairment(s: TestSet, offset_fraction: float) -> str:
    """The TOML inline table of one direction's VDROP and VDELAY."""
    loss = f'model = "every-nth", n = {s.vdrop_every}'
    if s.phase_s is not None:
        loss += f', on = "{s.phase_s:g}s", offset = "{offset_fraction * 2 * s.phase_s:g}s"'
    parts = [f"loss = {{ {loss} }}"]
    if s.vdelay_ms > 0:
        parts.append(f'jitter = {{ model = "uniform", min = "0s", max = "{s.vdelay_ms}ms" }}, reorder = true')
    return "{ " + ", ".join(parts) + " }"


def flow(protocol: str, cfg: Config) -> str:
    """The stream: WWP with its defaults, or TCP Tahoe with the same message size."""
    if protocol == "wwp":
        return (f'kind = "wwp-bulk"\nname = "wwp"\nfrom = "a"\nto = "b"\npacket_size = {cfg.message_bytes}\n'
                f'duration = "{cfg.snapshot_s:g}s"\nwwp = {{ handshake_retries = {cfg.wwp_handshake_retries} }}')
    # A transfer larger than any minute can carry: a continuous stream, cut by the run's end.
    return (f'kind = "bulk-upload"\nname = "tcp"\nclient = "a"\nserver = "b"\nbytes = "1GB"\n'
            f'tcp = {{ cc = "tahoe", mss = {cfg.message_bytes}, timestamps = false, min_rto = "{cfg.tcp_min_rto}" }}')


def scenario(s: TestSet, protocol: str, offset_fraction: float, cfg: Config) -> str:
    """The whole scenario text."""
    imp = impairment(s, offset_fraction)
    radio = f'radio = {{ profile = "{cfg.profile}", policies = ["always-on", "oracle"] }}'
    return f"""
name = "tsaoussidis1999-wwp set {s.number} {protocol}"
[simulation]
duration = "{cfg.snapshot_s:g}s"
stop_when_done = false
[[node]]
name = "a"
kind = "host"
{radio}
[[node]]
name = "ap"
kind = "ap"
[[node]]
name = "b"
kind = "host"
{radio}
[[wireless]]
ap = "ap"
station = "a"
rate = "{cfg.rate}"
delay = "{cfg.delay}"
up = {imp}
down = {imp}
[[wireless]]
ap = "ap"
station = "b"
rate = "{cfg.rate}"
delay = "{cfg.delay}"
[[flow]]
{flow(protocol, cfg)}
"""
