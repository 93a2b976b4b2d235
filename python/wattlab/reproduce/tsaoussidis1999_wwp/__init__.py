"""Reproduction of paper 004: Tsaoussidis, Badr & Verma, "Wave & Wait Protocol (WWP): An
Energy-Saving Transport Protocol for Mobile IP-Devices" (ICNP '99), Table 1.

``REPRODUCTION.run(cfg, out)`` (module ``reproduction``) runs the 7 sets × {TCP Tahoe, WWP} as one-minute streams of 1024-byte
messages over VDROP/VDELAY in both directions, several seeds and VDROP phase offsets, and
writes:

- ``runs.csv`` (every run), ``points.csv`` (means per set and protocol with intervals),
  ``table1.csv`` (the paper's columns beside wattlab's), ``ratios.csv`` (WWP/TCP per set,
  the paper's beside wattlab's, and the radio-energy ratios);
- ``fig_table1.png``;
- ``claims.csv`` and ``summary.md`` (the verdicts, and the paper's own inconsistencies);
- ``config.json``: every parameter and what made it.
"""

from __future__ import annotations

from .config import Config

__all__ = ["Config"]
