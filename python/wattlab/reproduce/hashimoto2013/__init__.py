"""Reproduction of paper 002: M. Hashimoto, "Transport-Layer Solutions for Achieving Fairness and
Energy Efficiency in Wireless LANs", PhD thesis, Osaka University, 2013 — Ch. 2 (ACK-loss-aware
TCP for WLAN fairness) and Ch. 3 (energy model of one TCP flow over 802.11a).

``run(cfg, out)`` computes the closed-form tables and runs the simulations, then writes:

- ``table21.csv`` (Table 2.1's 16 index values, the variances, beside the thesis's),
  ``table23.csv`` (B_est, Eq. 2.11);
- ``fairness_runs.csv`` (every run: per-flow throughput and RTT, Jain, F, SWM(w), AP queue
  drops, collisions, air time) and ``fairness.csv`` (means and 95 % CIs per mix, delayed ACK
  and scheme; total against Reno's);
- ``table31.csv`` (ACK inter-arrival: the thesis's two columns, our model, our simulator) and
  ``table31_runs.csv``;
- ``r_energy_maps.csv``, ``r_energy_vs_p.csv``, ``m_sweep.csv`` (the model's Figs. 3.9–3.12);
- ``model_vs_sim.csv`` and ``model_vs_sim_runs.csv`` (Ch. 3 model against the simulator);
- ``claims.csv``, ``summary.md``, ``config.json`` and the figures (``figures.NAMES``).

The fairness, model-vs-simulator and Table 3.1 runs go through :func:`runner.run_jobs`
(``fairness.job``/``measure``, ``energy_sim.job``/``measure``, ``validation.job``/``measure``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from rich.console import Console

from ... import markdown as md
from .. import runner, stats
from . import claims, closed_form, energy_sim, fairness, figures, paper, validation
from .config import MIXES, SCHEMES, Config

__all__ = ["Config", "Result", "run", "OUTPUT_FILES"]

CSV_FILES = ("table21.csv", "table23.csv", "fairness_runs.csv", "fairness.csv", "table31.csv", "table31_runs.csv",
             "r_energy_maps.csv", "r_energy_vs_p.csv", "m_sweep.csv", "model_vs_sim.csv", "model_vs_sim_runs.csv",
             "claims.csv")
OUTPUT_FILES = ("config.json", "summary.md", *CSV_FILES, *figures.NAMES)
"""Every file ``run`` writes (it refuses to replace any of them unless told to)."""

FAIR_METRICS = ["total_mbps", "up_mbps", "down_mbps", "down_share", "jain", "F", "min_flow_mbps", "up_rtt_ms",
                "down_rtt_ms", "timeouts", "fast_retransmits", "ap_queue_drops", "ap_frames", "sta_frames", "collisions",
                "air_busy"]


@dataclass
class Result:
    """What one reproduction produced."""

    tables: dict
    claims: list[claims.Claim]
    summary_md: str
    wall_time_s: float
    files: list[Path]


def fairness_jobs(cfg: Config) -> list:
    """Every fairness run: mix × delayed ACK × scheme × seed (the same start times per seed)."""
    return [fairness.job(s, k, mix, *MIXES[mix], d, cfg.duration_s, cfg.warmup_s, cfg.sample_s, cfg.swm_windows_s)
            for mix in cfg.mixes for d in cfg.delayed_ack for s in cfg.schemes for k in cfg.seed_list()]


def _domains(n_flows):
    def jain(key):
        return (1.0 / n_flows(key), 1.0)

    return {"jain": jain, "F": (0.0, 1.0), "down_share": (0.0, 1.0), "air_busy": (0.0, 1.0),
            **{c: stats.NON_NEGATIVE for c in FAIR_METRICS if c not in ("jain", "F", "down_share", "air_busy")}}


def fairness_table(r: pd.DataFrame) -> pd.DataFrame:
    """Means with 95 % CIs and drawn intervals per (mix, delayed ACK, scheme); the total
    against Reno's in the same mix and delayed-ACK setting."""
    extra = [c for c in r.columns if c.startswith(("swm_", "x_", "rtt_"))]
    dom = _domains(lambda key: sum(MIXES[key["mix"]]))
    dom.update({c: (0.0, 1.0) for c in extra if c.startswith("swm_")})
    dom.update({c: stats.NON_NEGATIVE for c in extra if not c.startswith("swm_")})
    t = runner.aggregate(r, ["mix", "delayed_ack", "scheme"], FAIR_METRICS + extra, dom)
    reno = t[t["scheme"] == "reno"].set_index(["mix", "delayed_ack"])["total_mbps"]
    t["total_vs_reno_pct"] = [100 * (v / reno[(m, d)] - 1) for m, d, v in zip(t["mix"], t["delayed_ack"], t["total_mbps"])]
    t["tcp_capacity_mbps"] = [fairness.tcp_capacity_mbps(d) for d in t["delayed_ack"]]
    t["vs_capacity_pct"] = 100 * (t["total_mbps"] / t["tcp_capacity_mbps"] - 1)
    t["ap_drop_fraction"] = t["ap_queue_drops"] / (t["ap_frames"] + t["ap_queue_drops"])
    return t


