"""The ``wattlab`` command line (click). Heavy modules (pandas, matplotlib, the reproductions)
are imported inside the commands that need them, so that ``--help`` and a plain ``run`` start
fast."""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

import click
from rich.markup import escape

from wattlab import _core
from wattlab.cli_common import (
    EXIT_CODES_HELP, EXIT_FAILED, EXIT_INCOMPLETE, EXIT_INTERRUPTED, EXIT_USAGE, PATH, check_inputs_outside, check_input_file,
    console, err_console, fail, note, OUT_DIR, prepare_out_dir, progress, warn,
)

BENCH_DIR = Path(__file__).resolve().parent / "bench"

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


class LazyGroup(click.Group):
    """A group whose sub-groups (``trace``, ``live``, ``reproduce``) are imported only when
    invoked or listed, so that ``wattlab run`` does not load them."""

    lazy = {
        "live": ("wattlab.cli_live", "live_app"),
        "reproduce": ("wattlab.cli_reproduce", "reproduce_app"),
        "report": ("wattlab.cli_report", "report"),
        "sweep": ("wattlab.cli_sweep", "sweep"),
        "trace": ("wattlab.cli_trace", "trace_app"),
    }

    def list_commands(self, ctx: click.Context) -> list[str]:
        """Every command name, the lazy ones included."""
        return sorted([*super().list_commands(ctx), *self.lazy])

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        """The command ``name``, importing its module first if it is a lazy one."""
        if name in self.lazy:
            import importlib

            module, attr = self.lazy[name]
            return getattr(importlib.import_module(module), attr)
        return super().get_command(ctx, name)


@click.group(cls=LazyGroup, context_settings=CONTEXT)
@click.version_option(f"{_core.__version__} (commit {_core.__commit__})", "--version", prog_name="wattlab",
                      message="%(prog)s %(version)s", help="Print wattlab's version and commit, and exit.")
def app() -> None:
    """wattlab: the energy a mobile client's wireless NIC spends on transport protocols.

    Results go to stdout (tables, or JSON with --json); progress, notes and errors to stderr.
    """


@app.command(epilog=EXIT_CODES_HELP)
@click.argument("scenario", type=PATH, metavar="SCENARIO.toml")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), metavar="N", help="Seed of every random stream (overrides [simulation].seed).")
@click.option("--out", type=OUT_DIR, metavar="DIR",
              help="Directory for results: summary.json, scenario.toml (the scenario that ran), flows/radios/links CSV, "
              "time series, pcaps, and baseline/ (the run with power saving off). Must be new or empty, unless --overwrite.")
@click.option("--pcap", multiple=True, metavar="NODE:IFACE",
              help="Capture an interface to DIR/NODE-IFACE.pcap (e.g. client:wlan0); needs --out. Repeatable.")
@click.option("--link", "pcap_link", type=click.Choice(["ethernet", "radiotap"]), default=None,
              help="What the captures record (output.pcap_link): ethernet (default: the interface's IP packets in "
              "Ethernet frames) or radiotap (an 802.11 interface's channel as a monitor hears it: every frame of its "
              "BSS with rate/MCS, PM, retry and A-MPDU fields).")
@click.option("--pcap-epoch", metavar="DATETIME",
              help="When the run starts in the captures (output.pcap_epoch), e.g. 2026-11-27T18:00:00Z; default "
              "2000-01-01T00:00:00Z for radiotap, the Unix epoch for Ethernet. Recorded in the summary's provenance.")
@click.option("--set", "set_", multiple=True, metavar="KEY=VALUE",
              help="Override a scenario key, e.g. --set link.wired.delay=40ms or --set flow.0.bytes=1MB. Repeatable.")
@click.option("--timeseries", is_flag=True, help="Record cwnd/window/queue/radio time series (written to --out, which it needs).")
@click.option("--parquet", is_flag=True, help="Also write the tables as Parquet (needs --out).")
@click.option("--baseline/--no-baseline", default=None,
              help="Also run the same scenario and seed with every station's power saving off (the same traffic without "
              "the scheme) and show each power mode's saving and slowdown against it, and its energy per delivered MB: a "
              "saving only where the mode delivered the same bytes and datagrams and completed the same flows. Default: "
              "when a station uses a power mode.")
