"""The paper's path (``path.toml``, the same as scenarios/psna-transfer-a.toml and -b.toml,
which a test checks) with the run's power-save mode, the transfer and ``cross_flows`` long TCP
downloads congesting Perth -> Italy, as typed overrides.

``overrides(cfg, transfer, arch)`` is one run; ``prefix(cfg, transfer, arch)`` is the same path
without the transfer, stopped at its start: its client-radio energy is the card's before the
request, which every architecture's figure leaves out."""

from __future__ import annotations

from typing import Any

from wattlab.scenario_units import Duration, Size

from ..scenarios import base
from .config import TRANSFERS, Config

BASE = base(__package__, "path.toml")
"""The path every run shares."""

RUN_S = 40_000.0
"""A run's simulated time: long enough for transfer B under legacy TCP (~10,000 s)."""


def _kind(transfer: str, arch: str) -> str:
    direction = TRANSFERS[transfer][0]
    if arch == "psna":
        return "psna-send" if direction == "send" else "psna-read"
    return "bulk-upload" if direction == "send" else "bulk-download"


def _mode(arch: str) -> str:
    return {"legacy": "cam", "psna": "psna", "psm": "psm", "cc": "cc"}[arch]


def _cross(cfg: Config) -> list[dict[str, Any]]:
    return [{"kind": "bulk-download", "name": f"cross{i}", "client": "pisa", "server": "perth", "port": 8000 + i,
             "bytes": Size.mb(1000), "start": Duration.s(i), "background": True} for i in range(cfg.cross_flows)]


def _path(arch: str, duration_s: float, flows: list[dict[str, Any]]) -> list[tuple[str, Any]]:
    return [("name", f"psna-{arch}"), ("simulation.duration", Duration.s(duration_s)), ("wlan.bss.power_save", _mode(arch)),
            ("flow", flows)]


def flow_name(transfer: str) -> str:
    return f"transfer-{transfer.lower()}"


def overrides(cfg: Config, transfer: str, arch: str, extra: dict[str, Any] | None = None) -> list[tuple[str, Any]]:
    """One run: the transfer under ``arch`` on the congested path; ``extra`` adds flow keys
    (``{"tcp": {"mss": 536}}``; a ``psna`` table only reaches PSNA's flow), and its
    ``transitions`` goes to the client's radio (the meter's transition costs)."""
    extra = dict(extra or {})
    transitions = extra.pop("transitions", None)
    flow = {"kind": _kind(transfer, arch), "name": flow_name(transfer), "client": "client", "server": "server",
            "bytes": Size.kb(TRANSFERS[transfer][1] // 1000), "start": Duration.s(cfg.start_s),
            **{k: v for k, v in extra.items() if k != "psna" or arch == "psna"}}
    radio = [] if transitions is None else [("node.client.radio.transitions", transitions)]
    return _path(arch, RUN_S, [flow, *_cross(cfg)]) + radio


def prefix(cfg: Config, transfer: str, arch: str) -> list[tuple[str, Any]]:
    """The same path without the transfer, until the transfer's start."""
    return _path(arch, cfg.start_s, _cross(cfg))
