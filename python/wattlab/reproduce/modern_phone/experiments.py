"""Running the study: one job per (workload, PHY, scheme, seed) where the scheme applies, one
row of energy, delay and work per run; then each run compared with CAM's and with the phone's
default (adaptive PSM at ``cfg.default_timeout_ms``) of the same workload, PHY and seed by the
core's equal-work rules (``wattlab_sim::savings::compare_runs``), and the means per point."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from wattlab import work

from .. import runner
from ..framework import Context
from . import workloads
from .config import Config
from .scenario import BASE, overrides
from .schemes import Scheme, not_applicable, schemes

KEY = ["workload", "phy", "scheme"]
"""A point of the study."""
MEANS = ["energy_j", "j_per_mb", "energy_per_hour_j", "mean_power_mw", "sleep_fraction", "delay_p50_ms",
         "delay_p99_ms", "added_p50_ms", "added_p99_ms", "completion_s"]
"""Columns averaged over seeds (with 95 % CIs)."""


def default_key(cfg: Config) -> str:
    """The phone's default scheme's key (adaptive PSM at the configuration's default timeout)."""
    return f"adaptive-psm:timeout={cfg.default_timeout_ms}ms"


def plan(cfg: Config) -> tuple[list[runner.Job], pd.DataFrame]:
    """Every job, and the applicability table: one row per (workload, PHY, scheme) with
    ``runs`` (bool) and ``why_not``."""
    jobs, rows = [], []
    for w in cfg.workloads:
        for phy in cfg.phys:
            for s in schemes(cfg):
                why = not_applicable(s, w, phy)
                rows.append({"workload": w, "phy": phy, "scheme": s.key, "family": s.family, "runs": not why, "why_not": why})
                if why:
                    continue
                for seed in cfg.seed_list():
                    jobs.append(BASE.job(seed, {"workload": w, "phy": phy, "scheme": s.key, "family": s.family},
                                         overrides(w, phy, s, cfg)))
    return jobs, pd.DataFrame(rows)


def _work_summary(summary: dict) -> dict:
    """What the core's run comparison reads of a summary (flows, radios, completion, tunnels)."""
    keep = ("flows", "radios", "completed", "end_time_s", "tunnels")
    return {k: summary[k] for k in keep if k in summary}


def _radio(radios: pd.DataFrame) -> pd.Series:
    """The phone's radio row that says what it spent: its power mode's meter, or always-on's
    (CAM, WWP), as the core's run comparison picks it."""
    rows = radios[radios.node == workloads.PHONE]
    mode = rows[rows.basis == "mode"]
    return (mode if len(mode) else rows[rows.policy == "always-on"]).iloc[0]


def measure_into(store: dict[tuple, dict]):
    """A ``measure`` for :meth:`Context.run` that also keeps each run's work summary in
    ``store`` (by workload, PHY, scheme, seed) for the comparisons."""

    def measure(job: runner.Job, res) -> dict[str, Any]:
        s = res.summary
        lab = job.labels
        store[(lab["workload"], lab["phy"], lab["scheme"], job.seed)] = _work_summary(s)
        r = _radio(res.radios)
        end = float(s["end_time_s"])
        delivered = work.delivered_bytes(s, workloads.PHONE)
        e = float(r["energy_j"])
        jmb = work.joules_per_mb(e, delivered)
        row = {
            "completed": bool(s["completed"]),
            "end_s": end,
            "delivered_bytes": delivered,
            "energy_j": e,
            "meter": r["policy"],
            "j_per_mb": math.nan if jmb is None else jmb,
            "mean_power_mw": e / end * 1e3 if end > 0 else math.nan,
            "energy_per_hour_j": e / end * 3600 if end > 0 else math.nan,
            "sleep_fraction": (r["time_sleep_s"] + r["time_off_s"]) / r["duration_s"] if r["duration_s"] else math.nan,
            "transitions": int(r["transitions"]),
            **workloads.delays(lab["workload"], res),
        }
        return row

    return measure


def compare(runs: pd.DataFrame, store: dict[tuple, dict], cfg: Config) -> pd.DataFrame:
    """Each run against CAM's and the phone default's run of the same workload, PHY and seed:
    ``same_work_*`` and ``saving_*`` (None unless the same work was done), ``lost_*`` in words,
    and the delay each adds to CAM's (``added_p50_ms``, ``added_p99_ms``)."""
    out = runs.copy()
    default = default_key(cfg)
    cam = runs[runs.scheme == "cam"].set_index(["workload", "phy", "seed"])
    cols: dict[str, list] = {c: [] for c in ("same_work_vs_cam", "saving_vs_cam", "lost_vs_cam",
                                             "same_work_vs_default", "saving_vs_default", "added_p50_ms", "added_p99_ms")}
    for _, r in runs.iterrows():
        run = store[(r.workload, r.phy, r.scheme, r.seed)]
        for ref, tag in (("cam", "cam"), (default, "default")):
            base = store.get((r.workload, r.phy, ref, r.seed))
            if base is None:
                if tag == "cam":
                    cols["lost_vs_cam"].append("")
                cols[f"same_work_vs_{tag}"].append(None)
                cols[f"saving_vs_{tag}"].append(math.nan)
                continue
            c = work.compare_runs(run, base)
            saving = next((n[3] for n in c["nodes"] if n[0] == workloads.PHONE), None)
            cols[f"same_work_vs_{tag}"].append(bool(c["diff"]["same_work"]))
            cols[f"saving_vs_{tag}"].append(math.nan if saving is None else float(saving))
            if tag == "cam":  # what differs, in words; "" when the work was the same
                cols["lost_vs_cam"].append("" if c["diff"]["same_work"] else work.describe_loss(c["diff"]))
        k = (r.workload, r.phy, r.seed)
        for q in ("p50", "p99"):
            ref = cam[f"delay_{q}_ms"].get(k, math.nan) if k in cam.index else math.nan
            cols[f"added_{q}_ms"].append(r[f"delay_{q}_ms"] - ref)
    for c, v in cols.items():
        out[c] = v
    return out


def run_all(cfg: Config, ctx: Context) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Every run compared (one row each) and the applicability table."""
    jobs, applicable = plan(cfg)
    store: dict[tuple, dict] = {}
    runs = ctx.run(jobs, measure_into(store), f"modern phone ({len(jobs)} runs)")
    return compare(runs, store, cfg), applicable


def points(runs: pd.DataFrame) -> pd.DataFrame:
    """Per (workload, PHY, scheme): the means over seeds with their 95 % CIs, and the savings
    where every seed did CAM's (the default's) work, else NaN with ``equal_work_*`` saying so."""
    p = runner.aggregate(runs, KEY + ["family"], MEANS)
    eq = runs.groupby(KEY, sort=False).agg(
        equal_work_vs_cam=("same_work_vs_cam", lambda v: all(x is True for x in v)),
        equal_work_vs_default=("same_work_vs_default", lambda v: (all(x is True for x in v) if all(x is not None for x in v)
                                                                  else None)),
        saving_vs_cam=("saving_vs_cam", "mean"), saving_vs_default=("saving_vs_default", "mean"),
        lost_vs_cam=("lost_vs_cam", lambda v: "; ".join(sorted({x for x in v if x}))),
        completed=("completed", "all")).reset_index()
    p = p.merge(eq, on=KEY, how="left")
    p.loc[~p.equal_work_vs_cam.astype(bool), "saving_vs_cam"] = math.nan
    p.loc[p.equal_work_vs_default.ne(True), "saving_vs_default"] = math.nan
    return p


def summary_table(p: pd.DataFrame) -> pd.DataFrame:
    """The study's summary: per workload, PHY and scheme the energy it is judged by, the delay
    p50/p99 and what it adds to CAM's, and the savings at equal work (percent)."""
    rows = []
    for _, r in p.iterrows():
        metric = workloads.ENERGY_METRIC[r.workload]
        rows.append({
            "workload": r.workload, "phy": r.phy, "scheme": r.scheme,
            "energy_metric": metric, "energy": r[metric],
            "j_per_mb": r.j_per_mb, "energy_per_hour_kj": r.energy_per_hour_j / 1e3, "sleep_fraction": r.sleep_fraction,
            "delay_p50_ms": r.delay_p50_ms, "delay_p99_ms": r.delay_p99_ms,
            "added_p50_ms": r.added_p50_ms, "added_p99_ms": r.added_p99_ms, "completion_s": r.completion_s,
            "saving_vs_cam_pct": 100 * r.saving_vs_cam, "saving_vs_default_pct": 100 * r.saving_vs_default,
            "equal_work": bool(r.equal_work_vs_cam), "lost_vs_cam": r.lost_vs_cam, "runs": int(r.runs),
        })
    return pd.DataFrame(rows)


def pareto(df: pd.DataFrame, x: str, y: str) -> pd.Series:
    """True for the rows no other row beats on both ``x`` and ``y`` (lower is better; a tie on
    one and a win on the other beats). Rows with a NaN are never on the front."""
    ok = df[x].notna() & df[y].notna()
    front = pd.Series(False, index=df.index)
    for i in df.index[ok]:
        xi, yi = df.at[i, x], df.at[i, y]
        others = df[ok & (df.index != i)]
        beaten = ((others[x] <= xi) & (others[y] <= yi) & ((others[x] < xi) | (others[y] < yi))).any()
        front[i] = not beaten
    return front
