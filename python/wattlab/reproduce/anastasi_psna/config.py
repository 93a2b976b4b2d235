"""Parameters of the paper 001 (PSNA) reproduction: the paper's transfers and what we chose where
it is silent (docs/psna.md, "Simulator", says why)."""

from __future__ import annotations

from dataclasses import dataclass, field

import click

from ..options import Command, ConfigBase, Option

ARCHITECTURES = {
    "legacy": "legacy end-to-end TCP, card always on (the paper's baseline)",
    "psna": "PSNA: PS-TP to the AP daemon, card off for the residual time",
    "psm": "TCP with 802.11 PSM on the station (not in the paper)",
    "cc": "TCP with paper 000's client-centered agent (not in the paper)",
}
"""Every architecture the reproduction can run, with what it is."""

TRANSFERS = {"A": ("send", 25_446_000), "B": ("read", 2_519_000)}
"""The paper's transfers: direction of the mobile and bytes (KB = 1000 B)."""


@dataclass
class Config(ConfigBase):
    """Every knob of the reproduction; ``full()`` and ``quick_preset()`` are the two presets."""

    seeds: int
    """Repetitions per (transfer, architecture): seeds base_seed … base_seed + seeds − 1."""
    architectures: list[str] = field(default_factory=lambda: list(ARCHITECTURES))
    """Architectures to run; ``legacy`` is always run (everything is compared with it)."""
    transfers: list[str] = field(default_factory=lambda: ["A", "B"])
    """Transfers to run (the paper's A: 25,446 KB up; B: 2,519 KB down), at full length."""
    cross_flows: int = 10
    """Long TCP downloads Perth -> Italy sharing the 24 kb/s downstream: they make one TCP
    download's long-run rate ~1.9 kb/s, the paper's (the only thing chosen for that rate)."""
    start_s: float = 300.0
    """When the transfer starts: the cross traffic is in steady state by then."""
    sensitivity: bool = True
    """Also run transfer B's sensitivity variants (α, the 10-packet rule, a 536-byte MSS) and the
    transition-energy rows (``experiments.SENSITIVITY``, ``SWITCH_J``)."""
    base_seed: int = 1
    """First seed."""
    quick: bool = False
    """The reduced preset of the test suite (one seed; the transfers stay full length)."""

    @classmethod
    def full(cls) -> "Config":
        """Both transfers, every architecture, 5 seeds."""
        return cls(seeds=5)

    @classmethod
    def quick_preset(cls) -> "Config":
        """Both transfers, every architecture, 1 seed: a few seconds."""
        return cls(seeds=1, quick=True)

    def check(self) -> None:
        """Raise ValueError naming the first invalid setting."""
        if self.seeds < 1:
            raise ValueError("--seeds must be at least 1")
        bad = [a for a in self.architectures if a not in ARCHITECTURES]
        if bad:
            raise ValueError(f"unknown architecture {bad[0]!r} (known: {', '.join(ARCHITECTURES)})")
        if "legacy" not in self.architectures:
            self.architectures = ["legacy", *self.architectures]
        bad = [t for t in self.transfers if t not in TRANSFERS]
        if bad or not self.transfers:
            raise ValueError(f"transfers are A and/or B, not {bad or self.transfers}")
        if not 0 <= self.cross_flows <= 100:
            raise ValueError("cross_flows must be in 0..=100")
        if self.start_s <= 0:
            raise ValueError("start_s must be positive (the card's time before the request is measured apart)")

COMMAND = Command(
    help="Paper 001 (Anastasi, Conti & Lapenna, PSNA): transfers A (25,446 KB up) and B (2,519 KB down) on a congested "
    "Pisa–Perth path under legacy TCP, PSNA, TCP+PSM and TCP+CC agent; Tables 1–2 beside the paper's (battery-seconds, "
    "index, gain, reduction), the extras (polls, on-time, residual-time error), a figure and claim verdicts.",
    quick="One seed per row (the transfers stay full length): a few seconds. Used by the test suite.",
    out="Directory for the CSV files, figure and summary.md.",
    options=(
        Option(("--seeds",), "seeds", "Repetitions per row (default 5, or 1 with --quick).", type=click.IntRange(1, 100),
               metavar="N"),
        Option(("--arch",), "architectures", "Architectures (repeatable; default all: legacy psna psm cc; legacy is always run).",
               multiple=True, metavar="NAME", dest="archs"),
    ),
    written="summary.md has Tables 1–2 beside the paper's",
)
"""``wattlab reproduce psna``."""
