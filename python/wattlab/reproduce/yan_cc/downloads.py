"""Paper 000's large-file download experiments (§IV-F): the emulated RTT × loss grid (Figs. 14/15,
Table I), RTT variation (Fig. 16), competing clients (Fig. 17), AP bandwidth (Fig. 18), the
Internet sites of Fig. 12 as scenarios, and a CC-vs-PSM crossover sweep.

Every experiment returns (runs, points): one row per simulation with its numbers normalized
to baseline TCP (the ``cam`` run of the same setting and seed: WNIC always on), and one row
per point with the median over seeds (the paper reports the median of ≥ 3 runs) and the mean
with its 95 % confidence interval.
"""

from __future__ import annotations

import math
from dataclasses import asdict, replace
from typing import Callable, Iterable

import numpy as np
import pandas as pd

from .. import stats
from ..framework import Context
from ..runner import mean_ci
from .config import Config
from .measure import AGENT_COUNTERS, measure
from .scenario import Download, download

SETTING_COLUMNS = ("policy", "rtt_ms", "loss", "variation", "rate_mbps", "recv_buffer", "competitors", "medium")
"""The fields of a Download, in the runs tables."""

SUMMED = ("norm_energy", "norm_time", "saving", "slowdown", "energy_j", "time_s", "always_on_j", "oracle_j",
          "norm_oracle", "base_time_s", "base_energy_j")
"""Columns summarised per point by median, mean and CI."""

DOMAINS: stats.Domains = {
    **{c: stats.NON_NEGATIVE for c in SUMMED if c not in ("saving", "slowdown")},
    "saving": (-math.inf, 1.0),
    "slowdown": (-1.0, math.inf),
}
"""Where each summarised column can lie (energies, times and their ratios ≥ 0; saving ≤ 100 %)."""

COUNTERS = ("retransmits", "timeouts", *AGENT_COUNTERS, "dozes", "packets_held", "bytes_per_burst")
"""Columns summarised per point by their mean over seeds."""


class Sims:
    """Runs downloads once each: experiments that share a setting and seed share its run."""

    def __init__(self, cfg: Config, ctx: Context):
        self.cfg = cfg
        self.ctx = ctx
        self.cache: dict[tuple[Download, int], dict] = {}

    @property
    def simulations(self) -> int:
        """Distinct simulations run so far."""
        return len(self.cache)

    def run(self, downloads: Iterable[Download], description: str) -> None:
        """Run every (download, seed) not yet run."""
        todo = list(dict.fromkeys((d, s) for d in downloads for s in self.cfg.seed_list() if (d, s) not in self.cache))
        if not todo:
            return
        jobs = []
        for d, s in todo:
            b, over = download(d, self.cfg)
            jobs.append(b.job(s, {"policy": d.policy, "file_bytes": self.cfg.file_bytes}, over, timeseries=d.competitors > 0))
        rows = self.ctx.run(jobs, lambda job, res: measure(job, res, self.cfg.profile), description)
        for (d, s), row in zip(todo, rows.to_dict("records")):
            row.pop("policy", None)
            row.pop("file_bytes", None)
            row.pop("seed", None)
            self.cache[(d, s)] = row

    def row(self, d: Download, seed: int) -> dict:
        return self.cache[(d, seed)]


def _baseline_same(d: Download) -> Download:
    return replace(d, policy="cam")


def _runs(sims: Sims, settings: list[tuple[dict, Download]], baseline: Callable[[Download], Download],
          description: str) -> pd.DataFrame:
    """Run the settings and their baselines; one row per (setting, seed), normalized to its baseline."""
    sims.run([d for _, d in settings] + [baseline(d) for _, d in settings], description)
    rows = []
    for labels, d in settings:
        for seed in sims.cfg.seed_list():
            r = sims.row(d, seed)
            b = sims.row(baseline(d), seed)
            row = {**labels, **asdict(d), "seed": seed, **r}
            if d.ap_power_save_weight is None:
                del row["ap_power_save_weight"]  # only the weight sweep's rows carry the column
            row["base_time_s"] = b["time_s"]
            row["base_energy_j"] = b["energy_j"]
            # Equal work before a saving (wattlab.work): both downloads delivered the whole
            # file; otherwise the ratios are missing (NaN), never a saving for lost data.
            row["same_work"] = bool(r["completed"] and b["completed"])
            nan = math.nan
            row["norm_energy"] = r["energy_j"] / b["energy_j"] if row["same_work"] else nan
            row["norm_time"] = r["time_s"] / b["time_s"] if row["same_work"] else nan
            row["norm_oracle"] = r["oracle_j"] / b["energy_j"] if row["same_work"] else nan
            row["saving"] = 1.0 - row["norm_energy"]
            row["slowdown"] = row["norm_time"] - 1.0
            rows.append(row)
    return pd.DataFrame(rows)


