"""``wattlab sweep STUDY.toml --out DIR``: a study's runs on a local process pool or a Dask
cluster, resumable, into one tidy Parquet file per table."""

from __future__ import annotations

import os
import sys

import click

from wattlab import _core
from wattlab.cli_common import EXIT_FAILED, EXIT_INCOMPLETE, EXIT_INTERRUPTED, OUT_DIR, PATH, check_input_file, err_console, fail, note, warn

SWEEP_EXIT_HELP = (
    "Exit codes: 0 every run completed; 1 a run failed; 2 bad input (nothing ran); "
    "3 a run hit its time limit before every flow completed (unless --allow-incomplete); "
    "130 interrupted (rerun the same command to resume)."
)


@click.command(epilog=SWEEP_EXIT_HELP, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.argument("study", type=PATH, metavar="STUDY.toml")
@click.option("--out", type=OUT_DIR, required=True, metavar="DIR",
              help="Results: DIR/TABLE.parquet (one tidy file per output, and runs.parquet: one row per run), "
              "study.json, timing.json (wall times), and DIR/runs/ (one file per finished run: what makes the study resumable).")
@click.option("--jobs", "-j", type=click.IntRange(1, 1024), default=None, metavar="N",
              help="Local worker processes (default: one per core).")
@click.option("--scheduler", metavar="ADDRESS",
              help="Run on a Dask distributed cluster (e.g. tcp://10.0.0.5:8786) instead of local processes; "
              "needs pip install 'wattlab[dask]' here and wattlab on the workers.")
@click.option("--max-runs", type=click.IntRange(0), default=None, metavar="N",
              help="Compute at most N new runs, then stop (rerun to continue).")
@click.option("--allow-incomplete", is_flag=True, help="Exit 0 even if some runs hit their time limit (default: exit 3).")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar or summary on stderr.")
def sweep(study, out, jobs, scheduler, max_runs, allow_incomplete, quiet) -> None:
    """Run every point of a study (parameters × seeds) and write tidy Parquet tables.

    A finished run is stored at once in DIR/runs/, so an interrupted sweep continues where it
    stopped when run again, and a finished one is not recomputed. The Parquet files are the same
    bytes whatever --jobs or --scheduler (rows in the study's order, no wall-clock times).
    """
    from wattlab.study import StudyError, load
    from wattlab.study.engine import ProgressBar, run_study

    check_input_file(study, "study")
    try:
        st = load(study)
    except StudyError as e:
        fail(str(e))
    except FileNotFoundError as e:
        fail(str(e))
    if out.exists() and not out.is_dir():
        fail(f"--out {out} exists and is not a directory")
    if out.is_dir() and any(out.iterdir()) and not (out / "study.json").is_file():
        fail(f"--out {out} is not empty and holds no study; choose a new directory")
    show = not quiet and err_console.is_terminal
    bar = ProgressBar(sys.stderr) if show else None
    try:
        summary = run_study(st, out, jobs=jobs or os.cpu_count() or 1, scheduler=scheduler, max_runs=max_runs,
                            on_start=bar.start if bar else None, on_result=bar.advance if bar else None)
    except KeyboardInterrupt:
        if bar:
            bar.stop()
        note(f"interrupted: the finished runs are stored in {out}/runs; run the same command again to resume",
             style="yellow")
        sys.exit(EXIT_INTERRUPTED)
    except StudyError as e:
        fail(str(e))
    except _core.ScenarioError as e:
        fail(str(e))
    except RuntimeError as e:
        if "Dask" in str(e):
            fail(str(e))
        raise
    finally:
        if bar:
            bar.stop()
    print_summary(summary, quiet)
    if summary.by_status.get("failed"):
        sys.exit(EXIT_FAILED)
    if summary.by_status.get("time-limit") and not allow_incomplete:
        sys.exit(EXIT_INCOMPLETE)


def print_summary(s, quiet: bool) -> None:
    """The closing lines: runs by status (incomplete ones flagged), where the tables are."""
    parts = [f"{s.total} runs: {s.computed} computed now ({s.elapsed_s:.1f} s"
             + (f", {s.computed / s.elapsed_s:.1f} runs/s" if s.computed and s.elapsed_s > 0 else "") + f"), {s.reused} stored before"]
    if s.left:
        parts.append(f"{s.left} left (run the same command again to continue)")
    note("; ".join(parts), quiet, style="bold")
    done = sum(s.by_status.values())
    ok = s.by_status.get("completed", 0)
    if done:
        note(f"{ok} of {done} runs completed every flow", quiet, style="green" if ok == done else "yellow")
    if s.by_status.get("time-limit"):
        warn(f"{s.by_status['time-limit']} run(s) hit their time limit before every flow completed: their rows are "
             "flagged run_completed = False, run_status = 'time-limit' (filter on run_completed)")
    if s.by_status.get("failed"):
        warn(f"{s.by_status['failed']} run(s) failed: see the error column of runs.parquet (status 'failed'; they have no rows elsewhere)")
    if s.tables:
        note(f"wrote {', '.join(f'{t}.parquet' for t in s.tables)} to {s.out}", quiet)
