"""``wattlab live``: a scenario's download on real Linux TCP in network namespaces."""

from __future__ import annotations

import json
import sys

import click
from rich.markup import escape

from wattlab.cli_common import EXIT_FAILED, EXIT_INTERRUPTED, PATH, console, fail, note, progress, warn
from wattlab.tables import new_table, print_table


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
def live_app() -> None:
    """Live testbed (root): the scenario's download on real Linux TCP between network namespaces,
    through wattlab's userspace link/AP emulator, with the client-centered agent on NFQUEUE."""


POLICY_HELP = (
    "Client radio policy: always-on (the AP forwards at once), cc (paper 000's client-centered agent on the "
    "client's NFQUEUE; energy = replay of its radio schedule over the capture), psm (idealised PSM: the AP "
    "buffers and releases at each beacon), adaptive-psm (adaptive PSM with mac80211's 100 ms inactivity timeout: "
    "the AP holds while the station dozes), adaptive-psm:timeout=Tms (another timeout, T = 1..10000), "
    "twt:interval=Ims,duration=Dus[,offset=Ous] (802.11ax individual TWT: the AP holds the station's packets "
    "until its service periods, D µs every I ms, O µs after the multiples of I), psna (a psna-read/psna-send "
    "flow's mobile switches the card off). The parameterised names are the simulator's power_save names. "
    "Energy of every policy but always-on = replay of its radio schedule over the capture. Default: psna for a "
    "PSNA flow, always-on otherwise."
)


def _policy(ctx, param, value):
    """A ``--policy`` value checked as ``wattlab.live`` checks it (a usage error otherwise)."""
    from wattlab.live import checks
    from wattlab.live.netns import LiveInputError

    if value is None:
        return None
    try:
        return checks.policy(value)
    except LiveInputError as e:
        raise click.BadParameter(str(e)) from None


SET_HELP = "Override a scenario key, as `wattlab run --set` (e.g. --set wireless.hop.down.loss.p=0.01). Repeatable."
SYSCTL_HELP = (
    "Extra sysctl in the client's or server's namespace, ROLE:KEY=VALUE, applied after the scenario's TCP settings; "
    "repeatable. E.g. server:net.ipv4.tcp_invalid_ratelimit=500 restores stock Linux's rate limit on answers to "
    "out-of-window segments (the agent's probes), which the testbed sets to 0 to match the simulator's TCP."
)
LIMIT_HELP = (
    "Time bound of the download in seconds of the scenario's clock, 0 < S <= 3600 (default: the scenario's stop "
    "time, at most 600 s). A download that cannot finish within it at the path's rates is refused before it starts."
)



def _print_wwp(res, quiet: bool = False) -> None:
    """A live WWP run: the flow's delivered data and the paper's byte counts."""
    from wattlab import report

    p, w = res.plan, res.summary()["wwp"]
    ok = "[green]verified[/]" if res.verified else "[bold red]CORRUPT[/]"
    console.print(
        f"[bold]{escape(p['scenario'])}[/] live WWP {escape(res.flow['sender'])} → {escape(res.flow['receiver'])}  "
        f"data {ok} ({res.delivered_bytes:,} B, sha256 {res.receiver['delivered_sha256'][:12]}…)  "
        f"{'closed' if res.closed else 'not closed (' + escape(res.sender['outcome']) + ')'}  ({res.wall_time_s:.1f} s wall)"
    )
    t = new_table("Flows")
    cols = ("flow", "kind", "delivered", "in window", "per min", "sender bytes", "recv overhead", "effort overhead",
            "retx", "waves 1/2/3", "probes", "nacked")
    for col in cols:
        t.add_column(col, justify="left" if col in ("flow", "kind") else "right")
    eo = w["effort_overhead"]
    t.add_row(
        escape(p["flow"]), "wwp-bulk", report._fmt_bytes(w["delivered_bytes"]), report._fmt_bytes(w["delivered_in_window"]),
        report._fmt_bytes(w["delivered_bytes_per_min"]), f"{w['sender_bytes']:,}", f"{w['receiver_overhead_bytes']:,}",
        "-" if eo is None else f"{eo:.4f}", str(w["retransmitted_segments"]), "/".join(str(x) for x in w["waves_sent"][1:]),
        str(w["probe_cycles"]), str(w["nacked_segments"]),
    )
    print_table(console, t, keys=1)
    late = max(res.sender['timer_late_max_us'], res.receiver['timer_late_max_us'])
    _print_udp_tail(res, f"WWP timers up to {late:.0f} µs late", quiet)


