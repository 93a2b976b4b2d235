"""Issue 32's settling experiment for the tunnel's SCTP subset: how the association's start (RFC
9260's INIT handshake, the default, against a pre-established association) and Max.Burst (RFC
9260 §6.1 D, 4 packets, against no limit, the default) move the simulated tunnel and claim S1.
Each setting reruns the simulated points with one simulator setting changed and ends in a
sentence generated from the rows, judged against the default rerun with the next seed (docs/tunnel.md, "The association's start and Max.Burst")."""

from __future__ import annotations

import numpy as np
import pandas as pd

from . import simulator

SETTINGS = {
    "pre-established (no INIT handshake)": {"handshake": False},
    "Max.Burst = 4": {"max_burst": 4},
}
"""Each alternative against the default run (handshake on, no Max.Burst): ``simulator.overrides``
keywords."""

MOVES = 0.01
"""A point's P_sleep or goodput "moved" when it changed by more than 1 % of the default run's."""

REFERENCE = "another seed (reference)"
"""The noise floor: the default settings with the next seed. Any change of timing (the handshake
shifts the start by about a millisecond) reorders the run's random draws, so a setting is judged
against what changing the seed alone does, not against zero."""

COLUMNS = ("setting", "grid", "points", "within_default", "within_setting", "moved_p_sleep", "max_dp_sleep",
           "moved_goodput", "min_goodput_ratio")

KEYS = ["q", "m", "aggregate_kBps"]


def _means(rows: pd.DataFrame) -> pd.DataFrame:
    """Per point (q, m, aggregate) the mean over seeds of the simulator rows' P_sleep and goodput."""
    r = rows.assign(m=rows.m.astype(int), q=rows.q.round(9), aggregate_kBps=rows.aggregate_kBps.round(6))
    return r.groupby(KEYS)[["p_sleep_w", "goodput_kBps"]].mean()


def compare(setting: str, grid: str, default: pd.DataFrame, other: pd.DataFrame, within_default: int,
            within_setting: int) -> dict:
    """One row of the experiment's table from the simulator rows of the default runs and of
    ``setting``'s (the same points) and S1's within counts of each (-1: no S1 on that grid)."""
    a, b = _means(default), _means(other).reindex(_means(default).index)
    dp = (b.p_sleep_w - a.p_sleep_w) / a.p_sleep_w
    gr = b.goodput_kBps / a.goodput_kBps
    return {"setting": setting, "grid": grid, "points": len(a), "within_default": within_default,
            "within_setting": within_setting, "moved_p_sleep": int((dp.abs() > MOVES).sum()),
            "max_dp_sleep": float(dp.abs().max()), "moved_goodput": int(((gr - 1).abs() > MOVES).sum()),
            "min_goodput_ratio": float(gr.min())}


def sentence(r, ref=None) -> str:
    """The generated conclusion of one row of :func:`compare` (a dict or a table row), judged
    against ``ref``, the :data:`REFERENCE` row of the same grid (None: ``r`` is that row)."""
    r = dict(r)
    moved = (f"P_sleep moved by more than {MOVES:.0%} at {r['moved_p_sleep']} of {r['points']} points (at most "
             f"{r['max_dp_sleep']:.1%}), the goodput at {r['moved_goodput']} (lowest {r['min_goodput_ratio']:.3f}× the "
             "default's)")
    s1 = ("" if r["within_default"] < 0 else
          f"; S1 {r['within_default']} → {r['within_setting']} of {r['points']} within 15 %")
    if ref is None:
        return f"{r['setting']}, {r['grid']}: {moved}{s1}: the spread the settings are judged against."
    ref = dict(ref)
    ds1, ds1_ref = abs(r["within_setting"] - r["within_default"]), abs(ref["within_setting"] - ref["within_default"])
    # Beyond one reference seed only if both the largest change and the number moved exceed it.
    beyond = r["max_dp_sleep"] > ref["max_dp_sleep"] and r["moved_p_sleep"] > ref["moved_p_sleep"]
    if r["within_default"] >= 0 and ds1 > ds1_ref:
        verdict = f"S1 moves by {ds1} points, more than the seed alone ({ds1_ref}): it explains part of the gap's count"
    elif beyond:
        verdict = ("it moves the simulated tunnel more than the seed alone (at most "
                   f"{ref['max_dp_sleep']:.1%}, {ref['moved_p_sleep']} points), "
                   + ("but not S1 beyond the seed's spread: it does not explain the model-vs-simulator gap"
                      if r["within_default"] >= 0 else "on points no claim rests on alone"))
    else:
        verdict = (f"within what the seed alone does (at most {ref['max_dp_sleep']:.1%}, {ref['moved_p_sleep']} points"
                   + (f", S1 ±{ds1_ref}" if r["within_default"] >= 0 else "")
                   + "): no effect measurable, it does not explain the model-vs-simulator gap")
    return f"{r['setting']}, {r['grid']}: {moved}{s1}: {verdict}."


def sentences(table: pd.DataFrame) -> list[str]:
    """:func:`sentence` for every row of ``sim_association.csv``, each judged against its grid's
    reference row."""
    rows = table.to_dict("records")
    ref = {r["grid"]: r for r in rows if r["setting"] == REFERENCE}
    return [sentence(r, None if r["setting"] == REFERENCE else ref.get(r["grid"])) for r in rows]


def run(cfg, ctx, fig45_points: pd.DataFrame, fig45_default: pd.DataFrame, fig46_points: pd.DataFrame,
        fig46_default: pd.DataFrame, model45: pd.DataFrame) -> pd.DataFrame:
    """Runs every :data:`SETTINGS` over the simulated Fig. 4.5 grid and Figs. 4.6–4.7 points and
    compares each with the default runs (``fig45_default``, ``fig46_default``: their simulator
    rows); S1 is judged on the Fig. 4.5 grid against the model (``model45``): the rows of
    ``sim_association.csv``."""
    import dataclasses

    rows = []
    s1_default = int(simulator.beside(model45, fig45_default).within_15.sum())
    runs = [(REFERENCE, dataclasses.replace(cfg, sim_base_seed=cfg.sim_base_seed + cfg.sim_seeds), {}),
            *((name, cfg, settings) for name, settings in SETTINGS.items())]
    for name, c, settings in runs:
        sim = simulator.run_grid(fig45_points, c, ctx, f"tunnel simulator (Fig. 4.5 grid, {name})", **settings)
        s1 = int(simulator.beside(model45, sim).within_15.sum())
        rows.append(compare(name, "Fig. 4.5 grid", fig45_default, sim, s1_default, s1))
        sim = simulator.run_grid(fig46_points, c, ctx, f"tunnel simulator (Figs. 4.6–4.8, {name})", **settings)
        rows.append(compare(name, "Figs. 4.6-4.7 points", fig46_default, sim, -1, -1))
    return pd.DataFrame(rows, columns=list(COLUMNS))
