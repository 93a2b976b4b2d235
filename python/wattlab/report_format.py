"""HTML tables for ``wattlab report``: each column formatted on its own (its unit from the units
table, scaled to a readable prefix, one number of decimals for the whole column), headers with
the readable name and unit over the column's own name, and provenance as a key/value table."""

from __future__ import annotations

import html
import json
import math
from typing import Any, Mapping

import pandas as pd

from wattlab import units

SIGNIFICANT = 4
"""Significant digits of a column's largest value; every value of the column gets as many
decimals as that one needs."""

IDENTIFIERS = ("port", "seed", "id", "connection", "index", "node_id")
"""Integer columns that name something (a port, a seed): written without thousands separators."""

SIGNED = {"saving", "slowdown"}
"""Columns shown with a sign (+46.0 %): a change against a baseline."""

MISSING = "—"
"""What a missing number (NaN, None) shows."""

REASON_WORDS = ("reason", "why", "note", "unequal", "incomplete")
"""A text column whose name holds one of these says why a saving is missing; its text is shown
beside the "—"."""


def is_number(values: pd.Series) -> bool:
    """Whether a column holds numbers (not booleans)."""
    return pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values)


def column_cells(name: str, values: pd.Series, disp: units.Display | None = None) -> tuple[str, list[str]]:
    """The header (readable name and unit) and the cells of one column (``disp``: the unit to
    show it in; default chosen from its values)."""
    if pd.api.types.is_bool_dtype(values):
        return units.describe(name).name, [MISSING if _missing(v) else ("yes" if v else "no") for v in values]
    if not pd.api.types.is_numeric_dtype(values):
        return units.describe(name).name, ["" if _missing(v) else str(v) for v in values]
    if "." in name and units.describe(name).unit is None:  # a parameter's values: as many decimals as they have
        vals = values.astype("float64")
        finite = vals[vals.map(math.isfinite)]
        decimals = next((d for d in range(7) if (finite.round(d) == finite).all()), 6)
        return units.describe(name).name, [MISSING if not math.isfinite(v) else f"{v:.{decimals}f}" for v in vals]
    header, auto = units.label(name, values.dropna())
    if disp is not None:
        header, auto = units.describe(name).name + disp.suffix(), disp
    disp = auto
    scaled = values.astype("float64") * disp.factor
    finite = scaled[scaled.map(math.isfinite)]
    if disp.unit == "%":
        decimals = 1
    elif len(finite) and (finite == finite.round()).all() and disp.factor == 1:
        decimals = 0
    else:
        decimals = decimals_for(finite)
    sign = "+" if name in SIGNED else ""
    if decimals == 0 and name.endswith(IDENTIFIERS):
        return header, [MISSING if not math.isfinite(v) else f"{v:.0f}" for v in scaled]
    if decimals is None:  # every value below 10^-3 in a unit without smaller prefixes
        return header, [MISSING if not math.isfinite(v) else f"{v:{sign}.{SIGNIFICANT - 1}e}" for v in scaled]
    return header, [MISSING if not math.isfinite(v) else f"{v:{sign},.{decimals}f}" for v in scaled]


def decimals_for(values: pd.Series) -> int | None:
    """Decimals giving the largest magnitude :data:`SIGNIFICANT` significant digits (0 to 6);
    None if it is below 10^-3 (the column is then written in scientific notation)."""
    mags = values.abs()
    mags = mags[mags > 0]
    if not len(mags):
        return 0
    top = float(mags.max())
    if top < 1e-3:
        return None
    return max(0, min(6, SIGNIFICANT - 1 - math.floor(math.log10(top))))


def table(df: pd.DataFrame, bad: pd.Series | None = None, max_rows: int = 200) -> str:
    """``df`` as an HTML table (escaped, formatted per column), rows where ``bad`` is true
    highlighted, a missing saving shown as "—" with the reason its row gives."""
    shown = df.head(max_rows)
    heads, cols = [], []
    shared = units.shared_displays({str(c): shown[c].dropna() for c in shown.columns if is_number(shown[c])})
    for c in shown.columns:
        head, cells = column_cells(str(c), shown[c], shared.get(str(c)))
        heads.append(_header(head, str(c)))
        cols.append(cells)
    reason = next((c for c in shown.columns if any(w in str(c) for w in REASON_WORDS) and not is_number(shown[c])), None)
    if "saving" in shown.columns and reason is not None:
        i = list(shown.columns).index("saving")
        cols[i] = [f"{MISSING} ({r})" if cell == MISSING and not _missing(r) else cell
                   for cell, r in zip(cols[i], shown[reason])]
    out = ['<div class="wide"><table><tr>' + "".join(heads) + "</tr>"]
    for r in range(len(shown)):
        cls = ' class="bad"' if bad is not None and bool(bad.iloc[r]) else ""
        out.append(f"<tr{cls}>" + "".join(f"<td>{html.escape(col[r])}</td>" for col in cols) + "</tr>")
    out.append("</table></div>")
    if len(df) > max_rows:
        out.append(f"<p>… {len(df) - max_rows} more rows in the table's file.</p>")
    return "".join(out)


def _header(head: str, column: str) -> str:
    """A header cell: the readable name and unit, the column's own name under it when they differ."""
    raw = f'<br><code class="col">{html.escape(column)}</code>' if head != column else ""
    return f"<th>{html.escape(head)}{raw}</th>"


def _missing(v: Any) -> bool:
    return v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v))


def value_text(v: Any) -> str:
    """One provenance value as text: a list comma-separated, a number as written, a table as
    ``key = value`` pairs."""
    if isinstance(v, bool):
        return "yes" if v else "no"
    if v is None:
        return MISSING
    if isinstance(v, float):
        return f"{v:g}"
    if isinstance(v, (list, tuple)):
        if all(isinstance(x, (str, int, float, bool)) for x in v):
            return ", ".join(value_text(x) for x in v) if v else MISSING
        return json.dumps(v, default=str)
    if isinstance(v, Mapping):
        return "; ".join(f"{k} = {value_text(x)}" for k, x in v.items()) if v else MISSING
    return str(v)


def key_values(doc: Mapping[str, Any], css: str = "prov") -> str:
    """A two-column table of ``doc``: one row per key, nested tables flattened to dotted keys
    (``options.policies``), lists comma-separated."""
    rows = []
    for k, v in flatten(doc).items():
        rows.append(f"<tr><th>{html.escape(k)}</th><td>{html.escape(value_text(v))}</td></tr>")
    return f'<table class="{css}">{"".join(rows)}</table>'


def flatten(doc: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """``{"a": {"b": 1}}`` → ``{"a.b": 1}`` (an empty table stays a value)."""
    out: dict[str, Any] = {}
    for k, v in doc.items():
        key = f"{prefix}{k}"
        if isinstance(v, Mapping) and v:
            out.update(flatten(v, key + "."))
        else:
            out[key] = v
    return out


def measured(doc: Mapping[str, Any]) -> str:
    """A two-column table of measured values: each key's readable name, its value formatted in
    its unit (``transfer_time_s`` → "transfer time", "8.940 s")."""
    rows = []
    for k, v in doc.items():
        name = units.describe(k.rsplit(".", 1)[-1]).name
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            head, cells = column_cells(k.rsplit(".", 1)[-1], pd.Series([v]))
            unit = head[len(name):].strip(" ()")
            shown = f"{cells[0]} {unit}".strip()
        else:
            shown = value_text(v)
        rows.append(f"<tr><th>{html.escape(name)}</th><td>{html.escape(shown)}</td></tr>")
    return f'<table class="prov">{"".join(rows)}</table>'