def _print_udp_tail(res, what: str, quiet: bool) -> None:
    """The end of a UDP flow's print-out (WWP, PSNA): energy, the emulator and ``what``,
    warnings, notes, where the results are."""
    from wattlab import report

    if res.energy is not None:
        report.print_energy(console, res.radios().to_dict("records"))
    emu = res.emulator["host"]
    note(f"emulator: {emu['packets']:,} packets, verdicts {emu['late_mean_us']:.0f} µs late on average "
         f"(max {emu['late_max_us']:.0f} µs); {what}", quiet)
    _print_run_end(res, quiet)


def _print_run_end(res, quiet: bool, behind: str = "", why: str = "", notes: list[str] | None = None) -> None:
    """The end of a live run's print-out (download, web, WWP, PSNA): a warning if the host ran
    more than 5 ms behind (``behind`` and ``why`` complete its sentence), the run's warnings,
    its notes (``notes``, default the run's own), and where the results are."""
    if res.host_late_max_ms > 5.0:
        warn(f"the host ran up to {res.host_late_max_ms:.1f} ms behind{behind}: packets met delays the scenario does not have{why}")
    for w in res.warnings:
        warn(w)
    for n in res.notes if notes is None else notes:
        note(f"note: {n}", quiet)
    note(f"results in {res.out_dir}", quiet)


def _print_psna(res, quiet: bool = False) -> None:
    """A live PSNA run: completion, the card's on-time and energy, the protocol's counters."""
    p, w = res.plan, res.summary()["psna"]
    ok = "[green]verified[/]" if res.verified else "[bold red]NOT VERIFIED[/]"
    console.print(
        f"[bold]{escape(p['scenario'])}[/] live PSNA {escape(p['kind'])}  data {ok} ({int(p['bytes']):,} B)  "
        f"({res.wall_time_s:.1f} s wall)"
    )
    t = new_table("Flows")
    cols = ("flow", "kind", "completion (s)", "radio on (s)", "energy (J)", "polls", "sleeps", "switches", "retx", "first residual (s)")
    for col in cols:
        t.add_column(col, justify="left" if col in ("flow", "kind") else "right")
    f = lambda v, fmt: "-" if v is None else format(v, fmt)  # noqa: E731
    t.add_row(escape(p["flow"]), escape(p["kind"]), f(w["completion_s"], ".3f"), f"{w['radio_on_s']:.3f}", f(w["energy_j"], ".2f"),
              str(w["polls"]), str(w["sleeps"]), str(w["radio_switches"]), str(w["retransmissions"]), f(w["first_residual_s"], ".3f"))
    print_table(console, t, keys=1)
    _print_udp_tail(res, f"{w['dropped_radio_off']} frame(s) reached the card while it was off", quiet)


def _print_tunnel(res, quiet: bool = False) -> None:
    """A live SCTP-tunnel run: each flow's bytes and digest check, the tunnel ends' counters,
    the client's awake time and energy."""
    from wattlab import report

    p = res.plan
    ok = "[green]verified[/]" if res.verified else "[bold red]CORRUPT[/]"
    console.print(
        f"[bold]{escape(p['scenario'])}[/] live SCTP tunnel, m = {p['burst']}, {escape(p['power_save'])}  "
        f"{len(res.flows)} TCP flows, data {ok}  radio awake {res.awake_s:.3f} s of {res.window_s:.1f} s "
        f"({res.wakes} wake-ups)  ({res.wall_time_s:.1f} s wall)"
    )
    t = new_table("Flows")
    for col in ("flow", "direction", "sent", "received", "goodput", "sha256", "verified"):
        t.add_column(col, justify="left" if col in ("flow", "direction", "sha256") else "right")
    for r in res.flows.to_dict("records"):
        t.add_row(escape(r["flow"]), r["direction"], f"{r['bytes_sent']:,}", f"{r['bytes_received']:,}",
                  report._fmt_bps(8 * r["goodput_Bps"]), r["sha256_received"][:12] + "…", "yes" if r["verified"] else "[red]no[/]")
    print_table(console, t, keys=1)
    t = new_table("Tunnel ends")
    cols = ("end", "inner in", "delivered", "SCTP sent", "SACKs (on DATA)", "retx", "triggers", "dropped")
    for col in cols:
        t.add_column(col, justify="left" if col == "end" else "right")
    for end, r in res.tunnels.items():
        s_ = r["tunnel"]
        t.add_row(end, f"{s_['inner_in']:,}", f"{s_['inner_delivered']:,}", f"{s_['packets_sent']:,}",
                  f"{s_['sacks_sent']:,} ({s_['sacks_piggybacked']:,})", str(s_["timeout_retransmissions"] + s_["fast_retransmissions"]),
                  str(r["triggers"]), str(r["udp_dropped"]))
    print_table(console, t, keys=1)
    report.print_energy(console, res.radios().to_dict("records"))
    if res.host_late_max_ms > 5.0:
        warn(f"the host ran up to {res.host_late_max_ms:.1f} ms behind: packets met delays the scenario does not have")
    note(f"results in {res.out_dir}", quiet)


