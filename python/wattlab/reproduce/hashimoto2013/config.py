"""Parameters of the paper 002 (Hashimoto 2013) reproduction: the thesis's settings and what we
chose where it is silent (docs/reproductions.md, "Paper 002", says why)."""

from __future__ import annotations

from dataclasses import dataclass, field

import click

from ..options import Command, ConfigBase, Option
from . import paper

SCHEMES = {
    "reno": "TCP Reno, plain DCF AP (the thesis's baseline)",
    "ackloss": "ACK-loss-aware Reno (cc = \"ackloss\", Algorithm 1, thresh_ack_losses = 1)",
    "prioritised-ap": "Reno with the prioritised AP (ap_priority = \"fukuda-oie\")",
}
"""The three schemes of Figs. 2.4–2.7."""

MIXES = {"10up": (10, 0), "5u5d": (5, 5)}
TESTBED_MIXES = tuple(f"u{u}d{10 - u}" for u in range(11))
"""Fig. 2.9's mixes u0d10 … u10d0 (``testbed.MIXES``)."""
"""Flow mixes: (upstream, downstream) flows, one per client (Figs. 2.4 and 2.5)."""


@dataclass
class Config(ConfigBase):
    """Every knob of the reproduction; ``full()`` and ``quick_preset()`` are the two presets."""

    seeds: int
    """Fairness repetitions per (mix, delayed ACK, scheme): seeds base_seed … base_seed + seeds − 1."""
    duration_s: float = 200.0
    """Length of a fairness run (thesis: 200 s)."""
    warmup_s: float = 50.0
    """Throughput is averaged over [warmup_s, duration_s] (thesis: 50–200 s)."""
    mixes: list[str] = field(default_factory=lambda: list(MIXES))
    """Flow mixes to run (``MIXES``)."""
    delayed_ack: list[bool] = field(default_factory=lambda: [False, True])
    """Delayed ACK off (Figs. 2.4–2.7) and on (Fig. 2.12)."""
    schemes: list[str] = field(default_factory=lambda: list(SCHEMES))
    sample_s: float = 1.0
    """Interval of the per-flow delivered-bytes samples the SWM index is computed from."""
    swm_windows_s: list[float] = field(default_factory=lambda: [1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0])
    """SWM window sizes w (the thesis does not give its own; Koksal's method averages over positions)."""
    energy_seeds: int = 8
    """Simulator runs per model-vs-simulator point (Ch. 3)."""
    energy_bytes: int = 1 << 20
    """Payload bytes of each model-vs-simulator transfer (the model's S_d is scaled to match)."""
    table31_seeds: int = 3
    """Runs per cross-traffic rate of the Table 3.1 validation topology."""
    table31_duration_s: float = 200.0
    """Length of a Table 3.1 run (the ACK inter-arrival is averaged from the handshake's end)."""
    testbed_mixes: list[str] = field(default_factory=lambda: list(TESTBED_MIXES))
    """Fig. 2.9's flow mixes run behind each AP (``testbed.py``; issue 32 gap 4 (c))."""
    testbed_seeds: int = 3
    """Runs per testbed cell (the thesis averaged ten; three keep the sweep's 198 runs affordable)."""
    testbed_duration_s: float = 180.0
    """Length of a testbed run (thesis: 180 s, averaged over 50–180 s)."""
    testbed_warmup_s: float = 50.0
    testbed50_mixes: list[str] = field(default_factory=lambda: list(TESTBED_MIXES))
    """Figs. 2.12–2.13's mixes run behind Buffalo-AP with the wired delay below, delayed ACK off
    and on (``testbed50.py``; the testbed's seeds and lengths)."""
    testbed50_delay_ms: float = paper.TESTBED50_ONE_WAY_DELAY_MS
    """One-way delay of the wired link in Figs. 2.12–2.13's runs (the captions: "a 50 [ms] one-way
    delay"; 25 gives the 50 ms RTT of netem on one interface)."""
    delack_split_mixes: list[str] = field(default_factory=lambda: ["u2d8", "u5d5", "u8d2"])
    """B11's experiment (``delack_split.py``): mixes of the 50 ms sweep run with delayed ACK on one
    direction's receivers only (each must also be in ``testbed50_mixes``)."""
    rto_cross_mbps: list[int] = field(default_factory=lambda: list(paper.TABLE31))
    """Table 3.1 rows run again with ns-2's timer settings (``rto.VARIANTS``; issue 32 gap 4 (b))."""
    base_seed: int = 1
    """First seed."""
    quick: bool = False
    """The reduced preset of the test suite."""

    @classmethod
    def full(cls) -> "Config":
        """The thesis's fairness runs (200 s, 50–200 s, 10 seeds), 8 seeds per energy point."""
        return cls(seeds=10)

    @classmethod
    def quick_preset(cls) -> "Config":
        """100 s fairness runs averaged over 30–100 s, 3 seeds; Table 3.1 with 2 seeds: 31–46 s
        wall on two loaded cores (the full run: 68–73 s; docs/reproductions.md)."""
        return cls(seeds=3, duration_s=100.0, warmup_s=30.0, swm_windows_s=[1.0, 2.0, 5.0, 10.0, 20.0, 50.0],
                   table31_seeds=2, rto_cross_mbps=[28, 29], testbed_mixes=["u0d10", "u5d5", "u10d0"], testbed_seeds=1,
                   testbed_duration_s=60.0, testbed_warmup_s=20.0, testbed50_mixes=["u5d5", "u10d0"], delack_split_mixes=["u5d5"], quick=True)

    def check(self) -> None:
        """Raise ValueError naming the first invalid setting."""
        if self.seeds < 1 or self.energy_seeds < 1 or self.table31_seeds < 1:
            raise ValueError("--seeds (and the energy and Table 3.1 seeds) must be at least 1")
        bad = [m for m in self.mixes if m not in MIXES]
        if bad or not self.mixes:
            raise ValueError(f"unknown flow mix {bad[0] if bad else '(none)'!r} (known: {', '.join(MIXES)})")
        bad = [s for s in self.schemes if s not in SCHEMES]
        if bad:
            raise ValueError(f"unknown scheme {bad[0]!r} (known: {', '.join(SCHEMES)})")
        if "reno" not in self.schemes:
            self.schemes = ["reno", *self.schemes]
        if not 0 <= self.warmup_s < self.duration_s:
            raise ValueError(f"warmup_s ({self.warmup_s}) must be in [0, duration_s = {self.duration_s})")
        if self.sample_s <= 0 or any(w < self.sample_s for w in self.swm_windows_s):
            raise ValueError("sample_s must be positive and every SWM window at least one sample")
        if any(w > self.duration_s - self.warmup_s for w in self.swm_windows_s):
            raise ValueError("an SWM window is longer than the averaging interval")
        bad = [m for m in self.testbed_mixes if m not in TESTBED_MIXES]
        if bad:
            raise ValueError(f"testbed_mixes: unknown mix {bad[0]!r} (u0d10 … u10d0)")
        bad = [m for m in self.testbed50_mixes if m not in TESTBED_MIXES]
        if bad:
            raise ValueError(f"testbed50_mixes: unknown mix {bad[0]!r} (u0d10 … u10d0)")
        bad = [m for m in self.delack_split_mixes if m not in self.testbed50_mixes]
        if bad:
            raise ValueError(f"delack_split_mixes: {bad[0]!r} is not in testbed50_mixes (the experiment compares with them)")
        if not 0 < self.testbed50_delay_ms <= 1000:
            raise ValueError(f"testbed50_delay_ms ({self.testbed50_delay_ms:g}) must be in (0, 1000] ms")
        if not 0 <= self.testbed_warmup_s < self.testbed_duration_s or self.testbed_seeds < 1:
            raise ValueError("testbed_warmup_s must be in [0, testbed_duration_s) and testbed_seeds at least 1")
        bad = [c for c in self.rto_cross_mbps if c not in paper.TABLE31]
        if bad:
            raise ValueError(f"rto_cross_mbps: {bad[0]} is not a Table 3.1 row ({', '.join(map(str, paper.TABLE31))})")
        if self.table31_duration_s < 10:
            raise ValueError("table31_duration_s must be at least 10 s")
        if self.energy_bytes < 100_000:
            raise ValueError("energy_bytes must be at least 100 kB (the model is for bulk transfers)")


