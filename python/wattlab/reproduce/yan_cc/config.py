"""Parameters of the paper 000 reproduction (Yan et al., client-centered energy saving): what the
seed states, and what we chose where it is silent, each choice with its reason (they are
repeated in docs/reproductions.md)."""

from __future__ import annotations

from dataclasses import dataclass, field

import click

from wattlab import _core

from ..options import Command, ConfigBase, Option

NO_REVERT = 1_000_000
"""``lossy_windows_to_revert`` of ``cc-norevert``: never reached in a download."""

CC_VARIANTS: dict[str, dict] = {
    "cc": {"detection": "active"},
    "cc-dynamic": {"detection": "dynamic"},
    "cc-norevert": {"detection": "active", "lossy_windows_to_revert": NO_REVERT},
}
"""The client-centered agent's variants (``power_save = "cc"``): name → the hop's ``agent``
table. ``cc`` is active burst detection (the paper's default), ``cc-dynamic`` the dynamic
threshold, ``cc-norevert`` active detection without the reversion to plain TCP after 3 windows
in a row with a loss (sensitivity only)."""

POLICY_NAMES = (*CC_VARIANTS, *(m["pattern"] for m in _core.power_modes() if m["family"] not in ("cc", "external")))
"""Power-saving policies of the client, as named in the output files: the agent's variants and
the power modes of the name registry (``bsd-P`` is any ``bsd-1`` … ``bsd-1000``)."""

WEB_POLICIES: dict[str, tuple[str, dict | None]] = {
    "tcp": ("cam", None),
    "cc": ("cc", None),
    "cc-nocache": ("cc", {"rtt_cache": False}),
    "ideal-psm": ("ideal-psm", None),
    "psm": ("psm", None),
    "bsd-10": ("bsd-10", None),
    "bsd-20": ("bsd-20", None),
    "bsd-50": ("bsd-50", None),
    "bsd-100": ("bsd-100", None),
}
"""Policies of the web-browsing session: name in tables → (``power_save`` mode, agent
settings or None)."""

WEB_POLICY_NAMES = tuple(WEB_POLICIES)
"""The web session's policy names (the default ``web_policies``)."""


def meter_of(mode: str) -> str:
    """The radio meter that holds a power mode's real energy: the mode's own (its radio row of
    basis ``mode``), or ``always-on`` for a mode that leaves the traffic as it is (``cam``).
    Raises ``wattlab._core.UnknownNameError`` for a name the registry does not know."""
    m = _core.parse_power_mode(mode)
    return m["name"] if m["changes_traffic"] else "always-on"


def policy_settings(policy: str) -> tuple[str, dict | None, str]:
    """(``power_save`` of the hop, its ``agent`` table or None, meter whose energy counts).

    ``cam`` is the paper's baseline TCP: WNIC always on, energy of the ``always-on`` meter; the
    agent's variants are :data:`CC_VARIANTS`; every other name is a power mode of the registry
    (``wattlab._core.parse_power_mode``), e.g. ``psm`` (802.11 PSM at the IP level: wakes for
    every beacon and pays the wake-up each time), ``ideal-psm``, ``bsd-P``.
    """
    if policy in CC_VARIANTS:
        return "cc", CC_VARIANTS[policy], "cc"
    try:
        mode = _core.parse_power_mode(policy)
    except _core.UnknownNameError:
        mode = None
    if mode is None or mode["family"] == "external":
        raise ValueError(f"unknown policy {policy!r} (valid: {', '.join(POLICY_NAMES)})")
    return mode["name"], None, meter_of(mode["name"])


VARIATIONS = {"none": 0.0, "gamma": 1.0, "2var": 2.0}
"""RTT variation → multiplier of the gamma scale: ``none`` = off-peak (DummyNet's constant
delay), ``gamma`` = peak hours, ``2var`` = the deviation doubled (paper's Fig. 16)."""

PEAK = {"none": "off-peak", "gamma": "peak", "2var": "2var"}
"""How the paper names each variation."""


@dataclass(frozen=True)
class Site:
    """One server of the paper's Internet experiments (Fig. 12)."""

    name: str
    rtt_ms: float
    """Base RTT without variation."""
    window_kb: float
    """Average window size (KB = 1024 B), modelled as the client's receive buffer."""


