"""``wattlab trace``: analyze real captures."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import click
from rich.console import Console
from rich.markup import escape

from wattlab.cli_common import OUT_DIR, PATH, console, fail, note, progress, warn
from wattlab.tables import new_table, print_table


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
def trace_app() -> None:
    """Analyze captures (pcap, pcapng): what their traffic costs a client's radio."""


POLICY_HELP = (
    "Policy to cost the capture under, NAME[:key=value,...]; repeatable. "
    "always-on; oracle (sleeps every gap longer than the break-even time); "
    "psm[:beacon=102.4ms,listen=DUR] (static PSM, wakes for beacons); "
    "adaptive-psm[:timeout=220ms,window=50ms,windows=sliding|fixed,threshold=3000,bytes=ip|frame,beacon=..,listen=..] "
    "(phone drivers: awake from any packet until TIMEOUT idle, high-power state while the WINDOW holds more than "
    "THRESHOLD bytes; windows=fixed lays the windows end to end from the first packet and bytes=frame counts captured "
    "frame lengths, as EnergyBox does); "
    "twt:interval=DUR,duration=DUR[,offset=DUR] (802.11ax individual TWT: received packets are held until the "
    "agreement's service periods, of DURATION every INTERVAL from the first packet plus OFFSET, and the added delay "
    "per packet is reported; the radio is awake in every service period and dozes outside them but to send); "
    "replay[:policy=NAME,node=NAME] (the --transitions schedule); "
"energybox (EnergyBox's own number: its engine emulated, artifacts included; needs --energybox device settings); "
    "observed[:listen=beacons|none,overhear=idle|rx,stamp=end|start,padding=0|8|16] (an 802.11 monitor capture: "
    "what the station --client-mac is seen doing, airtime from each frame's radiotap rate/MCS, doze and wake from "
    "its PM bits, Nulls, PS-Polls, beacons and EOSPs; stamp: whether a record's time is its PPDU's end or start). "
    "Default: always-on, oracle, psm, adaptive-psm (and replay with --transitions); with --energybox: energybox and "
    "adaptive-psm, the rows EnergyBox's model defines."
)

_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0, "h": 3600.0, "d": 86400.0}


class _Duration(click.ParamType):
    """A duration with a unit (ns, us, ms, s, min, h, d), as seconds."""

    name = "duration"

    def convert(self, value, param, ctx):
        """Seconds from text such as ``90s``, ``12h`` or ``2d``."""
        if isinstance(value, float):
            return value
        m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*([a-zµ]+)\s*", str(value))
        if not m or m.group(2) not in _UNITS:
            self.fail(f"{value!r} is not a duration with a unit (e.g. 90s, 12h, 2d; units: {', '.join(_UNITS)})", param, ctx)
        return float(m.group(1)) * _UNITS[m.group(2)]


OUTPUTS = ("summary.json", "energy.csv", "states.csv", "connections.csv", "attribution.csv", "throughput.csv", "timeline.png")


@trace_app.command("energy")
@click.argument("capture", type=PATH, metavar="CAPTURE")
@click.option("--client", metavar="ADDR", help="The client's IP address. Default: the address with the most traffic (ties are reported).")
@click.option("--client-mac", metavar="MAC",
              help="The station the observed policy costs in an 802.11 (monitor-mode) capture, e.g. 02:00:00:00:00:01.")
@click.option("--profile", metavar="NAME|FILE.toml",
              help="Device profile: a built-in name (see `wattlab profiles`) or a profile TOML file. Default: atheros-ar5004.")
@click.option("--energybox", type=PATH, multiple=True, metavar="FILE",
              help="EnergyBox Wi-Fi configuration file (POWER_IN_PSM/CAM/CAMH in watts, CAM_PSM_INACTIVITY_TIME, CAM_TIME_WIMDOW, "
              "WINDOW_DATA_RATE_THRESHOLD); repeatable (device and network files). Its powers replace --profile; its timings "
              "set adaptive-psm's defaults; and the defaults become EnergyBox's model: --phy instant, --tail = the inactivity "
              "time, fixed windows over frame lengths, and the policies energybox (EnergyBox's own number, its engine's "
              "artifacts included) and adaptive-psm (its model as defined, costed exactly) (docs/trace.md).")
