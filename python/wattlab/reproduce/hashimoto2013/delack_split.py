"""Issue 32 gap 4 (e), the settling experiment of claim B11: at 50 ms one-way (Figs. 2.12–2.13)
delayed ACK shrinks the proposed method's Jain gain over Reno, where the thesis says it does not.

Hypothesis H (docs/reproductions.md, "Delayed ACK lowers ackloss's downstream share"): delayed
ACK weakens the proposed method's own signal. The upstream flows' ACKs come from the server, one
per two segments; a lost ACK is counted only when the next jump reaches 2·b_est segments (Eq.
2.4), and their ACKs hold half the AP-queue slots per segment, so the AP's drops reach the
upstream senders less often while the downstream flows' data losses are as before. The test
switches delayed ACK on for one direction's receivers at a time, with the per-flow option
``tcp.delayed_ack`` (the servers of the upstream flows, or the clients of the downstream ones),
and asks how much of the gain's loss each reproduces: H predicts the upstream side alone gives
most of it. It locates the cause in one direction's delayed ACKs; it does not separate the
mechanisms on that side (the missed counts of Eq. 2.4, half the AP-queue slots, the air the
fewer ACKs free for upstream data). The runs are Figs. 2.12–2.13's (``testbed50``), both
schemes, the mixes ``Config.delack_split_mixes``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from wattlab.scenario_units import Duration

from .. import runner
from ..framework import Context
from ..verdict import EXPLAINS_MOST, EXPLAINS_PART
from . import testbed, testbed50

VARIANTS = {"up": (True, False), "down": (False, True)}
"""Variant → (delayed ACK at the upstream flows' receivers, at the downstream flows' receivers)."""


def jobs(mixes, seeds, duration_s: float, warmup_s: float, swm_windows_s, delay_ms: float) -> list[runner.Job]:
    """Every mix × variant × scheme × seed behind Buffalo-AP at ``delay_ms`` one-way."""
    return [testbed.job(testbed50.AP, mix, s, k, duration_s, warmup_s, swm_windows_s, delayed_ack=up,
                        wired_delay=Duration.ms(delay_ms), delayed_ack_down=down)
            for mix in mixes for up, down in VARIANTS.values() for s in testbed.SCHEMES for k in seeds]


def runs(mixes, seeds, duration_s: float, warmup_s: float, swm_windows_s, delay_ms: float, ctx: Context) -> pd.DataFrame:
    """delack_split_runs.csv: one row per run (``testbed.measure``), with its variant."""
    if not mixes:
        return pd.DataFrame()
    windows = [w for w in swm_windows_s if w <= duration_s - warmup_s]
    df = ctx.run(jobs(mixes, seeds, duration_s, warmup_s, windows, delay_ms), testbed.measure,
                 "B11's experiment: delayed ACK on one direction")
    df.insert(0, "variant", ["up" if d else "down" for d in df["delayed_ack"]])
    return df.drop(columns=["duration_s", "warmup_s", "sample_s", "swm_windows_s"])


def _jain(df: pd.DataFrame, scheme: str) -> float:
    return float(df[df["scheme"] == scheme]["jain"].mean())


def table(split: pd.DataFrame, t50: pd.DataFrame) -> pd.DataFrame:
    """delack_split.csv: per mix, the Jain gain of ackloss over Reno (mean over seeds) with
    delayed ACK nowhere, everywhere (Figs. 2.12's runs, ``testbed50.csv``), on the upstream
    flows' receivers only and on the downstream flows' only, and the share of the gain's loss
    (off − everywhere) each one-sided variant reproduces."""
    if split.empty or t50.empty:
        return pd.DataFrame()
    rows = []
    for mix, g in split.groupby("mix", sort=False):
        base = {d: t50[(t50["mix"] == mix) & (t50["delayed_ack"] == d)] for d in (False, True)}
        if any(b.empty for b in base.values()):
            continue
        gain = {("off" if not d else "all"): _jain(b, "ackloss") - _jain(b, "reno") for d, b in base.items()}
        row = {"mix": mix, "gain_off": gain["off"], "gain_all": gain["all"],
               "ackloss_jain_off": _jain(base[False], "ackloss"), "ackloss_jain_all": _jain(base[True], "ackloss")}
        loss = gain["off"] - gain["all"]
        for v in VARIANTS:
            gv = g[g["variant"] == v]
            row[f"gain_{v}"] = _jain(gv, "ackloss") - _jain(gv, "reno")
            row[f"ackloss_jain_{v}"] = _jain(gv, "ackloss")
            row[f"explained_{v}"] = (gain["off"] - row[f"gain_{v}"]) / loss if loss > 0 else float("nan")
        row["runs"] = len(g)
        rows.append(row)
    return pd.DataFrame(rows)


def _words(x: float) -> str:
    return "explains most of it" if x >= EXPLAINS_MOST else "explains part of it" if x >= EXPLAINS_PART \
        else "does not explain it"


def conclusion(t: pd.DataFrame) -> str:
    """The experiment's result in one sentence, generated from ``t`` (mean over its mixes)."""
    if t.empty:
        return "B11's experiment: not run (`delack_split_mixes` empty)."
    up, down = float(np.nanmean(t["explained_up"])), float(np.nanmean(t["explained_down"]))
    return (f"B11's experiment ({', '.join(t['mix'])}; mean over the mixes): delayed ACK shrinks ackloss's Jain gain "
            f"over Reno from {t['gain_off'].mean():+.3f} to {t['gain_all'].mean():+.3f}. H (the loss comes from the upstream "
            f"flows' delayed ACKs, the proposed method's signal) {_words(up)}: delayed ACK at the upstream flows' "
            f"receivers alone reproduces {100 * up:.0f} % of that loss (gain {t['gain_up'].mean():+.3f}). At the "
            f"downstream flows' receivers alone it reproduces {100 * down:.0f} % (gain {t['gain_down'].mean():+.3f}): "
            f"that side {_words(down)}.")
