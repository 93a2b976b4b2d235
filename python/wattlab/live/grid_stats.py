"""How sure the grid's verdict on medians is at the number of seeds it ran: a paired bootstrap
over seeds of each medians gap (completion time per mode, the agent's saving).

At 0.5 % loss one shape's downloads differ 2–4× between seeds and their distribution is often
bimodal (a timeout or not), so the median of 12 runs can move by more than the ±5 % tolerance
when one seed is swapped. Resampling the seeds (each resampled seed brings its live run and its
simulation together: both drew the same losses) and recomputing the gap of the medians gives the
spread that sampling alone puts on the verdict. A gap whose 95 % interval lies inside the
tolerance passes at any likely draw of seeds; one whose interval lies outside fails at any; one
whose interval straddles the tolerance is ``open``: more seeds, not a model change, decide it."""

from __future__ import annotations

import math

import numpy as np

RESAMPLES = 2000
"""Bootstrap resamples per shape (percentile interval; fixed generator seed, so reruns agree)."""
LEVEL = 0.95
"""The interval's coverage."""
MIN_SEEDS = 6
"""Fewer seeds give too few distinct resamples (3 seeds: 10) for a percentile interval to mean
much: the intervals are still reported, the sampled verdict is not given."""
_RNG_SEED = 20261128


def _median_gap(sim: np.ndarray, live: np.ndarray) -> np.ndarray:
    """Per resample (rows), the gap of the medians in % of live's median."""
    return 100.0 * (np.median(sim, axis=1) / np.median(live, axis=1) - 1.0)


def _saving(on: np.ndarray, cc: np.ndarray) -> np.ndarray:
    """Per resample, the saving in % (1 − median E_cc / median E_always-on)."""
    return 100.0 * (1.0 - np.median(cc, axis=1) / np.median(on, axis=1))


def intervals(live: dict[str, dict[int, dict]], sim: dict[str, dict[int, dict]], resamples: int = RESAMPLES) -> dict:
    """Bootstrap intervals of the medians gaps over the seeds both sides ran in every mode.

    ``live``/``sim``: per mode, per seed ``{"time_s", "energy_j"}``. Returns per mode
    ``{mode}_time_gap_lo``/``_hi`` (%), ``saving_gap_lo``/``_hi`` (pp, when both modes are
    there) and ``seeds``; empty when fewer than two seeds are common."""
    modes = [m for m in live if m in sim]
    seeds = sorted(set.intersection(*(set(live[m]) & set(sim[m]) for m in modes))) if modes else []
    if len(seeds) < 2:
        return {}
    rng = np.random.default_rng(_RNG_SEED)
    pick = rng.integers(0, len(seeds), size=(resamples, len(seeds)))
    lo_q, hi_q = 100.0 * (1.0 - LEVEL) / 2.0, 100.0 * (1.0 + LEVEL) / 2.0

    def column(side: dict, mode: str, q: str) -> np.ndarray:
        return np.array([float(side[mode][s][q]) for s in seeds])[pick]

    out: dict = {"seeds": len(seeds)}
    for m in modes:
        gaps = _median_gap(column(sim, m, "time_s"), column(live, m, "time_s"))
        out[f"{m}_time_gap_lo"], out[f"{m}_time_gap_hi"] = (float(x) for x in np.percentile(gaps, [lo_q, hi_q]))
    if "always-on" in modes and "cc" in modes:
        gaps = (_saving(column(sim, "always-on", "energy_j"), column(sim, "cc", "energy_j"))
                - _saving(column(live, "always-on", "energy_j"), column(live, "cc", "energy_j")))
        out["saving_gap_lo"], out["saving_gap_hi"] = (float(x) for x in np.percentile(gaps, [lo_q, hi_q]))
    return out


def placement(lo: float | None, hi: float | None, tol: float) -> str | None:
    """``in`` when the interval lies inside ±tol, ``out`` when it lies wholly outside it,
    ``open`` when it straddles a bound; None without an interval."""
    if lo is None or hi is None or math.isnan(lo) or math.isnan(hi):
        return None
    if -tol <= lo and hi <= tol:
        return "in"
    if hi < -tol or lo > tol:
        return "out"
    return "open"


def settled(places: list[str | None], seeds: int) -> str | None:
    """The verdict on medians as sampling leaves it: ``pass`` when every gap's interval is
    inside its tolerance, ``fail`` when one lies wholly outside, ``open`` otherwise; None below
    :data:`MIN_SEEDS` seeds or without intervals."""
    if seeds < MIN_SEEDS or not places or any(p is None for p in places):
        return None
    if "out" in places:
        return "fail"
    return "pass" if all(p == "in" for p in places) else "open"

