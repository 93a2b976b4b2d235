"""The paper's claims R1.1–R2.7 (notes/003.md §6.3–6.4), each turned into a test over our
measured points that says whether wattlab agrees, with the numbers that decide it.

Each test is an operational reading of a sentence of the paper; the reading is part of the
claim's text so a reader can disagree with it. Comparisons use the means over seeds; the CSV
files carry the confidence intervals.

Verdict rules (docs/reproductions.md, "Verdicts"; tests/python/test_kontogiannis2005_claims.py
drives every claim to each of its verdicts):

- a claim checked at several points, or several conditions at a point, **agrees** when at
  least 75 % of the (point, condition) checks hold, is **partly** right from 50 %, else
  **disagrees**;
- a correlation (R1.6: goodput against the measured energy per delivered bit, not against 3E,
  which is computed from goodput) agrees below ρ = −0.8 when goodput ranks it more strongly
  than the overhead does, partly below −0.5;
- a number (R2.6's 6 %) agrees within 2 percentage points, partly within 4, and takes the worse
  of that and the share of n where Tahoe gains at all;
- **not tested** when the run lacks the variants, error rates or system sizes the claim needs
  (the claim is still listed, never dropped).
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import pandas as pd
from scipy import stats

from .. import verdict
from ..verdict import AGREES, DISAGREES, PARTLY, UNTESTED, Claim  # noqa: F401  (the vocabulary, for tests)

LOW_PER_MAX = 0.07
"""The paper's 'low-error region (0–7 %)'."""
HIGH_PER_MIN = 0.15
"""Reno degrades 'when PER > 15 %'."""
MAJORITY, HALF = 0.75, 0.5
"""Share of points a per-point ordering must hold at for 'agrees' (below half: 'disagrees')."""
RHO_AGREES, RHO_PARTLY = -0.8, -0.5
"""R1.6: Spearman's ρ of goodput and the measured radio energy per delivered bit below which
the ranking is inverse (agrees / partly)."""
RISING_RHO = 0.8
"""R1.7: ρ(PER, 3E) above which SACK's 3E "worsens as the error rate grows"."""


GAIN_PAPER = 6.0
"""R2.6: the paper's largest energy gain of Tahoe, %."""
GAIN_AGREE_PP, GAIN_PARTLY_PP = 2.0, 4.0

RULE = (verdict.share_rule(MAJORITY, HALF, "(point, condition) checks")
        + f"; R1.6 agrees when ρ(goodput, measured J per delivered bit) < {RHO_AGREES:g} and goodput ranks energy "
        f"more strongly than the overhead does, partly when ρ < {RHO_PARTLY:g}; R2.6 takes the worse of the largest "
        f"gain within {GAIN_AGREE_PP:g} / {GAIN_PARTLY_PP:g} percentage points of {GAIN_PAPER:g} % and the share of n "
        f"where Tahoe gains at all (the rule above); docs/reproductions.md, Verdicts")
"""The verdict rule in one sentence, for summary.md, from the thresholds the code uses."""


def _verdict(share: float) -> str:
    """≥ 75 % of the checks hold → agrees, ≥ 50 % → partly, else disagrees."""
    return verdict.share(share, agrees=MAJORITY, partly=HALF)


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