COMMAND = Command(
    help="Paper 002 (Hashimoto, thesis 2013) Ch. 2–3: Tables 2.1/2.3, the fairness runs (Reno, ACK-loss-aware Reno, "
    "prioritised AP; 10 up and 5 up + 5 down; delayed ACK off and on), the relocation case (Fig. 2.6: 5 clients at 1 m, "
    "5 at 10 m, capture), the testbed sweep u0d10 … u10d0 behind the three APs' buffers (Figs. 2.9–2.11) and behind "
    "Buffalo's with a 50 ms one-way wired delay, delayed ACK off and on (Figs. 2.12–2.13), Table 3.1 "
    "(also with ns-2's retransmission timer), the exchange time its 12 Mb/s row implies, the R_energy maps, q and "
    "m sweeps, the WNI multipliers (Fig. 3.13), the energy model against the simulator, and a verdict on each claim.",
    quick="100 s fairness runs from 30 s, 3 seeds; Table 3.1 with 2 seeds (timer variants at 28–29 Mb/s only); the "
    "testbed sweep at u0d10, u5d5, u10d0 for 60 s, one seed (at 50 ms: u5d5, u10d0): a few minutes. Used by the test "
    "suite.",
    options=(Option(("--seeds",), "seeds", "Fairness repetitions (default 10, or 3 with --quick).",
                    type=click.IntRange(1, 100), metavar="N"),),
    written="summary.md has the tables beside the thesis's",
)
"""``wattlab reproduce hashimoto2013``."""
