"""The runs of paper 003's channel (``channel.toml``: two nodes 100 m apart on a 2 Mb/s
802.11 DSSS hop) as typed overrides: the error process and layer, and the flows (TCP uploads
for the experiments, UDP CBR for Thr_max)."""

from __future__ import annotations

import random
from typing import Any

from wattlab.scenario_units import Duration, Rate

from ..scenarios import base
from .config import GILBERT_P_BAD_TO_GOOD, GILBERT_P_GOOD_TO_BAD, Config

BASE = base(__package__, "channel.toml")
"""The channel every run shares."""

HEADER_BYTES = 40
"""IPv4 + TCP headers without options (ns-2 adds 40 B to packetSize_)."""
UDP_IP_OVERHEAD = 28
"""IPv4 + UDP headers."""
TCP_RUN_S = 1_000_000.0
"""A TCP run's simulated-time bound: it ends when its flows complete."""


def loss_table(model: str, per: float, cfg: Config) -> dict[str, Any] | None:
    """One direction's loss process, or None for an error-free channel."""
    if per <= 0.0:
        return None
    if model == "random":
        return {"model": "bernoulli", "p": per}
    if model != "burst":
        raise ValueError(f"unknown error model {model!r} (random or burst)")
    bad = min(1.0, 3.0 * per) if cfg.per_reading == "average" else per
    return {"model": "gilbert-elliott", "p_good_to_bad": GILBERT_P_GOOD_TO_BAD, "p_bad_to_good": GILBERT_P_BAD_TO_GOOD,
            "loss_good": 0.0, "loss_bad": bad}


def _channel(model: str, per: float, cfg: Config, name: str, duration_s: float) -> list[tuple[str, Any]]:
    loss = loss_table(model, per, cfg)
    return [("name", name), ("simulation.duration", Duration.s(duration_s)), ("node.node0.radio.profile", cfg.profile),
            ("wlan.0.loss_layer", cfg.error_layer),
            *([("wlan.0.up_loss", loss), ("wlan.0.down_loss", loss)] if loss else [])]


def senders(n_flows: int, separate: bool) -> list[str]:
    """The sender node of each flow: node0 for all (one shared interface queue), or with
    ``separate`` one station per flow, node0, node2, node3, … (node1 is the receiver)."""
    if not separate:
        return ["node0"] * n_flows
    return ["node0"] + [f"node{i + 1}" for i in range(1, n_flows)]


def _sender_nodes(names: list[str], cfg: Config) -> list[tuple[str, Any]]:
    """Overrides that make each of ``names`` a station of the hop with its own OriNOCO radio and
    its own 50-packet interface queue (``station_queue`` applies per station)."""
    radio = {"profile": cfg.profile, "policies": ["always-on"]}
    nodes = [{"name": "node0", "kind": "host", "radio": radio}, {"name": "node1", "kind": "ap"}]
    nodes += [{"name": n, "kind": "host", "radio": radio} for n in names[1:]]
    return [("node", nodes), ("wlan.0.stations", list(names))]


def tcp_overrides(variant: str, n_flows: int, flow_bytes: int, model: str, per: float, cfg: Config,
                  seed: int, separate: bool = False) -> list[tuple[str, Any]]:
    """``n_flows`` bulk uploads of ``flow_bytes`` with ``variant`` to node1, all from node0 or,
    with ``separate``, each from its own station (:func:`senders`).

    TCP as ns-2's agents of the time: no timestamps, no delayed ACK, window 20 segments,
    initial window 2, minimum RTO ``cfg.min_rto_ms`` (1 s), and ns-2's coarse timer when
    ``cfg.timer_tick_ms`` is set. With several flows, starts are spread at seeded-random times over
    ``cfg.start_spread_s`` (to the microsecond) so the flows are not artificially synchronised.
    """
    rng = random.Random(seed * 1_000_003 + n_flows)
    tcp = {"cc": variant, "mss": cfg.segment_bytes, "timestamps": False, "delayed_ack": False,
           "recv_buffer": cfg.window_segments * cfg.segment_bytes, "initial_cwnd": 2, "min_rto": Duration.ms(cfg.min_rto_ms)}
    if cfg.timer_tick_ms is not None:
        tcp["timer_tick"] = Duration.ms(cfg.timer_tick_ms)
    if variant == "vegas" and cfg.vegas_retransmit != "rfc":
        tcp["vegas_retransmit"] = cfg.vegas_retransmit  # written only where it applies (Vegas)
    names = senders(n_flows, separate)
    flows = []
    for i in range(n_flows):
        start = 0.0 if n_flows == 1 else rng.uniform(0.0, cfg.start_spread_s)
        flows.append({"kind": "bulk-upload", "name": f"{variant}{i}", "client": names[i], "server": "node1",
                      "bytes": flow_bytes, "port": 5001 + i, "start": Duration.s(round(start, 6)), "tcp": tcp})
    nodes = _sender_nodes(names, cfg) if separate and n_flows > 1 else []
    return nodes + _channel(model, per, cfg, f"kontogiannis2005-{variant}-n{n_flows}", TCP_RUN_S) + [("flow", flows)]


def cbr_overrides(model: str, per: float, cfg: Config) -> list[tuple[str, Any]]:
    """``cfg.cbr_flows`` UDP CBR flows offering twice the channel rate, for Thr_max."""
    rate_each = Rate(2 * 2_000_000 // cfg.cbr_flows)
    payload = cfg.segment_bytes + HEADER_BYTES - UDP_IP_OVERHEAD  # same IP size as a TCP segment
    flows = [{"kind": "udp-cbr", "name": f"cbr{i}", "from": "node0", "to": "node1", "rate": rate_each,
              "packet_size": payload, "port": 9000 + i} for i in range(cfg.cbr_flows)]
    return _channel(model, per, cfg, "kontogiannis2005-thr-max", cfg.thr_max_seconds) + [("flow", flows)]
