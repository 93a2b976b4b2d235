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


def tcp_overrides(variant: str, n_flows: int, flow_bytes: int, model: str, per: float, cfg: Config,
                  seed: int) -> list[tuple[str, Any]]:
    """``n_flows`` bulk uploads of ``flow_bytes`` with ``variant`` from node0 to node1.

    TCP as ns-2's agents of the time: no timestamps, no delayed ACK, window 20 segments,
    initial window 2, minimum RTO 1 s. With several flows, starts are spread at seeded-random
    times over ``cfg.start_spread_s`` (to the microsecond) so the flows are not artificially
    synchronised.
    """
    rng = random.Random(seed * 1_000_003 + n_flows)
    tcp = {"cc": variant, "mss": cfg.segment_bytes, "timestamps": False, "delayed_ack": False,
           "recv_buffer": cfg.window_segments * cfg.segment_bytes, "initial_cwnd": 2, "min_rto": Duration.s(1)}
    flows = []
    for i in range(n_flows):
        start = 0.0 if n_flows == 1 else rng.uniform(0.0, cfg.start_spread_s)
        flows.append({"kind": "bulk-upload", "name": f"{variant}{i}", "client": "node0", "server": "node1",
                      "bytes": flow_bytes, "port": 5001 + i, "start": Duration.s(round(start, 6)), "tcp": tcp})
    return _channel(model, per, cfg, f"kontogiannis2005-{variant}-n{n_flows}", TCP_RUN_S) + [("flow", flows)]


def cbr_overrides(model: str, per: float, cfg: Config) -> list[tuple[str, Any]]:
    """``cfg.cbr_flows`` UDP CBR flows offering twice the channel rate, for Thr_max."""
    rate_each = Rate(2 * 2_000_000 // cfg.cbr_flows)
    payload = cfg.segment_bytes + HEADER_BYTES - UDP_IP_OVERHEAD  # same IP size as a TCP segment
    flows = [{"kind": "udp-cbr", "name": f"cbr{i}", "from": "node0", "to": "node1", "rate": rate_each,
              "packet_size": payload, "port": 9000 + i} for i in range(cfg.cbr_flows)]
    return _channel(model, per, cfg, "kontogiannis2005-thr-max", cfg.thr_max_seconds) + [("flow", flows)]
