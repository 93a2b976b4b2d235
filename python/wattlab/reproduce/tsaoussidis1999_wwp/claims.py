"""Paper 004's claims about Table 1 (notes/004.md §15), each turned into a test over the
measured WWP/TCP ratios (``experiments.ratios``) that can agree, partly agree or disagree.

Rule (``verdict.checks``): a claim checked over several (set, condition) checks **agrees** when
every one holds, is **partly** right from 50 %, else **disagrees**; **not tested** when the sets it needs were
not run. Each claim's test text states its reading of the paper's words, so a reader can
disagree with the reading. tests/python/test_wwp_reproduction.py drives every claim to each
verdict with synthetic ratios.
"""

from __future__ import annotations


import pandas as pd

from .. import verdict
from ..verdict import AGREES, DISAGREES, PARTLY, UNTESTED, Claim  # noqa: F401  (the vocabulary, for tests)

ALL_HOLD, HALF_HOLD = 1.0, 0.5
"""A claim agrees when every one of its (set, condition) checks holds, is partly right from half."""
RULE = verdict.share_rule(ALL_HOLD, HALF_HOLD, "(set, condition) checks")
"""The verdict rule for summary.md, generated from the thresholds :func:`_verdict` uses."""
SEVERAL = 3.0
"""'Several times': at least 3×."""
EQUAL_EO = 0.25
"""'About equal' effort overhead: within ±25 % of each other."""
MUCH_MORE = 10.0
"""'≫': at least 10×."""



def _verdict(checks: list[bool]) -> str:
    # Agreeing means every check holds; a claim that fails in some sets only partly agrees.
    return verdict.checks(checks, agrees=ALL_HOLD, partly=HALF_HOLD)


def _rows(r: pd.DataFrame, sets: tuple[int, ...]) -> list:
    return [row for _, row in r.iterrows() if int(row["set"]) in sets]


def _fmt(rows, col: str, spec: str = "{:.2f}") -> str:
    return ", ".join(f"set {int(x['set'])}: {spec.format(x[col])}" for x in rows)


def periodic_congestion(r: pd.DataFrame) -> Claim:
    """C1: sets 1, 2, 4, 5: WWP delivers several times TCP's data with lower effort overhead."""
    rows = _rows(r, (1, 2, 4, 5))
    checks = [x.original_data >= SEVERAL for x in rows] + [x.wwp_effort_overhead < x.tcp_effort_overhead for x in rows]
    return Claim("C1", "With periodic (on/off) drops, WWP delivers 6–10× TCP's data at a lower effort overhead (sets 1, 2, 4, 5).",
                 f"per set: WWP/TCP original data ≥ {SEVERAL:g} and EO(WWP) < EO(TCP)", _verdict(checks),
                 f"data ratio {_fmt(rows, 'original_data')}; EO TCP/WWP {_fmt(rows, 'effort_overhead_tcp_over_wwp')}")


def six_to_ten(r: pd.DataFrame) -> Claim:
    """C2: the text's '6–10 times' as a range."""
    rows = _rows(r, (1, 2, 4, 5))
    checks = [6.0 <= x.original_data <= 10.0 for x in rows]
    return Claim("C2", "WWP's throughput is \"6–10 times\" TCP's in the periodic sets (the paper's own table gives 6.8–11.6).",
                 "per set 1, 2, 4, 5: 6 ≤ WWP/TCP original data ≤ 10", _verdict(checks),
                 f"{_fmt(rows, 'original_data')} (paper {_fmt(rows, 'paper_original_data')})")


