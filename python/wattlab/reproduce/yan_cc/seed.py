"""Seed 000's own numbers (notes/000.md, "Experiments and numbers to compare with"), in one place."""

from __future__ import annotations

TABLE1 = {
    30: {"time_wired": 6.1, "time_wireless": 5.8, "energy_wired": 5.5, "energy_wireless": 5.3},
    45: {"time_wired": 6.9, "time_wireless": 6.6, "energy_wired": 5.8, "energy_wireless": 5.6},
    60: {"time_wired": 7.9, "time_wireless": 7.5, "energy_wired": 6.0, "energy_wireless": 5.9},
    90: {"time_wired": 9.7, "time_wireless": 9.4, "energy_wired": 6.5, "energy_wireless": 6.4},
    120: {"time_wired": 11.5, "time_wireless": 11.3, "energy_wired": 7.1, "energy_wireless": 6.9},
}
"""Table I (ns-2): CC's time (s) and energy (J) per RTT (ms), wired and wireless."""

EMULATED = {"gamma": (0.51, 0.12), "none": (0.47, 0.06)}
"""DummyNet averages over all RTTs and loss rates: (energy saved, time added), peak / off-peak."""

INTERNET = {"gamma": (0.27, 0.20), "none": (0.32, 0.20)}
"""Internet averages over the seven sites: (energy saved, time added), peak / off-peak."""

STREAM_DELAY = {20.0: (0.40, 0.44), 40.0: (0.20, 0.16)}
"""cs.stanford.edu (65 ms, 64 KB): hop rate (Mb/s) → (predicted, measured) CC slowdown."""

CROSSOVER_MS = 75.0
"""CC-vs-PSM transfer-time crossover for a 64 KB window at 20 Mb/s."""

JRIVER = (0.50, 0.08)
"""jriver.net: more than 50 % saved with less than 8 % more time."""

PSM_SLOWDOWN = {"average": 1.00, "cs.uiuc.edu": 5.11, "research.msft.com": 0.29, "inria.fr": 0.61}
"""PSM's time overhead over baseline TCP on the Internet sites."""

SITE_MIN_SAVING = 0.10
"""'The energy savings for all sites other than cs.uiuc.edu is at least 10 %.'"""

SATURATION_COMPETITORS = 3
"""Fig. 17: the AP saturates at 3 competing clients."""
