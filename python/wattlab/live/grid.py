"""The sim-vs-live grid (issue 33 item 2): the same download simulated (one row per TCP
profile) and run live on real Linux TCP over a grid of path shapes, hop rate × RTT × hop
loss, always-on and with paper 000's client-centered agent, several runs each.

Each live run and each simulation is stored as soon as it ends (``DIR/records/KEY.json``,
written atomically), so an interrupted grid continues where it stopped when the same command
runs again; a live record is keyed by what ran (scenario, shape, mode, run, size, options,
kernel) and not by wattlab's commit, so a rebuilt simulator re-simulates (its records are
keyed by the commit) without repeating hours of live runs. The tables, the figure and the
provenance are rebuilt from the records at the end of every invocation. ``docs/live.md``,
"The sim-vs-live grid"."""

from __future__ import annotations

import hashlib
import json
import math
import os
import statistics
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Sequence

import pandas as pd

from wattlab.live import checks, grid_provenance, grid_stats
from wattlab.live.netns import LiveError, LiveInputError

DEFAULT_SCENARIO = Path(__file__).resolve().parents[3] / "scenarios" / "live-grid.toml"
"""The base scenario: paper 000's path with ``tcp.profile = "linux"``."""
MODES = ("always-on", "cc")
PROFILES = ("linux", "textbook")
LIVE_PROFILE = "linux"
"""The profile the live runs' scenario carries (the testbed gives Linux its SACK, timestamps,
window scaling, congestion control, initial window and minimum RTO)."""
RECORDS = grid_provenance.RECORDS
SIM_POWER_SAVE = {"always-on": "cam", "cc": "cc"}
SIM_HOST = ['node.0.tx_time="5us"']
"""Overrides of the simulated server host (node 0, which :func:`check` requires to be the
flow's server) in every mode: the testbed server's transmit path hands the device one segment
per 5 µs (Linux's TSQ; the median spacing of the dumps a newer ACK interrupted in the stored
live captures, 3.5–5.6 µs; docs/live.md, *The server's transmit path*). ``--sim-set`` comes
after them."""
SIM_AGENT = {"cc": ['wireless.0.agent.incoming_delay="38us"', 'wireless.0.agent.outgoing_delay="13us"']}
"""Overrides of the simulated agent per mode: the live agent's processing time per packet (its
NFQUEUE verdict: 38 µs for a packet reaching the client, 13 µs for one leaving it; medians of
three runs, their sum 51 µs is the turnaround the twelve stored cc runs add over always-on), measured on
the testbed at 20 Mb/s 20 ms 0.5 % with the kernel's tcp:tcp_probe against the client's capture
(docs/live.md, *HyStart's ACK train at 20 Mb/s 20 ms*). ``--sim-set`` comes after them."""


@dataclass(frozen=True)
class Shape:
    """One point of the path grid."""

    rate_mbps: float
    """The wireless hop's rate (Mb/s)."""
    rtt_ms: float
    """Base round-trip time (ms): twice the wired link's one-way delay."""
    loss_pct: float
    """Bernoulli loss of the hop's downlink (data direction), in percent."""

    @property
    def key(self) -> str:
        """A file-name-safe name, ``r20-d90-l0.5``."""
        return grid_provenance.shape_key(self.rate_mbps, self.rtt_ms, self.loss_pct)

    @property
    def label(self) -> str:
        """As the table prints it: ``20 Mb/s 90 ms 0.5 %``."""
        return f"{self.rate_mbps:g} Mb/s {self.rtt_ms:g} ms {self.loss_pct:g} %"

    def overrides(self, size: str, seed: int) -> list[str]:
        """The scenario overrides of this shape (``--set`` syntax)."""
        return [f'wireless.0.rate="{self.rate_mbps:g}Mbps"', f'link.0.delay="{self.rtt_ms / 2:g}ms"',
                f"wireless.0.down.loss.p={self.loss_pct / 100:g}", f'flow.0.bytes="{size}"', f"simulation.seed={seed}"]


@dataclass
class GridSpec:
    """What the grid runs."""

    scenario: Path = DEFAULT_SCENARIO
    rates_mbps: tuple[float, ...] = (5, 20, 50)
    rtts_ms: tuple[float, ...] = (20, 90, 200)
    losses_pct: tuple[float, ...] = (0, 0.5, 2)
    runs: int = 3
    modes: tuple[str, ...] = MODES
    profiles: tuple[str, ...] = PROFILES
    size: str = "5MB"
    time_limit: float | None = None
    sysctls: tuple[str, ...] = ()
    time_tol_pct: float = 5.0
    saving_tol_pp: float = 3.0
    verdict_max_loss_pct: float = 0.5
    live: bool = True
    """False: simulate only (the table then has no live columns and no verdicts)."""
    sim_sets: tuple[tuple[str, str], ...] = ()
    """Extra scenario overrides of the simulations only, ``(profile or "", KEY=VALUE)``: ``""``
    applies to every profile (``wattlab live grid --sim-set [PROFILE:]KEY=VALUE``)."""
    shape_keys: tuple[str, ...] | None = None
    """Only these shapes of the axes' combinations (``Shape.key``); None: every combination (a
    directory measured in parts, or rejudged, need not be a full product of its axes)."""

    def __post_init__(self) -> None:
        self.scenario = Path(self.scenario)
        self.rates_mbps, self.rtts_ms, self.losses_pct = (tuple(float(x) for x in v) for v in (self.rates_mbps, self.rtts_ms, self.losses_pct))
        self.modes, self.profiles, self.sysctls = tuple(self.modes), tuple(self.profiles), tuple(self.sysctls)
        self.sim_sets = tuple((str(p), str(kv)) for p, kv in self.sim_sets)
        if self.shape_keys is not None:
            self.shape_keys = tuple(str(k) for k in self.shape_keys)

    def sim_overrides(self, profile: str) -> list[str]:
        """The ``--sim-set`` overrides that apply to ``profile``'s simulations, in order."""
        return [kv for p, kv in self.sim_sets if p in ("", profile)]

    def shapes(self) -> list[Shape]:
        """Every combination (of ``shape_keys`` only, when given), rate-major."""
        every = [Shape(r, d, l) for r in self.rates_mbps for d in self.rtts_ms for l in self.losses_pct]
        return every if self.shape_keys is None else [s for s in every if s.key in self.shape_keys]