@click.option("--overwrite", is_flag=True, help="Replace the results of an earlier run in --out (other files there are kept).")
@click.option("--allow-incomplete", is_flag=True,
              help="Exit 0 even if the run hit its time limit before every flow completed, or a power mode did not do "
              "its baseline's work (lost bytes or datagrams, a flow not completed: no saving is shown) (default: exit 3).")
@click.option("--json", "json_out", is_flag=True,
              help="Print the JSON summary instead of tables (with a baseline: plus `savings` and `baseline`).")
@click.option("--compare", metavar="KEY=V1,V2,...",
              help="Run the scenario once per value of KEY (same seed and --set) and print them side by side with each "
              "value's energy per delivered MB and its saving and slowdown against the first (none where it did not "
              "deliver the first one's bytes and datagrams), e.g. --compare wireless.wlan.power_save=cam,psm,cc.")
@click.option("--quiet", "-q", is_flag=True, help="No progress or notes on stderr (errors and warnings still).")
def run(scenario, seed, out, pcap, pcap_link, pcap_epoch, set_, timeseries, parquet, baseline, overwrite, allow_incomplete,
        json_out, quiet, compare) -> None:
    """Run a scenario and print its flows and radio energy."""
    from wattlab import api, report

    check_input_file(scenario, "scenario")
    # The capture options are scenario keys: as overrides they are checked and recorded with the others.
    set_ = tuple(set_) + tuple(f'output.pcap_link="{pcap_link}"' for _ in [pcap_link] if pcap_link is not None) \
        + tuple(f"output.pcap_epoch={pcap_epoch}" for _ in [pcap_epoch] if pcap_epoch is not None)
    if compare is not None:
        if out is not None or pcap or timeseries or parquet or baseline:
            fail("--compare prints a table: it takes no --out, --pcap, --timeseries, --parquet or --baseline "
                 "(for results on disk, use wattlab sweep)")
        run_compare(scenario, compare, seed, set_, json_out, quiet, allow_incomplete)
        return
    if pcap and out is None:
        fail("--pcap needs --out DIR (captures are written there)")
    if timeseries and out is None and not json_out:
        fail("--timeseries needs --out DIR (the series are written there; from Python: wattlab.run(..., timeseries=True))")
    if parquet and out is None:
        fail("--parquet needs --out DIR")
    if out is not None:
        check_inputs_outside(out, [scenario], ["scenario.toml", "summary.json"])
        prepare_out_dir(out, overwrite, api.RESULT_FILES, keep=[scenario])
    try:
        with progress(f"simulating {scenario} ...", quiet or json_out) as status, warnings.catch_warnings():
            # The cost estimate's warnings, printed before the run starts (even with --quiet).
            warnings.simplefilter("always", api.CostWarning)
            warnings.showwarning = lambda message, *_args, **_kw: warn(str(message))
            show = lambda p: status.update(escape(f"simulating {scenario}: {run_progress(p)}"))  # noqa: E731
            res = api.run(scenario, seed=seed, overrides=set_, out_dir=out, pcap=pcap, timeseries=timeseries, baseline=baseline,
                          progress=show)
    except api.RunInterrupted as e:
        if out is not None:
            e.result.write(out, formats=("csv", "parquet") if parquet else ("csv",))
        where = f"; the partial results (marked interrupted) are in {out}" if out is not None else ""
        note(f"interrupted at {e.result.summary['end_time_s']:.3f} s simulated{where}", style="yellow")
        sys.exit(EXIT_INTERRUPTED)
    except (FileNotFoundError, _core.ScenarioError, _core.SimulationError) as e:
        fail_run(e)
    if json_out:
        if res.baseline is None:
            sys.stdout.write(res.summary_json + "\n")
        else:
            doc = {**res.summary, "savings": report.savings_rows(res), "baseline": res.baseline.summary}
            sys.stdout.write(json.dumps(doc, indent=2) + "\n")
    else:
        report.print_run(console, res)
        hint = report.mode_note(res)
        if hint:
            note(f"note: {hint}", quiet)
    if out is not None:
        try:
            written = res.write(out, formats=("csv", "parquet") if parquet else ("csv",))
        except OSError as e:
            fail(f"--out {out}: cannot write the results: {e.strerror or e} ({e.filename or out})", code=EXIT_FAILED)
        note(f"wrote {len(written) + len(res.pcap_files)} files to {out}", quiet)
    problems = []
    lost = api.lost_work(res)
    if lost is not None:
        modes = ", ".join(sorted({r["mode"] for r in report.savings_rows(res)})) or "the power mode"
        problems.append(f"{modes} did not do the baseline's work ({lost}): no saving is shown")
    if not res.completed:
        unfinished = [f["name"] for f in res.summary["flows"] if f.get("completion_time_s") is None]
        problems.append(f"the run ended at its time limit ({res.summary['end_time_s']:.3f} s) before "
                        f"{', '.join(unfinished) or 'every flow'} completed; results cover that time only")
    exit_if_incomplete(problems, allow_incomplete, quiet)