def continuous_congestion(r: pd.DataFrame) -> Claim:
    """C3: set 3: WWP delivers less than TCP at about equal effort overhead."""
    rows = _rows(r, (3,))
    checks = [x.original_data < 1.0 for x in rows] + [abs(x.wwp_effort_overhead / x.tcp_effort_overhead - 1) <= EQUAL_EO for x in rows]
    return Claim("C3", "Under continuous congestion (set 3) WWP delivers about half TCP's data at a comparable effort overhead.",
                 f"set 3: WWP/TCP original data < 1 and the EOs within ±{100 * EQUAL_EO:g} %", _verdict(checks),
                 f"data ratio {_fmt(rows, 'original_data')}; EO TCP {_fmt(rows, 'tcp_effort_overhead', '{:.3f}')}, "
                 f"WWP {_fmt(rows, 'wwp_effort_overhead', '{:.3f}')}")


def unstable_errors(r: pd.DataFrame) -> Claim:
    """C4: set 7: WWP ≫ TCP (and a lower effort overhead)."""
    rows = _rows(r, (7,))
    checks = [x.original_data >= MUCH_MORE for x in rows] + [x.original_data >= SEVERAL for x in rows] + \
             [x.wwp_effort_overhead < x.tcp_effort_overhead for x in rows]
    return Claim("C4", "With an unstable error pattern and no delay (set 7) TCP wastes energy and time while WWP exploits the "
                 "error-free periods: 22× the data.",
                 f"set 7: WWP/TCP original data ≥ {MUCH_MORE:g} and ≥ {SEVERAL:g} (two checks), EO(WWP) < EO(TCP)",
                 _verdict(checks), f"data ratio {_fmt(rows, 'original_data')}; EO TCP/WWP {_fmt(rows, 'effort_overhead_tcp_over_wwp')}")


def stable_errors(r: pd.DataFrame) -> Claim:
    """C5: set 6: both adapt; WWP is not aggressive (comparable data, lower EO)."""
    rows = _rows(r, (6,))
    checks = [0.5 <= x.original_data <= 2.0 for x in rows] + [x.wwp_effort_overhead < x.tcp_effort_overhead for x in rows]
    return Claim("C5", "With a stable 5 % error pattern and no delay (set 6) both adapt: WWP delivers about TCP's data (1.09×) "
                 "at a lower effort overhead.", "set 6: 0.5 ≤ WWP/TCP original data ≤ 2 and EO(WWP) < EO(TCP)",
                 _verdict(checks), f"data ratio {_fmt(rows, 'original_data')}; EO TCP/WWP {_fmt(rows, 'effort_overhead_tcp_over_wwp')}")


def receiver_overhead(r: pd.DataFrame) -> Claim:
    """C6: WWP's receiver overhead per delivered byte is far below TCP's, in every set."""
    rows = _rows(r, tuple(range(1, 8)))
    checks = [x.receiver_overhead / x.original_data < 0.5 for x in rows if x.original_data > 0]
    return Claim("C6", "WWP's receiver overhead is far below TCP's (one N-S_ACK per wave instead of an ACK per 1–2 segments).",
                 "per set: (WWP/TCP receiver overhead) / (WWP/TCP original data) < 0.5, i.e. under half TCP's per byte",
                 _verdict(checks), _fmt(rows, "receiver_overhead"))


def energy(r: pd.DataFrame) -> Claim:
    """C7: the paper's premise, measured: less radio energy per delivered byte where WWP's EO is lower."""
    rows = _rows(r, (1, 2, 4, 5, 7))
    checks = [x.j_per_mb_always_on < 1.0 for x in rows] + [x.j_per_mb_oracle < 1.0 for x in rows]
    return Claim("C7", "WWP saves the mobile's energy (measured by the paper only as bytes sent).",
                 "sets 1, 2, 4, 5, 7: WWP/TCP radio energy per delivered MB of both ends < 1, always-on and oracle power save",
                 _verdict(checks), f"always-on {_fmt(rows, 'j_per_mb_always_on')}; oracle {_fmt(rows, 'j_per_mb_oracle')}")


ALL = (periodic_congestion, six_to_ten, continuous_congestion, unstable_errors, stable_errors, receiver_overhead, energy)


def evaluate(r: pd.DataFrame) -> list[Claim]:
    """Every claim's verdict over the ratios table."""
    return [f(r) for f in ALL]