def parse_numbers(text: str, option: str, lo: float, hi: float, lo_open: bool = False) -> tuple[float, ...]:
    """A comma-separated list of numbers in [lo, hi] (``lo_open``: (lo, hi]), each once;
    :class:`LiveInputError` naming ``option`` otherwise."""
    out: list[float] = []
    for part in str(text).split(","):
        part = part.strip()
        try:
            v = float(part)
        except ValueError:
            raise LiveInputError(f"{option} {text}: `{part}` is not a number") from None
        if not math.isfinite(v) or v > hi or v < lo or (lo_open and v == lo):
            raise LiveInputError(f"{option} {text}: {part} is outside {'(' if lo_open else '['}{lo:g}, {hi:g}]")
        if v in out:
            raise LiveInputError(f"{option} {text}: {part} is given twice")
        out.append(v)
    return tuple(out)


def parse_names(text: str, option: str, known: Sequence[str]) -> tuple[str, ...]:
    """A comma-separated list of names out of ``known``, each once."""
    out = [p.strip() for p in str(text).split(",")]
    for p in out:
        if p not in known:
            raise LiveInputError(f"{option} {text}: unknown `{p}` (known: {', '.join(known)})")
    if len(set(out)) != len(out):
        raise LiveInputError(f"{option} {text}: a name is given twice")
    return tuple(out)


def _hash(obj) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True, default=str).encode()).hexdigest()[:16]


def _file_hash(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]


def _core() -> tuple[str, str]:
    from wattlab import _core

    return _core.__version__, _core.__commit__


def live_key(spec: GridSpec, shape: Shape, mode: str, run: int, scenario_hash: str, kernel: str,
             plan: dict | None = None) -> str:
    """A live run's record key: what ran, not which wattlab build (see the module docs). What
    ran includes the live plan (``wattlab-live plan``: the TCP settings and socket options the
    hosts are given), so a build that changes what a live host does (e.g. autotuning leaving
    ``SO_RCVBUF`` unset) runs the live side again instead of reusing records it no longer makes."""
    what = {k: v for k, v in (plan or {}).items() if k != "scenario"}
    return "live-" + shape.key + f"-{mode}-{run}-" + _hash(
        [scenario_hash, spec.size, list(spec.sysctls), spec.time_limit, kernel, LIVE_PROFILE, what])


def sim_key(spec: GridSpec, shape: Shape, mode: str, profile: str, seed: int, scenario_hash: str) -> str:
    """A simulation's record key: what ran (with the ``--sim-set`` overrides of its profile, if
    any) and the wattlab build that ran it."""
    what = [scenario_hash, spec.size, _core()] + ([spec.sim_overrides(profile)] if spec.sim_overrides(profile) else [])
    what += [SIM_HOST] + ([SIM_AGENT[mode]] if SIM_AGENT.get(mode) else [])
    return f"sim-{shape.key}-{mode}-{profile}-{seed}-" + _hash(what)


# ---------------------------------------------------------------------------------------------
# One run each side


def simulate(spec: GridSpec, shape: Shape, mode: str, profile: str, seed: int) -> dict:
    """One simulation of ``shape`` under ``mode`` with ``profile``: completion time, the
    client radio's energy under the mode (always-on: its always-on row; cc: the agent's),
    retransmissions. The ``--sim-set`` overrides of ``profile`` come last."""
    from wattlab import api

    ov = [f'wireless.0.power_save="{SIM_POWER_SAVE[mode]}"', *shape.overrides(spec.size, seed), f'flow.0.tcp.profile="{profile}"',
          *SIM_HOST, *SIM_AGENT.get(mode, []), *spec.sim_overrides(profile)]
    t0 = time.monotonic()
    sim = api.run(spec.scenario, overrides=ov)
    flow = sim.summary["flows"][0]
    radios = sim.radios
    meter = radios[radios.policy == ("cc" if mode == "cc" else "always-on")].iloc[0]
    agent = sim.agents.iloc[0].to_dict() if mode == "cc" and len(sim.agents) else None
    return {
        **agent_fields(agent),
        "side": "sim", "profile": profile, "mode": mode, "run": seed, "seed": seed,
        "completed": bool(flow.get("completed", flow.get("completion_time_s") is not None)),
        "time_s": flow["completion_time_s"], "energy_j": float(meter.energy_j),
        "retransmitted": int(flow["retransmitted_segments"]), "overrides": ov,
        "wall_s": time.monotonic() - t0, "wattlab_version": _core()[0], "wattlab_commit": _core()[1],
    }


