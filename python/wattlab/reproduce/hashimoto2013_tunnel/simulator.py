"""The simulator side of the reproduction (issue 21: the tunnel simulated beside the model over
Fig. 4.5's grid, and at a subset of Figs. 4.6–4.7's points for Figs. 4.6–4.8: :func:`fig46_points`,
:func:`fig48_beside`). With ``Config.simulate`` (``--simulate``) the reproduction runs it itself
(:func:`run_grid`, on the study engine); otherwise its results may be passed in, and until they
are it says so and tests nothing against it. :func:`simulate` produces the same rows in this
process (docs/tunnel.md, "Model vs simulator").

How to plug it in:

1. :func:`grid_points` lists the points to simulate (Fig. 4.5's flow counts below R_max, per
   q and m; upstream-only flows of ``flow_kBps`` each).
2. Run each point in the simulator (any number of seeds) and make one row per run with the
   columns of :data:`SIM_COLUMNS` (``p_ratio`` is derived if absent).
3. ``run(cfg, out, sim_points=that_frame)``, or write the rows to a CSV file and run
   ``wattlab reproduce hashimoto2013-tunnel --sim-points FILE`` (``Config.sim_points_csv``):
   :func:`beside` puts the runs' means beside the model per point, in ``model_vs_sim.csv``, the
   figures draw them, and claim S1 judges them.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from wattlab.scenario_units import Duration, Rate, Size

from ..framework import Context
from ..scenarios import base
from .config import Config

KEYS = ("q", "m", "aggregate_kBps")
"""Columns that identify a grid point (aggregate in the run's kB/s, ``Config.kbyte``)."""
SIM_COLUMNS = KEYS + ("p_cam_w", "p_sleep_w")
"""Columns a simulator result must have, one row per run: the client WNI's mean power (W) over
the measurement window with the radio always on (CAM) and under the ideal-sleep accounting of
the same run; optional: ``seed``, ``p_ratio``, ``delay_ms`` (the client inlet's mean buffering
delay, which :func:`simulate` and :func:`run_grid` measure)."""
TOLERANCE = 0.15
"""Issue 21: model and simulator agree when within 15 %."""
RATIO_FLOOR = 0.05
"""P_ratio near 0 makes a relative error meaningless: |model − sim| is judged against
15 % of max(|sim|, 0.05), i.e. ±0.0075 at most for ratios near zero."""


def grid_points(cfg: Config, fig45: pd.DataFrame | None = None) -> pd.DataFrame:
    """The points the simulator side should run: Fig. 4.5's (q, m, n flows) below R_max
    (``fig45``: the reproduction's table, computed from ``cfg`` when not given)."""
    if fig45 is None:
        from .experiments import fig45 as table

        fig45 = table(cfg, cfg.tunnel())
    return _points(fig45, cfg)


def fig46_points(cfg: Config, fig46: pd.DataFrame | None = None) -> pd.DataFrame:
    """The Figs. 4.6–4.8 points the simulator side runs: the model's (m, n flows) at q_fig46
    with m in ``cfg.m_sim_fig46`` and n in ``cfg.n_flows_sim_fig46``, below R_max (``fig46``:
    the reproduction's ``fig46_47`` table, computed from ``cfg`` when not given)."""
    if fig46 is None:
        from .experiments import fig46_47

        fig46 = fig46_47(cfg, cfg.tunnel())
    return _points(fig46[fig46.m.isin(cfg.m_sim_fig46) & fig46.n_flows.isin(cfg.n_flows_sim_fig46)], cfg)


def _points(table: pd.DataFrame, cfg: Config) -> pd.DataFrame:
    """A model table's (q, m, n flows, aggregate) as simulator points of ``flow_kBps_fig45`` flows."""
    pts = table[["q", "m", "n_flows", "aggregate_kBps"]].copy()
    pts["flow_kBps"] = cfg.flow_kBps_fig45
    pts["kbyte"] = cfg.kbyte
    return pts.reset_index(drop=True)


def read_csv(path: str) -> pd.DataFrame:
    """Simulator rows from a CSV file (header = column names), checked; ValueError naming the
    file, and the line and column of the first bad value."""
    try:
        sim = pd.read_csv(path)
    except FileNotFoundError:
        raise ValueError(f"{path}: no such file (--sim-points)") from None
    except (OSError, pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as e:
        raise ValueError(f"{path}: not a readable CSV file ({str(e).strip().splitlines()[0]})") from None
    return check(sim, str(path), first_line=2)


def check(sim: pd.DataFrame, source: str = "sim_points", first_line: int | None = None) -> pd.DataFrame:
    """Validate simulator rows; ValueError naming the missing column or the first bad row (as a
    file line when ``first_line``, the line of the first row, is given)."""
    where = (lambda i: f"line {i + first_line}") if first_line is not None else (lambda i: f"row {i + 1}")  # noqa: E731
    missing = [c for c in SIM_COLUMNS if c not in sim.columns]
    if missing:
        raise ValueError(f"{source}: missing column(s) {', '.join(missing)} (needed: {', '.join(SIM_COLUMNS)})")
    out = sim.copy()
    for c in SIM_COLUMNS + tuple(c for c in ("p_ratio", "delay_ms") if c in sim.columns):
        vals = pd.to_numeric(out[c], errors="coerce")
        bad = np.flatnonzero(~np.isfinite(vals.to_numpy(dtype=float)))
        if len(bad):
            raise ValueError(f"{source}: {where(bad[0])}, column {c}: {out[c].iloc[bad[0]]!r} is not a finite number")
        out[c] = vals
    bad = np.flatnonzero((out.p_cam_w <= 0).to_numpy())
    if len(bad):
        raise ValueError(f"{source}: {where(bad[0])}, column p_cam_w: must be > 0")
    if "p_ratio" not in out.columns:
        out["p_ratio"] = (out.p_cam_w - out.p_sleep_w) / out.p_cam_w
    return out


def runs_text(n: pd.Series) -> str:
    """"1 run", "3 runs" or "2–3 runs": how many simulator runs the points' means are over."""
    lo, hi = int(n.min()), int(n.max())
    return f"{lo}–{hi} runs" if lo != hi else f"{lo} run{'s' if lo > 1 else ''}"


def _within(model, sim, floor: float = 0.0) -> np.ndarray:
    return np.abs(model - sim) <= TOLERANCE * np.maximum(np.abs(sim), floor) + 1e-12


def beside(model: pd.DataFrame, sim: pd.DataFrame | None) -> pd.DataFrame:
    """The model's grid points with the simulator's means beside them (``sim_*``: mean over
    runs, ``sim_runs``; ``err_*`` = model/sim − 1; ``within_15`` per point). Without simulator
    results every ``sim_*`` column is empty and ``status`` says "simulator not run yet"."""
    cols = ["q", "m", "n_flows", "aggregate_kBps", "p_cam_w", "p_sleep_w", "p_ratio", "delay_ms"]
    out = model[[c for c in cols if c in model.columns]].copy()
    if sim is None or sim.empty:
        for c in ("sim_runs", "sim_p_cam_w", "sim_p_sleep_w", "sim_p_ratio", "err_p_cam", "err_p_sleep", "err_p_ratio"):
            out[c] = np.nan
        out["within_15"] = pd.NA
        out["status"] = "simulator not run yet"
        return out
    sim = check(sim)
    agg = {"sim_runs": ("p_cam_w", "size"), "sim_p_cam_w": ("p_cam_w", "mean"),
           "sim_p_sleep_w": ("p_sleep_w", "mean"), "sim_p_ratio": ("p_ratio", "mean")}
    if "delay_ms" in sim.columns:
        agg["sim_delay_ms"] = ("delay_ms", "mean")
    means = sim.assign(m=sim.m.astype(int)).groupby(list(KEYS), as_index=False).agg(**agg)
    for df in (out, means):  # match the keys after rounding away float noise
        df["_q"], df["_a"] = df.q.round(9), df.aggregate_kBps.round(6)
    out = out.merge(means.drop(columns=["q", "aggregate_kBps"]), on=["_q", "m", "_a"], how="left")
    out = out.drop(columns=["_q", "_a"])
    out["err_p_cam"] = out.p_cam_w / out.sim_p_cam_w - 1
    out["err_p_sleep"] = out.p_sleep_w / out.sim_p_sleep_w - 1
    out["err_p_ratio"] = out.p_ratio / out.sim_p_ratio - 1
    ran = out.sim_runs.notna()
    ok = _within(out.p_sleep_w, out.sim_p_sleep_w) & _within(out.p_ratio, out.sim_p_ratio, RATIO_FLOOR)
    out["within_15"] = pd.array(np.where(ran, ok, pd.NA), dtype="boolean")
    out["status"] = np.where(ran, "simulated", "no simulator run at this point")
    return out


POWER_SAVES = ("u-apsd", "cam")
"""The client's power-save mode in :func:`overrides`: U-APSD with the tunnel's explicit triggers
(the default, the thesis's design) or CAM (no triggers; the AP forwards on arrival)."""


BASE = base(__package__, "tunnel.toml")
"""The simulated tunnel every point shares."""


def overrides(q: float, m: int, n_flows: int, flow_kBps: float, kbyte: int, profile: str = "atheros-ar5004",
              duration_s: float = 20.0, seed: int = 1, *, power_save: str = "u-apsd", delayed_ack: bool = True,
              rts: bool = False, trigger_min_ms: float | None = None, handshake: bool = True,
              max_burst: int = 0) -> list[tuple[str, Any]]:
    """The simulated tunnel at one grid point (``tunnel.toml``, docs/tunnel.md): ``n_flows``
    upstream TCP flows of ``flow_kBps`` each (paced by the server's read rate) from one 802.11a
    client at 54 Mb/s through the SCTP tunnel with burst ``m``, the client in U-APSD with the
    tunnel's triggers, frame errors ``q`` both ways (the MAC retrying up to 7 times: p = q^8), the
    radio costed always-on, by the thesis's ideal sleep and by the oracle (break-even rule)
    besides its power-save mode.

    The keywords change one simulator setting each, for the controlled comparisons of
    docs/tunnel.md ("Which assumption causes it"): ``power_save`` (:data:`POWER_SAVES`),
    ``delayed_ack`` (False: one TCP ACK per segment, as the thesis's Eq. 4.5), ``rts`` (RTS/CTS
    before every data frame, as the thesis's Eq. 3.3) and ``trigger_min_ms`` (the explicit
    triggers' floor t_min; None: the tunnel's default, 2 ms), ``handshake`` (False: the association
    pre-established instead of started by RFC 9260's INIT handshake at time zero) and ``max_burst``
    (RFC 9260's Max.Burst, new DATA packets per output opportunity; 0: no limit, the default).
    """
    if power_save not in POWER_SAVES:
        raise ValueError(f"unknown power_save {power_save!r} (known: {', '.join(POWER_SAVES)})")
    if trigger_min_ms is not None and power_save != "u-apsd":
        raise ValueError("trigger_min_ms needs power_save = \"u-apsd\" (triggers exist only there)")
    reader = {"rate": Rate(int(round(flow_kBps * kbyte * 8)))}
    flows = [{"kind": "bulk-upload", "name": f"up{i}", "client": "client", "server": "server", "port": 5001 + i,
              "bytes": Size.mb(1000), "start": Duration.ms(10 * i), "background": True, "reader": reader,
              **({} if delayed_ack else {"tcp": {"delayed_ack": False}})} for i in range(n_flows)]
    loss = {"model": "bernoulli", "p": q}
    return [("name", f"tunnel-q{q}-m{m}-n{n_flows}"), ("simulation.seed", seed),
            ("simulation.duration", Duration.s(duration_s)), ("node.client.radio.profile", profile),
            ("wlan.bss.power_save", power_save), *([("wlan.bss.rts_threshold", Size(500))] if rts else []),
            ("wlan.bss.down_loss", loss), ("wlan.bss.up_loss", loss), ("tunnel.0.burst", m),
            *([("tunnel.0.trigger_min", Duration.ms(trigger_min_ms))] if trigger_min_ms is not None else []),
            *([] if handshake else [("tunnel.0.handshake", False)]),
            *([("tunnel.0.max_burst", int(max_burst))] if max_burst else []),
            ("flow", flows)]


def run_point(*args, timeseries: bool = False, **kw):
    """``wattlab.run`` of :func:`overrides` (same arguments) in this process."""
    return BASE.run(overrides=overrides(*args, **kw), timeseries=timeseries)


def _row(q: float, m: int, aggregate_kBps: float, kbyte: int, seed: int, summary: dict, power_save: str = "u-apsd") -> dict:
    """One result row from a run's summary: the client radio's mean power per accounting and the
    client inlet's mean buffering delay (the upstream data's D of Eq. 4.13; NaN if none left it)."""
    t = summary["end_time_s"]
    power = {r["policy"]: r["energy_j"] / t for r in summary["radios"] if r["node"] == "client"}
    inlet = next(e for e in summary["tunnels"] if e["side"] == "client")
    delay_ms = 1e-6 * inlet["inlet_wait_ns"] / inlet["inlet_released"] if inlet["inlet_released"] else float("nan")
    return {"q": q, "m": int(m), "aggregate_kBps": aggregate_kBps, "seed": seed,
            "p_cam_w": power["always-on"], "p_sleep_w": power["ideal-sleep"], "p_oracle_w": power["oracle"],
            "p_mode_w": power.get(power_save, power["always-on"]), "delay_ms": delay_ms,
            "goodput_kBps": sum(f["goodput_bps"] for f in summary["flows"]) / 8 / kbyte}


def simulate(points: pd.DataFrame, seeds: tuple[int, ...] = (1,), profile: str = "atheros-ar5004",
             duration_s: float = 20.0, **settings) -> pd.DataFrame:
    """Run :func:`overrides` at every row of ``points`` (:func:`grid_points`) and seed, in this
    process: one row per run with :data:`SIM_COLUMNS` (``p_cam_w`` and ``p_sleep_w``: the
    always-on and ideal-sleep accounting of the run, over the whole run), ``p_oracle_w`` (the
    break-even rule), ``p_mode_w`` (the power-save mode the run used), the goodput and the seed.
    ``settings`` go to :func:`overrides` (one simulator setting changed, e.g. ``power_save="cam"``).
    The reproduction runs the same scenarios on the study engine (:func:`run_grid`)."""
    rows = []
    for pt in points.itertuples(index=False):
        for seed in seeds:
            res = run_point(pt.q, int(pt.m), int(pt.n_flows), pt.flow_kBps, int(pt.kbyte), profile, duration_s, seed,
                            **settings)
            rows.append(_row(pt.q, pt.m, pt.aggregate_kBps, int(pt.kbyte), seed, res.summary,
                             settings.get("power_save", "u-apsd")))
    return pd.DataFrame(rows)


def jobs(points: pd.DataFrame, cfg: Config, **settings) -> list:
    """The study-engine jobs of :func:`run_grid`: every grid point × ``cfg.sim_seeds`` seeds
    from ``cfg.sim_base_seed``, ``cfg.sim_duration_s`` long, the default simulator settings
    changed by ``settings`` (keywords of :func:`overrides`)."""
    out = []
    for pt in points.itertuples(index=False):
        for k in range(cfg.sim_seeds):
            seed = cfg.sim_base_seed + k
            over = overrides(pt.q, int(pt.m), int(pt.n_flows), pt.flow_kBps, int(pt.kbyte), cfg.profile, cfg.sim_duration_s,
                             seed, **settings)
            out.append(BASE.job(seed, {"q": pt.q, "m": int(pt.m), "aggregate_kBps": pt.aggregate_kBps,
                                       "kbyte": int(pt.kbyte)}, over))
    return out


def _measure(job, res) -> dict:
    """A job's row (:func:`_row`) from its run's result; the labels come from the job."""
    lab = job.labels
    row = _row(lab["q"], lab["m"], lab["aggregate_kBps"], lab["kbyte"], job.seed, res.summary)
    return {k: v for k, v in row.items() if k not in lab and k != "seed"}


def run_grid(points: pd.DataFrame, cfg: Config, ctx: Context,
             description: str = "tunnel simulator (Fig. 4.5 grid)", **settings) -> pd.DataFrame:
    """The simulator side of the reproduction: :func:`overrides` at every point (:func:`grid_points`
    or :func:`fig46_points`) and seed on the study engine (``wattlab reproduce … --simulate``:
    ``--jobs``, ``--scheduler``, ``--max-runs``, finished runs stored in ``OUT/runs`` and reused),
    one row per run as :func:`simulate` makes them, checked. ``settings``: as :func:`jobs`."""
    rows = ctx.run(jobs(points, cfg, **settings), _measure, description)
    return check(rows.drop(columns=["kbyte"]), "simulator runs")


def fig48_beside(sim46: pd.DataFrame, fig48: pd.DataFrame, stay_awake: bool) -> pd.DataFrame:
    """Fig. 4.8 from the simulated Figs. 4.6–4.7 points (``sim46``: :func:`beside` of the
    ``fig46_47`` table): per simulated aggregate and each D_th of ``fig48``, the best simulated
    P_ratio over the simulated m whose buffering delay is ≤ D_th (the simulator's measured mean,
    ``sim_delay_ms``, when its rows have it; else the model's D = (m − 1)/(2R), Eq. 4.13), 0 with
    ``sim_m`` = 0 when the radio may stay on (``stay_awake``) and every allowed m loses energy;
    beside it the model's best over the same m by the model's D (``model_p_ratio_same_m``) and over
    every m ≤ m_max (``p_ratio``, from ``fig48``). Empty when nothing was simulated."""
    cols = ["aggregate_kBps", "d_th_ms", "sim_p_ratio", "sim_m", "model_p_ratio_same_m", "model_m_same_m", "p_ratio", "m"]
    ran = sim46[sim46.sim_runs.notna()]
    sim_d = "sim_delay_ms" if "sim_delay_ms" in ran.columns else "delay_ms"
    rows = []
    for a, g in ran.groupby("aggregate_kBps"):
        for d in sorted(fig48.d_th_ms.unique()):
            best = [_best(g[g[sim_d] <= d + 1e-9], "sim_p_ratio", stay_awake),
                    _best(g[g.delay_ms <= d + 1e-9], "p_ratio", stay_awake)]
            full = fig48[np.isclose(fig48.aggregate_kBps, a) & (fig48.d_th_ms == d)]
            rows.append([a, d, *best[0], *best[1], float(full.p_ratio.iloc[0]) if len(full) else np.nan,
                         int(full.m.iloc[0]) if len(full) else -1])
    return pd.DataFrame(rows, columns=cols)


def _best(ok: pd.DataFrame, col: str, stay_awake: bool) -> tuple[float, int]:
    """The largest ``col`` among the allowed rows and its m; (0, 0) when staying awake is better
    or allowed, (NaN, -1) when no row is allowed and the radio may not stay on."""
    if ok.empty:
        return (0.0, 0) if stay_awake else (np.nan, -1)
    r, m = float(ok[col].max()), int(ok.m[ok[col].idxmax()])
    return (0.0, 0) if stay_awake and r < 0 else (r, m)
