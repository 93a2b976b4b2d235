"""Paper 000's DummyNet testbed (§IV-A, Fig. 5) as base scenarios and typed overrides:
``download.toml`` (one client), ``download-shared.toml`` (competing clients on hops behind a
shared link) and ``download-wlan.toml`` (competing clients in one BSS).

One client::

    server ──100 Mb/s, RTT/2 − hop delay── ap ~~ wireless hop (rate, loss, power_save) ~~ client

With competing clients (Fig. 17) the AP's bandwidth is shared: a link of the hop's rate into
the AP carries every flow (one FIFO, the bottleneck), and each client has its own
``[[wireless]]`` hop behind the AP::

    server ──100 Mb/s── gw ──rate, 1 µs── ap ~~ hop ~~ client        (the measured client)
                                             ~~ hop1 ~~ tcp1 ... tcpN (plain TCP, radio on)

With ``medium = "wlan"`` (Fig. 17 with shared air) every client is a station of one 802.11
BSS: the AP's one transmit buffer, under the paper's fair queueing between power-saving and
regular clients (``ap_queueing``), and the contention for the air are shared::

    server ──100 Mb/s, RTT/2── ap ~~ [[wlan]] (802.11a) ~~ client, tcp1 ... tcpN

Peak hours: gamma jitter on the server→AP direction (the data path), never reordering.
Loss: Bernoulli on the hop's AP→client direction (the paper does not tell wireless from wired
loss; the ACK path is loss-free).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from wattlab.scenario_units import Duration, Rate

from ..scenarios import Base, base
from .config import VARIATIONS, Config, policy_settings

BASES = {"hop": base(__package__, "download.toml"), "shared": base(__package__, "download-shared.toml"),
         "wlan": base(__package__, "download-wlan.toml")}
"""The base scenario of each topology: one client, competing clients on hops, clients in a BSS."""


@dataclass(frozen=True)
class Download:
    """One download's setting (everything but the seed)."""

    policy: str
    rtt_ms: float
    loss: float = 0.0
    variation: str = "none"
    rate_mbps: float = 20.0
    recv_buffer: int = 65535
    competitors: int = 0
    medium: str = "hop"
    """``hop``: a ``[[wireless]]`` hop per client behind a shared link into the AP; ``wlan``: the
    clients are stations of one 802.11 BSS (shared air and AP buffer)."""
    ap_power_save_weight: float | None = None
    """``wlan`` only: the AP's fair-queueing weight of the power-saving class (regular stations
    weigh 1); None leaves the scenario's default (1)."""

    def name(self) -> str:
        """A name that identifies the setting (equal settings give equal scenarios)."""
        medium = "" if self.medium == "hop" else f"-{self.medium}"
        weight = "" if self.ap_power_save_weight is None else f"-psw{self.ap_power_save_weight:g}"
        return (f"yan-cc-{self.policy}-{self.rtt_ms:g}ms-loss{self.loss:g}-{self.variation}-{self.rate_mbps:g}Mbps"
                f"-win{self.recv_buffer}-comp{self.competitors}{medium}{weight}")


def gamma_jitter(rtt_ms: float, variation: str, cfg: Config) -> tuple[float, float] | None:
    """(shape, scale in ms) of the peak-hour jitter at this RTT, or None off-peak."""
    mult = VARIATIONS[variation]
    if mult == 0:
        return None
    return cfg.gamma_shape, cfg.gamma_scale_ms * rtt_ms / cfg.gamma_ref_rtt_ms * mult


def _ms(ms: float) -> Duration:
    """``ms`` milliseconds to the nanosecond."""
    return Duration(round(ms * 1e6))


def _mbps(mbps: float) -> Rate:
    return Rate(round(mbps * 1e6))


def _jitter(d: Download, cfg: Config) -> list[tuple[str, Any]]:
    """The peak-hour jitter on the server's link, if any."""
    jitter = gamma_jitter(d.rtt_ms, d.variation, cfg)
    if not jitter:
        return []
    shape, scale_ms = jitter
    return [("link.internet.a_to_b", {"jitter": {"model": "gamma", "shape": shape, "scale": _ms(scale_ms)}})]


def _hop(name: str, station: str, d: Download, cfg: Config, power_save: str, agent: dict | None) -> dict[str, Any]:
    hop = {"name": name, "ap": "ap", "station": station, "rate": _mbps(d.rate_mbps), "delay": _ms(cfg.hop_delay_us / 1000),
           "queue": {"packets": cfg.hop_queue}, "power_save": power_save}
    if d.loss > 0:
        hop["down"] = {"loss": {"model": "bernoulli", "p": d.loss}}
    if agent:
        hop["agent"] = agent
    return hop


