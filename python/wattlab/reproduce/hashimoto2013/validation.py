"""Paper 002 Table 3.1's simulation side (Sect. 3.4, Fig. 3.5) in the simulator: one upstream TCP
flow from an 802.11a client (RTS/CTS for its data frames, frame-error probability q = 0.3 on
every data-frame attempt in both directions, 7 retries) through the AP, router A, a 30 Mb/s,
50 ms bottleneck and router B to a wired host, with a UDP CBR stream from a host on router A to
one on router B as cross traffic. The mean ACK inter-arrival at the client is the time from the
end of the handshake to the end of the run over the TCP packets the client received in it (its
socket's count: every ACK, duplicates included).

Where the thesis is silent (docs/reproductions.md): the bottleneck queue is 50 packets (ns-2's
DropTail default), CBR packets are 1500 B, rates count 10^6 b/s (ns-2's) while Eq. 3.42 counts
1024², the TCP is Reno with a 1460-byte MSS, no timestamps, no delayed ACK (m = 1); the WLAN's transmit
queues hold 100 frames.
"""

from __future__ import annotations

from typing import Any

from wattlab.scenario_units import Duration, Rate, Size

from .. import runner
from ..framework import Context
from ..scenarios import base
from . import paper

MSS = 1460
QUEUE_PACKETS = 50
"""The bottleneck's queue (ns-2's DropTail default)."""
WLAN_QUEUE = 100
"""The station's and the AP's transmit queues (wattlab's default; only the 12 Mb/s row, where the
WLAN and not the bottleneck limits TCP, depends on it: 1.60 / 1.26 / 1.10 ms mean ACK
inter-arrival with 50 / 100 / 10,000 frames, 3 seeds × 200 s)."""
CBR_PACKET = 1500


BASE = base(__package__, "table31.toml")
"""The Fig. 3.5 topology every run shares."""


def overrides(cross_mbps: float, seed: int, duration_s: float) -> list[tuple[str, Any]]:
    """The Fig. 3.5 topology with ``cross_mbps`` of CBR cross traffic (IP rate, 10^6 b/s)."""
    q = paper.TABLE31_Q
    out = [("name", f"hashimoto2013-table3.1-cross{cross_mbps:g}"), ("simulation.duration", Duration.s(duration_s)),
           ("simulation.seed", seed), ("link.bottleneck.rate", Rate.mbps(paper.TABLE31_BOTTLENECK_MBPS)),
           ("link.bottleneck.queue.packets", QUEUE_PACKETS), ("wlan.0.ap_queue", WLAN_QUEUE),
           ("wlan.0.station_queue", WLAN_QUEUE), ("wlan.0.down_loss.p", q), ("wlan.0.up_loss.p", q),
           ("flow.up.tcp.mss", MSS)]
    if cross_mbps > 0:
        payload_rate = cross_mbps * 1e6 * (CBR_PACKET - 28) / CBR_PACKET
        out.append(BASE.extended("flow", [{"name": "cross", "kind": "udp-cbr", "from": "cbr-a", "to": "cbr-b",
                                           "rate": Rate(round(payload_rate)), "packet_size": Size(CBR_PACKET - 28)}]))
    return out


def job(cross_mbps: float, seed: int, duration_s: float) -> runner.Job:
    """One Table 3.1 run as a :class:`runner.Job`."""
    return BASE.job(seed, {"cross_mbps": cross_mbps, "duration_s": duration_s}, overrides(cross_mbps, seed, duration_s))


def measure(job: runner.Job, res) -> dict:
    """Mean ACK inter-arrival (ms) after the handshake, the TCP throughput and losses."""
    f = res.flows.set_index("name").loc["up"]
    sk = res.sockets
    acks = int(sk[(sk["flow"] == "up") & (sk["node"] == "client")]["packets_in"].iloc[0])
    span = job.labels["duration_s"] - float(f["connected_s"])
    return {"ack_interarrival_ms": 1e3 * span / acks if acks > 0 else float("nan"), "acks": acks,
            "tcp_mbps": float(f["bytes_delivered"]) * 8 / span / 1e6, "timeouts": int(f["timeouts"]),
            "fast_retransmits": int(f["fast_retransmits"]), "retransmitted": int(f["retransmitted_segments"]),
            "mean_rtt_ms": float(f["mean_rtt_ms"])}


def runs(cross_rates, seeds, duration_s: float, ctx: Context):
    """Every (cross rate, seed): one row each."""
    jobs = [job(c, s, duration_s) for c in cross_rates for s in seeds]
    return ctx.run(jobs, measure, "Table 3.1 validation runs").drop(columns=["duration_s"])
