"""Claims and verdicts, one vocabulary for every reproduction: the :class:`Claim` record, the
verdicts, the named rules that turn measurements into a verdict (each with its thresholds
as arguments, so a claim's code says which band it uses), and the claims table.

A rule returns ``AGREES``, ``PARTLY`` or ``DISAGREES`` (a rule over a list of checks returns
``UNTESTED`` when the list is empty): a verdict can always fail, and every reproduction's tests
drive each claim to each verdict it can reach.

Two verdicts are not agreement and are counted apart (issue 32):

- ``CHECK`` / ``CHECK_FAILED``: a claim that is arithmetic on the paper's own inputs (a closed
  form evaluated at the paper's numbers) reproduces the paper's computation, not a measurement
  of wattlab's: :func:`arithmetic` turns its rule's verdict into "check" (every value
  reproduced) or "check failed" (some not);
- ``NOT_COMPARABLE``: a ``--quick`` run whose preset changes the quantity the paper reports
  (1 MB files for 10 MB, 100 s for 200 s) is not compared with the paper's number:
  :func:`mark_quick` sets it, keeping what the rule said in the evidence.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace
from typing import Iterable, Sequence

AGREES, PARTLY, DISAGREES, UNTESTED = "agrees", "partly", "disagrees", "not tested"
CHECK, CHECK_FAILED = "check", "check failed"
"""Arithmetic on the paper's own inputs reproduced (or not): never counted as agreement."""
NOT_COMPARABLE = "quick: not comparable"
"""A ``--quick`` preset changed the quantity the claim compares with the paper's number."""
VERDICTS = (AGREES, PARTLY, DISAGREES, UNTESTED, CHECK, CHECK_FAILED, NOT_COMPARABLE)
"""Every verdict: the judged ones best first, then those that are not a judgement of wattlab."""


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
    """"3 agree, 1 partly, 0 disagree, 2 not tested", then the checks and the quick-preset claims
    when there are any ("; 3 checks (1 failed), 2 quick: not comparable")."""
    n = counts(claims)
    text = f"{n[AGREES]} agree, {n[PARTLY]} partly, {n[DISAGREES]} disagree, {n[UNTESTED]} not tested"
    extra = []
    if n[CHECK] or n[CHECK_FAILED]:
        extra.append(f"{n[CHECK] + n[CHECK_FAILED]} check{'s' if n[CHECK] + n[CHECK_FAILED] != 1 else ''} of the paper's "
                     f"own arithmetic ({n[CHECK_FAILED]} failed; not counted as agreement)")
    if n[NOT_COMPARABLE]:
        extra.append(f"{n[NOT_COMPARABLE]} {NOT_COMPARABLE}")
    return "; ".join([text, *extra])


def arithmetic(rule_verdict: str) -> str:
    """A claim that is arithmetic on the paper's own inputs: CHECK when its rule agrees (every
    value reproduced), CHECK_FAILED when it does not, UNTESTED stays."""
    if rule_verdict == UNTESTED:
        return UNTESTED
    return CHECK if rule_verdict == AGREES else CHECK_FAILED


def mark_quick(claims: Sequence[Claim], changed: dict[str, str]) -> list[Claim]:
    """The claims of a ``--quick`` run: each whose id is in ``changed`` (id → what the preset
    changes in its quantity; a key ending in ``*`` names every id it begins) gets
    NOT_COMPARABLE, its evidence keeping what the rule said; a claim not tested stays so."""
    out = []
    for c in claims:
        why = changed.get(c.id, next((w for k, w in changed.items() if k.endswith("*") and c.id.startswith(k[:-1])), None))
        if why is None or c.verdict in (UNTESTED, NOT_COMPARABLE):
            out.append(c)
            continue
        out.append(replace(c, verdict=NOT_COMPARABLE,
                           evidence=f"{c.evidence} (quick preset: {why}; the rule would say \"{c.verdict}\")"))
    return out


def share_rule(agrees: float, partly: float, checks: str = "checks") -> str:
    """The sentence of the :func:`share` rule at these thresholds, for a summary: "agrees when
    every one of a claim's checks holds, partly from 50 %, else disagrees" (``agrees`` = 1) or
    "... at least 75 % of ..."; so a printed rule is the code's."""
    head = f"every one of a claim's {checks} holds" if agrees >= 1.0 else \
        f"at least {100 * agrees:g} % of a claim's {checks} hold"
    return f"agrees when {head}, partly from {100 * partly:g} %, else disagrees"


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


EXPLAINS_MOST, EXPLAINS_PART = 0.5, 0.1
"""Issue 32's settling experiments: a hypothesis explains "most" of a gap from 50 % of it,
"part" from 10 %, else it does not explain it (one rule for every reproduction)."""

RANK = {AGREES: 0, PARTLY: 1, DISAGREES: 2}


def worst(*verdicts: str) -> str:
    """The least favourable of several tested verdicts (a claim with an ordering and a number)."""
    return max(verdicts, key=RANK.__getitem__)


def finite(x: float | None) -> bool:
    """True for a real number (not None, NaN or infinite): a measurement a rule can judge."""
    return x is not None and math.isfinite(x)