TEXT = {
    "R1.1": ("Low error rates should be used aggressively; as errors grow, conservative behaviour does better.",
             "goodput of the more aggressive blind variant (max of NewReno, SACK) ≥ Tahoe's at 0 < PER ≤ 7 %, "
             "and Tahoe ≥ both at PER > 15 %"),
    "R1.2": ("Reno is the most energy-consuming (highest 3E) of Tahoe, Reno and NewReno when PER > 15 %.",
             "Reno's 3E is the highest of the three at every PER > 15 %"),
    "R1.3": ("Reno's goodput degrades above 15 % PER; at 0.15 and 0.20 lower goodput means higher 3E.",
             "at PER 15 % and 20 %: Reno has the lowest goodput of the three, and goodput and 3E rank inversely"),
    "R1.4": ("In the low-error region (0–7 %) Vegas outperforms Tahoe and SACK in goodput.",
             "Vegas's goodput > Tahoe's and SACK's at every 0 < PER ≤ 7 %"),
    "R1.5": ("At low PER Vegas wastes little (lowest 3E of Tahoe/Vegas/SACK); at high PER Tahoe beats Vegas in 3E.",
             "Vegas has the lowest 3E of the three at 0 < PER ≤ 7 %, and Tahoe's 3E < Vegas's at PER > 15 %"),
    "R1.6": ("Goodput is the most significant factor for energy efficiency: 3E ranks protocols inversely to goodput.",
             "measured radio energy per delivered bit (the meter's joules over goodput × time; not 3E, which is computed "
             "from goodput) against goodput: Spearman ρ over all points < −0.8, and |ρ| above the overhead's (the "
             "retransmission factor) for agrees; ρ < −0.5 partly"),
    "R1.7": ("SACK is one of the most energy-consuming protocols, and worsens as the error rate grows.",
             "SACK's 3E is in the worse half of the variants at PER > 15 %, and rises with PER (Spearman ρ > 0.8)"),
    "R1.8": ("Westwood does not beat Tahoe at random or burst errors.",
             "Westwood's goodput ≤ Tahoe's and its 3E ≥ Tahoe's at every PER > 0"),
    "R2.1": ("At n = 5, 8, 25 Tahoe's goodput ≥ Vegas's, Vegas is fairer, and Vegas has the lower system 3E.",
             "at each of n = 5, 8, 25: G_Tahoe ≥ G_Vegas, F.I._Vegas > F.I._Tahoe, 3E_s,Vegas < 3E_s,Tahoe "
             "(share of the 9 checks)"),
    "R2.2": ("At n = 3 Vegas is fairer but its goodput is poor, and Tahoe has the better energy potential.",
             "at n = 3: F.I._Vegas > F.I._Tahoe, G_Vegas < G_Tahoe, 3E_s,Tahoe < 3E_s,Vegas (share of the 3 checks)"),
    "R2.3": ("As the goodput gap grows, fairness matters less: energy performance follows goodput.",
             "wherever the system goodputs differ by > 5 %, the system with more goodput has the lower 3E_s"),
    "R2.4": ("At n = 5, 8, 25 the Vegas system gains fairness and loses goodput, yet its energy potential is higher.",
             "at each of n = 5, 8, 25: F.I._Vegas > F.I._Tahoe, G_Vegas < G_Tahoe, 3E_s,Vegas < 3E_s,Tahoe "
             "(share of the 9 checks)"),
    "R2.5": ("The actual energy gain of Tahoe over Vegas attributable to fairness does not exceed 1 % of the "
             "transmitter's energy.",
             "|energy gain| ≤ 1 % at n = 5, 8, 25 (the points where the paper attributes the difference to fairness); "
             "gain = (E_Vegas − E_Tahoe) / E_Tahoe"),
    "R2.6": ("Overall, Tahoe's energy gain reaches 6 %.",
             "the worse of: the largest Tahoe energy gain (E_Vegas − E_Tahoe) / E_Tahoe over n within 2 percentage "
             "points of 6 % (partly: within 4), and Tahoe's gain positive at ≥ 75 % of the n (partly: 50 %); a "
             "6 % at one n with losses at the others is not 'overall'"),
    "R2.7": ("Both protocols are far from energy-conserving strategies.",
             "the systems (each n and variant) whose 3E is at least twice the ideal protocol's 0.04·α: all but a "
             "quarter agrees, at least half partly"),
}
"""Per claim: the paper's sentence (notes/003.md §6.3–6.4) and our operational test of it."""

def _claim(cid: str, verdict: str, evidence: str) -> Claim:
    return Claim(cid, *TEXT[cid], verdict, evidence)


def _untested(cid: str, why: str) -> Claim:
    return _claim(cid, UNTESTED, why)


def _share_claim(cid: str, e: Exp1, pers: list[float], pred, detail: Callable[[], str]) -> Claim:
    if not pers:
        return _untested(cid, "no error rates in that range were run")
    share, k, n = e.share(pers, pred)
    return _claim(cid, _verdict(share), f"holds at {k} of {n} points ({_pct(share)}); {detail()}")


