"""A star scenario for set-up benchmarks (docs/benchmarks.md, "Large topologies"): a router,
LEAVES hosts linked to it, and FLOWS downloads between pairs of hosts.

    python python/wattlab/bench/star.py LEAVES FLOWS > star.toml
"""

from __future__ import annotations

import sys


def star(leaves: int, flows: int) -> str:
    """The scenario's TOML text (flows pair hosts 0-1, 2-3, ...: at most LEAVES / 2)."""
    if not 0 <= 2 * flows <= leaves:
        raise ValueError(f"{flows} flows need {2 * flows} hosts, there are {leaves}")
    out = ['name = "star"', "[simulation]", 'duration = "1s"', "[[node]]", 'name = "hub"', 'kind = "router"']
    for i in range(leaves):
        out += ["[[node]]", f'name = "h{i}"', 'kind = "host"']
    for i in range(leaves):
        out += ["[[link]]", 'a = "hub"', f'b = "h{i}"', 'rate = "10Mbps"', 'delay = "1ms"']
    for i in range(flows):
        out += ["[[flow]]", 'kind = "bulk-download"', f'client = "h{2 * i}"', f'server = "h{2 * i + 1}"', 'bytes = "10kB"']
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.stdout.write(star(int(sys.argv[1]), int(sys.argv[2])))
