"""Transport and energy-potential metrics of the seeds, computed by the Rust core.

Every function takes plain numbers, lists, numpy arrays or pandas Series and raises
``ValueError`` with a reason on input that makes the index meaningless.

- :func:`jain_index`, :func:`fairness_utilization_index` (paper 002's F(X, C)),
  :func:`sliding_window_index` (its sliding-window form, SWM) and :func:`swm_curve` (SWM over
  window sizes w); :func:`population_variance`, :func:`coefficient_of_variation`,
  :func:`fair_share_variance` and :func:`fair_share_cov` (Eqs. 2.6–2.9);
  :func:`ap_buffer_estimate` (paper 002's B_est, Eq. 2.11); :data:`SEED002_CAPACITY_BPS`;
- :func:`overhead` and :func:`effort_overhead` (WWP, paper 004);
- :func:`eee` and :func:`eee_system` (paper 003's extra energy expenditure, 3E);
- :func:`flow_table`: the per-flow metrics of a :class:`wattlab.RunResult`.
"""

from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np
import pandas as pd

from wattlab import _core

SEED002_CAPACITY_BPS: float = _core.SEED002_CAPACITY_BPS
"""Paper 002's C for F(X, C) and SWM: 29.60 Mb/s, 802.11a's MAC maximum with a 1460-byte MTU."""

EEE_ALPHA = 1.0
"""Paper 003's default weight of effort without return (transmit power, normalised)."""
EEE_B = 0.45
"""Paper 003's default weight of unused capacity (idle power, normalised to the OriNOCO)."""


def _floats(xs: Iterable[float]) -> list[float]:
    """Any iterable of numbers (list, generator, array, Series) as a list of floats."""
    if not hasattr(xs, "__array__") and not isinstance(xs, (list, tuple)):
        xs = list(xs)
    return np.asarray(xs, dtype=float).ravel().tolist()


def jain_index(xs: Iterable[float]) -> float:
    """Jain's fairness index (Σx)² / (n·Σx²) of the allocations ``xs``."""
    return _core.jain_index(_floats(xs))


def fairness_utilization_index(xs: Iterable[float], capacity: float) -> float:
    """Paper 002's F(X, C) = C² / (nΣx² − 2CΣx + 2C²): fair *and* fully used scores 1."""
    return _core.fairness_utilization_index(_floats(xs), float(capacity))


def sliding_window_index(bytes_per_interval: Sequence[Sequence[int]] | np.ndarray, interval_s: float,
                         window: int, capacity_bps: float) -> float:
    """F(X, C) over every window of ``window`` consecutive intervals, averaged over positions.

    ``bytes_per_interval[i][k]`` is what flow ``i`` delivered in interval ``k`` (all intervals
    ``interval_s`` long); ``capacity_bps`` is C in bits per second.
    """
    return _core.sliding_window_index(_rows(bytes_per_interval), float(interval_s), int(window), float(capacity_bps))


def _rows(bytes_per_interval: Sequence[Sequence[int]] | np.ndarray) -> list[list[int]]:
    """Per-flow, per-interval byte counts as lists of ints."""
    return [[int(v) for v in np.asarray(r).ravel()] for r in bytes_per_interval]


def swm_curve(bytes_per_interval: Sequence[Sequence[int]] | np.ndarray, interval_s: float,
              windows: Iterable[int], capacity_bps: float = SEED002_CAPACITY_BPS) -> pd.DataFrame:
    """Paper 002's SWM index (Eq. 2.12) for each window size in ``windows`` (in intervals).

    Returns one row per window: ``window`` (intervals), ``window_s`` and ``swm``. Small windows
    measure short-term fairness, large ones long-term (Figs. 2.10–2.11).
    """
    ws = [int(w) for w in windows]
    vals = _core.sliding_window_indices(_rows(bytes_per_interval), float(interval_s), ws, float(capacity_bps))
    return pd.DataFrame({"window": ws, "window_s": [w * float(interval_s) for w in ws], "swm": vals})


def population_variance(xs: Iterable[float]) -> float:
    """(1/n)·Σ(x − x̄)² (paper 002 quotes 2.25, 4.0 and 9.0 for Table 2.1's cases 4–6)."""
    return _core.population_variance(_floats(xs))


