"""Paper 002 Ch. 2's testbed sweep (Sect. 2.6, Fig. 2.8(a), Figs. 2.9–2.11) in the simulator: ten
clients, one TCP flow each, the mix of upstream and downstream flows swept from u0d10 to u10d0,
behind each of the three commercial APs, Reno against the ACK-loss-aware Reno (delayed ACK off,
the Fig. 2.8(a) runs).

What the simulator can and cannot stand in for (docs/reproductions.md, "The testbed"): the APs are
modelled by their buffers only, Table 2.3's own estimates B_est rounded to whole packets (Buffalo
77, NEC 50, Corega 243; the thesis measured them for this purpose: "the buffer size of an AP
significantly affects ..."). Everything else is the fairness runs' (``fairness.py``: 802.11a
54 Mb/s, the same TCP), except what Fig. 2.8(a) states: the wired node is directly connected to
the AP (a 100 Mb/s link with 0.1 ms delay: a LAN cable; Table 2.3's minimum RTTs are 0.56–0.98
ms), the runs last 180 s averaged over 50–180 s, and the flows start "almost simultaneously"
(launched over a separate network: starts U[0, 0.1] s). Commercial firmware, the Buffalo cards'
rate control and the real channel are not modelled.
"""

from __future__ import annotations

import pandas as pd

from wattlab.scenario_units import Duration

from .. import runner, stats
from ..framework import Context
from . import fairness
from .config import TESTBED_MIXES

APS = {"Buffalo": 77, "NEC": 50, "Corega": 243}
"""AP → its buffer (packets): Table 2.3's B_est 76.9, 50.2, 243.4 rounded."""
MIXES = TESTBED_MIXES
"""Fig. 2.9's x-axis: u0d10 … u10d0 (upstream, downstream flows; ten in all)."""
SCHEMES = ("reno", "ackloss")
"""The testbed compares Reno with the proposed method (no prioritised AP)."""
WIRED_DELAY = Duration.ms(0.1)
"""Fig. 2.8(a): the wired node directly on the AP (a LAN cable)."""
START_SPREAD_S = 0.1
"""Flows start "almost simultaneously" (remote iperf launches): U[0, 0.1] s."""
METRICS = ["total_mbps", "up_mbps", "down_mbps", "down_share", "jain", "F", "min_flow_mbps", "timeouts",
           "up_per_flow_mbps", "down_per_flow_mbps"]


def split(mix: str) -> tuple[int, int]:
    """``"u3d7"`` → (3, 7)."""
    u, d = mix[1:].split("d")
    return int(u), int(d)


def job(ap: str, mix: str, scheme: str, seed: int, duration_s: float, warmup_s: float,
        swm_windows_s, delayed_ack: bool = False, wired_delay: Duration | None = None,
        delayed_ack_down: bool | None = None) -> runner.Job:
    """One testbed run: the fairness run with the AP's buffer, the LAN link and near-simultaneous
    starts; ``delayed_ack`` and ``wired_delay`` (the wired link's one-way delay, a typed override
    of the base scenario's ``link.0.delay``) give Fig. 2.8(b)'s runs (``testbed50.py``). The
    defaults are Fig. 2.8(a)'s, with the same overrides as before they existed (stored runs keep
    their keys). ``delayed_ack_down`` (not None) sets the downstream flows' delayed ACK apart
    (``delack_split.py``)."""
    n_up, n_down = split(mix)
    ovr = fairness.overrides(scheme, seed, duration_s, n_up, n_down, delayed_ack, 1.0, start_spread_s=START_SPREAD_S,
                             delayed_ack_down=delayed_ack_down)
    if wired_delay is None:
        name = f"hashimoto2013-testbed-{ap}-{mix}-{scheme}"
    else:
        name = f"hashimoto2013-testbed-{ap}-{wired_delay}-{mix}-{scheme}-{'delack' if delayed_ack else 'nodelack'}"
    if delayed_ack_down is not None:
        name += f"-down-{'delack' if delayed_ack_down else 'nodelack'}"
    delay = WIRED_DELAY if wired_delay is None else wired_delay
    ovr += [("name", name), ("wlan.0.ap_queue", APS[ap]), ("link.0.delay", delay)]
    labels = {"ap": ap, "mix": mix, "scheme": scheme, "duration_s": duration_s, "warmup_s": warmup_s, "sample_s": 1.0,
              "swm_windows_s": tuple(swm_windows_s)}
    if wired_delay is not None:
        labels = {"ap": ap, "delay_ms": delay.ns / 1e6, "delayed_ack": delayed_ack, **labels}
    if delayed_ack_down is not None:
        labels = {"delayed_ack_down": delayed_ack_down, **labels}
    return fairness.BASE.job(seed, labels, ovr, timeseries=True)


def jobs(mixes, seeds, duration_s: float, warmup_s: float, swm_windows_s) -> list[runner.Job]:
    """Every AP × mix × scheme × seed."""
    return [job(ap, mix, s, k, duration_s, warmup_s, swm_windows_s)
            for ap in APS for mix in mixes for s in SCHEMES for k in seeds]


def measure(job: runner.Job, res) -> dict:
    """``fairness.measure`` plus the mean throughput of an upstream and of a downstream flow (Fig.
    2.9's bars)."""
    out = fairness.measure(job, res)
    n_up, n_down = split(job.labels["mix"])
    out["up_per_flow_mbps"] = out["up_mbps"] / n_up if n_up else float("nan")
    out["down_per_flow_mbps"] = out["down_mbps"] / n_down if n_down else float("nan")
    return {k: v for k, v in out.items() if not k.startswith(("x_", "rtt_"))}


def runs(mixes, seeds, duration_s: float, warmup_s: float, swm_windows_s, ctx: Context) -> pd.DataFrame:
    """testbed_runs.csv: one row per run (SWM windows longer than the averaging span are left out)."""
    if not mixes:
        return pd.DataFrame()
    windows = [w for w in swm_windows_s if w <= duration_s - warmup_s]
    df = ctx.run(jobs(mixes, seeds, duration_s, warmup_s, windows), measure, "Ch. 2 testbed sweep")
    return df.drop(columns=["duration_s", "warmup_s", "sample_s", "swm_windows_s"])


def table(r: pd.DataFrame) -> pd.DataFrame:
    """testbed.csv: means (95 % CIs, drawn intervals) per AP, mix and scheme, mixes in Fig. 2.9's order."""
    if r.empty:
        return pd.DataFrame()
    swm = [c for c in r.columns if c.startswith("swm_") and c != "swm_windows_s"]
    dom = {"jain": (0.1, 1.0), "F": (0.0, 1.0), "down_share": (0.0, 1.0),
           **{c: (0.0, 1.0) for c in swm}, **{c: stats.NON_NEGATIVE for c in METRICS if c not in ("jain", "F", "down_share")}}
    t = runner.aggregate(r, ["ap", "mix", "scheme"], METRICS + swm, dom)
    t["ap_buffer"] = t["ap"].map(APS)
    order = {m: i for i, m in enumerate(MIXES)}
    return t.sort_values(["ap", "mix", "scheme"], key=lambda c: c.map(order) if c.name == "mix" else c,
                         kind="stable").reset_index(drop=True)