def experiment1_claims(points: pd.DataFrame) -> list[Claim]:
    """R1.1–R1.8 over Experiment 1's per-point means; a claim whose variants did not run is 'not tested'."""
    e = Exp1(points)
    g = lambda m, v, p: e.value(m, v, p, "goodput_bps")  # noqa: E731
    eee = lambda m, v, p: e.value(m, v, p, "eee")  # noqa: E731
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
    trio = ("tahoe", "reno", "newreno")

    def r11(m, p):
        aggressive = max(g(m, "newreno", p), g(m, "sack", p))
        return aggressive >= g(m, "tahoe", p) if p <= LOW_PER_MAX else g(m, "tahoe", p) >= aggressive

    def r13(m, p):
        goods = [g(m, v, p) for v in trio]
        eees = [eee(m, v, p) for v in trio]
        return g(m, "reno", p) <= min(goods) and stats.spearmanr(goods, eees)[0] < 0

    def r15(m, p):
        if p <= LOW_PER_MAX:
            return eee(m, "vegas", p) <= min(eee(m, "tahoe", p), eee(m, "sack", p))
        return eee(m, "tahoe", p) < eee(m, "vegas", p)

    at_15_20 = [p for p in e.pers if any(np.isclose(p, q) for q in (0.15, 0.20))]
    positive = [p for p in e.pers if p > 0]
    # (id, variants it needs, error rates, predicate, evidence)
    shared = (
        ("R1.1", ("tahoe", "newreno", "sack"), low + high, r11,
         lambda: at_extremes(("tahoe", "newreno", "sack"), "goodput_bps")),
        ("R1.2", trio, high, lambda m, p: eee(m, "reno", p) >= max(eee(m, v, p) for v in trio),
         lambda: at_extremes(trio, "eee", fmt3)),
        ("R1.3", trio, at_15_20, r13, lambda: at_extremes(trio, "goodput_bps")),
        ("R1.4", ("tahoe", "vegas", "sack"), low, lambda m, p: g(m, "vegas", p) > max(g(m, "tahoe", p), g(m, "sack", p)),
         lambda: at_extremes(("tahoe", "vegas", "sack"), "goodput_bps")),
        ("R1.5", ("tahoe", "vegas", "sack"), low + high, r15, lambda: at_extremes(("tahoe", "vegas", "sack"), "eee", fmt3)),
        ("R1.8", ("tahoe", "westwood"), positive,
         lambda m, p: g(m, "westwood", p) <= g(m, "tahoe", p) and eee(m, "westwood", p) >= eee(m, "tahoe", p),
         lambda: at_extremes(("tahoe", "westwood"), "goodput_bps")),
    )
    claims = {cid: _share_claim(cid, e, pers, pred, detail) if e.has(*need) else _missing(cid, need)
              for cid, need, pers, pred, detail in shared}
    claims["R1.6"] = _r16(points)
    claims["R1.7"] = _r17(e, points, high, lambda: at_extremes(("sack", "tahoe", "newreno"), "eee", fmt3))
    return [claims[c] for c in sorted(claims)]


def _missing(cid: str, variants: tuple[str, ...]) -> Claim:
    return _untested(cid, f"needs {', '.join(variants)}; not all of them were run")


def _r16(points: pd.DataFrame) -> Claim:
    """R1.6: goodput ranks the measured energy per delivered bit inversely, and more strongly
    than the overhead (the other factor the paper names) does. 3E itself is not used: it is
    computed from goodput, so its correlation with goodput could not fail."""
    need = {"goodput_bps", "energy_j", "time_s", "overhead"}
    if not need <= set(points.columns):
        return _untested("R1.6", f"needs {', '.join(sorted(need - set(points.columns)))} per point")
    pts = points[(points["goodput_bps"] > 0) & (points["time_s"] > 0)]
    if len(pts) <= 2:
        return _untested("R1.6", f"too few points with goodput for a rank correlation ({len(pts)})")
    j_per_bit = pts["energy_j"] / (pts["goodput_bps"] * pts["time_s"])
    rho = _rho(pts["goodput_bps"], j_per_bit)
    rho_over = _rho(pts["overhead"], j_per_bit)
    if not np.isfinite(rho):
        return _untested("R1.6", "goodput or energy per bit is the same at every point")
    stronger = abs(rho) > abs(rho_over) if np.isfinite(rho_over) else True
    return _claim("R1.6", verdict.graded(rho < RHO_AGREES and stronger, rho < RHO_PARTLY),
                  f"ρ(goodput, J per delivered bit) = {rho:.3f} over {len(pts)} points; ρ(overhead, J per bit) = "
                  f"{rho_over:.3f}; J per delivered Mb {1e6 * j_per_bit.min():.3f}–{1e6 * j_per_bit.max():.3f}")


