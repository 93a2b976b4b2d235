"""The simulator's TCP against independent references (issue 2, tests 1 and 2)."""

from __future__ import annotations

import numpy as np
import pytest

import wattlab
from wattlab.models import padhye_throughput


def _path(bottleneck: str, delay_each: str, queue: int, loss: float | None, flow: str, duration: str | None = None) -> str:
    loss_tbl = f'a_to_b = {{ loss = {{ model = "bernoulli", p = {loss} }} }}' if loss else ""
    sim = f'[simulation]\nduration = "{duration}"\nstop_when_done = false\n' if duration else ""
    return f"""
name = "tcp-validation"
{sim}
[[node]]
name = "sender"
kind = "host"
[[node]]
name = "router"
kind = "router"
[[node]]
name = "receiver"
kind = "host"
[[link]]
name = "access"
a = "sender"
b = "router"
rate = "100Mbps"
delay = "{delay_each}"
queue = {{ packets = 1000 }}
[[link]]
name = "bottleneck"
a = "router"
b = "receiver"
rate = "{bottleneck}"
delay = "{delay_each}"
queue = {{ packets = {queue} }}
{loss_tbl}
{flow}
"""


def test_reno_fills_a_10mbps_bottleneck():
    """One Reno flow, buffer ≥ BDP: the bottleneck is busy ≥ 90 % of the transfer."""
    flow = """
[[flow]]
kind = "bulk-upload"
client = "sender"
server = "receiver"
bytes = "20MB"
tcp = { cc = "reno", window_scale = 4, recv_buffer = "1MB" }
"""
    res = wattlab.run(text=_path("10Mbps", "10ms", 100, None, flow))
    f = res.flows.iloc[0]
    assert f.completed
    link = res.links.set_index("name").loc["bottleneck:router->receiver"]
    assert link.utilization >= 0.90, link.utilization
    assert f.goodput_bps >= 0.85 * 10e6, f.goodput_bps
    assert link.queue_drops >= 0  # slow-start overshoot may drop; the flow still fills the pipe


@pytest.mark.parametrize("loss", [0.001, 0.01])
@pytest.mark.parametrize("delay_each", ["10ms", "25ms"])
def test_reno_throughput_matches_padhye(loss, delay_each):
    """Steady-state Reno throughput under Bernoulli loss within ±25 % of Padhye's full model.

    Model inputs come from the run itself (clarifications.md): RTT = measured mean SRTT,
    T0 = mean RTO of the sender, W_max = receive window / segment size, b = 1 (one ACK per
    segment: delayed ACK is off here). With delayed ACK on, b = 2 in Padhye's sense, but our
    congestion avoidance counts bytes (RFC 3465), so the window still grows one MSS per RTT
    and the model with b = 2 underestimates by ~sqrt(2); see docs/validation.md.
    """
    flow = """
[[flow]]
kind = "bulk-upload"
client = "sender"
server = "receiver"
bytes = "10GB"
tcp = { cc = "reno", recv_buffer = "65535B", delayed_ack = false }
"""
    duration = 400.0
    res = wattlab.run(
        text=_path("100Mbps", delay_each, 1000, loss, flow, duration=f"{duration}s"),
        seed=7,
        timeseries=True,
    )
    ts = res.flow_series
    warm = 20.0  # well past slow start
    steady = ts[ts.time_s >= warm]
    seg = 1448  # MSS 1460 − 12 bytes of timestamps
    pkts_per_s = (steady.delivered.iloc[-1] - steady.delivered.iloc[0]) / seg / (
        steady.time_s.iloc[-1] - steady.time_s.iloc[0]
    )
    rtt = float(np.nanmean(steady.srtt_ms)) / 1e3
    t0 = float(np.mean(steady.rto_ms)) / 1e3
    w_max = 65535 // seg
    # Padhye's p is the rate of loss *indications* (triple duplicate ACKs and timeouts) per
    # packet sent, which is how the paper measured it in its validation. Under Bernoulli loss
    # several packets of one window can be lost for one indication, so it is below the
    # configured per-packet loss rate; the configured rate is reported beside it.
    f = res.flows.iloc[0]
    p_ind = (f.fast_retransmits + f.timeouts) / f.sender_wire_packets
    model = float(padhye_throughput(rtt, loss, t0, w_max, b=1.0))
    model_ind = float(padhye_throughput(rtt, p_ind, t0, w_max, b=1.0))
    ratio = pkts_per_s / model
    print(
        f"p={loss} delay={delay_each}: sim {pkts_per_s:.1f} pkt/s, Padhye {model:.1f} pkt/s "
        f"(ratio {ratio:.3f}); with the measured loss-indication rate {p_ind:.5f}: "
        f"{model_ind:.1f} (ratio {pkts_per_s / model_ind:.3f})"
    )
    assert 0.75 <= ratio <= 1.25, (pkts_per_s, model, rtt, t0, p_ind)
