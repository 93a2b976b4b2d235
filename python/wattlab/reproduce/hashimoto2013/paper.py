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

# Figs. 2.12–2.13 (Sect. 2.6, pp. 26–36): the testbed of Fig. 2.8(b) (p. 27), a PC router with
# netem between the AP and the wired node. The thesis prints no value read off these figures
# (the text was extracted without them); what it states is their setting and, in words, what
# they show (the claims B8–B13 quote it). Pages: the extracted text has no page breaks; they are
# placed between the figures' pages of the list of figures (Fig. 2.11 p. 34, 2.12 p. 35, 2.13 p. 36).
TESTBED50_ONE_WAY_DELAY_MS = 50.0
"""Fig. 2.8(b) (Sect. 2.6.1, pp. 26–27: "netem [59] for generating a 50 [ms] delay to the wired link
between the AP and the wired node"); the captions of Figs. 2.12 (p. 35) and 2.13 (p. 36) call it
"a 50 [ms] one-way delay": the base RTT is about 100 ms."""
TESTBED50_AP = "Buffalo"
"""Figs. 2.12–2.13's captions: "using Buffalo-AP" (its buffer: Table 2.3, B_est 76.9 packets, pp. 27–30)."""
TESTBED50_BETA = 1 / 32
"""Sect. 2.6.1 (p. 30): with delayed ACK the proposed method uses Eq. 2.4 with β = 1/32
(``cc = "ackloss"``'s ``ACKLOSS_BETA``)."""
TESTBED_DURATION_S, TESTBED_AVERAGED_S, TESTBED_RUNS = 180.0, (50.0, 180.0), 10
"""Sect. 2.6.1 (pp. 29–30) and 2.6.3 (pp. 30–31): 180 s runs, throughput over 50–180 s, ten runs averaged."""
TESTBED50_STATEMENTS = {
    "fig2.12_reno": "TCP Reno experiences serious unfairness among upstream and downstream flows, regardless of the "
                    "use of the delayed ACK option (p. 34)",
    "fig2.12_proposed": "the proposed method significantly improves fairness with or without the delayed ACK option (p. 34)",
    "fig2.12_total": "both the total throughput of TCP Reno and the proposed method increase when using the delayed "
                     "ACK option (pp. 34–35)",
    "fig2.12_keeps": "when using the delayed ACK option, the proposed method can enhance the total throughput without "
                     "degrading the improvement in fairness (pp. 34–35)",
    "fig2.13_delack": "comparing the index values of the proposed method with and without using the delayed ACK "
                      "option, the index value with the delayed ACK option is better (p. 35)",
    "summary_index": "the proposed method can achieve a markedly better trade-off relationship between fairness and "
                     "bandwidth utilization (Sect. 2.7, p. 36)",
}
"""What the thesis says Figs. 2.12–2.13 show, quoted (page of the sentence)."""
