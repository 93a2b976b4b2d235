"""The paper's claims R1.1–R2.7 (notes/003.md §6.3–6.4), each turned into a test over our
measured points that says whether wattlab agrees, with the numbers that decide it.

Each test is an operational reading of a sentence of the paper; the reading is part of the
claim's text so a reader can disagree with it. Comparisons use the means over seeds; the CSV
files carry the confidence intervals.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
import pandas as pd
from scipy import stats

AGREES = "agrees"
DISAGREES = "disagrees"
PARTLY = "partly"
UNTESTED = "not tested"

LOW_PER_MAX = 0.07
"""The paper's 'low-error region (0–7 %)'."""
HIGH_PER_MIN = 0.15
"""Reno degrades 'when PER > 15 %'."""
MAJORITY = 0.75
"""Share of points a per-point ordering must hold at for 'agrees' (below half: 'disagrees')."""


@dataclass
class Claim:
    """One claim of the paper and wattlab's verdict on it."""

    id: str
    paper: str
    test: str
    verdict: str
    evidence: str


def _verdict(share: float) -> str:
    if share >= MAJORITY:
        return AGREES
    return PARTLY if share >= 0.5 else DISAGREES


def _pct(x: float) -> str:
    return f"{100 * x:.0f} %"


def _kbps(x: float) -> str:
    return f"{x / 1e3:.0f} kb/s"


class Exp1:
    """Lookups over Experiment 1's per-point means."""

    def __init__(self, points: pd.DataFrame):
        self.p = points
        self.models = list(dict.fromkeys(points["model"]))
        self.pers = sorted(set(points["per"]))

    def value(self, model: str, variant: str, per: float, col: str) -> float:
        row = self.p[(self.p.model == model) & (self.p.variant == variant) & np.isclose(self.p.per, per)]
        return float(row[col].iloc[0]) if len(row) else float("nan")

    def has(self, *variants: str) -> bool:
        return all(v in set(self.p.variant) for v in variants)

    def low(self) -> list[float]:
        return [p for p in self.pers if 0 < p <= LOW_PER_MAX + 1e-9]

    def high(self) -> list[float]:
        return [p for p in self.pers if p > HIGH_PER_MIN + 1e-9]

    def share(self, pers: list[float], pred: Callable[[str, float], bool]) -> tuple[float, int, int]:
        """Fraction of (model, per) points where ``pred`` holds."""
        checks = [pred(m, p) for m in self.models for p in pers]
        return (sum(checks) / len(checks) if checks else float("nan")), sum(checks), len(checks)


def _share_claim(cid: str, paper: str, test: str, e: Exp1, pers: list[float], pred, detail: Callable[[], str]) -> Claim:
    if not pers:
        return Claim(cid, paper, test, UNTESTED, "no error rates in that range were run")
    share, k, n = e.share(pers, pred)
    return Claim(cid, paper, test, _verdict(share), f"holds at {k} of {n} points ({_pct(share)}); {detail()}")