def table31_table(analysis: pd.DataFrame, sims: pd.DataFrame) -> pd.DataFrame:
    """Table 3.1 with our simulator's mean (CI, drawn interval) beside the model's."""
    if sims.empty:
        return analysis.assign(sim_ms=float("nan"), model_vs_sim_pct=float("nan"))
    agg = runner.aggregate(sims, ["cross_mbps"], ["ack_interarrival_ms", "tcp_mbps", "timeouts"],
                           {"ack_interarrival_ms": stats.NON_NEGATIVE, "tcp_mbps": stats.NON_NEGATIVE})
    agg = agg.rename(columns={"ack_interarrival_ms": "sim_ms", "ack_interarrival_ms_ci": "sim_ms_ci",
                              "ack_interarrival_ms_lo": "sim_ms_lo", "ack_interarrival_ms_hi": "sim_ms_hi", "runs": "sim_runs",
                              "tcp_mbps": "sim_tcp_mbps", "timeouts": "sim_timeouts"})
    agg["cross_mbps"] = agg["cross_mbps"].astype(int)
    keep = ["cross_mbps", "sim_runs", "sim_ms", "sim_ms_ci", "sim_ms_lo", "sim_ms_hi", "sim_tcp_mbps", "sim_timeouts"]
    t = analysis.merge(agg[keep], on="cross_mbps", how="left")
    t["model_vs_sim_pct"] = 100 * (t["analysis_ms"] / t["sim_ms"] - 1)
    return t


def run(cfg: Config, out: Path, workers: int | None = None, console: Console | None = None,
        overwrite: bool = False) -> Result:
    """Run the whole reproduction and write its files into ``out``."""
    cfg.check()
    runner.prepare_out_dir(out, OUTPUT_FILES, overwrite)
    t0 = time.perf_counter()
    workers = workers or runner.default_jobs()
    tables = {"table21": closed_form.table21(), "jain_example": closed_form.jain_example(),
              "table23": closed_form.table23(), "design": closed_form.design_conditions(),
              "maps": closed_form.r_energy_maps(), "curves": closed_form.p_curves(), "m_sweep": closed_form.m_sweep()}
    fr = fairness.runs(fairness_jobs(cfg), workers, console)
    tables["fairness_runs"], tables["fairness"] = fr, fairness_table(fr)
    t31 = validation.runs(list(paper.TABLE31), range(cfg.base_seed, cfg.base_seed + cfg.table31_seeds),
                          cfg.table31_duration_s, workers, console)
    tables["table31_runs"], tables["table31"] = t31, table31_table(closed_form.table31_analysis(), t31)
    points = [energy_sim.Point(p.p, p.rtt_s, p.m, cfg.energy_bytes) for p in energy_sim.GRID]
    er = energy_sim.runs(points, range(cfg.base_seed, cfg.base_seed + cfg.energy_seeds), workers, console)
    tables["model_vs_sim_runs"], tables["model_vs_sim"] = er, energy_sim.compare_runs(er, points)
    verdicts = claims.evaluate(tables)
    wall = time.perf_counter() - t0
    files = [runner.write_config(out, cfg)]
    for name, key in (("table21.csv", "table21"), ("table23.csv", "table23"), ("fairness_runs.csv", "fairness_runs"),
                      ("fairness.csv", "fairness"), ("table31.csv", "table31"), ("table31_runs.csv", "table31_runs"),
                      ("r_energy_maps.csv", "maps"), ("r_energy_vs_p.csv", "curves"), ("m_sweep.csv", "m_sweep"),
                      ("model_vs_sim.csv", "model_vs_sim"), ("model_vs_sim_runs.csv", "model_vs_sim_runs")):
        tables[key].to_csv(out / name, index=False)
        files.append(out / name)
    claims.claims_frame(verdicts).to_csv(out / "claims.csv", index=False)
    files.append(out / "claims.csv")
    f = tables["fairness"]
    files += [figures.throughput(f, out), figures.fairness(f, out), figures.swm(f, cfg.swm_windows_s, out),
              figures.table31(tables["table31"], out), figures.r_energy_maps(tables["maps"], out),
              figures.m_sweep(tables["curves"], tables["m_sweep"], out),
              figures.model_vs_sim(tables["model_vs_sim"], out, cfg.energy_seeds)]
    n_runs = len(fr) + len(t31) + len(er)
    text = summary_markdown(cfg, tables, verdicts, wall, n_runs)
    (out / "summary.md").write_text(text, encoding="utf-8")
    files.append(out / "summary.md")
    return Result(tables, verdicts, text, wall, files)


