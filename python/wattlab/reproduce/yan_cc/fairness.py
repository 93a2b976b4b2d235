"""Seed 000's fairness and friendliness study (Figs. 6–8, done with ns-2 in the seed): n
clients downloading the same file through one shared bottleneck into the AP, each on its own
wireless hop, with the client-centered agent (cc), plain TCP (tcp) or ideal PSM (psm).

- Fig. 6: n CC flows alone vs n TCP flows alone: per-flow throughput normalized to the mean
  of its run (and Jain's index);
- Fig. 7: CC with TCP, CC with PSM, TCP with PSM (k flows of each): download times by group;
- Fig. 8: queue fill of the bottleneck for the same mixes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from wattlab import api
from wattlab.metrics import jain_index
from wattlab.reproduce.runner import Job, run_jobs

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


def fairness_scenario(setup: FairnessSetup, groups: list[tuple[str, int]]) -> str:
    """TOML for ``groups`` = [(group, count), ...] of clients starting together."""
    one_way = setup.rtt_ms / 2
    lines = [
        f'name = "yan-cc fairness {" + ".join(f"{n} {g}" for g, n in groups)}"',
        "[simulation]", 'duration = "600s"',
        "[output]", "timeseries = true", 'sample_interval = "10ms"',
        "[[node]]", 'name = "server"', 'kind = "host"',
        "[[node]]", 'name = "router"', 'kind = "router"',
        "[[node]]", 'name = "ap"', 'kind = "ap"',
    ]
    clients = []
    for g, n in groups:
        for i in range(n):
            name = f"{g}{i}"
            clients.append((name, g))
            lines += ["[[node]]", f'name = "{name}"', 'kind = "host"',
                      'radio = { profile = "wavelan-dsss", policies = ["always-on"] }']
    lines += [
        "[[link]]", 'a = "server"', 'b = "router"', 'rate = "100Mbps"', f'delay = "{one_way / 2}ms"',
        "queue = { packets = 1000 }",
        "[[link]]", f'name = "{BOTTLENECK}"', 'a = "router"', 'b = "ap"', f'rate = "{setup.bottleneck_rate}"',
        f'delay = "{one_way / 2}ms"', f"queue = {{ packets = {setup.bottleneck_queue} }}",
    ]
    for name, g in clients:
        lines += ["[[wireless]]", f'name = "hop-{name}"', 'ap = "ap"', f'station = "{name}"',
                  f'rate = "{setup.hop_rate}"', f'power_save = "{MODES[g]}"']
    for name, g in clients:
        lines += ["[[flow]]", 'kind = "bulk-download"', f'name = "{name}"', f'client = "{name}"',
                  'server = "server"', f'bytes = "{setup.file}"', 'tcp = { cc = "reno" }']
    return "\n".join(lines) + "\n"


def _measure(job: Job, res: api.RunResult) -> dict:
    flows = res.flows
    q = res.queue_series
    q = q[q.link == f"{BOTTLENECK}:router->ap"] if q is not None else None
    row = {
        "completed": bool(res.summary["completed"]),
        "jain": jain_index(flows.goodput_bps),
        "queue_mean_pkts": float(q.packets.mean()) if q is not None and len(q) else np.nan,
        "queue_p95_pkts": float(q.packets.quantile(0.95)) if q is not None and len(q) else np.nan,
        "flows": flows[["name", "goodput_bps", "completion_time_s"]].to_dict("records"),
    }
    return row


def run_fairness(setup: FairnessSetup, mixes: list[list[tuple[str, int]]], seeds: list[int], workers: int,
                 console=None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Run every mix; returns (runs: one row per mix and seed, flows: one row per flow with
    its goodput normalized to the mean of its run)."""
    jobs = [Job(fairness_scenario(setup, mix), s, {"mix": "+".join(f"{n}{g}" for g, n in mix)})
            for mix in mixes for s in seeds]
    runs = run_jobs(jobs, _measure, "fairness", workers, console)
    rows = []
    for _, r in runs.iterrows():
        mean = np.mean([f["goodput_bps"] for f in r.flows])
        for f in r.flows:
            rows.append({"mix": r["mix"], "seed": r.seed, "flow": f["name"], "group": f["name"].rstrip("0123456789"),
                         "goodput_bps": f["goodput_bps"], "normalized": f["goodput_bps"] / mean,
                         "completion_time_s": f["completion_time_s"]})
    return runs.drop(columns=["flows"]), pd.DataFrame(rows)


def fig6_mixes(max_flows: int) -> list[list[tuple[str, int]]]:
    """n CC flows alone and n TCP flows alone, n = 1..max_flows."""
    return [[(g, n)] for g in ("cc", "tcp") for n in range(1, max_flows + 1)]


def fig7_mixes(sizes: tuple[int, ...] = (1, 2, 4)) -> list[list[tuple[str, int]]]:
    """k of each of two groups: CC + TCP, CC + PSM, TCP + PSM (2k flows in all)."""
    return [[(a, k), (b, k)] for (a, b) in (("cc", "tcp"), ("cc", "psm"), ("tcp", "psm")) for k in sizes]
