"""``wattlab live grid``: the sim-vs-live grid (issue 33 item 2), see :mod:`wattlab.live.grid`."""

from __future__ import annotations

import sys

import click

from wattlab.cli_common import EXIT_FAILED, EXIT_INCOMPLETE, EXIT_INTERRUPTED, EXIT_USAGE, PATH, fail, note


def _numbers(option: str, lo: float, hi: float, lo_open: bool = False):
    def cb(ctx, param, value):
        from wattlab.live.grid import parse_numbers
        from wattlab.live.netns import LiveInputError

        try:
            return parse_numbers(value, option, lo, hi, lo_open)
        except LiveInputError as e:
            raise click.BadParameter(str(e).removeprefix(option + " ")) from None
    return cb


def _names(option: str, known):
    def cb(ctx, param, value):
        from wattlab.live.grid import parse_names
        from wattlab.live.netns import LiveInputError

        try:
            return parse_names(value, option, known)
        except LiveInputError as e:
            raise click.BadParameter(str(e).removeprefix(option + " ")) from None
    return cb


def _sim_sets(ctx, param, value):
    """``[PROFILE:]KEY=VALUE`` → ``(PROFILE or "", KEY=VALUE)``."""
    from wattlab.live.grid import PROFILES

    out = []
    for item in value:
        key, eq, _ = item.partition("=")
        if not eq or not key.strip():
            raise click.BadParameter(f"{item}: give [PROFILE:]KEY=VALUE, e.g. linux:flow.0.tcp.autotune=false")
        profile, colon, _ = key.partition(":")
        if colon and profile not in PROFILES:
            raise click.BadParameter(f"{item}: unknown profile `{profile}` (known: {', '.join(PROFILES)})")
        out.append((profile, item[len(profile) + 1:]) if colon else ("", item))
    return tuple(out)


@click.command("grid")
@click.option("--out", type=PATH, metavar="DIR", required=True,
              help="Results directory: records/ (one JSON file per finished run: what resuming reads), live/ (each live "
              "run's capture, logs and tcp_settings.json), grid.csv/.parquet (one row per shape), runs.csv/.parquet (every "
              "run), grid.txt (the tables printed), grid.png (the figure), provenance.json. Run the same command again to "
              "continue an interrupted grid; one session per directory (locked).")
@click.option("--scenario", type=PATH, metavar="SCENARIO.toml", default=None,
              help="Base scenario (default scenarios/live-grid.toml: paper 000's path, tcp.profile = \"linux\"). One "
              "[[link]] (its delay is set to RTT/2), one [[wireless]] hop (rate and downlink loss set per shape, power_save "
              "per mode) and one bulk-download flow (bytes set by --size). The live runs use its TCP settings as they are.")
@click.option("--rates", default="5,20,50", show_default=True, metavar="MBPS,...",
              callback=_numbers("--rates", 0.0, 1000.0, lo_open=True), help="Wireless hop rates (Mb/s), 0 < R <= 1000.")
@click.option("--rtts", default="20,90,200", show_default=True, metavar="MS,...", callback=_numbers("--rtts", 0.0, 2000.0),
              help="Base round-trip times (ms), 0..2000: the wired link's one-way delay is half of it (the hop adds none).")
@click.option("--losses", default="0,0.5,2", show_default=True, metavar="PCT,...", callback=_numbers("--losses", 0.0, 50.0),
              help="Bernoulli loss of the hop's downlink (the data direction), in percent, 0..50.")
@click.option("--runs", default=3, show_default=True, type=click.IntRange(1, 100),
              help="Live runs per shape and mode (seeds 1..N: the emulator draws the same losses as the simulation of "
              "that seed); the simulator runs the same seeds.")
@click.option("--modes", default="always-on,cc", show_default=True, metavar="MODE,...",
              callback=_names("--modes", ("always-on", "cc")),
              help="Client radio modes: always-on, cc (paper 000's client-centered agent). The saving needs both.")
@click.option("--profiles", default="linux,textbook", show_default=True, metavar="NAME,...",
              callback=_names("--profiles", ("linux", "textbook")),
              help="TCP profiles the simulator runs (tcp.profile); the first is the one the verdict judges.")
@click.option("--size", default="5MB", show_default=True, metavar="SIZE", help="Bytes downloaded per run (e.g. 1MB, 5MB).")
@click.option("--time-limit", type=float, metavar="S", default=None,
              help="Bound of each live download (s, 0 < S <= 3600; default: the scenario's stop time, at most 600 s).")
