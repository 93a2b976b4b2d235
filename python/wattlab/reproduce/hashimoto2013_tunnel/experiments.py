"""The model side of the reproduction: every table of Figs. 4.5–4.8, the key numbers beside the
thesis's, the sizes of Eq. 4.12 and the sensitivity to the conventions the thesis leaves open.
Everything is one vectorised call of :mod:`wattlab.models.sctp_tunnel` per table."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from wattlab.models import sctp_tunnel as st
from wattlab.models import tcp_energy as te

from . import paper
from .config import Config

COLUMNS = ("p_cam_w", "p_sleep_w", "p_ratio", "sleep_share", "transitions_per_s")
"""Model outputs every point row carries (beside q, m, the aggregate, R, R_max and D)."""


def r_max_kBps(cfg: Config, tun: st.Tunnel, q) -> np.ndarray:
    """R^max_sctp (Eq. 4.6) as an aggregate TCP throughput in kB/s (packets/s × s^tcp_data)."""
    r = st.power(np.full(np.shape(q), 1e3), np.asarray(q, dtype=float), 1, tun=tun)["r_max_pps"]
    return r * tun.data_bytes / cfg.kbyte


def _tidy(cfg: Config, tun: st.Tunnel, agg_kBps, qs, ms, flow_kBps: float | None, down_share: float = 0.0) -> pd.DataFrame:
    """Every (aggregate, q, m) of the outer product below R_max, one row each."""
    agg = np.asarray(agg_kBps, dtype=float)
    g = st.power_grid(agg * cfg.kbyte, qs, ms, down_share, tun=tun, detail=True)
    a, q, m = np.meshgrid(agg, np.asarray(qs, dtype=float), np.asarray(ms, dtype=float), indexing="ij")
    df = pd.DataFrame({
        "q": q.ravel(), "p": g["p"].ravel(), "m": m.ravel().astype(int), "aggregate_kBps": a.ravel(),
        "rate_pps": g["rate_pps"].ravel(), "r_max_pps": g["r_max_pps"].ravel(),
        **{c: g[c].ravel() for c in COLUMNS}, "delay_ms": 1e3 * g["delay_s"].ravel(),
        "saturated": g["saturated"].ravel(),
    })
    if flow_kBps is not None:
        df.insert(3, "n_flows", np.rint(df.aggregate_kBps / flow_kBps).astype(int))
    return df[~df.saturated].drop(columns="saturated").sort_values(["q", "m", "aggregate_kBps"]).reset_index(drop=True)


def _flow_grid(cfg: Config, tun: st.Tunnel, flow_kBps: float, qs) -> np.ndarray:
    """n × flow_kBps for n = 1 … the most flows any q's R_max carries."""
    n = int(np.floor(np.max(r_max_kBps(cfg, tun, qs)) / flow_kBps + 1e-9))
    return flow_kBps * np.arange(1, max(n, 1) + 1)


def _line_grid(cfg: Config, tun: st.Tunnel, qs) -> np.ndarray:
    """Fine aggregates up to every q's R_max, each R_max itself included (where sleep meets CAM)."""
    top = r_max_kBps(cfg, tun, qs)
    return np.unique(np.concatenate([np.arange(cfg.line_step_kBps, np.max(top), cfg.line_step_kBps), top]))


def fig45(cfg: Config, tun: st.Tunnel) -> pd.DataFrame:
    """Fig. 4.5 at its flow counts (n × 150 kB/s, upstream only) for every q and m, below R_max:
    the grid points the simulator side runs (``simulator.grid_points``)."""
    return _tidy(cfg, tun, _flow_grid(cfg, tun, cfg.flow_kBps_fig45, cfg.q_values), cfg.q_values, cfg.m_fig45,
                 cfg.flow_kBps_fig45)


def fig45_lines(cfg: Config, tun: st.Tunnel) -> pd.DataFrame:
    """Fig. 4.5's model curves: the same outputs every ``line_step_kBps`` up to R_max."""
    return _tidy(cfg, tun, _line_grid(cfg, tun, cfg.q_values), cfg.q_values, cfg.m_fig45, None)


