"""Reproduction of paper 002 Ch. 4 (Hashimoto, PhD thesis, Osaka University, 2013): SCTP
tunneling for many TCP flows, model and simulator (issue 21).

``run(cfg, out)`` evaluates the power model (:mod:`wattlab.models.sctp_tunnel`, Eqs. 4.1–4.14
on the Ch. 3 model) over the thesis's Figs. 4.5–4.8, runs the simulated tunnel over Fig. 4.5's
grid when ``cfg.simulate`` (:mod:`.simulator`), and writes:

- ``fig45.csv`` (Fig. 4.5's flow counts below R_max: the grid points the simulator side runs),
  ``fig45_lines.csv``, ``mixed.csv`` (Fig. 4.5(a) with downstream flows), ``fig46_47.csv``,
  ``fig48.csv``, ``fig48_lines.csv``;
- ``key_numbers.csv`` (every Ch. 4 number of the thesis beside ours), ``sizes.csv`` (Eq. 4.12
  and the real SCTP-over-UDP packet), ``sensitivity.csv`` (the conventions the thesis leaves open);
- ``model_vs_sim.csv`` (simulator means beside the model per grid point, empty with
  "simulator not run yet" unless ``cfg.simulate`` runs it or ``sim_points`` is given; see
  ``simulator``) and, when it ran here, ``sim_runs.csv`` (one row per simulator run),
  ``sim_fig46_47.csv`` (the simulator at a subset of Figs. 4.6–4.7's points beside the model) and
  ``sim_fig48.csv`` (Fig. 4.8's best P_ratio under each D_th from those runs beside the model's);
- ``fig_4_5.png`` … ``fig_4_8.png``, ``claims.csv``, ``summary.md``, ``config.json``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from rich.console import Console

from ... import markdown as md
from .. import runner
from . import claims, experiments, figures, paper, simulator
from .config import Config

__all__ = ["Config", "Result", "run", "OUTPUT_FILES", "SIM_FILE", "SIM_FILES", "simulator"]

OUTPUT_FILES = ("config.json", "fig45.csv", "fig45_lines.csv", "mixed.csv", "fig46_47.csv", "fig48.csv", "fig48_lines.csv",
                "key_numbers.csv", "sizes.csv", "sensitivity.csv", "model_vs_sim.csv", "claims.csv", "summary.md",
                "fig_4_5.png", "fig_4_6.png", "fig_4_7.png", "fig_4_8.png")
"""Every file ``run`` writes (it refuses to replace any of them unless told to)."""
SIM_FILE = "sim_runs.csv"
"""Written besides when the simulator runs here (``Config.simulate``): one row per simulator run."""
SIM_FILES = (SIM_FILE, "sim_fig46_47.csv", "sim_fig48.csv")
"""Every file written besides when the simulator runs here (Fig. 4.5's runs, Figs. 4.6–4.8's)."""


@dataclass
class Result:
    """What one reproduction produced."""

    key_numbers: pd.DataFrame
    """The thesis's numbers beside ours."""
    model_vs_sim: pd.DataFrame
    """Fig. 4.5's grid points, the simulator's means beside the model's (empty until given)."""
    claims: list[claims.Claim]
    """The verdicts."""
    summary_md: str
    """The generated summary (also in summary.md)."""
    wall_time_s: float
    """Wall-clock time."""
    files: list[Path]
    """Files written."""


