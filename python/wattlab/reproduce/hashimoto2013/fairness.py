"""Paper 002 Ch. 2's ns-2 fairness runs in the simulator (Sect. 2.5, Figs. 2.4, 2.5, 2.7 and, with
delayed ACK, the testbed's Fig. 2.12): n_up upstream and n_down downstream TCP flows, one per
client, 802.11a 54 Mb/s, AP with a 100-packet DropTail buffer, wired 100 Mb/s / 100 ms, starts
U[0, 10] s; Reno, ACK-loss-aware Reno (``cc = "ackloss"``) and Reno with the prioritised AP
(``ap_priority = "fukuda-oie"``).

Each run samples every flow's delivered bytes every ``sample_s`` (the simulator's flow time
series): throughput is the bytes delivered in [warmup, duration] over its length (the thesis:
50–200 s), and the per-interval bytes of that span give the SWM index (Eq. 2.12) over window
sizes w. The RTT is each flow's mean over the whole run (``mean_rtt_ms``).
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pandas as pd

from wattlab.metrics import SEED002_CAPACITY_BPS as C_BPS
from wattlab.metrics import fairness_utilization_index as fairness_index
from wattlab.metrics import jain_index, swm_curve

from wattlab.scenario_units import Duration, Size

from .. import runner
from ..framework import Context
from ..scenarios import base

SCHEMES = {"reno": ("reno", None), "ackloss": ("ackloss", None), "prioritised-ap": ("reno", "fukuda-oie")}
"""Scheme → (congestion control, ``ap_priority``)."""


def tcp_capacity_mbps(delayed_ack: bool) -> float:
    """The collision-free TCP maximum of one 802.11a 54 Mb/s hop for these flows (1448-byte
    payloads with timestamps, 1500/52-byte packets, an ACK per 1 or 2 segments): data and TCP-ACK
    exchanges alternate, every ACK carried (``wattlab.models.wlan.tcp_capacity``)."""
    from wattlab.models import wlan

    return wlan.tcp_capacity("802.11a", 54_000, 1448, 1500, 52, 2 if delayed_ack else 1)["tcp_bps"] / 1e6


BASE = base(__package__, "fairness.toml")
"""The dumbbell every fairness run shares."""


def overrides(scheme: str, seed: int, duration_s: float, n_up: int = 5, n_down: int = 5,
              delayed_ack: bool = False, sample_s: float = 1.0,
              positions: dict[str, list[float]] | None = None, start_spread_s: float = 10.0,
              delayed_ack_down: bool | None = None) -> list[tuple[str, Any]]:
    """One run's overrides: the clients and their flows, starts U[0, ``start_spread_s``] s (to the
    microsecond) drawn from ``seed`` (the same for every scheme); with ``positions`` (client → [x, y]
    m) the clients get them (the relocation case, ``relocation.py`` adds the propagation);
    ``delayed_ack_down`` (when not None) sets the downstream flows' delayed ACK apart from the
    upstream ones' (``delack_split.py``)."""
    cc, prio = SCHEMES[scheme]
    rng = random.Random(seed)
    ups = [f"u{i}" for i in range(n_up)]
    downs = [f"d{i}" for i in range(n_down)]
    tcp = {"cc": cc, "delayed_ack": delayed_ack, "recv_buffer": Size.mb(4), "window_scale": 7}
    tcp_down = tcp if delayed_ack_down is None else {**tcp, "delayed_ack": delayed_ack_down}
    flows = [{"name": f"up-{n}", "kind": "bulk-upload", "client": n, "server": "server", "bytes": Size.mb(100_000),
              "port": 5001 + i, "start": Duration.s(round(rng.uniform(0, start_spread_s), 6)), "tcp": tcp} for i, n in enumerate(ups)]
    flows += [{"name": f"down-{n}", "kind": "bulk-download", "client": n, "server": "server", "bytes": Size.mb(100_000),
               "port": 8001 + i, "start": Duration.s(round(rng.uniform(0, start_spread_s), 6)), "tcp": tcp_down}
              for i, n in enumerate(downs)]
    return [("name", f"hashimoto2013-fairness-{scheme}"), ("simulation.duration", Duration.s(duration_s)),
            ("simulation.seed", seed), ("output.sample_interval", Duration.s(sample_s)),
            BASE.extended("node", [{"name": n, "kind": "host", **({"position": positions[n]} if positions else {})}
                                   for n in ups + downs]),
            ("wlan.0.stations", ups + downs), *([("wlan.0.ap_priority", prio)] if prio else []), ("flow", flows)]