def run_live(spec: GridSpec, shape: Shape, mode: str, run: int, out: Path, step: Callable[[str], None]) -> dict:
    """One live run of ``shape`` under ``mode`` (seed = ``run``: the emulator draws the same
    losses as the simulation of that seed), with the machine's load before and after."""
    from wattlab import live

    ov = shape.overrides(spec.size, run)
    load0 = os.getloadavg()
    t0 = time.monotonic()
    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    res = live.run(spec.scenario, mode, out_dir=out, overrides=ov, time_limit=spec.time_limit, overwrite=True,
                   on_step=step, sysctls=list(spec.sysctls))
    load1 = os.getloadavg()
    settings = json.loads((out / "tcp_settings.json").read_text()) if (out / "tcp_settings.json").exists() else None
    return {
        **agent_fields((res.agent or {}).get("agent")),
        "side": "live", "profile": "live", "mode": mode, "run": run, "seed": run, "completed": True,
        "verified": bool(res.verified), "time_s": res.transfer_time_s, "energy_j": res.energy_j,
        "capture_energy_j": res.capture_energy_j, "window_ns": list(res.window_ns),
        "retransmitted": int(res.server["retransmitted_segments"]), "srtt_ms": res.server.get("srtt_ms"),
        "host_late_max_ms": res.host_late_max_ms, "load1_before": load0[0], "load1_after": load1[0],
        "load5_before": load0[1], "load5_after": load1[1], "started_utc": started, "wall_s": time.monotonic() - t0,
        "overrides": ov, "dir": str(out), "linux_cc": res.plan.get("linux_cc"), "tcp_settings": settings,
        "wattlab_version": _core()[0], "wattlab_commit": _core()[1],
    }


def agent_fields(agent: dict | None) -> dict:
    """The cc agent's counters a record keeps (None without the agent): whether it reverted
    the connection to plain TCP, how often and how long it slept, bursts, probes."""
    if not agent:
        return {}
    return {"agent_reverted": int(agent["reverted"]), "agent_sleeps": int(agent["sleeps"]),
            "agent_sleep_s": agent["sleep_ns"] / 1e9, "agent_bursts": int(agent["bursts"]), "agent_probes": int(agent["probes"])}


# ---------------------------------------------------------------------------------------------
# The grid


@dataclass
class Tally:
    """What an invocation did."""

    live_new: int = 0
    live_stored: int = 0
    live_failed: int = 0
    sim_new: int = 0
    sim_stored: int = 0
    stopped: bool = False
    wall_s: float = 0.0
    failures: list[str] = field(default_factory=list)
    started_utc: str = ""
    """When the invocation began (UTC)."""
    load1_new: list[float] = field(default_factory=list)
    """The 1-minute load before and after each live run of this invocation."""


_read_record = grid_provenance.read_record


def with_shapes(spec: GridSpec, shapes: Sequence[tuple[float, float, float]]) -> GridSpec:
    """``spec`` over exactly ``shapes`` (rate, RTT, loss): the axes are their sorted values and
    ``shape_keys`` keeps only these combinations (None when they are the full product)."""
    from dataclasses import replace

    rates, rtts, losses = (tuple(sorted({s[i] for s in shapes})) for i in range(3))
    keys = {Shape(*s).key for s in shapes}
    full = len(keys) == len(rates) * len(rtts) * len(losses)
    return replace(spec, rates_mbps=rates, rtts_ms=rtts, losses_pct=losses, shape_keys=None if full else tuple(sorted(keys)))


def whole_spec(spec: GridSpec, out: Path) -> GridSpec:
    """``spec`` widened to the whole directory (``--all``): its own shapes, every shape an
    earlier invocation into ``out`` ran and every shape a stored record holds; its other
    options (runs, modes, size, ...) stay this invocation's."""
    shapes = {(s.rate_mbps, s.rtt_ms, s.loss_pct) for s in spec.shapes()} | grid_provenance.directory_shapes(out)
    return with_shapes(spec, sorted(shapes))


def tally_dict(tally: Tally) -> dict:
    """A tally as provenance keeps it (without the per-run loads)."""
    return {k: v for k, v in asdict(tally).items() if k != "load1_new"}


def invocation(spec: GridSpec, tally: Tally, written_utc: str, extra: dict | None = None) -> dict:
    """This invocation's entry of ``provenance.json``'s ``invocations``: its grid (axes and
    options), its shapes, the build, its start and end, the 1-minute load over its live runs
    (None without one), its tally (and ``extra``'s keys)."""
    loads = tally.load1_new
    version, commit = _core()
    return {"grid": {k: (str(v) if isinstance(v, Path) else v) for k, v in asdict(spec).items()},
            "shapes": [s.key for s in spec.shapes()], "wattlab_version": version, "wattlab_commit": commit,
            "started_utc": tally.started_utc or None, "written_utc": written_utc,
            "load1": {"min": min(loads), "median": statistics.median(loads), "max": max(loads)} if loads else None,
            "tally": tally_dict(tally), **(extra or {})}


