"""Result tables cross the Rust–Python boundary as Arrow with no column list: every field of a
Rust table struct is an Arrow column and a DataFrame column, in order, with its type
(python/wattlab/columns.py, crates/wattlab-py/src/table.rs)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import wattlab
import wattlab.trace
from wattlab import _core
from wattlab.columns import frame
from conftest import SCENARIOS

def assert_every_rust_column(table: str, df: pd.DataFrame) -> None:
    """The DataFrame has exactly the Rust struct's fields, in order: Python adds, renames and
    computes nothing."""
    assert len(df), f"{table}: test needs rows"
    assert list(df.columns) == _core.table_columns()[table], table


def test_every_column_of_the_rust_tables_reaches_its_dataframe(tmp_path):
    schema = _core.table_columns()
    assert schema["flow_series"][:3] == ["time_s", "flow", "cwnd"] and "srtt_ms" in schema["flow_series"]
    web = wattlab.run(SCENARIOS / "web.toml", overrides=["flow.web.pages=4"], seed=2)
    assert_every_rust_column("pages", web.pages)
    assert_every_rust_column("objects", web.objects)
    cc = wattlab.run(SCENARIOS / "yan-cc-download.toml", overrides=["flow.ftp.bytes=300kB"], seed=2,
                     out_dir=tmp_path, pcap=["client:wlan0"], timeseries=True)
    assert_every_rust_column("flow_series", cc.flow_series)
    assert_every_rust_column("queue_series", cc.queue_series)
    assert_every_rust_column("radio_series", cc.radio_series)
    assert_every_rust_column("agent_events", cc.agent_events)
    assert_every_rust_column("sockets", cc.sockets)
    assert_every_rust_column("flow_energy", cc.flow_energy)
    t = wattlab.trace.energy(tmp_path / "client-wlan0.pcap", client="10.0.0.3")
    assert_every_rust_column("trace_states", t.states)
    assert_every_rust_column("trace_timeline", t.timeline)
    assert_every_rust_column("trace_connections", t.connections)
    assert_every_rust_column("trace_attribution", t.attribution)
    assert_every_rust_column("trace_throughput", t.throughput)


def test_dtypes_and_names_of_the_run_tables():
    res = wattlab.run(SCENARIOS / "web.toml", overrides=["flow.web.pages=4"], seed=2)
    cc = wattlab.run(SCENARIOS / "yan-cc-download.toml", overrides=["flow.ftp.bytes=300kB"], seed=2, timeseries=True)
    f, q, r, o = cc.flow_series, cc.queue_series, cc.radio_series, res.objects
    assert f.time_s.dtype == np.float64 and f.cwnd.dtype == np.int64 and f.delivered.dtype == np.int64
    assert set(f.flow) == {"ftp"} and set(q.link) == set(cc.links.name)
    assert pd.api.types.is_string_dtype(r.state) and set(r.state) <= {"tx", "rx", "idle", "idle_high", "sleep", "off"}
    # Option<u32> in Rust is pandas' nullable Int64, even with no value missing.
    assert o.connection.dtype == "Int64" and o.reused.dtype == bool
    assert res.agent_events.empty and list(res.agent_events.columns) == _core.table_columns()["agent_events"]
    fe = cc.flow_energy
    assert fe.to_completion_nj.dtype == "Int64" and fe.own_nj.dtype == np.int64 and fe.to_completion_j.dtype == np.float64
    assert set(fe.flow) == {"ftp"} and set(fe.node) == {"client"} and set(fe.side) == {"receiver"}
    assert set(fe.basis) == {"accounting", "mode"} and set(fe.policy) == set(cc.radios.policy)
    # Every joule of the run is in a column: own + tail + other flows + unattributed = the run's total.
    assert fe.unattributed_nj.dtype == np.int64 and (fe.other_flows_nj == 0).all()
    parts = fe.own_nj + fe.tail_nj + fe.other_flows_nj + fe.unattributed_nj
    assert ((parts - fe.run_total_nj).abs() <= 2).all()
    assert fe.run_total_j.tolist() == pytest.approx(cc.radios.set_index("policy").energy_j[fe.policy].tolist(), abs=1e-9)
    # One download alone: the run ends with it, so its energy up to completion is each meter's
    # total, up to the air time a MAC meter reported past the end (the final ACK).
    total = cc.radios.set_index("policy").energy_j
    for _, r in fe.iterrows():
        assert r.to_completion_j == pytest.approx(total[r.policy], abs=1e-4)


def test_every_kind_of_column_converts_with_its_type():
    t = _core._table_selftest("columns")
    a = pa.table(t)  # the Arrow PyCapsule interface: pyarrow imports the Rust batch
    assert a.column_names == ["small", "big", "optional", "optional_full", "ratio", "flag", "text", "state",
                              "maybe_text", "flow"]
    types = {f.name: f.type for f in a.schema}
    assert types["small"] == pa.int64() and a.column("small").to_pylist() == [-1, 0, -(2**31)]
    # Past 2**63 - 1 the column is uint64, as pandas infers from Python ints.
    assert types["big"] == pa.uint64() and a.column("big").to_pylist() == [1, 2**63, 2**64 - 1]
    assert types["optional"] == pa.int64() and a.column("optional").to_pylist() == [1, None, 3]
    assert a.schema.field("optional").metadata == {b"wattlab:optional": b"true"}
    assert types["ratio"] == pa.float64() and types["flag"] == pa.bool_() and types["text"] == pa.string()
    assert a.column("state").to_pylist() == ["idle", "sleep", "idle_high"]  # enums by their serde names
    assert a.column("maybe_text").to_pylist() == [None, "x", None]
    assert a.column("flow").to_pylist() == ["web", "ftp", "web"]  # an index column shows the names it indexes
    assert pa.record_batch(t).num_rows == 3  # __arrow_c_array__ too
    df = frame(t)
    assert df.small.dtype == np.int64 and df.big.dtype == np.uint64
    # Option<u32> of a struct of columns is pandas' nullable Int64, even with no value missing.
    assert df.optional.dtype == "Int64" and df.optional.isna().tolist() == [False, True, False]
    assert df.optional_full.dtype == "Int64" and df.optional_full.tolist() == [1, 2, 3]
    assert np.isnan(df.ratio[1]) and df.flag.dtype == bool and df.text.tolist() == ["a", "b", "a"]
    # The batch is made once and kept; rows print without pyarrow.
    r = _core._table_selftest("rows")
    assert r.to_pylist() == [{"id": 1, "name": "one", "ok": True}, {"id": 2, "name": "two", "ok": False}]
    assert r.column_names == ["id", "name", "ok"] and r.num_rows == len(r) == 2
    assert frame(r).to_dict("list") == {"id": [1, 2], "name": ["one", "two"], "ok": [True, False]}
    # An empty table of rows keeps its columns (from the row struct's default).
    empty = _core._table_selftest("no-rows")
    assert empty.column_names == ["id", "name", "ok"] and list(frame(empty).columns) == ["id", "name", "ok"]


def test_rows_of_different_kinds_have_the_union_of_their_columns_as_pandas_makes_records():
    t = _core._table_selftest("kinds")
    assert t.column_names == ["name", "count", "rtt_ms", "lost"]
    df = frame(t)
    want = pd.DataFrame([{"name": "a", "count": 3, "rtt_ms": [1.5, 2.0]}, {"name": "b", "count": 0.5, "lost": 7}])
    pd.testing.assert_frame_equal(df, want)  # floats where a kind has floats, NaN where a kind lacks a column
    assert t.to_pylist()[0]["rtt_ms"] == [1.5, 2.0] and t.to_pylist()[0]["lost"] is None


@pytest.mark.parametrize("case,message", [("ragged", "column `b` has 1 values but `a` has 2"),
                                          ("tuples", "a row of a table must be a struct"),
                                          ("index", "column `flow` indexes 2, past its 2 names")])
def test_a_table_that_is_not_one_is_an_internal_error_not_a_crash(case, message):
    with pytest.raises(wattlab.InternalError, match=message):
        pa.table(_core._table_selftest(case))


def test_index_columns_show_names_and_empty_tables_keep_their_columns():
    res = wattlab.run(SCENARIOS / "demo.toml", timeseries=True)
    assert set(res.flow_series.flow) <= set(res.flows.name) and pd.api.types.is_string_dtype(res.flow_series.flow)
    assert set(res.queue_series.link) <= set(res.links.name)
    assert len(res.pages) == 0 and list(res.pages.columns) == _core.table_columns()["pages"]


def test_a_run_and_its_tables_print_without_pandas_or_pyarrow():
    """`wattlab run` prints from the summary and the tables' rows: neither pandas nor pyarrow
    is imported (they take most of a run's start-up)."""
    import subprocess
    import sys

    code = ("import sys; from click.testing import CliRunner; from wattlab.cli import app; "
            f"r = CliRunner().invoke(app, ['run', {str(SCENARIOS / 'yan-cc-download.toml')!r}, '--set', 'flow.ftp.bytes=100kB']); "
            "assert r.exit_code == 0, r.output; assert 'Radio energy' in r.output, r.output; "
            "print(sorted(m for m in ('pandas', 'pyarrow', 'numpy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


SENTINELS = {2**32 - 1, 2**31 - 1, 2**64 - 1, 2**63 - 1, -(2**63)}
"""Integers that mean "none" or "infinite" in Rust (u32::MAX, i32::MAX, ...), never a value."""


def test_ssthresh_is_missing_until_a_loss_sets_it_and_no_sentinel_reaches_a_table(tmp_path):
    # Issue 27: ssthresh printed 4294967295 (the core's "no threshold yet") before the first loss.
    res = wattlab.run(SCENARIOS / "yan-cc-download.toml", seed=1, timeseries=True)
    res.write(tmp_path, formats=("csv", "parquet"))
    f = res.flow_series
    assert f.ssthresh.dtype == "Int64"
    first_loss = f.index[f.ssthresh.notna()][0]
    assert f.ssthresh.iloc[:first_loss].isna().all() and first_loss > 0, "missing in slow start before the first loss"
    assert f.ssthresh.iloc[first_loss:].notna().all() and f.ssthresh.max() < 2**20
    csv = pd.read_csv(tmp_path / "timeseries_flows.csv")
    assert csv.ssthresh.isna().sum() == f.ssthresh.isna().sum()  # empty cells, not a number
    assert pd.read_parquet(tmp_path / "timeseries_flows.parquet").ssthresh.isna().sum() == f.ssthresh.isna().sum()
    # No integer column of any table of a run carries a sentinel.
    web = wattlab.run(SCENARIOS / "web.toml", overrides=["flow.web.pages=2"], seed=2, timeseries=True)
    for r in (res, web):
        frames = {"flows": r.flows, "radios": r.radios, "links": r.links, "flow_series": r.flow_series,
                  "queue_series": r.queue_series, "flow_energy": r.flow_energy, "agents": r.agents, "sockets": r.sockets,
                  "pages": r.pages, "objects": r.objects}
        for name, df in frames.items():
            for c in df.columns:
                if pd.api.types.is_integer_dtype(df[c]):
                    bad = set(df[c].dropna().astype("int64" if df[c].dtype != np.uint64 else "uint64").tolist()) & SENTINELS
                    assert not bad, f"{name}.{c}: {bad}"
