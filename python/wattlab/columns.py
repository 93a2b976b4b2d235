"""DataFrames of the Rust core's result tables, from Arrow, with no column list in Python.

Every table the core returns (``wattlab._core.Table``) is an Arrow record batch built from a
Rust struct whose fields are the columns, named with their units (``time_s``, ``srtt_ms``), in
order (``crates/wattlab-py/src/table.rs``); ``pyarrow.table(t)`` imports it through the Arrow
PyCapsule interface, as polars or DuckDB can. :func:`frame` makes the DataFrame by one rule
for every table: Arrow's own conversion (an integer column with a missing value is float64, as
pandas makes it from records), except that an integer column the Rust struct declares optional
(field metadata ``wattlab:optional``) is pandas' nullable ``Int64``, a column of lists holds
Python lists (NaN where a row has none), and a table with no rows has the columns pandas makes of empty lists.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

OPTIONAL = b"wattlab:optional"
"""Arrow field metadata key: the Rust column is an ``Option``."""


def arrow(table) -> "pa.Table":
    """A core table (a ``_core.Table``, or any object with ``__arrow_c_stream__``) as a
    ``pyarrow.Table``; a ``pyarrow.Table`` as it is."""
    import pyarrow as pa

    return table if isinstance(table, pa.Table) else pa.table(table)


def frame(table) -> "pd.DataFrame":
    """A DataFrame of every column of ``table`` (see :func:`arrow`), in the Rust struct's order."""
    import pandas as pd
    import pyarrow as pa

    t = arrow(table)
    if t.num_rows == 0:
        # No values: the columns pandas makes of empty lists (their type is unknown).
        return pd.DataFrame({name: [] for name in t.column_names})
    df = t.to_pandas()
    for f in t.schema:
        if pa.types.is_list(f.type):
            cells = [float("nan") if v is None else v for v in t.column(f.name).to_pylist()]
            df[f.name] = pd.Series(cells, dtype=object, index=df.index)
        elif pa.types.is_integer(f.type) and f.metadata and f.metadata.get(OPTIONAL) == b"true":
            nullable = pd.UInt64Dtype() if pa.types.is_unsigned_integer(f.type) else pd.Int64Dtype()
            df[f.name] = t.column(f.name).to_pandas(types_mapper={f.type: nullable}.get)
    return df