def run_compare(scenario, spec, seed, set_, json_out, quiet, allow_incomplete) -> None:
    """``run --compare``: the scenario under each value of one key, side by side."""
    from wattlab import api, compare

    try:
        key, values = compare.split_values(spec)
    except ValueError as e:
        fail(str(e))
    try:
        with progress(f"simulating {scenario} with {len(values)} values of {key} ...", quiet or json_out):
            rows = compare.compare(scenario, key, values, seed=seed, overrides=set_)
    except api.RunInterrupted:
        note("interrupted", style="yellow")
        sys.exit(EXIT_INTERRUPTED)
    except (FileNotFoundError, _core.ScenarioError, _core.SimulationError) as e:
        fail_run(e)
    if json_out:
        sys.stdout.write(json.dumps(rows, indent=2) + "\n")
    else:
        compare.print_compare(console, rows)
    from wattlab.work import describe_loss

    problems = [f"with {key} = {r['value']} the run did not do the work of {key} = {rows[0]['value']} "
                f"({describe_loss(r)}): no saving is shown" for r in rows if not r["same_work"]]
    bad = [r["value"] for r in rows if not r["completed"]]
    if bad:
        problems.append(f"with {key} = {', '.join(bad)} the run ended at its time limit before every flow completed")
    exit_if_incomplete(problems, allow_incomplete, quiet)


def exit_if_incomplete(problems: list[str], allow_incomplete: bool, quiet: bool) -> None:
    """Say what makes a run's results incomplete (``problems``): as warnings, then exit
    :data:`EXIT_INCOMPLETE`; with ``--allow-incomplete`` as notes, and go on."""
    for msg in problems:
        if allow_incomplete:
            note(f"note: {msg}", quiet)
        else:
            warn(f"{msg} (exit {EXIT_INCOMPLETE}; --allow-incomplete to exit 0)")
    if problems and not allow_incomplete:
        sys.exit(EXIT_INCOMPLETE)


def fail_run(e: Exception) -> None:
    """Exit for a run that could not start (its file missing, its scenario invalid: exit 2 with
    the message) or that failed while running (exit 1)."""
    if isinstance(e, _core.SimulationError):
        fail(f"the run failed: {e}", code=EXIT_FAILED)
    fail(str(e))


def run_progress(p) -> str:
    """One line of a long run's progress: a bar of simulated time against the stop time."""
    frac = min(1.0, p.sim_time_s / p.end_s) if p.end_s > 0 else 0.0
    bar = "#" * round(20 * frac) + "-" * (20 - round(20 * frac))
    return f"[{bar}] {p.sim_time_s:.3f} s of at most {p.end_s:g} s simulated, {p.events / 1e6:.1f} M events"


@app.command()
@click.argument("scenarios", type=PATH, nargs=-1, required=True, metavar="SCENARIO.toml...")
@click.option("--set", "set_", multiple=True, metavar="KEY=VALUE",
              help="Override a scenario key before checking (applied to every file). Repeatable.")