def run(cfg: Config, out: Path, workers: int | None = None, console: Console | None = None, overwrite: bool = False,
        sim_points: pd.DataFrame | None = None) -> Result:
    """Evaluate the model over Figs. 4.5–4.8 and write every output into ``out``.

    ``sim_points``: the simulator side's results, one row per run with ``simulator.SIM_COLUMNS``
    (None: with ``cfg.simulate`` the simulator runs here over Fig. 4.5's grid, on the study
    engine with ``workers`` local processes unless a ``runner.engine`` is active; else those of
    ``cfg.sim_points_csv`` if set; else not run yet, and said so).
    """
    cfg.check()
    if sim_points is not None:
        sim_points = simulator.check(sim_points)
    elif cfg.sim_points_csv:
        sim_points = simulator.read_csv(cfg.sim_points_csv)
    runner.prepare_out_dir(out, OUTPUT_FILES + SIM_FILES, overwrite)
    t0 = time.perf_counter()
    tun = cfg.tunnel()
    ran_here = sim_points is None and cfg.simulate
    sim46 = None
    if ran_here:
        sim_points = simulator.run_grid(simulator.grid_points(cfg, experiments.fig45(cfg, tun)), cfg, workers, console)
        sim46 = simulator.run_grid(simulator.fig46_points(cfg, experiments.fig46_47(cfg, tun)), cfg, workers, console,
                                   "tunnel simulator (Figs. 4.6–4.8, q = 0.1)")
    else:
        for name in SIM_FILES:  # an earlier --simulate run's rows (we got here with overwrite): not this run's
            (out / name).unlink(missing_ok=True)
    tables = {
        "fig45.csv": experiments.fig45(cfg, tun),
        "fig45_lines.csv": experiments.fig45_lines(cfg, tun),
        "mixed.csv": experiments.mixed(cfg, tun),
        "fig46_47.csv": experiments.fig46_47(cfg, tun),
        "fig48.csv": experiments.fig48(cfg, tun),
        "fig48_lines.csv": experiments.fig48_lines(cfg, tun),
        "key_numbers.csv": experiments.key_numbers(cfg, tun),
        "sizes.csv": experiments.sizes(tun),
        "sensitivity.csv": experiments.sensitivity(cfg, tun),
    }
    tables["model_vs_sim.csv"] = simulator.beside(tables["fig45.csv"], sim_points)
    verdicts = claims.evaluate(tables["fig45.csv"], tables["fig45_lines.csv"], tables["fig46_47.csv"], tables["fig48.csv"],
                               tables["key_numbers.csv"], tables["mixed.csv"], tables["model_vs_sim.csv"])
    tables["claims.csv"] = claims.claims_frame(verdicts)
    files = [runner.write_config(out, cfg)]
    sim_tables = {}
    if ran_here:
        sim_tables = {SIM_FILE: sim_points, "sim_fig46_47.csv": simulator.beside(tables["fig46_47.csv"], sim46)}
        sim_tables["sim_fig48.csv"] = simulator.fig48_beside(sim_tables["sim_fig46_47.csv"], tables["fig48.csv"],
                                                             cfg.stay_awake_fig48)
    for name, df in sim_tables.items():
        df.to_csv(out / name, index=False)
        files.append(out / name)
    for name, df in tables.items():
        df.to_csv(out / name, index=False)
        files.append(out / name)
    files.append(figures.fig_4_5(tables["fig45_lines.csv"], tables["fig45.csv"], tables["model_vs_sim.csv"], out,
                                 cfg.flow_kBps_fig45))
    files += figures.fig_4_6_4_7(tables["fig46_47.csv"], out, sim_tables.get("sim_fig46_47.csv"))
    files.append(figures.fig_4_8(tables["fig48_lines.csv"], tables["fig48.csv"], out, cfg.flow_kBps_fig48,
                                 cfg.stay_awake_fig48, sim_tables.get("sim_fig48.csv")))
    wall = time.perf_counter() - t0
    text = summary_markdown(cfg, {**tables, **sim_tables}, verdicts, wall, ran_here)
    (out / "summary.md").write_text(text, encoding="utf-8")
    files.append(out / "summary.md")
    return Result(tables["key_numbers.csv"], tables["model_vs_sim.csv"], verdicts, text, wall, files)


def _num(v, spec: str = ".3f") -> str:
    return "—" if v is None or pd.isna(v) else format(float(v), spec)