def plan_jobs(spec: GridSpec, scenario_hash: str, kernel: str) -> list[tuple]:
    """Every run of the grid in the order it runs: per shape the simulations, then the live
    runs with the modes interleaved (run 1 always-on, run 1 cc, run 2 ...), so the load's drift
    touches both modes of a saving alike."""
    jobs = []
    for shape in spec.shapes():
        for mode in spec.modes:
            for profile in spec.profiles:
                for seed in range(1, spec.runs + 1):
                    jobs.append(("sim", shape, mode, profile, seed, sim_key(spec, shape, mode, profile, seed, scenario_hash)))
        if spec.live:
            from wattlab.live.runner import load_plan

            for run in range(1, spec.runs + 1):
                for mode in spec.modes:
                    plan = load_plan(spec.scenario, mode, shape.overrides(spec.size, run))
                    jobs.append(("live", shape, mode, None, run, live_key(spec, shape, mode, run, scenario_hash, kernel, plan)))
    return jobs


def check(spec: GridSpec) -> None:
    """Everything checkable before anything runs (no root needed): the scenario, every shape's
    plan under each mode, the time bound of each, the sysctls."""
    from wattlab.live.runner import load_plan

    path = checks.scenario_path(spec.scenario)
    checks.sysctls(list(spec.sysctls))
    checks.time_limit(spec.time_limit)
    if spec.runs < 1 or spec.runs > 100:
        raise LiveInputError(f"--runs {spec.runs}: give 1..100 runs per shape")
    if not spec.shapes():
        raise LiveInputError("the grid has no shape to run")
    for shape in spec.shapes()[:: max(1, len(spec.shapes()) - 1)]:  # the first and last shape
        for mode in spec.modes:
            plan = load_plan(path, mode, shape.overrides(spec.size, 1))
            if plan.get("kind") != "bulk-download":
                raise LiveInputError(f"{path}: the grid runs a bulk download; this scenario's flow is {plan.get('kind')}")
            checks.time_bound(plan, spec.time_limit)
    _check_server_first(path)


def _check_server_first(path: Path) -> None:
    """:data:`SIM_HOST` addresses the server as node 0: refuse a scenario whose first node is
    not its first flow's server."""
    import tomllib

    doc = tomllib.loads(path.read_text())
    nodes, flows = doc.get("node") or [{}], doc.get("flow") or [{}]
    first, server = nodes[0].get("name"), flows[0].get("server")
    if first != server:
        raise LiveInputError(f"{path}: the grid simulates the testbed's server as node 0 ([[node]] `{first}`); "
                             f"put the flow's server `{server}` first")


def run_grid(spec: GridSpec, out: Path, on_progress: Callable[[str], None] | None = None, max_runs: int | None = None,
             resim: bool = False, rerun_live: bool = False, whole: bool = False) -> Tally:
    """Run what is missing of the grid into ``out`` (each run stored as it ends), then write
    the tables, the figure and the provenance. ``max_runs`` bounds the new live runs of this
    invocation (the tally says ``stopped`` when runs are left); ``resim``/``rerun_live`` redo
    stored simulations / live runs; ``whole`` (``--all``) widens the grid to every shape the
    directory holds (:func:`whole_spec`)."""
    from wattlab.live import netns, tcp_settings
    from wattlab.study import store

    say = on_progress or (lambda _m: None)
    t_start = time.monotonic()
    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    if whole:
        spec = whole_spec(spec, Path(out))
    check(spec)
    if spec.live and max_runs != 0:
        netns.require_root()
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    held = store.lock(out)
    try:
        recdir = out / RECORDS
        recdir.mkdir(exist_ok=True)
        scenario_hash = _file_hash(spec.scenario)
        kernel = tcp_settings.kernel()["release"]
        jobs = plan_jobs(spec, scenario_hash, kernel)
        tally = Tally(started_utc=started)
        n_live = sum(1 for j in jobs if j[0] == "live")
        done_live = 0
        live_times: list[float] = []
        for kind, shape, mode, profile, i, key in jobs:
            path = recdir / f"{key}.json"
            have = _read_record(path)
            if kind == "sim":
                if have is not None and not resim:
                    tally.sim_stored += 1
                    continue
                rec = simulate(spec, shape, mode, profile, i)
                tally.sim_new += 1
            else:
                done_live += 1
                if have is not None and not rerun_live and have.get("verified"):
                    tally.live_stored += 1
                    continue
                if max_runs is not None and tally.live_new + tally.live_failed >= max_runs:
                    tally.stopped = True  # the simulations left still run: they are cheap
                    continue
                eta = ""
                if live_times:
                    left = n_live - done_live + 1
                    eta = f", about {statistics.median(live_times) * left / 60:.0f} min left"
                say(f"[{done_live}/{n_live}] live {shape.label} {mode} run {i} (load {os.getloadavg()[0]:.1f}{eta})")
                rundir = out / "live" / shape.key / f"{mode}-{i}"
                rundir.parent.mkdir(parents=True, exist_ok=True)
                try:
                    rec = run_live(spec, shape, mode, i, rundir, lambda s: None)
                except LiveInputError:
                    raise
                except LiveError as e:
                    tally.live_failed += 1
                    tally.failures.append(f"{shape.label} {mode} run {i}: {e}")
                    say(f"  failed: {e}")
                    rec = {"side": "live", "profile": "live", "mode": mode, "run": i, "seed": i, "completed": False,
                           "verified": False, "error": str(e), "time_s": None, "energy_j": None, "dir": str(rundir)}
                else:
                    tally.live_new += 1
                    tally.load1_new += [rec["load1_before"], rec["load1_after"]]
                    live_times.append(rec["wall_s"])
                    say(f"  {rec['time_s']:.3f} s, {rec['energy_j']:.3f} J, {rec['retransmitted']} retx, "
                        f"host late {rec['host_late_max_ms']:.1f} ms, {rec['wall_s']:.0f} s wall")
            rec.update({"shape": shape.key, "rate_mbps": shape.rate_mbps, "rtt_ms": shape.rtt_ms, "loss_pct": shape.loss_pct,
                        "size": spec.size, "scenario_hash": scenario_hash, "key": key})
            store.atomic_write(path, (json.dumps(rec, indent=1, default=str) + "\n").encode())
        tally.wall_s = time.monotonic() - t_start
        write_outputs(spec, out, jobs, tally)
        return tally
    finally:
        held.release()


