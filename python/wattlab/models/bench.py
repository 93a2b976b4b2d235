"""Benchmark of seed 002's analytic energy model: ``python -m wattlab.models.bench``.

Evaluates :func:`wattlab.models.tcp_energy.energy_grid` on a 100 (p) × 100 (RTT) × 10 (m)
grid at q = 0.3 and prints the best and median wall time of ``--repeat`` runs (target: under
a second, issue 20); ``--q 10`` adds a fourth axis of 10 values of q instead of m.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from wattlab.models import tcp_energy


def grid_args(over_q: bool = False) -> tuple:
    """The benchmark grid: p ∈ [1e-6, 0.3] (log), RTT ∈ [10, 300] ms, m ∈ 1..10 (or q ∈ [0, 0.7])."""
    p = np.logspace(-6, np.log10(0.3), 100)
    rtt = np.linspace(0.01, 0.3, 100)
    if over_q:
        return p, rtt, np.linspace(0.0, 0.7, 10), [1]
    return p, rtt, [0.3], np.arange(1, 11)


def main(argv: list[str] | None = None) -> None:
    """Time the grid and print one line per statistic."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--q", action="store_true", help="10 values of q instead of 10 of m")
    a = ap.parse_args(argv)
    args = grid_args(a.q)
    times = []
    for _ in range(a.repeat):
        t = time.perf_counter()
        out = tcp_energy.energy_grid(*args)
        times.append(time.perf_counter() - t)
    n = out["r_energy"].size
    print(f"tcp_energy.energy_grid: {n} points ({'100 p × 100 RTT × 10 q' if a.q else '100 p × 100 RTT × 10 m'})")
    print(f"best {min(times):.3f} s, median {statistics.median(times):.3f} s over {a.repeat} runs")
    print(f"R_energy range {np.min(out['r_energy']):.3f} … {np.max(out['r_energy']):.3f}")


if __name__ == "__main__":
    main()
