"""Reproduction of paper 002 Ch. 4 (Hashimoto, PhD thesis, Osaka University, 2013): SCTP
tunneling for many TCP flows, model and simulator (issue 21).

``REPRODUCTION.run(cfg, out)`` (module ``reproduction``) evaluates the power model (:mod:`wattlab.models.sctp_tunnel`, Eqs. 4.1–4.14
on the Ch. 3 model) over the thesis's Figs. 4.5–4.8, runs the simulated tunnel over Fig. 4.5's
grid when ``cfg.simulate`` (:mod:`.simulator`), and writes:

- ``fig45.csv`` (Fig. 4.5's flow counts below R_max: the grid points the simulator side runs),
  ``fig45_lines.csv``, ``mixed.csv`` (Fig. 4.5(a) with downstream flows), ``fig46_47.csv``,
  ``fig48.csv``, ``fig48_lines.csv``;
- ``key_numbers.csv`` (every Ch. 4 number of the thesis beside ours), ``sizes.csv`` (Eq. 4.12
  and the real SCTP-over-UDP packet), ``sensitivity.csv`` (the conventions the thesis leaves open);
- ``model_vs_sim.csv`` (simulator means beside the model per grid point, empty with
  "simulator not run yet" unless ``cfg.simulate`` runs it or ``sim_points`` is given; see
  ``simulator``) and, when it ran here, ``sim_runs.csv`` (one row per simulator run),
  ``sim_fig46_47.csv`` (the simulator at a subset of Figs. 4.6–4.7's points beside the model) and
  ``sim_fig48.csv`` (Fig. 4.8's best P_ratio under each D_th from those runs beside the model's);
- ``fig_4_5.png`` … ``fig_4_8.png``, ``claims.csv``, ``summary.md``, ``config.json``.
"""

from __future__ import annotations

from .config import Config

__all__ = ["Config"]