def _sim_fig46_48_lines(tables: dict[str, pd.DataFrame]) -> list[str]:
    """The summary's Figs. 4.6–4.8 simulator comparison (nothing when the simulator did not run here)."""
    s46, s48 = tables.get("sim_fig46_47.csv"), tables.get("sim_fig48.csv")
    if s46 is None or s46.sim_runs.isna().all():
        return []
    ran = s46[s46.sim_runs.notna()]
    aggs = sorted(ran.aggregate_kBps.unique())
    measured = "sim_delay_ms" in ran.columns
    lines = ["### Figs. 4.6–4.8 (q = 0.1)", "",
             f"Model / simulator (`sim_fig46_47.csv`, with err = model/sim − 1; the simulator's mean of "
             f"{simulator.runs_text(ran.sim_runs)} per point). "
             + ("D: the model's (m − 1)/(2R) beside the client inlet's measured mean wait (arrival to release)."
                if measured else "The simulator's rows have no buffering delay, so Fig. 4.7 has the model only."), ""]
    for col, name, spec in (("p_ratio", "P_ratio", ".3f"), ("delay_ms", "D (ms)", ".1f")):
        if f"sim_{col}" not in ran.columns:
            continue
        lines += md.header(f"{name}: m", *(f"{a:g} kB/s" for a in aggs))
        for m, g in ran.groupby("m"):
            by = g.set_index("aggregate_kBps")
            cells = [f"{by[col][a]:{spec}} / {by['sim_' + col][a]:{spec}}" if a in by.index else "—" for a in aggs]
            lines.append(md.row(m, *cells))
        lines.append("")
    n_ok = int(ran.within_15.sum())
    lines += [f"{n_ok} of {len(ran)} points within 15 % on both P_sleep and P_ratio.", ""]
    if s48 is not None and not s48.empty:
        lines += ["Fig. 4.8 from these runs (`sim_fig48.csv`): the best P_ratio over the simulated m whose buffering "
                  "delay ≤ D_th (" + ("the simulator's measured D" if measured else "the model's D") + "; m = 0: the "
                  "radio stays on), beside the model's best over the same m (the model's D) and over every m.", "",
                  *md.header("aggregate (kB/s)", "D_th (ms)", "simulator (m)", "model, same m (m)", "model, all m (m)")]
        for r in s48.itertuples(index=False):
            lines.append(md.row(f"{r.aggregate_kBps:g}", f"{r.d_th_ms:g}", f"{r.sim_p_ratio:.3f} ({r.sim_m})",
                                f"{r.model_p_ratio_same_m:.3f} ({r.model_m_same_m})", f"{_num(r.p_ratio)} ({r.m})"))
        lines.append("")
    return lines


