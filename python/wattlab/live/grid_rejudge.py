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
    """The grid a stored directory ran (its ``provenance.json``), with ``scenario`` (default:
    the grid's default base scenario) as the base, refused unless it is byte-identical to the
    one the live runs used (its hash)."""
    stored = Path(stored)
    try:
        prov = json.loads((stored / "provenance.json").read_text())
        g = prov["grid"]
    except (OSError, ValueError, KeyError) as e:
        raise LiveInputError(f"--rejudge {stored}: not a grid's results directory (provenance.json: {e})") from None
    path = Path(scenario) if scenario else grid.DEFAULT_SCENARIO
    have, want = grid._file_hash(path), prov.get("scenario_sha256_16")
    if have != want:
        raise LiveInputError(f"--rejudge {stored}: its live runs used a base scenario with hash {want}; {path} has {have} "
                             "(give the same scenario with --scenario; shapes are set by the grid, the rest must match)")
    axes = _record_axes(stored, g["size"], have)
    return grid.GridSpec(scenario=path, rates_mbps=sorted({*g["rates_mbps"], *axes[0]}), rtts_ms=sorted({*g["rtts_ms"], *axes[1]}),
                         losses_pct=sorted({*g["losses_pct"], *axes[2]}), runs=max(int(g["runs"]), axes[3]), modes=g["modes"],
                         profiles=g["profiles"], size=g["size"], time_limit=g.get("time_limit"), sysctls=g.get("sysctls") or ())


def _record_axes(stored: Path, size: str, scenario_hash: str) -> tuple[set, set, set, int]:
    """The rates, RTTs, losses and most runs of the stored verified live records of ``size``
    and the base scenario: a grid run in parts (``--rates``/``--rtts``/``--losses`` into one
    directory) keeps only its last part's axes in ``provenance.json``, and its records hold
    the rest."""
    rates, rtts, losses, runs = set(), set(), set(), 0
    for p in (Path(stored) / grid.RECORDS).glob("live-*.json"):
        rec = grid._read_record(p)
        if rec is None or not rec.get("verified") or rec.get("size") != size or rec.get("scenario_hash") not in (None, scenario_hash):
            continue
        try:
            r, d, l, n = float(rec["rate_mbps"]), float(rec["rtt_ms"]), float(rec["loss_pct"]), int(rec["run"])
        except (KeyError, TypeError, ValueError):
            continue
        rates.add(r), rtts.add(d), losses.add(l)
        runs = max(runs, n)
    return rates, rtts, losses, runs


def narrow(spec: grid.GridSpec, **axes: tuple[float, ...] | None) -> grid.GridSpec:
    """``spec`` with some axes narrowed to a subset of the stored ones (``None``: all); a value
    the stored grid did not run is refused."""
    changes = {}
    for name, values in axes.items():
        if values is None:
            continue
        missing = [v for v in values if v not in getattr(spec, name)]
        if missing:
            stored = ",".join(f"{v:g}" for v in getattr(spec, name))
            raise LiveInputError(f"--rejudge: the stored grid has no {name.split('_')[0]} "
                                 f"{','.join(f'{v:g}' for v in missing)} (it ran {stored})")
        changes[name] = tuple(values)
    return replace(spec, **changes) if changes else spec


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


def verdict_counts(table, profile: str) -> dict[str, int]:
    """How many shapes got each verdict for ``profile`` (pass, fail, report, incomplete)."""
    col = table.get(f"{profile}_verdict")
    return {} if col is None else {str(k): int(v) for k, v in col.value_counts().items()}


def rejudge(spec: grid.GridSpec, stored: Path, out: Path, on_progress: Callable[[str], None] | None = None,
            resim: bool = False) -> tuple[grid.Tally, "pd.DataFrame"]:
    """Simulate ``spec``'s shapes into ``out`` (stored as each ends, resumable, keyed by the
    build and the ``--sim-set`` overrides), copy the stored grid's matching live records into
    ``out/records`` (run directories left where they are) and write the tables, figure and
    provenance (which names ``stored`` and the live records' commits). Returns the tally and
    the per-shape table."""
    from wattlab import api
    from wattlab.study import store

    say = on_progress or (lambda _m: None)
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
        jobs = grid.plan_jobs(replace(spec, live=False), scenario_hash, "")
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
        for (shape_key, mode, run), rec in sorted(live.items()):
            rec = {**rec, "rejudged_from": str(stored.resolve())}
            store.atomic_write(recdir / f"{rec['key']}.json", (json.dumps(rec, indent=1, default=str) + "\n").encode())
            shape = next(s for s in spec.shapes() if s.key == shape_key)
            jobs.append(("live", shape, mode, None, run, rec["key"]))
            tally.live_stored += 1
        tally.wall_s = time.monotonic() - t0
        extra = {"rejudged": {"live_from": str(stored.resolve()), "live_records": len(live),
                              "live_commits": sorted({str(r.get("wattlab_commit")) for r in live.values()}),
                              "sim_sets": [list(x) for x in spec.sim_sets]}}
        return tally, grid.write_outputs(spec, out, jobs, tally, extra)
    finally:
        held.release()
