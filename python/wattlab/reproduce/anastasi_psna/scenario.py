"""The paper's path as TOML (the same as scenarios/psna-transfer-a.toml and -b.toml, which a test
checks): an 802.11 DSSS 2 Mb/s BSS, a 24 kb/s, 200 ms intercontinental bottleneck with 30 kB
queues and 0.2 % loss each way, and ``cross_flows`` long TCP downloads congesting Perth -> Italy.

``scenario(cfg, transfer, arch)`` is one run; ``prefix(cfg, transfer, arch)`` is the same path
without the transfer, stopped at its start: its client-radio energy is the card's before the
request, which every architecture's figure leaves out."""

from __future__ import annotations

from .config import TRANSFERS, Config

_NODES = [("server", "host"), ("perth", "host"), ("au", "router"), ("ap", "ap"), ("pisa", "host"), ("client", "host")]
_LINKS = [("perth-lan", "server", "au"), ("perth-hosts", "perth", "au")]


def _kind(transfer: str, arch: str) -> str:
    direction = TRANSFERS[transfer][0]
    if arch == "psna":
        return "psna-send" if direction == "send" else "psna-read"
    return "bulk-upload" if direction == "send" else "bulk-download"


def _mode(arch: str) -> str:
    return {"legacy": "cam", "psna": "psna", "psm": "psm", "cc": "cc"}[arch]


def _path(cfg: Config, arch: str, duration_s: float, transitions: str | None = None) -> list[str]:
    out = [f'name = "psna-{arch}"', "", "[simulation]", "seed = 1", f'duration = "{duration_s:g}s"', ""]
    radio = ', transitions = ' + transitions if transitions else ""
    for name, kind in _NODES:
        out += ["[[node]]", f'name = "{name}"', f'kind = "{kind}"']
        if name == "client":
            out.append(f'radio = {{ profile = "wavelan-turbo-2mbps", policies = ["always-on"]{radio} }}')
        out.append("")
    for name, a, b in _LINKS:
        out += ["[[link]]", f'name = "{name}"', f'a = "{a}"', f'b = "{b}"', 'rate = "10Mbps"', 'delay = "1ms"', ""]
    out += ["[[link]]", 'name = "internet"', 'a = "au"', 'b = "ap"', 'rate = "24kbps"', 'delay = "200ms"',
            'queue = { bytes = "30kB" }', 'a_to_b = { loss = { model = "bernoulli", p = 0.002 } }',
            'b_to_a = { loss = { model = "bernoulli", p = 0.002 } }', ""]
    out += ["[[link]]", 'name = "pisa-lan"', 'a = "pisa"', 'b = "ap"', 'rate = "10Mbps"', 'delay = "1ms"', ""]
    out += ["[[wlan]]", 'name = "bss"', 'ap = "ap"', 'stations = ["client"]', 'phy = "dsss-2mbps"', 'rate = "2Mbps"',
            f'power_save = "{_mode(arch)}"', ""]
    return out


def _cross(cfg: Config) -> list[str]:
    out = []
    for i in range(cfg.cross_flows):
        out += ["[[flow]]", 'kind = "bulk-download"', f'name = "cross{i}"', 'client = "pisa"', 'server = "perth"',
                f"port = {8000 + i}", 'bytes = "1GB"', f'start = "{i}s"', "background = true", ""]
    return out


def flow_name(transfer: str) -> str:
    return f"transfer-{transfer.lower()}"


def scenario(cfg: Config, transfer: str, arch: str, extra: dict[str, str] | None = None) -> str:
    """One run: the transfer under ``arch`` on the congested path; ``extra`` adds flow keys
    (``{"tcp": "{ mss = 536 }"}``; a ``psna`` table only reaches PSNA's flow), and its
    ``transitions`` goes to the client's radio (the meter's transition costs)."""
    size = TRANSFERS[transfer][1]
    extra = dict(extra or {})
    transitions = extra.pop("transitions", None)
    flow = ["[[flow]]", f'kind = "{_kind(transfer, arch)}"', f'name = "{flow_name(transfer)}"', 'client = "client"',
            'server = "server"', f'bytes = "{size // 1000}kB"', f'start = "{cfg.start_s:g}s"']
    flow += [f"{k} = {v}" for k, v in extra.items() if k != "psna" or arch == "psna"] + [""]
    return "\n".join(_path(cfg, arch, 40_000.0, transitions) + flow + _cross(cfg))


def prefix(cfg: Config, transfer: str, arch: str) -> str:
    """The same path without the transfer, until the transfer's start."""
    return "\n".join(_path(cfg, arch, cfg.start_s) + _cross(cfg))
