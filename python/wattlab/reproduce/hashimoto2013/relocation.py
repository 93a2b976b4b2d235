"""Paper 002 Ch. 2's relocation case (Sect. 2.5.2, Fig. 2.6): the ten upstream flows of Fig. 2.4
with five clients at 1 m and five at 10 m from the AP, for Reno, ACK-loss-aware Reno and the
prioritised AP. The thesis's point: the prioritised AP's fairness depends on where the clients
are (it tunes channel access), the proposed method's does not (it acts at the transport layer).

The distance acts through ``[wlan.propagation]`` (docs/wlan.md, "Distance, errors and rate
control"): log-distance path loss with ns-3's defaults (exponent 3, 46.68 dB at 1 m, 16 dBm, noise
figure 7 dB), so the near clients reach the AP 30 dB stronger than the far ones; both have SNRs
(63 and 33 dB) at which 54 Mb/s loses nothing, and what differs is **capture**: a frame survives
a collision when its SINR is ≥ 10 dB (ns-2's CPThresh, the thesis's simulator) and its PER at that
SINR spares it. The thesis gives no powers or thresholds; these are the assumptions.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from .. import runner, stats
from ..framework import Context
from . import fairness

MIX = "10up-relocated"
"""The ``mix`` label of the relocation runs."""
NEAR_M, FAR_M = 1.0, 10.0
"""Distances of the near and far clients from the AP (the thesis's 1 m and 10 m)."""
N_CLIENTS, N_NEAR = 10, 5
"""Ten upstream clients, the first five near."""
PROPAGATION = {"model": "log-distance", "capture_threshold_db": 10.0}
"""``[wlan.propagation]``: ns-3's log-distance defaults, capture at 10 dB SINR (ns-2's CPThresh)."""
METRICS = ["total_mbps", "jain", "F", "min_flow_mbps", "near_mbps", "far_mbps", "near_far_ratio", "captures",
           "collisions", "timeouts", "up_rtt_ms"]


def placement() -> dict[str, list[float]]:
    """Client → [x, y] (m): u0–u4 at 1 m, u5–u9 at 10 m (the AP at the origin)."""
    return {f"u{i}": [NEAR_M if i < N_NEAR else FAR_M, 0.0] for i in range(N_CLIENTS)}


def near_flows() -> list[str]:
    """Names of the near clients' flows."""
    return [f"up-u{i}" for i in range(N_NEAR)]


def far_flows() -> list[str]:
    """Names of the far clients' flows."""
    return [f"up-u{i}" for i in range(N_NEAR, N_CLIENTS)]


def overrides(scheme: str, seed: int, duration_s: float, sample_s: float) -> list[tuple[str, Any]]:
    """Fig. 2.4's ten upstream flows (the same start times per seed) with the clients placed and
    the BSS given its propagation."""
    base = [o for o in fairness.overrides(scheme, seed, duration_s, N_CLIENTS, 0, False, sample_s, placement())
            if o[0] != "name"]
    return [("name", f"hashimoto2013-relocation-{scheme}"), *base, ("node.ap.position", [0.0, 0.0]),
            ("wlan.0.propagation", PROPAGATION)]


def job(scheme: str, seed: int, duration_s: float, warmup_s: float, sample_s: float, swm_windows_s) -> runner.Job:
    """One relocation run (labels as :func:`fairness.job`'s, so :func:`fairness.measure` reads them)."""
    return fairness.BASE.job(seed, {"mix": MIX, "delayed_ack": False, "scheme": scheme, "duration_s": duration_s,
                                    "warmup_s": warmup_s, "sample_s": sample_s, "swm_windows_s": tuple(swm_windows_s)},
                             overrides(scheme, seed, duration_s, sample_s), timeseries=True)


def measure(job: runner.Job, res) -> dict:
    """:func:`fairness.measure` plus the near and far clients' mean flow throughput, their ratio and
    the collisions the AP captured a frame from."""
    out = fairness.measure(job, res)
    near = sum(out[f"x_{n}"] for n in near_flows()) / N_NEAR
    far = sum(out[f"x_{n}"] for n in far_flows()) / (N_CLIENTS - N_NEAR)
    out.update(near_mbps=near, far_mbps=far, near_far_ratio=near / far if far > 0 else float("inf"),
               captures=int(res.summary["wlans"][0].get("captures", 0)))
    return out


def runs(jobs, ctx: Context) -> pd.DataFrame:
    """Run ``jobs`` (from :func:`job`), without the labels only ``measure`` needed."""
    df = ctx.run(jobs, measure, "Fig. 2.6 relocation runs")
    return df.drop(columns=["duration_s", "warmup_s", "sample_s", "swm_windows_s"])


def table(r: pd.DataFrame, fair: pd.DataFrame) -> pd.DataFrame:
    """Means (95 % CIs, drawn intervals) per scheme, beside the same scheme's Jain index with every
    client at the same distance (``fairness.csv``'s 10up, delayed ACK off; ``jain_4m``);
    ``near_far_ratio`` is the ratio of the mean near and far flow throughputs."""
    extra = [c for c in r.columns if c.startswith("x_")]
    dom = {"jain": (1.0 / N_CLIENTS, 1.0), "F": (0.0, 1.0),
           **{c: stats.NON_NEGATIVE for c in METRICS + extra if c not in ("jain", "F")}}
    t = runner.aggregate(r, ["mix", "scheme"], METRICS + extra, dom)
    ref = fair[(fair["mix"] == "10up") & (~fair["delayed_ack"].astype(bool))].set_index("scheme") if len(fair) else None
    # The ratio of the mean near and far throughputs (a mean of per-run ratios would be
    # dominated by runs where a far flow starves).
    t["near_far_ratio"] = t["near_mbps"] / t["far_mbps"]
    t = t.drop(columns=[f"near_far_ratio_{k}" for k in ("ci", "lo", "hi") if f"near_far_ratio_{k}" in t.columns])
    t["jain_4m"] = [ref["jain"].get(s, float("nan")) if ref is not None else float("nan") for s in t["scheme"]]
    t["jain_change"] = t["jain"] - t["jain_4m"]
    return t
