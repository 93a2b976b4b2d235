"""Reproduction of paper 001: Anastasi, Conti, Lapenna, "A Power Saving Network Architecture for
Accessing the Internet from Mobile Computers: Design, Implementation and Measurements" (PSNA).

``REPRODUCTION.run(cfg, out)`` (module ``reproduction``) runs the paper's transfers A (25,446 KB up) and B (2,519 KB down) at full
length on the simulated Pisa–Perth path (docs/psna.md, "Simulator") under legacy TCP (card
always on), PSNA, and the baselines the paper could not run (TCP with 802.11 PSM, TCP with
paper 000's client-centered agent), and writes:

- ``runs.csv``: every run (card energy in J and battery-seconds, completion, the PSNA extras:
  polls, sleeps, on/off switches, on-time in signalling, burst, initial wait, residual-time
  prediction error);
- ``table2.csv``: per (transfer, architecture) means beside the paper's Tables 1–2 (lifetime,
  battery consumption, delivered KB, Kbps, transfer length, index), gain factor and reduction;
- ``claims.csv`` and ``summary.md``: each claim C1–C5 with wattlab's verdict;
- ``fig_card_energy.png``; ``config.json``.

- ``sensitivity.csv``: transfer B's PSNA under other α, 10-packet rules and a 536-byte MSS, and
  with a cost per off → on cycle.

Not yet: the live testbed's runs.
"""

from __future__ import annotations

from .config import ARCHITECTURES, TRANSFERS, Config

__all__ = ["ARCHITECTURES", "Config", "TRANSFERS"]
