"""The figures of ``wattlab report``, drawn as a paper would print them: axis labels from the
units table (:mod:`wattlab.units`), durations, rates and sizes on a numeric axis, one colour per
category across the whole page (:class:`Palette`), a figure title that no panel title overlaps.

Each figure is returned with a :class:`Drawn` record of what it shows, read back from the
matplotlib figure before it is saved: its labels, each series' colour and x values. The page
does not need it; the tests check the figures with it.
"""

from __future__ import annotations

import base64
import html
import io
import math
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import pandas as pd

from wattlab import _core, units

COLOURS = (
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
    "#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173", "#3182bd", "#e6550d", "#31a354", "#756bb1", "#636363",
)
"""Category colours, in the order categories are met on a page: matplotlib's ``tab10``, then the
dark shades of ``tab20b``/``tab20c``."""


TRANSITION_COLOUR = "#937860"
"""State transitions' colour in the energy-per-state bars (the states' are the timeline's,
``trace_plot.STATE_COLOR``)."""


@dataclass
class Drawn:
    """What a figure shows, read back from matplotlib before it was saved."""

    title: str
    xlabel: str
    ylabel: str
    panels: list[str] = field(default_factory=list)
    """Panel titles (facets), left to right."""
    colours: dict[str, str] = field(default_factory=dict)
    """Each legend entry's colour (``#rrggbb``)."""
    x: dict[str, list[float]] = field(default_factory=dict)
    """Each series' x positions (all panels, left to right), in the axis' unit."""
    y: dict[str, list[float]] = field(default_factory=dict)
    """Each series' y values (means for lines and bars), in the axis' unit."""
    xticklabels: list[str] = field(default_factory=list)
    numeric_x: bool = False
    """True when x is drawn to scale (a number, or a duration, rate or size parameter)."""
    overlaps: bool = False
    """True if the figure title's box overlaps a panel, a panel title or a legend."""
    caption: str = ""


class Palette:
    """One colour per category for a whole page: the first category met gets the first colour,
    and keeps it in every figure, whichever figure leaves others out. A text category is the
    same in every column (``psm`` as a power_save value and as a savings row's mode); a number
    is a category of its column only."""

    def __init__(self) -> None:
        self._colours: dict[tuple[str, str], str] = {}
        self._next = 0

    def fix(self, column: str, colours: Mapping[str, str]) -> None:
        """Give ``column``'s values these colours (the radio states' of the timeline figures)."""
        for v, c in colours.items():
            self._colours[_key(column, v)] = c

    def register(self, column: str, values: Sequence) -> None:
        """Give each value of ``column`` not seen before the next colour, in ``values``' order."""
        for v in values:
            key = _key(column, v)
            if key not in self._colours:
                self._colours[key] = COLOURS[self._next % len(COLOURS)]
                self._next += 1

    def colour(self, column: str, value: Any) -> str:
        """The colour of ``value`` of ``column`` (registered on first use)."""
        self.register(column, [value])
        return self._colours[_key(column, value)]


def _key(column: str, v: Any) -> tuple[str, str]:
    if isinstance(v, str):
        return ("", v)
    return (column, repr(float(v)) if isinstance(v, (int, float)) and not isinstance(v, bool) else str(v))


def plt():
    """matplotlib's pyplot on the Agg backend (no display)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as pyplot

    return pyplot


def png(fig) -> str:
    """The figure as base64 PNG (the figure is closed)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight")
    plt().close(fig)
    return base64.b64encode(buf.getvalue()).decode()


def html_figure(b64: str, caption: str) -> str:
    """An embedded PNG with its caption."""
    return (f'<figure><img alt="{html.escape(caption)}" src="data:image/png;base64,{b64}">'
            f"<figcaption>{html.escape(caption)}</figcaption></figure>")