@click.option("--sysctl", multiple=True, metavar="ROLE:KEY=VALUE",
              help="Extra sysctl in the client's or server's namespace of every live run (as `wattlab live run`).")
@click.option("--time-tol", default=5.0, show_default=True, type=click.FloatRange(0, 100), metavar="PCT",
              help="Verdict: each mode's simulated completion time within ±PCT % of the live median.")
@click.option("--saving-tol", default=3.0, show_default=True, type=click.FloatRange(0, 100), metavar="PP",
              help="Verdict: the simulated saving within ±PP percentage points of the live saving.")
@click.option("--verdict-max-loss", default=0.5, show_default=True, type=click.FloatRange(0, 50), metavar="PCT",
              help="Shapes with more loss get no verdict: their gaps are reported (`report`).")
@click.option("--max-runs", type=click.IntRange(0), default=None, metavar="N",
              help="Stop after N new live runs (exit 3 while runs are left); the tables hold what is stored. 0: run "
              "nothing live, only rebuild the tables and figure from the stored runs (and simulate what is missing).")
@click.option("--all", "whole", is_flag=True,
              help="The whole directory: add to the grid every shape an earlier invocation into --out ran or a stored "
              "record holds (a grid measured in parts), with this invocation's other options. With --max-runs 0 it only "
              "rebuilds the tables, figure and provenance of the whole directory.")
@click.option("--sim-only", is_flag=True, help="Only the simulator's side (no root needed): no live columns, no verdicts.")
@click.option("--resim", is_flag=True, help="Simulate again even where a stored simulation of this build exists.")
@click.option("--rerun-live", is_flag=True, help="Run the live side again even where verified runs are stored.")
@click.option("--sim-set", "sim_set", multiple=True, metavar="[PROFILE:]KEY=VALUE", callback=_sim_sets,
              help="An override of the simulations only (as `wattlab run --set`), for every profile or, with the "
              "prefix, for one: e.g. linux:flow.0.tcp.autotune=false. Applied after tcp.profile; part of a simulation's key.")
@click.option("--rejudge", type=PATH, metavar="STORED", default=None,
              help="Run nothing live (no root): judge this build's simulator against the verified live runs stored in "
              "the grid directory STORED (read only). Every shape with a stored verified live run is judged, whichever "
              "invocation measured it (--rates/--rtts/--losses narrow them; requested shapes without one are named); the simulations, tables and figure go to --out, which must be another directory.")