def mixed(cfg: Config, tun: st.Tunnel) -> pd.DataFrame:
    """Fig. 4.5(a)'s grid with part of the aggregate downstream (share 0, ½, 1 of it): the thesis
    says mixed cases "show a similar trend" because packet sizes matter little (Sect. 4.4.2.1)."""
    agg = _flow_grid(cfg, tun, cfg.flow_kBps_fig45, [cfg.q_fig46])
    parts = [_tidy(cfg, tun, agg, [cfg.q_fig46], cfg.m_fig45, cfg.flow_kBps_fig45, share).assign(down_share=share)
             for share in MIXED_SHARES]
    return pd.concat(parts, ignore_index=True)


MIXED_SHARES = (0.0, 0.5, 1.0)
"""Downstream shares of the aggregate in ``mixed``."""


def fig46_47(cfg: Config, tun: st.Tunnel) -> pd.DataFrame:
    """Figs. 4.6–4.7: P_ratio and D against m at q_fig46, one curve per aggregate."""
    agg = cfg.flow_kBps_fig45 * np.asarray(cfg.n_flows_fig46, dtype=float)
    return _tidy(cfg, tun, agg, [cfg.q_fig46], cfg.m_fig46, cfg.flow_kBps_fig45)


def fig48(cfg: Config, tun: st.Tunnel, agg_kBps=None) -> pd.DataFrame:
    """Fig. 4.8: the best P_ratio subject to D ≤ D_th at q_fig46, per aggregate (n × 50 kB/s below
    R_max unless ``agg_kBps`` is given) and D_th; ``m`` is the burst size achieving it (0: the
    radio stays on), ``p_ratio_raw``/``m_raw`` the best of the allowed m without that option,
    and ``gain`` the P_ratio over D_th = 0 at the same aggregate."""
    if agg_kBps is None:
        agg_kBps = _flow_grid(cfg, tun, cfg.flow_kBps_fig48, [cfg.q_fig46])
        agg_kBps = agg_kBps[agg_kBps <= r_max_kBps(cfg, tun, cfg.q_fig46) + 1e-9]
    agg = np.asarray(agg_kBps, dtype=float)
    d_th = np.asarray(sorted(set(cfg.d_th_ms) | {0.0}), dtype=float)
    kw = dict(m_max=cfg.m_max_fig48, tun=tun)
    best = st.best_ratio_under_delay(agg * cfg.kbyte, cfg.q_fig46, d_th * 1e-3, stay_awake=cfg.stay_awake_fig48, **kw)
    raw = st.best_ratio_under_delay(agg * cfg.kbyte, cfg.q_fig46, d_th * 1e-3, stay_awake=False, **kw)
    a, d = np.meshgrid(agg, d_th, indexing="ij")
    df = pd.DataFrame({"q": cfg.q_fig46, "aggregate_kBps": a.ravel(), "d_th_ms": d.ravel(),
                       "p_ratio": best["p_ratio"].ravel(), "m": best["m"].ravel().astype(int),
                       "p_ratio_raw": raw["p_ratio"].ravel(), "m_raw": raw["m"].ravel().astype(int)})
    base = df[df.d_th_ms == 0.0].set_index("aggregate_kBps")["p_ratio"]
    df["gain"] = df.p_ratio - df.aggregate_kBps.map(base)
    return df


def fig48_lines(cfg: Config, tun: st.Tunnel) -> pd.DataFrame:
    """Fig. 4.8's model curves every ``line_step_kBps`` up to R_max."""
    agg = _line_grid(cfg, tun, [cfg.q_fig46])
    return fig48(cfg, tun, agg)


def sizes(tun: st.Tunnel) -> pd.DataFrame:
    """Eq. 4.12 as the thesis computes it, the real packet on the wire, and the frames' air times."""
    rows = []
    for tcp, name in ((tun.data_bytes, "TCP data"), (tun.ack_bytes, "TCP ACK")):
        for sizing in st.SIZINGS:
            s = float(st.s_sctp(tcp, sizing))
            rows.append({"packet": name, "tcp_bytes": tcp, "sizing": sizing, "sctp_bytes": s,
                         "thesis_bytes": paper.S_SCTP.get(int(tcp)) if sizing == "thesis" else None,
                         "frame_bytes": s + tun.mac.mac_header_bytes + tun.mac.llc_header_bytes,
                         "frame_us": 1e6 * float(tun.mac.data_frame_s(s))})
    return pd.DataFrame(rows)


def _key_ratios(tun: st.Tunnel, kbyte: int, q: float = 0.1) -> np.ndarray:
    """P_ratio at 450 kB/s, q = 0.1, for m = 1 and m = 5 (the thesis's key numbers)."""
    return st.power(paper.KEY_AGGREGATE_KBPS * kbyte, q, np.array([1, 5]), tun=tun)["p_ratio"]


