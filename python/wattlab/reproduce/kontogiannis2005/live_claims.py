"""Verdicts of the live run: the paper's R1 claims judged on the live points (the rules of
``claims.py``, unchanged), and two claims of wattlab's own on how close its simulator comes to
Linux on the same path.

- **R1.1–R1.8** live: ``claims.experiment1_claims`` over ``live_points.csv``. A claim that
  needs a variant Linux lacks (Tahoe, ns-2's Reno) or this kernel lacks (its module not
  loadable) is **not tested**, with that reason.
- **L1** (goodput) and **L2** (3E), fixed before the run: at a (variant, errors, error rate)
  point live and the simulator on the live path *match* when the live goodput is within
  ±:data:`GOODPUT_TOL` of the simulated one (L1) or the live 3E within ±:data:`EEE_TOL` of the
  simulated one (L2); **agrees** when ≥ 75 % of the points match, **partly** from 50 %, else
  **disagrees**; **not tested** without a point that ran both ways.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .. import verdict
from ..verdict import UNTESTED, Claim
from . import claims
from .live_kernel import NOT_LIVE

GOODPUT_TOL = 0.10
"""L1: the live goodput within ±10 % of the simulated one at a point (issue 33's sim-vs-live
tolerance for the web workload's page load times)."""
EEE_TOL = 0.05
"""L2: the live 3E within ±0.05 of the simulated one (3E spans 0…α = 1; 0.05 is a tenth of the
spread between the variants the paper plots at low error rates)."""
MAJORITY, HALF = claims.MAJORITY, claims.HALF

RULE = (f"R1.x: the reproduction's rules over the live points; L1/L2: a point matches when the live goodput is within "
        f"±{100 * GOODPUT_TOL:g} % (L1) or the live 3E within ±{EEE_TOL:g} (L2) of the simulator's on the same path; "
        f"{verdict.share_rule(MAJORITY, HALF, 'points')}")
"""The verdict rule in one sentence, for summary.md."""

L_TEXT = {
    "L1": ("(wattlab) The simulator's TCP predicts Linux's goodput on the same emulated path.",
           f"live goodput within ±{100 * GOODPUT_TOL:g} % of the simulator's on the live path at ≥ 75 % of the points "
           "(partly ≥ 50 %)"),
    "L2": ("(wattlab) The simulator's TCP predicts Linux's 3E on the same emulated path.",
           f"live 3E within ±{EEE_TOL:g} of the simulator's on the live path at ≥ 75 % of the points (partly ≥ 50 %)"),
}


def _reasons(variants: pd.DataFrame) -> dict[str, str]:
    """Why each variant that did not run live did not (Linux's and this kernel's reasons)."""
    why = dict(NOT_LIVE)
    if len(variants):
        why.update({r.variant: r.reason for r in variants.itertuples() if not bool(r.runs_live)})
    return why


def _needed(evidence: str) -> list[str]:
    """The variants a 'needs a, b, c; not all of them were run' evidence names."""
    return [v.strip() for v in evidence.removeprefix("needs ").split(";")[0].split(",")]


def r1_claims(live_points: pd.DataFrame, variants: pd.DataFrame) -> list[Claim]:
    """R1.1–R1.8 over the live points; a 'not tested' one says which of the variants it needs
    did not run live, and why (Linux lacks it, or this kernel lacks its module)."""
    why = _reasons(variants)
    if live_points.empty:
        gone = "; ".join(f"{v}: {r}" for v, r in why.items())
        return [Claim(cid, *claims.TEXT[cid], UNTESTED, f"no live transfer completed; {gone}")
                for cid in sorted(c for c in claims.TEXT if c.startswith("R1."))]
    ran = set(live_points.variant)
    out = []
    for c in claims.experiment1_claims(live_points):
        if c.verdict == UNTESTED and "not all of them were run" in c.evidence:
            gone = [v for v in _needed(c.evidence) if v not in ran]
            detail = "; ".join(f"{v}: {why.get(v, 'not asked for (--live-variant)')}" for v in gone)
            c = Claim(c.id, c.paper, c.test, c.verdict, f"{c.evidence}; not live: {detail}")
        out.append(c)
    return out


def _agreement(cid: str, side: pd.DataFrame, ok) -> Claim:
    both = side[np.isfinite(side.goodput_bps_live) & np.isfinite(side.goodput_bps_sim_path)]
    if both.empty:
        return Claim(cid, *L_TEXT[cid], UNTESTED, "no point ran both live and on the simulator")
    held = [bool(ok(r)) for r in both.itertuples()]
    share = sum(held) / len(held)
    detail = "; ".join(
        f"{r.variant} {r.model} {100 * r.per:g} %: G {r.goodput_bps_live / 1e3:.0f} vs {r.goodput_bps_sim_path / 1e3:.0f} kb/s "
        f"({100 * (r.goodput_bps_live / r.goodput_bps_sim_path - 1):+.0f} %), 3E {r.eee_live:.3f} vs {r.eee_sim_path:.3f}"
        f"{'' if h else ' ✗'}" for r, h in zip(both.itertuples(), held))
    return Claim(cid, *L_TEXT[cid], verdict.share(share, agrees=MAJORITY, partly=HALF),
                 f"matches at {sum(held)} of {len(held)} points ({100 * share:.0f} %); live vs simulated: {detail}")


def agreement_claims(side: pd.DataFrame) -> list[Claim]:
    """L1 and L2 over ``live_vs_sim.csv``."""
    l1 = lambda r: abs(r.goodput_bps_live / r.goodput_bps_sim_path - 1.0) <= GOODPUT_TOL  # noqa: E731
    l2 = lambda r: abs(r.eee_live - r.eee_sim_path) <= EEE_TOL  # noqa: E731
    return [_agreement("L1", side, l1), _agreement("L2", side, l2)]


def judge(tables: dict[str, pd.DataFrame]) -> list[Claim]:
    """Every live verdict: R1.1–R1.8, then L1 and L2."""
    return r1_claims(tables["live_points.csv"], tables["live_variants.csv"]) + agreement_claims(tables["live_vs_sim.csv"])
