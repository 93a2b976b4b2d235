"""Scenario text for paper 000's DummyNet testbed (§IV-A, Fig. 5).

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

from .config import VARIATIONS, Config, policy_settings


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

    def name(self) -> str:
        """A name that identifies the setting (equal settings give equal scenario text)."""
        medium = "" if self.medium == "hop" else f"-{self.medium}"
        return (f"yan-cc-{self.policy}-{self.rtt_ms:g}ms-loss{self.loss:g}-{self.variation}-{self.rate_mbps:g}Mbps"
                f"-win{self.recv_buffer}-comp{self.competitors}{medium}")


def gamma_jitter(rtt_ms: float, variation: str, cfg: Config) -> tuple[float, float] | None:
    """(shape, scale in ms) of the peak-hour jitter at this RTT, or None off-peak."""
    mult = VARIATIONS[variation]
    if mult == 0:
        return None
    return cfg.gamma_shape, cfg.gamma_scale_ms * rtt_ms / cfg.gamma_ref_rtt_ms * mult


def _ns(ms: float) -> str:
    return f'"{round(ms * 1e6)}ns"'


def _rate(mbps: float) -> str:
    return f'"{round(mbps * 1e6)}bps"'


def _hop(name: str, station: str, d: Download, cfg: Config, power_save: str, agent: str, loss: float) -> list[str]:
    lines = [
        "",
        "[[wireless]]",
        f'name = "{name}"',
        'ap = "ap"',
        f'station = "{station}"',
        f"rate = {_rate(d.rate_mbps)}",
        f"delay = {_ns(cfg.hop_delay_us / 1000)}",
        f"queue = {{ packets = {cfg.hop_queue} }}",
        f'power_save = "{power_save}"',
    ]
    if loss > 0:
        lines.append(f'down = {{ loss = {{ model = "bernoulli", p = {loss!r} }} }}')
    if agent:
        lines.append(f"agent = {agent}")
    return lines


def _node(name: str, kind: str, radio: str | None = None) -> list[str]:
    lines = ["", "[[node]]", f'name = "{name}"', f'kind = "{kind}"']
    if radio:
        lines.append(f'radio = {{ profile = "{radio}", policies = ["always-on", "oracle"] }}')
    return lines


def _flow(name: str, client: str, port: int, d: Download, cfg: Config) -> list[str]:
    return [
        "",
        "[[flow]]",
        'kind = "bulk-download"',
        f'name = "{name}"',
        f'client = "{client}"',
        'server = "server"',
        f"port = {port}",
        f"bytes = {cfg.file_bytes}",
        f'tcp = {{ cc = "{cfg.tcp_cc}", recv_buffer = {d.recv_buffer} }}',
    ]


def download_scenario(d: Download, cfg: Config) -> str:
    """The TOML of one download (with ``d.competitors`` plain TCP clients downloading alongside)."""
    if d.medium == "wlan":
        return wlan_download_scenario(d, cfg)
    power_save, agent, _ = policy_settings(d.policy)
    shared = d.competitors > 0
    shared_delay_ms = cfg.hop_delay_us / 1000 if shared else 0.0
    wired_ms = d.rtt_ms / 2 - cfg.hop_delay_us / 1000 - shared_delay_ms
    lines = [
        f'name = "{d.name()}"',
        "",
        "[simulation]",
        'duration = "900s"',
        *_node("server", "host"),
        *(_node("gw", "router") if shared else []),
        *_node("ap", "ap"),
        *_node("client", "host", cfg.profile),
    ]
    for i in range(1, d.competitors + 1):
        lines += _node(f"tcp{i}", "host", cfg.profile)
    lines += [
        "",
        "[[link]]",
        'name = "internet"',
        'a = "server"',
        f'b = "{"gw" if shared else "ap"}"',
        f"rate = {_rate(cfg.wired_rate_mbps)}",
        f"delay = {_ns(wired_ms)}",
        f"queue = {{ packets = {cfg.wired_queue} }}",
    ]
    jitter = gamma_jitter(d.rtt_ms, d.variation, cfg)
    if jitter:
        shape, scale_ms = jitter
        lines.append(f'a_to_b = {{ jitter = {{ model = "gamma", shape = {shape!r}, scale = {_ns(scale_ms)} }} }}')
    if shared:
        lines += [
            "",
            "[[link]]",
            'name = "ap-uplink"',
            'a = "gw"',
            'b = "ap"',
            f"rate = {_rate(d.rate_mbps)}",
            f"delay = {_ns(shared_delay_ms)}",
            f"queue = {{ packets = {cfg.hop_queue} }}",
        ]
    lines += _hop("hop", "client", d, cfg, power_save, agent, d.loss)
    for i in range(1, d.competitors + 1):
        lines += _hop(f"hop{i}", f"tcp{i}", d, cfg, "cam", "", d.loss)
    lines += _flow("ftp", "client", 80, d, cfg)
    for i in range(1, d.competitors + 1):
        lines += _flow(f"tcp{i}", f"tcp{i}", 80 + i, d, cfg)
    return "\n".join(lines) + "\n"


def wlan_download_scenario(d: Download, cfg: Config) -> str:
    """The TOML of one download whose clients share an 802.11 BSS (``d.medium == "wlan"``).

    The BSS's PHY and rate are ``cfg.fig17_wlan_phy``/``fig17_wlan_rate_mbps`` (not
    ``d.rate_mbps``); loss acts on packets above the MAC's retransmissions (``loss_layer =
    "packet"``), as the hop's loss does, on the AP → station direction of every station.
    """
    power_save, agent, _ = policy_settings(d.policy)
    clients = ["client", *(f"tcp{i}" for i in range(1, d.competitors + 1))]
    lines = [
        f'name = "{d.name()}"',
        "",
        "[simulation]",
        'duration = "900s"',
        *_node("server", "host"),
        *_node("ap", "ap"),
    ]
    for c in clients:
        lines += _node(c, "host", cfg.profile)
    lines += [
        "",
        "[[link]]",
        'name = "internet"',
        'a = "server"',
        'b = "ap"',
        f"rate = {_rate(cfg.wired_rate_mbps)}",
        f"delay = {_ns(d.rtt_ms / 2)}",
        f"queue = {{ packets = {cfg.wired_queue} }}",
    ]
    jitter = gamma_jitter(d.rtt_ms, d.variation, cfg)
    if jitter:
        shape, scale_ms = jitter
        lines.append(f'a_to_b = {{ jitter = {{ model = "gamma", shape = {shape!r}, scale = {_ns(scale_ms)} }} }}')
    lines += [
        "",
        "[[wlan]]",
        'ap = "ap"',
        "stations = [" + ", ".join(f'"{c}"' for c in clients) + "]",
        f'phy = "{cfg.fig17_wlan_phy}"',
        f"rate = {_rate(cfg.fig17_wlan_rate_mbps)}",
        f"ap_queue = {cfg.hop_queue}",
        f'ap_queueing = "{cfg.fig17_ap_queueing}"',
        'loss_layer = "packet"',
    ]
    if d.loss > 0:
        lines.append(f'down_loss = {{ model = "bernoulli", p = {d.loss!r} }}')
    lines += ["", "[[wlan.station]]", 'node = "client"', f'power_save = "{power_save}"']
    if agent:
        lines.append(f"agent = {agent}")
    lines += _flow("ftp", "client", 80, d, cfg)
    for i in range(1, d.competitors + 1):
        lines += _flow(f"tcp{i}", f"tcp{i}", 80 + i, d, cfg)
    return "\n".join(lines) + "\n"