def gain_key(d_th_ms: float, agg_kBps: float) -> str:
    """Key of a Fig. 4.8 gain in the key-numbers table."""
    return f"fig48_gain_{d_th_ms:g}ms_{agg_kBps:g}kBps"


def key_numbers(cfg: Config, tun: st.Tunnel) -> pd.DataFrame:
    """Every number the thesis prints for Ch. 4, with ours beside it (difference = ours − thesis)."""
    rows = []
    for tcp, s in paper.S_SCTP.items():
        rows.append((f"s_sctp_{tcp}", f"SCTP packet for a {tcp}-byte TCP packet, Eq. 4.12 (B)", s, float(st.s_sctp(tcp))))
        rows.append((f"s_wire_{tcp}", "the same on the wire: IPv4 + UDP + SCTP + DATA chunk (B)", None,
                     float(st.s_sctp(tcp, "wire"))))
    for q, p in paper.P_CAPTIONS.items():
        ours = float(te.loss_probability(q, 0.0, tun.mac.retry_limit))
        rows.append((f"p_q{q:g}", f"p at q = {q:g} (Fig. 4.5 caption)", p, float(f"{ours:.3g}")))
    ratios = _key_ratios(tun, cfg.kbyte)
    for (m, thesis), ours in zip(sorted(paper.KEY_RATIO.items()), ratios):
        rows.append((f"p_ratio_m{m}", f"P_ratio at {paper.KEY_AGGREGATE_KBPS:g} kB/s, q = 0.1, m = {m}", thesis, float(ours)))
    agg = sorted({a for _, a in paper.FIG48_GAINS})
    g = fig48(replace(cfg, d_th_ms=sorted({d for d, _ in paper.FIG48_GAINS} | {0.0})), tun, agg)
    for (d_th, a), thesis in sorted(paper.FIG48_GAINS.items()):
        ours = float(g[(g.d_th_ms == d_th) & (g.aggregate_kBps == a)].gain.iloc[0])
        rows.append((gain_key(d_th, a), f"Fig. 4.8: P_ratio gained with D_th = {d_th:g} ms over D_th = 0 at {a:g} kB/s", thesis, ours))
    df = pd.DataFrame(rows, columns=["key", "quantity", "thesis", "ours"])
    df["difference"] = df.ours - df.thesis
    return df


def sensitivity(cfg: Config, tun: st.Tunnel) -> pd.DataFrame:
    """The key P_ratios under each convention the thesis leaves open, one change at a time."""
    mac = tun.mac
    variants = [
        ("this run", tun, cfg.kbyte),
        ("kbyte = 1000" if cfg.kbyte == 1024 else "kbyte = 1024", tun, 2024 - cfg.kbyte),
        ("OFDM symbol timing", replace(tun, mac=replace(mac, timing="ofdm")), cfg.kbyte),
        ("control frames at 24 Mb/s", replace(tun, mac=replace(mac, control_rate_bps=24e6)), cfg.kbyte),
        ("control frames at 6 Mb/s", replace(tun, mac=replace(mac, control_rate_bps=6e6)), cfg.kbyte),
        ("OFDM timing, control frames at 6 Mb/s", replace(tun, mac=replace(mac, timing="ofdm", control_rate_bps=6e6)), cfg.kbyte),
        ("SCTP sizes on the wire (+24 B)", replace(tun, sizing="wire" if tun.sizing == "thesis" else "thesis"), cfg.kbyte),
        ("one packet received per burst", replace(tun, rx_per_burst="one" if tun.rx_per_burst == "m" else "m"), cfg.kbyte),
        ("sleep only when it saves energy", replace(tun, sleep_rule="break-even" if tun.sleep_rule == "thesis" else "thesis"),
         cfg.kbyte),
    ]
    rows = []
    for name, t, kb in variants:
        r1, r5 = _key_ratios(t, kb)
        r_max = st.power(1e3, 0.1, 1, tun=t)["r_max_pps"]
        rows.append({"variant": name, "p_ratio_m1": float(r1), "p_ratio_m5": float(r5),
                     "thesis_m1": paper.KEY_RATIO[1], "thesis_m5": paper.KEY_RATIO[5],
                     "r_max_kBps_q01": float(r_max) * t.data_bytes / kb})
    return pd.DataFrame(rows)
