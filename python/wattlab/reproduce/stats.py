"""The interval drawn around a statistic over repetitions (seeds), in one place for every
reproduction: which interval fits the statistic and the sample size, clipped to the quantity's
domain, and the words that say what the bars are.

The rule (docs/reproductions.md, "Error bars"):

- **mean**: the 95 % Student-t interval of the mean when n ≥ 3; with n = 2 the t quantile
  has one degree of freedom (12.7) and the interval says nothing the two values do not, so
  the bar spans the two values (min–max); with n = 1 there is no bar;
- **median**: the range (min–max) of the values when n ≥ 2, none with n = 1. With the few
  seeds of a reproduction (3–5) quartiles say little beyond the range, which is what is drawn;
- every interval is clipped to the quantity's domain (goodput ≥ 0, Jain's index in [1/n, 1],
  3E in [0, α], …) and always contains the plotted estimate.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Iterable, Mapping

import numpy as np
from scipy import stats as _st

MEAN = "mean"
MEDIAN = "median"

T_MIN_N = 3
"""Fewest values for a Student-t interval of the mean (fewer: the values' range, or none)."""
CONFIDENCE = 0.95

NONE, T_INTERVAL, RANGE = "none", "t", "range"
"""Kinds of interval."""

Domain = tuple[float, float]
UNBOUNDED: Domain = (-math.inf, math.inf)
NON_NEGATIVE: Domain = (0.0, math.inf)


@dataclass(frozen=True)
class Interval:
    """A statistic over n values and the interval drawn around it."""

    center: float
    lo: float
    hi: float
    kind: str
    n: int


def center(values: Iterable[float], statistic: str) -> float:
    """The mean or the median of ``values`` (NaN when there are none)."""
    v = _clean(values)
    if not len(v):
        return math.nan
    return float(v.mean()) if statistic == MEAN else float(np.median(v))


def interval(values: Iterable[float], statistic: str, domain: Domain = UNBOUNDED,
             confidence: float = CONFIDENCE) -> Interval:
    """The statistic of ``values`` and the interval that fits it and n, clipped to ``domain``."""
    if statistic not in (MEAN, MEDIAN):
        raise ValueError(f"unknown statistic {statistic!r} (valid: {MEAN}, {MEDIAN})")
    v = _clean(values)
    c = center(v, statistic)
    kind = kind_for(statistic, len(v))
    if kind == T_INTERVAL:
        half = float(_st.t.ppf(0.5 + confidence / 2, len(v) - 1) * np.std(v, ddof=1) / math.sqrt(len(v)))
        lo, hi = c - half, c + half
    elif kind == RANGE:
        lo, hi = float(v.min()), float(v.max())
    else:
        lo = hi = c
    return Interval(c, *_clip(c, lo, hi, domain), kind, len(v))


def kind_for(statistic: str, n: int) -> str:
    """Which interval the rule draws for ``statistic`` over ``n`` values."""
    if n < 2:
        return NONE
    if statistic == MEAN and n >= T_MIN_N:
        return T_INTERVAL
    return RANGE


def _clean(values: Iterable[float]) -> np.ndarray:
    v = np.asarray(list(values), dtype=float)
    return v[np.isfinite(v)]


def _clip(c: float, lo: float, hi: float, domain: Domain) -> tuple[float, float]:
    # Clip to the domain but never past the estimate itself (a measured value may sit just
    # outside, e.g. a 3E a hair below 0 when Thr exceeds Thr_max by noise; it stays visible).
    dlo, dhi = domain
    lo, hi = max(lo, dlo), min(hi, dhi)
    if math.isfinite(c):
        lo, hi = min(lo, c), max(hi, c)
    return lo, hi


Domains = Mapping[str, "Domain | Callable[[dict], Domain]"]
"""Column → its domain, or a function of the group's key that gives it."""


def domain_for(domains: Domains | None, column: str, key: dict) -> Domain:
    """``column``'s domain for the group ``key`` (unbounded when not given)."""
    dom = (domains or {}).get(column, UNBOUNDED)
    return dom(key) if callable(dom) else dom


def yerr(center_values: Iterable[float], lo: Iterable[float], hi: Iterable[float],
         scale: float = 1.0) -> np.ndarray | None:
    """Matplotlib's 2×N ``yerr`` for bars from ``lo`` to ``hi`` around ``center_values``; None
    when no point has a bar (one seed), so no empty caps are drawn."""
    c = np.asarray(list(center_values), dtype=float)
    below = np.nan_to_num(c - np.asarray(list(lo), dtype=float), nan=0.0)
    above = np.nan_to_num(np.asarray(list(hi), dtype=float) - c, nan=0.0)
    err = np.vstack([np.clip(below, 0, None), np.clip(above, 0, None)]) * scale
    return err if err.any() else None


def count(ns: Iterable[int], unit: str = "seeds") -> str:
    """'3 seeds', '1 seed' or '2–3 seeds' for the sample sizes ``ns``."""
    ns = sorted({int(n) for n in ns if n == n})
    if not ns:
        return f"no {unit}"
    num = f"{ns[0]}" if len(ns) == 1 else f"{ns[0]}–{ns[-1]}"
    return f"{num} {unit.removesuffix('s') if ns == [1] else unit}"


def bars_text(statistic: str, ns: Iterable[int], unit: str = "seeds", domain_note: str = "") -> str:
    """What the marks and the bars of a figure are, e.g. 'mean over 5 seeds; bars: 95 % t-interval of the mean'."""
    ns = sorted({int(n) for n in ns if n == n})
    if not ns:
        return ""
    kinds = {}
    for n in ns:
        kinds.setdefault(kind_for(statistic, n), []).append(n)
    parts = []
    for kind, where in kinds.items():
        cond = "" if len(kinds) == 1 else f" where n = {', '.join(map(str, where))}"
        if kind == T_INTERVAL:
            parts.append(f"{100 * CONFIDENCE:g} % Student-t interval of the mean{cond}")
        elif kind == RANGE:
            parts.append(f"min–max of the {unit}{cond}" + (" (too few for a t-interval)" if statistic == MEAN else ""))
        else:
            parts.append(f"none{cond} (one value)")
    text = f"{statistic} over {count(ns, unit)}; bars: " + "; ".join(parts)
    return text + (f", {domain_note}" if domain_note and any(k != NONE for k in kinds) else "")


def describe(iv: Interval, fmt: Callable[[float], str] = "{:.2f}".format, unit: str = "") -> str:
    """A statistic and its interval as text: '7.45 % (95 % t-interval: 3.10 to 11.80 %)', or '7.45 %' for n = 1."""
    head = f"{fmt(iv.center)}{unit}"
    if iv.kind == NONE:
        return head
    what = f"{100 * CONFIDENCE:g} % t-interval" if iv.kind == T_INTERVAL else f"min–max of {iv.n}"
    return f"{head} ({what}: {fmt(iv.lo)} to {fmt(iv.hi)}{unit})"