@click.option("--policy", multiple=True, metavar="SPEC", help=POLICY_HELP)
@click.option("--phy", metavar="PHY@RATE",
              help="Airtime model: PHY@RATE with RATE in Mb/s (802.11a, 802.11b, 802.11g, dsss-2mbps; e.g. 802.11a@24), "
              "link@RATE (size/rate, no MAC exchange: the simulator's [[wireless]] hop), or instant (no airtime: EnergyBox's "
              "model). Default: 802.11g@54 (instant with --energybox).")
@click.option("--tail", "tail_ms", type=click.FloatRange(min=0.0), metavar="MS",
              help="Milliseconds costed after the last packet, for every policy. Default: 0 (with --energybox: its "
              "CAM_PSM_INACTIVITY_TIME, where EnergyBox's timeline ends).")
@click.option("--transitions", type=PATH, metavar="FILE.csv",
              help="Recorded radio transitions for the replay policy: CSV with time_s (or time_ns) on the capture's clock and "
              "state (sleep/idle/off/awake/doze); policy/node columns select rows, as in the simulator's timeseries_radio.csv.")
@click.option("--bin", "bin_ms", type=click.FloatRange(min=0.001), default=50.0, show_default=True, metavar="MS",
              help="Throughput bin (ms) for throughput.csv and the figure.")
@click.option("--max-gap", "max_gap", type=_Duration(), metavar="DURATION",
              help="Longest silence between two of the client's packets accepted, with a unit (90s, 12h, 2d). "
              "Default: 1d. A longer gap is taken for a bad timestamp: refused unless --accept-odd-times.")
@click.option("--accept-odd-times", is_flag=True,
              help="Cost a capture whose timestamps fail the checks (time going back by more than 10 ms, a gap "
              "longer than --max-gap, a sub-second field out of range) instead of refusing it (exit 2). The result "
              "is flagged: warnings on stderr, above the table and in summary.json.")
@click.option("--max-connections", type=click.IntRange(1, 10_000_000), default=100_000, show_default=True, metavar="N",
              help="Connections of the client kept; beyond, the least recently used is folded (packets, bytes, energy) into "
              "one `other` row, so memory stays bounded (about 1 kB per connection kept). Also bounds the addresses kept "
              "while choosing the client.")
@click.option("--out", type=OUT_DIR, metavar="DIR",
              help="Directory for summary.json, energy/states/connections/attribution/throughput CSV, per-policy state "
              "timelines (streamed) and timeline.png.")
@click.option("--parquet", is_flag=True, help="Also write the tables as Parquet (needs --out).")
@click.option("--plot/--no-plot", default=True, show_default=True, help="Write timeline.png (with --out).")
@click.option("--overwrite", is_flag=True, help="Replace the output files of an earlier run in --out.")
@click.option("--top", type=click.IntRange(min=0), default=10, show_default=True, metavar="N", help="Connections shown in the attribution table.")
@click.option("--json", "json_out", is_flag=True, help="Print summary.json instead of tables.")
@click.option("--quiet", "-q", is_flag=True, help="No progress or notes on stderr.")
def energy_cmd(capture, client, client_mac, profile, energybox, policy, phy, tail_ms, transitions, bin_ms, max_gap, accept_odd_times,
               max_connections, out, parquet, plot, overwrite, top, json_out, quiet) -> None:
    """Cost a capture on the client's radio under one or more power policies, with per-state
    energy, per-connection attribution and a comparison table."""
    from wattlab import trace

    if parquet and out is None:
        fail("--parquet needs --out DIR")
    if not capture.is_file():
        fail(f"{capture}: no such capture file")
    timeline_dir = None
    if out is not None:
        if out.exists() and not out.is_dir():
            fail(f"--out {out} is a file, not a directory")
        if out.resolve() == capture.resolve().parent and not overwrite and any((out / f).exists() for f in OUTPUTS):
            fail(f"--out {out} already holds results; pass --overwrite or choose another directory")
        existing = [f for f in OUTPUTS if (out / f).exists()] + [p.name for p in out.glob("timeline_*.csv")] if out.is_dir() else []
        if existing and not overwrite:
            fail(f"--out {out} already holds {', '.join(existing[:4])}{' ...' if len(existing) > 4 else ''}; pass --overwrite to replace them")
        for f in out.glob("timeline_*.csv") if out.is_dir() else []:
            f.unlink()
        timeline_dir = out / ".timelines"
    try:
        with progress(f"analyzing {capture} ...", quiet or json_out):
            res = trace.energy(
                capture,
                client=client,
                profile=profile,
                policies=list(policy),
                phy=phy,
                transitions=transitions,
                energybox=list(energybox),
                bin_s=bin_ms / 1e3,
                tail_s=None if tail_ms is None else tail_ms / 1e3,
                timeline=False,
                timeline_dir=timeline_dir,
                max_gap_s=max_gap,
                accept_odd_times=accept_odd_times,
                max_connections=max_connections,
                client_mac=client_mac,
            )
    except trace.TraceError as e:
        fail(str(e))
    if out is not None:
        # Name the streamed timelines after their policies.
        for i, label in enumerate(res.energy.policy):
            src = Path(res.timeline_files.get(label, ""))
            if src.is_file():
                dst = out / f"timeline_{i}_{trace.slug(label)}.csv"
                src.replace(dst)
                res.timeline_files[label] = str(dst)
        if timeline_dir is not None and timeline_dir.is_dir():
            timeline_dir.rmdir()
        written = res.write(out, formats=("csv", "parquet") if parquet else ("csv",))
        if plot:
            written.append(res.plot(out / "timeline.png"))
    for w in res.warnings:
        warn(f"odd timestamps accepted (--accept-odd-times): {w}")
    if json_out:
        sys.stdout.write(json.dumps(res.summary(), indent=2) + "\n")
        return
    print_trace(console, res, top=top, quiet=quiet)
    if out is not None:
        note(f"wrote {len(written) + len(res.timeline_files)} files to {out}", quiet)