def _rho(x: pd.Series, y: pd.Series) -> float:
    """Spearman's ρ, NaN when either side is constant."""
    if x.nunique() < 2 or y.nunique() < 2:
        return float("nan")
    return float(stats.spearmanr(x, y)[0])


def _r17(e: Exp1, points: pd.DataFrame, high: list[float], detail: Callable[[], str]) -> Claim:
    """R1.7: SACK's 3E in the worse half at high PER (share of points) and rising with PER."""
    if not e.has("sack"):
        return _missing("R1.7", ("sack",))
    if not high:
        return _untested("R1.7", "no error rates above 15 % were run")
    variants = sorted(set(points.variant))

    def worse_half(m, p):
        ranked = sorted(variants, key=lambda v: e.value(m, v, p, "eee"))
        return ranked.index("sack") >= len(variants) / 2

    trend = [stats.spearmanr(e.pers, [e.value(m, "sack", p, "eee") for p in e.pers])[0] for m in e.models]
    rising = all(t > RISING_RHO for t in trend)
    share, k, n = e.share(high, worse_half)
    return _claim("R1.7", verdict.graded(share >= MAJORITY and rising, share >= HALF or rising),
                  f"worse half at {k} of {n} high-PER points; ρ(PER, 3E) = "
                  + ", ".join(f"{m} {t:.2f}" for m, t in zip(e.models, trend)) + "; " + detail())


class Exp2:
    """Lookups over Experiment 2's per-(n, variant) means."""

    def __init__(self, points: pd.DataFrame):
        self.points = points
        self.piv = points.pivot_table(index="flows", columns="variant", values=["fairness", "goodput_bps", "eee_system"])
        self.gain = points.groupby("flows")["energy_gain_pct"].first()
        self.ns = list(self.piv.index)

    def v(self, col: str, variant: str, n: int) -> float:
        """One mean: ``col`` of ``variant``'s system of n flows."""
        return float(self.piv.loc[n, (col, variant)])

    def describe(self, n: int) -> str:
        """The numbers behind the checks at n."""
        return (f"n={n}: F.I. T {self.v('fairness', 'tahoe', n):.3f} / V {self.v('fairness', 'vegas', n):.3f}, "
                f"goodput T {_kbps(self.v('goodput_bps', 'tahoe', n))} / V {_kbps(self.v('goodput_bps', 'vegas', n))}, "
                f"3E_s T {self.v('eee_system', 'tahoe', n):.3f} / V {self.v('eee_system', 'vegas', n):.3f}, "
                f"gain {self.gain[n]:+.2f} %")


def _per_n(cid: str, x: Exp2, want: list[int], checks: dict[str, Callable[[int], bool]]) -> Claim:
    """A claim over named checks at each n of ``want``: the share of (n, check) pairs that hold."""
    have = [n for n in want if n in x.ns]
    if not have:
        return _untested(cid, f"n = {want} not in this run (ran {x.ns})")
    results = {n: {name: bool(f(n)) for name, f in checks.items()} for n in have}
    held = sum(ok for r in results.values() for ok in r.values())
    total = len(have) * len(checks)
    marks = "; ".join(f"n={n}: " + ", ".join(f"{name} {'✓' if ok else '✗'}" for name, ok in r.items())
                      for n, r in results.items())
    return _claim(cid, _verdict(held / total),
                  f"{held} of {total} checks hold ({marks}); " + "; ".join(x.describe(n) for n in have))


