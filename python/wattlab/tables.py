"""Terminal tables that fit the console's width (80 columns when piped): headers wrap at spaces,
cells never wrap or lose characters, and a table still too wide is split into several, each
repeating its key columns (what names a row), as a wide table is printed on paper."""

from __future__ import annotations

from rich import box
from rich.console import Console, RenderableType
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from wattlab import units

_WIDE = 100_000
"""A width no table reaches: what a cell needs is measured without the console's limit."""


def new_table(title: str | None, caption: str | None = None) -> Table:
    """An empty result table in the compact style of every run table (a rule under the header,
    no cell borders)."""
    return Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, collapse_padding=True, pad_edge=False,
                 caption=caption, caption_justify="left")


def print_table(console: Console, table: Table, keys: int = 1) -> None:
    """Print ``table`` within ``console.width``: as one table if its headers can wrap enough, else
    as several, each with the first ``keys`` columns and as many of the others as fit (the title
    on the first); the caption follows as a paragraph of the console's width."""
    for part in fit(console, table, keys):
        console.print(part)


def fit(console: Console, table: Table, keys: int = 1) -> list[RenderableType]:
    """What :func:`print_table` prints (see there): tables, then the caption. Each column gets a fixed width: at
    least its widest cell and its header's longest word (so no cell wraps and no word is cut),
    at most its widest cell or header line; where a table is too wide, the headers with the
    most to gain wrap first. A column given a ``max_width`` holds prose and wraps as set up."""
    sizes = [_Sizes.of(console, col) for col in table.columns]
    keys = min(keys, len(sizes))
    key_idx = list(range(keys))
    groups: list[list[int]] = []
    group: list[int] = []
    for i in range(keys, len(sizes)):
        if group and _width_of(console, table, sizes, key_idx + group + [i], _narrowest(sizes)) > console.width:
            groups.append(group)
            group = []
        group.append(i)
    if group or not groups:
        groups.append(group)
    parts: list[RenderableType] = []
    for k, g in enumerate(groups):
        idx = key_idx + g
        parts.append(_part(table, sizes, idx, _widths(console, table, sizes, idx), table.title if k == 0 else None))
    if table.caption:
        caption = table.caption
        parts.append(Text.from_markup(caption, style="table.caption") if isinstance(caption, str) else caption)
    return parts


class _Sizes:
    """What one column needs: its narrowest and widest width, and its cells."""

    def __init__(self, column, least: int, most: int, cells: int):
        self.column, self.least, self.most, self.cells = column, least, most, cells

    def tight(self, console: Console, width: int) -> int:
        """The width at most ``width`` (never below the least) that its header, wrapped at
        ``width``, and its cells fill: no column keeps space its wrapped header left over."""
        width = max(self.least, width)
        header = self.column.header
        if not isinstance(header, (str, Text)) or self.column.max_width is not None:
            return width
        text = Text.from_markup(header) if isinstance(header, str) else header
        lines = text.wrap(console, width)
        return max(self.least if self.column.max_width is not None else self.cells, *(line.cell_len for line in lines))

    @staticmethod
    def of(console: Console, column) -> _Sizes:
        opts = console.options.update_width(_WIDE)
        head = Measurement.get(console, opts, column.header)
        cells = [Measurement.get(console, opts, c) for c in column.cells]
        if column.max_width is not None:  # prose: wraps at spaces up to max_width
            least = max([head.minimum, *(m.minimum for m in cells), column.min_width or 0])
            most = max(least, min(column.max_width, max([head.maximum, *(m.maximum for m in cells)])))
            return _Sizes(column, least, most, least)
        widest_cell = max([0, *(m.maximum for m in cells), column.min_width or 0])
        least = max(widest_cell, head.minimum)
        return _Sizes(column, least, max(least, head.maximum), widest_cell)


def _narrowest(sizes: list[_Sizes]) -> dict[int, int]:
    return {i: s.least for i, s in enumerate(sizes)}


def _widths(console: Console, table: Table, sizes: list[_Sizes], idx: list[int]) -> dict[int, int]:
    """Each column of ``idx`` as wide as it would be, narrowed (headers wrapped) as little as the
    console's width needs: the column with the most to gain first."""
    widths = {i: sizes[i].most for i in idx}
    for i in sorted(idx, key=lambda i: sizes[i].least - sizes[i].most):
        over = _width_of(console, table, sizes, idx, widths) - console.width
        if over <= 0:
            break
        widths[i] = sizes[i].tight(console, widths[i] - over)
    return widths


def _width_of(console: Console, table: Table, sizes: list[_Sizes], idx: list[int], widths: dict[int, int]) -> int:
    """The width the columns ``idx`` take at ``widths`` (padding and rules included)."""
    part = _part(table, sizes, idx, widths, None)
    return console.measure(part, options=console.options.update_width(_WIDE)).maximum


def _part(table: Table, sizes: list[_Sizes], idx: list[int], widths: dict[int, int], title) -> Table:
    """A table of the columns ``idx`` of ``table`` at fixed ``widths``."""
    t = Table(title=title, title_justify=table.title_justify,
              box=table.box, collapse_padding=table.collapse_padding, pad_edge=table.pad_edge,
              show_header=table.show_header, show_lines=table.show_lines, show_edge=table.show_edge,
              header_style=table.header_style, padding=table.padding)
    for i in idx:
        c = sizes[i].column
        # "fold", not the ellipsis: should a console be narrower than one column, a cell breaks
        # onto the next line rather than losing characters.
        t.add_column(c.header, justify=c.justify, style=c.style, header_style=c.header_style, vertical=c.vertical,
                     width=widths[i], overflow="fold")
    cells = [list(sizes[i].column.cells) for i in idx]
    for r in range(len(table.rows)):
        t.add_row(*(col[r] for col in cells))
    return t


def column_header(name: str) -> str:
    """A column name as a terminal table's header: its name and unit from the units table
    (:func:`wattlab.units.describe`: ``transfer_time_s`` → ``transfer time (s)``,
    ``goodput_mbps`` → ``goodput (Mb/s)``); a fraction's header names no unit (its cells say %)."""
    q = units.describe(name)
    return q.name if q.unit in (None, units.FRACTION) else f"{q.name} ({q.unit})"