@click.option("--json", "json_out", is_flag=True,
              help="Print one JSON record per file (file, ok, error with origin, line, column, key, message).")
def validate(scenarios, set_, json_out) -> None:
    """Check scenario files without running them; report each file's error; exit 2 if any is invalid."""
    from wattlab import api

    records = []
    for path in scenarios:
        rec = {"file": str(path), "ok": True, "error": None}
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("always", api.CostWarning)
                warnings.showwarning = lambda message, *_args, p=path, **_kw: warn(f"{p}: {message}")
                api.validate(path, overrides=set_)
        except OSError as e:
            msg = str(e) if e.strerror is None else f"{path}: {e.strerror}"
            rec.update(ok=False, error={"message": msg, "origin": str(path), "line": None, "column": None, "key": None})
        except _core.ScenarioError as e:
            rec.update(ok=False, error={"message": str(e), "origin": getattr(e, "origin", str(path)), "line": getattr(e, "line", None),
                                        "column": getattr(e, "column", None), "key": getattr(e, "key", None)})
        records.append(rec)
    if json_out:
        sys.stdout.write(json.dumps(records, indent=2) + "\n")
    else:
        for r in records:
            if r["ok"]:
                console.print(f"[green]ok[/] {escape(r['file'])}", highlight=False)
            else:
                err_console.print(f"[bold red]error:[/] {escape(r['error']['message'])}", highlight=False, soft_wrap=True)
    bad = sum(not r["ok"] for r in records)
    if bad:
        if len(records) > 1 and not json_out:
            err_console.print(f"{bad} of {len(records)} scenario files invalid", highlight=False)
        sys.exit(EXIT_USAGE)


@app.command()
@click.argument("specs", nargs=-1, metavar="[NAME|FILE.toml]...")
@click.option("--json", "json_out", is_flag=True,
              help="Print the profiles as JSON (full detail: transitions, per-(width, NSS) PPDU powers, derived values).")
def profiles(specs, json_out) -> None:
    """List radio device profiles with their powers and sources: the built-in ones, or the
    built-in names and profile TOML files given (a file is checked; a bad one is an error
    naming its line and key). A scenario names either in `radio.profile`."""
    try:
        data = _core.profiles(list(specs) if specs else None)
    except ValueError as e:
        fail(str(e))
    if json_out:
        sys.stdout.write(json.dumps(data, indent=2) + "\n")
        return
    from wattlab import api, report

    report.print_profiles(console, api.profiles(list(specs) if specs else None))


@app.command()
@click.option("--repeat", type=click.IntRange(1, 50), default=3, show_default=True, metavar="N",
              help="Runs per case; the best and median are reported.")
@click.option("--case", multiple=True, metavar="NAME", help="Only these cases (by name); default: all reference cases in wattlab/bench/.")
@click.option("--json", "json_out", is_flag=True, help="Print one JSON record per case (runs with wall time, events, events/s).")
@click.option("--quiet", "-q", is_flag=True, help="No progress on stderr.")
def bench(repeat, case, json_out, quiet) -> None:
    """Run the reference benchmarks and print wall time and events/s (see docs/benchmarks.md)."""
    cases = sorted(BENCH_DIR.glob("*.toml"))
    if case:
        cases = [c for c in cases if c.stem in case]
        if not cases:
            fail(f"no benchmark case named {', '.join(case)} (have: {', '.join(p.stem for p in BENCH_DIR.glob('*.toml'))})")
    rows = []
    for path in cases:
        with progress(f"benchmark {path.stem} ({repeat} runs) ...", quiet or json_out):
            runs = _core.bench(path.read_text(encoding="utf-8"), str(path), repeat=repeat)
        rows.append((path.stem, runs))
    if json_out:
        doc = [{"case": name, "commit": _core.__commit__,
                "runs": [{k: r[k] for k in ("wall_time_s", "events", "events_per_s")} for r in runs]} for name, runs in rows]
        sys.stdout.write(json.dumps(doc, indent=2) + "\n")
        return
    from wattlab import report

    report.print_bench(console, rows)


CHECKS = ("bianchi", "tcp-capacity", "bianchi-ampdu", "tcp-capacity-ampdu")


