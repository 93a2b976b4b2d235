"""Parameters of the modern-phone study (issue 30, item 5): which schemes, workloads and PHYs,
the workloads' sizes, the phone's profile, and each value's reason (docs/reproductions.md,
"The modern-phone study")."""

from __future__ import annotations

from dataclasses import dataclass, field

import click

from ..options import Command, ConfigBase, Option

PHYS = ("802.11a", "802.11ax")
"""The two PHYs: the seeds' era (802.11a, 54 Mb/s) and today's phones (802.11ax)."""

WORKLOADS = {
    "bulk": "bulk download (one TCP transfer)",
    "web": "web browsing (pages over persistent HTTP/1.1 connections, think times)",
    "video": "video-like CBR stream (UDP, server to phone)",
    "voip": "VoIP-like bidirectional stream (UDP both ways, 50 packets/s)",
    "sync": "background sync (small TCP downloads at a fixed period)",
}
"""Every workload, with what it is."""

SCHEME_FAMILIES = ("cam", "psm", "adaptive-psm", "twt", "u-apsd", "bsd", "cc", "psna", "wwp", "tunnel")
"""Every scheme family the study can run (``schemes.py`` expands the parameterised ones)."""

MODE_FAMILIES = {"psm": "psm", "adaptive-psm": "adaptive-psm", "twt": "twt", "u-apsd": "u-apsd", "bsd": "bsd",
                 "cc": "cc", "psna": "psna"}
"""The power-mode family (the registry's, ``_core.power_modes()``) each scheme family needs."""


def available_schemes() -> list[str]:
    """The scheme families this build of wattlab can run: every one whose power mode is in the
    core's registry (a mode added to the registry joins the study by itself)."""
    from wattlab import _core

    have = {m["family"] for m in _core.power_modes()}
    return [f for f in SCHEME_FAMILIES if MODE_FAMILIES.get(f, "cam") in have | {"cam"}]


INTERACTIVE = ("web", "video", "voip")
"""Workloads whose delay is the user's (p50/p99 reported and compared)."""


@dataclass
class Config(ConfigBase):
    """Every knob of the study; ``full()`` and ``quick_preset()`` are the two presets."""

    seeds: int
    """Repetitions per (workload, PHY, scheme): seeds base_seed … base_seed + seeds − 1."""
    bulk_bytes: int
    """The bulk download's size (bytes)."""
    web_pages: int
    """Page views of the web workload (paper 000's page generator, 3 s mean think time)."""
    stream_s: float
    """Length of the video and VoIP streams (s)."""
    sync_transfers: int
    """Downloads of the background sync, one every ``sync_period_s``."""
    sync_period_s: float
    """Time between sync downloads (s)."""
    phys: list[str] = field(default_factory=lambda: list(PHYS))
    workloads: list[str] = field(default_factory=lambda: list(WORKLOADS))
    schemes: list[str] = field(default_factory=available_schemes)
    """Scheme families to run (default: every one this build has); ``cam`` is always run
    (every saving is against it)."""
    profile: str = "samsung-galaxy-s2"
    """The phone's radio profile (a built-in name or a profile file): the Samsung Galaxy S2's
    EnergyBox levels (sleep 30 mW, awake 250 mW, moving data 450 mW; profiles/), the most
    recent phone among wattlab's profiles. It charges no wake-up transition (its source gives
    none), which flatters every scheme that dozes often; ``--profile atheros-ar5004`` (a
    card with measured wake-ups) is the check."""
    sync_bytes: int = 100_000
    """Size of each sync download: a mail or feed refresh of ~100 kB."""
    video_rate_kbps: float = 2000.0
    """The video stream's payload rate: 2 Mb/s, issue 30's ns-3 reference stream."""
    video_packet_bytes: int = 1000
    """Its datagrams (issue 30's reference: 1000 bytes)."""
    voip_packet_bytes: int = 172
    """VoIP datagrams: G.711 at 20 ms, 160 B of voice + the 12-byte RTP-like header (50 packets/s)."""
    voip_interval_ms: float = 20.0
    """One VoIP packet per direction every 20 ms (G.711/RTP's usual packetisation)."""
    adaptive_timeouts_ms: list[int] = field(default_factory=lambda: [100, 200])
    """Adaptive PSM's inactivity timeouts: 100 ms (mac80211's default, iwlwifi) and 200 ms
    (Broadcom's bcmdhd ``pm2_sleep_ret``), as docs/wlan.md cites them."""
    default_timeout_ms: int = 100
    """The phone's default scheme, against which the seed papers' schemes are also compared:
    adaptive PSM at mac80211's 100 ms."""
    twt_intervals_ms: list[int] = field(default_factory=lambda: [100, 500])
    """TWT wake intervals (802.11ax only): one beacon interval's order (100 ms) and a
    longer, battery-first agreement (500 ms)."""
    twt_duration_ms: float = 8.192
    """TWT nominal minimum wake duration: 8 units of 1024 µs (the TWT element's unit,
    802.11ax-2021 §9.4.2.199), the mode's own example agreement."""
    uapsd_trigger_ms: float = 100.0
    """U-APSD's periodic trigger when nothing else goes uplink (without one a download stalls):
    one beacon interval."""
    bsd_p: int = 50
    """BSD's slowdown bound p (%): paper 000's BSD-50."""
    tunnel_burst: int = 5
    """The SCTP tunnel's burst m (the thesis's gain case, m = 5)."""
    wired_delay_ms: float = 20.0
    """One-way delay of the server's 100 Mb/s link: RTT ≈ 40 ms plus the air (a nearby CDN)."""
    ax_mcs: int = 7
    """802.11ax: HE-MCS 7, 1 stream, 20 MHz, 0.8 µs GI (86 Mb/s; issue 29's reference station)."""
    base_seed: int = 1
    """First seed."""
    quick: bool = False
    """The reduced preset of the test suite."""

    @classmethod
    def full(cls) -> "Config":
        """Every scheme × workload × PHY, 3 seeds, minute-long streams."""
        return cls(seeds=3, bulk_bytes=10_000_000, web_pages=30, stream_s=60.0, sync_transfers=6, sync_period_s=30.0)

    @classmethod
    def quick_preset(cls) -> "Config":
        """Every scheme × workload × PHY, 1 seed, short workloads: under 2 minutes on 2 cores."""
        return cls(seeds=1, bulk_bytes=2_000_000, web_pages=5, stream_s=10.0, sync_transfers=3, sync_period_s=10.0,
                   quick=True)

    def check(self) -> None:
        """Raise ValueError naming the first invalid setting."""
        if self.seeds < 1:
            raise ValueError("--seeds must be at least 1")
        for name, values, known in (("PHY", self.phys, PHYS), ("workload", self.workloads, WORKLOADS),
                                    ("scheme", self.schemes, SCHEME_FAMILIES)):
            bad = [v for v in values if v not in known]
            if bad or not values:
                raise ValueError(f"unknown {name} {bad[0] if bad else '(none given)'!r} (known: {', '.join(known)})")
        missing = [f for f in self.schemes if f not in available_schemes()]
        if missing:
            raise ValueError(f"scheme {missing[0]!r}: this build of wattlab has no power mode "
                             f"{MODE_FAMILIES[missing[0]]!r} (it can run: {', '.join(available_schemes())})")
        self.check_profile()
        if "cam" not in self.schemes:
            self.schemes = ["cam", *self.schemes]
        if self.bulk_bytes < 1 or self.sync_bytes < 1:
            raise ValueError("transfer sizes must be at least 1 byte")
        if self.web_pages < 1 or self.sync_transfers < 1:
            raise ValueError("the web workload needs a page and the sync a transfer")
        if self.stream_s <= 0 or self.sync_period_s <= 0:
            raise ValueError("stream lengths and the sync period must be positive")
        if not self.adaptive_timeouts_ms or any(not 1 <= t <= 10_000 for t in self.adaptive_timeouts_ms):
            raise ValueError("adaptive PSM timeouts are 1..=10000 ms")
        if not self.twt_intervals_ms or any(t <= self.twt_duration_ms for t in self.twt_intervals_ms):
            raise ValueError("TWT wake intervals must exceed the wake duration")

    def check_profile(self) -> None:
        """The profile must load: a built-in name, or a profile file (made absolute, since the
        runs' scenarios are texts with no directory of their own); ValueError names what is
        wrong (for a file: its line and key)."""
        from pathlib import Path

        from wattlab import _core

        if "/" in self.profile or self.profile.endswith(".toml"):
            path = Path(self.profile).expanduser()
            if not path.is_file():
                raise ValueError(f"--profile: no such profile file {self.profile}")
            self.profile = str(path.resolve())
        try:
            _core.profiles([self.profile])
        except ValueError as err:
            raise ValueError(f"--profile: {err}") from None


