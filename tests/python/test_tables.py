"""Terminal tables at 80 columns (issue 27): every printer's tables fit the width, no header is cut
inside a word and no cell is wrapped or shortened with an ellipsis; a table too wide is split
with its key columns repeated; piped output is 80 columns wide unless COLUMNS says otherwise."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from rich.console import Console
from rich.table import Table
from rich.text import Text

import wattlab
import wattlab.trace
from wattlab import report, tables

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "scenarios"


def _plain(x) -> str:
    return x.plain if isinstance(x, Text) else Text.from_markup(str(x)).plain


class Recorder:
    """Records each table a printer hands to wattlab.tables and what it printed."""

    def __init__(self, monkeypatch):
        self.tables: list[tuple[Table, int, list]] = []
        real = tables.fit

        def fit(console, table, keys=1):
            parts = real(console, table, keys)
            self.tables.append((table, keys, parts))
            return parts

        monkeypatch.setattr(tables, "fit", fit)


def _render(part, width: int) -> list[str]:
    c = Console(width=width, record=True, file=open(os.devnull, "w"), color_system=None)
    c.print(part)
    return c.export_text().splitlines()


def assert_readable(table: Table, keys: int, parts: list, width: int = 80) -> None:
    """Each part within ``width``; every column of ``table`` in some part, its header's words whole
    and each of its cells whole on one line; no ellipsis; key columns in every part."""
    rendered = [_render(p, width) for p in parts]
    lines = [line for r in rendered for line in r]
    assert all(len(line) <= width for line in lines), "\n".join(lines)
    assert not any("…" in line for line in lines), "\n".join(lines)
    text = "\n".join(lines)
    words = set(re.findall(r"\S+", text))
    header_words = {w for col in table.columns for w in _plain(col.header).split()}
    assert header_words <= words, f"headers cut: {sorted(header_words - words)}\n{text}"
    for col in table.columns:
        for cell in col.cells:
            s = _plain(cell).strip()
            assert any(s in line for line in lines), f"cell {s!r} of {_plain(col.header)!r} not whole\n{text}"
    tabs = [p for p in parts if isinstance(p, Table)]
    for t in tabs:
        assert [_plain(c.header) for c in t.columns[:keys]] == [_plain(c.header) for c in table.columns[:keys]]
    assert sum(len(t.columns) - keys for t in tabs) == len(table.columns) - keys


@pytest.fixture
def recorder(monkeypatch):
    return Recorder(monkeypatch)


def _console(width: int = 80) -> Console:
    return Console(width=width, file=open(os.devnull, "w"), color_system=None)


def test_a_run_with_a_power_mode_and_its_agent_prints_readable_at_80_columns(recorder):
    res = wattlab.run(SCENARIOS / "yan-cc-download.toml", overrides=["flow.ftp.bytes=300kB"])
    report.print_run(_console(), res)
    titles = [_plain(t.title) for t, _, _ in recorder.tables]
    assert titles[:2] == ["Flows", "Radio energy"] and "Client-centered agent" in titles
    for table, keys, parts in recorder.tables:
        assert_readable(table, keys, parts)
    # The radio table is too wide for 80 columns: split, each part naming the row by node and policy.
    _, _, parts = recorder.tables[1]
    assert sum(isinstance(p, Table) for p in parts) == 2
    # At 200 columns every table is whole, as before.
    recorder.tables.clear()
    report.print_run(_console(200), res)
    assert all(sum(isinstance(p, Table) for p in parts) == 1 for _, _, parts in recorder.tables)


def test_the_tunnel_and_trace_tables_are_readable_at_80_columns(recorder):
    res = wattlab.run(SCENARIOS / "tunnel-3up.toml", overrides=["simulation.duration=2s"])
    report.print_run(_console(), res)
    assert any(_plain(t.title) == "SCTP tunnel" for t, _, _ in recorder.tables)
    from wattlab.cli_trace import print_trace

    print_trace(_console(), wattlab.trace.energy(ROOT / "examples/web-5-pages.pcap"), quiet=True)
    assert any(_plain(t.title).startswith("Energy by connection") for t, _, _ in recorder.tables)
    for table, keys, parts in recorder.tables:
        assert_readable(table, keys, parts)


def test_run_compare_is_readable_at_80_columns(recorder):
    from wattlab.compare import compare, print_compare

    rows = compare(SCENARIOS / "demo.toml", "wireless.wlan.power_save", ["cam", "psm"], overrides=["flow.0.bytes=100000"])
    print_compare(_console(), rows)
    (table, keys, parts), = recorder.tables
    assert_readable(table, keys, parts)
    assert sum(isinstance(p, Table) for p in parts) == 1, "one table: the key's last name heads its column"


def test_live_compare_headers_are_words_with_units_not_cut_column_names(recorder):
    # The frame `wattlab.live.compare` returns (its columns, in its order).
    rows = []
    for mode in ("sim", "live"):
        for policy in ("always-on", "cc"):
            agent = policy == "cc"
            rows.append({"mode": mode, "policy": policy, "transfer_time_s": 9.224, "goodput_mbps": 4.336, "energy_j": 12.4023,
                         "saving": 0.0 if not agent else 0.491, "sleep_s": 0.0, "closed_acks": 1664 if agent else None,
                         "open_acks": 102 if agent else None, "probes": 102 if agent else None,
                         "lost_asleep": 0 if agent else None, "retransmitted": 5, "verified": True, "host_late_max_ms": 0.4})
    df = pd.DataFrame(rows)
    out = Console(width=80, record=True, file=open(os.devnull, "w"), color_system=None)
    report.print_live_compare(out, df, "live-download.toml")
    (table, keys, parts), = recorder.tables
    assert keys == 2
    assert_readable(table, keys, parts)
    text = out.export_text()
    headers = [_plain(c.header) for c in table.columns]
    assert {"transfer time (s)", "goodput (Mb/s)", "energy (J)", "host late max (ms)", "lost asleep"} <= set(headers)
    assert "49.1%" in text and "1664" in text and "1664.0" not in text and "None" not in text and "nan" not in text


def test_a_table_splits_only_where_it_must():
    t = tables.new_table("wide", caption="a caption longer than the table itself, wrapped at the console's width")
    t.add_column("name")
    for k in range(12):
        t.add_column(f"quantity number {k} (J)", justify="right")
    t.add_row("row-a", *(f"{k * 1.5:.4f}" for k in range(12)))
    parts = tables.fit(_console(), t, keys=1)
    assert_readable(t, 1, parts)
    tabs = [p for p in parts if isinstance(p, Table)]
    assert len(tabs) >= 2 and _plain(tabs[0].title) == "wide" and all(p.title is None for p in tabs[1:])
    assert isinstance(parts[-1], Text) and parts[-1].plain.startswith("a caption")
    # Headers wrap before a table is split: 6 such columns fit in 80 with their headers on 3 lines.
    t6 = tables.new_table(None)
    for k in range(6):
        t6.add_column(f"quantity number {k} (J)")
    t6.add_row(*("1.0000" for _ in range(6)))
    assert len(tables.fit(_console(), t6, keys=0)) == 1


def test_column_headers_name_their_units():
    assert tables.column_header("transfer_time_s") == "transfer time (s)"
    assert tables.column_header("goodput_mbps") == "goodput (Mb/s)"
    assert tables.column_header("host_late_max_ms") == "host late max (ms)"
    assert tables.column_header("verified") == "verified"


@pytest.mark.parametrize("columns,width", [(None, 80), ("100", 100)])
def test_piped_output_is_80_columns_or_COLUMNS(columns, width):
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    if columns:
        env["COLUMNS"] = columns
    r = subprocess.run([sys.executable, "-c", "from wattlab.cli import main; main()", "run", str(SCENARIOS / "yan-cc-download.toml"),
                        "--set", "flow.ftp.bytes=300kB"], cwd=ROOT, capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert max(len(line) for line in lines) <= width and "…" not in r.stdout
    assert max(len(line) for line in lines) > width - 10  # the width is used, not a narrower one
