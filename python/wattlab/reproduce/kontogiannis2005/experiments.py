"""The paper's measurements: Thr_max by UDP CBR saturation, Experiment 1 (one flow per variant
against the error rate) and Experiment 2 (n Tahoe flows against n Vegas flows)."""

from __future__ import annotations

import pandas as pd

from wattlab import api, metrics

from ..framework import Context
from ..runner import Job, aggregate
from ..stats import NON_NEGATIVE, Domains
from . import scenario
from .config import Config

ERROR_MODELS = ("random", "burst")
"""Experiment 1 runs every point with Bernoulli ('random') and Gilbert ('burst') errors."""


def domains(cfg: Config) -> Domains:
    """Where each aggregated quantity can lie, so no bar reaches past it: 3E (single and system)
    lies in [0, α] when G ≤ Thr ≤ Thr_max (b ≤ α), Jain's index over n flows in [1/n, 1], and
    Tahoe's energy gain (E_Vegas − E_Tahoe)/E_Tahoe above −100 %."""
    eee = (0.0, cfg.alpha)
    rest = ("goodput_bps", "throughput_bps", "overhead", "energy_j", "time_s", "timeouts", "thr_max_bps", "run_time_s")
    return {**{c: NON_NEGATIVE for c in rest}, "eee": eee, "eee_system": eee,
            "fairness": lambda key: (1.0 / key["flows"], 1.0), "energy_gain_pct": (-100.0, float("inf"))}


def _seeds(cfg: Config) -> range:
    return range(cfg.base_seed, cfg.base_seed + cfg.seeds)


def _station(res: api.RunResult, node: str = "node0") -> dict:
    for w in res.summary["wlans"]:
        for s in w["stations"]:
            if s["node"] == node:
                return s
    raise KeyError(f"no 802.11 station {node} in the run")


def _measure_cbr(job: Job, res: api.RunResult) -> dict:
    duration = res.summary["end_time_s"]
    sta = _station(res)
    return {
        "thr_max_bps": sta["bytes_attempted"] * 8 / duration,
        "delivered_bps": sta["bytes_sent"] * 8 / duration,
    }


def measure_thr_max(cfg: Config, settings: list[tuple[str, float]], ctx: Context) -> pd.DataFrame:
    """Thr_max per (error model, error rate, seed): the IP bytes a saturating set of UDP CBR
    flows put on the air per second (paper 003 §4: a very aggressive sender's throughput)."""
    jobs = [
        scenario.BASE.job(seed, {"model": model, "per": per}, scenario.cbr_overrides(model, per, cfg))
        for model, per in settings
        for seed in _seeds(cfg)
    ]
    return ctx.run(jobs, _measure_cbr, "Thr_max (UDP CBR saturation)")


def _flow_rows(res: api.RunResult) -> list[dict]:
    rows = []
    for f in res.flows.itertuples():
        dur = f.completion_time_s if f.completed else res.summary["end_time_s"] - f.start_s
        rows.append(
            {
                "flow": f.name,
                "completed": bool(f.completed),
                "time_s": dur,
                "goodput_bps": f.goodput_bps,
                "throughput_bps": f.throughput_bps,
                "sender_bytes": f.sender_wire_bytes,
                "receiver_bytes": f.receiver_wire_bytes,
                "delivered_bytes": f.bytes_delivered,
                "retransmitted_bytes": f.retransmitted_bytes,
                "timeouts": f.timeouts,
                "fast_retransmits": f.fast_retransmits,
            }
        )
    return rows


def _measure_single(job: Job, res: api.RunResult) -> dict:
    (row,) = _flow_rows(res)
    row["energy_j"] = res.energy("always-on", "node0")
    row["run_time_s"] = res.summary["end_time_s"]
    return row


def _thr_max_lookup(thr: pd.DataFrame) -> dict[tuple[str, float, int], float]:
    return {(r.model, r.per, r.seed): r.thr_max_bps for r in thr.itertuples()}


