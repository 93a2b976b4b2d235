"""The web-browsing workload from Python: page and object tables, CSVs from the CLI, errors."""

from __future__ import annotations

import subprocess
import sys

import pandas as pd
import pytest

import wattlab
from conftest import SCENARIOS

WEB = SCENARIOS / "web.toml"


def test_run_returns_page_and_object_tables():
    res = wattlab.run(WEB, overrides=["flow.web.pages=6"], seed=4)
    pages, objects = res.pages, res.objects
    assert len(pages) == 6
    assert list(pages.page) == list(range(6))
    assert len(objects) == pages.objects.sum() >= 6
    assert set(pages.site) <= {"site0", "site1", "site2"}
    assert (pages.flow == "web").all() and (objects.flow == "web").all()
    # Every object arrived, in order request <= first byte <= done, within its page.
    assert objects[["request_s", "first_byte_s", "done_s"]].notna().all().all()
    assert (objects.request_s <= objects.first_byte_s).all() and (objects.first_byte_s <= objects.done_s).all()
    ends = objects.groupby("page").done_s.max()
    assert ends.to_numpy() == pytest.approx(pages.end_s.to_numpy(), abs=1e-12)
    assert (objects.response_bytes == objects["size"] + 250).all()
    assert objects.groupby("page")["size"].sum().to_numpy().tolist() == pages.bytes.tolist()
    assert objects.connection.dtype == "Int64"
    assert objects.concurrency.between(1, 4).all()
    # The summary row of the flow.
    flow = res.flows.set_index("name").loc["web"]
    assert flow.kind == "web" and flow.completed
    assert flow.pages == 6 and flow.pages_done == 6
    assert flow.bytes_delivered == objects.response_bytes.sum()
    assert flow.connections == pages.new_connections.sum() >= objects.connection.nunique()
    assert flow.connections < len(objects)


def test_non_web_runs_have_empty_tables(tmp_path):
    res = wattlab.run(SCENARIOS / "demo.toml", overrides=["flow.download.bytes=100kB"])
    assert res.pages.empty and res.objects.empty
    assert "concurrency" in res.objects.columns and "think_s" in res.pages.columns
    written = {p.name for p in res.write(tmp_path)}
    assert "pages.csv" not in written and "flows.csv" in written


def test_cli_writes_pages_and_objects_csv(tmp_path):
    out = tmp_path / "res"
    proc = subprocess.run(
        [sys.executable, "-m", "wattlab.cli", "run", str(WEB), "--out", str(out), "--set", "flow.web.pages=4"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "web" in proc.stdout
    pages = pd.read_csv(out / "pages.csv")
    objects = pd.read_csv(out / "objects.csv")
    assert len(pages) == 4 and len(objects) == pages.objects.sum()
    assert {"connection", "reused", "concurrency", "first_byte_s"} <= set(objects.columns)


def test_bad_web_settings_name_the_key_and_line():
    text = WEB.read_text()
    bad = text.replace("max_connections = 4", "max_connections = 0")
    with pytest.raises(wattlab.ScenarioError) as info:
        wattlab.validate(text=bad)
    e = info.value
    assert e.key == "flow[0].max_connections" and "1..=16" in e.message
    assert e.line == bad.splitlines().index("max_connections = 0") + 1
    with pytest.raises(wattlab.ScenarioError) as info:
        wattlab.validate(text=text.replace("subsites = 15", "subsites = 15\nsubsitez = 2"))
    assert "unknown field `subsitez`" in info.value.message
