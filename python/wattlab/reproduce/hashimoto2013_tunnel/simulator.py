"""The hook for the simulator side of the reproduction (issue 21: the tunnel simulated beside
the model over Fig. 4.5's grid). Not run here: the simulated tunnel is built elsewhere, and
until its results are passed in, the reproduction says so and tests nothing against it.

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

import numpy as np
import pandas as pd

from .config import Config

KEYS = ("q", "m", "aggregate_kBps")
"""Columns that identify a grid point (aggregate in the run's kB/s, ``Config.kbyte``)."""
SIM_COLUMNS = KEYS + ("p_cam_w", "p_sleep_w")
"""Columns a simulator result must have, one row per run: the client WNI's mean power (W) over
the measurement window with the radio always on (CAM) and under the ideal-sleep accounting of
the same run; optional: ``seed``, ``p_ratio``, ``delay_ms`` (the inlet's mean buffering delay)."""
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
    pts = fig45[["q", "m", "n_flows", "aggregate_kBps"]].copy()
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
