"""Parameters of the paper 003 reproduction: what the paper states, and what we chose where it
is silent (each choice with its reason; docs/reproductions/kontogiannis2005.md lists them)."""

from __future__ import annotations

from dataclasses import dataclass, field

import click

from ..options import Command, ConfigBase, Option
from .live_kernel import LIVE_VARIANTS, NOT_LIVE

VARIANTS = ("tahoe", "reno", "newreno", "sack", "vegas", "westwood")
"""The six TCP variants of the paper's Experiment 1, in its order."""

PER_READINGS = {
    "bad-state": "the Gilbert good state is loss-free and the bad state loses PER of its packets, so the "
    "long-run loss is PER/3 (notes/003.md reading R1, the default: the paper still sees working, "
    "ordered TCP variants at 15–20 %, where TCP over a 15–20 % packet loss has all but stopped)",
    "average": "the Gilbert bad state loses 3·PER of its packets, so the long-run loss equals PER "
    "(notes/003.md reading R2): random and burst curves then share their mean loss at every x",
}
"""How the swept error rate maps onto the Gilbert chain (the 'burst' curves)."""

ERROR_LAYERS = {
    "packet": "each IP packet the 802.11 hop delivers is lost with the error probability above the MAC "
    "(whose retransmissions still repair collisions): the error rate is exactly the loss TCP sees",
    "frame": "each data-frame attempt is corrupted with the error probability and the MAC retransmits "
    "(7 attempts, ns-2's ShortRetryLimit): TCP sees only what survives 802.11 ARQ",
}
"""Where the errors act."""

SENDERS = {
    "shared": "all n flows leave node0 through its one 50-packet interface queue (the paper's two-node topology, "
    "§5.1: 'the sender (node 0) and the receiver (node 1)'; ns-2 attaches every agent of a node to that node's one "
    "interface queue)",
    "separate": "each flow has its own sender station (node0, node2, …) with its own OriNOCO radio and 50-packet "
    "queue, contending for the hop by DCF; energy is the sum of the senders' radios (issue 32's hypothesis for the "
    "fairness differences the paper saw; not the paper's stated topology)",
}
"""Where Experiment 2's flows are sent from (``--exp2-senders``)."""

NS2_TCP_TICK_MS = 10.0
"""ns-2's ``Agent/TCP tcpTick_ 0.01`` (ns-default.tcl since 2002/03/07, notes/003.md §4.7)."""
NS2_MIN_RTO_MS = {"ns-2.27": 1000.0, "ns-2.28": 200.0}
"""ns-2's ``Agent/TCP minrto_``: 1 s (RFC 2988) until ns-default.tcl changed it to 200 ms on
2004/10/14 ("to match values used by many implementations"), first released in ns-2.28 (2005);
the paper (2005) does not say which release it ran."""

GILBERT_P_GOOD_TO_BAD = 0.05
"""The paper's transition matrix [[0.95, 0.05], [0.10, 0.90]]: P(good → bad) per packet."""
GILBERT_P_BAD_TO_GOOD = 0.10
"""P(bad → good) per packet: bad bursts last 10 packets on average, P(bad) = 1/3."""


