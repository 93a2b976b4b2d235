"""Running Table 1: every (set, protocol, phase offset, seed), one row of paper 004's byte
counts and both ends' radio energy per run, then the per-(set, protocol) means beside the
paper's numbers and the WWP/TCP ratios."""

from __future__ import annotations

import pandas as pd

from .. import runner
from ..framework import Context
from . import paper
from .config import Config
from .scenario import BASE, overrides

COUNTS = ("original_data_bytes", "receiver_overhead_bytes", "sender_bytes", "total_bytes")
"""Paper 004's byte columns, as the flows table names them."""
POLICIES = ("always-on", "oracle")
"""Accounting policies of both ends' radios: the radio on throughout, and an idealised power
save that sleeps whenever it neither sends nor receives (free transitions)."""


def jobs(cfg: Config) -> list[runner.Job]:
    """Every run of the reproduction."""
    out = []
    for n in cfg.sets:
        s = paper.SETS[n - 1]
        offsets = cfg.phase_offsets if s.phase_s is not None else [0.0]
        for protocol in ("tcp", "wwp"):
            for off in offsets:
                for k in range(cfg.seeds):
                    out.append(BASE.job(cfg.base_seed + k, {"set": n, "protocol": protocol, "phase_offset": off},
                                        overrides(s, protocol, off, cfg)))
    return out


def measure(_job: runner.Job, res) -> dict:
    """One run's row: the flow's byte counts and both ends' energy per policy."""
    f = res.summary["flows"][0]
    row = {c: f[c] for c in COUNTS}
    row["effort_overhead"] = f["effort_overhead"]
    row["retransmitted_bytes"] = f.get("retransmitted_bytes", 0)
    for k in ("waves_l1", "waves_l2", "waves_l3", "probe_cycles", "nacked_segments", "rec_t_expiries"):
        row[k] = f.get(k)
    for policy in POLICIES:
        e = sum(r["energy_j"] for r in res.summary["radios"] if r["policy"] == policy and r["node"] in ("a", "b"))
        row[f"energy_{policy}_j"] = e
        mb = f["original_data_bytes"] / 1e6
        row[f"j_per_mb_{policy}"] = e / mb if mb > 0 else float("nan")
    return row


def run_all(cfg: Config, ctx: Context) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Every run (one row each) and the per-(set, protocol) means with their intervals."""
    runs = ctx.run(jobs(cfg), measure, "Table 1 (7 sets × TCP, WWP)")
    cols = list(COUNTS) + ["effort_overhead"] + [f"j_per_mb_{p}" for p in POLICIES]
    points = runner.aggregate(runs, ["set", "protocol"], cols)
    return runs, points


def table(points: pd.DataFrame) -> pd.DataFrame:
    """Table 1 side by side: per set and protocol, the paper's and wattlab's columns."""
    rows = []
    for _, p in points.iterrows():
        r = paper.row(int(p["set"]), p["protocol"])
        rows.append({
            "test": r.test, "set": int(p["set"]), "protocol": p["protocol"], "conditions": r.set.label,
            "paper_original_data": r.original_data, "original_data": p["original_data_bytes"],
            "paper_receiver_overhead": r.receiver_overhead, "receiver_overhead": p["receiver_overhead_bytes"],
            "paper_sender_bytes": r.sender_bytes, "sender_bytes": p["sender_bytes"],
            "paper_total": r.total, "total": p["total_bytes"],
            "paper_effort_overhead": r.effort_overhead_recomputed, "effort_overhead": p["effort_overhead"],
            "j_per_mb_always_on": p["j_per_mb_always-on"], "j_per_mb_oracle": p["j_per_mb_oracle"],
            "runs": int(p["runs"]),
        })
    return pd.DataFrame(rows).sort_values(["set", "protocol"]).reset_index(drop=True)


def ratios(points: pd.DataFrame) -> pd.DataFrame:
    """Per set: WWP/TCP ratios of the means (original data, sender bytes, receiver overhead,
    J/MB) and TCP/WWP of effort overhead, beside the paper's."""
    rows = []
    for n, g in points.groupby("set"):
        if set(g.protocol) != {"tcp", "wwp"}:
            continue
        t, w = g[g.protocol == "tcp"].iloc[0], g[g.protocol == "wwp"].iloc[0]
        pr = paper.ratios(int(n))
        div = lambda a, b: a / b if b else float("nan")  # noqa: E731
        rows.append({
            "set": int(n), "conditions": paper.SETS[int(n) - 1].label,
            "original_data": div(w.original_data_bytes, t.original_data_bytes), "paper_original_data": pr["original_data"],
            "sender_bytes": div(w.sender_bytes, t.sender_bytes), "paper_sender_bytes": pr["sender_bytes"],
            "receiver_overhead": div(w.receiver_overhead_bytes, t.receiver_overhead_bytes), "paper_receiver_overhead": pr["receiver_overhead"],
            "effort_overhead_tcp_over_wwp": div(t.effort_overhead, w.effort_overhead),
            "paper_effort_overhead_tcp_over_wwp": pr["effort_overhead_tcp_over_wwp"],
            "tcp_effort_overhead": t.effort_overhead, "wwp_effort_overhead": w.effort_overhead,
            "j_per_mb_always_on": div(w["j_per_mb_always-on"], t["j_per_mb_always-on"]),
            "j_per_mb_oracle": div(w["j_per_mb_oracle"], t["j_per_mb_oracle"]),
        })
    return pd.DataFrame(rows)
