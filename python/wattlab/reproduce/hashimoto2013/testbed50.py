"""Paper 002 Figs. 2.12–2.13 in the simulator: the testbed sweep of Fig. 2.8(b), a PC router with
netem between the AP and the wired node adding "a 50 [ms] one-way delay", Buffalo-AP only, the
mixes u0d10 … u10d0, Reno against the ACK-loss-aware Reno, each with delayed ACK off and on (the
proposed method then estimates b by Eq. 2.4 with β = 1/32, as ``cc = "ackloss"`` always does).

The runs are ``testbed.job``'s (Buffalo's 77-packet buffer, near-simultaneous starts, 180 s
averaged over 50–180 s) with two typed overrides of the base scenario: ``link.0.delay`` = the
one-way delay (the router's own hop, a LAN cable, is folded into that link) and each flow's
``tcp.delayed_ack``. The delay is read as one-way because both captions say so; with netem on
one interface the RTT would be 50 ms instead, which ``Config.testbed50_delay_ms`` = 25 runs.
"""

from __future__ import annotations

import pandas as pd

from wattlab.scenario_units import Duration

from .. import runner, stats
from ..framework import Context
from . import paper, testbed

AP = paper.TESTBED50_AP
"""Figs. 2.12–2.13: Buffalo-AP (``testbed.APS``: 77 packets)."""
DELAYED_ACK = (False, True)
"""Fig. 2.12's "nodelack" and "delack"."""


def jobs(mixes, seeds, duration_s: float, warmup_s: float, swm_windows_s, delay_ms: float) -> list[runner.Job]:
    """Every mix × delayed ACK × scheme × seed behind Buffalo-AP with the wired link's one-way delay ``delay_ms``."""
    return [testbed.job(AP, mix, s, k, duration_s, warmup_s, swm_windows_s, delayed_ack=d, wired_delay=Duration.ms(delay_ms))
            for mix in mixes for d in DELAYED_ACK for s in testbed.SCHEMES for k in seeds]


def runs(mixes, seeds, duration_s: float, warmup_s: float, swm_windows_s, delay_ms: float, ctx: Context) -> pd.DataFrame:
    """testbed50_runs.csv: one row per run (``testbed.measure``; SWM windows longer than the
    averaging span left out)."""
    if not mixes:
        return pd.DataFrame()
    windows = [w for w in swm_windows_s if w <= duration_s - warmup_s]
    df = ctx.run(jobs(mixes, seeds, duration_s, warmup_s, windows, delay_ms), testbed.measure,
                 f"Figs. 2.12–2.13 sweep ({delay_ms:g} ms one-way)")
    return df.drop(columns=["duration_s", "warmup_s", "sample_s", "swm_windows_s"])


def table(r: pd.DataFrame) -> pd.DataFrame:
    """testbed50.csv: means (95 % CIs, drawn intervals) per mix, delayed ACK and scheme, mixes in
    Fig. 2.12's order, with the AP's buffer and the one-way delay."""
    if r.empty:
        return pd.DataFrame()
    swm = [c for c in r.columns if c.startswith("swm_")]
    dom = {"jain": (0.1, 1.0), "F": (0.0, 1.0), "down_share": (0.0, 1.0), **{c: (0.0, 1.0) for c in swm},
           **{c: stats.NON_NEGATIVE for c in testbed.METRICS if c not in ("jain", "F", "down_share")}}
    t = runner.aggregate(r, ["mix", "delayed_ack", "scheme"], testbed.METRICS + swm, dom)
    t.insert(0, "ap", AP)
    t.insert(1, "delay_ms", float(r["delay_ms"].iloc[0]))
    t["ap_buffer"] = testbed.APS[AP]
    order = {m: i for i, m in enumerate(testbed.MIXES)}
    return t.sort_values(["mix", "delayed_ack", "scheme"], key=lambda c: c.map(order) if c.name == "mix" else c,
                         kind="stable").reset_index(drop=True)