def print_trace(console: Console, res, top: int = 10, quiet: bool = False) -> None:
    """The capture line, the policy comparison and the attribution of the first policies."""
    cap = res.capture
    how = "given" if cap["choice"] == "given" else "busiest address"
    console.print(
        f"[bold]{escape(cap['path'])}[/]: client {cap['client']} ({how}); {cap['packets_up']:,} packets up / "
        f"{cap['packets_down']:,} down, {cap['bytes_up'] / 1e6:.3f} / {cap['bytes_down'] / 1e6:.3f} MB over "
        f"{(cap['end_ns'] - cap['start_ns']) / 1e9:.3f} s; airtime {cap['airtime']}; profile {escape(res.profile['name'])}",
        highlight=False,
    )
    skipped = {k: v for k, v in cap["skipped"].items() if v}
    extra = [f"{n:,} {what}" for n, what in (
        (cap["foreign_packets"], "packets of other hosts (not costed)"),
        (cap["group_down"], "broadcast/multicast received"),
        (cap["oversize_packets"], "packets longer than one frame (costed as several)"),
    ) if n] + [f"{v:,} records skipped ({k})" for k, v in skipped.items()]
    if extra:
        note("; ".join(extra), quiet)
    for n in res.notes:
        note(f"note: {n}", quiet, style="yellow")
    tc = cap.get("time_checks", {})
    if tc.get("reordered"):
        note(f"{tc['reordered']:,} packets up to {tc['reordered_worst_ns'] / 1e6:.3f} ms out of order were put back in order", quiet)
    eb_mode = bool(cap.get("energybox_mode"))
    title = "Radio energy per policy" + (" (EnergyBox's model)" if eb_mode else "")
    if res.warnings:
        title += " [bold red](built on odd timestamps: see the warnings; not a trustworthy result)[/]"
    if eb_mode:
        caption = ("energybox: EnergyBox's own number, as it prints it (its engine, artifacts included); definition: its model "
                   "as it defines it, costed exactly; not EB: a wattlab policy on its powers, not part of its model. "
                   "EnergyBox's model has no always-on: no shares")
    else:
        caption = "every policy costs the same packets, as captured; `of always-on` is relative to always-on's energy"
        if res.twt:
            caption = ("every policy costs the same packets, as captured, but twt, which delivers received packets in its "
                       "service periods (delays below); all are costed to its last delivery; `of always-on` is relative "
                       "to always-on's energy")
    t = new_table(title, caption=caption + "".join(f"\n[red]odd timestamps: {escape(w)}[/]" for w in res.warnings))
    widest = max(len(p) for p in res.energy.policy)
    t.add_column("policy", min_width=widest, no_wrap=True)
    for col in ("energy (J)", "model" if eb_mode else "of always-on", "avg (mW)", "awake (s)", "high (s)", "sleep (s)",
                "tx / rx (s)", "transitions", "beacons"):
        t.add_column(col, justify="left" if col == "model" else "right")
    short = {"EnergyBox (engine)": "energybox", "EnergyBox (definition)": "definition"}
    for _, r in res.energy.iterrows():
        awake = r.time_idle_s + r.time_idle_high_s + r.time_rx_s + r.time_tx_s
        if eb_mode:
            norm = short.get(r.model, "not EB")
        else:
            norm = "—" if r.vs_always_on != r.vs_always_on else f"{r.vs_always_on:.1%}"
        # EnergyBox's row shows its printed total (rounded half up, as it prints it).
        joules = f"{r.energybox_j:.4f}" if r.energybox_j == r.energybox_j else f"{r.energy_j:.4f}"
        t.add_row(
            escape(r.policy), joules, norm, f"{r.avg_power_mw:.1f}", f"{awake:.3f}", f"{r.time_idle_high_s:.3f}",
            f"{r.time_sleep_s + r.time_off_s:.3f}", f"{r.time_tx_s:.3f} / {r.time_rx_s:.3f}", f"{int(r.transitions):,}", f"{int(r.beacons):,}",
        )
    print_table(console, t, keys=1)
    if res.twt:
        t = new_table("TWT: received packets held until a service period",
                      caption="delay: how much later than captured a received packet was delivered, over every received "
                              "packet (p95 within 0.1 %); deferred: sends that waited for the radio")
        t.add_column("policy", no_wrap=True)
        for col in ("SPs", "held / received", "mean (ms)", "p95 (ms)", "max (ms)", "deferred sends"):
            t.add_column(col, justify="right")
        for label, w in res.twt.items():
            t.add_row(escape(label), f"{w['service_periods']:,}", f"{w['held']:,} / {w['received']:,}",
                      f"{w['delay_mean_s'] * 1e3:.3f}", f"{w['delay_p95_s'] * 1e3:.3f}", f"{w['delay_max_s'] * 1e3:.3f}",
                      f"{w['deferred_sends']:,}")
        print_table(console, t, keys=1)
    for _, r in res.energy.iterrows():
        if r.rx_while_dormant or r.busy_while_dormant:
            note(
                f"note: {r.policy}: {int(r.rx_while_dormant):,} packets arrived while the schedule had the radio asleep (not costed); "
                f"{int(r.busy_while_dormant):,} radio intervals needed a wake-up it did not record",
                quiet, style="yellow",
            )
        if r.clipped_activity_s > 0:
            note(f"note: {r.policy}: {r.clipped_activity_s * 1e3:.3f} ms of airtime overlapped (the capture carries more than {cap['airtime']} can)",
                 quiet, style="yellow")
    if top and len(res.connections) and len(res.attribution):
        a = res.attribution.merge(res.connections, left_on="connection", right_on="id", how="left")
        first = res.attribution.policy.iloc[0]
        rows = a[(a.policy == first) & (a.connection > 0)].sort_values("total_j", ascending=False).head(top)
        other_id = cap.get("max_connections", -2) + 1
        kept = int((res.connections.id != other_id).sum())
        total = kept + int(cap.get("connections_evicted", 0))
        t = new_table(f"Energy by connection ({escape(first)}; top {len(rows)} of {total:,}"
                      + (f", {total - kept:,} in `other`" if total > kept else "") + ")")
        for col in ("#", "proto", "client port", "peer", "packets ↑/↓", "bytes ↑/↓", "own (J)", "tail (J)", "share"):
            t.add_column(col, justify="left" if col in ("proto", "peer") else "right")
        for _, r in rows.iterrows():
            other = r.connection == other_id
            t.add_row(
                str(int(r.connection)), r.proto, "—" if other else str(int(r.local_port)),
                f"{int(r.connections):,} connections" if other else f"{r.remote}:{int(r.remote_port)}",
                f"{int(r.packets_up):,}/{int(r.packets_down):,}", f"{int(r.bytes_up):,}/{int(r.bytes_down):,}",
                f"{r.own_j:.4f}", f"{r.tail_j:.4f}", f"{r.share:.1%}",
            )
        print_table(console, t, keys=1)
