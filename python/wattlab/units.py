"""The units table: each result column's and study parameter's readable name and unit, the one
place ``wattlab report`` takes its axis labels and table headers from ("energy (J)", "wired link
delay (ms)").

A column is looked up in :data:`COLUMNS` by its exact name, then by the unit suffix the tables'
columns carry (``_j`` joules, ``_s`` seconds, ``_bps`` bit/s, ...: :data:`SUFFIXES`); a study
parameter (a dotted scenario key) is named by :func:`parameter_name` ("link.wired.delay" →
"wired link delay"). Values are stored in the unit named here; :func:`display` picks the prefix
a figure or table shows them in (seconds as ms when every value is below one second).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Iterable, Mapping


@dataclass(frozen=True)
class Quantity:
    """What a column holds: a readable name, and the unit its values are stored in (None: a
    category or a plain count)."""

    name: str
    unit: str | None = None


FRACTION = "fraction"
"""The unit of a ratio stored as a fraction (0.46) and shown in percent (46.0 %)."""

COLUMNS: dict[str, Quantity] = {
    # radios, savings, trace energy
    "energy_j": Quantity("energy", "J"),
    "baseline_energy_j": Quantity("baseline energy", "J"),
    "saving": Quantity("saving", FRACTION),
    "slowdown": Quantity("slowdown", FRACTION),
    "vs_always_on": Quantity("energy against always-on", FRACTION),
    "share": Quantity("share", FRACTION),
    "awake_fraction": Quantity("time awake", FRACTION),
    "completion_s": Quantity("completion time", "s"),
    "baseline_completion_s": Quantity("baseline completion time", "s"),
    "transitions": Quantity("transitions"),
    "transition_energy_j": Quantity("transition energy", "J"),
    "energy_transitions_j": Quantity("transition energy", "J"),
    "avg_power_mw": Quantity("average power", "mW"),
    "own_j": Quantity("own energy", "J"),
    "tail_j": Quantity("tail energy", "J"),
    "total_j": Quantity("energy caused", "J"),
    "j_per_mb": Quantity("energy per delivered MB", "J/MB"),
    # flows, runs
    "completion_time_s": Quantity("completion time", "s"),
    "goodput_bps": Quantity("goodput", "bit/s"),
    "bytes_delivered": Quantity("bytes delivered", "B"),
    "end_time_s": Quantity("simulated time", "s"),
    "events": Quantity("events"),
    "seed": Quantity("seed"),
    "retransmitted_segments": Quantity("retransmitted segments"),
    "timeouts": Quantity("timeouts"),
    "run_status": Quantity("run status"),
    "policy": Quantity("policy"),
    "basis": Quantity("basis"),
}
"""Columns whose name the suffix rules would not make readable enough."""

SUFFIXES: tuple[tuple[str, str], ...] = (
    ("_j_per_mb", "J/MB"), ("_j", "J"), ("_mj", "mJ"), ("_ns", "ns"), ("_us", "µs"), ("_ms", "ms"), ("_s", "s"),
    ("_bps", "bit/s"), ("_mbps", "Mb/s"), ("_Bps", "B/s"), ("_bytes", "B"), ("_mw", "mW"), ("_w", "W"), ("_pct", "%"),
)
"""Unit suffixes of the result tables' columns (``time_tx_s``, ``srtt_ms``), longest first."""

QUANTITY_SUFFIX = {"duration": "_s", "rate": "_bps", "size": "_bytes"}
"""The numeric column beside a study parameter given as text ("5ms", "10Mbps", "1MB"): its
name is the parameter's plus this suffix, its values in seconds, bit/s or bytes."""
QUANTITY_UNITS = {"duration": "s", "rate": "bit/s", "size": "B"}
"""The unit of each kind of quantity's numeric column."""

PARAMETER_WORDS = {
    "down": "downlink", "up": "uplink", "p": "probability", "power_save": "power-save mode", "bytes": "size",
    "a_to_b": "a→b", "b_to_a": "b→a", "rtt": "RTT", "mss": "MSS", "cwnd": "cwnd",
}
"""Words of a scenario key spelled out in a parameter's name."""

PARAMETER_UNITS = {"bytes": "B"}
"""The unit of a parameter's bare numbers by the key's last word (``flow.0.bytes = 20000``; a
duration or a rate always has a unit in its text)."""

# Each family: base unit, then (symbol, factor from the base) from the largest prefix down.
_PREFIXES: dict[str, tuple[tuple[str, float], ...]] = {
    "s": (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)),
    "J": (("J", 1.0), ("mJ", 1e-3), ("µJ", 1e-6)),
    "W": (("W", 1.0), ("mW", 1e-3)),
    "bit/s": (("Gb/s", 1e9), ("Mb/s", 1e6), ("kb/s", 1e3), ("bit/s", 1.0)),
    "B": (("GB", 1e9), ("MB", 1e6), ("kB", 1e3), ("B", 1.0)),
}
_BASE = {sym: (family, factor) for family, opts in _PREFIXES.items() for sym, factor in opts}