def points(runs: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Per point: runs, median/mean/CI of SUMMED, mean of COUNTERS, all runs completed.

    ``<col>`` is the median over seeds and ``<col>_lo`` … ``<col>_hi`` the bar the figures
    draw around it (``stats.interval`` of the median: the seeds' range); ``<col>_mean`` and
    ``<col>_ci`` are the mean and the half-width of its 95 % t-interval.
    """
    if runs.empty:
        return pd.DataFrame(columns=[*by, "runs", "completed", *SUMMED, *(f"{c}_{x}" for c in SUMMED for x in ("lo", "hi")),
                                     *COUNTERS])
    out = []
    for key, g in runs.groupby(by, sort=False, dropna=False):
        key = key if isinstance(key, tuple) else (key,)
        row = dict(zip(by, key))
        row["runs"] = len(g)
        row["completed"] = bool(g.completed.all())
        for c in SUMMED:
            iv = stats.interval(g[c], stats.MEDIAN, DOMAINS[c])
            row[c], row[f"{c}_lo"], row[f"{c}_hi"] = iv.center, iv.lo, iv.hi
            row[f"{c}_mean"], row[f"{c}_ci"] = mean_ci(g[c])
        for c in COUNTERS:
            row[c] = float(np.nanmean(g[c])) if g[c].notna().any() else math.nan
        out.append(row)
    return pd.DataFrame(out)


def grid(cfg: Config, sims: Sims) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Figs. 14/15 and Table I: RTT × loss × off-peak/peak, every policy of ``fig14_policies``."""
    settings = [
        ({"experiment": "fig14"}, Download(p, rtt, loss, var, cfg.hop_rate_mbps, cfg.recv_buffer))
        for var in cfg.variations
        for rtt in cfg.rtts_ms
        for loss in cfg.losses
        for p in ["cam", *cfg.fig14_policies]
    ]
    runs = _runs(sims, settings, _baseline_same, "Figs. 14/15: RTT × loss × peak")
    return runs, points(runs, ["variation", "rtt_ms", "loss", "policy"])


def table1(cfg: Config, sims: Sims) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Table I: CC's absolute time and energy at each RTT, off-peak, without loss (the ns-2 runs
    state none) and at the Fig. 15 loss rate."""
    settings = [
        ({"experiment": "table1"}, Download(p, rtt, loss, "none", cfg.hop_rate_mbps, cfg.recv_buffer))
        for loss in dict.fromkeys([cfg.table1_loss, cfg.fig15_loss])
        for rtt in cfg.rtts_ms
        for p in ("cam", "cc")
    ]
    runs = _runs(sims, settings, _baseline_same, "Table I: CC at each RTT")
    return runs, points(runs, ["loss", "rtt_ms", "policy"])


def table1_wireless(cfg: Config, sims: Sims) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Table I's "wireless" column (issue 32): CC and TCP alone in Fig. 17's 802.11a BSS (the
    ``wlan`` medium, no competitors) at each RTT, off-peak at Table I's loss. The paper's ns-2
    wireless set-up (PHY, rate, MAC settings) is not stated; this is the closest BSS we model."""
    settings = [
        ({"experiment": "table1_wireless"}, Download(p, rtt, cfg.table1_loss, "none", cfg.hop_rate_mbps, cfg.recv_buffer,
                                                     medium="wlan"))
        for rtt in cfg.rtts_ms
        if cfg.table1_wireless
        for p in ("cam", "cc")
    ]
    runs = _runs(sims, settings, _baseline_same, "Table I: CC in an 802.11a BSS")
    return runs, points(runs, ["loss", "rtt_ms", "policy"])


def window(cfg: Config, sims: Sims) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The RTT × loss grid again with smaller receive buffers (CC and TCP only)."""
    settings = [
        ({"experiment": "window"}, Download(p, rtt, loss, var, cfg.hop_rate_mbps, min(65535, round(kb * 1024))))
        for kb in cfg.window_sensitivity_kb
        for var in cfg.variations
        for rtt in cfg.rtts_ms
        for loss in cfg.losses
        for p in ("cam", "cc")
    ]
    runs = _runs(sims, settings, _baseline_same, "Window sensitivity")
    return runs, points(runs, ["recv_buffer", "variation", "rtt_ms", "loss", "policy"])


def fig16(cfg: Config, sims: Sims) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Fig. 16: no variation / gamma / 2var × active vs dynamic detection, 60 ms, 0.1 %."""
    settings = [
        ({"experiment": "fig16"}, Download(p, cfg.fig16_rtt_ms, cfg.fig15_loss, var, cfg.hop_rate_mbps, cfg.recv_buffer))
        for var in cfg.fig16_variations
        for p in ["cam", *cfg.fig16_policies]
    ]
    runs = _runs(sims, settings, _baseline_same, "Fig. 16: RTT variation")
    return runs, points(runs, ["variation", "policy"])


def fig17(cfg: Config, sims: Sims) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Fig. 17: one energy-aware client plus n plain TCP clients sharing the AP's bandwidth,
    normalized to a single TCP client alone (the paper's normalization)."""
    settings = [
        ({"experiment": "fig17"}, Download(p, cfg.fig16_rtt_ms, cfg.fig15_loss, "none", cfg.hop_rate_mbps,
                                           cfg.recv_buffer, competitors=n, medium=m))
        for m in cfg.fig17_media
        for n in cfg.fig17_competitors
        for p in cfg.fig17_policies
    ]
    # Each medium is normalized to one TCP client alone on the same medium.
    runs = _runs(sims, settings, lambda d: replace(d, policy="cam", competitors=0), "Fig. 17: competing clients")
    return runs, points(runs, ["medium", "competitors", "policy"])


def fig17_weights(cfg: Config, sims: Sims) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Issue 32: Fig. 17's PSM client on the ``wlan`` medium again under each of
    ``fig17_power_save_weights`` (the AP's fair-queueing weight of the power-saving class), with
    the same competitors, seeds and normalization as Fig. 17. CC's station is regular, so its
    runs do not depend on the weight and are Fig. 17's."""
    settings = [
        ({"experiment": "fig17_weights"}, Download("ideal-psm", cfg.fig16_rtt_ms, cfg.fig15_loss, "none", cfg.hop_rate_mbps,
                                                   cfg.recv_buffer, competitors=n, medium="wlan", ap_power_save_weight=w))
        for w in cfg.fig17_power_save_weights
        for n in cfg.fig17_competitors
        if n > 0 and "wlan" in cfg.fig17_media and "ideal-psm" in cfg.fig17_policies
    ]
    runs = _runs(sims, settings, lambda d: replace(d, policy="cam", competitors=0, ap_power_save_weight=None),
                 "Fig. 17: the AP's fair-queueing weights")
    return runs, points(runs, ["ap_power_save_weight", "competitors", "policy"])


def fig18(cfg: Config, sims: Sims) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Fig. 18: AP bandwidth 4–40 Mb/s at 60 ms, off-peak and peak, over the loss rates."""
    settings = [
        ({"experiment": "fig18"}, Download(p, cfg.fig16_rtt_ms, loss, var, rate, cfg.recv_buffer))
        for var in cfg.variations
        for rate in cfg.fig18_rates_mbps
        for loss in cfg.fig18_losses
        for p in ["cam", *cfg.fig18_policies]
    ]
    runs = _runs(sims, settings, _baseline_same, "Fig. 18: AP bandwidth")
    return runs, points(runs, ["variation", "rate_mbps", "loss", "policy"])


def sites(cfg: Config, sims: Sims) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Figs. 12/13: each Internet site as (base RTT, average window as the receive buffer)."""
    settings = []
    for name in cfg.sites:
        s = cfg.site(name)
        buf = min(65535, round(s.window_kb * 1024))
        for var in cfg.variations:
            for p in ["cam", *cfg.site_policies]:
                settings.append(({"experiment": "sites", "site": s.name},
                                 Download(p, s.rtt_ms, cfg.site_loss, var, cfg.hop_rate_mbps, buf)))
    runs = _runs(sims, settings, _baseline_same, "Figs. 12/13: Internet sites")
    return runs, points(runs, ["site", "variation", "policy"])


def crossover(cfg: Config, sims: Sims) -> tuple[pd.DataFrame, pd.DataFrame]:
    """CC vs PSM transfer time over RTT (64 KB window, no loss, off-peak), and the closed-ACK
    stream delay at 65 ms for each of ``stream_delay_rates_mbps``."""
    settings = [
        ({"experiment": "crossover"}, Download(p, rtt, 0.0, "none", cfg.hop_rate_mbps, cfg.recv_buffer))
        for rtt in sorted(set(cfg.crossover_rtts_ms) | {65.0})
        for p in ("cam", "cc", "ideal-psm")
    ]
    settings += [
        ({"experiment": "crossover"}, Download(p, 65.0, 0.0, "none", rate, cfg.recv_buffer))
        for rate in cfg.stream_delay_rates_mbps
        if rate != cfg.hop_rate_mbps
        for p in ("cam", "cc")
    ]
    runs = _runs(sims, settings, _baseline_same, "Crossover and stream delay")
    return runs, points(runs, ["rate_mbps", "rtt_ms", "policy"])


def reversion(cfg: Config, sims: Sims) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The lossy points of the RTT × loss grid with CC that never reverts on loss."""
    settings = [
        ({"experiment": "reversion"}, Download(p, rtt, loss, var, cfg.hop_rate_mbps, cfg.recv_buffer))
        for var in cfg.variations
        for rtt in cfg.rtts_ms
        for loss in cfg.losses
        if loss > 0 and cfg.reversion_sensitivity
        for p in ("cam", "cc", "cc-norevert")
    ]
    runs = _runs(sims, settings, _baseline_same, "Sensitivity: no reversion on loss")
    return runs, points(runs, ["variation", "rtt_ms", "loss", "policy"])


EXPERIMENTS: dict[str, Callable[[Config, Sims], tuple[pd.DataFrame, pd.DataFrame]]] = {
    "fig14": grid,
    "table1": table1,
    "table1_wireless": table1_wireless,
    "fig16": fig16,
    "fig17": fig17,
    "fig17_weights": fig17_weights,
    "fig18": fig18,
    "sites": sites,
    "crossover": crossover,
    "window": window,
    "reversion": reversion,
}
"""Name → experiment; each writes ``<name>_points.csv`` and adds its runs to ``runs.csv``."""
