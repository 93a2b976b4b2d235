"""``wattlab run SCENARIO --compare KEY=V1,V2,...``: the same scenario and seed under several
values of one key, side by side, with each value's saving and slowdown against the first (a
saving is only meaningful against the same traffic without the scheme, and only where the
value did the first one's work: ``wattlab.work``)."""

from __future__ import annotations

from typing import Iterable

from wattlab import _core, api, work


def split_values(spec: str) -> tuple[str, list[str]]:
    """``KEY=V1,V2,...`` as the key and the values (TOML literals or bare words, as ``--set``
    reads them); commas inside brackets, braces or quotes do not split."""
    if "=" not in spec:
        raise ValueError(f"--compare {spec}: expected KEY=V1,V2,... (e.g. wireless.wlan.power_save=cam,psm,cc)")
    key, raw = spec.split("=", 1)
    key = key.strip()
    values, depth, quote, cur = [], 0, None, ""
    for ch in raw:
        if quote:
            quote = None if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 0:
            values.append(cur.strip())
            cur = ""
            continue
        cur += ch
    values.append(cur.strip())
    if not key or any(v == "" for v in values):
        raise ValueError(f"--compare {spec}: an empty key or value")
    if len(values) < 2:
        raise ValueError(f"--compare {spec}: give at least two values to compare")
    return key, values


def compare(scenario, key: str, values: Iterable[str], seed: int | None = None, overrides: Iterable[str] = ()) -> list[dict]:
    """Run ``scenario`` once per value of ``key`` (same seed, same other overrides) and return
    one row per value: energy per radio and per delivered MB (10^6 bytes of the flows with an
    end at it), saving against the first value, completion time and slowdown against the first
    value, goodput and completion, and whether the value did the first one's work
    (``same_work``, ``lost_bytes``, ``lost_datagrams``, ``flows_not_completed``: see
    ``wattlab.work``). Where it did not, its savings and slowdown are None."""
    runs = []
    for v in values:
        res = api.run(scenario, seed=seed, overrides=[*overrides, f"{key}={v}"], baseline=False)
        runs.append((v, res))
    first = runs[0][1].summary
    rows = []
    for v, res in runs:
        # The energy, savings and slowdown against the first value are the core's
        # (wattlab_sim::savings::compare_runs), at equal work.
        c = _core.compare_runs(res.summary, first)
        row = {"key": key, "value": v, "seed": res.summary["seed"], "completed": res.completed, **c["diff"]}
        for node, joules, per_mb, saving in c["nodes"]:
            row[f"energy_j[{node}]"] = joules
            row[f"energy_j_per_mb[{node}]"] = per_mb
            row[f"saving[{node}]"] = saving
        row["completion_s"] = c["completion_s"]
        row["slowdown"] = c["slowdown"]
        row["goodput_bps"] = sum(f.get("goodput_bps") or 0 for f in res.summary["flows"])
        rows.append(row)
    return rows


def print_compare(console, rows: list[dict]) -> None:
    """The rows as a rich table: one line per value, savings against the first."""
    from rich.markup import escape

    from wattlab.report import _fmt_bps, _table
    from wattlab.tables import print_table

    key = rows[0]["key"]
    nodes = [c[len("energy_j["):-1] for c in rows[0] if c.startswith("energy_j[")]
    t = _table(f"{key}: each value against the first ({rows[0]['value']}), same scenario and seed {rows[0]['seed']}")
    t.add_column(key.rsplit(".", 1)[-1], justify="left")  # the title names the whole key
    for n in nodes:
        t.add_column(f"energy {n} (J)", justify="right")
        t.add_column(f"J/MB {n}", justify="right")
        t.add_column(f"saving {n}", justify="right")
    for col in ("time (s)", "slowdown", "goodput", "completed"):
        t.add_column(col, justify="right")
    for i, r in enumerate(rows):
        cells = [escape(str(r["value"]))]
        for n in nodes:
            e = r.get(f"energy_j[{n}]")
            s = r.get(f"saving[{n}]")
            per_mb = r.get(f"energy_j_per_mb[{n}]")
            cells.append("—" if e is None else f"{e:.4f}")
            cells.append("—" if per_mb is None else f"{per_mb:.4g}")
            none = "[bold red]none[/]" if not r["same_work"] else "—"
            cells.append("(base)" if i == 0 else (none if s is None else f"{100 * s:+.1f} %"))
        cells.append(f"{r['completion_s']:.3f}")
        slow = r["slowdown"]
        cells.append("(base)" if i == 0 else ("—" if slow is None else f"{100 * slow:+.1f} %"))
        cells.append(_fmt_bps(r["goodput_bps"]))
        cells.append("yes" if r["completed"] else "[bold red]no[/]")
        t.add_row(*cells)
    lost = [f"{r['value']}: no saving, it did not do the first value's work ({work.describe_loss(r)})"
            for r in rows[1:] if not r["same_work"]]
    if lost:
        t.caption = escape("\n".join([*lost, "J/MB: energy per 10^6 bytes delivered by the node's flows"]))
        t.caption_justify = "left"
    print_table(console, t, keys=1)
