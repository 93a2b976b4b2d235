"""Paper 000's fairness and friendliness study (Figs. 6–8, done with ns-2 in the paper): n
clients downloading the same file through one shared bottleneck into the AP, each on its own
wireless hop, with the client-centered agent (cc), plain TCP (tcp) or ideal PSM (psm).

- Fig. 6: n CC flows alone vs n TCP flows alone: per-flow throughput normalized to the mean
  of its run (and Jain's index);
- Fig. 7: CC with TCP, CC with PSM, TCP with PSM (k flows of each): download times by group;
- Fig. 8: queue fill of the bottleneck for the same mixes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from wattlab import api
from wattlab.metrics import jain_index
from wattlab.scenario_units import Duration

from ..framework import Context
from ..runner import Job
from ..scenarios import base

FLOW_COUNTERS = ("timeouts", "retransmits", "dropped_asleep", "recoveries", "reverted", "bursts")
"""Per flow: TCP's timeouts and retransmitted segments; the agent's counters (CC clients only)."""

# Group name → the hop's power_save mode.
MODES = {"cc": "cc", "tcp": "cam", "psm": "ideal-psm"}
BOTTLENECK = "bottleneck"


@dataclass(frozen=True)
class FairnessSetup:
    """The dumbbell: server ─100 Mb/s─ router ─bottleneck─ AP ~ one 20 Mb/s hop per client."""

    bottleneck_rate: str = "20Mbps"
    bottleneck_queue: int = 100
    rtt_ms: float = 60.0
    hop_rate: str = "20Mbps"
    file: str = "2MB"
    start_spread_ms: float = 0.0
    """Each flow starts at a time drawn uniformly from [0, this) with the run's seed (0: all
    start together, and the run has no random element at all: every seed gives the same run)."""


def start_offsets_ms(setup: FairnessSetup, flows: int, seed: int | None) -> list[float]:
    """Start time of each flow (ms), drawn from ``seed`` when ``start_spread_ms`` > 0."""
    if setup.start_spread_ms <= 0 or seed is None:
        return [0.0] * flows
    rng = np.random.default_rng([seed, flows])
    return [float(x) for x in rng.uniform(0.0, setup.start_spread_ms, flows)]


BASE = base(__package__, "fairness.toml")
"""The dumbbell's base scenario."""


def fairness_overrides(setup: FairnessSetup, groups: list[tuple[str, int]], seed: int | None = None) -> list[tuple[str, Any]]:
    """``groups`` = [(group, count), ...] of clients starting together (or within
    ``start_spread_ms``, drawn from ``seed``, to the microsecond): each a node, a hop and a flow."""
    half = Duration.ms(setup.rtt_ms / 4)  # each of the two wired links: half the one-way delay
    clients = [(f"{g}{i}", g) for g, n in groups for i in range(n)]
    flows = []
    for (name, g), start in zip(clients, start_offsets_ms(setup, len(clients), seed)):
        flows.append({"kind": "bulk-download", "name": name, "client": name, "server": "server", "bytes": setup.file,
                      "tcp": {"cc": "reno"}, **({"start": Duration(round(start * 1000) * 1000)} if start > 0 else {})})
    return [("name", f"yan-cc fairness {' + '.join(f'{n} {g}' for g, n in groups)}"),
            BASE.extended("node", [{"name": name, "kind": "host",
                                    "radio": {"profile": "wavelan-dsss", "policies": ["always-on"]}} for name, _ in clients]),
            ("link.0.delay", half), ("link.bottleneck.rate", setup.bottleneck_rate), ("link.bottleneck.delay", half),
            ("link.bottleneck.queue.packets", setup.bottleneck_queue),
            ("wireless", [{"name": f"hop-{name}", "ap": "ap", "station": name, "rate": setup.hop_rate,
                           "power_save": MODES[g]} for name, g in clients]),
            ("flow", flows)]


def _measure(job: Job, res: api.RunResult) -> dict:
    flows = res.flows
    q = res.queue_series
    q = q[q.link == f"{BOTTLENECK}:router->ap"] if q is not None else None
    row = {
        "completed": bool(res.summary["completed"]),
        "jain": jain_index(flows.goodput_bps),
        "queue_mean_pkts": float(q.packets.mean()) if q is not None and len(q) else np.nan,
        "queue_p95_pkts": float(q.packets.quantile(0.95)) if q is not None and len(q) else np.nan,
        "flows": flows[["name", "goodput_bps", "completion_time_s", "timeouts", "retransmitted_segments"]]
        .to_dict("records"),
    }
    # The agent's counters of each CC client (its node has the flow's name).
    agents = res.agents.set_index("node") if len(res.agents) else None
    for f in row["flows"]:
        f["retransmits"] = f.pop("retransmitted_segments")
        a = agents.loc[f["name"]] if agents is not None and f["name"] in agents.index else None
        for k in ("dropped_asleep", "recoveries", "reverted", "bursts"):
            f[k] = int(a[k]) if a is not None else np.nan
    return row