# ---------------------------------------------------------------------------------------------
# Tables


def load_runs(out: Path, jobs: list[tuple]) -> pd.DataFrame:
    """The stored records of ``jobs`` (those present), one row each."""
    rows = []
    for kind, shape, mode, profile, i, key in jobs:
        rec = _read_record(Path(out) / RECORDS / f"{key}.json")
        if rec is not None:
            if rec["side"] == "live" and rec["mode"] == "cc" and rec.get("verified") and "agent_reverted" not in rec:
                try:  # a record of a version that did not keep the agent's counters: its agent.json
                    rec.update(agent_fields(json.loads((Path(rec["dir"]) / "agent.json").read_text())["agent"]))
                except (OSError, ValueError, KeyError):
                    pass
            rec = {k: v for k, v in rec.items() if k not in ("tcp_settings", "overrides")}
            rows.append(rec)
    return pd.DataFrame(rows)


def _gap(sim: float | None, live: float | None) -> float | None:
    if sim is None or live is None or not live or (isinstance(sim, float) and math.isnan(sim)):
        return None
    return 100.0 * (sim / live - 1.0)


def _med(values) -> tuple[float | None, float | None, float | None]:
    v = [float(x) for x in values if x is not None and not (isinstance(x, float) and math.isnan(x))]
    if not v:
        return None, None, None
    return statistics.median(v), min(v), max(v)


def summarize(spec: GridSpec, runs: pd.DataFrame) -> pd.DataFrame:
    """One row per shape: the live medians (time and energy per mode, min and max over runs),
    each profile's simulated medians over seeds, the gaps in percent of the live median, the
    savings (1 − median E_cc / median E_always-on, per side) and their gaps in percentage
    points, and the verdict against the tolerances."""
    rows = []
    for shape in spec.shapes():
        r: dict = {"shape": shape.key, "rate_mbps": shape.rate_mbps, "rtt_ms": shape.rtt_ms, "loss_pct": shape.loss_pct}
        sub = runs[runs["shape"] == shape.key] if len(runs) else runs
        for mode in spec.modes:
            live = sub[(sub["side"] == "live") & (sub["mode"] == mode)] if len(sub) else sub
            if len(live) and "verified" in live:
                ok = live[live["verified"] == True]  # noqa: E712 (a column of objects)
            else:
                ok = live
            r[f"live_{mode}_n"] = int(len(ok))
            for q in ("time_s", "energy_j"):
                m, lo, hi = _med(ok[q]) if len(ok) else (None, None, None)
                r[f"live_{mode}_{q}"], r[f"live_{mode}_{q}_min"], r[f"live_{mode}_{q}_max"] = m, lo, hi
            if len(ok):
                r[f"live_{mode}_late_max_ms"] = float(ok["host_late_max_ms"].max())
                r[f"live_{mode}_load1_max"] = float(max(ok["load1_before"].max(), ok["load1_after"].max()))
                r[f"live_{mode}_retx"] = float(statistics.median(ok["retransmitted"]))
                if "agent_reverted" in ok and ok["agent_reverted"].notna().any():
                    r[f"live_{mode}_reverted_runs"] = int((ok["agent_reverted"] > 0).sum())
            for profile in spec.profiles:
                s = sub[(sub["side"] == "sim") & (sub["mode"] == mode) & (sub["profile"] == profile)] if len(sub) else sub
                for q in ("time_s", "energy_j"):
                    m, lo, hi = _med(s[q]) if len(s) else (None, None, None)
                    r[f"{profile}_{mode}_{q}"], r[f"{profile}_{mode}_{q}_min"], r[f"{profile}_{mode}_{q}_max"] = m, lo, hi
                    r[f"{profile}_{mode}_{q}_gap_pct"] = _gap(m, r[f"live_{mode}_{q}"])
                r[f"{profile}_{mode}_retx"] = float(statistics.median(s["retransmitted"])) if len(s) else None
                if len(s) and "agent_reverted" in s and s["agent_reverted"].notna().any():
                    r[f"{profile}_{mode}_reverted_runs"] = int((s["agent_reverted"] > 0).sum())
        if "always-on" in spec.modes and "cc" in spec.modes:
            for side in ("live", *spec.profiles):
                on, cc = r.get(f"{side}_always-on_energy_j"), r.get(f"{side}_cc_energy_j")
                r[f"{side}_saving_pct"] = None if on is None or cc is None or not on else 100.0 * (1.0 - cc / on)
            for profile in spec.profiles:
                a, b = r.get(f"{profile}_saving_pct"), r.get("live_saving_pct")
                r[f"{profile}_saving_gap_pp"] = None if a is None or b is None else a - b
        for profile in spec.profiles:
            r.update(paired(spec, sub, profile))
            r[f"{profile}_verdict"] = verdict(spec, r, profile)
            r[f"{profile}_paired_verdict"] = verdict(spec, r, profile, paired=True)
        rows.append(r)
    return pd.DataFrame(rows)


