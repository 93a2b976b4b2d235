"""One run's scenario: ``phone.toml`` with the PHY's BSS, the radio profile, the workload's
flows and the scheme's settings, all as typed overrides."""

from __future__ import annotations

from typing import Any

from ..scenarios import base
from . import workloads
from .config import Config
from .schemes import Scheme

BASE = base(__package__, "phone.toml")
"""The base scenario of every run (802.11a at 54 Mb/s, CAM, a 2 MB download)."""


def bss(phy: str, cfg: Config) -> list[tuple[str, Any]]:
    """The BSS for ``phy``: the base's 802.11a at 54 Mb/s, or 802.11ax at HE-MCS ``cfg.ax_mcs``,
    1 stream, 20 MHz, 0.8 µs GI (the whole table, since 802.11ax takes an MCS, not a rate)."""
    if phy == "802.11a":
        return []
    return [("wlan.bss", {"name": "bss", "ap": "ap", "stations": [workloads.PHONE], "phy": phy, "band": "5GHz",
                          "mcs": cfg.ax_mcs, "nss": 1, "width": 20, "gi": "800ns", "power_save": "cam"})]


def overrides(workload: str, phy: str, scheme: Scheme, cfg: Config) -> list[tuple[str, Any]]:
    """Every override of one run."""
    return [("name", f"modern-phone {workload} {phy} {scheme.key}"),
            ("node.phone.radio.profile", cfg.profile),
            *bss(phy, cfg),
            *scheme.overrides(workloads.flows(workload, cfg))]
