"""The thesis's Ch. 4 numbers (Hashimoto 2013, Sect. 4.3–4.4; notes/002.md §3, §6), as printed."""

from __future__ import annotations

S_SCTP = {1500: 1532, 40: 72}
"""Eq. 4.12's SCTP packet sizes for the TCP data and ACK packets (bytes)."""
P_CAPTIONS = {0.1: 1.00e-8, 0.2: 2.56e-6, 0.5: 3.91e-3}
"""Fig. 4.5's captions: q → p."""
KEY_AGGREGATE_KBPS = 450.0
"""Fig. 4.5(a)'s quoted point: 450 kB/s of upstream TCP, q = 0.1."""
KEY_RATIO = {1: 0.27, 5: 0.69}
"""P_ratio there: "reduces power consumption by 27 %" (m = 1), "around 69 %" (m = 5)."""
FIG48_GAINS = {(3.0, 500.0): 0.3, (3.0, 800.0): 0.4, (10.0, 500.0): 0.5, (10.0, 800.0): 0.6}
"""Fig. 4.8: (D_th ms, aggregate kB/s) → P_ratio gained over D_th = 0 ("roughly")."""