SITES = (
    Site("cs.uiuc.edu", 21, 61),
    Site("hp.com", 58, 31),
    Site("cs.washington.edu", 60, 32),
    Site("jriver.net", 63, 11),
    Site("cs.stanford.edu", 65, 61),
    Site("research.msft.com", 84, 17),
    Site("inria.fr", 114, 61),
)
"""The paper's Fig. 12, in order of increasing RTT (the order of its Fig. 13)."""


@dataclass
class Config(ConfigBase):
    """Every knob of the reproduction; ``full()`` and ``quick_preset()`` are the two presets."""

    file_bytes: int
    """Bytes of each download (paper: files of 4–5 MB; we use 5 MB = 5·10^6 B)."""
    seeds: int
    """Repetitions per point (seeds base_seed … base_seed + seeds − 1, shared by all policies so
    a policy and its baseline see the same loss and jitter draws). Paper: ≥ 3 runs, median reported."""
    rtts_ms: list[float]
    """Base RTTs of the emulated experiments (seed Figs. 14/15, Table I: 30, 45, 60, 90, 120 ms)."""
    losses: list[float]
    """Packet loss rates of the emulated experiments (paper: 'several between 0 and 1 %')."""
    variations: list[str]
    """RTT variations of Figs. 14/15/18 and the sites: off-peak ('none') and peak ('gamma')."""
    fig14_policies: list[str]
    """Policies of the RTT × loss grid (paper's Fig. 15: CC, PSM, BSD-50)."""
    fig16_variations: list[str]
    """The paper's Fig. 16: no variation, gamma, 2var."""
    fig17_competitors: list[int]
    """The paper's Fig. 17: 0–5 competing plain TCP clients."""
    fig17_policies: list[str]
    """The energy-aware client of Fig. 17 (plus 'cam': the same client as plain TCP)."""
    fig18_rates_mbps: list[float]
    """The paper's Fig. 18: AP bandwidths 4, 10, 20, 40 Mb/s."""
    fig18_losses: list[float]
    """Loss rates of Fig. 18 (paper: 'various loss rates')."""
    sites: list[str]
    """Names of the Fig. 12 sites to run."""
    crossover_rtts_ms: list[float]
    """RTTs of the CC-vs-PSM crossover sweep (64 KB window, no loss, off-peak)."""
    stream_delay_rates_mbps: list[float]
    """Hop rates of the 65 ms closed-ACK stream-delay check (paper: 20 Mb/s → 44 %, 40 Mb/s → 16 %)."""
    fig17_media: list[str] = field(default_factory=lambda: ["hop", "wlan"])
    """Fig. 17's topologies: ``hop`` (a wireless hop per client behind a shared FIFO link into
    the AP: the clients share the AP's bandwidth, not its air) and ``wlan`` (every client a
    station of one 802.11 BSS: shared air and AP buffer, the paper's setting)."""
    fig17_wlan_phy: str = "802.11a"
    """PHY of Fig. 17's BSS."""
    fig17_wlan_rate_mbps: float = 48.0
    """Data rate of Fig. 17's BSS. The paper's AP carries 20 Mb/s; an 802.11a BSS at 48 Mb/s
    carries 20.8 Mb/s of TCP goodput with five 64 KB-window downloads at 60 ms (measured in
    wattlab: 54 Mb/s gives 23.9, 36 Mb/s 18.2), the closest to the paper's AP."""
    fig17_ap_queueing: str = "fair-class"
    """The AP's queueing in Fig. 17's BSS: the paper's weighted fair queueing between
    power-saving and regular clients (``fair-class``), or ``fifo``."""
    fig17_power_save_weights: list[float] = field(default_factory=list)
    """Issue 32: the AP's fair-queueing weights of the power-saving class (regular stations
    weigh 1; ``ap_power_save_weight`` of ``[[wlan]]``) under which Fig. 17's PSM client is run
    again on the ``wlan`` medium. The paper's WFQ weights are not given, so the full preset
    sweeps powers of two from 1/8 to 2: the power-saving class's share of a backlogged AP goes
    from 11 % (below one client's share of six, 17 %, the per-client fair share at Fig. 17's
    largest n = 5) through 50 % (weight 1, Fig. 17's own run) to 67 %."""
    fig16_policies: list[str] = field(default_factory=lambda: ["cc", "cc-dynamic"])
    """Detections compared in Fig. 16."""
    fig18_policies: list[str] = field(default_factory=lambda: ["cc", "ideal-psm"])
    """Policies of Fig. 18 (the paper shows CC; PSM is added to show it gains only energy)."""
    site_policies: list[str] = field(default_factory=lambda: ["cc", "ideal-psm"])
    """Policies of the site experiments (paper's Fig. 13: CC and PSM)."""
    window_sensitivity_kb: list[float] = field(default_factory=lambda: [32.0])
    """Receive buffers (KB) of an extra run of the RTT × loss grid (CC and TCP only): the paper
    calls 32 KB the typical average window, and CC's time overhead scales with the window.
    Issue 32's hypothesis that the paper's effective windows were below 64 KB: the full preset
    sweeps 16, 32 and 48 KB (64 KB is the grid itself) and ``window_gap.csv`` states how much
    of the averages' gap each explains."""
    reversion_sensitivity: bool = True
    """Run the RTT × loss grid's lossy points again with ``cc-norevert``, to show what the
    loss reversion (our reading of the paper's mechanism 8) costs."""
    fig15_loss: float = 0.001
    """Loss rate of Fig. 15, Fig. 16 and Fig. 17 (paper: 0.1 %)."""
    table1_loss: float = 0.0
    """Loss rate compared with Table I. The paper's Table I comes from ns-2 runs for which it states
    no loss model (an ns-2 link without one loses nothing); the 0.1 % runs are shown beside it."""
    fig16_rtt_ms: float = 60.0
    """RTT of Figs. 16, 17 and 18 (paper: 60 ms)."""
    table1_wireless: bool = False
    """Run Table I's "wireless" column (issue 32): CC and TCP alone in Fig. 17's 802.11a BSS
    (``fig17_wlan_phy`` at ``fig17_wlan_rate_mbps``) at every RTT. The paper's ns-2 wireless
    set-up is not stated, so the claim compares the wireless/wired ratios, not the values."""
    site_loss: float = 0.0
    """Loss on the site paths. The paper measured the *average window* of each site; with the
    window imposed as the receive buffer, extra random loss would shrink it further, so none."""
    hop_rate_mbps: float = 20.0
    """Bandwidth between AP and client (paper: DummyNet 20 Mb/s)."""
    wired_rate_mbps: float = 100.0
    """AP to Internet (paper: 100 Mb/s)."""
    recv_buffer: int = 65535
    """Client receive buffer (paper: 64 KB socket buffers; without window scaling 65535 B)."""
    tcp_cc: str = "reno"
    """Server congestion control (the paper's Linux 2.4 / FreeBSD era: Reno)."""
    hop_queue: int = 100
    """Packets queued at each end of the wireless hop (held PSM packets count here)."""
    wired_queue: int = 200
    """Packets queued on the 100 Mb/s link."""
    hop_delay_us: float = 1.0
    """Propagation delay of the wireless hop; the wired one-way delay is RTT/2 − this."""
    gamma_shape: float = 2.5
    """Shape k of the peak-hour gamma jitter on the server→AP data path."""
    gamma_scale_ms: float = 2.0
    """Scale θ of that gamma at ``gamma_ref_rtt_ms``: mean kθ = 5 ms, 99th percentile 15.1 ms, so at
    60 ms RTTs mostly lie in 60–75 ms as the paper's fitted pings (61 ms base, RTT 60–75 ms).
    Scaled proportionally to the RTT; '2var' doubles θ (deviation ×2: 60–90 ms at 60 ms)."""
    gamma_ref_rtt_ms: float = 60.0
    """RTT at which ``gamma_scale_ms`` applies."""
    base_seed: int = 1
    """First seed."""
    profile: str = "wavelan-dsss"
    """The client's WNIC (paper: 2.4 GHz WaveLAN DSSS, 2 ms sleep→idle)."""
    # --- web browsing (seed §IV-E, Figs. 9–11; web.py) ---
    web_pages: int = 100
    """Page views of the browsing session (paper: 100 pages, 558 sub-objects, 2.79 MB)."""
    web_policies: list[str] = field(default_factory=lambda: list(WEB_POLICY_NAMES))
    """Policies of the web session (``tcp`` is the always-on baseline; ``cc-nocache`` is CC
    without its RTT cache, for Fig. 10)."""
    web_think_shape: float = 1.5
    """Pareto shape α of the think time after each page. The paper's parameters are illegible
    in its text; these are the issue's defaults (= the ``web`` flow's defaults: mean
    α·scale/(α−1) = 3 s). The paper's 5,400 s for 100 pages would imply ~54 s per page."""
    web_think_scale_s: float = 1.0
    """Pareto scale (the shortest think time), seconds."""
    web_max_connections: int = 4
    """Persistent connections per site (browsers of the paper's era: 2–4)."""
    web_site_delays_ms: list[float] = field(default_factory=lambda: [10.0, 30.0, 60.0])
    """One-way delay from the AP to each synthetic web site (RTTs 20, 60 and 120 ms)."""
    web_think_sensitivity_scales_s: list[float] = field(default_factory=lambda: [18.0])
    """Extra web sessions with these Pareto scales (same shape, every web policy): 18 s gives
    a mean think time of 54 s, the paper's 5,400 s for 100 pages. Shown in summary.md only."""
    web_third_party_delays_ms: list[float] = field(default_factory=list)
    """Issue 32 gap 3, the multi-server page model (empty: not run; the full run's are 5, 30 and
    60 ms): one-way delay from the AP to each third-party server of the pool (RTTs 10, 60 and 120
    ms: a CDN edge near the client and two services as far as the sites). Every page then also
    fetches embedded objects from these servers (the web flow's ``third_party``)."""
    web_third_party_share: float = 0.35
    """Probability that an embedded object comes from a third-party server: Butkiewicz et al.
    (IMC 2011) measured non-origin servers delivering more than 35 % of the bytes of most sites."""
    web_third_party_hosts: list[int] = field(default_factory=lambda: [1, 3])
    """Third-party servers per page, uniform on [min, max] (Butkiewicz et al.: most sites use 5
    or more non-origin servers; the paper's pages have 5.58 embedded objects, about 2 of them
    third-party at the share above, so a page reaches at most 2–3 of them)."""
    web_multiserver_losses: list[float] = field(default_factory=lambda: [0.0])
    """One multi-server session per value: Bernoulli loss on every server's path towards the AP
    (sites and third parties; 0 = loss-free as the single-server session)."""
    web_multiserver_policies: list[str] = field(default_factory=lambda: ["tcp", "cc", "cc-nocache", "ideal-psm"])
    """Policies of the multi-server sessions (``tcp`` is required: every saving is against it)."""
    # --- fairness and friendliness (seed §IV-D, Figs. 6–8, ns-2 in the paper; fairness.py) ---
    fairness_max_flows: int = 10
    """Fig. 6: n CC flows alone and n TCP flows alone, n = 1 … this (paper: 1–10)."""
    fairness_mix_sizes: list[int] = field(default_factory=lambda: [2, 4, 8])
    """Figs. 7/8: CC+TCP, CC+PSM and TCP+PSM with this many flows *of each* (paper: 'two, four
    and eight flows (of each)')."""
    fairness_file_bytes: int = 2_000_000
    """File each client of the fairness runs downloads (the paper's ns-2 size is not stated)."""
    fairness_rtt_ms: float = 60.0
    """Base RTT of the fairness dumbbell."""
    fairness_bottleneck_mbps: float = 20.0
    """Shared FIFO bottleneck into the AP."""
    fairness_bottleneck_queue: int = 100
    """Packets of the bottleneck's FIFO queue (no WFQ)."""
    fairness_start_spread_ms: float = 60.0
    """Each fairness flow starts at a time drawn uniformly from [0, this) with the run's seed
    (one RTT). The paper does not say; with 0 every flow starts at once, the dumbbell has no
    random element and every seed gives the same run."""
    quick: bool = False
    """The reduced preset of the test suite."""

    @classmethod
    def full(cls) -> "Config":
        """Everything of seed §IV-F with 3 seeds and 5 MB files, the 100-page web session
        with every policy (§IV-E) and the fairness runs of Figs. 6–8 (§IV-D)."""
        return cls(
            file_bytes=5_000_000,
            seeds=3,
            rtts_ms=[30, 45, 60, 90, 120],
            losses=[0.0, 0.001, 0.005, 0.01],
            variations=["none", "gamma"],
            fig14_policies=["cc", "ideal-psm", "psm", "bsd-10", "bsd-20", "bsd-50", "bsd-100"],
            fig16_variations=["none", "gamma", "2var"],
            fig17_competitors=[0, 1, 2, 3, 4, 5],
            fig17_policies=["cc", "cc-dynamic", "ideal-psm", "cam"],
            fig18_rates_mbps=[4, 10, 20, 40],
            fig18_losses=[0.0, 0.001, 0.005, 0.01],
            sites=[s.name for s in SITES],
            crossover_rtts_ms=[40, 50, 60, 65, 70, 72, 74, 76, 78, 80, 85, 90, 95, 100, 110, 120],
            stream_delay_rates_mbps=[20, 40],
            window_sensitivity_kb=[16.0, 32.0, 48.0],
            fig17_power_save_weights=[0.125, 0.25, 0.5, 2.0],
            table1_wireless=True,
            web_third_party_delays_ms=[5.0, 30.0, 60.0],
            web_multiserver_losses=[0.0, 0.001],
        )

    @classmethod
    def quick_preset(cls) -> "Config":
        """A small slice of every experiment, 1 MB files, 1 seed, 10 web pages, fairness with
        1–2 flows: a few seconds."""
        return cls(
            file_bytes=1_000_000,
            seeds=1,
            rtts_ms=[30, 90],
            losses=[0.001],
            variations=["none", "gamma"],
            fig14_policies=["cc", "ideal-psm", "bsd-50"],
            fig16_variations=["none", "2var"],
            fig17_competitors=[0, 2],
            fig17_policies=["cc", "ideal-psm", "cam"],
            fig18_rates_mbps=[10, 40],
            fig18_losses=[0.001],
            sites=["cs.uiuc.edu", "jriver.net"],
            crossover_rtts_ms=[60, 90],
            stream_delay_rates_mbps=[20],
            web_pages=10,
            web_policies=["tcp", "cc", "cc-nocache", "ideal-psm", "psm", "bsd-50"],
            web_think_sensitivity_scales_s=[],
            fairness_max_flows=2,
            fairness_mix_sizes=[1],
            quick=True,
        )

    def site(self, name: str) -> Site:
        for s in SITES:
            if s.name == name:
                return s
        raise ValueError(f"unknown site {name!r} (valid: {', '.join(s.name for s in SITES)})")

    def check(self) -> None:
        """Raise ValueError naming the first invalid setting."""
        if self.seeds < 1:
            raise ValueError("--seeds must be at least 1")
        if self.file_bytes < 10_000:
            raise ValueError("file_bytes must be at least 10 kB")
        for p in (self.fig14_policies + self.fig16_policies + self.fig17_policies + self.fig18_policies
                  + self.site_policies):
            policy_settings(p)
        for v in self.variations + self.fig16_variations:
            if v not in VARIATIONS:
                raise ValueError(f"unknown RTT variation {v!r} (valid: {', '.join(VARIATIONS)})")
        for p in self.losses + self.fig18_losses + [self.fig15_loss, self.site_loss, self.table1_loss]:
            if not 0.0 <= p < 1.0:
                raise ValueError(f"loss rate {p} is outside [0, 1)")
        for r in self.rtts_ms + self.crossover_rtts_ms + [self.fig16_rtt_ms]:
            if r * 1000 / 2 <= self.hop_delay_us + 1:
                raise ValueError(f"RTT {r} ms is too small for the topology")
        for s in self.sites:
            self.site(s)
        if any(n < 0 for n in self.fig17_competitors):
            raise ValueError("the number of competing clients must be ≥ 0")
        for m in self.fig17_media:
            if m not in ("hop", "wlan"):
                raise ValueError(f"unknown Fig. 17 medium {m!r} (valid: hop, wlan)")
        if self.fig17_ap_queueing not in ("fifo", "fair-class", "fair-station"):
            raise ValueError(f"unknown AP queueing {self.fig17_ap_queueing!r} (valid: fifo, fair-class, fair-station)")
        if self.fig17_power_save_weights and self.fig17_ap_queueing != "fair-class":
            raise ValueError("fig17_power_save_weights needs fig17_ap_queueing = 'fair-class' (the only discipline "
                             "with a power-saving class)")
        if any(not (1 / 1024 <= w <= 1024) for w in self.fig17_power_save_weights):
            raise ValueError("fig17_power_save_weights must lie in 1/1024..=1024")
        if any(not 0 < w * 1024 <= 65535 for w in self.window_sensitivity_kb):
            raise ValueError("window_sensitivity_kb must lie in (0, 64) KB")
        if not 0 < self.recv_buffer <= 65535:
            raise ValueError("recv_buffer must be in 1..=65535 (no window scaling, as the paper)")
        if not 1 <= self.web_pages <= 10_000:
            raise ValueError("web_pages must be in 1..=10000")
        for p in self.web_policies:
            if p not in WEB_POLICY_NAMES:
                raise ValueError(f"unknown web policy {p!r} (valid: {', '.join(WEB_POLICY_NAMES)})")
        if self.web_policies and "tcp" not in self.web_policies:
            raise ValueError("web_policies must include 'tcp', the baseline every policy is normalized to")
        if self.web_think_shape <= 1.0 or min([self.web_think_scale_s, *self.web_think_sensitivity_scales_s]) <= 0:
            raise ValueError("the web think time needs a Pareto shape > 1 and a scale > 0")
        if not 1 <= self.web_max_connections <= 16:
            raise ValueError("web_max_connections must be in 1..=16")
        if not self.web_site_delays_ms or any(d <= 0 for d in self.web_site_delays_ms):
            raise ValueError("web_site_delays_ms needs at least one site, each with a delay > 0")
        if any(d <= 0 for d in self.web_third_party_delays_ms) or len(self.web_third_party_delays_ms) > 64:
            raise ValueError("web_third_party_delays_ms: at most 64 servers, each with a delay > 0")
        if not 0.0 <= self.web_third_party_share <= 1.0:
            raise ValueError("web_third_party_share must be a probability in [0, 1]")
        if self.web_third_party_delays_ms:
            lo, hi = self.web_third_party_hosts
            if not 0 <= lo <= hi <= len(self.web_third_party_delays_ms):
                raise ValueError("web_third_party_hosts must be [min, max] with 0 ≤ min ≤ max ≤ the pool's size")
            if "tcp" not in self.web_multiserver_policies:
                raise ValueError("web_multiserver_policies must include 'tcp', the baseline of every saving")
            for p in self.web_multiserver_policies:
                if p not in WEB_POLICY_NAMES:
                    raise ValueError(f"unknown web policy {p!r} (valid: {', '.join(WEB_POLICY_NAMES)})")
        if any(not 0.0 <= p < 1.0 for p in self.web_multiserver_losses):
            raise ValueError("web_multiserver_losses must lie in [0, 1)")
        if not 0 <= self.fairness_max_flows <= 64:
            raise ValueError("fairness_max_flows must be in 0..=64")
        if any(not 1 <= k <= 32 for k in self.fairness_mix_sizes):
            raise ValueError("fairness_mix_sizes must lie in 1..=32 (flows of each group)")
        if self.fairness_file_bytes < 10_000:
            raise ValueError("fairness_file_bytes must be at least 10 kB")
        if self.fairness_rtt_ms <= 1 or self.fairness_bottleneck_mbps <= 0 or self.fairness_bottleneck_queue < 1:
            raise ValueError("the fairness dumbbell needs an RTT > 1 ms, a bottleneck rate > 0 and a queue ≥ 1 packet")
        if self.fairness_start_spread_ms < 0:
            raise ValueError("fairness_start_spread_ms must be ≥ 0")


COMMAND = Command(
    help="Paper 000 (Yan et al.): client-centered energy saving. Runs the large downloads' RTT × loss grid (Figs. "
    "14/15, Table I), RTT variation (Fig. 16), competing clients (Fig. 17), AP bandwidth (Fig. 18), the Internet sites "
    "as scenarios (Figs. 12/13) and a CC-vs-PSM crossover sweep, then a web-browsing session under every policy (Figs. "
    "9–11) and the fairness and friendliness mixes (Figs. 6–8); writes CSVs, figures, claims.csv and summary.md with "
    "the paper's numbers beside wattlab's.",
    quick="A small slice of every experiment (2 RTTs, 0.1 % loss, 1 MB files, 1 seed, 10 web pages, fairness with 1–2 "
    "flows): a few seconds. Used by the test suite.",
    out="Directory for the CSV files, PNG figures, claims.csv and summary.md.",
    options=(Option(("--seeds",), "seeds", "Repetitions per point, seeds --seed … --seed+N−1, shared by every policy "
                    "(default 3, or 1 with --quick); tables report the median.", type=click.IntRange(1, 100), metavar="N"),),
    written="summary.md has the reasons",
)
"""``wattlab reproduce yan-cc``."""