COMMAND = Command(
    help="Issue 30's modern-phone study (no paper to reproduce): every power-save scheme wattlab has (CAM, PSM, adaptive PSM, "
    "TWT, U-APSD, BSD, the client-centered agent, PSNA, WWP, the SCTP tunnel) on a phone, for five workloads (bulk "
    "download, web, video-like CBR, VoIP-like bidirectional, background sync) on 802.11a and 802.11ax: energy per "
    "delivered MB and per hour, added delay (p50/p99), completion time, savings at equal work against CAM and the "
    "phone's default (adaptive PSM), a Pareto figure of energy vs delay per workload, and findings with evidence.",
    quick="1 seed, a 2 MB download, 5 pages, 10 s streams, 3 syncs: under 2 minutes. Used by the test suite.",
    out="Directory for the CSV files, figures and summary.md.",
    options=(
        Option(("--seeds",), "seeds", "Repetitions per point (default 3, or 1 with --quick).", type=click.IntRange(1, 100),
               metavar="N"),
        Option(("--scheme",), "schemes", f"Scheme families (repeatable; {' '.join(SCHEME_FAMILIES)}; default: every one "
               "whose power mode this build has; cam is always run).", type=click.Choice(SCHEME_FAMILIES), multiple=True, metavar="NAME", dest="scheme_list"),
        Option(("--workload",), "workloads", f"Workloads (repeatable; default all: {' '.join(WORKLOADS)}).",
               type=click.Choice(list(WORKLOADS)), multiple=True, metavar="NAME", dest="workload_list"),
        Option(("--phy",), "phys", "PHYs (repeatable; default both: 802.11a 802.11ax).", type=click.Choice(PHYS),
               multiple=True, metavar="PHY", dest="phy_list"),
        Option(("--profile",), "profile", "The phone's radio profile: a built-in name (wattlab profiles) or a profile "
               "file (default: samsung-galaxy-s2, a phone).", metavar="NAME"),
    ),
    written="summary.md has the summary table per workload and the findings",
)
"""``wattlab reproduce modern-phone``."""
