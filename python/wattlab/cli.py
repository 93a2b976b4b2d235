"""The ``wattlab`` command line."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import List, Optional

import typer

from wattlab import _core, api, report
from wattlab.cli_common import console, fail

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    rich_markup_mode="rich",
    help="wattlab: the energy a mobile client's wireless NIC spends on transport protocols.",
)

BENCH_DIR = Path(__file__).resolve().parent / "bench"



@app.command()
def run(
    scenario: Path = typer.Argument(..., help="Scenario file (TOML). See docs/scenario.md for the schema."),
    seed: Optional[int] = typer.Option(None, "--seed", help="Seed of every random stream (overrides [simulation].seed)."),
    out: Optional[Path] = typer.Option(
        None, "--out", help="Directory for results: summary.json, flows/radios/links CSV, time series, pcaps."
    ),
    pcap: List[str] = typer.Option(
        [], "--pcap", help="Capture an interface to DIR/NODE-IFACE.pcap, as NODE:IFACE (e.g. client:wlan0). Repeatable."
    ),
    set_: List[str] = typer.Option(
        [], "--set", help="Override a scenario key, e.g. --set link.wired.delay=40ms or --set flow.0.bytes=1MB. Repeatable."
    ),
    timeseries: bool = typer.Option(False, "--timeseries", help="Record cwnd/window/queue time series (written with --out)."),
    parquet: bool = typer.Option(False, "--parquet", help="Also write the tables as Parquet."),
    json_out: bool = typer.Option(False, "--json", help="Print the JSON summary instead of tables."),
) -> None:
    """Run a scenario and print its flows and radio energy."""
    if pcap and out is None:
        fail("--pcap needs --out DIR (captures are written there)")
    if out is not None and scenario.resolve().parent == out.resolve() and scenario.suffix != ".toml":
        fail(f"--out {out} holds the scenario file {scenario}; choose another directory")
    try:
        with console.status(f"simulating {scenario} ...", spinner="dots") if not json_out else _null():
            res = api.run(scenario, seed=seed, overrides=set_, out_dir=out, pcap=pcap, timeseries=timeseries)
    except FileNotFoundError as e:
        fail(str(e))
    except _core.ScenarioError as e:
        fail(str(e))
    except _core.SimulationError as e:
        fail(f"the run failed: {e}", code=1)
    if json_out:
        sys.stdout.write(res.summary_json + "\n")
    else:
        report.print_run(console, res)
    if out is not None:
        written = res.write(out, formats=("csv", "parquet") if parquet else ("csv",))
        if not json_out:
            console.print(f"[dim]wrote {len(written) + len(res.pcap_files)} files to {out}[/]")


@app.command()
def validate(
    scenario: Path = typer.Argument(..., help="Scenario file (TOML)."),
    set_: List[str] = typer.Option([], "--set", help="Override a scenario key before checking. Repeatable."),
) -> None:
    """Check a scenario file without running it."""
    try:
        api.validate(scenario, overrides=set_)
    except FileNotFoundError as e:
        fail(str(e))
    except _core.ScenarioError as e:
        fail(str(e))
    console.print(f"[green]ok[/] {scenario}")


@app.command()
def profiles(
    json_out: bool = typer.Option(False, "--json", help="Print the profiles as JSON (full detail)."),
) -> None:
    """List the built-in radio device profiles with their powers and sources."""
    if json_out:
        sys.stdout.write(json.dumps(_core.profiles(), indent=2) + "\n")
        return
    report.print_profiles(console, api.profiles())


@app.command()
def bench(
    repeat: int = typer.Option(3, "--repeat", min=1, max=50, help="Runs per case; the best and median are reported."),
    case: List[str] = typer.Option(
        [], "--case", help="Only these cases (by name); default: all reference cases in wattlab/bench/."
    ),
) -> None:
    """Run the reference benchmarks and print wall time and events/s (see docs/benchmarks.md)."""
    cases = sorted(BENCH_DIR.glob("*.toml"))
    if case:
        cases = [c for c in cases if c.stem in case]
        if not cases:
            fail(f"no benchmark case named {', '.join(case)} (have: {', '.join(p.stem for p in BENCH_DIR.glob('*.toml'))})")
    rows = []
    for path in cases:
        with console.status(f"benchmark {path.stem} ({repeat} runs) ..."):
            runs = _core.bench(path.read_text(encoding="utf-8"), str(path), repeat=repeat)
        rows.append((path.stem, runs))
    report.print_bench(console, rows)


CHECKS = ("bianchi", "tcp-capacity")


@app.command()
def check(
    model: str = typer.Argument(..., help=f"Which check: {', '.join(CHECKS)}."),
    seconds: float = typer.Option(5.0, "--seconds", min=0.5, max=600, help="Simulated time per saturation run (bianchi)."),
    seed: int = typer.Option(1, "--seed", help="Seed of the simulations."),
    as_json: bool = typer.Option(False, "--json", help="Print the rows as JSON instead of a table."),
) -> None:
    """Check the 802.11 MAC against closed-form models and print both side by side.

    [b]bianchi[/]: saturation throughput of 1, 5, 10, 20 stations on 802.11a (54 Mb/s) and
    802.11b (11 Mb/s), 1500-byte packets, basic access, no retry limit, against Bianchi (2000).
    [b]tcp-capacity[/]: one TCP flow over 802.11a 54 Mb/s against the collision-free TCP
    maximum (data and TCP ACK frames), with the MAC-only maximum (29.7 Mb/s) beside it.
    """
    from wattlab.models import wlan

    if model not in CHECKS:
        fail(f"unknown check `{model}` (known: {', '.join(CHECKS)})")
    with console.status(f"running the {model} check ..."):
        df = wlan.bianchi_check(seconds=seconds, seed=seed) if model == "bianchi" else wlan.tcp_capacity_check(seed=seed)
    if as_json:
        sys.stdout.write(df.to_json(orient="records", indent=2) + "\n")
        return
    title = "Saturation throughput: simulation vs Bianchi (2000)" if model == "bianchi" else "One TCP flow over 802.11a 54 Mb/s vs the theoretical maximum"
    report.print_frame(console, df, title)


def _register_subcommands() -> None:
    from wattlab.cli_live import live_app
    from wattlab.cli_reproduce import reproduce_app
    from wattlab.cli_trace import trace_app

    app.add_typer(reproduce_app, name="reproduce")
    app.add_typer(trace_app, name="trace")
    app.add_typer(live_app, name="live")


_register_subcommands()


@app.callback()
def _main() -> None:
    """wattlab command line."""


class _null:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def main() -> None:
    """Entry point of the ``wattlab`` script."""
    app()


if __name__ == "__main__":
    main()
