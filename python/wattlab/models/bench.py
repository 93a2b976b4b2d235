"""Benchmark of paper 002's analytic energy models: ``python -m wattlab.models.bench``.

Evaluates :func:`wattlab.models.tcp_energy.energy_grid` on a 100 (p) × 100 (RTT) × 10 (m)
grid at q = 0.3 and prints the best and median wall time of ``--repeat`` runs (target: under
a second, issue 20); ``--q 10`` adds a fourth axis of 10 values of q instead of m.
``--tunnel`` times the Ch. 4 model instead, :func:`wattlab.models.sctp_tunnel.power_grid` on
1000 aggregate throughputs × 100 q × 10 m (issue 21).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from wattlab.models import sctp_tunnel, tcp_energy


def grid_args(over_q: bool = False) -> tuple:
    """The benchmark grid: p ∈ [1e-6, 0.3] (log), RTT ∈ [10, 300] ms, m ∈ 1..10 (or q ∈ [0, 0.7])."""
    p = np.logspace(-6, np.log10(0.3), 100)
    rtt = np.linspace(0.01, 0.3, 100)
    if over_q:
        return p, rtt, np.linspace(0.0, 0.7, 10), [1]
    return p, rtt, [0.3], np.arange(1, 11)


def tunnel_grid_args() -> tuple:
    """The Ch. 4 grid: aggregate 10 kB/s … 2.2 MB/s (1000 values, up to and past R_max),
    q ∈ [0, 0.6] (100 values: half the TD periods are summed round by round), m ∈ 1..10."""
    return np.linspace(10e3, 2.2e6, 1000), np.linspace(0.0, 0.6, 100), np.arange(1, 11)


def _time(fn, repeat: int) -> tuple[list[float], dict]:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return times, out


def main(argv: list[str] | None = None) -> None:
    """Time the grid and print one line per statistic."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--q", action="store_true", help="10 values of q instead of 10 of m")
    ap.add_argument("--tunnel", action="store_true", help="the Ch. 4 SCTP-tunnel model (sctp_tunnel.power_grid)")
    a = ap.parse_args(argv)
    if a.tunnel:
        times, out = _time(lambda: sctp_tunnel.power_grid(*tunnel_grid_args()), a.repeat)
        print(f"sctp_tunnel.power_grid: {out['p_ratio'].size} points (1000 aggregate × 100 q × 10 m)")
        print(f"best {min(times):.3f} s, median {statistics.median(times):.3f} s over {a.repeat} runs")
        print(f"P_ratio range {np.min(out['p_ratio']):.3f} … {np.max(out['p_ratio']):.3f}")
        return
    args = grid_args(a.q)
    times, out = _time(lambda: tcp_energy.energy_grid(*args), a.repeat)
    n = out["r_energy"].size
    print(f"tcp_energy.energy_grid: {n} points ({'100 p × 100 RTT × 10 q' if a.q else '100 p × 100 RTT × 10 m'})")
    print(f"best {min(times):.3f} s, median {statistics.median(times):.3f} s over {a.repeat} runs")
    print(f"R_energy range {np.min(out['r_energy']):.3f} … {np.max(out['r_energy']):.3f}")


if __name__ == "__main__":
    main()
