"""Seed 000's web-browsing experiment (Figs. 9–11): the client-centered agent with and without
its RTT cache against baseline TCP, ideal PSM, BSD and the oracle, over a browsing session of
pages with embedded objects fetched on persistent connections, with Pareto think times.

Energy is split by the number of concurrent connections (Fig. 10) by laying each policy's
radio timeline over the client's connection-concurrency timeline (from the objects table).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from wattlab import api
from wattlab.reproduce.runner import Job, run_jobs

# Policies of the experiment: (name in tables, power_save mode, agent settings).
WEB_POLICIES: dict[str, tuple[str, str | None]] = {
    "tcp": ("cam", None),
    "cc": ("cc", None),
    "cc-nocache": ("cc", "{ rtt_cache = false }"),
    "ideal-psm": ("ideal-psm", None),
    "bsd-10": ("bsd-10", None),
    "bsd-20": ("bsd-20", None),
    "bsd-50": ("bsd-50", None),
    "bsd-100": ("bsd-100", None),
}

# Sleep → idle transition of the WaveLAN profile: 2 ms of idle time (seed 000, after BSD).
WAKE_MS = 2.0

# Meter that holds a policy's real energy: the mode meter, or always-on for baseline TCP.
def _meter(policy: str) -> str:
    mode = WEB_POLICIES[policy][0]
    return "always-on" if mode == "cam" else mode


@dataclass(frozen=True)
class WebSetup:
    """The browsing session: sites (one-way delays behind the AP), pages, think times."""

    site_delays_ms: tuple[float, ...] = (10.0, 30.0, 60.0)
    hop_rate: str = "20Mbps"
    pages: int = 100
    think_shape: float = 1.5
    think_scale_s: float = 1.0
    max_connections: int = 4
    duration_s: float = 36_000.0


def web_scenario(setup: WebSetup, policy: str) -> str:
    """TOML of the browsing session under ``policy`` (a key of ``WEB_POLICIES``)."""
    mode, agent = WEB_POLICIES[policy]
    lines = [
        f'name = "yan-cc web {policy}"',
        "[simulation]",
        f'duration = "{setup.duration_s}s"',
        "[output]",
        "timeseries = true",
        'sample_interval = "10s"',  # only the radio timeline is used; sparse flow samples
    ]
    sites = [f"site{i}" for i in range(len(setup.site_delays_ms))]
    for s in sites:
        lines += ["[[node]]", f'name = "{s}"', 'kind = "host"']
    lines += [
        "[[node]]", 'name = "ap"', 'kind = "ap"',
        "[[node]]", 'name = "client"', 'kind = "host"',
        'radio = { profile = "wavelan-dsss", policies = ["always-on", "oracle"] }',
    ]
    for s, d in zip(sites, setup.site_delays_ms):
        lines += ["[[link]]", f'a = "{s}"', 'b = "ap"', 'rate = "100Mbps"', f'delay = "{d}ms"']
    lines += [
        "[[wireless]]", 'name = "wlan"', 'ap = "ap"', 'station = "client"', f'rate = "{setup.hop_rate}"',
        f'power_save = "{mode}"',
    ]
    if agent:
        lines.append(f"agent = {agent}")
    lines += [
        "[[flow]]", 'kind = "web"', 'name = "web"', 'client = "client"',
        "servers = [" + ", ".join(f'"{s}"' for s in sites) + "]",
        f"pages = {setup.pages}",
        f'think = {{ shape = {setup.think_shape}, scale = "{setup.think_scale_s}s" }}',
        f"max_connections = {setup.max_connections}",
        'tcp = { cc = "reno" }',
    ]
    return "\n".join(lines) + "\n"


def concurrency_timeline(objects: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Change points and the number of requests outstanding from each one on (one request per
    connection, so this is the number of busy connections)."""
    starts = objects.request_s.to_numpy(dtype=float)
    ends = objects.done_s.to_numpy(dtype=float)
    t = np.concatenate([starts, ends])
    step = np.concatenate([np.ones_like(starts), -np.ones_like(ends)])
    order = np.lexsort((step, t))  # at a tie, ends (−1) before starts
    t, step = t[order], step[order]
    return t, np.cumsum(step)


