"""What one simulated download yields: the measured client's time and energy under its policy,
its baseline numbers from the same run, and the agent's and the hop's counters.

The paper costs energy from a tcpdump trace of the download, so the client's energy counts
only until its own download completed. With one client the run ends then; with competing
clients (Fig. 17) it may go on, so the client's energy is the simulator's energy of the flow
up to its completion (``RunResult.flow_energy``, exact; docs/design.md, "Energy of a flow").
"""

from __future__ import annotations

import math

from wattlab import api

from ..runner import Job
from .config import policy_settings

CLIENT = "client"
"""The measured (energy-aware) client; competitors are tcp1 … tcpN."""
FLOW = "ftp"
"""Its download."""

AGENT_COUNTERS = (
    "bursts", "probes", "probe_responses", "probes_lost", "late_packets", "recoveries", "reverted",
    "switched_to_dynamic", "open_acks", "open_acks_resent", "closed_acks", "sleeps", "dropped_asleep",
)
"""The agent's counters kept per run (summary.json ``agents``)."""

def _agent(summary: dict) -> dict | None:
    for a in summary.get("agents", []):
        if a["node"] == CLIENT:
            return a
    return None


def _hop(summary: dict) -> dict | None:
    for h in summary.get("wireless", []):
        if h["station"] == CLIENT:
            return h
    return None


def measure(job: Job, res: api.RunResult, profile: str) -> dict:
    """One row of numbers for a download run (the job's labels are added by the runner)."""
    meter = policy_settings(job.labels["policy"])[2]
    flows = res.flows.set_index("name")
    f = flows.loc[FLOW]
    done = bool(f.completed)
    t_done = float(f.completion_time_s) if done else math.nan
    radios = res.radios[res.radios.node == CLIENT].set_index("policy")
    energy = float(radios.loc[meter, "energy_j"])
    row = {
        "completed": done,
        "time_s": t_done,
        "energy_j": energy,
        "always_on_j": float(radios.loc["always-on", "energy_j"]),
        "oracle_j": float(radios.loc["oracle", "energy_j"]),
        "sleep_s": float(radios.loc[meter, "time_sleep_s"]),
        "retransmits": int(f.retransmitted_segments),
        "timeouts": int(f.timeouts),
        "srtt_ms": float(f.final_srtt_ms),
    }
    others = [flows.loc[n] for n in flows.index if n != FLOW]
    if others:
        row["competitor_time_s"] = float(sum(o.completion_time_s for o in others) / len(others))
    end = float(res.summary["end_time_s"])
    if done and t_done < end - 1e-9:
        # The run outlived the client's download: its radio's energy up to the completion.
        fe = res.flow_energy
        fe = fe[(fe.flow == FLOW) & (fe.node == CLIENT)].set_index("policy")
        for pol, col in ((meter, "energy_j"), ("always-on", "always_on_j"), ("oracle", "oracle_j")):
            row[col] = float(fe.loc[pol, "to_completion_j"])
    a = _agent(res.summary)
    for k in AGENT_COUNTERS:
        row[k] = a[k] if a else 0
    h = _hop(res.summary)
    row["dozes"] = h["dozes"] if h else 0
    row["packets_held"] = h["packets_held"] if h else 0
    row["bytes_per_burst"] = job.labels.get("file_bytes", 0) / a["bursts"] if a and a["bursts"] else math.nan
    return row
