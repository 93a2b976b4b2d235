"""``wattlab report DIR``: a self-contained HTML page (figures as embedded PNG, tables,
provenance, incomplete runs flagged) for a run (``wattlab run --out``), a sweep (``wattlab
sweep --out``) or a reproduction (``wattlab reproduce ... --out``), openable offline: no
script, no link outside the file."""

from __future__ import annotations

import base64
import html
import io
import json
import re
from pathlib import Path

import pandas as pd

STYLE = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 1100px; color: #222; padding: 0 1em; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: .5em 0 1em; font-size: 12px; }
th, td { padding: 2px 8px; border-bottom: 1px solid #eee; text-align: right; }
th { background: #f4f4f4; } td:first-child, th:first-child { text-align: left; }
.bad { background: #fde2e2; } .ok { color: #176b2c; } .warn { color: #a33; font-weight: bold; }
figure { margin: 1em 0; } figcaption { color: #555; font-size: 12px; }
img { max-width: 100%; border: 1px solid #eee; }
.prov td { text-align: left; font-family: ui-monospace, monospace; }
pre { white-space: pre-wrap; } .md td { text-align: left; vertical-align: top; }
"""


def kind_of(d: Path) -> str:
    """What ``d`` holds: ``sweep``, ``run`` or ``reproduction``; ValueError if none."""
    if (d / "study.json").is_file():
        return "sweep"
    if (d / "summary.json").is_file():
        return "run"
    if (d / "config.json").is_file():
        return "reproduction"
    raise ValueError(f"{d}: no study.json (wattlab sweep), summary.json (wattlab run --out) or config.json "
                     "(wattlab reproduce --out): nothing to report on")


def build(d: str | Path) -> str:
    """The report on directory ``d`` as one HTML document."""
    d = Path(d)
    kind = kind_of(d)
    body = {"sweep": _sweep, "run": _run, "reproduction": _reproduction}[kind](d)
    title = html.escape(f"wattlab {kind}: {d.name}")
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{title}</title>"
            f"<style>{STYLE}</style></head><body>\n<h1>{title}</h1>\n{body}\n</body></html>\n")


def write(d: str | Path, out: str | Path | None = None) -> Path:
    """Write the report on ``d`` to ``out`` (default ``d/report.html``); returns the path."""
    path = Path(out) if out is not None else Path(d) / "report.html"
    path.write_text(build(d), encoding="utf-8")
    return path


# ---------------------------------------------------------------------------------------------
# Pieces


def _png(fig) -> str:
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90, bbox_inches="tight")
    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode()


def _figure(b64: str, caption: str) -> str:
    return (f'<figure><img alt="{html.escape(caption)}" src="data:image/png;base64,{b64}">'
            f"<figcaption>{html.escape(caption)}</figcaption></figure>")


def _table(df: pd.DataFrame, bad: pd.Series | None = None, max_rows: int = 200) -> str:
    """An HTML table (escaped), rows where ``bad`` is true highlighted."""
    shown = df.head(max_rows)
    cols = list(shown.columns)
    out = ["<table><tr>" + "".join(f"<th>{html.escape(str(c))}</th>" for c in cols) + "</tr>"]
    for i, (_, row) in enumerate(shown.iterrows()):
        cls = ' class="bad"' if bad is not None and bool(bad.iloc[i]) else ""
        out.append(f"<tr{cls}>" + "".join(f"<td>{html.escape(_fmt(v))}</td>" for v in row) + "</tr>")
    out.append("</table>")
    if len(df) > max_rows:
        out.append(f"<p>… {len(df) - max_rows} more rows in the Parquet/CSV file.</p>")
    return "".join(out)


def _fmt(v) -> str:
    if isinstance(v, float):
        return "" if v != v else f"{v:.6g}"
    return "" if v is None else str(v)


def _prov(doc: dict) -> str:
    rows = "".join(f"<tr><th>{html.escape(str(k))}</th><td>{html.escape(json.dumps(v) if not isinstance(v, str) else v)}</td></tr>"
                   for k, v in doc.items())
    return f'<table class="prov">{rows}</table>'


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


# ---------------------------------------------------------------------------------------------
# A sweep


def _sweep(d: Path) -> str:
    study = json.loads((d / "study.json").read_text())
    parts = ["<h2>Provenance</h2>", _prov({k: study[k] for k in study if k != "fixed"} | {"fixed overrides": study.get("fixed")})]
    runs_path = d / "runs.parquet"
    if not runs_path.is_file():
        parts.append('<p class="warn">The study has not finished (no runs.parquet): run the same wattlab sweep '
                     "command again to complete it, then the report.</p>")
        return "\n".join(parts)
    runs = pd.read_parquet(runs_path)
    params = [p for p in study["parameters"] if p in runs.columns]
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
        parts.append(_table(bad[[*params, "seed", "run_status", "end_time_s", "error", "run_key"]], bad=pd.Series([True] * len(bad))))
    done = runs[runs["run_completed"]]
    if study.get("figures"):
        parts.append("<h2>Figures</h2>")
        parts.extend(study_figure(d, f, len(study.get("seeds") or [])) for f in study["figures"])
    if (d / "radios.parquet").is_file() and params:
        radios = pd.read_parquet(d / "radios.parquet")
        radios = radios[radios["run_completed"]]
        if len(radios):
            parts.append("<h2>Radio energy</h2>")
            if not study.get("figures"):
                parts.append(_energy_figure(radios, params))
            means = (radios.groupby([*params, "node", "policy"], sort=False)["energy_j"]
                     .agg(["mean", "std", "count"]).reset_index())
            parts.append(_table(means))
    if (d / "flows.parquet").is_file() and params:
        flows = pd.read_parquet(d / "flows.parquet")
        flows = flows[flows["run_completed"]]
        if len(flows) and "completion_time_s" in flows:
            parts.append("<h2>Flows</h2>")
            means = (flows.groupby([*params, "name"], sort=False)[["completion_time_s", "goodput_bps"]]
                     .mean().reset_index())
            parts.append(_table(means))
    parts.append(f"<p>{len(done)} completed runs; the tables are in {html.escape(str(d))} "
                 f"({', '.join(sorted(p.name for p in d.glob('*.parquet')))}).</p>")
    return "\n".join(parts)


def _energy_figure(radios: pd.DataFrame, params: list[str]) -> str:
    """Mean energy (± std over seeds) against the first parameter, one line per value of the
    others × radio policy or mode."""
    plt = _plt()
    x = max(params, key=lambda p: radios[p].nunique())  # the parameter with the most values
    others = [p for p in params if p != x]
    fig, ax = plt.subplots(figsize=(8, 4))
    keys = [*others, "policy"]
    for label, g in radios.groupby(keys, sort=False):
        label = label if isinstance(label, tuple) else (label,)
        m = g.groupby(x, sort=False)["energy_j"].agg(["mean", "std"]).reset_index()
        ax.errorbar(m[x].astype(str), m["mean"], yerr=m["std"].fillna(0), marker="o", capsize=3,
                    label=", ".join(str(v) for v in label))
    ax.set(xlabel=x, ylabel="radio energy (J)")
    ax.legend(fontsize=7, ncol=1 + len(ax.lines) // 12, loc="upper left", bbox_to_anchor=(1.01, 1))
    return _figure(_png(fig), f"Radio energy against {x} (mean ± std over seeds; completed runs only)")


def study_figure(d: Path, f: dict, seeds: int) -> str:
    """A figure the study file names (``[[figure]]``: ``x``, ``y``, ``table``, ``hue``, ``facet``,
    ``kind``, ``where``, ``title``), drawn from the completed runs' rows of ``d/TABLE.parquet``;
    a paragraph saying what is wrong instead if a column is missing or no row is left."""
    title = f.get("title") or f"{f['y']} against {f['x']}"
    path = d / f"{f['table']}.parquet"
    if not path.is_file():
        return f'<p class="warn">Figure “{html.escape(title)}”: no {html.escape(path.name)} in {html.escape(str(d))}.</p>'
    df = pd.read_parquet(path)
    df = df[df["run_completed"]] if "run_completed" in df else df
    cols = [c for c in (f["x"], f["y"], f.get("hue"), f.get("facet"), *f.get("where", {})) if c]
    missing = [c for c in cols if c not in df.columns]
    if missing:
        return (f'<p class="warn">Figure “{html.escape(title)}”: {f["table"]} has no column '
                f'{", ".join(html.escape(repr(c)) for c in missing)} (it has: {html.escape(", ".join(map(str, df.columns)))}).</p>')
    for col, want in f.get("where", {}).items():
        df = df[df[col].isin(want if isinstance(want, list) else [want])]
    if not len(df) or not pd.api.types.is_numeric_dtype(df[f["y"]]):
        why = "no completed row matches" if not len(df) else f"{f['y']} is not numeric"
        return f'<p class="warn">Figure “{html.escape(title)}”: {html.escape(why)}.</p>'
    plt = _plt()
    x, y, hue, facet, kind = f["x"], f["y"], f.get("hue"), f.get("facet"), f.get("kind", "line")
    panels = list(dict.fromkeys(df[facet])) if facet else [None]
    fig, axes = plt.subplots(1, len(panels), figsize=(min(16, 1 + 4.2 * len(panels)), 3.6), sharey=True, squeeze=False)
    numeric_x = kind != "bar" and pd.api.types.is_numeric_dtype(df[x]) and not pd.api.types.is_bool_dtype(df[x])
    xs = sorted(df[x].unique()) if numeric_x else list(dict.fromkeys(df[x]))
    hues = list(dict.fromkeys(df[hue])) if hue else [None]
    most = 0
    for ax, panel in zip(axes[0], panels):
        sub = df if facet is None else df[df[facet] == panel]
        for j, h in enumerate(hues):
            g = sub if hue is None else sub[sub[hue] == h]
            label = None if hue is None else str(h)
            if kind == "scatter":
                ax.scatter(g[x] if numeric_x else g[x].map(xs.index), g[y], s=12, alpha=0.7, label=label)
                continue
            m = g.groupby(x, sort=False)[y].agg(["mean", "std", "count"]).reindex(xs).dropna(subset=["mean"])
            most = max(most, int(m["count"].max())) if len(m) else most
            pos = m.index if numeric_x else [xs.index(v) for v in m.index]
            if kind == "bar":
                w = 0.8 / len(hues)
                ax.bar([p - 0.4 + w * (j + 0.5) for p in pos], m["mean"], width=w, yerr=m["std"].fillna(0), capsize=2, label=label)
            else:
                ax.errorbar(pos, m["mean"], yerr=m["std"].fillna(0), marker="o", capsize=3, label=label)
        if not numeric_x:
            ax.set_xticks(range(len(xs)), [str(v) for v in xs], rotation=30 if len(xs) > 6 else 0)
        ax.set(xlabel=x, title=None if facet is None else f"{facet} = {panel}")
    axes[0][0].set_ylabel(y)
    if hue:
        axes[0][-1].legend(title=hue, fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))
    fig.suptitle(title, fontsize=11)
    if kind == "scatter":
        bars = "one point per row"
    else:
        bars = f"mean ± std over up to {most} rows per point"
        bars += f" (the {seeds} seeds)" if most <= seeds else (
            f"; more rows than the {seeds} seeds: each run has several rows here, narrow them with `where`")
    where = ", ".join(f"{k} = {v}" for k, v in f.get("where", {}).items())
    caption = f"{title}: {bars}; completed runs of {f['table']}" + (f" where {where}" if where else "")
    return _figure(_png(fig), caption)


# ---------------------------------------------------------------------------------------------
# A run


def _run(d: Path) -> str:
    from wattlab.api import radio_rows

    s = json.loads((d / "summary.json").read_text())
    parts = ["<h2>Provenance</h2>", _prov(s.get("provenance", {}))]
    if s.get("completed"):
        parts.append(f'<p class="ok">Every flow completed; simulated {s["end_time_s"]:.3f} s, {s["events"]:,} events.</p>')
    else:
        parts.append(f'<p class="warn">Not every flow completed before the time limit ({s["end_time_s"]:.3f} s): '
                     "the results cover that time only.</p>")
    flows = pd.DataFrame(s["flows"])
    parts.append("<h2>Flows</h2>")
    keep = [c for c in ("name", "kind", "bytes_delivered", "completed", "completion_time_s", "goodput_bps",
                        "retransmitted_segments", "timeouts") if c in flows]
    parts.append(_table(flows[keep], bad=~flows["completed"].astype(bool) if "completed" in flows else None))
    radios = pd.DataFrame(radio_rows(s["radios"]))
    if len(radios):
        parts.append("<h2>Radio energy</h2>")
        parts.append(_state_figure(radios))
        parts.append(_table(radios[["node", "profile", "policy", "basis", "energy_j", "duration_s"]]))
    return "\n".join(parts)


def _state_figure(radios: pd.DataFrame) -> str:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(8, 0.5 + 0.45 * len(radios)))
    labels = [f"{r.node} {r.policy}" for r in radios.itertuples()]
    left = [0.0] * len(radios)
    for state in ("tx", "rx", "idle", "idle_high", "sleep", "off"):
        col = f"energy_{state}_j"
        if col in radios and radios[col].sum() > 0:
            ax.barh(labels, radios[col], left=left, label=state)
            left = [a + b for a, b in zip(left, radios[col])]
    ax.set(xlabel="energy (J)")
    ax.legend(fontsize=8)
    return _figure(_png(fig), "Radio energy per state, per radio and accounting policy or power mode")


# ---------------------------------------------------------------------------------------------
# A reproduction


def _reproduction(d: Path) -> str:
    cfg = json.loads((d / "config.json").read_text())
    parts = ["<h2>Provenance</h2>", _prov(cfg.get("provenance", {}))]
    for md in sorted(d.glob("*.md")):
        parts.append(f'<div class="md">{markdown(md.read_text(errors="replace"))}</div>')
    for txt in sorted(d.glob("*.txt")):
        parts.append(f"<h2>{html.escape(txt.name)}</h2><pre>{html.escape(txt.read_text(errors='replace'))}</pre>")
    for png in sorted(d.rglob("*.png")):
        parts.append(_figure(base64.b64encode(png.read_bytes()).decode(), str(png.relative_to(d))))
    parts.append("<h2>Parameters</h2>" + _prov({k: v for k, v in cfg.items() if k != "provenance"}))
    return "\n".join(parts)


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
            cells = [[c.strip() for c in r.strip().strip("|").split("|")] for r in rows if not re.match(r"^\|[-:| ]+\|?$", r.strip())]
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