def read_back(fig, title: str, caption: str, numeric_x: bool) -> Drawn:
    """The :class:`Drawn` record of ``fig``: labels, legend colours, series' x values, and
    whether the figure title overlaps a panel title or an axis (the layout is drawn first)."""
    from matplotlib.container import BarContainer, ErrorbarContainer

    fig.canvas.draw()
    axes = [a for a in fig.axes if a.get_label() != "<colorbar>"]
    rd = fig.canvas.get_renderer()
    sup = fig._suptitle
    overlaps = False
    if sup is not None and sup.get_text():
        box = sup.get_window_extent(rd)
        others = [a.get_window_extent(rd) for a in axes]
        others += [a.title.get_window_extent(rd) for a in axes if a.title.get_text()]
        others += [leg.get_window_extent(rd) for leg in [*fig.legends, *(a.get_legend() for a in axes)] if leg is not None]
        overlaps = any(box.overlaps(o) for o in others)
    colours: dict[str, str] = {}
    xs: dict[str, list[float]] = {}
    ys: dict[str, list[float]] = {}
    legends = [a.get_legend() for a in axes if a.get_legend() is not None] + list(fig.legends)
    for leg in legends:
        for handle, label in zip(leg.legend_handles, leg.get_texts()):
            colours[label.get_text()] = _colour(handle)
    for a in axes:
        for cont in a.containers:
            lab = cont.get_label()
            if not lab or lab.startswith("_"):
                continue
            if isinstance(cont, ErrorbarContainer):
                xs.setdefault(lab, []).extend(float(v) for v in cont.lines[0].get_xdata())
                ys.setdefault(lab, []).extend(float(v) for v in cont.lines[0].get_ydata())
            elif isinstance(cont, BarContainer):
                xs.setdefault(lab, []).extend(float(p.get_x() + p.get_width() / 2) for p in cont.patches)
                ys.setdefault(lab, []).extend(float(p.get_height()) for p in cont.patches)
        for coll in a.collections:
            lab = coll.get_label()
            if lab and not lab.startswith("_") and len(coll.get_offsets()):
                xs.setdefault(lab, []).extend(float(v) for v in coll.get_offsets()[:, 0])
                ys.setdefault(lab, []).extend(float(v) for v in coll.get_offsets()[:, 1])
    first = axes[0]
    return Drawn(title=title, xlabel=first.get_xlabel(), ylabel=first.get_ylabel(),
                 panels=[a.get_title() for a in axes if a.get_title()], colours=colours, x=xs, y=ys,
                 xticklabels=[t.get_text() for t in first.get_xticklabels()], numeric_x=numeric_x,
                 overlaps=overlaps, caption=caption)


def _colour(handle) -> str:
    """A legend handle's colour: a line's colour, a bar's or a marker's face colour."""
    from matplotlib.colors import to_hex

    c = handle.get_color() if hasattr(handle, "get_color") else handle.get_facecolor()
    if getattr(c, "ndim", 1) == 2:
        c = c[0]
    return to_hex(c)


# ---------------------------------------------------------------------------------------------
# Numbers behind a column


def numeric_column(df: pd.DataFrame, column: str) -> tuple[str, pd.Series] | None:
    """``column`` as numbers, with the name of the column they come from: the numeric column
    beside a duration/rate/size parameter (``KEY_s``: seconds also for a ``[random]`` draw in
    ms), else the column itself if numeric, else its text parsed as one kind of quantity
    (folders written before those columns); None for a category."""
    s = df[column]
    for kind, suffix in units.QUANTITY_SUFFIX.items():
        if column + suffix in df.columns:
            return column + suffix, df[column + suffix]
    if pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s):
        return column, s
    parsed = {v: _core.quantity(v) if isinstance(v, str) else None for v in s.dropna().unique()}
    kinds = {q[0] if q else None for q in parsed.values()}
    if len(kinds) == 1 and None not in kinds:
        kind = kinds.pop()
        return column + units.QUANTITY_SUFFIX[kind], s.map(lambda v: parsed[v][1] if v in parsed else math.nan).astype("float64")
    return None


def ordered(df: pd.DataFrame, column: str) -> list:
    """The values of ``column``: in numeric order for numbers and quantities, else in the order
    they first appear (a study's tables list the runs in the study's order)."""
    values = list(dict.fromkeys(df[column].dropna()))
    num = numeric_column(df, column)
    if num is None:
        return values
    by_value = dict(zip(df[column], num[1]))
    return sorted(values, key=lambda v: by_value.get(v, math.inf))


