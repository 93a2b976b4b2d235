"""What one simulated download yields: the measured client's time and energy under its policy,
its baseline numbers from the same run, and the agent's and the hop's counters.

The seed costs energy from a tcpdump trace of the download, so the client's energy counts
only until its own download completed. With one client the run ends then; with competing
clients (Fig. 17) it may go on, so the client's energy is integrated from its radio's state
changes up to its completion time, with the profile's powers and its 2 ms wake-up carved from
the end of each sleep (docs/energy semantics); the same integration over the whole run is
checked against the meter (``energy_check_j``: the difference, ≈ 0).
"""

from __future__ import annotations

import math
from functools import lru_cache

import pandas as pd

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

WAKE_S = 0.002
"""Sleep→idle cost of the wavelan-dsss profile: 2 ms at idle power (seed §IV-A). The
``ideal-psm`` meter wakes for free (the seed's optimal PSM emulation)."""


def wake_cost_s(meter: str) -> float:
    """Wake-up time charged at idle power by ``meter``."""
    return 0.0 if meter == "ideal-psm" else WAKE_S


@lru_cache(maxsize=None)
def _powers(profile: str) -> dict[str, float]:
    p = api.profiles()
    row = p[p.name == profile].iloc[0]
    return {s: float(row[f"{s}_mw"]) / 1000.0 for s in ("tx", "rx", "idle", "sleep", "off")}


def energy_until(series: pd.DataFrame, profile: str, t_cut: float, wake_s: float = WAKE_S) -> float:
    """Joules of one meter's state sequence (``time_s``, ``state``) from 0 to ``t_cut``.

    A dormant interval pays its wake-up (``wake_s`` at idle power) at its end when it ends in
    an awake state inside the window; going to sleep is free (the profile's idle→sleep leg is
    0). Accounting-policy meters (always-on, oracle) log state changes only up to the start of
    their latest activity, so the result is exact for ``t_cut`` up to the last logged change.
    """
    w = _powers(profile)
    times = list(series.time_s)
    states = list(series.state)
    energy = 0.0
    for i, (t0, s) in enumerate(zip(times, states)):
        if t0 >= t_cut:
            break
        t1 = min(times[i + 1] if i + 1 < len(times) else t_cut, t_cut)
        dur = t1 - t0
        if dur <= 0:
            continue
        woke = i + 1 < len(times) and times[i + 1] <= t_cut and states[i + 1] in ("idle", "rx", "tx")
        if s in ("sleep", "off") and woke:
            up = min(wake_s, dur)
            energy += (dur - up) * w[s] + up * w["idle"]
        else:
            energy += dur * w[s]
    return energy


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
        "energy_check_j": 0.0,
    }
    others = [flows.loc[n] for n in flows.index if n != FLOW]
    if others:
        row["competitor_time_s"] = float(sum(o.completion_time_s for o in others) / len(others))
    end = float(res.summary["end_time_s"])
    if done and t_done < end - 1e-9 and res.radio_series is not None:
        # The run outlived the client's download: cost only up to its completion.
        rs = res.radio_series
        for pol, col in ((meter, "energy_j"), ("always-on", "always_on_j"), ("oracle", "oracle_j")):
            s = rs[(rs.node == CLIENT) & (rs.policy == pol)]
            if pol == meter and radios.loc[meter, "basis"] == "mode":
                # A power-saving hop's meter logs every change: check the integration on the whole run.
                row["energy_check_j"] = energy_until(s, profile, end, wake_cost_s(pol)) - energy
            if s.time_s.iloc[-1] < t_done and pol in ("always-on", "oracle"):
                raise RuntimeError(f"the {pol} meter's log ends before the client's download does")
            row[col] = energy_until(s, profile, t_done, wake_cost_s(pol))
    a = _agent(res.summary)
    for k in AGENT_COUNTERS:
        row[k] = a[k] if a else 0
    h = _hop(res.summary)
    row["dozes"] = h["dozes"] if h else 0
    row["packets_held"] = h["packets_held"] if h else 0
    row["bytes_per_burst"] = job.labels.get("file_bytes", 0) / a["bursts"] if a and a["bursts"] else math.nan
    return row