def job(scheme: str, seed: int, mix: str, n_up: int, n_down: int, delayed_ack: bool, duration_s: float,
        warmup_s: float, sample_s: float, swm_windows_s) -> runner.Job:
    """One fairness run as a :class:`runner.Job` (its labels carry what ``measure`` needs)."""
    return BASE.job(seed, {"mix": mix, "delayed_ack": delayed_ack, "scheme": scheme, "duration_s": duration_s,
                           "warmup_s": warmup_s, "sample_s": sample_s, "swm_windows_s": tuple(swm_windows_s)},
                    overrides(scheme, seed, duration_s, n_up, n_down, delayed_ack, sample_s), timeseries=True)


def _delivered(series: pd.DataFrame, t: float, sample_s: float) -> pd.Series:
    """Each flow's delivered bytes at the sample at time ``t`` (0 before a flow's first sample)."""
    s = series[np.isclose(series["time_s"], t, atol=sample_s / 100)]
    return s.groupby("flow")["delivered"].max()


def measure(job: runner.Job, res) -> dict:
    """Per-flow throughput over [warmup, duration], Jain, F(X, C), SWM(w) per window, mean
    RTTs, and what the BSS did (AP queue drops, collisions, air time) for the diagnosis."""
    lab = job.labels
    dur, warm, dt = lab["duration_s"], lab["warmup_s"], lab["sample_s"]
    flows = res.flows.set_index("name")
    ts = res.flow_series
    start = _delivered(ts, warm, dt).reindex(flows.index).fillna(0).astype(float)
    bps = (flows["bytes_delivered"].astype(float) - start) * 8 / (dur - warm)
    names = list(flows.index)
    up = [n for n in names if n.startswith("up-")]
    down = [n for n in names if n.startswith("down-")]
    x = [float(bps[n]) for n in names]
    rtt = flows["mean_rtt_ms"].astype(float)
    # Per-interval bytes over [warm, dur] for SWM: differences of consecutive samples.
    grid = ts[(ts["time_s"] >= warm - dt / 100) & (ts["time_s"] <= dur + dt / 100)]
    wide = grid.pivot_table(index="time_s", columns="flow", values="delivered", aggfunc="max").reindex(columns=names)
    per_interval = wide.ffill().fillna(0).diff().iloc[1:].clip(lower=0).T.values
    swm = swm_curve(per_interval, dt, [max(1, round(w / dt)) for w in lab["swm_windows_s"]], C_BPS)
    wl = res.summary["wlans"][0]
    ap = next(s for s in wl["stations"] if s["role"] == "ap")
    stas = [s for s in wl["stations"] if s["role"] != "ap"]
    out = {
        "total_mbps": sum(x) / 1e6,
        "up_mbps": sum(bps[n] for n in up) / 1e6,
        "down_mbps": sum(bps[n] for n in down) / 1e6,
        "down_share": (sum(bps[n] for n in down) / sum(x)) if sum(x) > 0 else float("nan"),
        "jain": jain_index(x),
        "F": fairness_index(x, C_BPS),
        "min_flow_mbps": min(x) / 1e6,
        "up_rtt_ms": float(rtt[up].mean()) if up else float("nan"),
        "down_rtt_ms": float(rtt[down].mean()) if down else float("nan"),
        "timeouts": int(flows["timeouts"].sum()),
        "fast_retransmits": int(flows["fast_retransmits"].sum()),
        "ap_queue_drops": int(ap["queue_drops"]),
        "ap_frames": int(ap["frames_sent"]),
        "sta_frames": int(sum(s["frames_sent"] for s in stas)),
        "collisions": int(wl["collisions"]),
        "air_busy": float(wl["utilization"]),
        **{f"swm_{w:g}s": float(v) for w, v in zip(lab["swm_windows_s"], swm["swm"])},
        **{f"x_{n}": float(bps[n]) / 1e6 for n in names},
        **{f"rtt_{n}": float(rtt[n]) for n in names},
    }
    return out


def runs(jobs, ctx: Context) -> pd.DataFrame:
    """Run ``jobs`` (from :func:`job`) and drop the labels ``measure`` alone needed."""
    df = ctx.run(jobs, measure, "Ch. 2 fairness runs")
    return df.drop(columns=["duration_s", "warmup_s", "sample_s", "swm_windows_s"])