def run_fairness(setup: FairnessSetup, mixes: list[list[tuple[str, int]]], seeds: list[int],
                 ctx: Context) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Run every mix; returns (runs: one row per mix and seed, flows: one row per flow with
    its goodput normalized to the mean of its run)."""
    jobs = [BASE.job(s, {"mix": "+".join(f"{n}{g}" for g, n in mix)}, fairness_overrides(setup, mix, s))
            for mix in mixes for s in seeds]
    runs = ctx.run(jobs, _measure, "fairness")
    rows = []
    for _, r in runs.iterrows():
        mean = np.mean([f["goodput_bps"] for f in r.flows])
        for f in r.flows:
            rows.append({"mix": r["mix"], "seed": r.seed, "flow": f["name"], "group": f["name"].rstrip("0123456789"),
                         "goodput_bps": f["goodput_bps"], "normalized": f["goodput_bps"] / mean,
                         "completion_time_s": f["completion_time_s"],
                         **{k: f[k] for k in FLOW_COUNTERS}})
    return runs.drop(columns=["flows"]), pd.DataFrame(rows)


def fig6_mixes(max_flows: int) -> list[list[tuple[str, int]]]:
    """n CC flows alone and n TCP flows alone, n = 1..max_flows."""
    return [[(g, n)] for g in ("cc", "tcp") for n in range(1, max_flows + 1)]


def fig7_mixes(sizes: tuple[int, ...] = (1, 2, 4)) -> list[list[tuple[str, int]]]:
    """k of each of two groups: CC + TCP, CC + PSM, TCP + PSM (2k flows in all)."""
    return [[(a, k), (b, k)] for (a, b) in (("cc", "tcp"), ("cc", "psm"), ("tcp", "psm")) for k in sizes]


# --- what `wattlab reproduce yan-cc` writes -------------------------------------------------------

GROUPS = ("cc", "tcp", "psm")
"""Group names, in the order of the tables."""


def setup_from(cfg) -> FairnessSetup:
    """The dumbbell of a reproduction ``Config``."""
    return FairnessSetup(bottleneck_rate=f"{cfg.fairness_bottleneck_mbps:g}Mbps",
                         bottleneck_queue=cfg.fairness_bottleneck_queue, rtt_ms=cfg.fairness_rtt_ms,
                         hop_rate=f"{cfg.hop_rate_mbps:g}Mbps", file=f"{cfg.fairness_file_bytes}B",
                         start_spread_ms=cfg.fairness_start_spread_ms)


def mixes_from(cfg) -> list[list[tuple[str, int]]]:
    """Fig. 6 (n = 1 … ``fairness_max_flows`` of CC alone and of TCP alone), then Figs. 7/8
    (every pair of groups with ``fairness_mix_sizes`` flows of each)."""
    return fig6_mixes(cfg.fairness_max_flows) + fig7_mixes(tuple(cfg.fairness_mix_sizes))


def parse_mix(mix: str) -> list[tuple[str, int]]:
    """'4cc+4tcp' → [('cc', 4), ('tcp', 4)]."""
    out = []
    for part in mix.split("+"):
        n = part.rstrip("abcdefghijklmnopqrstuvwxyz")
        out.append((part[len(n):], int(n)))
    return out


def label_runs(runs: pd.DataFrame, flows: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Add to both tables the figure a mix belongs to (``fig6``: one group alone; ``fig7``: two
    groups), ``pair`` ('cc', 'tcp', 'cc+tcp', ...), ``of_each`` (flows per group) and ``flows``
    (in all); the runs table also gets the run's spread (max − min) and standard deviation
    (``goodput_sd``: the coefficient of variation, the mean being 1) of the normalized goodput."""
    def info(mix: str) -> dict:
        parts = parse_mix(mix)
        return {"figure": "fig6" if len(parts) == 1 else "fig7", "pair": "+".join(g for g, _ in parts),
                "of_each": parts[0][1], "flows": sum(n for _, n in parts)}

    runs = runs.copy()
    flows = flows.copy()
    for frame in (runs, flows):
        meta = pd.DataFrame([info(m) for m in frame["mix"]], index=frame.index)
        for c in meta.columns:
            frame.insert(1 + list(meta.columns).index(c), c, meta[c])
    if len(flows):
        by = flows.groupby(["mix", "seed"]).normalized
        spread = by.agg(lambda v: float(v.max() - v.min()))
        cov = by.agg(lambda v: float(np.std(v)))
        runs["spread"] = [spread.get((m, s), np.nan) for m, s in zip(runs["mix"], runs["seed"])]
        runs["goodput_sd"] = [cov.get((m, s), np.nan) for m, s in zip(runs["mix"], runs["seed"])]
    else:
        runs["spread"] = runs["goodput_sd"] = np.nan
    return runs, flows


def fig6_points(runs: pd.DataFrame) -> pd.DataFrame:
    """Per group (cc, tcp) and n: medians over seeds of Jain's index, the spread and the standard deviation."""
    d = runs[runs.figure == "fig6"] if len(runs) else runs
    if d.empty:
        return pd.DataFrame(columns=["pair", "flows", "jain", "spread", "goodput_sd", "queue_mean_pkts", "queue_p95_pkts",
                                     "seeds"])
    return (d.groupby(["pair", "flows"], as_index=False)
            .agg(jain=("jain", "median"), spread=("spread", "median"), goodput_sd=("goodput_sd", "median"),
                 queue_mean_pkts=("queue_mean_pkts", "median"),
                 queue_p95_pkts=("queue_p95_pkts", "median"), seeds=("seed", "nunique")))


def fig7_points(flows: pd.DataFrame) -> pd.DataFrame:
    """Per mix and group: median download time and normalized goodput over every flow and seed,
    mean timeouts and retransmissions per flow."""
    d = flows[flows.figure == "fig7"] if len(flows) else flows
    if d.empty:
        return pd.DataFrame(columns=["pair", "of_each", "group", "completion_time_s", "normalized", "timeouts",
                                     "retransmits", "flows_seen"])
    return (d.groupby(["pair", "of_each", "group"], as_index=False, sort=False)
            .agg(completion_time_s=("completion_time_s", "median"), normalized=("normalized", "median"),
                 timeouts=("timeouts", "mean"), retransmits=("retransmits", "mean"), flows_seen=("flow", "size")))
