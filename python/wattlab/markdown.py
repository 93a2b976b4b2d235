"""Markdown tables, written by every reproduction's summary.md and read back by ``wattlab
report``: a cell's own ``|`` escaped (``|x − y|`` would split it) and its line breaks folded, so
every row has its header's cell count; rows split on unescaped pipes only."""

from __future__ import annotations

import re
from typing import Callable, Iterable


def cell(value: object) -> str:
    """``value`` as the text of one table cell: ``|`` escaped, line breaks as spaces."""
    text = " ".join(str(value).splitlines())
    return re.sub(r"(?<!\\)\|", r"\\|", text)


def row(*cells: object) -> str:
    """One table row, each cell escaped by :func:`cell` (markup such as ``**bold**`` kept)."""
    return "| " + " | ".join(cell(c) for c in cells) + " |"


def header(*names: object) -> list[str]:
    """A table's header row and the rule under it."""
    return [row(*names), "|" + "---|" * len(names)]


def table(names: Iterable[object], rows: Iterable[Iterable[object]]) -> list[str]:
    """A whole table: header, rule and rows."""
    names = list(names)
    return header(*names) + [row(*r) for r in rows]


def split_row(line: str) -> list[str]:
    """The cells of a table row, split on unescaped pipes, ``\\|`` read back as ``|``."""
    body = line.strip()
    if body.startswith("|"):
        body = body[1:]
    if body.endswith("|") and not body.endswith("\\|"):
        body = body[:-1]
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", body)]


def is_rule(line: str) -> bool:
    """True for a table's rule line (``|---|:--:|``)."""
    return re.match(r"^\|[-:| ]+\|?$", line.strip()) is not None


def frame(df, columns: "dict[str, str | Callable[[object], object]]") -> list[str]:
    """A DataFrame as a table: ``columns`` maps each header to a column of ``df`` or to a
    function of a row (a ``pandas`` row Series) that returns the cell; every cell escaped."""
    names = list(columns)
    cells = [[(f(r) if callable(f) else r[f]) for f in columns.values()] for _, r in df.iterrows()]
    return table(names, cells)
