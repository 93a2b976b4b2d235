"""The study's schemes: what each one changes in the phone's scenario (its ``power_save``
table, a ``[[tunnel]]``, or the transport of its downloads) and where it applies. A scheme
that does not apply to a workload or a PHY is not run, and :func:`not_applicable` says why
(summary.md's "Where a scheme does not apply")."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from wattlab.scenario_units import Duration

from .config import Config
from .workloads import PHONE

SEED_SCHEMES = ("bsd", "cc", "psna", "wwp", "tunnel")
"""The schemes the seed papers proposed or measured beyond 802.11's own modes (paper 000: the
CC agent, and BSD from Krashinsky & Balakrishnan; 001: PSNA; 002: the SCTP tunnel; 004: WWP),
against today's modes. PSM and U-APSD are the standard's (U-APSD is what phones use for
VoIP), so they are not counted among them."""
MODERN = ("adaptive-psm", "twt")
"""What phones run today."""

PSNA_PORT = 7300
"""PSNA's daemon port (its default); the k-th transfer of a workload uses PSNA_PORT + k."""
WWP_PORT = 9400
"""WWP's port (its default); the k-th transfer of a workload uses WWP_PORT + k."""
TCP_ONLY = {
    "cc": "the agent shapes TCP only: with a datagram flow at the phone it keeps the radio awake (docs/agent.md), "
          "so the run would be CAM's",
    "tunnel": "the tunnel carries TCP only (one SCTP stream per TCP connection); the UDP stream passes beside it, so "
              "the run would be U-APSD's",
}
OBJECT_ONLY = {
    "psna": "PSNA relays one object of known size per transfer (PS-TP, stop-and-wait, through the AP's daemon): "
            "{what}",
    "wwp": "WWP is a reliable bulk transfer in waves (wwp-bulk has no request/response application): {what}",
}
WHY_NOT_OBJECT = {
    "web": "a page's objects are requested as its HTML arrives, a chain of small request/response exchanges, not one "
           "known object",
    "video": "a real-time stream cannot wait for a whole object",
    "voip": "a real-time two-way stream cannot wait for a whole object",
}


@dataclass(frozen=True)
class Scheme:
    """One scheme as the study runs it."""

    key: str
    """Its name in the tables: the power mode's canonical name, or the seed scheme's
    (``psna``, ``wwp``, ``tunnel-m5``)."""
    family: str
    """Its family (``config.SCHEME_FAMILIES``)."""
    power_save: Any
    """The BSS's ``power_save`` value (a mode name or a table)."""
    transport: str = "tcp"
    """``tcp`` (the workload's flows as they are), ``psna`` or ``wwp`` (its downloads carried by
    PSNA's ``psna-read`` or WWP's ``wwp-bulk``, same names and bytes)."""
    tunnel: dict | None = None
    """A ``[[tunnel]]`` entry for the phone, or None."""
    phys: tuple[str, ...] = ("802.11a", "802.11ax")
    """PHYs it runs on."""
    note: str = ""
    """What it is, in a few words (summary.md)."""

    def overrides(self, flows: list[dict]) -> list[tuple[str, Any]]:
        """The scheme's overrides of the base, given the workload's flows."""
        out: list[tuple[str, Any]] = [("wlan.bss.power_save", self.power_save), ("flow", [self.carry(f, i) for i, f in enumerate(flows)])]
        if self.tunnel is not None:
            out.append(("tunnel", [self.tunnel]))
        return out

    def carry(self, flow: dict, index: int) -> dict:
        """``flow`` (the workload's ``index``-th) as this scheme's transport carries it (a TCP
        download becomes PSNA's or WWP's transfer of the same bytes, under the same name, so that
        the work compares flow by flow; each PSNA or WWP transfer has its own port)."""
        if flow["kind"] != "bulk-download" or self.transport == "tcp":
            return flow
        common = {"name": flow["name"], "bytes": flow["bytes"], "start": flow["start"]}
        if self.transport == "psna":
            return {"kind": "psna-read", "client": flow["client"], "server": flow["server"], **common,
                    "psna": {"daemon_port": PSNA_PORT + index}}
        return {"kind": "wwp-bulk", "from": flow["server"], "to": flow["client"], **common, "port": WWP_PORT + index}


def schemes(cfg: Config) -> list[Scheme]:
    """Every scheme of the configuration's families, in the tables' order (CAM first)."""
    out: list[Scheme] = []
    for fam in cfg.schemes:
        if fam == "cam":
            out.append(Scheme("cam", fam, "cam", note="constantly awake: the reference"))
        elif fam == "psm":
            out.append(Scheme("psm", fam, "psm", note="802.11 PSM, PS-Poll per held frame, every beacon"))
        elif fam == "adaptive-psm":
            out += [Scheme(f"adaptive-psm:timeout={t}ms", fam, f"adaptive-psm:timeout={t}ms",
                           note=f"phone drivers' dynamic PS, awake {t} ms after the last frame")
                    for t in cfg.adaptive_timeouts_ms]
        elif fam == "twt":
            out += [Scheme(twt_name(i, cfg.twt_duration_ms), fam, twt_name(i, cfg.twt_duration_ms), phys=("802.11ax",),
                           note=f"individual TWT, a {cfg.twt_duration_ms:g} ms service period every {i} ms")
                    for i in cfg.twt_intervals_ms]
        elif fam == "u-apsd":
            out.append(Scheme("u-apsd", fam, uapsd(cfg), note=f"U-APSD, uplink frames trigger, else every "
                                                           f"{cfg.uapsd_trigger_ms:g} ms"))
        elif fam == "bsd":
            out.append(Scheme(f"bsd-{cfg.bsd_p}", fam, f"bsd-{cfg.bsd_p}", note=f"Bounded Slowdown, p = {cfg.bsd_p} % (paper 000)"))
        elif fam == "cc":
            out.append(Scheme("cc", fam, "cc", note="paper 000's client-centered agent shaping TCP"))
        elif fam == "psna":
            out.append(Scheme("psna", fam, "psna", transport="psna", note="paper 001's split connection, card off between polls"))
        elif fam == "wwp":
            out.append(Scheme("wwp", fam, "cam", transport="wwp", note="paper 004's Wave & Wait transport, radio always on"))
        elif fam == "tunnel":
            out.append(Scheme(f"tunnel-m{cfg.tunnel_burst}", fam, uapsd(cfg), tunnel={"client": PHONE, "burst": cfg.tunnel_burst},
                              note=f"paper 002's SCTP tunnel (m = {cfg.tunnel_burst}) with U-APSD triggers"))
    return out


def uapsd(cfg: Config) -> dict:
    """U-APSD with the configuration's periodic trigger."""
    return {"mode": "u-apsd", "uapsd_trigger_interval": Duration.ms(cfg.uapsd_trigger_ms)}


def twt_name(interval_ms: int, duration_ms: float) -> str:
    """The TWT mode's name for one agreement (unannounced: the station wakes at its service
    periods without telling the AP)."""
    return f"twt:interval={interval_ms}ms,duration={round(duration_ms * 1000)}us"


def not_applicable(s: Scheme, workload: str, phy: str) -> str:
    """Why ``s`` is not run for ``workload`` on ``phy``; "" when it is."""
    if phy not in s.phys:
        return f"{s.family} needs the HE PHY (802.11ax); {phy} cannot carry it"
    if s.family in TCP_ONLY and workload in ("video", "voip"):
        return TCP_ONLY[s.family]
    if s.family in OBJECT_ONLY and workload in WHY_NOT_OBJECT:
        return OBJECT_ONLY[s.family].format(what=WHY_NOT_OBJECT[workload])
    return ""