def _print_result(res, quiet: bool = False) -> None:
    from wattlab import report

    if hasattr(res, "receiver"):
        _print_wwp(res, quiet)
        return
    if hasattr(res, "daemon"):
        _print_psna(res, quiet)
        return
    if hasattr(res, "tunnels"):
        _print_tunnel(res, quiet)
        return
    if hasattr(res, "pages"):
        from wattlab.live import web

        web.print_result(console, res, note, quiet)
        _print_run_end(res, quiet, " the model")
        return
    p = res.plan
    ok = "[green]verified[/]" if res.verified else "[bold red]CORRUPT[/]"
    console.print(
        f"[bold]{escape(p['scenario'])}[/] live, policy {p['policy']}, Linux {p['linux_cc']}  transfer {res.transfer_time_s:.3f} s  "
        f"data {ok} ({res.fetch['bytes']:,} B, sha256 {res.fetch['sha256'][:12]}…)  ({res.wall_time_s:.1f} s wall)"
    )
    t = new_table("Flows")
    for col in ("flow", "kind", "delivered", "time (s)", "goodput", "retx", "srtt (ms)"):
        t.add_column(col, justify="left" if col in ("flow", "kind") else "right")
    t.add_row(
        escape(p["flow"]), "bulk-download", report._fmt_bytes(res.fetch["bytes"]), f"{res.transfer_time_s:.3f}",
        report._fmt_bps(res.goodput_bps), str(res.server["retransmitted_segments"]), f"{res.server['srtt_ms']:.1f}",
    )
    print_table(console, t, keys=1)
    report.print_energy(console, res.radios().to_dict("records"))
    note(f"energy from the SYN to the last byte (the simulator's metered span, what compare and the grid judge): "
         f"{res.energy_j:.3f} J; the whole capture above (with the close): {res.capture_energy_j:.3f} J", quiet)
    if res.agent:
        row = {"node": p["client"], "detection": p.get("detection") or "active", **res.agent["agent"]}
        report.print_agents(console, [row])
    emu = res.emulator["host"]
    timers = ""
    if res.agent:
        h = res.agent["host"]
        timers = f"; agent timers {h['timer_late_mean_us']:.0f} µs late on average (max {h['timer_late_max_us']:.0f} µs)"
    note(
        f"emulator: {emu['packets']:,} packets, verdicts {emu['late_mean_us']:.0f} µs late on average "
        f"(max {emu['late_max_us']:.0f} µs, {emu['late_over_1ms']} over 1 ms){timers}",
        quiet,
    )
    _print_run_end(res, quiet, " the model", " (busy machine or VM stall)", res.notes + res.energy.notes)


SCENARIO_HELP = ("Scenario TOML: server ⇄ [[link]] ⇄ ap ⇄ [[wireless]] ⇄ client, one bulk-download, wwp-bulk, web (one server), psna-read or "
                 "psna-send flow; or server ⇄ [[link]] ⇄ ap ⇄ [[wlan]] ⇄ client with a [[tunnel]] and bulk-upload/-download "
                 "flows (the SCTP tunnel).")


@live_app.command("run")
@click.argument("scenario", type=PATH, metavar="SCENARIO.toml")
@click.option("--policy", metavar="POLICY", default=None, callback=_policy, help=POLICY_HELP)
@click.option("--out", type=click.Path(), metavar="DIR",
              help="Directory for the capture (client.pcap), logs, reports, energy tables and summary.json "
              "(default: a new temporary directory).")