def _by_seed(rows: pd.DataFrame, live: bool) -> dict[int, dict]:
    """Per seed (the live run's number is its seed): time, energy and whether the agent reverted."""
    if live and "verified" in rows:
        rows = rows[rows["verified"] == True]  # noqa: E712 (a column of objects)
    out = {}
    for rec in rows.to_dict("records"):
        seed = int(rec["run"] if live else rec["seed"])
        rev = rec.get("agent_reverted")
        out[seed] = {"time_s": rec["time_s"], "energy_j": rec["energy_j"],
                     "reverted": None if _missing(rev) else bool(rev > 0)}
    return out


def paired(spec: GridSpec, sub: pd.DataFrame, profile: str) -> dict:
    """The same comparison paired by seed: the emulator draws the losses of the simulation of
    the same seed, so comparing seed with seed removes the loss pattern's spread (at 0.5 % loss
    the same shape's downloads differ 4× between seeds, on both sides alike). Per mode the
    median over seeds of the per-seed time gap (%); the median of the per-seed saving gaps
    (pp, each seed's saving 1 − E_cc / E_always-on on its own side); the seeds compared; and in
    how many of them both agents made the same reversion decision."""
    r: dict = {}
    if not len(sub):
        return r
    side = {m: (_by_seed(sub[(sub["side"] == "live") & (sub["mode"] == m)], True),
                _by_seed(sub[(sub["side"] == "sim") & (sub["mode"] == m) & (sub["profile"] == profile)], False))
            for m in spec.modes}
    for m, (live, sim) in side.items():
        seeds = sorted(set(live) & set(sim))
        gaps = [_gap(sim[s]["time_s"], live[s]["time_s"]) for s in seeds]
        r[f"{profile}_paired_{m}_time_gap_pct"] = _med(gaps)[0]
        r[f"{profile}_paired_{m}_seeds"] = len(seeds)
        decided = [s for s in seeds if live[s]["reverted"] is not None and sim[s]["reverted"] is not None]
        if decided:
            r[f"{profile}_paired_{m}_same_decision"] = sum(live[s]["reverted"] == sim[s]["reverted"] for s in decided)
    if "always-on" in side and "cc" in side:
        (lon, son), (lcc, scc) = side["always-on"], side["cc"]
        seeds = sorted(set(lon) & set(son) & set(lcc) & set(scc))

        def saving(on: dict, cc: dict, s: int) -> float | None:
            return 100.0 * (1.0 - cc[s]["energy_j"] / on[s]["energy_j"]) if on[s]["energy_j"] else None

        gaps = []
        for s in seeds:
            a, b = saving(son, scc, s), saving(lon, lcc, s)
            gaps.append(None if a is None or b is None else a - b)
        r[f"{profile}_paired_saving_gap_pp"] = _med(gaps)[0]
    ci = grid_stats.intervals({m: live for m, (live, _) in side.items()}, {m: sim for m, (_, sim) in side.items()})
    for k, v in ci.items():
        r[f"{profile}_ci_{k}"] = v
    places = [grid_stats.placement(ci.get(f"{m}_time_gap_lo"), ci.get(f"{m}_time_gap_hi"), spec.time_tol_pct) for m in spec.modes]
    if len(spec.modes) > 1:
        places.append(grid_stats.placement(ci.get("saving_gap_lo"), ci.get("saving_gap_hi"), spec.saving_tol_pp))
    r[f"{profile}_ci_settled"] = grid_stats.settled(places, ci.get("seeds", 0))
    return r


def verdict(spec: GridSpec, row: dict, profile: str, paired: bool = False) -> str:
    """``pass``/``fail`` against the tolerances at a shape whose loss is at most
    ``verdict_max_loss_pct`` (every mode's completion time within ±time_tol of the live median,
    the saving within ±saving_tol pp); ``report`` above it (the gap is reported, not judged);
    ``incomplete`` when a number is missing (no verified live run, say). ``paired``: the same
    tolerances on the medians of the per-seed gaps (:func:`paired`)."""
    if paired:
        gaps = [row.get(f"{profile}_paired_{m}_time_gap_pct") for m in spec.modes]
        sav = row.get(f"{profile}_paired_saving_gap_pp") if len(spec.modes) > 1 else 0.0
    else:
        gaps = [row.get(f"{profile}_{m}_time_s_gap_pct") for m in spec.modes]
        sav = row.get(f"{profile}_saving_gap_pp") if len(spec.modes) > 1 else 0.0
    if any(g is None for g in gaps) or sav is None:
        return "incomplete"
    if row["loss_pct"] > spec.verdict_max_loss_pct:
        return "report"
    ok = all(abs(g) <= spec.time_tol_pct for g in gaps) and abs(sav) <= spec.saving_tol_pp
    return "pass" if ok else "fail"