def parameter_name(key: str) -> str:
    """A readable name of a scenario key: ``link.wired.delay`` → "wired link delay",
    ``wireless.wlan.down.loss.p`` → "wlan downlink loss probability", ``flow.0.bytes`` →
    "flow 0 size"."""
    key = key.removeprefix("param.")
    parts = key.split(".")
    if len(parts) < 2:
        return key.replace("_", " ")
    section, rest = parts[0], parts[1:]
    words = [PARAMETER_WORDS.get(w, w.replace("_", " ")) for w in rest[1:]]
    head = {"link": f"{rest[0]} link", "flow": f"flow {rest[0]}", "simulation": rest[0].replace("_", " ")}.get(section, rest[0])
    if section == "simulation":
        return " ".join(["simulation", head, *words])
    return " ".join([head, *words])


def describe(column: str) -> Quantity:
    """The name and stored unit of ``column``: a known column, a study parameter's numeric
    column (``link.wired.delay_s``: scenario keys never end in a unit suffix), a dotted
    parameter key, or a column with a unit suffix."""
    if column in COLUMNS:
        return COLUMNS[column]
    if "." in column:
        for kind, suffix in QUANTITY_SUFFIX.items():
            if column.endswith(suffix):
                return Quantity(parameter_name(column[: -len(suffix)]), QUANTITY_UNITS[kind])
        return Quantity(parameter_name(column), PARAMETER_UNITS.get(column.rsplit(".", 1)[-1]))
    for suffix, unit in SUFFIXES:
        if column.endswith(suffix) and len(column) > len(suffix):
            return Quantity(_words(column[: -len(suffix)]), unit)
    return Quantity(_words(column))


def _words(name: str) -> str:
    """``energy_idle_high`` → "energy idle high"; ``time_tx`` → "time tx"."""
    m = re.fullmatch(r"(energy|time)_(tx|rx|idle|idle_high|sleep|off)", name)
    if m:
        return f"{m.group(1)} in {m.group(2).replace('_', ' ')}"
    return name.replace("_", " ")


@dataclass(frozen=True)
class Display:
    """How a column's values are shown: multiply by ``factor``, then write ``unit``."""

    unit: str | None
    factor: float = 1.0

    def suffix(self) -> str:
        """`` (ms)``, or nothing for a column without a unit."""
        return f" ({self.unit})" if self.unit else ""


def display(unit: str | None, values: Iterable = ()) -> Display:
    """The unit to show values stored in ``unit`` in: the largest prefix of its family under
    which the largest magnitude is at least 1 (seconds as ms when every value is below 1 s);
    a fraction in percent."""
    if unit == FRACTION:
        return Display("%", 100.0)
    if unit not in _BASE:
        return Display(unit)
    family, to_base = _BASE[unit]
    mags = [abs(float(v)) * to_base for v in values if _finite(v) and float(v) != 0]
    if not mags:
        return Display(unit)
    top = max(mags)
    for sym, factor in _PREFIXES[family]:
        if top >= factor * 0.9995:
            return Display(sym, to_base / factor)
    sym, factor = _PREFIXES[family][-1]
    return Display(sym, to_base / factor)


def shared_displays(columns: Mapping[str, Iterable]) -> dict[str, Display]:
    """The display of each column (name → values) such that columns of one unit family (J and
    mJ, s and ms) share one prefix, chosen from all their values: a table never shows one
    energy in J beside another in mJ."""
    tops: dict[str, float] = {}
    stored = {c: describe(c).unit for c in columns}
    for c, vals in columns.items():
        unit = stored[c]
        if unit in _BASE:
            family, to_base = _BASE[unit]
            mags = [abs(float(v)) * to_base for v in vals if _finite(v)]
            tops[family] = max([tops.get(family, 0.0), *mags])
    out = {}
    for c in columns:
        unit = stored[c]
        if unit in _BASE:
            family, to_base = _BASE[unit]
            out[c] = display(unit, [tops[family] / to_base])
        else:
            out[c] = display(unit)
    return out


def label(column: str, values: Iterable = ()) -> tuple[str, Display]:
    """An axis label or table header for ``column`` ("energy (J)", "wired link delay (ms)")
    and how to scale its values (``values``: the column's) for it."""
    q = describe(column)
    d = display(q.unit, values)
    return q.name + d.suffix(), d


def _finite(v) -> bool:
    try:
        return math.isfinite(float(v))
    except (TypeError, ValueError):
        return False
