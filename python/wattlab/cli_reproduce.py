"""``wattlab reproduce``: one sub-command per reproduced paper, generated from the registry
(``wattlab.reproduce.REGISTRY``): every name and alias, its help, the options every
reproduction takes and the ones its ``config.py`` declares (``COMMAND.options``)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import click
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from wattlab.cli_common import EXIT_FAILED, EXIT_INCOMPLETE, EXIT_INTERRUPTED, OUT_DIR, console, err_console, fail, note
from wattlab.reproduce import BY_NAME, REPRODUCTIONS, Entry

VERDICT_STYLE = {"agrees": "green", "partly": "yellow", "disagrees": "red", "not tested": "dim", "check": "cyan",
                 "check failed": "magenta", "quick: not comparable": "dim"}
"""How the verdicts table colours each verdict (every one of ``reproduce.verdict.VERDICTS``)."""


class RegistryGroup(click.Group):
    """A group whose commands are the registry's names and aliases, each built when it is run
    (``--help`` lists them from the registry's one-line summaries, importing no reproduction)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(BY_NAME)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        entry = BY_NAME.get(name)
        return None if entry is None else _command(entry, name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        with formatter.section("Commands"):
            formatter.write_dl([(n, REPRODUCTIONS[n]) for n in self.list_commands(ctx)])


@click.group(cls=RegistryGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
def reproduce_app() -> None:
    """Reproduce a seed paper's experiments: figures, CSV and a summary checking its claims.

    A command names its paper by first author and year, or by its scheme (yan-cc, psna, wwp);
    "paper 000" … "paper 004" number wattlab's seed papers (docs/reproductions.md), while each
    command's --seed is the first random seed of its simulations. Every accepted name is listed
    below, aliases included."""


def _common(entry: Entry, name: str, command) -> list[click.Parameter]:
    """The options every reproduction takes, around its own (``command.options``)."""
    return [
        click.Option(["--out"], type=OUT_DIR, default=Path(f"results/{entry.name}"), show_default=True, metavar="DIR",
                     help=command.out),
        click.Option(["--quick"], is_flag=True, help=command.quick),
        *(_own(o) for o in command.options),
        click.Option(["--seed"], type=click.IntRange(0, 2**63 - 1), default=1, show_default=True, metavar="N",
                     help=command.seed),
        click.Option(["--jobs", "-j"], type=click.IntRange(1, 1024), metavar="N",
                     help="Local worker processes (default: one per core). Finished simulations are stored in DIR/runs/: "
                     "an interrupted reproduction run again (with --overwrite once its files are written) reuses them."),
        click.Option(["--scheduler"], metavar="ADDRESS",
                     help="Run the simulations on a Dask distributed cluster (e.g. tcp://10.0.0.5:8786) instead of local "
                     "processes; needs pip install 'wattlab[dask]' here and wattlab on the workers."),
        click.Option(["--max-runs"], type=click.IntRange(0), default=None, metavar="N",
                     help="Compute at most N new simulations, then stop (exit 3); the same command again continues."),
        click.Option(["--overwrite"], is_flag=True, help="Replace the output files of an earlier run in --out."),
        click.Option(["--json", "as_json"], is_flag=True, help="Print the claims and verdicts as JSON records instead of a table."),
    ]


def _own(o) -> click.Option:
    """A reproduction's declared option as a click option."""
    names = [*o.flags, *([o.dest] if o.dest else [])]
    switch = any("/" in f for f in o.flags)
    return click.Option(names, type=o.type, multiple=o.multiple, metavar=o.metavar, help=o.help,
                        default=o.default, show_default=o.default is not None and not switch)


def _command(entry: Entry, name: str) -> click.Command:
    """``wattlab reproduce NAME`` for ``entry`` (``name`` is its name or an alias)."""
    cfgmod = entry.config()
    command = cfgmod.COMMAND
    alias = name != entry.name

    def callback(out, quick, seed, jobs, scheduler, max_runs, overwrite, as_json, **own) -> None:
        t0 = time.perf_counter()
        rep = entry.load()
        cfg = cfgmod.Config.quick_preset() if quick else cfgmod.Config.full()
        for o in command.options:
            value = own[_param_name(o)]
            if o.field is None or value is None or (o.multiple and not value):
                continue
            if o.convert is not None:
                value = [o.convert(v) for v in value] if o.multiple else o.convert(value)
            setattr(cfg, o.field, list(value) if o.multiple else value)
        setattr(cfg, command.seed_field, seed)
        try:
            rep.configure(cfg, own)
        except ValueError as err:
            fail(str(err))
        res = _run(rep, cfg, out, jobs, scheduler, max_runs, overwrite)
        if as_json:
            import json

            sys.stdout.write(json.dumps(res.tables["claims.csv"].to_dict("records"), indent=2) + "\n")
            return
        _print_claims(entry, res, rep.paper_heading)
        note(f"wrote {len(res.files)} files to {out} ({command.written}); total wall time {time.perf_counter() - t0:.1f} s")

    return click.Command(name, callback=callback, params=_common(entry, name, command),
                         help=command.help + (f" Alias of {entry.name}." if alias else ""),
                         short_help=f"Alias of {entry.name}." if alias else entry.summary,
                         context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})


def _param_name(o) -> str:
    """The callback's keyword for a declared option."""
    if o.dest:
        return o.dest
    first = o.flags[0].split("/")[0]
    return first.lstrip("-").replace("-", "_")


def _print_claims(entry: Entry, res, paper: str = "the paper") -> None:
    """The verdicts as a table: claim, verdict, what the paper says (``paper``: its heading),
    our test, our numbers."""
    table = Table(title=f"{entry.name}: wattlab's verdicts ({res.simulations} simulations, {res.wall_time_s:.1f} s)",
                  show_lines=True)
    tests = any(c.test for c in res.claims)
    for col in ("claim", "verdict", paper, *(["our test"] if tests else []), "our numbers"):
        table.add_column(col, overflow="fold")
    for c in res.claims:
        claim = f"{c.id}: {c.claim}" if c.claim else c.id
        table.add_row(escape(claim), Text(c.verdict, style=VERDICT_STYLE.get(c.verdict, "")), escape(c.paper),
                      *([escape(c.test)] if tests else []), escape(c.evidence))
    console.print(table)


def _run(rep, cfg, out: Path, jobs, scheduler, max_runs, overwrite):
    """Check ``cfg`` and run ``rep`` into ``out`` on the study engine (runs stored in
    ``out/runs``); a bad configuration exits 2 with its message, an interruption (Ctrl-C: 130,
    ``--max-runs``: 3) with a note that the same command resumes."""
    from wattlab.reproduce import runner

    try:
        cfg.check()
        with runner.engine(out, jobs=jobs, scheduler=scheduler, max_runs=max_runs) as e:
            res = rep.run(cfg, out, workers=jobs, console=err_console, overwrite=overwrite)
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
        from wattlab.study.pool import WorkerDied
        from wattlab.study.store import Busy

        if isinstance(err, (SchedulerError, Busy)):  # the cluster, or another session in `out`: one line
            fail(str(err))
        if isinstance(err, WorkerDied):  # out of memory, say: the runs before it are stored
            fail(f"{err} (the finished simulations are stored in {out}/runs)", code=EXIT_FAILED)
        raise
    t = e.tally
    if t.computed + t.reused:  # (a model's reproduction runs no simulation)
        note(f"{t.computed + t.reused} simulations: {t.computed} computed now, {t.reused} stored before (in {out}/runs)")
    return res