def experiment1(cfg: Config, ctx: Context, models: tuple[str, ...] = ERROR_MODELS,
                pers: list[float] | None = None, thr: pd.DataFrame | None = None,
                label: str = "Experiment 1 (one flow per variant)") -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Goodput, throughput and 3E of one flow per variant, per error model and rate, per seed.

    Returns (runs, points, thr_max): every run, the per-point means with 95 % CIs, and the
    Thr_max runs. 3E uses the Thr_max measured with the same seed and error setting; a
    hypothesis that leaves the channel alone passes the main run's ``thr`` instead of
    measuring it again. ``models`` and ``pers`` restrict the sweep (a hypothesis about the
    low-error region runs only that).
    """
    settings = [(m, p) for m in models for p in (cfg.per_grid if pers is None else pers)]
    if thr is None:
        thr = measure_thr_max(cfg, settings, ctx)
    jobs = [
        scenario.BASE.job(seed, {"variant": v, "model": m, "per": p},
                          scenario.tcp_overrides(v, 1, cfg.exp1_bytes, m, p, cfg, seed))
        for m, p in settings
        for v in cfg.variants
        for seed in _seeds(cfg)
    ]
    runs = ctx.run(jobs, _measure_single, label)
    lookup = _thr_max_lookup(thr)
    runs["thr_max_bps"] = [lookup[(r.model, r.per, r.seed)] for r in runs.itertuples()]
    runs["eee"] = [
        metrics.eee(r.throughput_bps, r.goodput_bps, r.thr_max_bps, cfg.alpha, cfg.b) for r in runs.itertuples()
    ]
    runs["overhead"] = [metrics.overhead(r.sender_bytes, r.delivered_bytes) for r in runs.itertuples()]
    return runs, exp1_points(runs, cfg), thr


def exp1_points(runs: pd.DataFrame, cfg: Config) -> pd.DataFrame:
    """Experiment 1 per (error model, variant, error rate): means over seeds, CIs and bars."""
    return aggregate(
        runs,
        ["model", "variant", "per"],
        ["goodput_bps", "throughput_bps", "eee", "overhead", "energy_j", "time_s", "timeouts", "thr_max_bps"],
        domains(cfg),
    )


def system_energy(res: api.RunResult, senders: list[str]) -> float:
    """Joules of the senders' radios (each counted once) until the run ends."""
    return sum(res.energy("always-on", n) for n in dict.fromkeys(senders))


def _measure_system(job: Job, res: api.RunResult, cfg: Config) -> dict:
    flows = _flow_rows(res)
    senders = scenario.senders(len(flows), cfg.exp2_senders == "separate")
    thr = [f["throughput_bps"] for f in flows]
    good = [f["goodput_bps"] for f in flows]
    return {
        "eee_system": metrics.eee_system(thr, good, job.labels["thr_max_bps"], cfg.alpha, cfg.b),
        "completed": all(f["completed"] for f in flows),
        "fairness": metrics.jain_index(thr),
        "goodput_bps": sum(good),
        "throughput_bps": sum(thr),
        "flow_throughputs_bps": ";".join(f"{x:.1f}" for x in thr),
        "flow_goodputs_bps": ";".join(f"{x:.1f}" for x in good),
        "energy_j": system_energy(res, senders),
        "run_time_s": res.summary["end_time_s"],
        "timeouts": sum(f["timeouts"] for f in flows),
    }


def experiment2(cfg: Config, ctx: Context, thr: pd.DataFrame | None = None,
                label: str = "Experiment 2 (n Tahoe vs n Vegas)") -> tuple[pd.DataFrame, pd.DataFrame]:
    """Systems of n Tahoe flows and n Vegas flows at the Experiment 2 error rate.

    Per run: Jain's index over the flows' throughputs (the paper computes F.I. from
    throughput), system goodput Σ G_i, system 3E, the transmitters' energy until the last flow
    ends (node0's, or the sum over the senders with ``cfg.exp2_senders = "separate"``); per
    point the Tahoe-vs-Vegas energy gain (E_Vegas − E_Tahoe)/E_Tahoe. Thr_max is node0's UDP
    saturation (the channel's capacity) either way; ``thr`` reuses a measured one.
    """
    if thr is None:
        thr = measure_thr_max(cfg, [("random", cfg.exp2_per)], ctx)
    lookup = _thr_max_lookup(thr)
    separate = cfg.exp2_senders == "separate"
    jobs = [
        scenario.BASE.job(seed, {"variant": v, "flows": n, "thr_max_bps": lookup[("random", cfg.exp2_per, seed)]},
                          scenario.tcp_overrides(v, n, cfg.exp2_bytes, "random", cfg.exp2_per, cfg, seed, separate))
        for n in cfg.exp2_flows
        for v in ("tahoe", "vegas")
        for seed in _seeds(cfg)
    ]
    runs = ctx.run(jobs, lambda job, res: _measure_system(job, res, cfg), label)
    return runs, exp2_points(runs, cfg)


def exp2_points(runs: pd.DataFrame, cfg: Config) -> pd.DataFrame:
    """Experiment 2 per (n, variant): means over seeds, CIs and bars, and Tahoe's energy gain."""
    points = aggregate(runs, ["flows", "variant"], ["fairness", "goodput_bps", "eee_system", "energy_j", "run_time_s"],
                       domains(cfg))
    # Energy gain of Tahoe per seed (same seed = same error pattern and start times), then averaged.
    pivot = runs.pivot_table(index=["flows", "seed"], columns="variant", values="energy_j").reset_index()
    pivot["energy_gain_pct"] = (pivot["vegas"] - pivot["tahoe"]) / pivot["tahoe"] * 100.0
    gain = aggregate(pivot, ["flows"], ["energy_gain_pct"], domains(cfg))
    points = points.merge(gain[["flows", "energy_gain_pct", "energy_gain_pct_ci", "energy_gain_pct_lo",
                                "energy_gain_pct_hi"]], on="flows")
    return points
