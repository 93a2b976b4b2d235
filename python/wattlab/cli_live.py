"""``wattlab live``: a scenario's download on real Linux TCP in network namespaces."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import List, Optional

import pandas as pd
import typer
from rich.table import Table

from wattlab import report
from wattlab.cli_common import console, fail

live_app = typer.Typer(
    no_args_is_help=True,
    rich_markup_mode="rich",
    help="Live testbed (root): the scenario's download on real Linux TCP between network namespaces, "
    "through wattlab's userspace link/AP emulator, with the client-centered agent on NFQUEUE.",
)

POLICY_HELP = (
    "Client radio policy: always-on (the AP forwards at once), cc (seed 000's client-centered agent on the "
    "client's NFQUEUE; energy = replay of its radio schedule over the capture), psm (idealised PSM: the AP "
    "buffers and releases at each beacon)."
)
SET_HELP = "Override a scenario key, as `wattlab run --set` (e.g. --set wireless.hop.down.loss.p=0.01). Repeatable."
SYSCTL_HELP = (
    "Extra sysctl in the client's or server's namespace, ROLE:KEY=VALUE, applied after the scenario's TCP settings; "
    "repeatable. E.g. server:net.ipv4.tcp_invalid_ratelimit=500 restores stock Linux's rate limit on answers to "
    "out-of-window segments (the agent's probes), which the testbed sets to 0 to match the simulator's TCP."
)
LIMIT_HELP = "Time bound of a run in seconds (default: the scenario's stop time, at most 600 s)."



def _print_result(res) -> None:
    p = res.plan
    ok = "[green]verified[/]" if res.verified else "[bold red]CORRUPT[/]"
    console.print(
        f"[bold]{p['scenario']}[/] live, policy {p['policy']}, Linux {p['linux_cc']}  transfer {res.transfer_time_s:.3f} s  "
        f"data {ok} ({res.fetch['bytes']:,} B, sha256 {res.fetch['sha256'][:12]}…)  ({res.wall_time_s:.1f} s wall)"
    )
    t = Table(title="Flows", title_justify="left")
    for col in ("flow", "kind", "delivered", "time (s)", "goodput", "retx", "srtt (ms)"):
        t.add_column(col, justify="left" if col in ("flow", "kind") else "right")
    t.add_row(
        p["flow"], "bulk-download", report._fmt_bytes(res.fetch["bytes"]), f"{res.transfer_time_s:.3f}",
        report._fmt_bps(res.goodput_bps), str(res.server["retransmitted_segments"]), f"{res.server['srtt_ms']:.1f}",
    )
    console.print(t)
    report.print_energy(console, res.radios())
    if res.agent:
        row = {"node": p["client"], "detection": p.get("detection") or "active", **res.agent["agent"]}
        report.print_agents(console, pd.DataFrame([row]))
    emu = res.emulator["host"]
    timers = ""
    if res.agent:
        h = res.agent["host"]
        timers = f"; agent timers {h['timer_late_mean_us']:.0f} µs late on average (max {h['timer_late_max_us']:.0f} µs)"
    console.print(
        f"emulator: {emu['packets']:,} packets, verdicts {emu['late_mean_us']:.0f} µs late on average "
        f"(max {emu['late_max_us']:.0f} µs, {emu['late_over_1ms']} over 1 ms){timers}"
    )
    if res.host_late_max_ms > 5.0:
        console.print(f"[yellow]warning:[/] the host ran up to {res.host_late_max_ms:.1f} ms behind the model: "
                      "packets met delays the scenario does not have (busy machine or VM stall)", highlight=False)
    for n in res.notes + res.energy.notes:
        console.print(f"[dim]note: {n}[/]", highlight=False)
    console.print(f"[dim]results in {res.out_dir}[/]")


@live_app.command("run")
def run_cmd(
    scenario: Path = typer.Argument(..., help="Scenario TOML: server ⇄ \\[\\[link]] ⇄ ap ⇄ \\[\\[wireless]] ⇄ client, one bulk-download flow."),
    policy: str = typer.Option("always-on", "--policy", help=POLICY_HELP),
    out: Optional[Path] = typer.Option(None, "--out", help="Directory for the capture (client.pcap), logs, reports, energy tables and summary.json (default: a new temporary directory)."),
    set_: List[str] = typer.Option([], "--set", help=SET_HELP),
    time_limit: Optional[float] = typer.Option(None, "--time-limit", help=LIMIT_HELP),
    sysctl: List[str] = typer.Option([], "--sysctl", help=SYSCTL_HELP),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace the results of an earlier run in --out."),
    as_json: bool = typer.Option(False, "--json", help="Print summary.json instead of tables."),
) -> None:
    """Run the scenario's download live and print its flow, energy and agent tables."""
    from wattlab import live

    try:
        with console.status("live run ...", spinner="dots") as status:
            res = live.run(scenario, policy, out_dir=out, overrides=set_, time_limit=time_limit, overwrite=overwrite,
                           on_step=lambda s: status.update(f"live run: {s} ..."), sysctls=sysctl)
    except live.LiveError as e:
        fail(str(e))
    except KeyboardInterrupt:
        fail("interrupted; the namespaces were removed", code=130)
    if as_json:
        sys.stdout.write(json.dumps(res.summary(), indent=2, default=str) + "\n")
    else:
        _print_result(res)
    if not res.verified:
        raise typer.Exit(1)


@live_app.command("compare")
def compare_cmd(
    scenario: Path = typer.Argument(..., help="Scenario TOML (as for `wattlab live run`)."),
    out: Optional[Path] = typer.Option(None, "--out", help="Directory for both live runs (live-always-on/, live-cc/) and compare.csv."),
    set_: List[str] = typer.Option([], "--set", help=SET_HELP),
    time_limit: Optional[float] = typer.Option(None, "--time-limit", help=LIMIT_HELP),
    sysctl: List[str] = typer.Option([], "--sysctl", help=SYSCTL_HELP),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace the results of earlier runs in --out."),
    as_json: bool = typer.Option(False, "--json", help="Print the comparison as JSON records."),
) -> None:
    """Simulate and run live, always-on and with the cc agent; print both side by side."""
    from wattlab import live

    try:
        with console.status("comparing ...", spinner="dots") as status:
            df = live.compare(scenario, overrides=set_, out_dir=out, time_limit=time_limit, overwrite=overwrite,
                              on_step=lambda s: status.update(f"{s} ..."), sysctls=sysctl)
    except live.LiveError as e:
        fail(str(e))
    except KeyboardInterrupt:
        fail("interrupted; the namespaces were removed", code=130)
    if as_json:
        sys.stdout.write(df.to_json(orient="records", indent=2) + "\n")
        return
    report.print_frame(console, df, f"{scenario.name}: simulated vs live (saving = 1 − energy / always-on of the same mode)")


@live_app.command("cleanup")
def cleanup_cmd() -> None:
    """Remove the namespaces (and with them the interfaces and rules) left by crashed live runs."""
    from wattlab import live

    try:
        live.require_root()
    except live.LiveError as e:
        fail(str(e))
    gone = live.cleanup()
    console.print(f"removed {len(gone)} namespace(s)" + (": " + ", ".join(gone) if gone else ""))