@dataclass
class Config(ConfigBase):
    """Every knob of the reproduction; ``quick()`` and ``full()`` are the two presets."""

    per_grid: list[float]
    """Error rates of Experiment 1."""
    seeds: int
    """Repetitions per point (seeds base_seed … base_seed + seeds − 1, shared by all variants)."""
    exp1_bytes: int
    """Bytes per single flow in Experiment 1 (the paper does not say; we use its 10 MB FTP size)."""
    exp2_flows: list[int]
    """System sizes n of Experiment 2."""
    exp2_bytes: int
    """Bytes per flow in Experiment 2 (paper: 10 MB)."""
    thr_max_seconds: float
    """Length of each UDP CBR saturation run that measures Thr_max."""
    variants: list[str] = field(default_factory=lambda: list(VARIANTS))
    """Experiment 1 variants."""
    exp2_per: float = 0.001
    """Experiment 2 error rate (paper: 0.1 %), applied as random (Bernoulli) errors."""
    per_reading: str = "bad-state"
    """Key of PER_READINGS."""
    error_layer: str = "packet"
    """Key of ERROR_LAYERS."""
    alpha: float = 1.0
    """3E weight of effort without return (paper: 1, the OriNOCO's transmit power normalised)."""
    b: float = 0.45
    """3E weight of unused capacity (paper: 0.45; 0.532 is what Table 1's powers give)."""
    base_seed: int = 1
    """First seed."""
    profile: str = "orinoco"
    """Device profile of the transmitter's radio (paper: Lucent OriNOCO)."""
    segment_bytes: int = 1024
    """TCP payload per segment (paper: 1024-byte packets, ns-2 packetSize_ 1024 + 40 B headers)."""
    window_segments: int = 20
    """Advertised-window limit in segments (ns-2's window_ default of 20)."""
    cbr_flows: int = 10
    """Number of UDP CBR flows that saturate the channel for Thr_max."""
    start_spread_s: float = 1.0
    """Experiment 2 flows start at seeded-random times in [0, start_spread_s] (not synchronised)."""
    exp2_senders: str = "shared"
    """Key of SENDERS."""
    timer_tick_ms: float | None = None
    """TCP's coarse retransmission timer tick (``tcp.timer_tick``; None: RFC 6298 with a 1 ms clock)."""
    min_rto_ms: float = 1000.0
    """TCP's minimum RTO (``tcp.min_rto``; ns-2's ``minrto_`` before ns-2.28, RFC 2988's 1 s)."""
    quick: bool = False
    """The reduced preset used by the test suite."""
    live: bool = False
    """Run Experiment 1's single flow live (``--live``, root): live.py instead of the simulated study."""
    live_per: list[float] = field(default_factory=lambda: [0.01, 0.04, 0.07])
    """Error rates of the live sweep: three of the paper's grid in its low-error region (0–7 %), where a
    10 MiB transfer ends within minutes; at 15–25 % random errors one takes hours on real TCP."""
    live_models: list[str] = field(default_factory=lambda: ["random", "burst"])
    """Error models of the live sweep (random = Bernoulli, burst = Gilbert–Elliott, as Experiment 1)."""
    live_variants: list[str] = field(default_factory=lambda: list(LIVE_VARIANTS))
    """Variants of the live sweep (those this kernel lacks are skipped with the reason)."""
    live_bytes: int = 10 * 1024 * 1024
    """Bytes per live transfer (the paper's 10 MB FTP size, as Experiment 1)."""
    live_time_limit_s: float = 1800.0
    """Bound of one live transfer (``wattlab live run --time-limit``)."""

    @classmethod
    def full(cls) -> "Config":
        """The paper's sweep: PER 0–25 % in 1 % steps, n = 1…25, 5 seeds."""
        return cls(
            per_grid=[round(0.01 * i, 2) for i in range(26)],
            seeds=5,
            exp1_bytes=10 * 1024 * 1024,
            exp2_flows=list(range(1, 26)),
            exp2_bytes=10 * 1024 * 1024,
            thr_max_seconds=60.0,
        )

    @classmethod
    def quick_preset(cls) -> "Config":
        """A few minutes' worth cut to well under one: 6 error rates, 1 MB flows, n ∈ {1, 3, 5, 8}, 2 seeds."""
        return cls(
            per_grid=[0.0, 0.03, 0.07, 0.15, 0.20, 0.25],
            seeds=2,
            exp1_bytes=1024 * 1024,
            exp2_flows=[1, 3, 5, 8],
            exp2_bytes=1024 * 1024,
            thr_max_seconds=15.0,
            quick=True,
        )

    def check(self) -> None:
        """Raise ValueError naming the first invalid setting."""
        from wattlab import metrics

        unknown = [v for v in self.variants if v not in VARIANTS]
        if unknown:
            raise ValueError(f"unknown TCP variant {unknown[0]!r} (valid: {', '.join(VARIANTS)})")
        if self.per_reading not in PER_READINGS:
            raise ValueError(f"unknown PER reading {self.per_reading!r} (valid: {', '.join(PER_READINGS)})")
        if self.error_layer not in ERROR_LAYERS:
            raise ValueError(f"unknown error layer {self.error_layer!r} (valid: {', '.join(ERROR_LAYERS)})")
        if self.exp2_senders not in SENDERS:
            raise ValueError(f"unknown Experiment 2 senders {self.exp2_senders!r} (valid: {', '.join(SENDERS)})")
        if self.timer_tick_ms is not None and not 1.0 <= self.timer_tick_ms <= 1000.0:
            raise ValueError(f"--timer-tick {self.timer_tick_ms:g} ms is outside tcp.timer_tick's 1 ms ..= 1 s")
        if not 1.0 <= self.min_rto_ms <= 60_000.0:
            raise ValueError(f"--min-rto {self.min_rto_ms:g} ms is outside tcp.min_rto's 1 ms ..= 60 s")
        metrics.check_eee_weights(self.alpha, self.b)
        if self.seeds < 1:
            raise ValueError("--seeds must be at least 1")
        bad = [p for p in self.per_grid + [self.exp2_per] if not 0.0 <= p < 1.0]
        if bad:
            raise ValueError(f"error rate {bad[0]} is outside [0, 1)")
        self.check_live()
        if self.per_reading == "average" and max(self.per_grid) > 1 / 3:
            raise ValueError("the 'average' PER reading needs error rates ≤ 1/3 (the bad state would lose > 100 %)")

    def check_live(self) -> None:
        """Raise ValueError naming the first invalid live setting (checked with or without ``--live``)."""
        for v in self.live_variants:
            if v in NOT_LIVE:
                raise ValueError(f"--live-variant {v}: {NOT_LIVE[v]}")
            if v not in LIVE_VARIANTS:
                raise ValueError(f"unknown live variant {v!r} (valid: {', '.join(LIVE_VARIANTS)})")
        if not self.live_variants:
            raise ValueError("--live-variant: at least one variant")
        bad = [m for m in self.live_models if m not in ("random", "burst")]
        if bad or not self.live_models:
            raise ValueError(f"--live-errors {bad[0] if bad else '(none)'}: expected random or burst")
        bad_p = [p for p in self.live_per if not 0.0 <= p < 1.0]
        if bad_p or not self.live_per:
            raise ValueError(f"--live-per {bad_p[0] if bad_p else '(none)'}: an error rate in [0, 1)")
        if not 1024 <= self.live_bytes <= 2**30:
            raise ValueError(f"--live-bytes {self.live_bytes}: between 1 KiB and 1 GiB")
        if not 0.0 < self.live_time_limit_s <= 3600.0:
            raise ValueError(f"--live-time-limit {self.live_time_limit_s:g}: 0 < S <= 3600 (the live testbed's bound)")