def _ci(r, col: str, spec: str = "{:.3f}") -> str:
    v, ci = r[col], r.get(f"{col}_ci", float("nan"))
    return spec.format(v) + ("" if ci != ci or ci == 0 else " ± " + spec.format(ci))


def summary_markdown(cfg: Config, tables: dict, verdicts: list[claims.Claim], wall_s: float, n_runs: int) -> str:
    """The generated summary: setup, the tables beside the thesis's, the claims."""
    t21, t23, f, t31 = tables["table21"], tables["table23"], tables["fairness"], tables["table31"]
    je = tables["jain_example"]
    lines = [
        "# Paper 002 (Hashimoto 2013, Ch. 2–3) reproduced by wattlab", "", runner.provenance_line(), "",
        f"{'Quick preset' if cfg.quick else 'Full run'}: {n_runs} simulations in {wall_s:.1f} s wall time. Fairness: "
        f"{cfg.seeds} seed(s) from {cfg.base_seed}, {cfg.duration_s:g} s runs averaged over {cfg.warmup_s:g}–{cfg.duration_s:g} s; "
        f"model vs simulator: {cfg.energy_seeds} seed(s) per point; Table 3.1: {cfg.table31_seeds} seed(s) × "
        f"{cfg.table31_duration_s:g} s. ± is the 95 % t-interval of the mean over seeds.", "",
        "## Table 2.1 (C = 30 Mb/s, n = 10) and the Jain example", "",
        *md.header("case", "throughputs (Mb/s)", "total", "Jain", "thesis", "F(X, C)", "thesis", "variance", "thesis"),
    ]
    for r in t21.itertuples():
        pv = "" if r.paper_variance is None or r.paper_variance != r.paper_variance else f"{r.paper_variance:g}"
        lines.append(md.row(r.case, r.throughputs_mbps, f"{r.total_mbps:g}", f"{r.jain:.4f}", f"{r.paper_jain:.2f}", f"{r.F:.4f}",
                            f"{r.paper_F:.2f}", f"{r.variance:.4g}", pv))
    lines += ["", f"Jain {{10, 30, 40}} = {je['jain_small']:.4f}, {{100, 300, 400}} = {je['jain_large']:.4f} (thesis 0.82).", "",
              "## Table 2.3: B_est (Eq. 2.11, MSS 1500 B)", "",
              *md.header("AP", "minRTT (ms)", "T (Mb/s)", "cwnd_overflow (B)", "B_est", "thesis")]
    for r in t23.itertuples():
        lines.append(md.row(r.ap, r.min_rtt_ms, r.throughput_mbps, r.cwnd_overflow_bytes, f"{r.b_est_packets:.2f}",
                            r.paper_b_est_packets))
    lines += ["", "## Fairness (Ch. 2, Figs. 2.4, 2.5, 2.7, 2.10–2.12)", "",
              "802.11a 54 Mb/s, one flow per client, AP DropTail 100 packets, wired 100 Mb/s / 100 ms, starts U[0, 10] s. "
              "Schemes: " + "; ".join(f"`{k}` = {v}" for k, v in SCHEMES.items()) + ".", "",
              *md.header("mix", "delayed ACK", "scheme", "total (Mb/s)", "vs Reno", "downstream share", "Jain", "F",
                         "slowest flow (Mb/s)", "RTT up / down (ms)", "AP queue drops", "collisions", "air busy")]
    for _, r in f.iterrows():
        share = "—" if r["down_share"] != r["down_share"] or r["mix"] == "10up" else _ci(r, "down_share")
        down = "—" if r["down_rtt_ms"] != r["down_rtt_ms"] else f"{r['down_rtt_ms']:.0f}"
        lines.append(md.row(r['mix'], 'on' if r['delayed_ack'] else 'off', r['scheme'], _ci(r, 'total_mbps', '{:.2f}'),
                            f"{r['total_vs_reno_pct']:+.1f} %", share, _ci(r, 'jain'), _ci(r, 'F'), f"{r['min_flow_mbps']:.2f}",
                            f"{r['up_rtt_ms']:.0f} / {down}", f"{r['ap_queue_drops']:,.0f}", f"{r['collisions']:,.0f}",
                            f"{r['air_busy']:.3f}"))
    swm_cols = [c for c in f.columns if c.startswith("swm_") and not c.endswith(("_ci", "_lo", "_hi"))]
    lines += ["", "Collision-free TCP capacity of one 802.11a 54 Mb/s hop (data + TCP-ACK exchanges, 1448-byte payloads, "
              "`wattlab.models.wlan.tcp_capacity`): " + ", ".join(
                  f"delayed ACK {'on' if d else 'off'} {fairness.tcp_capacity_mbps(d):.2f} Mb/s" for d in sorted(set(f["delayed_ack"])))
              + ". Total against it, and the share of frames reaching the AP that its queue dropped:", "",
              *md.header("mix", "delayed ACK", "scheme", "total vs capacity", "AP drop fraction")]
    for _, r in f.iterrows():
        lines.append(md.row(r['mix'], 'on' if r['delayed_ack'] else 'off', r['scheme'], f"{r['vs_capacity_pct']:+.1f} %",
                            f"{r['ap_drop_fraction']:.3f}"))
    lines += ["", "SWM(w) (F(X, C) over windows of w, C = 29.6 Mb/s, mean over window positions):", "",
              *md.header("mix", "delayed ACK", "scheme", *(f"w = {c[4:]}" for c in swm_cols))]
    for _, r in f.iterrows():
        lines.append(md.row(r['mix'], 'on' if r['delayed_ack'] else 'off', r['scheme'], *(f"{r[c]:.3f}" for c in swm_cols)))
    lines += ["", "## Table 3.1: mean ACK inter-arrival (m = 1, q = 0.3, RTT 100 ms)", "",
              *md.header("cross (Mb/s)", "E[W]", "p", "thesis ns-2", "thesis analysis", "wattlab model", "vs thesis analysis",
                         "wattlab simulator", "model vs simulator", "simulated TCP (Mb/s)")]
    for _, r in t31.iterrows():
        sim = "—" if r.get("sim_ms", float("nan")) != r.get("sim_ms", float("nan")) else _ci(r, "sim_ms")
        mvs = "—" if sim == "—" else f"{r['model_vs_sim_pct']:+.1f} %"
        tcp = "—" if sim == "—" else f"{r['sim_tcp_mbps']:.2f}"
        lines.append(md.row(int(r['cross_mbps']), f"{r['e_w']:.2f}", f"{r['p']:.3e}", r['paper_simulation_ms'],
                            r['paper_analysis_ms'], f"{r['analysis_ms']:.3f}", f"{r['vs_paper_analysis_pct']:+.1f} %", sim, mvs, tcp))
    s = tables["m_sweep"]
    p001 = s[(s["p"] == 0.001)].sort_values("m")
    lines += ["", "## Energy model (Ch. 3; q = 0.3, 10 MiB, T_0 = 1 s, w_1 = 1)", "",
              "m-sweep at p = 0.001, RTT 100 ms (Fig. 3.10): R_energy " + ", ".join(f"{v:.3f}" for v in p001["r_energy"])
              + f" for m = {p001['m'].min()}…{p001['m'].max()}. Maps and the p = 0.01 sweep are in r_energy_maps.csv and "
              "m_sweep.csv.", ""]
    c = tables["model_vs_sim"]
    lines += ["Model vs simulator (one upstream Reno flow, 802.11a, q = 0, p as wired loss; error = model/sim − 1):", "",
              *md.header("p", "RTT (ms)", "m", "E[J_cam] model / sim (J)", "error", "E[J_sleep] model / sim (J)", "error")]
    for r in c.itertuples():
        lines.append(md.row(f"{r.p:g}", f"{r.rtt_ms:g}", r.m, f"{r.model_cam_j:.2f} / {r.sim_always_on_j:.2f}", f"{r.cam_err_pct:+.0f} %",
                            f"{r.model_sleep_j:.2f} / {r.sim_ideal_sleep_j:.2f}", f"{r.sleep_err_pct:+.0f} %"))
    lines += ["", "## Claims", "", *md.header("claim", "the thesis (or the issue)", "our test", "verdict", "our numbers")]
    for v in verdicts:
        lines.append(md.row(v.id, v.paper, v.test, f"**{v.verdict}**", v.evidence))
    lines += ["", "## Not reproduced", "",
              "- The relocation case (Fig. 2.6: 5 clients at 1 m, 5 at 10 m): the 802.11 PHY has no distance, path loss or "
              "capture effect (docs/reproductions.md says why).",
              "- The testbed (Figs. 2.9–2.13 on commercial APs): Fig. 2.12's delayed-ACK comparison is run in the simulator.", ""]
    return "\n".join(lines)
