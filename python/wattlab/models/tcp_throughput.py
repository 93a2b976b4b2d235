"""Steady-state TCP Reno throughput models: Mathis et al. (1997) and Padhye et al. (1998).

Both give throughput in *packets per second* as a function of the loss probability ``p``;
multiply by the segment payload for bytes per second. They are the independent check of the
simulator's TCP (issue "Simulator foundation", test 2).

References:
- M. Mathis, J. Semke, J. Mahdavi, T. Ott, "The macroscopic behavior of the TCP congestion
  avoidance algorithm", CCR 27(3), 1997: B = (1/RTT) * sqrt(3 / (2 b p)).
- J. Padhye, V. Firoiu, D. Towsley, J. Kurose, "Modeling TCP throughput: a simple model and
  its empirical validation", SIGCOMM 1998, eq. (31) (the "full model", with timeouts and the
  receiver-window limit W_max).
"""

from __future__ import annotations

import numpy as np


def mathis_throughput(rtt_s, p, b: float = 1.0):
    """Mathis et al. square-root law, packets/s. ``b`` = packets acknowledged per ACK."""
    rtt_s = np.asarray(rtt_s, dtype=float)
    p = np.asarray(p, dtype=float)
    return np.sqrt(3.0 / (2.0 * b * p)) / rtt_s


def _q_hat(p, w):
    """Probability that a loss in a window of ``w`` packets is detected by timeout (eq. 24)."""
    q = 1.0 - p
    num = (1.0 - q**3) * (1.0 + q**3 * (1.0 - q ** np.maximum(w - 3.0, 0.0)))
    den = 1.0 - q**w
    return np.minimum(1.0, num / den)


def _f(p):
    """Expected timeout-sequence length factor f(p) = 1 + p + 2p^2 + ... + 32p^6 (eq. 28)."""
    return 1 + p + 2 * p**2 + 4 * p**3 + 8 * p**4 + 16 * p**5 + 32 * p**6


def padhye_throughput(rtt_s, p, t0_s, w_max, b: float = 1.0):
    """Padhye et al. full model (eq. 31), packets/s.

    rtt_s: round-trip time; p: loss probability per packet; t0_s: the retransmission timeout
    (the first timeout of a sequence); w_max: receiver window in packets; b: packets
    acknowledged per ACK (2 with delayed ACKs).
    """
    rtt_s = np.asarray(rtt_s, dtype=float)
    p = np.asarray(p, dtype=float)
    w_max = np.asarray(w_max, dtype=float)
    a = (2.0 + b) / (3.0 * b)
    ew = a + np.sqrt(8.0 * (1.0 - p) / (3.0 * b * p) + a * a)  # E[W_u], unconstrained window
    limited = ew >= w_max

    # Window not limited by the receiver.
    q_u = _q_hat(p, ew)
    num_u = (1.0 - p) / p + ew + q_u / (1.0 - p)
    den_u = rtt_s * (b / 2.0 * ew + 1.0) + q_u * t0_s * _f(p) / (1.0 - p)

    # Window limited to w_max.
    q_l = _q_hat(p, w_max)
    num_l = (1.0 - p) / p + w_max + q_l / (1.0 - p)
    den_l = rtt_s * (b / 8.0 * w_max + (1.0 - p) / (p * w_max) + 2.0) + q_l * t0_s * _f(p) / (1.0 - p)

    return np.where(limited, num_l / den_l, num_u / den_u)