def text(v: Any) -> str:
    """A category's legend or panel text."""
    return f"{v:g}" if isinstance(v, float) else str(v)


# ---------------------------------------------------------------------------------------------
# A study's figure


def where_mask(df: pd.DataFrame, where: Mapping | Sequence[Mapping]) -> pd.Series:
    """The rows ``where`` selects: a table of ``column = value`` or ``column = [values]`` (every
    entry must hold), or a list of such tables (a row is drawn if it matches one of them)."""
    alternatives = [where] if isinstance(where, Mapping) else list(where)
    if not alternatives:
        return pd.Series(True, index=df.index)
    mask = pd.Series(False, index=df.index)
    for alt in alternatives:
        m = pd.Series(True, index=df.index)
        for col, want in alt.items():
            m &= df[col].isin(want if isinstance(want, list) else [want])
        mask |= m
    return mask


def where_text(where: Mapping | Sequence[Mapping]) -> str:
    """``where`` as a caption says it: ``node = client, policy in (psm, cc)``; alternatives
    joined by "or"."""
    def one(alt: Mapping) -> str:
        return ", ".join(f"{k} in ({', '.join(map(text, v))})" if isinstance(v, list) else f"{k} = {text(v)}"
                         for k, v in alt.items())
    alternatives = [where] if isinstance(where, Mapping) else list(where)
    parts = [one(a) for a in alternatives if a]
    return parts[0] if len(parts) == 1 else " or ".join(f"({p})" for p in parts)


def where_columns(where: Mapping | Sequence[Mapping]) -> list[str]:
    """Every column ``where`` names."""
    alternatives = [where] if isinstance(where, Mapping) else list(where)
    return list(dict.fromkeys(k for a in alternatives for k in a))


def draw(full: pd.DataFrame, df: pd.DataFrame, spec: Mapping, palette: Palette, seeds: int) -> tuple[str, Drawn]:
    """Draw ``spec`` (``x``, ``y``, ``hue``, ``facet``, ``kind``, ``title``, ``table``,
    ``where``) from the rows ``df`` (completed, selected); ``full`` (every row of the table)
    fixes the order and colour of each category. Returns the HTML figure and its record."""
    pyplot = plt()
    x, y, hue, facet, kind = spec["x"], spec["y"], spec.get("hue"), spec.get("facet"), spec.get("kind", "line")
    num_x = numeric_column(df, x)
    numeric_x = kind != "bar" and num_x is not None
    xcol, xvals = num_x if num_x is not None else (x, df[x])
    xlabel, xdisp = units.label(xcol, xvals.dropna()) if num_x is not None else (units.describe(x).name, units.Display(None))
    ylabel, ydisp = units.label(y, df[y].dropna())
    title = spec.get("title") or f"{units.describe(y).name.capitalize()} against {units.describe(xcol).name}"
    xs = ordered(full, x) if x in full else ordered(df, x)
    xs = [v for v in xs if v in set(df[x])]
    number = dict(zip(df[x], xvals.astype("float64"))) if num_x is not None else {}  # each x value's number
    position = {v: number[v] * xdisp.factor for v in xs} if numeric_x else {v: i for i, v in enumerate(xs)}
    hues = ordered(full, hue) if hue else [None]
    if hue:
        palette.register(hue, hues)
        hues = [h for h in hues if h in set(df[hue])]
    panels = [p for p in ordered(full, facet) if p in set(df[facet])] if facet else [None]
    fig, axes = pyplot.subplots(1, len(panels), figsize=(min(16, 1.6 + 4.2 * len(panels)), 3.8), sharey=True,
                                squeeze=False, layout="constrained")
    most = 0
    for ax, panel in zip(axes[0], panels):
        sub = df if facet is None else df[df[facet] == panel]
        for j, h in enumerate(hues):
            g = sub if hue is None else sub[sub[hue] == h]
            if not len(g):
                continue
            label = "_nolegend_" if hue is None else text(h)
            colour = palette.colour(hue, h) if hue else palette.colour(y, "")
            if kind == "scatter":
                ax.scatter(g[x].map(position), g[y] * ydisp.factor, s=14, alpha=0.75, color=colour, label=label)
                continue
            m = g.groupby(x, sort=False)[y].agg(["mean", "std", "count"]).reindex(xs).dropna(subset=["mean"])
            most = max(most, int(m["count"].max())) if len(m) else most
            pos = [position[v] for v in m.index]
            mean, err = m["mean"] * ydisp.factor, m["std"].fillna(0) * ydisp.factor
            if kind == "bar":
                w = 0.8 / len(hues)
                ax.bar([p - 0.4 + w * (j + 0.5) for p in pos], mean, width=w, yerr=err, capsize=2, color=colour, label=label)
            else:
                ax.errorbar(pos, mean, yerr=err, marker="o", capsize=3, color=colour, label=label)
        if not numeric_x:
            ticks = [text(v) if num_x is None else f"{number[v] * xdisp.factor:g}" for v in xs]
            ax.set_xticks(range(len(xs)), ticks, rotation=30 if len(xs) > 6 else 0)
        ax.set_xlabel(xlabel)
        if facet is not None:
            ax.set_title(f"{units.describe(facet).name} = {text(panel)}", fontsize=10)
    axes[0][0].set_ylabel(ylabel)
    if hue:
        _legend(fig, axes[0], [text(h) for h in hues], units.describe(hue).name)
    fig.suptitle(title, fontsize=11)
    caption = _caption(spec, title, most, seeds)
    drawn = read_back(fig, title, caption, numeric_x)
    return html_figure(png(fig), caption), drawn


