"""Paper 002's printed numbers (notes/002.md §1.3, §1.5, §2.5, §2.7, §6), exactly as printed."""

from __future__ import annotations

TABLE21_C = 30.0
"""Table 2.1's capacity C (Mb/s), n = 10 flows."""
TABLE21 = {
    # case: (throughputs Mb/s, Jain, proposed F) as printed (2 decimals)
    1: ([3.0] * 10, 1.00, 1.00),
    2: ([2.0] * 10, 1.00, 0.90),
    3: ([1.0] * 10, 1.00, 0.69),
    4: ([1.0] * 9 + [6.0], 0.50, 0.67),
    5: ([1.0] * 8 + [6.0, 6.0], 0.50, 0.64),
    6: ([2.0] * 9 + [12.0], 0.50, 0.50),
    7: ([1, 1, 1, 1, 1, 1, 2, 3, 3, 6], 0.62, 0.73),
    8: ([1, 1, 1, 3, 3, 3, 3, 4, 5, 6], 0.78, 0.78),
}
VARIANCES = {4: 2.25, 5: 4.0, 6: 9.0}
"""Population variances the text quotes for cases 4–6."""
JAIN_EXAMPLE = ([10.0, 30.0, 40.0], [100.0, 300.0, 400.0], 0.82)
"""Jain's index is scale free: both allocations give 0.82."""

TABLE23 = {
    # AP: (minRTT ms, T Mb/s, cwnd_overflow B, B_est packets)
    "Buffalo": (0.975, 21.8, 118003, 76.9),
    "NEC": (0.563, 19.6, 76719, 50.2),
    "Corega": (0.674, 20.2, 366826, 243.4),
}
TABLE23_MSS = 1500

TABLE31 = {
    # cross traffic Mb/s: (simulation ms, analysis ms, relative error % as printed)
    12: (0.898, 0.954, 6.23),
    20: (1.57, 1.66, 5.26),
    22: (2.03, 1.97, 3.03),
    25: (3.50, 3.19, 8.92),
    28: (11.35, 7.59, 33.1),
    29: (54.7, 21.6, 60.6),
}
TABLE31_BOTTLENECK_MBPS = 30.0
TABLE31_RTT_S = 0.1
TABLE31_Q = 0.3
TABLE31_MODERATE_MBPS = 25
"""The thesis: the model holds while cross traffic ≤ 25 Mb/s."""

R_ENERGY_M1_P001 = 0.9
"""Fig. 3.10 (RTT 100 ms, p = 0.001): sleeping without bursts "saves only about 10 %"."""
R_ENERGY_BURST_GAIN = 0.5
"""…and m = 5 "saves a further ~50 %" (R_energy(1) − R_energy(5) ≈ 0.5)."""
