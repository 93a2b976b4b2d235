"""``wattlab report DIR``: a self-contained HTML page (figures as embedded PNG, tables,
provenance, incomplete runs flagged) on any folder wattlab writes: a run (``wattlab run
--out``), a sweep (``wattlab sweep --out``), a reproduction (``wattlab reproduce ... --out``), a
trace analysis (``wattlab trace energy --out``), a live run (``wattlab live run --out``) or a
live comparison (``wattlab live compare --out``).
It opens offline: no script, no link outside the file. Any other folder is refused
(:class:`ReportError`, one line).

Figures are drawn by :mod:`wattlab.report_figures` (labels from the units table, one colour per
category across the page), tables formatted per column by :mod:`wattlab.report_format`.
"""

from __future__ import annotations

import base64
import html
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from wattlab import _core
from wattlab import markdown as mdtable
from wattlab import report_figures as rf
from wattlab import units
from wattlab.report_format import key_values, measured, table

STYLE = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 1100px; color: #222; padding: 0 1em; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: .5em 0 1em; font-size: 12px; }
th, td { padding: 2px 8px; border-bottom: 1px solid #eee; text-align: right; }
th { background: #f4f4f4; vertical-align: bottom; } td:first-child, th:first-child { text-align: left; }
th code.col { font-weight: normal; color: #777; font-size: 10px; }
.bad { background: #fde2e2; } .ok { color: #176b2c; } .warn { color: #a33; font-weight: bold; }
figure { margin: 1em 0; } figcaption { color: #555; font-size: 12px; }
img { max-width: 100%; border: 1px solid #eee; }
.prov th { text-align: left; font-weight: normal; color: #555; }
.prov td { text-align: left; font-family: ui-monospace, monospace; word-break: break-all; }
.wide { overflow-x: auto; } pre { white-space: pre-wrap; } .md td { text-align: left; vertical-align: top; }
"""

RUN_COLUMNS = {"run_key", "run_status", "run_completed", "run_time_limit_hit", "wattlab_version", "wattlab_commit",
               "study_hash", "scenario_hash", "seed"}
"""Columns of a study's tables that say which run a row is from, not what it measured."""

STATE_PARTS = tuple((s.replace("_", " "), f"energy_{s}_j") for s in reversed(_core.radio_states()))
"""Radio states, busiest first (the core's, ``_core.radio_states()``), and their energy columns
(radios and trace energy tables)."""


class ReportError(ValueError):
    """The folder is not one wattlab wrote, or a file in it cannot be read: one line, naming it."""


@dataclass
class Page:
    """A report: its title, HTML body and a record of every figure drawn."""

    kind: str
    title: str
    body: str
    figures: list[rf.Drawn] = field(default_factory=list)

    def html(self) -> str:
        """The whole HTML document."""
        t = html.escape(self.title)
        return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{t}</title>"
                f"<style>{STYLE}</style></head><body>\n<h1>{t}</h1>\n{self.body}\n</body></html>\n")


def kind_of(d: Path) -> str:
    """What ``d`` holds: ``sweep``, ``run``, ``trace``, ``live``, ``live-compare`` or
    ``reproduction``; :class:`ReportError` for anything else."""
    if (d / "study.json").is_file():
        if "study_hash" not in read_json(d / "study.json"):
            raise ReportError(f"{d / 'study.json'}: not a study wattlab sweep wrote (no study_hash)")
        return "sweep"
    if (d / "summary.json").is_file():
        s = read_json(d / "summary.json")
        if s.get("mode") == "live" and "plan" in s:
            return "live"
        if {"capture", "policies"} <= set(s):
            return "trace"
        if {"flows", "radios", "end_time_s", "provenance"} <= set(s):
            return "run"
        raise ReportError(f"{d / 'summary.json'}: not a summary of wattlab run, trace energy or live run "
                          f"(its keys: {', '.join(list(s)[:8])}): nothing to report on")
    if (d / "compare.csv").is_file() and _compared_runs(d):
        return "live-compare"
    if (d / "config.json").is_file():
        cfg = read_json(d / "config.json")
        if "wattlab_version" not in cfg.get("provenance", {}):
            raise ReportError(f"{d / 'config.json'}: not a reproduction's configuration (no provenance.wattlab_version)")
        return "reproduction"
    raise ReportError(f"{d}: not a folder wattlab writes (no study.json, summary.json, config.json or compare.csv): "
                      "nothing to report on")


def read_json(path: Path) -> dict:
    """A JSON object from ``path``, or :class:`ReportError` naming the file and the line."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise ReportError(f"{path}:{e.lineno}:{e.colno}: not valid JSON: {e.msg}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ReportError(f"{path}: cannot read it: {e}") from None
    if not isinstance(doc, dict):
        raise ReportError(f"{path}: a JSON object was expected, not {type(doc).__name__}")
    return doc


def read_table(d: Path, name: str) -> pd.DataFrame | None:
    """Table ``name`` of folder ``d`` (``NAME.parquet`` or ``NAME.csv``), None if neither is
    there; :class:`ReportError` naming the file if it cannot be read."""
    for ext in ("parquet", "csv"):
        path = d / f"{name}.{ext}"
        if path.is_file():
            try:
                return pd.read_parquet(path) if ext == "parquet" else pd.read_csv(path)
            except Exception as e:  # pyarrow's and pandas' errors have no common base
                raise ReportError(f"{path}: cannot read the table: {str(e).splitlines()[0] if str(e) else type(e).__name__}") from None
    return None


def render(d: str | Path) -> Page:
    """The report on folder ``d``."""
    d = Path(d)
    kind = kind_of(d)
    page = Page(kind, "", "")
    palette = rf.Palette()
    page.title, page.body = {"sweep": _sweep, "run": _run, "trace": _trace, "live": _live, "live-compare": _live_compare,
                             "reproduction": _reproduction}[kind](d, page, palette)
    return page


def build(d: str | Path) -> str:
    """The report on folder ``d`` as one HTML document."""
    return render(d).html()


def write(d: str | Path, out: str | Path | None = None) -> Path:
    """Write the report on ``d`` to ``out`` (default ``d/report.html``); returns the path."""
    text = build(d)
    path = Path(out) if out is not None else Path(d) / "report.html"
    path.write_text(text, encoding="utf-8")
    return path


def _drawn(page: Page, made: tuple[str, rf.Drawn]) -> str:
    page.figures.append(made[1])
    return made[0]


def _constant_text(df: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """``df`` without its text columns that hold one value in every row (or a long text in its
    one row), and those as ``column: value`` lines (a table says them once)."""
    lines, keep = [], []
    for c in df.columns:
        s = df[c]
        if len(df) and isinstance(s.iloc[0], str) and s.nunique(dropna=False) == 1 and (len(df) > 1 or len(s.iloc[0]) > 30):
            lines.append(f"{c}: {s.iloc[0]}")
        else:
            keep.append(c)
    return df[keep], lines


def _savings(df: pd.DataFrame, by: list[str]) -> str:
    """The savings table: per point (``by``), each number's mean over the completed runs (a
    point where one run has no saving has none: "—", with the reason), text said once."""
    df = df[df["run_completed"]] if "run_completed" in df else df
    if not len(df):
        return "<p>No completed run has a savings row.</p>"
    drop = [c for c in df.columns if c in RUN_COLUMNS or _companion(c, df)]
    df = df.drop(columns=drop)
    if by:
        keys = [c for c in by if c in df.columns] + [c for c in ("node", "mode") if c in df.columns]
        nums = [c for c in df.columns if c not in keys and pd.api.types.is_numeric_dtype(df[c]) and not pd.api.types.is_bool_dtype(df[c])]
        texts = [c for c in df.columns if c not in keys and c not in nums]
        agg = {**{c: (lambda s: s.mean(skipna=False)) for c in nums}, **{c: (lambda s: "; ".join(dict.fromkeys(map(str, s.dropna())))) for c in texts}}
        g = df.groupby(keys, sort=False, dropna=False)
        means = g.agg(agg).reset_index()
        means.insert(len(keys), "runs", g.size().to_numpy())
        df = means
    df, said = _constant_text(df)
    intro = "".join(f"<p>{html.escape(line)}</p>" for line in said)
    means = " Means over the completed runs of each point." if by else ""
    return (intro + "<p>Saving: 1 − energy / baseline energy, in percent of the baseline's energy; slowdown: completion "
            f"time / baseline completion time − 1.{means}</p>" + table(df))


def _companion(c: str, df: pd.DataFrame) -> bool:
    """Whether ``c`` is the numeric column beside a parameter also in ``df`` (``KEY_s``)."""
    from wattlab.units import QUANTITY_SUFFIX

    return any(c.endswith(s) and c[: -len(s)] in df.columns for s in QUANTITY_SUFFIX.values())


# ---------------------------------------------------------------------------------------------
# A sweep


def _seeds_text(seeds: list) -> str:
    if len(seeds) > 3 and seeds == list(range(seeds[0], seeds[0] + len(seeds))):
        return f"{seeds[0]}–{seeds[-1]} ({len(seeds)} seeds)"
    return ", ".join(map(str, seeds))


def _sweep(d: Path, page: Page, palette: rf.Palette) -> tuple[str, str]:
    study = read_json(d / "study.json")
    name = study.get("name") if study.get("name") not in (None, "", "study") else d.name  # "study": a dict's default
    prov = {"study": name, "study file": study.get("study_file"), "base scenario": study.get("scenario"),
            "scenario SHA-256": study.get("scenario_hash"), "study hash": study.get("study_hash"),
            "wattlab": f"{study.get('wattlab_version')} (commit {study.get('wattlab_commit')})",
            "parameters": study.get("parameters"),
            "fixed overrides": ", ".join(f"{k} = {v}" for k, v in (study.get("fixed") or {}).items()) or None,
            "seeds": _seeds_text(study.get("seeds") or []), "tables": study.get("outputs"), "runs": study.get("runs")}
    parts = ["<h2>Provenance</h2>", key_values(prov)]
    title = f"wattlab sweep: {name}"
    runs = read_table(d, "runs")
    if runs is None:
        parts.append('<p class="warn">The study has not finished (no runs.parquet): run the same wattlab sweep '
                     "command again to complete it, then the report.</p>")
        return title, "\n".join(parts)
    params = [p for p in study.get("parameters", []) if p in runs.columns]
    counts = runs["run_status"].value_counts()
    ok = int(counts.get("completed", 0))
    parts.append("<h2>Runs</h2>")
    cls = "ok" if ok == len(runs) else "warn"
    parts.append(f'<p class="{cls}">{ok} of {len(runs)} runs completed every flow'
                 + "".join(f"; {int(n)} {html.escape(s)}" for s, n in counts.items() if s != "completed") + ".</p>")
    bad = runs[runs["run_status"] != "completed"]
    if len(bad):
        parts.append("<p>Runs that did not complete (left out of the figures and the means below; "
                     "flagged <code>run_completed = False</code> in every table):</p>")
        cols = [c for c in (*params, "seed", "run_status", "end_time_s", "error", "run_key") if c in bad.columns]
        parts.append(table(bad[cols], bad=pd.Series([True] * len(bad))))
    tables: dict[str, pd.DataFrame | None] = {}

    def get(name: str) -> pd.DataFrame | None:
        if name not in tables:
            tables[name] = read_table(d, name)
        return tables[name]

    seeds = len(study.get("seeds") or [])
    if study.get("figures"):
        parts.append("<h2>Figures</h2>")
        parts.extend(_study_figure(get, f, seeds, page, palette) for f in study["figures"])
    savings = get("savings") if "savings" in study.get("outputs", []) else None
    if savings is not None and len(savings):
        parts.append("<h2>Savings</h2>")
        parts.append(_savings(savings, params))
    radios = get("radios")
    if radios is not None and params and len(radios):
        done = radios[radios["run_completed"]]
        if len(done):
            parts.append("<h2>Radio energy</h2>")
            if not study.get("figures"):
                parts.append(_energy_figure(radios, done, params, seeds, page, palette))
            means = (done.groupby([*params, "node", "policy"], sort=False)["energy_j"]
                     .agg(["mean", "std", "count"]).reset_index()
                     .rename(columns={"mean": "energy_j", "std": "energy_std_j", "count": "runs"}))
            parts.append("<p>Mean energy over the completed runs of each point, with its standard deviation.</p>")
            parts.append(table(means))
    flows = get("flows")
    if flows is not None and params and len(flows) and "completion_time_s" in flows:
        done = flows[flows["run_completed"]]
        if len(done):
            parts.append("<h2>Flows</h2>")
            means = (done.groupby([*params, "name"], sort=False)[["completion_time_s", "goodput_bps"]]
                     .mean().reset_index())
            parts.append("<p>Means over the completed runs of each point.</p>")
            parts.append(table(means))
    files = sorted(p.name for p in d.glob("*.parquet"))
    parts.append(f"<p>{ok} completed runs; the tables are in {html.escape(str(d))} ({', '.join(files)}).</p>")
    return title, "\n".join(parts)


def _study_figure(get, f: dict, seeds: int, page: Page, palette: rf.Palette) -> str:
    """A figure the study file names (``[[figure]]``), drawn from the completed runs' rows of
    its table; a paragraph saying what is wrong instead if a column is missing or no row is left."""
    title = f.get("title") or f"{f['y']} against {f['x']}"
    full = get(f["table"])
    if full is None:
        return f'<p class="warn">Figure “{html.escape(title)}”: no {html.escape(f["table"])}.parquet in the folder.</p>'
    where = f.get("where") or {}
    cols = [c for c in (f["x"], f["y"], f.get("hue"), f.get("facet"), *rf.where_columns(where)) if c]
    missing = [c for c in cols if c not in full.columns]
    if missing:
        return (f'<p class="warn">Figure “{html.escape(title)}”: {f["table"]} has no column '
                f'{", ".join(html.escape(repr(c)) for c in missing)} (it has: {html.escape(", ".join(map(str, full.columns)))}).</p>')
    df = full[full["run_completed"]] if "run_completed" in full else full
    df = df[rf.where_mask(df, where)]
    if not len(df) or not pd.api.types.is_numeric_dtype(df[f["y"]]):
        why = "no completed row matches" if not len(df) else f"{f['y']} is not numeric"
        return f'<p class="warn">Figure “{html.escape(title)}”: {html.escape(why)}.</p>'
    return _drawn(page, rf.draw(full, df, f, palette, seeds))


def _energy_figure(full: pd.DataFrame, done: pd.DataFrame, params: list[str], seeds: int, page: Page, palette: rf.Palette) -> str:
    """Without figures in the study: mean energy against the parameter with the most values,
    one line per value of the other parameters × radio policy or mode."""
    x = max(params, key=lambda p: full[p].nunique())
    others = [p for p in params if p != x]

    def series(df: pd.DataFrame) -> pd.DataFrame:
        keys = [*others, "policy"]
        return df.assign(series=df[keys].astype(str).agg(", ".join, axis=1))

    spec = {"x": x, "y": "energy_j", "hue": "series", "table": "radios",
            "title": f"Radio energy against {units.describe(x).name}"}
    html_, drawn = rf.draw(series(done), series(done), spec, palette, seeds)  # colours for the lines drawn only
    page.figures.append(drawn)
    return html_


# ---------------------------------------------------------------------------------------------
# A run


def _run(d: Path, page: Page, palette: rf.Palette) -> tuple[str, str]:
    s = read_json(d / "summary.json")
    prov = s.get("provenance", {})
    parts = ["<h2>Provenance</h2>", key_values(prov)]
    not_done = [f["name"] for f in s.get("flows", []) if not f.get("completed")]
    if s.get("completed") and not not_done:
        parts.append(f'<p class="ok">Every flow completed; simulated {s["end_time_s"]:.3f} s, {s["events"]:,} events.</p>')
    elif s.get("completed"):
        # The run's `completed` covers sized flows only: a stream that lost datagrams or a
        # background flow ends with the run without being complete.
        parts.append(f'<p class="warn">The run ended by itself at {s["end_time_s"]:.3f} s ({s["events"]:,} events), '
                     f'but not every flow completed: {html.escape(", ".join(not_done))} '
                     "(a stream that lost datagrams, or a flow the run's end cut off).</p>")
    else:
        parts.append(f'<p class="warn">Not every flow completed before the time limit ({s["end_time_s"]:.3f} s): '
                     "the results cover that time only.</p>")
    flows = pd.DataFrame(s["flows"])
    if len(flows):
        parts.append("<h2>Flows</h2>")
        keep = [c for c in ("name", "kind", "bytes_delivered", "completed", "completion_time_s", "goodput_bps",
                            "retransmitted_segments", "timeouts") if c in flows]
        parts.append(table(flows[keep], bad=~flows["completed"].astype(bool) if "completed" in flows else None))
    radios = read_table(d, "radios")
    if radios is not None and len(radios):
        parts.append("<h2>Radio energy</h2>")
        labels = [f"{r.node} {r.policy}" for r in radios.itertuples()]
        caption = ("Radio energy per state and in state transitions, per radio and accounting policy or power mode "
                   "(each bar ends at the radio's energy)")
        parts.append(_drawn(page, rf.state_bars(radios, labels, [*STATE_PARTS, ("transitions", "transition_energy_j")],
                                                palette, caption)))
        parts.append(table(radios[[c for c in ("node", "profile", "policy", "basis", "energy_j", "transition_energy_j",
                                               "transitions", "duration_s") if c in radios]]))
    savings = read_table(d, "savings")
    if savings is not None and len(savings):
        parts.append("<h2>Savings</h2>")
        parts.append(_savings(savings, []))
        if (d / "baseline").is_dir():
            parts.append("<p>The baseline run's own tables are in <code>baseline/</code>.</p>")
    name = s.get("scenario") or Path(str(prov.get("scenario") or d.name)).stem
    return f"wattlab run: {name} (seed {s.get('seed')})", "\n".join(parts)


# ---------------------------------------------------------------------------------------------
# A trace analysis, a live run


CAPTURE_KEYS = ("path", "format", "client", "choice", "records", "ip_packets", "packets_up", "packets_down",
                "bytes_up", "bytes_down", "airtime", "foreign_packets", "oversize_packets")
"""What the trace report says about the capture (the rest is in summary.json)."""


def _trace_section(d: Path, s: dict, page: Page, palette: rf.Palette, heading: int = 2) -> list[str]:
    """The capture, the energy per policy (figure and table) and the connections' attribution."""
    h = f"h{heading}"
    cap = s.get("capture", {})
    parts = [f"<{h}>Capture</{h}>", measured({k: cap[k] for k in CAPTURE_KEYS if k in cap}
                                              | {"duration_s": (cap.get("end_ns", 0) - cap.get("start_ns", 0)) / 1e9})]
    for w in s.get("warnings", []):
        parts.append(f'<p class="warn">{html.escape(str(w))}</p>')
    for n in s.get("notes", []):
        parts.append(f"<p>{html.escape(str(n))}</p>")
    prof = s.get("profile", {})
    if prof:
        parts.append(f"<p>Device profile <b>{html.escape(str(prof.get('name')))}</b>: "
                     + html.escape(", ".join(f"{k} {v:g} mW" for k, v in prof.get("power_mw", {}).items()))
                     + (f". Source: {html.escape(str(prof['source']))}" if prof.get("source") else "") + "</p>")
    energy = pd.DataFrame(s.get("policies", []))
    if len(energy):
        parts.append(f"<{h}>Energy per policy</{h}>")
        caption = "Radio energy per state and in state transitions, per power policy (each bar ends at the policy's energy)"
        parts.append(_drawn(page, rf.state_bars(energy, list(energy["policy"]),
                                                [*STATE_PARTS, ("transitions", "energy_transitions_j")], palette, caption)))
        cols = [c for c in ("policy", "energy_j", "vs_always_on", "avg_power_mw", "duration_s", "transitions",
                            "energy_transitions_j", "beacons") if c in energy]
        parts.append(table(energy[cols]))
    attr = read_table(d, "attribution")
    conns = read_table(d, "connections")
    if attr is not None and len(attr):
        parts.append(f"<{h}>Energy per connection</{h}>")
        if conns is not None and "id" in conns:
            peer = [c for c in ("proto", "remote", "remote_port", "local_port") if c in conns]
            attr = attr.merge(conns[["id", *peer]].rename(columns={"id": "connection"}), on="connection", how="left")
        attr = attr[attr["total_j"] > 0]
        top = attr.sort_values("total_j", ascending=False).groupby("policy", sort=False).head(10)
        top = top.sort_values("policy", key=lambda s: s.map({p: i for i, p in enumerate(energy.get("policy", []))}), kind="stable")
        parts.append("<p>The ten connections that caused the most energy under each policy (own: its frames and the "
                     "wake-ups they needed; tail: the radio after them until the next frame).</p>")
        parts.append(table(top.reset_index(drop=True)))
    png = d / "timeline.png"
    if png.is_file():
        parts.append(rf.html_figure(base64.b64encode(png.read_bytes()).decode(), "timeline.png: each policy's radio state over the capture"))
    return parts


def _trace(d: Path, page: Page, palette: rf.Palette) -> tuple[str, str]:
    s = read_json(d / "summary.json")
    parts = ["<h2>Provenance</h2>", key_values(s.get("provenance", {})), *_trace_section(d, s, page, palette)]
    capture = Path(str(s.get("capture", {}).get("path") or d.name)).name
    return f"wattlab trace energy: {capture}", "\n".join(parts)


LIVE_RESULT_KEYS = ("verified", "closed", "transfer_time_s", "goodput_bps", "energy_j", "awake_s", "awake_fraction",
                    "wakes", "window_s", "host_late_max_ms", "wall_time_s")
"""The live summary's top-level results the report lists."""


def _live(d: Path, page: Page, palette: rf.Palette, heading: int = 2) -> tuple[str, str]:
    h = f"h{heading}"
    s = read_json(d / "summary.json")
    plan = s.get("plan", {})
    prov = {k: plan[k] for k in ("scenario", "kind", "policy", "seed", "overrides", "profile", "bytes") if plan.get(k) not in (None, "", 0)}
    energy_dir = d / "energy"
    energy = read_json(energy_dir / "summary.json") if (energy_dir / "summary.json").is_file() else s.get("energy") or {}
    if energy.get("provenance"):
        ver = energy["provenance"]
        prov["wattlab"] = f"{ver.get('wattlab_version')} (commit {ver.get('commit')}), which costed the capture"
    parts = [f"<{h}>Provenance</{h}>", key_values(prov),
             "<p>The run's whole plan (paths, TCP settings, rates) is in <code>plan.json</code>; each process's report "
             "in its own JSON file.</p>"]
    verified = s.get("verified")
    parts.append(f'<p class="{"ok" if verified else "warn"}">'
                 + ("The client received every byte, intact (length and SHA-256 as expected)." if verified else
                    "The client's data was NOT verified (length or SHA-256 differ from the server's): see summary.json.")
                 + "</p>")
    for w in s.get("warnings", []):
        parts.append(f'<p class="warn">{html.escape(str(w))}</p>')
    for n in s.get("notes", []):
        parts.append(f"<p>{html.escape(str(n))}</p>")
    results = {k: s[k] for k in LIVE_RESULT_KEYS if k in s and s[k] is not None}
    for sub in ("psna", "wwp"):
        if isinstance(s.get(sub), dict):
            results.update({f"{sub}.{k}": v for k, v in s[sub].items() if not isinstance(v, (dict, list))})
    if results:
        parts.append(f"<{h}>Result</{h}>")
        parts.append(measured(results))
    if isinstance(s.get("flows"), list) and s["flows"]:
        parts.append(f"<{h}>Flows</{h}>")
        flows = pd.DataFrame(s["flows"])
        parts.append(table(flows[[c for c in flows.columns if "sha256" not in c]]))  # digests: in summary.json
    if energy:
        parts.extend(_trace_section(energy_dir if energy_dir.is_dir() else d, energy, page, palette, heading))
    title = f"wattlab live run: {plan.get('scenario', d.name)}" + (f" ({plan['policy']})" if plan.get("policy") else "")
    return title, "\n".join(parts)


def _compared_runs(d: Path) -> list[Path]:
    """The live runs of a ``wattlab live compare --out`` folder (``live-always-on``, ``live-cc``)."""
    return sorted(p.parent for p in d.glob("live-*/summary.json"))


def _live_compare(d: Path, page: Page, palette: rf.Palette) -> tuple[str, str]:
    try:
        table_ = pd.read_csv(d / "compare.csv")
    except Exception as e:  # pandas' parser errors have no common base
        raise ReportError(f"{d / 'compare.csv'}: cannot read the table: {e}") from None
    parts = ["<h2>Simulated and live</h2>",
             "<p>Each mode's saving is against its own always-on run (the simulator's against the simulator's, "
             "the testbed's against the testbed's).</p>", table(table_)]
    scenario = d.name
    for run in _compared_runs(d):
        title, body = _live(run, page, palette, heading=3)
        scenario = read_json(run / "summary.json").get("plan", {}).get("scenario", scenario)
        parts += [f"<h2>{html.escape(run.name)}: {html.escape(title)}</h2>", body]
    return f"wattlab live compare: {scenario}", "\n".join(parts)


# ---------------------------------------------------------------------------------------------
# A reproduction


def _reproduction(d: Path, page: Page, palette: rf.Palette) -> tuple[str, str]:
    cfg = read_json(d / "config.json")
    parts = ["<h2>Provenance</h2>", key_values(cfg.get("provenance", {}))]
    title = f"wattlab reproduce: {d.name}"
    for md in sorted(d.glob("*.md")):
        text = md.read_text(errors="replace")
        m = re.search(r"^#\s+(.+)\n?", text, re.M)
        if m and title.endswith(d.name):  # the first summary's heading titles the page, once
            title = m.group(1).strip().replace("**", "").replace("`", "")
            text = text[: m.start()] + text[m.end():]
        parts.append(f'<div class="md">{markdown(text)}</div>')
    for txt in sorted(d.glob("*.txt")):
        parts.append(f"<h2>{html.escape(txt.name)}</h2><pre>{html.escape(txt.read_text(errors='replace'))}</pre>")
    for png in sorted(d.rglob("*.png")):
        parts.append(rf.html_figure(base64.b64encode(png.read_bytes()).decode(), str(png.relative_to(d))))
    parts.append("<h2>Parameters</h2>" + key_values({k: v for k, v in cfg.items() if k != "provenance"}))
    return title, "\n".join(parts)


def _inline(text: str) -> str:
    """Escaped text with markdown's **bold** and `code`."""
    out = html.escape(text)
    out = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", out)
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", out)


def markdown(text: str) -> str:
    """The markdown of the reproductions' summaries as HTML: headings, tables, lists and
    paragraphs (everything escaped; no link is made)."""
    out, para, rows = [], [], []

    def flush() -> None:
        if para:
            out.append("<p>" + _inline(" ".join(para)) + "</p>")
            para.clear()
        if rows:
            cells = [mdtable.split_row(r) for r in rows if not mdtable.is_rule(r)]
            head, body = cells[0], cells[1:]
            out.append("<table><tr>" + "".join(f"<th>{_inline(c)}</th>" for c in head) + "</tr>"
                       + "".join("<tr>" + "".join(f"<td>{_inline(c)}</td>" for c in r) + "</tr>" for r in body) + "</table>")
            rows.clear()

    for line in text.splitlines():
        if line.startswith("|"):
            if para:
                flush()
            rows.append(line)
            continue
        if rows:
            flush()
        m = re.match(r"^(#{1,6})\s+(.*)", line)
        if m:
            flush()
            level = min(6, len(m.group(1)) + 1)
            out.append(f"<h{level}>{_inline(m.group(2))}</h{level}>")
        elif not line.strip():
            flush()
        elif re.match(r"^\s*[-*] ", line):
            flush()
            out.append("<ul><li>" + _inline(re.sub(r"^\s*[-*] ", "", line)) + "</li></ul>")
        else:
            para.append(line.strip())
    flush()
    return "\n".join(out)
