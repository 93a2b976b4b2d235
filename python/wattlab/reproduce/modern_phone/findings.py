"""The study's findings: each a statement a researcher might expect, tested over the summary
table (``experiments.summary_table`` with ``on_front``), so that it holds, partly holds or
does not, and says with which numbers. No seed paper is the reference: ``paper`` holds where
the expectation comes from.

Rule (``verdict.checks``): a finding checked over several (workload, PHY) or (workload,
scheme) cases **agrees** when every check holds, is **partly** right from half, else
**disagrees**; **not tested** when no case was run. tests/python/test_modern_phone.py drives
each to each verdict with synthetic tables.
"""

from __future__ import annotations


import pandas as pd

from .. import verdict
from ..verdict import AGREES, DISAGREES, PARTLY, UNTESTED, Claim  # noqa: F401  (the vocabulary, for tests)
from .config import INTERACTIVE
from .schemes import SEED_SCHEMES

ALL_HOLD, HALF_HOLD = 1.0, 0.5
"""A finding agrees when every one of its cases holds, is partly right from half of them."""
RULE = "a finding " + verdict.share_rule(ALL_HOLD, HALF_HOLD, "cases")
"""The verdict rule for summary.md, generated from the thresholds :func:`_checks` uses."""
PSM_DELAY_MS = 100.0
"""'Noticeable' added delay: one beacon interval (102.4 ms) is what PSM can hold a frame."""
SAVES_PCT = 1.0
"""A scheme 'saves' when it spends at least 1 % less: below that the difference is a few
beacons or frames of a deterministic run, not a saving a phone's user would see."""
COLUMNS = (("id", "id"), ("finding", "claim"), ("expected from", "paper"), ("test", "test"), ("verdict", "verdict"),
           ("evidence", "evidence"))
"""claims.csv's columns."""


def _checks(held: list[bool]) -> str:
    return verdict.checks(held, agrees=ALL_HOLD, partly=HALF_HOLD)


def _pct(x: float) -> str:
    return "n/a (unequal work)" if not verdict.finite(x) else f"{x:+.1f} %"


def _fam(t: pd.DataFrame) -> pd.Series:
    return t.scheme.str.split(":").str[0].str.replace(r"^bsd-\d+$", "bsd", regex=True).str.replace(
        r"^tunnel-m\d+$", "tunnel", regex=True)


def default_saves(t: pd.DataFrame, default: str) -> Claim:
    """F1: the phone's default mode saves energy against CAM at equal work, on every workload."""
    d = t[t.scheme == default]
    held = [bool(r.equal_work) and r.saving_vs_cam_pct >= SAVES_PCT for _, r in d.iterrows()]
    ev = "; ".join(f"{r.workload}/{r.phy}: {_pct(r.saving_vs_cam_pct)}" for _, r in d.iterrows())
    return Claim("F1", "what phones assume: dynamic PS is on by default in their drivers", f"per workload and PHY: {default} "
                 f"did CAM's work and saves ≥ {SAVES_PCT:g} % against CAM", _checks(held), ev or "not run",
                 claim=f"The phone's default ({default}) saves energy against CAM on every workload.")


def psm_delay(t: pd.DataFrame) -> Claim:
    """F2: legacy PSM adds ≥ one beacon interval to the p99 delay of the interactive workloads."""
    d = t[(t.scheme == "psm") & t.workload.isin(INTERACTIVE)]
    held = [r.added_p99_ms >= PSM_DELAY_MS for _, r in d.iterrows()]
    ev = "; ".join(f"{r.workload}/{r.phy}: {r.added_p99_ms:+.0f} ms" for _, r in d.iterrows())
    return Claim("F2", "paper 000 and Krashinsky & Balakrishnan (BSD): PSM slows interactive traffic by beacon intervals",
                 f"per interactive workload (web, video, VoIP) and PHY: PSM's p99 delay − CAM's ≥ {PSM_DELAY_MS:g} ms",
                 _checks(held), ev or "not run",
                 claim="Legacy PSM costs interactive traffic a beacon interval or more at the 99th percentile.")


def _best_saves(t: pd.DataFrame, by: list[str]) -> tuple[list[bool], list[str]]:
    """Per group of ``by``: does its best scheme at equal work save ≥ SAVES_PCT against the
    default, and the evidence ("bulk/802.11a: tunnel-m5 +32.0 %, +741 ms p99")."""
    held, ev = [], []
    for key, g in t.groupby(by, sort=False):
        name = "/".join(key) if isinstance(key, tuple) else key
        g = g[g.saving_vs_default_pct.notna()]
        if g.empty:
            held.append(False)
            ev.append(f"{name}: none at equal work")
            continue
        best = g.loc[g.saving_vs_default_pct.idxmax()]
        held.append(best.saving_vs_default_pct >= SAVES_PCT)
        ev.append(f"{name}: {best.scheme} {_pct(best.saving_vs_default_pct)}, {best.added_p99_ms:+.0f} ms p99")
    return held, ev