def _client(name: str, cfg: Config) -> dict[str, Any]:
    return {"name": name, "kind": "host", "radio": {"profile": cfg.profile, "policies": ["always-on", "oracle"]}}


def _flow(name: str, client: str, port: int, d: Download, cfg: Config) -> dict[str, Any]:
    return {"kind": "bulk-download", "name": name, "client": client, "server": "server", "port": port,
            "bytes": cfg.file_bytes, "tcp": {"cc": cfg.tcp_cc, "recv_buffer": d.recv_buffer}}


def _competitors(b: Base, d: Download, cfg: Config, hop: str = "") -> list[tuple[str, Any]]:
    """The competing clients' nodes, flows and (with ``hop``, the array their hops join) hops:
    whole arrays after the base's entries, so they come before the overrides of those entries."""
    ids = range(1, d.competitors + 1)
    out = [b.extended("node", [_client(f"tcp{i}", cfg) for i in ids]),
           b.extended("flow", [_flow(f"tcp{i}", f"tcp{i}", 80 + i, d, cfg) for i in ids])]
    if hop:
        out.append(b.extended(hop, [_hop(f"hop{i}", f"tcp{i}", d, cfg, "cam", None) for i in ids]))
    return out


def download(d: Download, cfg: Config) -> tuple[Base, list[tuple[str, Any]]]:
    """One download's base scenario and overrides (with ``d.competitors`` plain TCP clients
    downloading alongside)."""
    if d.medium == "wlan":
        return wlan_download(d, cfg)
    power_save, agent, _ = policy_settings(d.policy)
    shared = d.competitors > 0
    b = BASES["shared" if shared else "hop"]
    shared_delay_ms = cfg.hop_delay_us / 1000 if shared else 0.0
    wired_ms = d.rtt_ms / 2 - cfg.hop_delay_us / 1000 - shared_delay_ms
    over = [*(_competitors(b, d, cfg, "wireless") if shared else []),
            ("name", d.name()), ("node.client.radio.profile", cfg.profile),
            ("link.internet.rate", _mbps(cfg.wired_rate_mbps)), ("link.internet.delay", _ms(wired_ms)),
            ("link.internet.queue.packets", cfg.wired_queue), *_jitter(d, cfg)]
    if shared:
        over += [("link.ap-uplink.rate", _mbps(d.rate_mbps)), ("link.ap-uplink.delay", _ms(shared_delay_ms)),
                 ("link.ap-uplink.queue.packets", cfg.hop_queue)]
    return b, over + [("wireless.0", _hop("hop", "client", d, cfg, power_save, agent)),
                      ("flow.0", _flow("ftp", "client", 80, d, cfg))]


def wlan_download(d: Download, cfg: Config) -> tuple[Base, list[tuple[str, Any]]]:
    """One download whose clients share an 802.11 BSS (``d.medium == "wlan"``).

    The BSS's PHY and rate are ``cfg.fig17_wlan_phy``/``fig17_wlan_rate_mbps`` (not
    ``d.rate_mbps``); loss acts on packets above the MAC's retransmissions (``loss_layer =
    "packet"``), as the hop's loss does, on the AP → station direction of every station.
    """
    power_save, agent, _ = policy_settings(d.policy)
    b = BASES["wlan"]
    clients = ["client", *(f"tcp{i}" for i in range(1, d.competitors + 1))]
    station = {"node": "client", "power_save": power_save, **({"agent": agent} if agent else {})}
    over = [*_competitors(b, d, cfg), ("name", d.name()), ("node.client.radio.profile", cfg.profile),
            ("link.internet.rate", _mbps(cfg.wired_rate_mbps)), ("link.internet.delay", _ms(d.rtt_ms / 2)),
            ("link.internet.queue.packets", cfg.wired_queue), *_jitter(d, cfg),
            ("wlan.0.stations", clients), ("wlan.0.phy", cfg.fig17_wlan_phy), ("wlan.0.rate", _mbps(cfg.fig17_wlan_rate_mbps)),
            ("wlan.0.ap_queue", cfg.hop_queue), ("wlan.0.ap_queueing", cfg.fig17_ap_queueing),
            *([("wlan.0.ap_power_save_weight", d.ap_power_save_weight)] if d.ap_power_save_weight is not None else []),
            *([("wlan.0.down_loss", {"model": "bernoulli", "p": d.loss})] if d.loss > 0 else []),
            ("wlan.0.station", [station]), ("flow.0", _flow("ftp", "client", 80, d, cfg))]
    return b, over
