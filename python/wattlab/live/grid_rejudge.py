"""Judge today's simulator against a stored grid's live runs (``wattlab live grid --rejudge
STORED``): the live side is the stored grid's verified live records, read and never run again
(no root, nothing written into STORED); the simulator runs the same shapes, modes and seeds
with this build and the given ``--sim-set`` overrides (for instance the TCP settings the live
hosts had then), and the tables, figure and provenance are rebuilt in a new directory.

Why: a live record is keyed by the live plan, so after a change of what a live host is given
(``tcp.autotune`` leaves ``SO_RCVBUF`` unset) the grid command would run the live side again.
Rejudging answers the other question, "how close is today's model to what ran then", and the
``--sim-set`` overrides are how the simulation is made to match what ran then.
``docs/live.md``, "The sim-vs-live grid"."""

from __future__ import annotations

import json
import time
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from wattlab.live import grid
from wattlab.live.netns import LiveInputError

if TYPE_CHECKING:
    import pandas as pd


def stored_spec(stored: Path, scenario: Path | None = None) -> grid.GridSpec:
    """The grid a stored directory ran, over every shape that has a verified live run stored
    there (of the directory's size and base scenario; a directory measured in parts need not be
    a full product of its axes), with ``scenario`` (default: the grid's default base scenario) as
    the base, refused unless it is byte-identical to the one the live runs used (its hash). The
    runs are the most any invocation asked for, the modes those any invocation ran; the size
    and the live options are the newest invocation's. A ``provenance.json`` of one invocation
    (the older format) is read as well."""
    from wattlab.live import grid_provenance

    stored = Path(stored)
    try:
        prov = json.loads((stored / "provenance.json").read_text())
        g = prov["grid"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise LiveInputError(f"--rejudge {stored}: not a grid's results directory (provenance.json: {e})") from None
    path = Path(scenario) if scenario else grid.DEFAULT_SCENARIO
    have, want = grid._file_hash(path), prov.get("scenario_sha256_16")
    if have != want:
        raise LiveInputError(f"--rejudge {stored}: its live runs used a base scenario with hash {want}; {path} has {have} "
                             "(give the same scenario with --scenario; shapes are set by the grid, the rest must match)")
    grids = [inv.get("grid") or {} for inv in grid_provenance.invocations(prov)] or [g]
    runs = max(int(x.get("runs") or 0) for x in grids) or int(g["runs"])
    modes = tuple(m for m in grid.MODES if any(m in (x.get("modes") or ()) for x in grids)) or tuple(g["modes"])
    spec = grid.GridSpec(scenario=path, rates_mbps=g["rates_mbps"], rtts_ms=g["rtts_ms"], losses_pct=g["losses_pct"],
                         runs=runs, modes=modes, profiles=g["profiles"], size=g["size"],
                         time_limit=g.get("time_limit"), sysctls=g.get("sysctls") or ())
    measured = measured_shapes(stored, spec)
    return grid.with_shapes(spec, measured) if measured else spec


def measured_shapes(stored: Path, spec: grid.GridSpec) -> list[tuple[float, float, float]]:
    """(rate, RTT, loss) of every shape with a verified live run stored in ``stored`` of
    ``spec``'s size and base scenario, whatever invocation measured it."""
    scenario_hash = grid._file_hash(spec.scenario)
    out = set()
    for path in (Path(stored) / grid.RECORDS).glob("live-*.json"):
        rec = grid._read_record(path)
        if rec is None or not rec.get("verified") or rec.get("size") != spec.size or rec.get("scenario_hash") not in (None, scenario_hash):
            continue
        if rec.get("rate_mbps") is not None:
            out.add((float(rec["rate_mbps"]), float(rec["rtt_ms"]), float(rec["loss_pct"])))
    return sorted(out)


def narrow(spec: grid.GridSpec, **axes: tuple[float, ...] | None) -> grid.GridSpec:
    """``spec`` (:func:`stored_spec`) narrowed to the requested axes (``None``: all of the
    stored ones): the requested combinations that have stored live runs. A value no stored live
    run has is refused, and so is a request of which no combination has one (the message names
    them); :func:`unmeasured` names the requested combinations left out."""
    for name, values in axes.items():
        if values is None:
            continue
        missing = [v for v in values if v not in getattr(spec, name)]
        if missing:
            stored = ",".join(f"{v:g}" for v in getattr(spec, name))
            raise LiveInputError(f"--rejudge: the stored grid has no {name.split('_')[0]} "
                                 f"{','.join(f'{v:g}' for v in missing)} (it ran {stored})")
    if all(v is None for v in axes.values()):
        return spec
    have = {s.key for s in spec.shapes()}
    want = _requested(spec, axes)
    keep = [(s.rate_mbps, s.rtt_ms, s.loss_pct) for s in want if s.key in have]
    if not keep:
        raise LiveInputError("--rejudge: no stored live run at any requested shape ("
                             + "; ".join(s.label for s in want) + ")")
    return grid.with_shapes(spec, keep)


def _requested(spec: grid.GridSpec, axes: dict) -> list[grid.Shape]:
    """Every combination of the requested axes (the stored ones where not given)."""
    r, d, l = (axes.get(n) or getattr(spec, n) for n in ("rates_mbps", "rtts_ms", "losses_pct"))
    return [grid.Shape(a, b, c) for a in r for b in d for c in l]


def unmeasured(spec: grid.GridSpec, stored: Path | None = None, **axes: tuple[float, ...] | None) -> list[grid.Shape]:
    """The requested shapes that have no stored live run in ``spec`` (:func:`stored_spec`):
    with axes given (:func:`narrow`'s arguments), their combinations (the stored axes where
    not given); with none, every shape an invocation into ``stored`` ran or a record there
    holds (:func:`wattlab.live.grid_provenance.directory_shapes`)."""
    from wattlab.live import grid_provenance

    have = {s.key for s in spec.shapes()}
    if any(v is not None for v in axes.values()) or stored is None:
        want = _requested(spec, axes)
    else:
        want = [grid.Shape(*s) for s in sorted(grid_provenance.directory_shapes(Path(stored)))]
    return [s for s in want if s.key not in have]


def live_records(stored: Path, spec: grid.GridSpec) -> dict[tuple[str, str, int], dict]:
    """The stored grid's verified live records of ``spec``'s shapes, modes and runs (and of its
    size and base scenario), by (shape key, mode, run), each with ``dir`` pointing at its run directory under ``stored`` (where
    the grid was moved) and the file's key; of two records of one run, the later one."""
    out: dict[tuple[str, str, int], dict] = {}
    shapes = {s.key for s in spec.shapes()}
    scenario_hash = grid._file_hash(spec.scenario)
    for path in sorted((Path(stored) / grid.RECORDS).glob("live-*.json")):
        rec = grid._read_record(path)
        if rec is None or not rec.get("verified") or rec.get("size") != spec.size or rec.get("scenario_hash") not in (None, scenario_hash):
            continue
        k = (rec.get("shape"), rec.get("mode"), int(rec.get("run", 0)))
        if k[0] not in shapes or k[1] not in spec.modes or not 1 <= k[2] <= spec.runs:
            continue
        if k in out and str(out[k].get("started_utc")) >= str(rec.get("started_utc")):
            continue
        moved = Path(stored).resolve() / "live" / k[0] / f"{k[1]}-{k[2]}"
        if moved.is_dir():
            rec["dir"] = str(moved)
        rec["key"] = path.stem
        out[k] = rec
    return out


WINDOW_DIR = "live-window"
"""Where ``--rejudge`` re-costs stored live runs over their window (under ``--out``)."""


def recost_window(rec: dict, dest: Path) -> tuple[dict, str | None]:
    """A stored live record of a grid made before the judged energy was the download's window
    (it has no ``capture_energy_j``: its ``energy_j`` is the whole capture's, the close
    included) with its capture (``rec["dir"]/client.pcap``, read only) re-costed over the
    window the simulator meters, from the SYN to the last byte (``fetch.json``'s
    ``connect_ns``, ``done_ns``; :attr:`wattlab.live.runner.LiveResult.window_ns`), the cut
    capture and its tables written under ``dest``. Returns the record with ``energy_j`` the
    window's and ``capture_energy_j`` the stored whole capture's, and None; or the record
    unchanged and why it could not be re-costed."""
    from wattlab.live import runner
    from wattlab.live.netns import LiveError

    run_dir = Path(str(rec.get("dir") or ""))
    try:
        plan = json.loads((run_dir / "plan.json").read_text())
        fetch = json.loads((run_dir / "fetch.json").read_text())
        window = (int(fetch["connect_ns"]), int(fetch["done_ns"]))
        if not (run_dir / "client.pcap").is_file():
            return rec, f"{run_dir / 'client.pcap'} is missing"
        energy = runner.cost_window(plan, run_dir, plan["policy"], window, dest)
    except (OSError, ValueError, KeyError, TypeError) as e:
        return rec, f"{run_dir}: {e}"
    except LiveError as e:
        return rec, str(e)
    e = energy.energy
    own = e[e.policy == ("always-on" if plan["policy"] == "always-on" else "replay")]
    return {**rec, "energy_j": float(own.energy_j.iloc[0]), "capture_energy_j": rec.get("energy_j"),
            "window_ns": list(window), "energy_window_recosted": str(dest)}, None


def verdict_counts(table, profile: str) -> dict[str, int]:
    """How many shapes got each verdict for ``profile`` (pass, fail, report, incomplete)."""
    col = table.get(f"{profile}_verdict")
    return {} if col is None else {str(k): int(v) for k, v in col.value_counts().items()}


def rejudge(spec: grid.GridSpec, stored: Path, out: Path, on_progress: Callable[[str], None] | None = None,
            resim: bool = False, no_live: list[str] | None = None,
            on_note: Callable[[str], None] | None = None) -> tuple[grid.Tally, "pd.DataFrame"]:
    """Simulate ``spec``'s shapes into ``out`` (stored as each ends, resumable, keyed by the
    build and the ``--sim-set`` overrides), copy the stored grid's matching live records into
    ``out/records`` (run directories left where they are) and write the tables, figure and
    provenance (which names ``stored``, the live records' commits and ``no_live``: the requested
    shapes left out for want of a stored live run). A live record stored before the judged
    energy was the download's window (no ``capture_energy_j``) is re-costed over its window
    (:func:`recost_window`, into ``out/live-window``), and ``on_note`` (stderr in the CLI) says
    how many were and which could not be. Returns the tally and the per-shape table."""
    from wattlab import api
    from wattlab.study import store

    say = on_progress or (lambda _m: None)
    tell = on_note or (lambda _m: None)
    stored, out = Path(stored), Path(out)
    if out.resolve() == stored.resolve():
        raise LiveInputError(f"--rejudge {stored}: give another --out (the stored grid is read, never written)")
    for profile in spec.profiles:  # a bad --sim-set is refused before anything runs
        api.validate(spec.scenario, [*grid.Shape(spec.rates_mbps[0], spec.rtts_ms[0], spec.losses_pct[0]).overrides(spec.size, 1),
                                     f'flow.0.tcp.profile="{profile}"', *spec.sim_overrides(profile)])
    live = live_records(stored, spec)
    if not live:
        raise LiveInputError(f"--rejudge {stored}: no verified live run of these shapes is stored there")
    t0 = time.monotonic()
    out.mkdir(parents=True, exist_ok=True)
    held = store.lock(out)
    try:
        recdir = out / grid.RECORDS
        recdir.mkdir(exist_ok=True)
        scenario_hash = grid._file_hash(spec.scenario)
        # The simulator runs the seeds live ran at each shape (a shape may have more runs stored
        # than another: a grid measured in parts), so each side's median is over the same seeds.
        seeds_at: dict[str, set[int]] = {}
        for shape_key, _mode, run in live:
            seeds_at.setdefault(shape_key, set()).add(run)
        jobs = [j for j in grid.plan_jobs(replace(spec, live=False), scenario_hash, "") if j[4] in seeds_at.get(j[1].key, ())]
        tally = grid.Tally()
        for n, (_, shape, mode, profile, seed, key) in enumerate(jobs, 1):
            path = recdir / f"{key}.json"
            if grid._read_record(path) is not None and not resim:
                tally.sim_stored += 1
                continue
            say(f"[{n}/{len(jobs)}] sim {shape.label} {mode} {profile} seed {seed}")
            rec = grid.simulate(spec, shape, mode, profile, seed)
            tally.sim_new += 1
            rec.update({"shape": shape.key, "rate_mbps": shape.rate_mbps, "rtt_ms": shape.rtt_ms, "loss_pct": shape.loss_pct,
                        "size": spec.size, "scenario_hash": scenario_hash, "key": key})
            store.atomic_write(path, (json.dumps(rec, indent=1, default=str) + "\n").encode())
        recosted, kept = 0, []
        for (shape_key, mode, run), rec in sorted(live.items()):
            if rec.get("capture_energy_j") is None:  # an older record: its energy_j is the whole capture's
                say(f"re-costing {shape_key} {mode} run {run} over the SYN to the last byte")
                rec, why = recost_window(rec, out / WINDOW_DIR / shape_key / f"{mode}-{run}")
                if why is None:
                    recosted += 1
                else:
                    kept.append(f"{shape_key} {mode}-{run}: {why}")
            rec = {**rec, "rejudged_from": str(stored.resolve())}
            store.atomic_write(recdir / f"{rec['key']}.json", (json.dumps(rec, indent=1, default=str) + "\n").encode())
            shape = next(s for s in spec.shapes() if s.key == shape_key)
            jobs.append(("live", shape, mode, None, run, rec["key"]))
            tally.live_stored += 1
        if recosted:
            tell(f"rejudge: {recosted} stored live run(s) had their whole capture's energy (the close included): re-costed "
                 f"each capture from the SYN to the last byte (fetch.json connect_ns to done_ns, the span the simulator "
                 f"meters) into {out / WINDOW_DIR}, the stored value kept as capture_energy_j; {stored} is not written")
        if kept:
            tell(f"rejudge: {len(kept)} stored live run(s) could not be re-costed over their window, their whole "
                 "capture's energy is judged: " + "; ".join(kept))
        tally.wall_s = time.monotonic() - t0
        extra = {"rejudged": {"live_from": str(stored.resolve()), "live_records": len(live),
                              "recosted_window": recosted, "not_recosted": kept,
                              "live_commits": sorted({str(r.get("wattlab_commit")) for r in live.values()}),
                              "sim_sets": [list(x) for x in spec.sim_sets], "no_live_runs": list(no_live or [])}}
        return tally, grid.write_outputs(spec, out, jobs, tally, extra)
    finally:
        held.release()
