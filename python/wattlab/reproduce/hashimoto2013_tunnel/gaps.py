"""Why the simulated tunnel and the Ch. 4 model disagree (claim S1): the client radio's idle gaps
in a run, measured beside the model's assumption of one gap per burst, bursts equally spaced.

:func:`gap_stats` reads a run's radio time series (``wattlab.run(..., timeseries=True)``,
the ``always-on`` rows: every tx/rx the client's WNI did) and returns what the ideal-sleep rule
(Eq. 3.25: sleep through every gap longer than t^st) meets: gaps and wake-ups per second, the
gaps' lengths, what ends each slept gap, and two counterfactual accountings of the same run,
the model's renewal assumption applied to the run's own bursts. docs/tunnel.md ("Which
assumption causes it") has the numbers.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from wattlab.models import tcp_energy as te

DATA_FRAME_S = 150e-6
"""A transmission longer than this is a data frame (a 1500-byte packet in SCTP takes ~260 µs
at 54 Mb/s; SACKs, triggers, RTS and MAC ACKs take ≤ 44 µs)."""
BURST_GAP_S = 0.6e-3
"""Data frames less than this apart belong to one burst on the air (one frame exchange with its
DIFS, mean backoff, SIFS and MAC ACK takes ~0.15 ms; a burst's frames follow each other)."""


def _saving(idle, wni: te.Wni):
    """Energy (J) the thesis's rule saves in idle gaps of these lengths: sleeping through a gap g
    > t^st costs P^s (g − t^st) + E_st instead of P^l g (Eq. 4.4)."""
    idle = np.asarray(idle, dtype=float)
    return np.where(idle > wni.t_st, wni.p_idle * idle - wni.p_sleep * (idle - wni.t_st) - wni.e_st, 0.0)


def gap_stats(series: pd.DataFrame, end_s: float, node: str = "client", t0_s: float = 2.0,
              wni: te.Wni | None = None, profile: str = "atheros-ar5004") -> dict:
    """The idle gaps of ``node``'s radio over [``t0_s``, ``end_s``) of a run.

    ``series`` is the run's ``radio_series`` (columns node, policy, time_s, state); the
    ``always-on`` rows are used. Returns per-second rates and shares over the window:

    - ``busy_share`` (tx + rx), ``gaps_s`` (idle gaps), ``sleeps_s`` (gaps > t^st, the
      ideal-sleep wake-ups), ``loss_sleeps_s`` (of those, gaps below the break-even time, where
      the thesis's rule sleeps at a loss), ``mean_sleep_gap_ms``, ``short_idle_share`` (idle in
      gaps too short to sleep);
    - what ends each slept gap: ``wake_data_s`` (a data frame sent), ``wake_small_tx_s`` (a
      short frame sent: explicit trigger, SACK, RTS), ``wake_rx_s`` (a frame received);
    - ``data_frames_s``, ``bursts_s`` (data frames grouped by :data:`BURST_GAP_S`);
    - ``p_cam_w``: the run's CAM power over the window (the core's meter on the ``always-on``
      timeline with the run's ``profile``), and ``p_sleep_w``: that minus what the thesis's rule
      saves in the gaps (checks the accounting against the run's own ``ideal-sleep``);
    - ``renewal_p_sleep_w``: the same run, its activity between two burst starts put together
      so that each interval holds one gap (the model's one gap per burst), and
      ``renewal_equal_p_sleep_w``: those gaps also made equal (the model's bursts every m/R).
    """
    from wattlab import physics

    wni = wni or te.Wni.from_profile(profile)
    a = series[(series.policy == "always-on") & (series.node == node)].sort_values("time_s", kind="stable")
    t = a.time_s.to_numpy(dtype=float)
    st = a.state.astype(str).to_numpy()
    if len(t) == 0 or end_s <= t0_s:
        raise ValueError(f"no always-on radio series for {node!r} in [{t0_s}, {end_s}) s")
    d = np.diff(np.append(t, end_s))
    sel = t >= t0_s
    span = end_s - t0_s
    e0, e1 = physics.timeline_energy(profile, t, st, end_s, at_s=[t0_s, end_s])["at_j"]
    e_cam = e1 - e0
    idle_i = np.flatnonzero(sel & (st == "idle"))
    idle = d[idle_i]
    slept = idle > wni.t_st
    be = wni.break_even_s
    nxt = idle_i[slept] + 1
    nxt = nxt[nxt < len(st)]
    ns, nd = st[nxt], d[nxt]
    tx = sel & (st == "tx") & (d > DATA_FRAME_S)
    ts, te_ = t[tx], t[tx] + d[tx]
    starts = ts[np.r_[True, ts[1:] - te_[:-1] > BURST_GAP_S]] if len(ts) else ts
    out = {
        "busy_share": d[sel & (st != "idle")].sum() / span,
        "gaps_s": len(idle) / span,
        "sleeps_s": slept.sum() / span,
        "loss_sleeps_s": (slept & (idle <= be)).sum() / span,
        "mean_sleep_gap_ms": 1e3 * idle[slept].mean() if slept.any() else 0.0,
        "short_idle_share": idle[~slept].sum() / span,
        "wake_data_s": ((ns == "tx") & (nd > DATA_FRAME_S)).sum() / span,
        "wake_small_tx_s": ((ns == "tx") & (nd <= DATA_FRAME_S)).sum() / span,
        "wake_rx_s": (ns == "rx").sum() / span,
        "data_frames_s": tx.sum() / span,
        "bursts_s": len(starts) / span,
        "p_cam_w": e_cam / span,
        "p_sleep_w": (e_cam - _saving(idle, wni).sum()) / span,
        "renewal_p_sleep_w": np.nan,
        "renewal_equal_p_sleep_w": np.nan,
    }
    if len(starts) >= 3:
        busy = np.where(sel & (st != "idle"), d, 0.0)
        before = np.r_[0.0, np.cumsum(busy)][np.searchsorted(t, starts)]  # busy time before each burst start
        gaps = np.diff(starts) - np.diff(before)  # one gap per interval between burst starts
        width = starts[-1] - starts[0]
        e = e_cam * width / span  # the window's CAM energy, pro rata
        out["renewal_p_sleep_w"] = (e - _saving(gaps, wni).sum()) / width
        out["renewal_equal_p_sleep_w"] = (e - _saving(np.full(len(gaps), gaps.mean()), wni).sum()) / width
    return out


SETTINGS = {
    "default": {},
    "trigger_min 5 ms": {"trigger_min_ms": 5.0},
    "trigger_min 10 ms": {"trigger_min_ms": 10.0},
    "no delayed ACK": {"delayed_ack": False},
    "RTS/CTS": {"rts": True},
    "CAM station": {"power_save": "cam"},
    "CAM, no delayed ACK": {"power_save": "cam", "delayed_ack": False},
    "thesis-like: CAM, no delayed ACK, RTS/CTS": {"power_save": "cam", "delayed_ack": False, "rts": True},
}
"""The controlled simulator settings of docs/tunnel.md ("Which assumption causes it"): one
change (or the thesis's assumptions together) each, for ``simulator.overrides``."""


def gap_table(points: pd.DataFrame, duration_s: float = 20.0, t0_s: float | None = None, **settings) -> pd.DataFrame:
    """:func:`gap_stats` at every row of ``points`` (``simulator.grid_points`` rows), measured
    from ``t0_s`` (default: 2 s, or a tenth of a shorter run), with the model's P_cam, P_sleep
    and bursts per second beside them (``mod_*``)."""
    t0_s = min(2.0, duration_s / 10) if t0_s is None else t0_s
    from wattlab.models import sctp_tunnel as st

    from . import simulator

    rows = []
    for pt in points.itertuples(index=False):
        res = simulator.run_point(pt.q, int(pt.m), int(pt.n_flows), pt.flow_kBps, int(pt.kbyte),
                                  duration_s=duration_s, timeseries=True, **settings)
        mo = st.power(pt.aggregate_kBps * pt.kbyte, q=pt.q, m=int(pt.m), detail=True)
        rows.append({"q": pt.q, "m": int(pt.m), "aggregate_kBps": pt.aggregate_kBps,
                     **gap_stats(res.radio_series, res.summary["end_time_s"], t0_s=t0_s),
                     "mod_p_cam_w": float(mo["p_cam_w"]), "mod_p_sleep_w": float(mo["p_sleep_w"]),
                     "mod_bursts_s": float(mo["transitions_per_s"])})
    return pd.DataFrame(rows)


def s1_by_setting(cfg=None, names=tuple(SETTINGS)) -> pd.DataFrame:
    """Claim S1 over Fig. 4.5's grid for each of :data:`SETTINGS` (``names``): points within 15 %
    on both P_sleep and P_ratio, on P_sleep alone, and where the model's P_sleep is the higher."""
    from .config import Config
    from .experiments import fig45
    from . import simulator

    cfg = cfg or Config()
    model = fig45(cfg, cfg.tunnel())
    pts = simulator.grid_points(cfg, model)
    rows = []
    for name in names:
        b = simulator.beside(model, simulator.simulate(pts, duration_s=cfg.sim_duration_s, **SETTINGS[name]))
        rows.append({"settings": name, "within": int(b.within_15.sum()),
                     "p_sleep_within": int((b.err_p_sleep.abs() <= simulator.TOLERANCE).sum()),
                     "model_p_sleep_higher": int((b.p_sleep_w > b.sim_p_sleep_w).sum()), "points": len(b)})
    return pd.DataFrame(rows)


def main() -> None:
    """``python -m wattlab.reproduce.hashimoto2013_tunnel.gaps``: the tables of docs/tunnel.md
    ("Which assumption causes it"): S1 per setting, and the gaps at q = 0.1, m = 1, 2, 5,
    150 … 1200 kB/s under the default settings."""
    from .config import Config
    from . import simulator

    pd.set_option("display.width", 200)
    pd.set_option("display.max_columns", 40)
    print(s1_by_setting().to_string(index=False))
    pts = simulator.grid_points(Config())
    pts = pts[(pts.q == 0.1) & pts.aggregate_kBps.isin([150, 450, 750, 1200])]
    print(gap_table(pts).round(3).T.to_string())


if __name__ == "__main__":
    main()
