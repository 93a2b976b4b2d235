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

from .. import runner
from . import paper

MSS = 1460
QUEUE_PACKETS = 50
"""The bottleneck's queue (ns-2's DropTail default)."""
WLAN_QUEUE = 100
"""The station's and the AP's transmit queues (wattlab's default; only the 12 Mb/s row, where the
WLAN and not the bottleneck limits TCP, depends on it: 1.60 / 1.26 / 1.10 ms mean ACK
inter-arrival with 50 / 100 / 10,000 frames, 3 seeds × 200 s)."""
CBR_PACKET = 1500


def scenario(cross_mbps: float, seed: int, duration_s: float) -> str:
    """The Fig. 3.5 topology with ``cross_mbps`` of CBR cross traffic (IP rate, 10^6 b/s)."""
    q = paper.TABLE31_Q
    payload_rate = cross_mbps * 1e6 * (CBR_PACKET - 28) / CBR_PACKET
    tcp = f'{{ cc = "reno", mss = {MSS}, timestamps = false, delayed_ack = false, recv_buffer = "16MB", window_scale = 10 }}'
    cbr = "" if cross_mbps <= 0 else f"""
[[flow]]
name = "cross"
kind = "udp-cbr"
from = "cbr-a"
to = "cbr-b"
rate = "{payload_rate:.0f}bps"
packet_size = "{CBR_PACKET - 28}B"
"""
    return f"""
name = "hashimoto2013-table3.1-cross{cross_mbps:g}"
[simulation]
duration = "{duration_s}s"
seed = {seed}
[[node]]
name = "client"
kind = "host"
[[node]]
name = "ap"
kind = "ap"
[[node]]
name = "ra"
kind = "router"
[[node]]
name = "rb"
kind = "router"
[[node]]
name = "server"
kind = "host"
[[node]]
name = "cbr-a"
kind = "host"
[[node]]
name = "cbr-b"
kind = "host"
[[link]]
a = "ap"
b = "ra"
rate = "1Gbps"
delay = "1us"
queue = {{ packets = 10000 }}
[[link]]
name = "bottleneck"
a = "ra"
b = "rb"
rate = "{paper.TABLE31_BOTTLENECK_MBPS:g}Mbps"
delay = "50ms"
queue = {{ packets = {QUEUE_PACKETS} }}
[[link]]
a = "rb"
b = "server"
rate = "1Gbps"
delay = "1us"
queue = {{ packets = 10000 }}
[[link]]
a = "cbr-a"
b = "ra"
rate = "1Gbps"
delay = "1us"
[[link]]
a = "rb"
b = "cbr-b"
rate = "1Gbps"
delay = "1us"
[[wlan]]
ap = "ap"
stations = ["client"]
phy = "802.11a"
rate = "54Mbps"
rts_threshold = "500B"
retry_limit = 7
long_retry_limit = 7
ap_queue = {WLAN_QUEUE}
station_queue = {WLAN_QUEUE}
down_loss = {{ model = "bernoulli", p = {q} }}
up_loss = {{ model = "bernoulli", p = {q} }}
[[flow]]
name = "up"
kind = "bulk-upload"
client = "client"
server = "server"
bytes = "100GB"
tcp = {tcp}
{cbr}
"""


def job(cross_mbps: float, seed: int, duration_s: float) -> runner.Job:
    """One Table 3.1 run as a :class:`runner.Job`."""
    return runner.Job(scenario(cross_mbps, seed, duration_s), seed, {"cross_mbps": cross_mbps, "duration_s": duration_s})


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


def runs(cross_rates, seeds, duration_s: float, workers: int, console=None):
    """Every (cross rate, seed): one row each."""
    jobs = [job(c, s, duration_s) for c in cross_rates for s in seeds]
    return runner.run_jobs(jobs, measure, "Table 3.1 validation runs", workers, console).drop(columns=["duration_s"])
