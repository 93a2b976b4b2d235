"""Numbers beside the quantities a study's parameters give as text.

A parameter whose every value is a duration (``"5ms"``), a rate (``"10Mbps"``) or a size
(``"1MB"``), or a ``[random]`` draw with a ``unit``, gets a numeric column right after its own
in every table: its name plus ``_s`` (seconds), ``_bps`` (bit/s) or ``_bytes`` (bytes)
(:data:`wattlab.units.QUANTITY_SUFFIX`), parsed by the scenario loader's own parser
(``_core.quantity``). The parameter's column keeps the value as the user wrote it, so ``where``
and ``groupby`` on ``"5ms"`` still work, and a figure or an R user gets a number to put on an
axis.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from wattlab import _core
from wattlab.units import QUANTITY_SUFFIX

if TYPE_CHECKING:
    import pyarrow as pa

    from wattlab.study.spec import Study


def quantity_kind(values: list) -> str | None:
    """``duration``, ``rate`` or ``size`` if every value is a text quantity of that one kind."""
    kinds = {(_core.quantity(v) or (None,))[0] if isinstance(v, str) else None for v in values}
    return kinds.pop() if len(kinds) == 1 and None not in kinds else None


def quantity_parameters(study: Study) -> dict[str, str]:
    """Each parameter that gets a numeric column: its kind (``duration``, ``rate``, ``size``)."""
    out = {}
    for k, values in [*study.grid.items(), *study.zip.items()]:
        kind = quantity_kind(values)
        if kind:
            out[k] = kind
    for k, spec in study.random.items():
        if k in study.units:
            kind = (_core.quantity(f"1{study.units[k]}") or (None,))[0]
        elif "choice" in spec:
            kind = quantity_kind(spec["choice"])
        else:
            kind = None
        if kind:
            out[k] = kind
    return out


def si_value(study: Study, key: str, value: Any) -> float | None:
    """The value of parameter ``key`` in seconds, bit/s or bytes (its column holds the number of
    a ``[random]`` draw with a unit, else the text)."""
    if value is None:
        return None
    text = f"{value}{study.units[key]}" if key in study.units else value
    q = _core.quantity(text) if isinstance(text, str) else None
    return None if q is None else q[1]


def with_quantity_columns(table: pa.Table, study: Study) -> pa.Table:
    """``table`` with each quantity parameter's numeric column inserted after the parameter's
    (a parameter prefixed ``param.`` in the table gets ``param.KEY_s``); tables without the
    parameter are returned unchanged."""
    import pyarrow as pa

    for key, kind in quantity_parameters(study).items():
        name = key if key in table.column_names else f"param.{key}"
        if name not in table.column_names:
            continue
        target = name + QUANTITY_SUFFIX[kind]
        if target in table.column_names:
            continue
        column = table.column(name).to_pylist()
        si = {v: si_value(study, key, v) for v in set(column)}
        values = [si[v] for v in column]
        table = table.add_column(table.column_names.index(name) + 1, target, pa.array(values, pa.float64()))
    return table
