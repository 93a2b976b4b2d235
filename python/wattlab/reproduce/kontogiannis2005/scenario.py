"""Scenario text for paper 003's channel: two nodes 100 m apart on a 2 Mb/s 802.11 DSSS channel.

The sender (node0, a station with the OriNOCO radio whose energy is measured) uploads to
node1 (the other end of the hop, modelled as the BSS's access point without beacons, which
for a two-node hop behaves as the paper's ad hoc pair).
"""

from __future__ import annotations

import random

from .config import GILBERT_P_BAD_TO_GOOD, GILBERT_P_GOOD_TO_BAD, Config

PROPAGATION_100M = "333ns"
"""100 m at the speed of light."""
IFQ_PACKETS = 50
"""Interface queue of both nodes (ns-2's ifqlen 50)."""
HEADER_BYTES = 40
"""IPv4 + TCP headers without options (ns-2 adds 40 B to packetSize_)."""
UDP_IP_OVERHEAD = 28
"""IPv4 + UDP headers."""


def loss_table(model: str, per: float, cfg: Config) -> str:
    """The TOML inline table of one direction's loss process, or '' for an error-free channel."""
    if per <= 0.0:
        return ""
    if model == "random":
        return f'{{ model = "bernoulli", p = {per!r} }}'
    if model != "burst":
        raise ValueError(f"unknown error model {model!r} (random or burst)")
    bad = min(1.0, 3.0 * per) if cfg.per_reading == "average" else per
    return (
        f'{{ model = "gilbert-elliott", p_good_to_bad = {GILBERT_P_GOOD_TO_BAD}, '
        f"p_bad_to_good = {GILBERT_P_BAD_TO_GOOD}, loss_good = 0.0, loss_bad = {bad!r} }}"
    )


def _channel(model: str, per: float, cfg: Config, name: str, duration_s: float) -> list[str]:
    lines = [
        f'name = "{name}"',
        "[simulation]",
        f'duration = "{duration_s}s"',
        "",
        "[[node]]",
        'name = "node0"',
        'kind = "host"',
        f'radio = {{ profile = "{cfg.profile}", policies = ["always-on"] }}',
        "",
        "[[node]]",
        'name = "node1"',
        'kind = "ap"',
        "",
        "[[wlan]]",
        'ap = "node1"',
        'stations = ["node0"]',
        'phy = "dsss-2mbps"',
        'rate = "2Mbps"',
        f'propagation_delay = "{PROPAGATION_100M}"',
        "beacons = false",
        "retry_limit = 6",  # ns-2's ShortRetryLimit_ 7 counts attempts; ours counts retries
        f'loss_layer = "{cfg.error_layer}"',
        f"ap_queue = {IFQ_PACKETS}",
        f"station_queue = {IFQ_PACKETS}",
    ]
    loss = loss_table(model, per, cfg)
    if loss:
        lines += [f"up_loss = {loss}", f"down_loss = {loss}"]
    return lines


def tcp_scenario(variant: str, n_flows: int, flow_bytes: int, model: str, per: float, cfg: Config,
                 seed: int) -> str:
    """``n_flows`` bulk uploads of ``flow_bytes`` with ``variant`` from node0 to node1.

    TCP as ns-2's agents of the time: no timestamps, no delayed ACK, window 20 segments,
    initial window 2, minimum RTO 1 s. With several flows, starts are spread at seeded-random
    times over ``cfg.start_spread_s`` so the flows are not artificially synchronised.
    """
    lines = _channel(model, per, cfg, f"kontogiannis2005-{variant}-n{n_flows}", 1_000_000.0)
    rng = random.Random(seed * 1_000_003 + n_flows)
    window = cfg.window_segments * cfg.segment_bytes
    for i in range(n_flows):
        start = 0.0 if n_flows == 1 else rng.uniform(0.0, cfg.start_spread_s)
        lines += [
            "",
            "[[flow]]",
            'kind = "bulk-upload"',
            f'name = "{variant}{i}"',
            'client = "node0"',
            'server = "node1"',
            f"bytes = {flow_bytes}",
            f"port = {5001 + i}",
            f'start = "{start:.6f}s"',
            f'tcp = {{ cc = "{variant}", mss = {cfg.segment_bytes}, timestamps = false, delayed_ack = false, '
            f'recv_buffer = {window}, initial_cwnd = 2, min_rto = "1s" }}',
        ]
    return "\n".join(lines) + "\n"


def cbr_scenario(model: str, per: float, cfg: Config) -> str:
    """``cfg.cbr_flows`` UDP CBR flows offering twice the channel rate, for Thr_max."""
    lines = _channel(model, per, cfg, "kontogiannis2005-thr-max", cfg.thr_max_seconds)
    rate_each = 2 * 2_000_000 // cfg.cbr_flows
    payload = cfg.segment_bytes + HEADER_BYTES - UDP_IP_OVERHEAD  # same IP size as a TCP segment
    for i in range(cfg.cbr_flows):
        lines += [
            "",
            "[[flow]]",
            'kind = "udp-cbr"',
            f'name = "cbr{i}"',
            'from = "node0"',
            'to = "node1"',
            f'rate = "{rate_each}bps"',
            f"packet_size = {payload}",
            f"port = {9000 + i}",
        ]
    return "\n".join(lines) + "\n"
