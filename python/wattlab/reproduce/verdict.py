"""Claims and verdicts, one vocabulary for every reproduction: the :class:`Claim` record, the
four verdicts, the named rules that turn measurements into a verdict (each with its thresholds
as arguments, so a claim's code says which band it uses), and the claims table.

A rule returns ``AGREES``, ``PARTLY`` or ``DISAGREES`` (a rule over a list of checks returns
``UNTESTED`` when the list is empty): a verdict can always fail, and every reproduction's tests
drive each claim to each verdict it can reach.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Iterable, Sequence

AGREES, PARTLY, DISAGREES, UNTESTED = "agrees", "partly", "disagrees", "not tested"
VERDICTS = (AGREES, PARTLY, DISAGREES, UNTESTED)
"""Every verdict, best first."""


@dataclass
class Claim:
    """One claim of a seed paper (or of an issue's target) and wattlab's verdict on it."""

    id: str
    paper: str
    """What the paper says (or, with ``claim`` set, the paper's number)."""
    test: str
    """Our operational test of it (empty when the rule is the reproduction's general one)."""
    verdict: str
    """One of :data:`VERDICTS`."""
    evidence: str
    """Our numbers that decide the verdict."""
    claim: str = ""
    """What is claimed, when ``paper`` holds only the paper's value (paper 000)."""
    reason: str = ""
    """The likely reason for a gap (paper 000)."""


COLUMNS = (("id", "id"), ("paper", "paper"), ("test", "test"), ("verdict", "verdict"), ("evidence", "evidence"))
"""claims.csv's columns (column name, :class:`Claim` field) unless a reproduction names others."""


def frame(claims: Sequence[Claim], columns: Sequence[tuple[str, str]] = COLUMNS):
    """claims.csv (and ``--json``'s records): one row per claim, ``columns`` in order."""
    import pandas as pd

    return pd.DataFrame([{col: asdict(c)[f] for col, f in columns} for c in claims], columns=[c for c, _ in columns])


def counts(claims: Iterable[Claim]) -> dict[str, int]:
    """How many claims got each verdict (every verdict present, 0 included)."""
    out = dict.fromkeys(VERDICTS, 0)
    for c in claims:
        out[c.verdict] += 1
    return out


def tally(claims: Iterable[Claim]) -> str:
    """"3 agree, 1 partly, 0 disagree, 2 not tested"."""
    n = counts(claims)
    return f"{n[AGREES]} agree, {n[PARTLY]} partly, {n[DISAGREES]} disagree, {n[UNTESTED]} not tested"


# --- rules -----------------------------------------------------------------------------------

def graded(agrees: bool, partly: bool) -> str:
    """AGREES when ``agrees`` holds, else PARTLY when ``partly`` holds, else DISAGREES: the
    rule of a claim whose two bands are conditions of its own (stated in its test text)."""
    return AGREES if agrees else PARTLY if partly else DISAGREES


def share(fraction: float, agrees: float = 1.0, partly: float = 0.5) -> str:
    """A fraction of checks that hold: ≥ ``agrees`` agrees, ≥ ``partly`` is partly right."""
    return graded(fraction >= agrees, fraction >= partly)


def checks(held: Sequence[bool], agrees: float = 1.0, partly: float = 0.5) -> str:
    """:func:`share` of a list of checks; UNTESTED when there is none."""
    if not held:
        return UNTESTED
    return share(sum(bool(c) for c in held) / len(held), agrees, partly)


def at_most(x: float, agrees: float, partly: float) -> str:
    """A deviation or cost: ≤ ``agrees`` agrees, ≤ ``partly`` is partly right."""
    return graded(x <= agrees, x <= partly)


def at_least(x: float, agrees: float, partly: float) -> str:
    """A gain or margin: ≥ ``agrees`` agrees, ≥ ``partly`` is partly right."""
    return graded(x >= agrees, x >= partly)


def within(diffs: Iterable[float], agrees: float, partly: float, slack: float = 0.0) -> str:
    """Absolute differences from the paper (fractions or points): agrees when *every* one is
    within ``agrees`` (+ ``slack`` for rounding), partly when every one is within ``partly``;
    one close component does not make a claim partly right."""
    worst = max((abs(d) for d in diffs), default=0.0)
    return at_most(worst, agrees + slack, partly + slack)


def within_rel(pairs: Iterable[tuple[float, float]], agrees: float = 0.15, partly: float = 0.30) -> str:
    """(ours, paper's) pairs: every relative error |ours − paper| / paper within ``agrees``
    agrees, every one within ``partly`` is partly right."""
    return within((abs(w - s) / s for w, s in pairs), agrees, partly)


def factor_within(pairs: Iterable[tuple[float, float]], agrees: float = 1.5, partly: float = 3.0) -> str:
    """(ours, paper's) pairs of order-of-magnitude numbers: every ratio within ``agrees``× of the
    paper's either way agrees, within ``partly``× is partly right; UNTESTED when there is none."""
    ratios = [max(w / s, s / w) for w, s in pairs]
    if not ratios:
        return UNTESTED
    return at_most(max(ratios), agrees, partly)


def in_band(x: float | Iterable[float], agrees: tuple[float, float], partly: tuple[float, float]) -> str:
    """A value (or every one of several) that must lie in a range: inside ``agrees`` (lo, hi,
    inclusive) agrees, inside ``partly`` is partly right."""
    xs = [x] if isinstance(x, (int, float)) else list(x)
    return graded(all(agrees[0] <= v <= agrees[1] for v in xs), all(partly[0] <= v <= partly[1] for v in xs))


RANK = {AGREES: 0, PARTLY: 1, DISAGREES: 2}


def worst(*verdicts: str) -> str:
    """The least favourable of several tested verdicts (a claim with an ordering and a number)."""
    return max(verdicts, key=RANK.__getitem__)


def finite(x: float | None) -> bool:
    """True for a real number (not None, NaN or infinite): a measurement a rule can judge."""
    return x is not None and math.isfinite(x)