def seeds_still_save(t: pd.DataFrame, default: str) -> Claim:
    """F3: some seed scheme saves energy over the phone's default on every (workload, PHY)."""
    held, ev = _best_saves(t[_fam(t).isin(SEED_SCHEMES)], ["workload", "phy"])
    return Claim("F3", "issue 30's question: do the seeds' schemes still save on a phone that already dozes?",
                 f"per workload and PHY: the best seed-paper scheme ({', '.join(SEED_SCHEMES)}) at equal work saves ≥ "
                 f"{SAVES_PCT:g} % against {default}", _checks(held), "; ".join(ev) or "not run",
                 claim="A seed-paper scheme still saves energy over the phone's default, on every workload.")


def twt_saves(t: pd.DataFrame, default: str) -> Claim:
    """F4: TWT (the best interval) saves energy over the phone's default on 802.11ax."""
    held, ev = _best_saves(t[_fam(t).eq("twt")], ["workload"])
    return Claim("F4", "802.11ax's promise: TWT lets a station sleep through scheduled intervals",
                 f"per workload on 802.11ax: the best TWT agreement at equal work saves ≥ {SAVES_PCT:g} % against {default}",
                 _checks(held), "; ".join(ev) or "not run (no TWT scheme)",
                 claim="TWT saves energy over adaptive PSM on every workload.")


def seeds_dominated(t: pd.DataFrame) -> Claim:
    """F5: no seed-paper scheme is on the energy–delay Pareto front of any (workload, PHY)."""
    held, ev = [], []
    fam = _fam(t)
    for (w, phy), g in t.groupby(["workload", "phy"], sort=False):
        on = g[g.on_front & fam[g.index].isin(SEED_SCHEMES)]
        held.append(on.empty)
        ev.append(f"{w}/{phy}: front {', '.join(g[g.on_front].scheme)}")
    return Claim("F5", "the expectation that today's modes made the seeds' schemes obsolete",
                 "per workload and PHY: no seed-paper scheme is on the Pareto front of energy vs p99 delay (equal-work points only)",
                 _checks(held), "; ".join(ev) or "not run",
                 claim="Today's modes dominate: no seed-paper scheme is on any energy–delay Pareto front.")


def equal_work(t: pd.DataFrame) -> Claim:
    """F6: every scheme did CAM's work (same bytes, same datagrams, every flow completed)."""
    held = [bool(x) for x in t.equal_work]
    bad = t[~t.equal_work.astype(bool)]
    ev = (f"{len(t) - len(bad)} of {len(t)} points; not: "
          + "; ".join(f"{r.workload}/{r.phy}/{r.scheme} ({str(r.lost_vs_cam).split('; not completed')[0]})"
                      for _, r in bad.iterrows())) if len(bad) else \
        f"all {len(t)} points"
    return Claim("F6", "a power-save scheme should be transparent to the work done", "per point: the same work as CAM "
                 "(python/wattlab/work.py's rules) in every seed", _checks(held), ev,
                 claim="Every scheme delivers CAM's work (no saving is bought with lost data).")


def ax_cheaper(t: pd.DataFrame) -> Claim:
    """F7: 802.11ax costs less energy per delivered MB than 802.11a, scheme by scheme, for the
    schemes that let the radio sleep (an always-on radio has no sleep to race to)."""
    held, ev = [], []
    for (w, s), g in t.groupby(["workload", "scheme"], sort=False):
        g = g.set_index("phy")
        if not {"802.11a", "802.11ax"} <= set(g.index) or not (g.sleep_fraction > 0).all():
            continue
        a, ax = g.at["802.11a", "j_per_mb"], g.at["802.11ax", "j_per_mb"]
        if not (verdict.finite(a) and verdict.finite(ax)):
            continue
        held.append(ax < a)
        if ax >= a:
            ev.append(f"{w}/{s}: {ax:.3g} vs {a:.3g} J/MB")
    n = len(held)
    text = f"{sum(held)} of {n} (workload, scheme) pairs cheaper on 802.11ax" + (f"; not: {'; '.join(ev)}" if ev else "")
    return Claim("F7", "race to sleep: a faster PHY keeps the radio busy for less time per byte",
                 "per workload and scheme that sleeps, run on both PHYs: J per delivered MB on 802.11ax < on 802.11a",
                 _checks(held), text if n else "not run on both PHYs",
                 claim="802.11ax spends less energy per delivered MB than 802.11a under the same scheme.")


def evaluate(t: pd.DataFrame, default: str) -> list[Claim]:
    """Every finding over the summary table (with ``on_front``)."""
    return [default_saves(t, default), psm_delay(t), seeds_still_save(t, default), twt_saves(t, default),
            seeds_dominated(t), equal_work(t), ax_cheaper(t)]