def energy_by_concurrency(
    radio: pd.DataFrame, objects: pd.DataFrame, power_mw: dict[str, float], end_s: float, wake_ms: float
) -> pd.DataFrame:
    """Energy and time of one radio timeline split by the number of busy connections (0 =
    think time). ``radio`` holds (time_s, state) rows of one meter; a wake-up from sleep adds
    ``wake_ms`` of idle power minus sleep power, as the meter carves it from the sleep."""
    ct, ck = concurrency_timeline(objects)
    rt = radio.time_s.to_numpy(dtype=float)
    rs = radio.state.to_numpy()
    # Merge the two step functions on a common grid.
    grid = np.unique(np.concatenate([[0.0], rt, ct, [end_s]]))
    grid = grid[grid <= end_s]
    k_at = ck[np.searchsorted(ct, grid, side="right") - 1] if len(ct) else np.zeros_like(grid)
    k_at = np.where(np.searchsorted(ct, grid, side="right") == 0, 0, k_at)
    s_idx = np.searchsorted(rt, grid, side="right") - 1
    state_at = np.where(s_idx >= 0, rs[np.clip(s_idx, 0, None)], "idle")
    dt = np.diff(grid)
    p = np.array([power_mw[s] for s in state_at[:-1]]) / 1e3
    rows = pd.DataFrame({"k": k_at[:-1].astype(int), "time_s": dt, "energy_j": p * dt})
    # Wake-ups: every sleep → awake change costs wake_ms of (idle − sleep) power.
    woke = (rs[:-1] == "sleep") & (rs[1:] != "sleep")
    if woke.any():
        wt = rt[1:][woke]
        wk = ck[np.searchsorted(ct, wt, side="right") - 1] if len(ct) else np.zeros_like(wt)
        wk = np.where(np.searchsorted(ct, wt, side="right") == 0, 0, wk)
        extra = (power_mw["idle"] - power_mw["sleep"]) / 1e3 * wake_ms / 1e3
        rows = pd.concat([rows, pd.DataFrame({"k": wk.astype(int), "time_s": 0.0, "energy_j": extra})])
    return rows.groupby("k", as_index=False)[["time_s", "energy_j"]].sum()


def _measure(job: Job, res: api.RunResult) -> dict:
    policy = job.labels["policy"]
    pages = res.pages
    row = {
        "completed": bool(res.summary["completed"]),
        "session_s": float(res.flows.completion_time_s.iloc[0]),
        "download_s": float((pages.end_s - pages.start_s).sum()),
        "energy_j": res.energy(_meter(policy)),
        "oracle_j": res.energy("oracle"),
        "objects": len(res.objects),
        "bytes": int(pages.bytes.sum()),
    }
    if len(res.agents):
        a = res.agents.iloc[0]
        row.update({f"agent_{k}": int(a[k]) for k in ("sleeps", "dropped_asleep", "reverted", "connections")})
    # Split of energy by concurrent connections (for Fig. 10).
    prof = job.labels["profile"]
    radio = res.radio_series[res.radio_series.policy == _meter(policy)]
    wake_ms = 0.0 if policy == "ideal-psm" else WAKE_MS  # ideal PSM wakes for free (seed 000)
    split = energy_by_concurrency(radio, res.objects, prof, float(res.summary["end_time_s"]), wake_ms)
    # What the reconstruction from the timeline misses (transitions the meter carves
    # differently), so a reader can see how far to trust the split.
    row["split_residual_j"] = float(row["energy_j"] - split.energy_j.sum())
    for _, r in split.iterrows():
        row[f"energy_k{int(r.k)}_j"] = float(r.energy_j)
        row[f"time_k{int(r.k)}_s"] = float(r.time_s)
    return row


def run_web(setup: WebSetup, seeds: list[int], policies: list[str], workers: int, console=None) -> pd.DataFrame:
    """One row per (policy, seed): session and download time, energy, oracle, split by k."""
    prof = wattlab_profile("wavelan-dsss")
    jobs = [
        Job(web_scenario(setup, p), seed, {"policy": p, "profile": prof})
        for seed in seeds
        for p in policies
    ]
    df = run_jobs(jobs, _measure, "web browsing", workers, console)
    return df.drop(columns=["profile"])


def wattlab_profile(name: str) -> dict[str, float]:
    """Power per radio state (mW) of a built-in profile."""
    from wattlab import profiles

    p = profiles().set_index("name").loc[name]
    return {"tx": p.tx_mw, "rx": p.rx_mw, "idle": p.idle_mw, "sleep": p.sleep_mw, "off": p.off_mw}


def normalize_web(df: pd.DataFrame) -> pd.DataFrame:
    """Per seed, every policy's energy and download time over baseline TCP's, plus the
    oracle (the always-on run's oracle meter); medians over seeds."""
    base = df[df.policy == "tcp"].set_index("seed")
    out = df.copy()
    out["energy_norm"] = out.energy_j / out.seed.map(base.energy_j)
    out["time_norm"] = out.download_s / out.seed.map(base.download_s)
    oracle = base.reset_index()[["seed", "oracle_j", "download_s"]].assign(policy="oracle", energy_j=base.oracle_j.values)
    oracle["energy_norm"] = oracle.energy_j / oracle.seed.map(base.energy_j)
    oracle["time_norm"] = 1.0
    out = pd.concat([out, oracle], ignore_index=True)
    return out.groupby("policy", sort=False)[["energy_norm", "time_norm"]].median().reset_index()


def rtt_cache_by_concurrency(df: pd.DataFrame) -> pd.DataFrame:
    """Fig. 10: energy of CC with the RTT cache relative to without it, per number of busy
    connections k (k = 0 is think time), medians over seeds."""
    cols = sorted({c for c in df.columns if c.startswith("energy_k")}, key=lambda c: int(c[8:-2]))
    rows = []
    for c in cols:
        k = int(c[8:-2])
        with_c = df[df.policy == "cc"].set_index("seed")[c]
        without = df[df.policy == "cc-nocache"].set_index("seed")[c]
        ratio = (with_c / without).replace([np.inf, -np.inf], np.nan).dropna()
        if len(ratio):
            rows.append({"k": k, "cache_saving": float(1 - ratio.median()), "seeds": len(ratio)})
    return pd.DataFrame(rows)