def _f(v, fmt: str, none: str = "-") -> str:
    return none if v is None or (isinstance(v, float) and math.isnan(v)) else format(v, fmt)


def _spread(r: dict, key: str) -> str:
    """``8.214 ±1.1%``: the median and half the min-max range in percent of it."""
    m, lo, hi = r.get(key), r.get(key + "_min"), r.get(key + "_max")
    if m is None or (isinstance(m, float) and math.isnan(m)):
        return "-"
    half = 50.0 * (hi - lo) / m if m else 0.0
    return f"{m:.3f} ±{half:.1f}%"


def _missing(v) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def _pair(value, fmt: str, gap, gap_unit: str, unit: str = "") -> str:
    """``8.500 +3.5%``: a simulated value and its gap (``?`` without a live value); ``-``
    without the simulated value."""
    if _missing(value):
        return "-"
    return f"{value:{fmt}}{unit} " + ("?" if _missing(gap) else f"{gap:+.1f}{gap_unit}")


def text_tables(spec: GridSpec, table: pd.DataFrame) -> str:
    """The grid as tables of at most 80 columns: completion time per shape and mode (live
    median ± half its min-max range, each profile's median and gap), then energy, the
    agent's saving and the verdict per shape, the same paired by seed, and the medians gaps'
    sampling intervals."""
    prof = list(spec.profiles)[:2]
    lines = ["Completion time (s): live median ± half the min-max range over runs; simulated",
             "median over the same seeds and its gap in % of the live median"]
    head = f"{'shape':<15} {'mode':<9} {'live':<12}" + "".join(f" {p[:8]:>14}" for p in prof)
    lines += [head, "-" * len(head)]
    for r in table.to_dict("records"):
        for mode in spec.modes:
            cells = "".join(f" {_pair(r.get(f'{p}_{mode}_time_s'), '.3f', r.get(f'{p}_{mode}_time_s_gap_pct'), '%'):>14}" for p in prof)
            lines.append(f"{shape_label(r):<15} {mode:<9} {_spread(r, f'live_{mode}_time_s'):<12}{cells}")
    if "cc" in spec.modes and "always-on" in spec.modes:
        lines += ["", "Energy (J, live medians); the cc agent's saving vs always-on (each side vs its",
                  f"own), gap in points; verdict ({prof[0]}): time ±{spec.time_tol_pct:g} %, saving ±{spec.saving_tol_pp:g} pp"]
        head = f"{'shape':<15} {'live J on/cc':<13} {'live':>7}" + "".join(f" {p[:8]:>13}" for p in prof) + f" {'verdict':>10}"
        lines += [head, "-" * len(head)]
        for r in table.to_dict("records"):
            e = f"{_f(r.get('live_always-on_energy_j'), '.2f')}/{_f(r.get('live_cc_energy_j'), '.2f')}".replace("-/-", "-")
            cells = "".join(f" {_pair(r.get(f'{p}_saving_pct'), '.1f', r.get(f'{p}_saving_gap_pp'), 'pp', '%'):>13}" for p in prof)
            lines.append(f"{shape_label(r):<15} {e:<13} {_f(r.get('live_saving_pct'), '.1f') + ('' if _missing(r.get('live_saving_pct')) else '%'):>7}{cells} {r.get(prof[0] + '_verdict', ''):>10}")
        lines += paired_table(spec, table, prof[0])
        lines += interval_table(spec, table, prof[0])
    return "\n".join(lines)


def paired_table(spec: GridSpec, table: pd.DataFrame, profile: str) -> list[str]:
    """The third table: ``profile`` against live paired by seed (medians of per-seed gaps,
    the seeds compared, the agents' same reversion decisions) and the paired verdict."""
    lines = ["", f"Paired by seed ({profile}; a live run draws the losses of the simulation of its",
             "seed): median of the per-seed gaps; cc agents deciding alike (revert or not)"]
    head = f"{'shape':<15} {'seeds':>5} {'always-on':>10} {'cc':>8} {'saving':>9} {'alike':>6} {'verdict':>10}"
    lines += [head, "-" * len(head)]
    for r in table.to_dict("records"):
        n = r.get(f"{profile}_paired_cc_seeds", r.get(f"{profile}_paired_always-on_seeds"))
        alike = r.get(f"{profile}_paired_cc_same_decision")
        cells = [_f(r.get(f"{profile}_paired_{m}_time_gap_pct"), "+.1f") + ("%" if not _missing(r.get(f"{profile}_paired_{m}_time_gap_pct")) else "")
                 for m in ("always-on", "cc")]
        sav = r.get(f"{profile}_paired_saving_gap_pp")
        lines.append(f"{shape_label(r):<15} {_f(n, 'd'):>5} {cells[0]:>10} {cells[1]:>8} "
                     f"{_f(sav, '+.1f') + ('' if _missing(sav) else 'pp'):>9} "
                     f"{'-' if _missing(alike) or _missing(n) else f'{int(alike)}/{int(n)}':>6} "
                     f"{r.get(profile + '_paired_verdict', ''):>10}")
    return lines