def experiment1_claims(points: pd.DataFrame) -> list[Claim]:
    """R1.1–R1.8 over Experiment 1's per-point means."""
    e = Exp1(points)
    g = lambda m, v, p: e.value(m, v, p, "goodput_bps")  # noqa: E731
    eee = lambda m, v, p: e.value(m, v, p, "eee")  # noqa: E731
    claims: list[Claim] = []
    low, high = e.low(), e.high()
    top = max(e.pers)

    def at_extremes(variants: tuple[str, ...], col: str, fmt=_kbps) -> str:
        parts = []
        for m in e.models:
            for p in sorted({low[0] if low else e.pers[0], top}):
                vals = ", ".join(f"{v} {fmt(e.value(m, v, p, col))}" for v in variants)
                parts.append(f"{m} {_pct(p)}: {vals}")
        return "; ".join(parts)

    fmt3 = lambda x: f"{x:.3f}"  # noqa: E731

    if e.has("tahoe", "newreno", "sack"):
        def r11(m, p):
            aggressive = max(g(m, "newreno", p), g(m, "sack", p))
            return aggressive >= g(m, "tahoe", p) if p <= LOW_PER_MAX else g(m, "tahoe", p) >= aggressive
        claims.append(_share_claim(
            "R1.1", "Low error rates should be used aggressively; as errors grow, conservative behaviour does better.",
            "goodput of the more aggressive blind variant (max of NewReno, SACK) ≥ Tahoe's at 0 < PER ≤ 7 %, "
            "and Tahoe ≥ both at PER > 15 %",
            e, low + high, r11, lambda: at_extremes(("tahoe", "newreno", "sack"), "goodput_bps")))

    if e.has("tahoe", "reno", "newreno"):
        trio = ("tahoe", "reno", "newreno")
        claims.append(_share_claim(
            "R1.2", "Reno is the most energy-consuming (highest 3E) of Tahoe, Reno and NewReno when PER > 15 %.",
            "Reno's 3E is the highest of the three at every PER > 15 %",
            e, high, lambda m, p: eee(m, "reno", p) >= max(eee(m, v, p) for v in trio),
            lambda: at_extremes(trio, "eee", fmt3)))
        pts = [p for p in e.pers if any(np.isclose(p, q) for q in (0.15, 0.20))]
        def r13(m, p):
            goods = [g(m, v, p) for v in trio]
            eees = [eee(m, v, p) for v in trio]
            return g(m, "reno", p) <= min(goods) and stats.spearmanr(goods, eees)[0] < 0
        claims.append(_share_claim(
            "R1.3", "Reno's goodput degrades above 15 % PER; at 0.15 and 0.20 lower goodput means higher 3E.",
            "at PER 15 % and 20 %: Reno has the lowest goodput of the three, and goodput and 3E rank inversely",
            e, pts, r13, lambda: at_extremes(trio, "goodput_bps")))

    if e.has("tahoe", "vegas", "sack"):
        claims.append(_share_claim(
            "R1.4", "In the low-error region (0–7 %) Vegas outperforms Tahoe and SACK in goodput.",
            "Vegas's goodput > Tahoe's and SACK's at every 0 < PER ≤ 7 %",
            e, low, lambda m, p: g(m, "vegas", p) > max(g(m, "tahoe", p), g(m, "sack", p)),
            lambda: at_extremes(("tahoe", "vegas", "sack"), "goodput_bps")))
        def r15(m, p):
            if p <= LOW_PER_MAX:
                return eee(m, "vegas", p) <= min(eee(m, "tahoe", p), eee(m, "sack", p))
            return eee(m, "tahoe", p) < eee(m, "vegas", p)
        claims.append(_share_claim(
            "R1.5", "At low PER Vegas wastes little (lowest 3E of Tahoe/Vegas/SACK); at high PER Tahoe beats Vegas in 3E.",
            "Vegas has the lowest 3E of the three at 0 < PER ≤ 7 %, and Tahoe's 3E < Vegas's at PER > 15 %",
            e, low + high, r15, lambda: at_extremes(("tahoe", "vegas", "sack"), "eee", fmt3)))

    rho = stats.spearmanr(points["goodput_bps"], points["eee"])[0] if len(points) > 2 else float("nan")
    per_point = [
        stats.spearmanr(grp["goodput_bps"], grp["eee"])[0]
        for _, grp in points.groupby(["model", "per"])
        if grp["goodput_bps"].nunique() > 1 and grp["eee"].nunique() > 1
    ]
    within = float(np.nanmean(per_point)) if per_point else float("nan")
    claims.append(Claim(
        "R1.6", "Goodput is the most significant factor for energy efficiency: 3E ranks protocols inversely to goodput.",
        "Spearman rank correlation of goodput and 3E over all points < −0.8, and across variants at each point",
        AGREES if rho < -0.8 and within < -0.8 else (PARTLY if rho < -0.5 else DISAGREES),
        f"ρ = {rho:.3f} over all {len(points)} points; mean ρ across variants within a point = {within:.3f}"))

    if e.has("sack") and high:
        variants = sorted(set(points.variant))
        def r17(m, p):
            ranked = sorted(variants, key=lambda v: eee(m, v, p))
            return ranked.index("sack") >= len(variants) / 2
        trend = [stats.spearmanr(e.pers, [eee(m, "sack", p) for p in e.pers])[0] for m in e.models]
        share, k, n = e.share(high, r17)
        ok = share >= MAJORITY and all(t > 0.8 for t in trend)
        claims.append(Claim(
            "R1.7", "SACK is one of the most energy-consuming protocols, and worsens as the error rate grows.",
            "SACK's 3E is in the worse half of the variants at PER > 15 %, and rises with PER (Spearman ρ > 0.8)",
            AGREES if ok else (PARTLY if share >= 0.5 or all(t > 0.8 for t in trend) else DISAGREES),
            f"worse half at {k} of {n} high-PER points; ρ(PER, 3E) = "
            + ", ".join(f"{m} {t:.2f}" for m, t in zip(e.models, trend))
            + "; " + at_extremes(("sack", "tahoe", "newreno"), "eee", fmt3)))

    if e.has("tahoe", "westwood"):
        positive = [p for p in e.pers if p > 0]
        claims.append(_share_claim(
            "R1.8", "Westwood does not beat Tahoe at random or burst errors.",
            "Westwood's goodput ≤ Tahoe's and its 3E ≥ Tahoe's at every PER > 0",
            e, positive, lambda m, p: g(m, "westwood", p) <= g(m, "tahoe", p) and eee(m, "westwood", p) >= eee(m, "tahoe", p),
            lambda: at_extremes(("tahoe", "westwood"), "goodput_bps")))
    return claims


