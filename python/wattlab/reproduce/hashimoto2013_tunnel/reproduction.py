"""Paper 002 Ch. 4's reproduction on the framework: the power model over Figs. 4.5–4.8, the
simulated tunnel beside it (run here with ``simulate``, or given as ``sim_points``), the claims,
the figures and the summary."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from ... import markdown as md
from ..framework import Context, Info, Reproduction, run_heading
from . import association, claims, experiments, figures, paper, simulator
from .config import Config

FILES = ("config.json", "fig45.csv", "fig45_lines.csv", "mixed.csv", "fig46_47.csv", "fig48.csv", "fig48_lines.csv",
         "key_numbers.csv", "sizes.csv", "sensitivity.csv", "model_vs_sim.csv", "claims.csv", "summary.md",
         "fig_4_5.png", "fig_4_6.png", "fig_4_7.png", "fig_4_8.png")
"""Every file the reproduction writes."""
SIM_FILE = "sim_runs.csv"
"""Written besides when the simulator runs here (``Config.simulate``): one row per simulator run."""
SIM_FILES = (SIM_FILE, "sim_fig46_47.csv", "sim_fig48.csv", "sim_association.csv")
"""Every file written besides when the simulator runs here (Fig. 4.5's runs, Figs. 4.6–4.8's)."""


def _num(spec: str = ".3f"):
    return lambda v: "—" if v is None or pd.isna(v) else format(float(v), spec)


def _spec(key: str) -> str:
    return ".3g" if key.startswith("p_q") else ".0f" if key.startswith("s_") else ".3f"


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
        grid = pd.DataFrame([{"m": m, **{a: f"{g.set_index('aggregate_kBps')[col][a]:{spec}} / "
                                          f"{g.set_index('aggregate_kBps')['sim_' + col][a]:{spec}}"
                                         if a in set(g.aggregate_kBps) else "—" for a in aggs}}
                             for m, g in ran.groupby("m")])
        lines += [*md.frame(grid, {f"{name}: m": "m", **{f"{a:g} kB/s": a for a in aggs}}), ""]
    lines += [f"{int(ran.within_15.sum())} of {len(ran)} points within 15 % on both P_sleep and P_ratio.", ""]
    if s48 is not None and not s48.empty:
        lines += ["Fig. 4.8 from these runs (`sim_fig48.csv`): the best P_ratio over the simulated m whose buffering "
                  "delay ≤ D_th (" + ("the simulator's measured D" if measured else "the model's D") + "; m = 0: the "
                  "radio stays on), beside the model's best over the same m (the model's D) and over every m.", "",
                  *md.frame(s48, {"aggregate (kB/s)": lambda r: f"{r.aggregate_kBps:g}", "D_th (ms)": lambda r: f"{r.d_th_ms:g}",
                                  "simulator (m)": lambda r: f"{r.sim_p_ratio:.3f} ({r.sim_m})",
                                  "model, same m (m)": lambda r: f"{r.model_p_ratio_same_m:.3f} ({r.model_m_same_m})",
                                  "model, all m (m)": lambda r: f"{_num()(r.p_ratio)} ({r.m})"}), ""]
    return lines


def _association_lines(tables: dict[str, pd.DataFrame]) -> list[str]:
    """The summary's issue-32 experiment on the association's start and Max.Burst (nothing when
    the simulator did not run here)."""
    t = tables.get("sim_association.csv")
    if t is None or t.empty:
        return []
    return ["### The association's start and Max.Burst (`sim_association.csv`)", "",
            "Default: RFC 9260's INIT handshake at time zero, no Max.Burst. Each setting reruns the simulated points "
            "with one change, judged against the default rerun with the next seed (docs/tunnel.md):", "",
            *[f"- {s}" for s in association.sentences(t)],
            "", "T1–T13 are the model's and do not depend on the simulator; only S1 can move.", ""]


class Tunnel(Reproduction):
    """Paper 002 Ch. 4 (the SCTP tunnel)."""

    name = "hashimoto2013-tunnel"
    title = "Paper 002 Ch. 4 (Hashimoto 2013, SCTP tunneling)"
    config = Config
    files = FILES + SIM_FILES
    claim_columns = claims.COLUMNS
    rule = claims.RULE
    claims_heading = "Verdicts"

    def check_inputs(self, cfg: Config, inputs: dict[str, Any]) -> None:
        """``sim_points``: the simulator side's rows (one per run, ``simulator.SIM_COLUMNS``);
        without it, those of ``cfg.sim_points_csv`` if set."""
        if set(inputs) - {"sim_points"}:
            raise TypeError(f"{self.name} takes sim_points only, not {', '.join(set(inputs) - {'sim_points'})}")
        if inputs.get("sim_points") is not None:
            inputs["sim_points"] = simulator.check(inputs["sim_points"])
        elif cfg.sim_points_csv:
            inputs["sim_points"] = simulator.read_csv(cfg.sim_points_csv)

    def configure(self, cfg: Config, options: dict[str, Any]) -> None:
        if options.get("sim_points") is not None:
            if options.get("simulate"):
                raise ValueError("--simulate and --sim-points exclude each other: give the simulator's rows or run it, not both")
            cfg.simulate = False
            cfg.sim_points_csv = options["sim_points"]

    def tables(self, cfg: Config, ctx: Context) -> dict[str, pd.DataFrame]:
        tun = cfg.tunnel()
        sim_points = ctx.inputs.get("sim_points")
        ran_here = sim_points is None and cfg.simulate
        tables = {"fig45.csv": experiments.fig45(cfg, tun), "fig45_lines.csv": experiments.fig45_lines(cfg, tun),
                  "mixed.csv": experiments.mixed(cfg, tun), "fig46_47.csv": experiments.fig46_47(cfg, tun),
                  "fig48.csv": experiments.fig48(cfg, tun), "fig48_lines.csv": experiments.fig48_lines(cfg, tun),
                  "key_numbers.csv": experiments.key_numbers(cfg, tun), "sizes.csv": experiments.sizes(tun),
                  "sensitivity.csv": experiments.sensitivity(cfg, tun)}
        if ran_here:
            pts45, pts46 = simulator.grid_points(cfg, tables["fig45.csv"]), simulator.fig46_points(cfg, tables["fig46_47.csv"])
            sim_points = simulator.run_grid(pts45, cfg, ctx)
            sim46 = simulator.run_grid(pts46, cfg, ctx, "tunnel simulator (Figs. 4.6–4.8, q = 0.1)")
            if cfg.association:
                tables["sim_association.csv"] = association.run(cfg, ctx, pts45, sim_points, pts46, sim46, tables["fig45.csv"])
        else:
            for name in SIM_FILES:  # an earlier --simulate run's rows (we got here with overwrite): not this run's
                (ctx.out / name).unlink(missing_ok=True)
        tables["model_vs_sim.csv"] = simulator.beside(tables["fig45.csv"], sim_points)
        if ran_here:
            tables[SIM_FILE] = sim_points
            tables["sim_fig46_47.csv"] = simulator.beside(tables["fig46_47.csv"], sim46)
            tables["sim_fig48.csv"] = simulator.fig48_beside(tables["sim_fig46_47.csv"], tables["fig48.csv"],
                                                             cfg.stay_awake_fig48)
        return tables

    def quick_changes(self, cfg: Config) -> dict[str, str]:
        return claims.quick_changes(cfg, Config.full())

    def claims(self, cfg: Config, t: dict[str, pd.DataFrame]) -> list[claims.Claim]:
        return claims.evaluate(t["fig45.csv"], t["fig45_lines.csv"], t["fig46_47.csv"], t["fig48.csv"], t["key_numbers.csv"],
                               t["mixed.csv"], t["model_vs_sim.csv"])

    def figures(self, cfg: Config, t: dict[str, pd.DataFrame], out: Path) -> list[Path]:
        return [figures.fig_4_5(t["fig45_lines.csv"], t["fig45.csv"], t["model_vs_sim.csv"], out, cfg.flow_kBps_fig45),
                *figures.fig_4_6_4_7(t["fig46_47.csv"], out, t.get("sim_fig46_47.csv")),
                figures.fig_4_8(t["fig48_lines.csv"], t["fig48.csv"], out, cfg.flow_kBps_fig48, cfg.stay_awake_fig48,
                                t.get("sim_fig48.csv"))]

    def heading(self, cfg: Config, tables: dict[str, pd.DataFrame]) -> str:
        return f"{self.title} reproduced by wattlab: " + ("model and simulator" if SIM_FILE in tables else "model side")

    def summary(self, cfg: Config, tables: dict[str, pd.DataFrame], verdicts, info: Info) -> list[str]:
        key, sens, mvs = tables["key_numbers.csv"], tables["sensitivity.csv"], tables["model_vs_sim.csv"]
        here = SIM_FILE in tables
        ran = mvs[mvs.sim_runs.notna()]
        lines = [
            f"{run_heading(cfg, info, 'simulator runs')}: the analytic model (`wattlab.models.sctp_tunnel`) over "
            "Figs. 4.5–4.8" + (" and the simulated tunnel over Fig. 4.5's grid" if here else "")
            + ". The model is deterministic: no seeds, no error bars"
            + (f"; the simulator ran {cfg.sim_seeds} seed(s) from {cfg.sim_base_seed} per point, "
               f"{cfg.sim_duration_s:g} s each (`sim_runs.csv`)." if here else "."), "",
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
            *md.frame(key, {"quantity": "quantity", "thesis": lambda r: _num(_spec(str(r.key)))(r.thesis),
                            "ours": lambda r: _num(_spec(str(r.key)))(r.ours),
                            "ours − thesis": lambda r: _num("+" + _spec(str(r.key)))(r.difference)}),
            "", "## Sensitivity to the conventions the thesis leaves open (P_ratio at 450 kB/s, q = 0.1)", "",
            *md.frame(sens, {"variant": "variant", "m = 1 (thesis 0.27)": lambda r: f"{r.p_ratio_m1:.3f}",
                             "m = 5 (thesis 0.69)": lambda r: f"{r.p_ratio_m5:.3f}",
                             "R_max at q = 0.1 (kB/s)": lambda r: f"{r.r_max_kBps_q01:.0f}"}),
        ]
        where = []
        for m, col in ((1, "p_ratio_m1"), (5, "p_ratio_m5")):
            lo, hi, thesis = sens[col].min(), sens[col].max(), paper.KEY_RATIO[m]
            side = "above every variant" if thesis > hi else "below every variant" if thesis < lo else "inside their range"
            where.append(f"{lo:.3f}–{hi:.3f} at m = {m}, where the thesis's {thesis:g} lies {side}")
        lines += ["", f"Across these variants P_ratio spans {'; '.join(where)}. Nothing was fitted to the thesis "
                  "(docs/models.md explains the difference).", "", "## Simulator side", ""]
        if ran.empty:
            lines += [f"Not run yet: `model_vs_sim.csv` lists the {len(mvs)} Fig. 4.5 grid points (q, m, flows) the "
                      "simulated tunnel is to run, with empty simulator columns; claim S1 is \"not tested\". Run it here "
                      "with `--simulate`, or give its rows: `REPRODUCTION.run(cfg, out, sim_points=df)` (module "
                      "`wattlab.reproduce.hashimoto2013_tunnel.reproduction`) or `--sim-points FILE`, one row per run "
                      f"({', '.join(simulator.SIM_COLUMNS)}).", ""]
        else:
            lines += [f"{len(ran)} of {len(mvs)} grid points simulated"
                      + (" here (`--simulate`: the default settings of `simulator.overrides`, U-APSD with the tunnel's "
                         "triggers)" if here else " (rows given)")
                      + f"; {int(ran.within_15.sum())} within 15 % on both P_sleep and P_ratio (`model_vs_sim.csv`). "
                      "Which assumption makes the rest differ: docs/tunnel.md, \"Which assumption causes it\".", ""]
        return lines + _sim_fig46_48_lines(tables) + _association_lines(tables)


REPRODUCTION = Tunnel()
"""``wattlab reproduce hashimoto2013-tunnel``."""