def _legend(fig, axes, order: list[str], title: str) -> None:
    """One legend for the figure, right of its panels: every panel's categories, in ``order``
    (a category drawn only in a later panel is in it too)."""
    handles: dict[str, Any] = {}
    for ax in axes:
        for hnd, lab in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(lab, hnd)
    shown = [k for k in order if k in handles]
    fig.legend([handles[k] for k in shown], shown, title=title, fontsize=8, loc="outside right center")


def _caption(spec: Mapping, title: str, most: int, seeds: int) -> str:
    """What the figure shows: its error bars, over how many rows, and which rows."""
    if spec.get("kind", "line") == "scatter":
        bars = "one point per row"
    else:
        bars = f"mean ± std over up to {most} rows per point"
        bars += f" (the {seeds} seeds)" if most <= seeds else (
            f"; more rows than the {seeds} seeds: each run has several rows here, narrow them with `where`")
    where = where_text(spec.get("where") or {})
    return f"{title}: {bars}; completed runs of {spec.get('table', 'radios')}" + (f" where {where}" if where else "")


def state_bars(rows: pd.DataFrame, labels: list[str], parts: Sequence[tuple[str, str]], palette: Palette,
               caption: str) -> tuple[str, Drawn]:
    """Horizontal stacked bars of energy per radio state, one bar per row: ``parts`` are (legend
    name, column) pairs, every part with energy drawn (transitions included), so each bar ends at
    the row's total energy."""
    from wattlab.trace_plot import STATE_COLOR

    pyplot = plt()
    palette.fix("state", {name: STATE_COLOR.get(name.replace(" ", "_"), TRANSITION_COLOUR) for name, _ in parts})
    total = sum(rows[c].fillna(0) for _, c in parts if c in rows)
    disp = units.display("J", total)
    fig, ax = pyplot.subplots(figsize=(8, 0.9 + 0.45 * len(rows)), layout="constrained")
    left = [0.0] * len(rows)
    for name, col in parts:
        if col in rows and rows[col].fillna(0).sum() > 0:
            vals = rows[col].fillna(0) * disp.factor
            ax.barh(labels, vals, left=left, label=name, color=palette.colour("state", name))
            left = [a + b for a, b in zip(left, vals)]
    ax.invert_yaxis()
    ax.set_xlabel(f"energy ({disp.unit})")
    ax.legend(fontsize=8, title="radio state", loc="upper left", bbox_to_anchor=(1.01, 1))
    drawn = read_back(fig, "", caption, True)
    drawn.x = {lab: [float(v)] for lab, v in zip(labels, left)}  # each bar's end: its total, in the axis' unit
    return html_figure(png(fig), caption), drawn
