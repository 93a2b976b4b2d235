"""DataFrames of the Rust core's result tables, with no column list in Python.

Every table the core returns (``wattlab._core.Columns``) is a Rust struct whose fields are the
columns, named with their units (``time_s``, ``srtt_ms``), in order; ``Columns.to_dict()``
converts it generically (``crates/wattlab-py/src/columns.rs``). :func:`frame` makes the
DataFrame: numbers arrive as numpy arrays, text as lists of ``str``, an optional integer column
as a ``(values, missing)`` pair that becomes pandas' nullable ``Int64``. The one mapping step
left here is documented per table: index columns that refer to names (flow index → flow name,
channel index → link name) are replaced by the names.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping, Sequence

if TYPE_CHECKING:
    import pandas as pd


def columns(table) -> dict:
    """The columns of a core table (a ``_core.Columns`` or an already converted dict)."""
    return table if isinstance(table, dict) else table.to_dict()


def frame(table, names: Mapping[str, Sequence[str]] | None = None) -> "pd.DataFrame":
    """A DataFrame of every column of ``table``, in the Rust struct's order; ``names`` maps an
    index column to the names its values index (``{"flow": flow_names}``)."""
    import numpy as np
    import pandas as pd

    data = {}
    for name, col in columns(table).items():
        if isinstance(col, tuple):
            values, missing = col
            col = pd.arrays.IntegerArray(values, missing)
        elif names and name in names and len(col):
            col = np.asarray(names[name], dtype=object)[col]
        data[name] = col
    return pd.DataFrame(data)