COMMAND = Command(
    help="Paper 003: goodput and 3E of Tahoe, Reno, NewReno, SACK, Vegas and Westwood under random and burst errors "
    "(Exp. 1), n Tahoe vs n Vegas flows (Exp. 2), and a verdict on each claim R1.1–R2.7.",
    quick="Reduced sweep (6 error rates, 1 MiB flows, n = 1, 3, 5, 8, 2 seeds): under a minute.",
    seed="First seed; point k uses seeds seed … seed+N−1 for every variant.",
    options=(
        Option(("--seeds",), "seeds", "Repetitions per point (default 5, or 2 with --quick).", type=click.IntRange(1, 100),
               metavar="N"),
        Option(("--variant",), "variants", "Experiment 1 variants (repeatable; default all six: tahoe reno newreno sack "
               "vegas westwood).", multiple=True, metavar="NAME", dest="variants", convert=str.lower),
        Option(("--per-reading",), "per_reading", "How the error rate maps onto the Gilbert chain (burst errors): "
               "'bad-state' (the bad state loses PER, mean loss PER/3) or 'average' (the bad state loses 3·PER, mean loss PER).",
               type=click.Choice(list(PER_READINGS)), default="bad-state"),
        Option(("--error-layer",), "error_layer", "'packet': the error rate is the loss of packets the 802.11 hop delivered, "
               "as TCP sees it; 'frame': every data-frame attempt errs and the MAC retransmits (7 attempts), so TCP sees only "
               "what survives.", type=click.Choice(list(ERROR_LAYERS)), default="packet"),
        Option(("--exp2-senders",), "exp2_senders", "Experiment 2's senders: 'shared' (every flow from node0 through its "
               "one interface queue, the paper's two nodes) or 'separate' (one station with its own queue and radio per "
               "flow, contending by DCF; energy summed over them).", type=click.Choice(list(SENDERS)), default="shared"),
        Option(("--timer-tick",), "timer_tick_ms", "Run every TCP flow on a coarse retransmission timer of MS "
               f"milliseconds (tcp.timer_tick, 1–1000; ns-2's tcpTick_ is {NS2_TCP_TICK_MS:g}); default: RFC 6298 with a "
               "1 ms clock.", type=click.FloatRange(1.0, 1000.0), metavar="MS"),
        Option(("--min-rto",), "min_rto_ms", "Every TCP flow's minimum RTO in milliseconds (tcp.min_rto, 1–60000; "
               "default 1000 = ns-2's minrto_ before ns-2.28, 200 from ns-2.28 on).", type=click.FloatRange(1.0, 60_000.0),
               metavar="MS"),
        Option(("--live/--no-live",), "live", "Run Experiment 1's single flow live instead (root): real Linux TCP "
               "(newreno = Linux reno without SACK, sack = reno with SACK, vegas, westwood, cubic; a module the kernel lacks is "
               "skipped with the reason) through the live testbed's emulated 2 Mb/s DSSS hop with Bernoulli or Gilbert–Elliott "
               "errors, beside the simulator on the same path and on the paper's channel; one seed unless --seeds."),
        Option(("--live-per",), "live_per", "Error rate of the live sweep (repeatable; default 0.01 0.04 0.07).",
               type=click.FloatRange(0.0, 1.0, max_open=True), multiple=True, metavar="P"),
        Option(("--live-errors",), "live_models", "Error model of the live sweep (repeatable; default random burst).",
               type=click.Choice(["random", "burst"]), multiple=True),
        Option(("--live-variant",), "live_variants", "Live variant (repeatable; default newreno sack vegas westwood cubic).",
               multiple=True, metavar="NAME", convert=str.lower),
        Option(("--live-bytes",), "live_bytes", "Bytes per live transfer (default 10485760 = 10 MiB).",
               type=click.IntRange(1024, 2**30), metavar="N"),
        Option(("--live-time-limit",), "live_time_limit_s", "Bound of one live transfer in seconds (default 1800).",
               type=click.FloatRange(0.0, 3600.0, min_open=True), metavar="S"),
        Option(("--alpha",), "alpha", "3E weight of effort without return (transmit power; paper: 1).", type=float,
               metavar="X", default=1.0),
        Option(("--b",), "b", "3E weight of unused capacity (idle power; paper: 0.45, Table 1 gives 0.532).", type=float,
               metavar="X", default=0.45),
    ),
)
"""``wattlab reproduce kontogiannis2005``."""
