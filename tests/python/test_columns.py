"""Result tables cross the Rust–Python boundary with no column list: every field of a Rust
table struct is a DataFrame column, in order, with its type (python/wattlab/columns.py,
crates/wattlab-py/src/columns.rs)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import wattlab
import wattlab.trace
from wattlab import _core
from wattlab.columns import frame
from conftest import SCENARIOS

# What Python adds to or shows differently from a Rust table, by table: (Rust column → the
# column shown instead), and the columns computed from the others.
SHOWN_AS = {
    "trace_timeline": {"time_ns": "time_s"},
    "trace_throughput": {"index": "start_s"},
}
DERIVED = {
    "trace_timeline": ["policy"],
    "trace_connections": ["proto", "local"],
    "trace_attribution": ["total_j", "share"],
    "trace_throughput": ["mbps_up", "mbps_down"],
}


def rust_columns(table: str) -> list[str]:
    return [SHOWN_AS.get(table, {}).get(c, c) for c in _core.table_columns()[table]]


def assert_every_rust_column(table: str, df: pd.DataFrame) -> None:
    """The DataFrame has exactly the Rust struct's fields, in order, plus the derived columns."""
    assert len(df), f"{table}: test needs rows"
    shown = [c for c in df.columns if c not in DERIVED.get(table, [])]
    assert shown == rust_columns(table), table
    assert set(df.columns) - set(shown) == set(DERIVED.get(table, [])), table


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
    d = _core._columns_selftest("columns").to_dict()
    assert list(d) == ["small", "big", "optional", "optional_full", "ratio", "flag", "text", "state", "maybe_text"]
    assert d["small"].dtype == np.int64 and d["small"].tolist() == [-1, 0, -(2**31)]
    # Past 2**63 - 1 the column is uint64, as pandas infers from Python ints.
    assert d["big"].dtype == np.uint64 and d["big"].tolist() == [1, 2**63, 2**64 - 1]
    values, missing = d["optional"]
    assert values.tolist()[0::2] == [1, 3] and missing.tolist() == [False, True, False]
    df = frame(d)
    assert df.optional.dtype == "Int64" and df.optional.isna().tolist() == [False, True, False]
    assert df.optional_full.dtype == "Int64" and df.optional_full.tolist() == [1, 2, 3]
    assert np.isnan(d["ratio"][1]) and d["flag"].dtype == bool
    assert d["text"] == ["a", "b", "a"] and d["text"][0] is d["text"][2]  # one str per distinct text
    assert d["state"] == ["idle", "sleep", "idle_high"]  # enums by their serde names
    assert d["maybe_text"] == [None, "x", None]
    # The dict is made once and kept.
    c = _core._columns_selftest("rows")
    assert c.to_dict() is c.to_dict()
    assert frame(c).to_dict("list") == {"id": [1, 2], "name": ["one", "two"], "ok": [True, False]}
    # An empty table of rows keeps its columns (from the row struct's default).
    assert _core._columns_selftest("no-rows").to_dict() == {"id": [], "name": [], "ok": []}


@pytest.mark.parametrize("case,message", [("ragged", "column `b` has 1 values but `a` has 2"),
                                          ("tuples", "a row of a table must be a struct")])
def test_a_table_that_is_not_one_is_an_internal_error_not_a_crash(case, message):
    with pytest.raises(wattlab.InternalError, match=message):
        _core._columns_selftest(case).to_dict()


def test_index_columns_show_names_and_empty_tables_keep_their_columns():
    d = {"flow": np.array([1, 0, 1]), "x": np.array([0.5, 1.5, 2.5])}
    df = frame(d, {"flow": ["a", "b"]})
    assert df.flow.tolist() == ["b", "a", "b"] and pd.api.types.is_string_dtype(df.flow)
    empty = frame({"flow": [], "x": []}, {"flow": ["a"]})
    assert list(empty.columns) == ["flow", "x"] and len(empty) == 0


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
