"""Paper 000's own numbers (notes/000.md, "Experiments and numbers to compare with"), in one place."""

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

# --- §IV-E, web browsing (abstract, introduction and Figs. 9–11) ---

WEB_VS_PSM = 0.21
"""'Saves up to 21 % energy compared to PSM' over a whole browsing session (downloads and think times)."""

WEB_TIME_VS_TCP = 0.01
"""'... and incurs less than a 1 % increase in transmission time compared to regular TCP'."""

WEB_VS_BSD = 0.25
"""'Saves up to 25 % more energy than BSD'."""

WEB_CACHE_OVERALL = 0.10
"""Fig. 10: the RTT cache's overall benefit during downloads, 'about 10 %'."""

WEB_CACHE_BY_K = {3: 0.13, 4: 0.32}
"""Fig. 10: the RTT cache's benefit at 3 and 4 concurrent connections."""

WEB_BEST5_CC = (0.45, 0.60)
"""Fig. 11: CC's saving on the best five sites (off-peak)."""

WEB_BEST5_ORACLE = (0.75, 0.90)
"""Fig. 11: the oracle's saving on the same five sites."""

WEB_WORST5 = (0.12, 0.70)
"""Fig. 11: CC saves 'about 12 %' on the worst five sites, the oracle 'over 70 %'."""

WEB_SESSION = {"pages": 100, "objects": 558, "bytes": 2.79e6, "seconds": 5400.0}
"""The paper's browsing script: 100 pages, 558 sub-object requests, 2.79 MB in 5,400 s."""