@app.command()
@click.argument("model", type=click.Choice(CHECKS), metavar="MODEL")
@click.option("--seconds", type=click.FloatRange(0.5, 600), default=5.0, show_default=True, metavar="S",
              help="Simulated time per saturation run (bianchi, bianchi-ampdu).")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=1, show_default=True, metavar="N", help="Seed of the simulations.")
@click.option("--json", "as_json", is_flag=True, help="Print the rows as JSON instead of a table.")
def check(model, seconds, seed, as_json) -> None:
    """Check the 802.11 MAC against closed-form models and print both side by side.

    MODEL is bianchi (saturation throughput of 1, 5, 10, 20 stations on 802.11a at 54 Mb/s and
    802.11b at 11 Mb/s, 1500-byte packets, basic access, no retry limit, against Bianchi 2000) or
    tcp-capacity (one TCP flow over 802.11a 54 Mb/s against the collision-free TCP maximum with
    data and TCP ACK frames, and the MAC-only maximum, 29.7 Mb/s, beside it). bianchi-ampdu and
    tcp-capacity-ampdu are the same two with A-MPDU aggregation, immediate Block Ack and EDCA
    AC_BE on 802.11ax (HE-MCS 7, 20 MHz, 1 stream, 0.8 us GI): saturation of 1, 5, 10, 20
    stations, and one TCP upload with data A-MPDUs up and TCP-ACK A-MPDUs down.
    """
    from wattlab.models import wlan

    runs = {
        "bianchi": lambda: wlan.bianchi_check(seconds=seconds, seed=seed),
        "tcp-capacity": lambda: wlan.tcp_capacity_check(seed=seed),
        "bianchi-ampdu": lambda: wlan.bianchi_ampdu_check(seconds=seconds, seed=seed),
        "tcp-capacity-ampdu": lambda: wlan.tcp_capacity_ampdu_check(seed=seed),
    }
    with progress(f"running the {model} check ...", as_json):
        df = runs[model]()
    if as_json:
        sys.stdout.write(df.to_json(orient="records", indent=2) + "\n")
        return
    from wattlab import report

    title = {
        "bianchi": "Saturation throughput: simulation vs Bianchi (2000)",
        "tcp-capacity": "One TCP flow over 802.11a 54 Mb/s vs the theoretical maximum",
        "bianchi-ampdu": "Saturation throughput with A-MPDU + Block Ack (802.11ax HE-MCS 7, 20 MHz) vs Bianchi",
        "tcp-capacity-ampdu": "One TCP flow over 802.11ax HE-MCS 7, 20 MHz with A-MPDU vs the theoretical maximum",
    }[model]
    report.print_frame(console, df, title)


def main() -> None:
    """Entry point of the ``wattlab`` script: click's errors as usual, Ctrl-C as exit 130 with
    one line, and an unexpected exception as one line naming it as a bug (the traceback with
    ``WATTLAB_TRACEBACK=1``)."""
    import os

    try:
        code = app(prog_name="wattlab", standalone_mode=False)
        sys.exit(code if isinstance(code, int) else 0)
    except click.exceptions.Exit as e:
        sys.exit(e.exit_code)
    except click.ClickException as e:
        e.show()
        sys.exit(e.exit_code)
    except (KeyboardInterrupt, click.exceptions.Abort):
        err_console.print("interrupted", highlight=False)
        sys.exit(EXIT_INTERRUPTED)
    except BrokenPipeError:
        # `wattlab ... | head`: the reader went away; nothing more to say.
        sys.stderr.close()
        sys.exit(EXIT_FAILED)
    except Exception as e:  # noqa: BLE001 - the last line of defence: no traceback for users
        if os.environ.get("WATTLAB_TRACEBACK"):
            raise
        err_console.print(
            f"[bold red]internal error:[/] {escape(type(e).__name__)}: {escape(str(e))}\n"
            "This is a wattlab bug: please report it with the command (WATTLAB_TRACEBACK=1 shows the traceback).",
            highlight=False, soft_wrap=True,
        )
        sys.exit(EXIT_FAILED)


if __name__ == "__main__":
    main()