def coefficient_of_variation(xs: Iterable[float]) -> float:
    """COV = sqrt(variance)/mean, so that Jain's index = 1/(1 + COV²) (paper 002 Eqs. 2.8–2.9)."""
    return _core.coefficient_of_variation(_floats(xs))


def fair_share_variance(xs: Iterable[float], capacity: float) -> float:
    """Paper 002's f(X, C) = (1/n)·Σ(x − C/n)² (Eq. 2.6)."""
    return _core.fair_share_variance(_floats(xs), float(capacity))


def fair_share_cov(xs: Iterable[float], capacity: float) -> float:
    """Paper 002's g(X, C) = sqrt(f(X, C))/(C/n) (Eq. 2.7); F(X, C) = 1/(1 + g²)."""
    return _core.fair_share_cov(_floats(xs), float(capacity))


def ap_buffer_estimate(cwnd_overflow_bytes: float, throughput_bps: float, min_rtt_s: float,
                       mss_bytes: float = 1500) -> float:
    """Paper 002's AP buffer estimate B_est = (cwnd_overflow − T·minRTT/8)/MSS (Eq. 2.11), packets."""
    return _core.ap_buffer_estimate(float(cwnd_overflow_bytes), float(throughput_bps), float(min_rtt_s),
                                    float(mss_bytes))


def overhead(total_bytes: int, original_bytes: int) -> float:
    """(total − original) / original."""
    return _core.overhead(int(total_bytes), int(original_bytes))


def effort_overhead(sender_bytes: int, receiver_overhead_bytes: int, original_bytes: int) -> float:
    """WWP's effort overhead: (sender bytes + receiver overhead − original) / original."""
    return _core.effort_overhead(int(sender_bytes), int(receiver_overhead_bytes), int(original_bytes))


def check_eee_weights(alpha: float = EEE_ALPHA, b: float = EEE_B) -> tuple[float, float]:
    """Validate 3E weights (finite, ≥ 0, not both 0, b ≤ α); raises ValueError with the reason."""
    return _core.eee_weights(float(alpha), float(b))


def eee(throughput: float, goodput: float, thr_max: float, alpha: float = EEE_ALPHA, b: float = EEE_B) -> float:
    """Paper 003's extra energy expenditure of one flow: α(Thr − G)/Thr_max + b(Thr_max − Thr)/Thr_max."""
    return _core.eee(float(throughput), float(goodput), float(thr_max), float(alpha), float(b))


def eee_system(throughputs: Iterable[float], goodputs: Iterable[float], thr_max: float,
               alpha: float = EEE_ALPHA, b: float = EEE_B) -> float:
    """Paper 003's system 3E: α Σ(Thr_i − G_i)/Thr_max + b (Thr_max − ΣThr_i)/Thr_max."""
    thr, g = _floats(throughputs), _floats(goodputs)
    if len(thr) != len(g):
        raise ValueError(f"system 3E: {len(thr)} throughputs but {len(g)} goodputs")
    return _core.eee_system(list(zip(thr, g)), float(thr_max), float(alpha), float(b))


def flow_table(flows: pd.DataFrame, thr_max_bps: float | None = None,
               alpha: float = EEE_ALPHA, b: float = EEE_B) -> pd.DataFrame:
    """Per-flow metrics of a run's ``flows`` table: overhead, effort overhead and, given
    ``thr_max_bps``, 3E. TCP flows only (UDP flows have no wire-byte accounting)."""
    rows = []
    for f in flows.itertuples():
        if f.kind not in ("bulk-download", "bulk-upload") or f.bytes_delivered == 0:
            continue
        row = {
            "flow": f.name,
            "goodput_bps": f.goodput_bps,
            "throughput_bps": f.throughput_bps,
            "overhead": overhead(f.sender_wire_bytes, f.bytes_delivered),
            "effort_overhead": effort_overhead(f.sender_wire_bytes, f.receiver_wire_bytes, f.bytes_delivered),
        }
        if thr_max_bps is not None:
            row["eee"] = eee(f.throughput_bps, f.goodput_bps, thr_max_bps, alpha, b)
        rows.append(row)
    return pd.DataFrame(rows)