def experiment2_claims(points: pd.DataFrame, alpha: float) -> list[Claim]:
    """R2.1–R2.7 over Experiment 2's per-point means (one row per n and variant)."""
    x = Exp2(points)
    v = x.v
    vegas_fairer = lambda n: v("fairness", "vegas", n) > v("fairness", "tahoe", n)  # noqa: E731
    tahoe_more = lambda n: v("goodput_bps", "tahoe", n) >= v("goodput_bps", "vegas", n)  # noqa: E731
    vegas_less = lambda n: v("goodput_bps", "vegas", n) < v("goodput_bps", "tahoe", n)  # noqa: E731
    vegas_3e = lambda n: v("eee_system", "vegas", n) < v("eee_system", "tahoe", n)  # noqa: E731
    tahoe_3e = lambda n: v("eee_system", "tahoe", n) < v("eee_system", "vegas", n)  # noqa: E731
    return [
        _per_n("R2.1", x, [5, 8, 25], {"G_T ≥ G_V": tahoe_more, "F.I._V > F.I._T": vegas_fairer, "3E_V < 3E_T": vegas_3e}),
        _per_n("R2.2", x, [3], {"F.I._V > F.I._T": vegas_fairer, "G_V < G_T": vegas_less, "3E_T < 3E_V": tahoe_3e}),
        _r23(x),
        _per_n("R2.4", x, [5, 8, 25], {"F.I._V > F.I._T": vegas_fairer, "G_V < G_T": vegas_less, "3E_V < 3E_T": vegas_3e}),
        _per_n("R2.5", x, [5, 8, 25], {"|gain| ≤ 1 %": lambda n: abs(x.gain[n]) <= 1.0}),
        _r26(x),
        _r27(points, alpha),
    ]


def _r23(x: Exp2) -> Claim:
    """R2.3: where the goodputs differ by > 5 %, the system with more goodput has the lower 3E_s."""
    gp = lambda var, n: x.v("goodput_bps", var, n)  # noqa: E731
    big = [n for n in x.ns if abs(gp("tahoe", n) - gp("vegas", n)) / max(gp("vegas", n), 1.0) > 0.05]
    if not big:
        return _untested("R2.3", "the two systems' goodputs are within 5 % at every n")
    follow = [n for n in big if (gp("tahoe", n) > gp("vegas", n))
              == (x.v("eee_system", "tahoe", n) < x.v("eee_system", "vegas", n))]
    return _claim("R2.3", _verdict(len(follow) / len(big)), f"holds at {len(follow)} of {len(big)} such n ({big})")


def _r26(x: Exp2) -> Claim:
    """R2.6: the largest gain within 2 (agrees) or 4 (partly) percentage points of the paper's 6 %,
    and Tahoe gaining (gain > 0) at most n: the worse of the two."""
    gain = x.gain.dropna()
    if gain.empty:
        return _untested("R2.6", "no energy gain measured")
    off = abs(gain.max() - GAIN_PAPER)
    positive = [n for n, g in gain.items() if g > 0]
    size = verdict.at_most(off, GAIN_AGREE_PP, GAIN_PARTLY_PP)
    sign = _verdict(len(positive) / len(gain))
    return _claim("R2.6", verdict.worst(size, sign),
                  f"largest gain {gain.max():+.2f} % at n = {gain.idxmax()} ({off:.2f} pp from 6 %: {size}); Tahoe gains "
                  f"at {len(positive)} of {len(gain)} n ({sign}): " + ", ".join(f"n={n} {g:+.2f} %" for n, g in gain.items()))


def _r27(points: pd.DataFrame, alpha: float) -> Claim:
    """R2.7: the share of systems (n, variant) whose 3E is at least twice the ideal 0.04·α."""
    ideal = 0.04 * alpha
    eee = points["eee_system"].dropna()
    far = int((eee >= 2 * ideal).sum())
    return _claim("R2.7", _verdict(far / len(eee)),
                  f"{far} of {len(eee)} systems at ≥ 2 × {ideal:.3f}; lowest system 3E {eee.min():.3f} "
                  f"({eee.min() / ideal:.1f}× the ideal), highest {eee.max():.3f}")


def quick_changes(cfg, full) -> dict[str, str]:
    """The claims whose compared number a reduced preset changes: R2.5's and R2.6's energy gains
    are the paper's numbers for 10 MiB flows, and the gain of n flows started within 1 s depends
    on how long they run."""
    if cfg.exp2_bytes == full.exp2_bytes:
        return {}
    why = f"{cfg.exp2_bytes / 2**20:g} MiB flows, the paper's {full.exp2_bytes / 2**20:g} MiB"
    return {"R2.5": why, "R2.6": why}