def interval_table(spec: GridSpec, table: pd.DataFrame, profile: str) -> list[str]:
    """The fourth table: each medians gap with its 95 % paired-bootstrap interval over the
    seeds (:mod:`wattlab.live.grid_stats`) and what sampling leaves of the verdict on medians."""
    lines = ["", f"Medians' gaps ({profile}) with 95 % intervals from resampling the n seeds",
             f"({grid_stats.RESAMPLES} paired resamples): pass/fail when every interval lies inside/one",
             "lies outside the tolerance, open when one straddles it (more seeds decide);",
             f"not judged below {grid_stats.MIN_SEEDS} seeds"]
    head = f"{'shape':<15} {'n':>3} {'always-on %':>15} {'cc %':>15} {'saving pp':>15}  {'sampled':>7}"
    lines += [head, "-" * len(head)]

    def cell(gap, lo, hi) -> str:
        if _missing(gap) or _missing(lo) or _missing(hi):
            return "-"
        return f"{gap:+.1f} [{lo:+.0f},{hi:+.0f}]"

    for r in table.to_dict("records"):
        p = f"{profile}_ci_"
        cells = [cell(r.get(f"{profile}_{m}_time_s_gap_pct"), r.get(f"{p}{m}_time_gap_lo"), r.get(f"{p}{m}_time_gap_hi"))
                 for m in ("always-on", "cc")]
        cells.append(cell(r.get(f"{profile}_saving_gap_pp"), r.get(f"{p}saving_gap_lo"), r.get(f"{p}saving_gap_hi")))
        settled = r.get(f"{p}settled")
        lines.append(f"{shape_label(r):<15} {_f(r.get(f'{p}seeds'), 'd'):>3} {cells[0]:>15} {cells[1]:>15} {cells[2]:>15}  "
                     f"{'-' if _missing(settled) else settled:>7}")
    return lines


def shape_label(r: dict) -> str:
    """``20M 90ms 0.5%`` (Mb/s, ms, %) of a table row."""
    return f"{r['rate_mbps']:g}M {r['rtt_ms']:g}ms {r['loss_pct']:g}%"


# ---------------------------------------------------------------------------------------------
# Outputs


def provenance(spec: GridSpec, out: Path, runs: pd.DataFrame, tally: Tally, extra: dict | None = None) -> dict:
    """What the results were made with: the grid of this invocation, the base scenario and its
    hash, wattlab's version and commit, the kernel and the TCP settings of the newest live run's
    namespaces, the machine's load over the tables' live runs; and across invocations into
    ``out`` (:mod:`wattlab.live.grid_provenance`): ``invocations`` (each one's axes, options,
    commit, time, load range and tally, oldest first) and ``shapes`` (every shape the directory's
    records hold, with its counts)."""
    from wattlab.live import tcp_settings

    settings = None
    if len(runs) and "dir" in runs:
        dirs = list(runs.loc[runs["side"] == "live", "dir"].dropna())  # the grid's run table, not a capture
        for d in reversed(dirs):
            p = Path(d) / "tcp_settings.json"
            if p.exists():
                settings = json.loads(p.read_text())
                break
    live = runs[runs["side"] == "live"] if len(runs) else runs
    cols = [c for c in ("load1_before", "load1_after") if c in live]
    loads = list(live[cols].stack().dropna()) if cols else []
    version, commit = _core()
    written = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    return {
        "grid": {k: (str(v) if isinstance(v, Path) else v) for k, v in asdict(spec).items()},
        "scenario_sha256_16": _file_hash(spec.scenario), "wattlab_version": version, "wattlab_commit": commit,
        "sim_commits": sorted(set(runs[runs["side"] == "sim"]["wattlab_commit"].dropna())) if len(runs) else [],
        "live_commits": sorted(set(live["wattlab_commit"].dropna())) if "wattlab_commit" in live else [],
        "kernel": tcp_settings.kernel(), "cubic": tcp_settings.cubic(),
        "testbed_tcp": settings,
        "load1": {"min": min(loads), "median": statistics.median(loads), "max": max(loads)} if loads else None,
        "this_invocation": tally_dict(tally),
        "written_utc": written,
        **(extra or {}),
        **grid_provenance.merged(out, invocation(spec, tally, written, extra)),
    }


def write_outputs(spec: GridSpec, out: Path, jobs: list[tuple], tally: Tally, extra: dict | None = None) -> pd.DataFrame:
    """``runs.csv``/``.parquet`` (every stored run), ``grid.csv``/``.parquet`` (one row per
    shape), ``grid.txt`` (the terminal tables), ``grid.png`` (the figure), ``provenance.json``
    (with ``extra``'s keys added)."""
    from wattlab.study import store

    runs = load_runs(out, jobs)
    table = summarize(spec, runs)
    for name, df in (("runs", runs), ("grid", table)):
        store.atomic_write(out / f"{name}.csv", df.to_csv(index=False).encode())
        try:
            store.atomic_write(out / f"{name}.parquet", lambda p, df=df: df.to_parquet(p, index=False))
        except Exception:  # a column pyarrow cannot type (all None): the CSV still holds it
            pass
    store.atomic_write(out / "grid.txt", (text_tables(spec, table) + "\n").encode())
    store.atomic_write(out / "provenance.json", (json.dumps(provenance(spec, out, runs, tally, extra), indent=2, default=str) + "\n").encode())
    if len(runs) and (runs["side"] == "live").any():  # the figure is sim against live
        from wattlab.live.grid_figure import figure

        figure(spec, table, out / "grid.png")
    return table