def experiment2_claims(points: pd.DataFrame, alpha: float) -> list[Claim]:
    """R2.1–R2.7 over Experiment 2's per-point means (one row per n and variant)."""
    piv = points.pivot_table(index="flows", columns="variant", values=["fairness", "goodput_bps", "eee_system"])
    gain = points.groupby("flows")["energy_gain_pct"].first()
    ns = list(piv.index)

    def row(n: int) -> dict:
        return {k: float(piv.loc[n, k]) for k in piv.columns}

    def describe(n: int) -> str:
        r = row(n)
        return (
            f"n={n}: F.I. T {r[('fairness', 'tahoe')]:.3f} / V {r[('fairness', 'vegas')]:.3f}, "
            f"goodput T {_kbps(r[('goodput_bps', 'tahoe')])} / V {_kbps(r[('goodput_bps', 'vegas')])}, "
            f"3E_s T {r[('eee_system', 'tahoe')]:.3f} / V {r[('eee_system', 'vegas')]:.3f}, gain {gain[n]:+.2f} %"
        )

    def per_n(cid: str, paper: str, test: str, want: list[int], pred) -> Claim:
        have = [n for n in want if n in ns]
        if not have:
            return Claim(cid, paper, test, UNTESTED, f"n = {want} not in this run (ran {ns})")
        ok = [n for n in have if pred(row(n), n)]
        return Claim(cid, paper, test, _verdict(len(ok) / len(have)),
                     f"holds at n = {ok or 'none'} of {have}; " + "; ".join(describe(n) for n in have))

    fi = lambda r, v: r[("fairness", v)]  # noqa: E731
    gp = lambda r, v: r[("goodput_bps", v)]  # noqa: E731
    ee = lambda r, v: r[("eee_system", v)]  # noqa: E731
    claims = [
        per_n("R2.1", "At n = 5, 8, 25 Tahoe's goodput ≥ Vegas's, Vegas is fairer, and Vegas has the lower system 3E.",
              "at each of n = 5, 8, 25: G_Tahoe ≥ G_Vegas, F.I._Vegas > F.I._Tahoe, 3E_s,Vegas < 3E_s,Tahoe",
              [5, 8, 25], lambda r, n: gp(r, "tahoe") >= gp(r, "vegas") and fi(r, "vegas") > fi(r, "tahoe") and ee(r, "vegas") < ee(r, "tahoe")),
        per_n("R2.2", "At n = 3 Vegas is fairer but its goodput is poor, and Tahoe has the better energy potential.",
              "at n = 3: F.I._Vegas > F.I._Tahoe, G_Vegas < G_Tahoe, 3E_s,Tahoe < 3E_s,Vegas",
              [3], lambda r, n: fi(r, "vegas") > fi(r, "tahoe") and gp(r, "vegas") < gp(r, "tahoe") and ee(r, "tahoe") < ee(r, "vegas")),
    ]
    big = [n for n in ns if abs(gp(row(n), "tahoe") - gp(row(n), "vegas")) / max(gp(row(n), "vegas"), 1.0) > 0.05]
    if big:
        follow = [n for n in big if (gp(row(n), "tahoe") > gp(row(n), "vegas")) == (ee(row(n), "tahoe") < ee(row(n), "vegas"))]
        claims.append(Claim(
            "R2.3", "As the goodput gap grows, fairness matters less: energy performance follows goodput.",
            "wherever the system goodputs differ by > 5 %, the system with more goodput has the lower 3E_s",
            _verdict(len(follow) / len(big)), f"holds at {len(follow)} of {len(big)} such n ({big})"))
    else:
        claims.append(Claim("R2.3", "As the goodput gap grows, fairness matters less: energy performance follows goodput.",
                            "wherever the system goodputs differ by > 5 %, the system with more goodput has the lower 3E_s",
                            UNTESTED, "the two systems' goodputs are within 5 % at every n"))
    claims.append(per_n(
        "R2.4", "At n = 5, 8, 25 the Vegas system gains fairness and loses goodput, yet its energy potential is higher.",
        "at each of n = 5, 8, 25: F.I._Vegas > F.I._Tahoe, G_Vegas < G_Tahoe, 3E_s,Vegas < 3E_s,Tahoe",
        [5, 8, 25], lambda r, n: fi(r, "vegas") > fi(r, "tahoe") and gp(r, "vegas") < gp(r, "tahoe") and ee(r, "vegas") < ee(r, "tahoe")))
    claims.append(per_n(
        "R2.5", "The actual energy gain of Tahoe over Vegas attributable to fairness does not exceed 1 % of the transmitter's energy.",
        "|energy gain| ≤ 1 % at n = 5, 8, 25 (the points where the paper attributes the difference to fairness)",
        [5, 8, 25], lambda r, n: abs(gain[n]) <= 1.0))
    best = gain.idxmax()
    claims.append(Claim(
        "R2.6", "Overall, Tahoe's energy gain reaches 6 %.",
        "the largest Tahoe energy gain over n lies between 4 % and 8 %",
        AGREES if 4.0 <= gain.max() <= 8.0 else DISAGREES,
        f"largest gain {gain.max():+.2f} % at n = {best}; smallest {gain.min():+.2f} % at n = {gain.idxmin()}"))
    ideal = 0.04 * alpha
    worst_best = float(points["eee_system"].min())
    claims.append(Claim(
        "R2.7", "Both protocols are far from energy-conserving strategies.",
        f"every system 3E is at least twice the ideal protocol's 0.04·α = {ideal:.3f}",
        AGREES if worst_best >= 2 * ideal else DISAGREES,
        f"lowest system 3E measured: {worst_best:.3f} ({worst_best / ideal:.1f}× the ideal)"))
    return claims


def claims_frame(claims: list[Claim]) -> pd.DataFrame:
    """The claims as a table (for claims.csv)."""
    return pd.DataFrame([c.__dict__ for c in claims])
