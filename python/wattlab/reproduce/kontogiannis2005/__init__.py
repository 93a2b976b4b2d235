"""Reproduction of paper 003: Kontogiannis, Mamatras, Psaras, Tsaoussidis, "Measuring Transport
Protocol Potential for Energy Efficiency" (2005).

``REPRODUCTION.run(cfg, out)`` (module ``reproduction``) measures Thr_max, runs Experiment 1 (six TCP variants, one flow, error rate
0–25 %, random and burst errors) and Experiment 2 (n Tahoe vs n Vegas flows), and writes:

- ``exp1_runs.csv``, ``exp1_points.csv``, ``exp2_runs.csv``, ``exp2_points.csv``,
  ``thr_max.csv``: every run and the per-point means with 95 % confidence intervals
  (``<col>_ci``) and the bars the figures draw (``<col>_lo`` … ``<col>_hi``, ``reproduce.stats``);
- ``fig2_goodput.png``, ``fig3_eee.png``, ``fig4_systems.png``;
- ``claims.csv`` and ``summary.md``: each claim R1.1–R2.7 of notes/003.md with wattlab's verdict;
- ``config.json``: every parameter, including the choices the paper leaves open.
"""

from __future__ import annotations

from .config import VARIANTS, Config

__all__ = ["Config", "VARIANTS"]
