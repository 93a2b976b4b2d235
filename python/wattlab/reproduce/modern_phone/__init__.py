"""Issue 30's modern-phone study: every power-save scheme wattlab has, the seeds' and today's,
on a phone, for five workloads on 802.11a and 802.11ax.

``REPRODUCTION.run(cfg, out)`` (module ``reproduction``) runs every (workload, PHY, scheme,
seed) where the scheme applies and writes:

- ``runs.csv`` (every run, compared with CAM's and the phone default's run at equal work),
  ``points.csv`` (means per point with 95 % CIs), ``summary.csv`` (the summary table, with the
  Pareto front), ``applicability.csv`` (which scheme runs where, and why not);
- ``fig_pareto.png`` (energy vs delay per workload) and ``fig_savings.png``;
- ``claims.csv`` (the findings) and ``summary.md``; ``config.json``: every parameter.
"""

from __future__ import annotations

from .config import Config

__all__ = ["Config"]
