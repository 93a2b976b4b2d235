"""802.11 closed-form models (computed by the Rust core) and the checks of the MAC against them.

- :func:`bianchi`: Bianchi (2000) saturation throughput, basic access, with the exact
  timings of wattlab's MAC (Ts, Tc from the PHY profile).
- :func:`tcp_capacity`: the collision-free maximum of one TCP flow over one DCF hop
  (data frames plus TCP ACK frames, each with DIFS, mean backoff, SIFS and a MAC ACK).
- :func:`bianchi_check` / :func:`tcp_capacity_check`: run the simulator on the matching
  scenario and return model and simulation side by side.
- :func:`bianchi_ampdu` / :func:`tcp_capacity_ampdu`: the same two models with A-MPDU
  aggregation, immediate Block Ack and EDCA (802.11n/ac/ax), and
  :func:`bianchi_ampdu_check` / :func:`tcp_capacity_ampdu_check` against the simulator.
"""

from __future__ import annotations

import tomllib
from importlib import resources

import pandas as pd

from .. import _core
from ..api import run
from ..scenario_units import Duration, Rate, Size
from ..study.spec import toml_value

#: Rate of each PHY used by the checks, kb/s.
CHECK_RATES = {"802.11a": 54_000, "802.11b": 11_000}


def bianchi(phy: str, rate_kbps: int, ip_bytes: int, n: int) -> dict:
    """Bianchi's saturation throughput of ``n`` stations (dict with tau, p, throughput_bps)."""
    return dict(_core.bianchi(phy, rate_kbps, ip_bytes, n))


def tcp_capacity(
    phy: str, rate_kbps: int, payload_bytes: int, data_ip_bytes: int, ack_ip_bytes: int, segments_per_ack: int = 1
) -> dict:
    """Collision-free TCP maximum over one DCF hop (dict with mac_only_bps and tcp_bps)."""
    return dict(_core.tcp_capacity(phy, rate_kbps, payload_bytes, data_ip_bytes, ack_ip_bytes, segments_per_ack))


def _base(name: str) -> tuple[str, dict]:
    """The base scenario ``name`` of this package: its text and its parsed table."""
    text = resources.files(__package__).joinpath(name).read_text(encoding="utf-8")
    return text, tomllib.loads(text)


def _overrides(pairs: list[tuple[str, object]]) -> list[str]:
    """Typed overrides as the ``key=value`` strings ``wattlab.run`` takes."""
    return [f"{key}={toml_value(value)}" for key, value in pairs]


def saturation_overrides(phy: str, rate_kbps: int, n: int, seconds: float = 5.0, ip_bytes: int = 1500) -> list[str]:
    """Overrides of ``saturation.toml``: ``n`` stations flooding the AP with UDP at twice their
    share of the PHY rate (never-empty queues)."""
    return _overrides([
        ("name", f"saturation-{phy}-{n}"),
        *_flood("saturation.toml", n, rate_kbps, seconds, ip_bytes),
        ("wlan.0.phy", phy),
        ("wlan.0.rate", Rate.kbps(rate_kbps)),
    ])


