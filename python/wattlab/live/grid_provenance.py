"""The provenance of a grid directory measured in parts (``wattlab live grid`` run several
times into one ``--out``, with different ``--rates/--rtts/--losses`` subsets): every
invocation is recorded (its axes, options, wattlab commit, start and end time, the load over
its live runs, its tally), and the shapes the directory's records hold are listed with their
counts, so that ``--all`` can rebuild the whole directory's tables and ``--rejudge`` can take
every shape that has stored live runs. A ``provenance.json`` written before invocations were
recorded (one ``grid`` and one ``this_invocation``) is read as the directory's first
invocation. Plain JSON in, plain JSON out: :mod:`wattlab.live.grid` builds on it (no import
back). ``docs/live.md``, "The sim-vs-live grid"."""

from __future__ import annotations

import json
from pathlib import Path

RECORDS = "records"
"""The directory of a grid's run records (``DIR/records/KEY.json``)."""


def shape_key(rate_mbps: float, rtt_ms: float, loss_pct: float) -> str:
    """A shape's file-name-safe name, ``r20-d90-l0.5``."""
    return f"r{rate_mbps:g}-d{rtt_ms:g}-l{loss_pct:g}"


def read(out: Path) -> dict | None:
    """The directory's ``provenance.json`` (None when absent or unreadable)."""
    try:
        prov = json.loads((Path(out) / "provenance.json").read_text())
    except (OSError, ValueError):
        return None
    return prov if isinstance(prov, dict) else None


def read_record(path: Path) -> dict | None:
    """A run record (None when unreadable or not a record)."""
    try:
        rec = json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return None
    return rec if isinstance(rec, dict) and "side" in rec else None


def grid_shapes(g: dict) -> list[tuple[float, float, float]]:
    """(rate, RTT, loss) of every shape of a provenance's ``grid`` entry: the product of its
    axes, restricted to its ``shape_keys`` when it has them."""
    keys = g.get("shape_keys")
    every = [(float(r), float(d), float(l)) for r in g.get("rates_mbps") or () for d in g.get("rtts_ms") or ()
             for l in g.get("losses_pct") or ()]
    return every if keys is None else [s for s in every if shape_key(*s) in keys]


def invocations(prov: dict | None) -> list[dict]:
    """The invocations an existing provenance records, oldest first; an older provenance (one
    ``grid``, no ``invocations``) is one invocation (``"older_format": true``; its ``load1`` is
    over the whole directory's live runs, as that format wrote it)."""
    if not prov:
        return []
    if isinstance(prov.get("invocations"), list):
        return list(prov["invocations"])
    if not isinstance(prov.get("grid"), dict):
        return []
    g = prov["grid"]
    return [{"grid": g, "shapes": [shape_key(*s) for s in grid_shapes(g)], "wattlab_version": prov.get("wattlab_version"),
             "wattlab_commit": prov.get("wattlab_commit"), "started_utc": None, "written_utc": prov.get("written_utc"),
             "load1": prov.get("load1"), "tally": prov.get("this_invocation"), "older_format": True}]


def stored_shapes(out: Path) -> list[dict]:
    """Every shape the directory's records hold, rate-major: its key and axes, the verified
    live runs, the failed live runs, the simulations."""
    shapes: dict[str, dict] = {}
    for path in sorted((Path(out) / RECORDS).glob("*.json")):
        rec = read_record(path)
        if rec is None or not rec.get("shape") or rec.get("rate_mbps") is None:
            continue
        s = shapes.setdefault(rec["shape"], {"key": rec["shape"], "rate_mbps": float(rec["rate_mbps"]),
                                             "rtt_ms": float(rec["rtt_ms"]), "loss_pct": float(rec["loss_pct"]),
                                             "live_verified": 0, "live_failed": 0, "sim": 0})
        if rec["side"] == "sim":
            s["sim"] += 1
        else:
            s["live_verified" if rec.get("verified") else "live_failed"] += 1
    return sorted(shapes.values(), key=lambda s: (s["rate_mbps"], s["rtt_ms"], s["loss_pct"]))


def directory_shapes(out: Path) -> set[tuple[float, float, float]]:
    """(rate, RTT, loss) of every shape an earlier invocation into ``out`` ran or a stored
    record holds."""
    shapes = {s for inv in invocations(read(out)) for s in grid_shapes(inv.get("grid") or {})}
    return shapes | {(s["rate_mbps"], s["rtt_ms"], s["loss_pct"]) for s in stored_shapes(out)}


def merged(out: Path, this: dict) -> dict:
    """The directory's provenance keys that span invocations: ``invocations`` (the earlier
    ones, then ``this``) and ``shapes`` (:func:`stored_shapes`)."""
    return {"invocations": [*invocations(read(out)), this], "shapes": stored_shapes(out)}