def summary_markdown(cfg: Config, tables: dict[str, pd.DataFrame], verdicts: list[claims.Claim], wall_s: float,
                     simulated_here: bool = False) -> str:
    """The generated summary: setup and conventions, the key numbers beside the thesis's, the
    sensitivity, the simulator side's state, and the verdicts."""
    key, sens, mvs = tables["key_numbers.csv"], tables["sensitivity.csv"], tables["model_vs_sim.csv"]
    counts = {v: sum(c.verdict == v for c in verdicts) for v in (claims.AGREES, claims.PARTLY, claims.DISAGREES, claims.UNTESTED)}
    ran = mvs[mvs.sim_runs.notna()]
    lines = [
        "# Paper 002 Ch. 4 (Hashimoto 2013, SCTP tunneling) reproduced by wattlab: "
        + ("model and simulator" if simulated_here else "model side"), "",
        runner.provenance_line(), "",
        f"{'Quick preset' if cfg.quick else 'Full run'}: the analytic model (`wattlab.models.sctp_tunnel`) over "
        f"Figs. 4.5–4.8" + (" and the simulated tunnel over Fig. 4.5's grid" if simulated_here else "")
        + f" in {wall_s:.1f} s wall time. The model is deterministic: no seeds, no error bars"
        + (f"; the simulator ran {cfg.sim_seeds} seed(s) from {cfg.sim_base_seed} per point, "
           f"{cfg.sim_duration_s:g} s each (`sim_runs.csv`)." if simulated_here else "."), "",
        "## Setup", "",
        f"- Tables 4.1–4.2: 802.11a 54 Mb/s, RTS/CTS from the client only, N = 7, the `{cfg.profile}` profile "
        "(P^t 1.4, P^r 0.9, P^l 0.8, P^s 0.016, P^as 0.8, P^sa 1.4 W; T^as 1 µs, T^sa 1 ms); p = q^8.",
        f"- Conventions the thesis leaves open (docs/models.md): kbyte = {cfg.kbyte} B; frame timing `{cfg.timing}`, "
        f"control frames at {cfg.control_rate_bps / 1e6:g} Mb/s; SCTP sizes `{cfg.sizing}` (Eq. 4.12); received "
        f"packets per burst `{cfg.rx_per_burst}`; sleep rule `{cfg.sleep_rule}`.",
        f"- Fig. 4.5: upstream flows of {cfg.flow_kBps_fig45:g} kB/s, q ∈ {{{', '.join(f'{q:g}' for q in cfg.q_values)}}}, "
        f"m ∈ {{{', '.join(str(m) for m in cfg.m_fig45)}}}, up to R_max (Eq. 4.6). Figs. 4.6–4.7: q = {cfg.q_fig46:g}, "
        f"m = {min(cfg.m_fig46)}–{max(cfg.m_fig46)}. Fig. 4.8: flows of {cfg.flow_kBps_fig48:g} kB/s, D_th ∈ "
        f"{{{', '.join(f'{d:g}' for d in cfg.d_th_ms)}}} ms, m ≤ {cfg.m_max_fig48}"
        + (", the radio may stay on." if cfg.stay_awake_fig48 else "."), "",
        "## The thesis's numbers beside ours", "",
        *md.header("quantity", "thesis", "ours", "ours − thesis"),
    ]
    for _, r in key.iterrows():
        spec = ".3g" if str(r["key"]).startswith("p_q") else ".0f" if str(r["key"]).startswith("s_") else ".3f"
        lines.append(md.row(r.quantity, _num(r.thesis, spec), _num(r.ours, spec), _num(r.difference, '+' + spec)))
    lines += ["", "## Sensitivity to the conventions the thesis leaves open (P_ratio at 450 kB/s, q = 0.1)", "",
              *md.header("variant", "m = 1 (thesis 0.27)", "m = 5 (thesis 0.69)", "R_max at q = 0.1 (kB/s)")]
    for _, r in sens.iterrows():
        lines.append(md.row(r.variant, f"{r.p_ratio_m1:.3f}", f"{r.p_ratio_m5:.3f}", f"{r.r_max_kBps_q01:.0f}"))
    where = []
    for m, col in ((1, "p_ratio_m1"), (5, "p_ratio_m5")):
        lo, hi, thesis = sens[col].min(), sens[col].max(), paper.KEY_RATIO[m]
        side = "above every variant" if thesis > hi else "below every variant" if thesis < lo else "inside their range"
        where.append(f"{lo:.3f}–{hi:.3f} at m = {m}, where the thesis's {thesis:g} lies {side}")
    lines += ["", f"Across these variants P_ratio spans {'; '.join(where)}. Nothing was fitted to the thesis "
              "(docs/models.md explains the difference).", "",
              "## Simulator side", ""]
    if ran.empty:
        lines += [f"Not run yet: `model_vs_sim.csv` lists the {len(mvs)} Fig. 4.5 grid points (q, m, flows) the simulated "
                  "tunnel is to run, with empty simulator columns; claim S1 is \"not tested\". Hook: "
                  "`wattlab.reproduce.hashimoto2013_tunnel.run(cfg, out, sim_points=df)` with one row per run "
                  f"({', '.join(simulator.SIM_COLUMNS)}).", ""]
    else:
        n_ok = int(ran.within_15.sum())
        lines += [f"{len(ran)} of {len(mvs)} grid points simulated"
                  + (" here (`--simulate`: the default settings of `simulator.scenario`, U-APSD with the tunnel's "
                     "triggers)" if simulated_here else " (rows given)")
                  + f"; {n_ok} within 15 % on both P_sleep and P_ratio (`model_vs_sim.csv`). Which assumption makes "
                  "the rest differ: docs/tunnel.md, \"Which assumption causes it\".", ""]
    lines += _sim_fig46_48_lines(tables)
    lines += ["## Verdicts", "",
              f"{counts[claims.AGREES]} agree, {counts[claims.PARTLY]} partly, {counts[claims.DISAGREES]} disagree, "
              f"{counts[claims.UNTESTED]} not tested. Rule: {claims.RULE}.", "",
              *md.header("claim", "verdict", "the thesis says", "our test", "our numbers")]
    for c in verdicts:
        lines.append(md.row(c.id, f"**{c.verdict}**", c.thesis, c.test, c.evidence))
    lines.append("")
    return "\n".join(lines)