@click.option("--quiet", "-q", is_flag=True, help="No progress on stderr.")
def grid_cmd(out, scenario, rates, rtts, losses, runs, modes, profiles, size, time_limit, sysctl, time_tol, saving_tol,
             verdict_max_loss, max_runs, whole, sim_only, resim, rerun_live, sim_set, rejudge, quiet) -> None:
    """The simulator against live Linux TCP over a grid of path shapes (hop rate × RTT × hop
    downlink loss), always-on and with the cc agent: RUNS live runs per shape and mode, the
    simulator with each --profiles on the same shapes and seeds. Prints per shape the live
    median completion time (min-max over runs), each profile's median and its gap in % of live,
    the energies, the agent's saving (1 - E_cc / E_always-on, medians, each side against its own
    always-on) and its gap in percentage points, and the verdict (pass/fail at loss <=
    --verdict-max-loss, `report` above); then the same paired by seed (the median of per-seed
    gaps), and each medians gap with its 95 % interval from resampling the seeds and the
    verdict sampling leaves (pass, fail, open). The simulations carry the testbed's own
    measured times: the server's transmit path (every mode) and the cc agent's processing
    per packet (docs/live.md, "Session 44"). Progress on stderr; each run is stored when it ends,
    so the same command continues an interrupted grid. Needs root (unless --sim-only).
    The full default grid (27 shapes, 162 live runs of 5 MB, 324 simulations) took about 70 minutes on a loaded 2-core VM (docs/live.md)."""
    from wattlab.live import grid
    from wattlab.live.netns import LiveError

    say = (lambda m: None) if quiet else (lambda m: print(m, file=sys.stderr, flush=True))
    if rejudge is not None:
        _rejudge(rejudge, out, scenario, rates, rtts, losses, profiles, sim_set, time_tol, saving_tol, verdict_max_loss,
                 resim, say, quiet)
        return
    spec = grid.GridSpec(
        scenario=scenario or grid.DEFAULT_SCENARIO, rates_mbps=rates, rtts_ms=rtts, losses_pct=losses, runs=runs, modes=modes,
        profiles=profiles, size=size, time_limit=time_limit, sysctls=tuple(sysctl), time_tol_pct=time_tol,
        saving_tol_pp=saving_tol, verdict_max_loss_pct=verdict_max_loss, live=not sim_only, sim_sets=sim_set)
    if whole:
        spec = grid.whole_spec(spec, out)
    n = len(spec.shapes())
    note(f"grid: {n} shapes × {len(modes)} modes: {n * len(modes) * runs if spec.live else 0} live runs, "
         f"{n * len(modes) * len(profiles) * runs} simulations, into {out}", quiet)
    try:
        tally = grid.run_grid(spec, out, on_progress=say, max_runs=max_runs, resim=resim, rerun_live=rerun_live, whole=whole)
    except LiveError as e:
        fail(str(e), code=e.code)
    except KeyboardInterrupt:
        fail(f"interrupted; the runs stored so far are in {out}/records: run the same command to continue", code=EXIT_INTERRUPTED)
    except Exception as e:  # the study store's lock (Busy) and the like: one line
        from wattlab.study.store import Busy

        if isinstance(e, Busy):
            fail(str(e))
        raise
    print((out / "grid.txt").read_text(), end="")
    note(f"live: {tally.live_new} run now, {tally.live_stored} stored before, {tally.live_failed} failed; "
         f"simulations: {tally.sim_new} now, {tally.sim_stored} stored; {tally.wall_s / 60:.1f} min; "
         f"results in {out} (grid.csv, grid.png, provenance.json)", quiet)
    if tally.stopped:
        note("stopped at --max-runs: run the same command again to continue", quiet)
        sys.exit(EXIT_INCOMPLETE)
    if tally.live_failed:
        for f in tally.failures:
            note(f"failed: {f}", quiet, style="red")
        sys.exit(EXIT_FAILED)


def _rejudge(stored, out, scenario, rates, rtts, losses, profiles, sim_set, time_tol, saving_tol, verdict_max_loss, resim,
             say, quiet) -> None:
    """``--rejudge STORED``: see :mod:`wattlab.live.grid_rejudge`."""
    from dataclasses import replace

    from wattlab import ScenarioError
    from wattlab.live import grid_rejudge as rj
    from wattlab.live.netns import LiveError

    ctx = click.get_current_context()
    given = lambda name: ctx.get_parameter_source(name) != click.core.ParameterSource.DEFAULT  # noqa: E731
    try:
        spec = rj.stored_spec(stored, scenario)
        axes = {"rates_mbps": rates if given("rates") else None, "rtts_ms": rtts if given("rtts") else None,
                "losses_pct": losses if given("losses") else None}
        no_live = rj.unmeasured(spec, stored, **axes)
        spec = rj.narrow(spec, **axes)
        if no_live:
            note(f"rejudge: no stored live run at {len(no_live)} requested shape(s), left out: "
                 + "; ".join(s.label for s in no_live), quiet)
        spec = replace(spec, profiles=profiles if given("profiles") else spec.profiles, sim_sets=sim_set,
                       time_tol_pct=time_tol, saving_tol_pp=saving_tol, verdict_max_loss_pct=verdict_max_loss)
        note(f"rejudge: {len(spec.shapes())} shapes of {stored} × {len(spec.modes)} modes: the stored live runs against "
             f"{len(spec.shapes()) * len(spec.modes) * len(spec.profiles) * spec.runs} simulations, into {out}", quiet)
        tally, table = rj.rejudge(spec, stored, out, on_progress=say, resim=resim, no_live=[s.key for s in no_live],
                                  on_note=note)  # said even with --quiet: it changes what is judged
    except (LiveError, ScenarioError) as e:
        fail(str(e), code=getattr(e, "code", EXIT_USAGE))
    print((out / "grid.txt").read_text(), end="")
    for p in spec.profiles:
        counts = rj.verdict_counts(table, p)
        note(f"verdicts ({p}): " + ", ".join(f"{counts.get(k, 0)} {k}" for k in ("pass", "fail", "report", "incomplete")), quiet)
    note(f"live: {tally.live_stored} stored runs read from {stored}; simulations: {tally.sim_new} now, "
         f"{tally.sim_stored} stored; {tally.wall_s / 60:.1f} min; results in {out}", quiet)
