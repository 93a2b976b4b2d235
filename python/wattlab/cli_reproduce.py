"""``wattlab reproduce``: one sub-command per reproduced paper."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import click
from rich.markup import escape
from rich.table import Table

from wattlab.cli_common import EXIT_FAILED, EXIT_INCOMPLETE, EXIT_INTERRUPTED, OUT_DIR, console, err_console, fail, note


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
def reproduce_app() -> None:
    """Reproduce a seed paper's experiments: figures, CSV and a summary checking its claims.

    A command names its paper by first author and year, or by its scheme (yan-cc, psna, wwp);
    "paper 000" … "paper 004" number wattlab's seed papers (docs/reproductions.md), while each
    command's --seed is the first random seed of its simulations. Every accepted name is listed
    below, aliases included."""

VERDICT_STYLE = {"agrees": "green", "partly": "yellow", "disagrees": "red", "not tested": "dim"}


@dataclass(frozen=True)
class Engine:
    """The engine options every reproduction takes (see :func:`engine_options`)."""

    jobs: int | None
    scheduler: str | None
    max_runs: int | None


def engine_options(f):
    """``--jobs``, ``--scheduler`` and ``--max-runs``: how a reproduction's simulations run (the
    study engine: local processes or a Dask cluster; every finished run stored in DIR/runs/, so
    a rerun resumes). Every ``wattlab reproduce`` command takes them."""
    f = click.option("--max-runs", type=click.IntRange(0), default=None, metavar="N",
                     help="Compute at most N new simulations, then stop (exit 3); the same command again continues.")(f)
    f = click.option("--scheduler", metavar="ADDRESS",
                     help="Run the simulations on a Dask distributed cluster (e.g. tcp://10.0.0.5:8786) instead of local "
                     "processes; needs pip install 'wattlab[dask]' here and wattlab on the workers.")(f)
    return click.option("--jobs", "-j", type=click.IntRange(1, 1024), metavar="N",
                        help="Local worker processes (default: one per core). Finished simulations are stored in DIR/runs/: "
                        "an interrupted reproduction run again (with --overwrite once its files are written) reuses them.")(f)




@reproduce_app.command("kontogiannis2005", short_help="Paper 003 (Kontogiannis et al. 2005): TCP variants' 3E under errors.")
@click.option("--out", type=OUT_DIR, default=Path("results/kontogiannis2005"), show_default=True, metavar="DIR",
              help="Directory for the CSV files, figures and summary.md.")
@click.option("--quick", is_flag=True, help="Reduced sweep (6 error rates, 1 MiB flows, n = 1, 3, 5, 8, 2 seeds): under a minute.")
@click.option("--seeds", type=click.IntRange(1, 100), metavar="N", help="Repetitions per point (default 5, or 2 with --quick).")
@click.option("--variant", "variants", multiple=True, metavar="NAME",
              help="Experiment 1 variants (repeatable; default all six: tahoe reno newreno sack vegas westwood).")
@click.option("--per-reading", type=click.Choice(["bad-state", "average"]), default="bad-state", show_default=True,
              help="How the error rate maps onto the Gilbert chain (burst errors): 'bad-state' (the bad state loses PER, mean "
              "loss PER/3) or 'average' (the bad state loses 3·PER, mean loss PER).")
@click.option("--error-layer", type=click.Choice(["packet", "frame"]), default="packet", show_default=True,
              help="'packet': the error rate is the loss of packets the 802.11 hop delivered, as TCP sees it; 'frame': every "
              "data-frame attempt errs and the MAC retransmits (7 attempts), so TCP sees only what survives.")
@click.option("--alpha", type=float, default=1.0, show_default=True, metavar="X", help="3E weight of effort without return (transmit power; paper: 1).")
@click.option("--b", type=float, default=0.45, show_default=True, metavar="X", help="3E weight of unused capacity (idle power; paper: 0.45, Table 1 gives 0.532).")
@click.option("--seed", type=click.IntRange(0, 2**63 - 1), default=1, show_default=True, metavar="N",
              help="First seed; point k uses seeds seed … seed+N−1 for every variant.")
@engine_options
@click.option("--overwrite", is_flag=True, help="Replace the output files of an earlier run in --out.")
@click.option("--json", "as_json", is_flag=True, help="Print the claims and verdicts as JSON records instead of a table.")
def kontogiannis2005(out, quick, seeds, variants, per_reading, error_layer, alpha, b, seed, jobs, scheduler, max_runs,
                     overwrite, as_json) -> None:
    """Paper 003: goodput and 3E of Tahoe, Reno, NewReno, SACK, Vegas and Westwood under random and
    burst errors (Exp. 1), n Tahoe vs n Vegas flows (Exp. 2), and a verdict on each claim R1.1–R2.7."""
    from wattlab.reproduce import kontogiannis2005 as k

    cfg = k.Config.quick_preset() if quick else k.Config.full()
    if seeds is not None:
        cfg.seeds = seeds
    if variants:
        cfg.variants = [v.lower() for v in variants]
    cfg.per_reading, cfg.error_layer, cfg.alpha, cfg.b, cfg.base_seed = per_reading, error_layer, alpha, b, seed
    res = _run_and_print(k, cfg, out, Engine(jobs, scheduler, max_runs), overwrite, as_json, "Paper 003 claims")
    if as_json:
        return
    note(f"wrote {len(res.files)} files to {out} (summary.md, figures, CSV)")


@reproduce_app.command("yan-cc", short_help="Paper 000 (Yan et al.): client-centered energy saving vs TCP, PSM, BSD.")
@click.option("--out", type=OUT_DIR, default=Path("results/yan-cc"), show_default=True, metavar="DIR",
              help="Directory for the CSV files, PNG figures, claims.csv and summary.md.")
@click.option("--quick", is_flag=True,
              help="A small slice of every experiment (2 RTTs, 0.1 % loss, 1 MB files, 1 seed, 10 web pages, fairness with "
              "1–2 flows): a few seconds. Used by the test suite.")
@click.option("--seeds", type=click.IntRange(1, 100), metavar="N",
              help="Repetitions per point, seeds --seed … --seed+N−1, shared by every policy (default 3, or 1 with --quick); "
              "tables report the median.")
@click.option("--seed", type=click.IntRange(0, 2**63 - 1), default=1, show_default=True, metavar="N", help="First seed.")
@engine_options
@click.option("--overwrite", is_flag=True, help="Replace the output files of an earlier run in --out (otherwise the run refuses to start).")
@click.option("--json", "as_json", is_flag=True, help="Print the claims and verdicts as JSON records instead of a table.")
def yan_cc(out, quick, seeds, seed, jobs, scheduler, max_runs, overwrite, as_json) -> None:
    """Paper 000 (Yan et al.): client-centered energy saving. Runs the large downloads' RTT × loss grid
    (Figs. 14/15, Table I), RTT variation (Fig. 16), competing clients (Fig. 17), AP bandwidth (Fig. 18), the
    Internet sites as scenarios (Figs. 12/13) and a CC-vs-PSM crossover sweep, then a web-browsing session under
    every policy (Figs. 9–11) and the fairness and friendliness mixes (Figs. 6–8); writes CSVs, figures,
    claims.csv and summary.md with the paper's numbers beside wattlab's."""
    import time

    from wattlab.reproduce import yan_cc as y

    t0 = time.perf_counter()
    cfg = y.Config.quick_preset() if quick else y.Config.full()
    if seeds is not None:
        cfg.seeds = seeds
    cfg.base_seed = seed
    res = _run(y, cfg, out, Engine(jobs, scheduler, max_runs), overwrite)
    if as_json:
        _print_json(res.claims)
        return
    table = Table(title=f"Paper 000 claims: wattlab's verdicts ({res.simulations} simulations)", show_lines=True)
    for col in ("claim", "paper", "wattlab", "verdict"):
        table.add_column(col, overflow="fold")
    for c in res.claims:
        table.add_row(escape(c.id), escape(c.paper), escape(c.wattlab), f"[{VERDICT_STYLE.get(c.verdict, '')}]{c.verdict}[/]")
    console.print(table)
    note(f"wrote {len(res.files)} files to {out} (summary.md has the reasons); total wall time {time.perf_counter() - t0:.1f} s")



def _run(module, cfg, out, eng: Engine | int | None, overwrite) -> object:
    """Check ``cfg`` and run ``module.run`` into ``out`` on the study engine (``eng``'s options,
    runs stored in ``out/runs``); a bad configuration exits 2 with its message, an interruption
    (Ctrl-C: 130, ``--max-runs``: 3) with a note that the same command resumes. ``eng`` may
    also be a plain ``--jobs`` value (int or None), as commands written before the engine
    options passed: their runs are then stored and resumed too."""
    from wattlab.reproduce import runner

    if not isinstance(eng, Engine):
        eng = Engine(eng, None, None)
    try:
        cfg.check()
        with runner.engine(out, jobs=eng.jobs, scheduler=eng.scheduler, max_runs=eng.max_runs) as e:
            res = module.run(cfg, out, workers=eng.jobs, console=err_console, overwrite=overwrite)
    except ValueError as err:
        fail(str(err))
    except runner.Unfinished as err:
        note(str(err), style="yellow")
        sys.exit(EXIT_INCOMPLETE)
    except KeyboardInterrupt:
        begun = out.is_dir() and any(p.name != "runs" for p in out.iterdir())
        note(f"interrupted: the finished simulations are stored in {out}/runs; run the same command again"
             + (" with --overwrite (it had begun writing its files)" if begun else "") + " to resume", style="yellow")
        sys.exit(EXIT_INTERRUPTED)
    except RuntimeError as err:
        from wattlab.study.cluster import SchedulerError
        from wattlab.study.store import Busy

        from wattlab.study.pool import WorkerDied

        if isinstance(err, (SchedulerError, Busy)):  # the cluster, or another session in `out`: one line
            fail(str(err))
        if isinstance(err, WorkerDied):  # out of memory, say: the runs before it are stored
            fail(f"{err} (the finished simulations are stored in {out}/runs)", code=EXIT_FAILED)
        raise
    t = e.tally
    if t.computed + t.reused:  # (a model's reproduction runs no simulation)
        note(f"{t.computed + t.reused} simulations: {t.computed} computed now, {t.reused} stored before (in {out}/runs)")
    return res


def _print_json(claims) -> None:
    """The claims (id, the paper's claim, numbers, verdict, reason) as JSON records on stdout."""
    import dataclasses
    import json
    import sys

    sys.stdout.write(json.dumps([dataclasses.asdict(c) for c in claims], indent=2) + "\n")

def _run_and_print(module, cfg, out, eng: Engine | int | None, overwrite, as_json, title: str) -> object:
    """Check ``cfg``, run ``module.run`` into ``out`` (see :func:`_run`) and print its claims (a
    table with the test and numbers of each, or JSON records); returns the result."""
    res = _run(module, cfg, out, eng, overwrite)
    if as_json:
        _print_json(res.claims)
        return res
    table = Table(title=f"{title}: wattlab's verdicts ({res.wall_time_s:.1f} s)", show_lines=True)
    for col in ("claim", "verdict", "our test", "our numbers"):
        table.add_column(col, overflow="fold")
    for c in res.claims:
        table.add_row(escape(c.id), f"[{VERDICT_STYLE.get(c.verdict, '')}]{c.verdict}[/]", escape(c.test), escape(c.evidence))
    console.print(table)
    return res



def _wwp(out, quick, seeds, seed, jobs, scheduler, max_runs, overwrite, as_json) -> None:
    """Paper 004 (Tsaoussidis, Badr & Verma 1999): Table 1's 7 sets × {TCP Tahoe, WWP}."""
    from wattlab.reproduce import tsaoussidis1999_wwp as w

    cfg = w.Config.quick_preset() if quick else w.Config.full()
    if seeds is not None:
        cfg.seeds = seeds
    cfg.base_seed = seed
    res = _run_and_print(w, cfg, out, Engine(jobs, scheduler, max_runs), overwrite, as_json, "Paper 004 claims")
    if as_json:
        return
    note(f"wrote {len(res.files)} files to {out} (summary.md has Table 1 beside the paper's, ratios and inconsistencies)")


def _wwp_command(name: str, alias: bool):
    """``tsaoussidis1999-wwp`` and its alias ``wwp``: the same command under two names, both listed."""
    short = "Alias of tsaoussidis1999-wwp." if alias else "Paper 004 (Tsaoussidis et al. 1999): WWP vs TCP Tahoe, Table 1."
    return reproduce_app.command(name, short_help=short, help=(
        "Paper 004 (Tsaoussidis, Badr & Verma, ICNP '99): Table 1's 7 sets × {TCP Tahoe, WWP} as one-minute streams "
        "over VDROP/VDELAY, several seeds and VDROP phase offsets; Table 1 beside the paper's, WWP/TCP ratios, radio "
        "energy per delivered MB (always-on and oracle), claim verdicts and the paper's inconsistencies."
        + (" Alias of tsaoussidis1999-wwp." if alias else "")))(
        click.option("--out", type=OUT_DIR, default=Path("results/tsaoussidis1999-wwp"), show_default=True, metavar="DIR",
                     help="Directory for the CSV files, figure and summary.md.")(
        click.option("--quick", is_flag=True, help="1 seed and 2 phase offsets: a few seconds. Used by the test suite.")(
        click.option("--seeds", type=click.IntRange(1, 100), metavar="N", help="Repetitions per point (default 3, or 1 with --quick).")(
        click.option("--seed", type=click.IntRange(0, 2**63 - 1), default=1, show_default=True, metavar="N", help="First seed.")(
        engine_options(
        click.option("--overwrite", is_flag=True, help="Replace the output files of an earlier run in --out.")(
        click.option("--json", "as_json", is_flag=True, help="Print the claims and verdicts as JSON records instead of a table.")(
            lambda **kw: _wwp(**kw)))))))))


tsaoussidis1999_wwp = _wwp_command("tsaoussidis1999-wwp", alias=False)
wwp_alias = _wwp_command("wwp", alias=True)


@reproduce_app.command("psna", short_help="Paper 001 (Anastasi et al.): PSNA vs legacy TCP, PSM and the CC agent.")
@click.option("--out", type=OUT_DIR, default=Path("results/psna"), show_default=True, metavar="DIR",
              help="Directory for the CSV files, figure and summary.md.")
@click.option("--quick", is_flag=True, help="One seed per row (the transfers stay full length): a few seconds. Used by the test suite.")
@click.option("--seeds", type=click.IntRange(1, 100), metavar="N", help="Repetitions per row (default 5, or 1 with --quick).")
@click.option("--arch", "archs", multiple=True, metavar="NAME",
              help="Architectures (repeatable; default all: legacy psna psm cc; legacy is always run).")
@click.option("--seed", type=click.IntRange(0, 2**63 - 1), default=1, show_default=True, metavar="N", help="First seed.")
@engine_options
@click.option("--overwrite", is_flag=True, help="Replace the output files of an earlier run in --out.")
@click.option("--json", "as_json", is_flag=True, help="Print the claims and verdicts as JSON records instead of a table.")
def psna(out, quick, seeds, archs, seed, jobs, scheduler, max_runs, overwrite, as_json) -> None:
    """Paper 001 (Anastasi, Conti & Lapenna, PSNA): transfers A (25,446 KB up) and B (2,519 KB down) on a congested
    Pisa–Perth path under legacy TCP, PSNA, TCP+PSM and TCP+CC agent; Tables 1–2 beside the paper's (battery-seconds,
    index, gain, reduction), the extras (polls, on-time, residual-time error), a figure and claim verdicts."""
    import time

    from wattlab.reproduce import anastasi_psna as p

    t0 = time.perf_counter()
    cfg = p.Config.quick_preset() if quick else p.Config.full()
    if seeds is not None:
        cfg.seeds = seeds
    if archs:
        cfg.architectures = list(archs)
    cfg.base_seed = seed
    res = _run_and_print(p, cfg, out, Engine(jobs, scheduler, max_runs), overwrite, as_json, "Paper 001 claims")
    if as_json:
        return
    note(f"wrote {len(res.files)} files to {out} (summary.md has Tables 1–2 beside the paper's); total wall time "
         f"{time.perf_counter() - t0:.1f} s")


@reproduce_app.command("hashimoto2013-tunnel", short_help="Paper 002 Ch. 4 (Hashimoto 2013): the SCTP tunnel, model and simulator.")
@click.option("--out", type=OUT_DIR, default=Path("results/hashimoto2013-tunnel"), show_default=True, metavar="DIR",
              help="Directory for the CSV files, figures and summary.md.")
@click.option("--quick", is_flag=True, help="Coarser model lines and m up to 10, no simulator unless --simulate (then 5 s "
              "runs): a few seconds. Used by the test suite.")
@click.option("--simulate/--no-simulate", default=None,
              help="Run the simulated tunnel over Fig. 4.5's 84 grid points and 24 points of Figs. 4.6–4.8 (q = 0.1; 20 s "
              "each; ~2.5 s more wall time on 2 cores) and put it beside the model; claim S1 is judged from these runs. Default: on, off with --quick.")
@click.option("--sim-seeds", type=click.IntRange(1, 100), metavar="N", help="Simulator runs per grid point (default 1).")
@click.option("--seed", type=click.IntRange(0, 2**63 - 1), default=1, show_default=True, metavar="N",
              help="First seed of the simulator runs.")
@click.option("--sim-points", type=click.Path(dir_okay=False), metavar="CSV",
              help="The simulator side's results, one row per run (q, m, aggregate_kBps, p_cam_w, p_sleep_w), to put "
              "beside the model instead of running it (implies --no-simulate).")
@engine_options
@click.option("--overwrite", is_flag=True, help="Replace the output files of an earlier run in --out.")
@click.option("--json", "as_json", is_flag=True, help="Print the claims and verdicts as JSON records instead of a table.")
def hashimoto2013_tunnel(out, quick, simulate, sim_seeds, seed, sim_points, jobs, scheduler, max_runs, overwrite,
                         as_json) -> None:
    """Paper 002 chapter 4 (Hashimoto 2013, SCTP tunneling): Figs. 4.5–4.8 from the power model
    (wattlab.models.sctp_tunnel) and, beside Fig. 4.5, the simulated tunnel (wattlab.reproduce.hashimoto2013_tunnel.simulator);
    the thesis's key numbers beside ours (27 % and ~69 % at 450 kB/s), the sensitivity to the conventions the thesis
    leaves open and claim verdicts."""
    from wattlab.reproduce import hashimoto2013_tunnel as h

    cfg = h.Config.quick_preset() if quick else h.Config.full()
    if sim_points is not None:
        if simulate:
            fail("--simulate and --sim-points exclude each other: give the simulator's rows or run it, not both")
        simulate = False
    if simulate is not None:
        cfg.simulate = simulate
    if sim_seeds is not None:
        cfg.sim_seeds = sim_seeds
    cfg.sim_base_seed = seed
    cfg.sim_points_csv = sim_points
    title = "Paper 002 Ch. 4 claims" + ("" if cfg.simulate or sim_points else " (model side)")
    res = _run_and_print(h, cfg, out, Engine(jobs, scheduler, max_runs), overwrite, as_json, title)
    if as_json:
        return
    note(f"wrote {len(res.files)} files to {out} (summary.md has the thesis's numbers beside ours)")

@reproduce_app.command("hashimoto2013", short_help="Paper 002 Ch. 2–3 (Hashimoto 2013): fairness, ACK timing, energy model.")
@click.option("--out", type=OUT_DIR, default=Path("results/hashimoto2013"), show_default=True, metavar="DIR",
              help="Directory for the CSV files, figures and summary.md.")
@click.option("--quick", is_flag=True, help="60 s fairness runs from 20 s, 2 seeds; 2 seeds per energy point; short Table 3.1 "
              "runs: a couple of minutes. Used by the test suite.")
@click.option("--seeds", type=click.IntRange(1, 100), metavar="N", help="Fairness repetitions (default 10, or 2 with --quick).")
@click.option("--seed", type=click.IntRange(0, 2**63 - 1), default=1, show_default=True, metavar="N", help="First seed.")
@engine_options
@click.option("--overwrite", is_flag=True, help="Replace the output files of an earlier run in --out.")
@click.option("--json", "as_json", is_flag=True, help="Print the claims and verdicts as JSON records instead of a table.")
def hashimoto2013(out, quick, seeds, seed, jobs, scheduler, max_runs, overwrite, as_json) -> None:
    """Paper 002 (Hashimoto, thesis 2013) Ch. 2–3: Tables 2.1/2.3, the fairness runs (Reno, ACK-loss-aware Reno,
    prioritised AP; 10 up and 5 up + 5 down; delayed ACK off and on), Table 3.1, the R_energy maps and m-sweeps, the
    energy model against the simulator, and a verdict on each claim."""
    from wattlab.reproduce import hashimoto2013 as h

    cfg = h.Config.quick_preset() if quick else h.Config.full()
    if seeds is not None:
        cfg.seeds = seeds
    cfg.base_seed = seed
    res = _run_and_print(h, cfg, out, Engine(jobs, scheduler, max_runs), overwrite, as_json, "Paper 002 claims")
    if as_json:
        return
    note(f"wrote {len(res.files)} files to {out} (summary.md has the tables beside the thesis's)")