def _flood(base: str, n: int, rate_kbps: int, seconds: float, ip_bytes: int) -> list[tuple[str, object]]:
    """Overrides of the saturation scenario ``base``: ``n`` stations, each flooding the sink
    with UDP at twice its share of ``rate_kbps`` (never-empty queues), for ``seconds``."""
    _, table = _base(base)
    names = [f"s{i}" for i in range(1, n + 1)]
    stations = [{"name": s, "kind": "host"} for s in names]
    flows = [
        {"kind": "udp-cbr", "from": s, "to": "sink", "port": 1000 + i,
         "rate": Rate.kbps(2 * rate_kbps // n + 1), "packet_size": Size(ip_bytes - 28)}
        for i, s in enumerate(names, start=1)
    ]
    return [
        ("simulation.duration", Duration.s(seconds)),
        ("node", [*table["node"], *stations]),
        ("wlan.0.stations", names),
        ("flow", flows),
    ]


def bianchi_check(ns=(1, 5, 10, 20), phys=("802.11a", "802.11b"), seconds: float = 5.0, seed: int = 1) -> pd.DataFrame:
    """Simulated saturation throughput against Bianchi's model, one row per (PHY, n)."""
    rows = []
    for phy in phys:
        rate = CHECK_RATES[phy]
        for n in ns:
            res = run(text=_base("saturation.toml")[0], overrides=saturation_overrides(phy, rate, n, seconds), seed=seed)
            received = sum(f["datagrams_received"] for f in res.summary["flows"])
            sim_bps = received * 1500 * 8 / seconds
            model = bianchi(phy, rate, 1500, n)
            stations = res.summary["wlans"][0]["stations"][1:]
            rows.append(
                {
                    "phy": phy,
                    "rate_mbps": rate / 1000,
                    "n": n,
                    "sim_mbps": sim_bps / 1e6,
                    "bianchi_mbps": model["throughput_bps"] / 1e6,
                    "error_pct": 100 * (sim_bps - model["throughput_bps"]) / model["throughput_bps"],
                    # Bianchi's p: the probability that a transmitted frame collides.
                    "sim_p": sum(s["collisions"] for s in stations) / max(1, sum(s["attempts"] for s in stations)),
                    "model_p": model["p"],
                }
            )
    return pd.DataFrame(rows)


def tcp_overrides(delayed_ack: bool, megabytes: int = 20) -> list[str]:
    """Overrides of ``tcp-upload.toml``: delayed ACKs on or off, the upload's size."""
    return _overrides([
        ("name", f"tcp-802.11a-{'delack' if delayed_ack else 'ack-every-segment'}"),
        ("flow.0.tcp.delayed_ack", delayed_ack),
        ("flow.0.bytes", Size(megabytes * 1_000_000)),
    ])


def tcp_capacity_check(seed: int = 1) -> pd.DataFrame:
    """One TCP flow over 802.11a 54 Mb/s against the collision-free TCP maximum."""
    rows = []
    for delayed, per_ack in ((False, 1), (True, 2)):
        res = run(text=_base("tcp-upload.toml")[0], overrides=tcp_overrides(delayed), seed=seed)
        flow = res.summary["flows"][0]
        cap = tcp_capacity("802.11a", 54_000, 1460, 1500, 40, per_ack)
        rows.append(
            {
                "acks": "delayed (1 per 2 segments)" if delayed else "every segment",
                "sim_mbps": flow["goodput_bps"] / 1e6,
                "tcp_max_mbps": cap["tcp_bps"] / 1e6,
                "error_pct": 100 * (flow["goodput_bps"] - cap["tcp_bps"]) / cap["tcp_bps"],
                "mac_only_mbps": cap["mac_only_bps"] / 1e6,
                "retransmits": flow["retransmitted_segments"],
            }
        )
    return pd.DataFrame(rows)


#: The 802.11ax configuration of the aggregation checks: HE-MCS 7, 20 MHz, 1 stream, 0.8 µs GI.
AX_CHECK = {"phy": "802.11ax", "mcs": 7, "nss": 1, "width": 20, "gi": 800}


def bianchi_ampdu(n: int, ip_bytes: int = 1500, *, phy: str = "802.11ax", mcs: int = 7, nss: int = 1,
                  width: int = 20, gi: int = 800) -> dict:
    """Bianchi's saturation throughput of ``n`` stations sending A-MPDUs with immediate Block
    Ack under EDCA AC_BE (dict with mpdus, ppdu_us, ts_us, tc_us, tau, p, throughput_bps)."""
    return dict(_core.bianchi_ampdu(phy, mcs, nss, width, gi, n, ip_bytes))


def tcp_capacity_ampdu(segments_per_ack: int = 2, payload_bytes: int = 1460, data_ip_bytes: int = 1500,
                       ack_ip_bytes: int = 40, *, phy: str = "802.11ax", mcs: int = 7, nss: int = 1,
                       width: int = 20, gi: int = 800) -> dict:
    """Collision-free TCP maximum with data A-MPDUs up and TCP-ACK A-MPDUs down (dict with
    mac_only_bps, tcp_bps, data_mpdus, acks_per_ampdu)."""
    return dict(_core.tcp_capacity_ampdu(phy, mcs, nss, width, gi, payload_bytes, data_ip_bytes, ack_ip_bytes,
                                         segments_per_ack))


def _phy_overrides(cfg: dict) -> list[tuple[str, object]]:
    """The ``[[wlan]]`` keys of an HT/VHT/HE configuration (``AX_CHECK``'s form)."""
    return [("wlan.0.phy", cfg["phy"]), ("wlan.0.mcs", cfg["mcs"]), ("wlan.0.nss", cfg["nss"]),
            ("wlan.0.width", cfg["width"]), ("wlan.0.gi", f"{cfg['gi']}ns")]


def saturation_ampdu_overrides(n: int, seconds: float = 5.0, ip_bytes: int = 1500, cfg: dict = AX_CHECK) -> list[str]:
    """Overrides of ``saturation-ax.toml``: ``n`` stations flooding the AP with UDP at twice
    their share of the PHY rate (never-empty queues) with the configuration ``cfg``."""
    rate_kbps = bianchi_ampdu(1, ip_bytes, **cfg)["data_rate_bps"] // 1000
    return _overrides([
        ("name", f"saturation-{cfg['phy']}-mcs{cfg['mcs']}-{cfg['width']}mhz-{n}"),
        *_flood("saturation-ax.toml", n, rate_kbps, seconds, ip_bytes),
        *_phy_overrides(cfg),
    ])


def bianchi_ampdu_check(ns=(1, 5, 10, 20), seconds: float = 5.0, seed: int = 1, cfg: dict = AX_CHECK) -> pd.DataFrame:
    """Simulated saturation throughput with aggregation against Bianchi's model with A-MPDU
    and Block Ack, one row per n."""
    rows = []
    for n in ns:
        res = run(text=_base("saturation-ax.toml")[0], overrides=saturation_ampdu_overrides(n, seconds, cfg=cfg), seed=seed)
        received = sum(f["datagrams_received"] for f in res.summary["flows"])
        sim_bps = received * 1500 * 8 / seconds
        model = bianchi_ampdu(n, **cfg)
        stations = res.summary["wlans"][0]["stations"][1:]
        ampdus = sum(s["ampdus"] for s in stations)
        rows.append(
            {
                "config": f"HE-MCS {cfg['mcs']} {cfg['width']} MHz",
                "n": n,
                "mpdus": model["mpdus"],
                "sim_mpdus": sum(s["ampdu_mpdus"] for s in stations) / max(1, ampdus),
                "sim_mbps": sim_bps / 1e6,
                "model_mbps": model["throughput_bps"] / 1e6,
                "error_pct": 100 * (sim_bps - model["throughput_bps"]) / model["throughput_bps"],
                "sim_p": sum(s["collisions"] for s in stations) / max(1, sum(s["attempts"] for s in stations)),
                "model_p": model["p"],
            }
        )
    return pd.DataFrame(rows)


def tcp_ampdu_overrides(delayed_ack: bool, megabytes: int = 50, cfg: dict = AX_CHECK) -> list[str]:
    """Overrides of ``tcp-upload-ax.toml``: delayed ACKs on or off, the upload's size, the PHY."""
    return _overrides([
        ("name", f"tcp-{cfg['phy']}-mcs{cfg['mcs']}-{cfg['width']}mhz-{'delack' if delayed_ack else 'ack-every-segment'}"),
        ("flow.0.tcp.delayed_ack", delayed_ack),
        ("flow.0.bytes", Size(megabytes * 1_000_000)),
        *_phy_overrides(cfg),
    ])


def tcp_capacity_ampdu_check(seed: int = 1, cfg: dict = AX_CHECK) -> pd.DataFrame:
    """One TCP flow over 802.11ax with aggregation against the collision-free TCP maximum."""
    rows = []
    for delayed, per_ack in ((False, 1), (True, 2)):
        res = run(text=_base("tcp-upload-ax.toml")[0], overrides=tcp_ampdu_overrides(delayed, cfg=cfg), seed=seed)
        flow = res.summary["flows"][0]
        cap = tcp_capacity_ampdu(per_ack, **cfg)
        rows.append(
            {
                "acks": "delayed (1 per 2 segments)" if delayed else "every segment",
                "mpdus": cap["data_mpdus"],
                "sim_mbps": flow["goodput_bps"] / 1e6,
                "tcp_max_mbps": cap["tcp_bps"] / 1e6,
                "error_pct": 100 * (flow["goodput_bps"] - cap["tcp_bps"]) / cap["tcp_bps"],
                "mac_only_mbps": cap["mac_only_bps"] / 1e6,
                "retransmits": flow["retransmitted_segments"],
            }
        )
    return pd.DataFrame(rows)
