"""``wattlab sweep STUDY.toml --out DIR``: a study's runs on local worker processes or a Dask
cluster, resumable, into one tidy Parquet file (and its CSV twin) per table."""

from __future__ import annotations

import os
import sys

import click

from wattlab import _core
from wattlab.cli_common import EXIT_FAILED, EXIT_INCOMPLETE, EXIT_INTERRUPTED, OUT_DIR, PATH, check_input_file, err_console, fail, note, warn
from wattlab.study.cluster import TIMEOUT_S
from wattlab.study.cost import MAX_STUDY_RUNS, MAX_TABLE_MB

SWEEP_EXIT_HELP = (
    "Exit codes: 0 every run of the study is stored and completed; 1 a run failed (or a damaged stored run was "
    "skipped); 2 bad input, a study over a limit, another session in DIR, or a Dask cluster problem; "
    "3 runs are left (--max-runs) or a run hit its time limit before every flow completed (unless --allow-incomplete); "
    "130 interrupted (rerun the same command to resume)."
)


@click.command(epilog=SWEEP_EXIT_HELP, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.argument("study", type=PATH, metavar="STUDY.toml")
@click.option("--out", type=OUT_DIR, required=True, metavar="DIR",
              help="Results: DIR/TABLE.parquet and DIR/TABLE.csv (one tidy table per output, and runs: one row per run), "
              "study.json, timing.json (wall times), and DIR/runs/ (one file per finished run: what makes the study resumable). "
              "One session at a time: a second sweep into DIR is refused.")
@click.option("--jobs", "-j", type=click.IntRange(1, 1024), default=None, metavar="N",
              help="Local worker processes (default: one per core).")
@click.option("--scheduler", metavar="ADDRESS",
              help="Run on a Dask distributed cluster (e.g. tcp://10.0.0.5:8786) instead of local processes; "
              "needs pip install 'wattlab[dask]' here and wattlab on the workers.")
@click.option("--scheduler-timeout", type=click.FloatRange(0.1, 3600), default=TIMEOUT_S, show_default=True, metavar="SECONDS",
              help="With --scheduler: give up (one-line error, exit 2) after this long without an answer from the "
              "scheduler, without a worker, or without the scheduler mid-sweep. An address where nothing listens fails at once.")
@click.option("--max-runs", type=click.IntRange(0), default=None, metavar="N",
              help="Compute at most N new runs, then stop (exit 3 if runs are left; rerun to continue).")
@click.option("--retry-failed", is_flag=True,
              help="Compute again the runs stored as failed (by default a failed run is kept with its error and not retried).")
@click.option("--skip-damaged", is_flag=True,
              help="Leave a damaged stored run (checksum or key mismatch, truncated, not a file) as it is instead of "
              "computing it again: it is listed in runs.parquet with status 'damaged' and the tables are written without it.")
@click.option("--max-study-runs", type=click.IntRange(1), default=MAX_STUDY_RUNS, show_default=True, metavar="N",
              help="Refuse a study of more than N runs (points × seeds), before anything runs.")
@click.option("--max-table-mb", type=click.FloatRange(0, min_open=True), default=MAX_TABLE_MB, show_default=True, metavar="MB",
              help="Refuse a study whose combined tables (built in memory) would exceed MB, measured from the runs stored "
              "(checked before the sweep if runs are stored, after its first 8 runs otherwise, and before combining).")
@click.option("--allow-incomplete", is_flag=True, help="Exit 0 even if some runs hit their time limit (default: exit 3).")
@click.option("--quiet", "-q", is_flag=True, help="No estimate, progress bar or summary on stderr.")
def sweep(study, out, jobs, scheduler, scheduler_timeout, max_runs, retry_failed, skip_damaged, max_study_runs, max_table_mb,
          allow_incomplete, quiet) -> None:
    """Run every point of a study (parameters × seeds) and write tidy Parquet and CSV tables.

    Before anything runs, the study's size and cost are estimated and printed (runs, the
    simulator's estimate of events per run, the time on --jobs processes). A finished run is
    stored at once in DIR/runs/ (checksummed), so an interrupted sweep continues where it stopped
    when run again, and a finished one is not recomputed; a stored run found damaged is named and
    computed again. The tables are the same bytes whatever --jobs or --scheduler (rows in the
    study's order, no wall-clock times).
    """
    from wattlab.study import StudyError, load
    from wattlab.study.cluster import SchedulerError
    from wattlab.study.engine import ProgressBar, run_study
    from wattlab.study.store import Busy

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
    n_jobs = jobs or os.cpu_count() or 1
    show = not quiet and err_console.is_terminal
    bar = ProgressBar(sys.stderr) if show else None
    plan = lambda cost, to_run: note(cost.describe(to_run, None if scheduler else n_jobs), quiet)  # noqa: E731
    try:
        summary = run_study(st, out, jobs=n_jobs, scheduler=scheduler, max_runs=max_runs,
                            on_start=bar.start if bar else None, on_result=bar.advance if bar else None,
                            retry_failed=retry_failed, skip_damaged=skip_damaged, max_study_runs=max_study_runs,
                            max_table_mb=max_table_mb, scheduler_timeout=scheduler_timeout, on_plan=plan, report=warn)
    except KeyboardInterrupt:
        if bar:
            bar.stop()
        note(f"interrupted: the finished runs are stored in {out}/runs; run the same command again to resume",
             style="yellow")
        sys.exit(EXIT_INTERRUPTED)
    except (StudyError, _core.ScenarioError, SchedulerError, Busy) as e:
        if bar:
            bar.stop()
        fail(str(e))
    finally:
        if bar:
            bar.stop()
    print_summary(summary, quiet)
    if summary.by_status.get("failed") or summary.by_status.get("damaged"):
        sys.exit(EXIT_FAILED)
    if summary.left:
        sys.exit(EXIT_INCOMPLETE)
    if summary.by_status.get("time-limit") and not allow_incomplete:
        sys.exit(EXIT_INCOMPLETE)


def print_summary(s, quiet: bool) -> None:
    """The closing lines: runs by status (incomplete, failed and damaged ones flagged), runs
    left, where the tables are."""
    parts = [f"{s.total} runs: {s.computed} computed now ({s.elapsed_s:.1f} s"
             + (f", {s.computed / s.elapsed_s:.1f} runs/s" if s.computed and s.elapsed_s > 0 else "") + f"), {s.reused} stored before"]
    note("; ".join(parts), quiet, style="bold")
    if s.left:
        warn(f"{s.left} run(s) left, not computed (--max-runs): run the same command again to continue; "
             "the tables are written once every run is stored")
    done = sum(s.by_status.values())
    ok = s.by_status.get("completed", 0)
    if done:
        note(f"{ok} of {done} runs completed every flow", quiet, style="green" if ok == done else "yellow")
    if s.by_status.get("time-limit"):
        warn(f"{s.by_status['time-limit']} run(s) hit their time limit before every flow completed: their rows are "
             "flagged run_completed = False, run_status = 'time-limit' (filter on run_completed)")
    if s.by_status.get("failed"):
        warn(f"{s.by_status['failed']} run(s) failed: see the error column of runs.parquet (status 'failed'; they have no "
             "rows elsewhere); they are kept as failed: --retry-failed computes them again")
    if s.by_status.get("damaged"):
        warn(f"{s.by_status['damaged']} damaged stored run(s) skipped (--skip-damaged): status 'damaged' in runs.parquet, "
             "no rows elsewhere; run again without --skip-damaged to compute them again")
    if s.tables:
        note(f"wrote {', '.join(f'{t}.parquet' for t in s.tables)} (and each as .csv) to {s.out}", quiet)
