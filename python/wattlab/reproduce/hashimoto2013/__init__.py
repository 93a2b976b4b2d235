"""Reproduction of paper 002: M. Hashimoto, "Transport-Layer Solutions for Achieving Fairness and
Energy Efficiency in Wireless LANs", PhD thesis, Osaka University, 2013 — Ch. 2 (ACK-loss-aware
TCP for WLAN fairness) and Ch. 3 (energy model of one TCP flow over 802.11a).

``REPRODUCTION.run(cfg, out)`` (module ``reproduction``) computes the closed-form tables and runs the simulations, then writes:

- ``table21.csv`` (Table 2.1's 16 index values, the variances, beside the thesis's),
  ``table23.csv`` (B_est, Eq. 2.11);
- ``fairness_runs.csv`` (every run: per-flow throughput and RTT, Jain, F, SWM(w), AP queue
  drops, collisions, air time) and ``fairness.csv`` (means and 95 % CIs per mix, delayed ACK
  and scheme; total against Reno's);
- ``table31.csv`` (ACK inter-arrival: the thesis's two columns, our model, our simulator) and
  ``table31_runs.csv``;
- ``r_energy_maps.csv``, ``r_energy_vs_p.csv``, ``m_sweep.csv`` (the model's Figs. 3.9–3.12);
- ``model_vs_sim.csv`` and ``model_vs_sim_runs.csv`` (Ch. 3 model against the simulator);
- ``claims.csv``, ``summary.md``, ``config.json`` and the figures (``figures.NAMES``).

The fairness, model-vs-simulator and Table 3.1 runs go through :func:`runner.run_jobs`
(``fairness.job``/``measure``, ``energy_sim.job``/``measure``, ``validation.job``/``measure``).
"""

from __future__ import annotations

from .config import MIXES, SCHEMES, Config

__all__ = ["Config", "MIXES", "SCHEMES"]
