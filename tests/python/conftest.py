"""Shared helpers for the Python test suite."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "scenarios"


@pytest.fixture
def tcpdump() -> str:
    """Path of tcpdump, or skip with the reason (CI installs it via `make test`)."""
    path = shutil.which("tcpdump")
    if path is None:
        pytest.skip("tcpdump is not installed (make test installs it when run as root)")
    return path


def wired_path(profile: str, wired_rate: str, wired_delay: str) -> str:
    """Nodes server, ap and client (with a radio), and the server–ap link, as TOML text."""
    return f"""
[[node]]
name = "server"
kind = "host"
[[node]]
name = "ap"
kind = "ap"
[[node]]
name = "client"
kind = "host"
radio = {{ profile = "{profile}", policies = ["always-on", "oracle"] }}
[[link]]
name = "wired"
a = "server"
b = "ap"
rate = "{wired_rate}"
delay = "{wired_delay}"
"""


def wlan_scenario(
    *,
    bytes_: str = "1MB",
    wired_rate: str = "100Mbps",
    wired_delay: str = "30ms",
    wlan_rate: str = "20Mbps",
    loss: float | None = None,
    profile: str = "wavelan-dsss",
    extra_flow: str = "",
    mac_overhead: str = "0us",
) -> str:
    """A server–ap–client download scenario as TOML text."""
    down = f'down = {{ loss = {{ model = "bernoulli", p = {loss} }} }}' if loss else ""
    return f"""
name = "test"
{wired_path(profile, wired_rate, wired_delay)}[[wireless]]
name = "wlan"
ap = "ap"
station = "client"
rate = "{wlan_rate}"
mac_overhead = "{mac_overhead}"
{down}
[[flow]]
kind = "bulk-download"
client = "client"
server = "server"
bytes = "{bytes_}"
{extra_flow}
"""


def assert_markdown_tables_whole(text: str) -> int:
    """Every Markdown table in ``text`` has as many cells in each row as in its header (a cell's
    own ``|`` must be escaped as ``\\|``, as GitHub's table syntax reads it); returns the number
    of tables seen."""
    import re

    def cells(line: str) -> int:
        body = line.strip()[1:]
        body = body[:-1] if body.endswith("|") and not body.endswith("\\|") else body
        return len(re.split(r"(?<!\\)\|", body))

    tables, header = 0, None
    for n, line in enumerate(text.splitlines(), 1):
        if not line.startswith("|"):
            header = None
            continue
        if header is None:
            header, tables = cells(line), tables + 1
        else:
            assert cells(line) == header, f"line {n} has {cells(line)} cells, its header {header}: {line}"
    return tables


PAPER_CALLED_SEED = r"(?i)\bseed[ -]\d{3}\b|\bseed's\b|\bthe seed\b(?! papers?\b)"
"""How text called a paper "seed" (issue 27: "seed 000" beside --seed, the random seed)."""


def assert_paper_not_called_seed(text: str) -> None:
    """``text`` calls a paper "paper 000" or "the paper", never "seed 000" or "the seed's"."""
    import re

    bad = [m.group(0) for m in re.finditer(PAPER_CALLED_SEED, text)]
    assert not bad, f"a paper called seed: {bad[:5]}"


def assert_summary_readable(out: Path, min_tables: int) -> str:
    """A reproduction's ``out/summary.md``: at least ``min_tables`` tables, each row with its
    header's cell count, and no paper called "seed"; returns its text."""
    text = (out / "summary.md").read_text()
    assert_paper_not_called_seed(text)
    assert assert_markdown_tables_whole(text) >= min_tables
    return text