@click.option("--set", "set_", multiple=True, metavar="KEY=VALUE", help=SET_HELP)
@click.option("--time-limit", type=float, metavar="S", help=LIMIT_HELP)
@click.option("--sysctl", multiple=True, metavar="ROLE:KEY=VALUE", help=SYSCTL_HELP)
@click.option("--overwrite", is_flag=True, help="Replace the results of an earlier run in --out.")
@click.option("--json", "as_json", is_flag=True, help="Print summary.json instead of tables.")
@click.option("--quiet", "-q", is_flag=True, help="No progress or notes on stderr.")
def run_cmd(scenario, policy, out, set_, time_limit, sysctl, overwrite, as_json, quiet) -> None:
    """Run the scenario's download live and print its flow, energy and agent tables."""
    from wattlab import live

    try:
        with progress("live run ...", quiet or as_json) as status:
            res = live.run(scenario, policy, out_dir=out, overrides=list(set_), time_limit=time_limit, overwrite=overwrite,
                           on_step=lambda s: status.update(f"live run: {s} ..."), sysctls=list(sysctl))
    except live.LiveError as e:
        fail(str(e), code=e.code)
    except KeyboardInterrupt:
        fail("interrupted; the namespaces were removed", code=EXIT_INTERRUPTED)
    if as_json:
        sys.stdout.write(json.dumps(res.summary(), indent=2, default=str) + "\n")
    else:
        _print_result(res, quiet)
    if not res.verified:
        sys.exit(EXIT_FAILED)


@live_app.command("compare")
@click.argument("scenario", type=PATH, metavar="SCENARIO.toml")
@click.option("--out", type=click.Path(), metavar="DIR", help="Directory for both live runs (live-always-on/, live-cc/) and compare.csv.")
@click.option("--set", "set_", multiple=True, metavar="KEY=VALUE", help=SET_HELP)
@click.option("--time-limit", type=float, metavar="S", help=LIMIT_HELP)
@click.option("--sysctl", multiple=True, metavar="ROLE:KEY=VALUE", help=SYSCTL_HELP)
@click.option("--overwrite", is_flag=True, help="Replace the results of earlier runs in --out.")
@click.option("--json", "as_json", is_flag=True, help="Print the comparison as JSON records.")
@click.option("--quiet", "-q", is_flag=True, help="No progress on stderr.")
def compare_cmd(scenario, out, set_, time_limit, sysctl, overwrite, as_json, quiet) -> None:
    """Simulate and run live, always-on and with the cc agent; print both side by side."""
    from wattlab import live

    try:
        with progress("comparing ...", quiet or as_json) as status:
            df = live.compare(scenario, overrides=list(set_), out_dir=out, time_limit=time_limit, overwrite=overwrite,
                              on_step=lambda s: status.update(f"{s} ..."), sysctls=list(sysctl))
    except live.LiveError as e:
        fail(str(e), code=e.code)
    except KeyboardInterrupt:
        fail("interrupted; the namespaces were removed", code=EXIT_INTERRUPTED)
    if as_json:
        sys.stdout.write(df.to_json(orient="records", indent=2) + "\n")
        return
    if df.attrs.get("kind") == "web":
        from wattlab.live import web

        web.print_compare(console, df, escape(scenario.name))
        return
    from wattlab import report

    report.print_live_compare(console, df, escape(scenario.name))


@live_app.command("cleanup")
@click.option("--json", "as_json", is_flag=True, help="Print the removed namespaces as a JSON list.")
def cleanup_cmd(as_json) -> None:
    """Remove what crashed or killed live runs left: their namespaces (and with them the interfaces
    and rules) and the payload directories of earlier versions. Runs in progress are left alone."""
    from wattlab import live

    try:
        live.require_root()
    except live.LiveError as e:
        fail(str(e), code=e.code)
    gone = live.cleanup()
    dirs = live.remove_payload_dirs()
    busy = live.in_progress()
    if as_json:
        sys.stdout.write(json.dumps(gone) + "\n")
    else:
        console.print(f"removed {len(gone)} namespace(s)" + (": " + ", ".join(gone) if gone else ""), highlight=False)
    if dirs:
        note(f"removed {len(dirs)} payload directory(ies) of earlier versions: " + ", ".join(map(str, dirs)))
    if busy:
        note(f"left {len(busy)} run(s) in progress alone: " + ", ".join(f"wl{rid} (pid {pid})" for rid, pid in busy.items()))

from wattlab.cli_live_grid import grid_cmd  # noqa: E402  (its own module: wattlab live grid)

live_app.add_command(grid_cmd)
