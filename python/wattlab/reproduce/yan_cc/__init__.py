"""Reproduction of paper 000: Yan et al., client-centered ("CC") energy saving for a WLAN client's
TCP downloads (notes/000.md; the paper's §IV-F, large file downloads; §IV-E, web browsing; §IV-D,
fairness and friendliness).

``REPRODUCTION.run(cfg, out)`` (module ``reproduction``) simulates the paper's DummyNet testbed (``scenario.py``) for every experiment
of ``downloads.EXPERIMENTS`` and writes:

- ``runs.csv``: every simulation (all experiments), normalized to its baseline TCP run;
- ``<experiment>_points.csv``: per point, medians over seeds, means with 95 % CIs, and the
  agent's counters;
- ``fig13_sites.png``, ``fig14_emulated.png``, ``fig15_policies.png``, ``fig16_variation.png``,
  ``fig17_competing.png``, ``fig18_bandwidth.png``, ``crossover.png``;
- the web-browsing session (§IV-E, ``web.py``): ``web_runs.csv`` (one row per policy and
  seed), ``web_points.csv`` (per policy: medians normalized to TCP, with the oracle),
  ``web_concurrency.csv`` (Fig. 10: the RTT cache's saving and CC's energy per number of busy
  connections), ``fig09_web.png``, ``fig10_rtt_cache.png``;
- fairness and friendliness (§IV-D, ``fairness.py``): ``fairness_runs.csv`` (per mix and seed:
  Jain's index, spread, bottleneck queue), ``fairness_flows.csv`` (per flow: goodput normalized
  to its run's mean, download time), ``fig06_fairness.png``, ``fig07_friendliness.png``,
  ``fig08_queues.png``;
- issue 32 gap 3's settling experiments (``hypotheses.py``): ``window_gap.csv`` (CC's averages
  over the RTT × loss grid per receive buffer, beside the paper's, and the share of each
  component's gap a smaller window explains), ``fig17_weights_points.csv`` and
  ``fig17_weight_gap.csv`` (Fig. 17's PSM client under each fair-queueing weight of the AP),
  ``table1_wireless_points.csv`` (Table I's wireless column: CC in an 802.11a BSS),
  ``web_sites.csv`` (Fig. 11 per site), ``web_multiserver_runs.csv`` and
  ``web_multiserver_gap.csv`` (the web session on multi-server pages, and the share of the
  Fig. 10/11 gaps it explains);
- ``claims.csv`` and ``summary.md``: the paper's numbers beside wattlab's, a verdict and the
  likely reason for each gap;
- ``config.json``: every parameter.

Adding an experiment family: give it a module with a ``run_...(setup, ..., ctx)`` that returns
its tables (as ``web.run_web`` and ``fairness.run_fairness``), call it from
``reproduction.YanCc.tables`` after the downloads, add its files to ``reproduction.FILES`` (and
figures to ``FIGURES``), its claims to ``claims.all_claims`` (they read the tables from the
``pts`` dict) and its section to ``summary.sections``.
"""

from __future__ import annotations

from .config import Config, policy_settings

__all__ = ["Config", "policy_settings"]
