"""Throughput and overhead of the study engine: ``python -m wattlab.study.bench``.

Runs a study of short runs (``scenarios/studies/tiny.toml``'s 20 kB downloads, with as many
seeds as needed) twice into fresh temporary directories: on ``--jobs`` local workers (runs/s,
end to end: pool start, every run, each run stored, the combined Parquet files), and in this
process (``--jobs 1``), where the Python overhead per run is the wall time less the simulation
itself (``RunResult.wall_time_s``): scenario parsing with the overrides, the tables as Arrow,
storing the run, bookkeeping. The same for the reproductions' path (``study.points``: whole
results stored and rebuilt as ``RunResult`` in the caller, as ``wattlab reproduce`` runs them).
See docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

STUDY = Path(__file__).resolve().parents[3] / "scenarios" / "studies" / "tiny.toml"


def measure(runs: int, jobs: int, study_path: Path = STUDY) -> dict:
    """One sweep of about ``runs`` runs on ``jobs`` workers in a fresh directory."""
    from wattlab import _core
    from wattlab.study import load
    from wattlab.study.engine import run_study

    base = load(study_path)
    per_seed = len(base.points()) // len(base.seeds)
    n_seeds = max(1, -(-runs // per_seed))
    base.seeds = list(range(1, n_seeds + 1))
    with tempfile.TemporaryDirectory(prefix="wattlab-sweep-bench-") as tmp:
        t0 = time.perf_counter()
        summary = run_study(base, Path(tmp), jobs=jobs)
        total = time.perf_counter() - t0
        timing = json.loads((Path(tmp) / "timing.json").read_text())["runs"]
    sims = [r["sim_s"] for r in timing.values()]
    walls = [r["wall_s"] for r in timing.values()]
    n = summary.computed
    return {"jobs": jobs, "runs": n, "elapsed_s": summary.elapsed_s, "total_s": total,
            "runs_per_s": n / summary.elapsed_s, "sim_s_mean": statistics.fmean(sims),
            "worker_overhead_ms_median": 1e3 * statistics.median(w - s for w, s in zip(walls, sims)),
            "overhead_ms_per_run": 1e3 * (summary.elapsed_s - sum(sims)) / n if jobs == 1 else None,
            "commit": _core.__commit__}


def measure_points(runs: int, jobs: int, study_path: Path = STUDY) -> dict:
    """The reproductions' path on the same runs: ``run_points`` (every table and series of each
    run stored, then rebuilt as a ``RunResult`` in this process, as ``run_jobs`` hands it to a
    reproduction's measure), with an empty measure."""
    from wattlab.study import load
    from wattlab.study.points import RunPoint, Tally, run_points

    base = load(study_path)
    per_seed = len(base.points()) // len(base.seeds)
    base.seeds = list(range(1, max(1, -(-runs // per_seed)) + 1))
    points = [RunPoint(base.scenario_text, p.seed, tuple((*base.fixed.items(), *p.params))) for p in base.points()]
    tally = Tally()
    sims = []
    with tempfile.TemporaryDirectory(prefix="wattlab-points-bench-") as tmp:
        t0 = time.perf_counter()
        for _, res in run_points(points, Path(tmp), jobs=jobs, tally=tally):
            sims.append(res.wall_time_s)
        elapsed = time.perf_counter() - t0
    n = tally.computed
    return {"path": "reproduce", "jobs": jobs, "runs": n, "elapsed_s": elapsed, "runs_per_s": n / elapsed,
            "sim_s_mean": statistics.fmean(sims),
            "worker_overhead_ms_median": 1e3 * statistics.median(w - s for w, s in zip(tally.wall_s, sims)),
            "overhead_ms_per_run": 1e3 * (elapsed - sum(sims)) / n if jobs == 1 else None}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m wattlab.study.bench", description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=600, help="runs per sweep (default 600)")
    ap.add_argument("--jobs", type=int, default=2, help="local workers of the parallel sweep (default 2)")
    ap.add_argument("--repeat", type=int, default=3, help="sweeps of each kind; the best is kept (default 3)")
    ap.add_argument("--json", action="store_true", help="print JSON records")
    args = ap.parse_args(argv)
    par = max((measure(args.runs, args.jobs) for _ in range(args.repeat)), key=lambda r: r["runs_per_s"])
    one = min((measure(args.runs, 1) for _ in range(args.repeat)), key=lambda r: r["overhead_ms_per_run"])
    rpar = max((measure_points(args.runs, args.jobs) for _ in range(args.repeat)), key=lambda r: r["runs_per_s"])
    rone = min((measure_points(args.runs, 1) for _ in range(args.repeat)), key=lambda r: r["overhead_ms_per_run"])
    if args.json:
        sys.stdout.write(json.dumps([par, one, rpar, rone], indent=2) + "\n")
        return
    print(f"study of {par['runs']} short runs (simulation {1e3 * par['sim_s_mean']:.3f} ms each), commit {par['commit']}")
    print(f"  {args.jobs} local workers: {par['runs_per_s']:.0f} runs/s ({par['elapsed_s']:.2f} s for the study, "
          f"{par['total_s']:.2f} s with the manifest and the combined Parquet files)")
    print(f"  in-process (--jobs 1): {one['runs_per_s']:.0f} runs/s; Python overhead per run beyond the simulation: "
          f"{one['overhead_ms_per_run']:.2f} ms (median in the run itself: {one['worker_overhead_ms_median']:.2f} ms)")
    print(f"reproductions' path (whole results stored and rebuilt as RunResult, empty measure), {rpar['runs']} runs:")
    print(f"  {args.jobs} local workers: {rpar['runs_per_s']:.0f} runs/s ({rpar['elapsed_s']:.2f} s)")
    print(f"  in-process (--jobs 1): {rone['runs_per_s']:.0f} runs/s; Python overhead per run beyond the simulation: "
          f"{rone['overhead_ms_per_run']:.2f} ms (median in the run itself: {rone['worker_overhead_ms_median']:.2f} ms)")


if __name__ == "__main__":
    main()
