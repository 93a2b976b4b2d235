"""Paper 002 Ch. 2–3's reproduction on the framework: the closed forms, the fairness runs, Table
3.1, the energy model against the simulator, the claims, the figures and the summary."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ... import markdown as md
from .. import runner, stats
from ..framework import Context, Info, Reproduction, run_heading
from . import (claims, closed_form, delack_split, energy_sim, exchange, fairness, figures, paper, relocation, rto, testbed,
               testbed50, validation)
from .config import MIXES, SCHEMES, Config

CSV_FILES = ("table21.csv", "table23.csv", "fairness_runs.csv", "fairness.csv", "relocation_runs.csv", "relocation.csv",
             "testbed_runs.csv", "testbed.csv", "testbed50_runs.csv", "testbed50.csv", "delack_split_runs.csv",
             "delack_split.csv",
             "table31.csv", "table31_runs.csv", "table31_rto.csv", "table31_rto_runs.csv", "exchange.csv",
             "r_energy_maps.csv", "r_energy_vs_p.csv", "q_curves.csv", "m_sweep.csv", "multipliers.csv",
             "model_vs_sim.csv", "model_vs_sim_runs.csv", "claims.csv")
FILES = ("config.json", "summary.md", *CSV_FILES, *figures.NAMES)
"""Every file the reproduction writes."""

FAIR_METRICS = ["total_mbps", "up_mbps", "down_mbps", "down_share", "jain", "F", "min_flow_mbps", "up_rtt_ms",
                "down_rtt_ms", "timeouts", "fast_retransmits", "ap_queue_drops", "ap_frames", "sta_frames", "collisions",
                "air_busy"]


def fairness_jobs(cfg: Config) -> list:
    """Every fairness run: mix × delayed ACK × scheme × seed (the same start times per seed)."""
    return [fairness.job(s, k, mix, *MIXES[mix], d, cfg.duration_s, cfg.warmup_s, cfg.sample_s, cfg.swm_windows_s)
            for mix in cfg.mixes for d in cfg.delayed_ack for s in cfg.schemes for k in cfg.seed_list()]


def relocation_jobs(cfg: Config) -> list:
    """Fig. 2.6's runs: each scheme × seed, delayed ACK off (the thesis's setting)."""
    return [relocation.job(s, k, cfg.duration_s, cfg.warmup_s, cfg.sample_s, cfg.swm_windows_s)
            for s in cfg.schemes for k in cfg.seed_list()]


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


def by_claims(t: dict[str, pd.DataFrame]) -> dict:
    """The tables under the names ``claims.evaluate`` reads, with the closed forms it also needs."""
    named = {name.removesuffix(".csv"): df for name, df in t.items()}
    return {**named, "maps": t["r_energy_maps.csv"], "curves": t["r_energy_vs_p.csv"],
            "jain_example": closed_form.jain_example(), "design": closed_form.design_conditions()}


def _ci(col: str, spec: str = "{:.3f}"):
    """A cell: the mean and, when there is one, its 95 % CI half-width."""
    def cell(r) -> str:
        v, ci = r[col], r.get(f"{col}_ci", float("nan"))
        return spec.format(v) + ("" if ci != ci or ci == 0 else " ± " + spec.format(ci))
    return cell


def testbed_section(cfg: Config, tb: pd.DataFrame) -> list[str]:
    """Figs. 2.9–2.11 in the simulator: per AP, mix and scheme."""
    out = ["", "## The testbed sweep (Figs. 2.9–2.11, Fig. 2.8(a)) in the simulator", ""]
    if tb.empty:
        return out + ["Not run (`testbed_mixes` empty)."]
    swm = [c for c in tb.columns if c.startswith("swm_") and not c.endswith(("_ci", "_lo", "_hi"))]
    return out + [
        f"Ten clients behind each AP, modelled by its buffer (Table 2.3's B_est: "
        + ", ".join(f"{k} {v}" for k, v in testbed.APS.items()) + " packets), the wired node on the AP (100 Mb/s, "
        f"0.1 ms), starts U[0, 0.1] s, delayed ACK off, {cfg.testbed_seeds} seed(s) × {cfg.testbed_duration_s:g} s "
        f"averaged over {cfg.testbed_warmup_s:g}–{cfg.testbed_duration_s:g} s (the thesis: 10 × 180 s, 50–180 s). "
        "Commercial firmware and the real channel are not modelled.", "",
        *md.frame(tb, {
            "AP": "ap", "mix": "mix", "scheme": "scheme", "total (Mb/s)": _ci("total_mbps", "{:.2f}"),
            "per upstream flow": lambda r: "—" if r.up_per_flow_mbps != r.up_per_flow_mbps else f"{r.up_per_flow_mbps:.2f}",
            "per downstream flow": lambda r: "—" if r.down_per_flow_mbps != r.down_per_flow_mbps else f"{r.down_per_flow_mbps:.2f}",
            "slowest flow": lambda r: f"{r.min_flow_mbps:.2f}", "Jain": lambda r: f"{r.jain:.3f}",
            "timeouts per run": lambda r: f"{r.timeouts:.1f}",
            f"SWM w = {swm[0][4:] if swm else '—'} / {swm[-1][4:] if swm else '—'}":
                lambda r: f"{r[swm[0]]:.3f} / {r[swm[-1]]:.3f}" if swm else "—"})]


def testbed50_section(cfg: Config, t: pd.DataFrame) -> list[str]:
    """Figs. 2.12–2.13 in the simulator: per mix, delayed ACK and scheme behind Buffalo-AP at 50 ms."""
    out = ["", f"## The testbed sweep at {cfg.testbed50_delay_ms:g} ms one-way delay (Figs. 2.12–2.13, Fig. 2.8(b)) "
           "in the simulator", ""]
    if t.empty:
        return out + ["Not run (`testbed50_mixes` empty)."]
    swm = [c for c in t.columns if c.startswith("swm_") and not c.endswith(("_ci", "_lo", "_hi"))]
    nan = lambda v: v != v  # noqa: E731
    return out + [
        f"The testbed sweep above behind {testbed50.AP}-AP only ({testbed.APS[testbed50.AP]} packets) with the wired "
        f"link's one-way delay {cfg.testbed50_delay_ms:g} ms (`link.0.delay`; the thesis's netem router, 'a 50 [ms] "
        "one-way delay'), delayed ACK off ('nodelack') and on ('delack'; the proposed method then estimates b by "
        f"Eq. 2.4, β = 1/32), {cfg.testbed_seeds} seed(s) × {cfg.testbed_duration_s:g} s averaged over "
        f"{cfg.testbed_warmup_s:g}–{cfg.testbed_duration_s:g} s. The thesis prints no number from these figures; "
        "claims B8–B13 test what its text says they show.", "",
        *md.frame(t, {
            "mix": "mix", "delayed ACK": lambda r: "on" if r.delayed_ack else "off", "scheme": "scheme",
            "total (Mb/s)": _ci("total_mbps", "{:.2f}"),
            "per upstream flow": lambda r: "—" if nan(r.up_per_flow_mbps) else f"{r.up_per_flow_mbps:.2f}",
            "per downstream flow": lambda r: "—" if nan(r.down_per_flow_mbps) else f"{r.down_per_flow_mbps:.3f}",
            "slowest flow": lambda r: f"{r.min_flow_mbps:.2f}", "Jain": _ci("jain"),
            "timeouts per run": lambda r: f"{r.timeouts:.1f}",
            f"SWM w = {swm[0][4:] if swm else '—'} / {swm[-1][4:] if swm else '—'}":
                lambda r: f"{r[swm[0]]:.3f} / {r[swm[-1]]:.3f}" if swm else "—"})]


def delack_split_section(t: dict[str, pd.DataFrame]) -> list[str]:
    """Gap 4 (e): B11's experiment, its table and its generated sentence."""
    out: list[str] = []
    out += ["**(e) Why delayed ACK shrinks the proposed method's fairness gain at 50 ms (claim B11).** Figs. "
            "2.12's runs again with delayed ACK at one direction's receivers only (per-flow `tcp.delayed_ack`: the "
            "servers of the upstream flows, or the clients of the downstream ones); Jain gain = ackloss's Jain − "
            "Reno's, means over seeds.", ""]
    sp = t["delack_split.csv"]
    if sp.empty:
        out += ["Not run (`delack_split_mixes` empty).", ""]
    else:
        out += [*md.frame(sp, {
            "mix": "mix", "gain, no delayed ACK": lambda r: f"{r.gain_off:+.3f}", "everywhere": lambda r: f"{r.gain_all:+.3f}",
            "upstream flows' receivers only": lambda r: f"{r.gain_up:+.3f}",
            "downstream flows' receivers only": lambda r: f"{r.gain_down:+.3f}",
            "ackloss Jain off / all / up / down": lambda r: f"{r.ackloss_jain_off:.3f} / {r.ackloss_jain_all:.3f} / "
            f"{r.ackloss_jain_up:.3f} / {r.ackloss_jain_down:.3f}",
            "loss reproduced up / down": lambda r: f"{100 * r.explained_up:.0f} % / {100 * r.explained_down:.0f} %"}),
            "", delack_split.conclusion(sp), ""]
    return out


def gap4_section(t: dict[str, pd.DataFrame]) -> list[str]:
    """Issue 32 gap 4's settling experiments: the exchange time Table 3.1's 12 Mb/s row implies
    (against Ch. 4's key numbers), ns-2's timer at 28–29 Mb/s and B11's delayed-ACK split, each
    ending in its generated sentence."""
    ex, rt = t["exchange.csv"], t["table31_rto.csv"]
    out = ["", "## Settling experiments (issue 32, gap 4)", "",
           "**(a) The exchange time Table 3.1's 12 Mb/s row implies.** There the window exceeds W_bdp and the model's "
           "ACK spacing is one data and one TCP-ACK exchange, E[t^t] + E[t^r] (+ the timeouts' share). Inverting the "
           "Table 3.1 model at that row for each printed value gives the exchange at q = 0.3; three one-parameter "
           "mappings carry it to q = 0.1 (uniform: every interval shorter by one factor; per-attempt: a fixed time "
           "less per attempt; backoff: only t^bo shorter), where the Ch. 4 model gives the key P_ratios (450 kB/s, "
           "tunnel defaults). Nothing is fitted to the key numbers. Last row: one physical reading tested as such, "
           "basic access (no RTS/CTS for the data frames, which Eq. 3.3 includes).", "",
           *md.frame(ex, {
               "printed column": "source", "value (ms)": lambda r: f"{r.target_ms:.3f}", "mapping": "mapping",
               "parameter": lambda r: "—" if r.parameter != r.parameter else (f"{r.parameter * 1e6:.1f} µs" if r.unit == "s"
                                                                             else f"{r.parameter:.3f}×"),
               "E[t^t]+E[t^r] q = 0.3 (ms)": lambda r: f"{r.exchange_q03_ms:.3f}",
               "q = 0.1 (ms)": lambda r: f"{r.exchange_q01_ms:.3f}",
               "P_ratio m = 1 (thesis 0.27)": lambda r: f"{r.p_ratio_m1:.3f}",
               "m = 5 (thesis 0.69)": lambda r: f"{r.p_ratio_m5:.3f}",
               "gap explained m = 1 / 5": lambda r: f"{100 * r.explained_m1:.0f} % / {100 * r.explained_m5:.0f} %",
               "row's deviation explained": lambda r: f"{100 * r.row_explained:.0f} %"}),
           "", exchange.conclusion(ex), ""]
    out += ["**(b) ns-2's retransmission timer at 28–29 Mb/s.** The Table 3.1 runs again with ns-2's `Agent/TCP` "
            "timer (`tcp.timer_tick`, `tcp.min_rto`); the gap is the simulator's mean ACK inter-arrival against the "
            "thesis's ns-2 on a log scale.", ""]
    if rt.empty:
        return out + ["Not run (`rto_cross_mbps` empty).", *delack_split_section(t)]
    out += [*md.frame(rt, {
        "variant": "variant", "cross (Mb/s)": lambda r: int(r.cross_mbps),
        "baseline sim (ms)": lambda r: f"{r.baseline_sim_ms:.2f}", "variant sim (ms)": _ci("sim_ms", "{:.2f}"),
        "our model": lambda r: f"{r.model_ms:.2f}", "thesis ns-2 / analysis": lambda r: f"{r.paper_simulation_ms:g} / "
        f"{r.paper_analysis_ms:g}", "timeouts per run": lambda r: f"{r.baseline_timeouts:.0f} → {r.timeouts:.0f}",
        "gap explained": lambda r: f"{100 * r.gap_explained:+.0f} %"}), ""]
    return out + [*rto.conclusions(rt), "", *delack_split_section(t)]


class Hashimoto2013(Reproduction):
    """Paper 002 Ch. 2–3."""

    name = "hashimoto2013"
    title = "Paper 002 (Hashimoto 2013, Ch. 2–3)"
    config = Config
    files = FILES

    def tables(self, cfg: Config, ctx: Context) -> dict[str, pd.DataFrame]:
        fr = fairness.runs(fairness_jobs(cfg), ctx)
        fair = fairness_table(fr)
        rr = relocation.runs(relocation_jobs(cfg), ctx)
        tr = testbed.runs(cfg.testbed_mixes, range(cfg.base_seed, cfg.base_seed + cfg.testbed_seeds),
                          cfg.testbed_duration_s, cfg.testbed_warmup_s, cfg.swm_windows_s, ctx)
        t50 = testbed50.runs(cfg.testbed50_mixes, range(cfg.base_seed, cfg.base_seed + cfg.testbed_seeds),
                             cfg.testbed_duration_s, cfg.testbed_warmup_s, cfg.swm_windows_s, cfg.testbed50_delay_ms, ctx)
        split = delack_split.runs(cfg.delack_split_mixes, range(cfg.base_seed, cfg.base_seed + cfg.testbed_seeds),
                                  cfg.testbed_duration_s, cfg.testbed_warmup_s, cfg.swm_windows_s, cfg.testbed50_delay_ms, ctx)
        t50_table = testbed50.table(t50)
        t31_seeds = range(cfg.base_seed, cfg.base_seed + cfg.table31_seeds)
        t31 = validation.runs(list(paper.TABLE31), t31_seeds, cfg.table31_duration_s, ctx)
        t31_rto = rto.runs(cfg.rto_cross_mbps, t31_seeds, cfg.table31_duration_s, ctx) if cfg.rto_cross_mbps else pd.DataFrame()
        table31 = table31_table(closed_form.table31_analysis(), t31)
        points = [energy_sim.Point(p.p, p.rtt_s, p.m, cfg.energy_bytes) for p in energy_sim.GRID]
        er = energy_sim.runs(points, range(cfg.base_seed, cfg.base_seed + cfg.energy_seeds), ctx)
        return {"table21.csv": closed_form.table21(), "table23.csv": closed_form.table23(), "fairness_runs.csv": fr,
                "fairness.csv": fair, "relocation_runs.csv": rr, "relocation.csv": relocation.table(rr, fair),
                "testbed_runs.csv": tr, "testbed.csv": testbed.table(tr),
                "testbed50_runs.csv": t50, "testbed50.csv": t50_table, "delack_split_runs.csv": split,
                "delack_split.csv": delack_split.table(split, t50_table),
                "table31.csv": table31, "table31_runs.csv": t31, "table31_rto.csv": rto.table(table31, t31_rto),
                "table31_rto_runs.csv": t31_rto, "exchange.csv": exchange.table(),
                "r_energy_maps.csv": closed_form.r_energy_maps(), "r_energy_vs_p.csv": closed_form.p_curves(),
                "q_curves.csv": closed_form.q_curves(), "m_sweep.csv": closed_form.m_sweep(),
                "multipliers.csv": closed_form.multiplier_curves(),
                "model_vs_sim.csv": energy_sim.compare_runs(er, points), "model_vs_sim_runs.csv": er}

    def quick_changes(self, cfg: Config) -> dict[str, str]:
        return claims.quick_changes(cfg, Config.full())

    def claims(self, cfg: Config, tables: dict[str, pd.DataFrame]) -> list[claims.Claim]:
        return claims.evaluate(by_claims(tables))

    def figures(self, cfg: Config, t: dict[str, pd.DataFrame], out: Path) -> list[Path]:
        f = t["fairness.csv"]
        return [figures.throughput(f, out), figures.fairness(f, out), figures.swm(f, cfg.swm_windows_s, out),
                figures.table31(t["table31.csv"], out), figures.r_energy_maps(t["r_energy_maps.csv"], out),
                figures.m_sweep(t["r_energy_vs_p.csv"], t["m_sweep.csv"], out),
                figures.model_vs_sim(t["model_vs_sim.csv"], out, cfg.energy_seeds),
                figures.relocation(t["relocation.csv"], out), figures.q_multipliers(t["q_curves.csv"], t["multipliers.csv"], out),
                figures.testbed(t["testbed.csv"], out), figures.testbed50(t["testbed50.csv"], out)]

    def summary(self, cfg: Config, t: dict[str, pd.DataFrame], verdicts, info: Info) -> list[str]:
        f, t31, je = t["fairness.csv"], t["table31.csv"], closed_form.jain_example()
        swm_cols = [c for c in f.columns if c.startswith("swm_") and not c.endswith(("_ci", "_lo", "_hi"))]
        nan = lambda v: v is None or v != v  # noqa: E731
        sim = lambda r: not nan(r.get("sim_ms", float("nan")))  # noqa: E731
        p001 = t["m_sweep.csv"][t["m_sweep.csv"]["p"] == 0.001].sort_values("m")
        return [
            f"{run_heading(cfg, info)}. Fairness: {cfg.seeds} seed(s) from {cfg.base_seed}, {cfg.duration_s:g} s runs "
            f"averaged over {cfg.warmup_s:g}–{cfg.duration_s:g} s; model vs simulator: {cfg.energy_seeds} seed(s) per "
            f"point; Table 3.1: {cfg.table31_seeds} seed(s) × {cfg.table31_duration_s:g} s. ± is the 95 % t-interval of "
            "the mean over seeds.", "",
            "## Table 2.1 (C = 30 Mb/s, n = 10) and the Jain example", "",
            *md.frame(t["table21.csv"], {
                "case": "case", "throughputs (Mb/s)": "throughputs_mbps", "total": lambda r: f"{r.total_mbps:g}",
                "Jain": lambda r: f"{r.jain:.4f}", "thesis": lambda r: f"{r.paper_jain:.2f}", "F(X, C)": lambda r: f"{r.F:.4f}",
                "thesis ": lambda r: f"{r.paper_F:.2f}", "variance": lambda r: f"{r.variance:.4g}",
                "thesis  ": lambda r: "" if nan(r.paper_variance) else f"{r.paper_variance:g}"}),
            "", f"Jain {{10, 30, 40}} = {je['jain_small']:.4f}, {{100, 300, 400}} = {je['jain_large']:.4f} (thesis 0.82).", "",
            "## Table 2.3: B_est (Eq. 2.11, MSS 1500 B)", "",
            *md.frame(t["table23.csv"], {"AP": "ap", "minRTT (ms)": "min_rtt_ms", "T (Mb/s)": "throughput_mbps",
                                         "cwnd_overflow (B)": "cwnd_overflow_bytes",
                                         "B_est": lambda r: f"{r.b_est_packets:.2f}", "thesis": "paper_b_est_packets"}),
            "", "## Fairness (Ch. 2, Figs. 2.4, 2.5, 2.7, 2.10–2.12)", "",
            "802.11a 54 Mb/s, one flow per client, AP DropTail 100 packets, wired 100 Mb/s / 100 ms, starts U[0, 10] s. "
            "Schemes: " + "; ".join(f"`{k}` = {v}" for k, v in SCHEMES.items()) + ".", "",
            *md.frame(f, {
                "mix": "mix", "delayed ACK": lambda r: "on" if r.delayed_ack else "off", "scheme": "scheme",
                "total (Mb/s)": _ci("total_mbps", "{:.2f}"), "vs Reno": lambda r: f"{r.total_vs_reno_pct:+.1f} %",
                "downstream share": lambda r: "—" if nan(r.down_share) or r.mix == "10up" else _ci("down_share")(r),
                "Jain": _ci("jain"), "F": _ci("F"), "slowest flow (Mb/s)": lambda r: f"{r.min_flow_mbps:.2f}",
                "RTT up / down (ms)": lambda r: f"{r.up_rtt_ms:.0f} / " + ("—" if nan(r.down_rtt_ms) else f"{r.down_rtt_ms:.0f}"),
                "AP queue drops": lambda r: f"{r.ap_queue_drops:,.0f}", "collisions": lambda r: f"{r.collisions:,.0f}",
                "air busy": lambda r: f"{r.air_busy:.3f}"}),
            "", "Collision-free TCP capacity of one 802.11a 54 Mb/s hop (data + TCP-ACK exchanges, 1448-byte payloads, "
            "`wattlab.models.wlan.tcp_capacity`): " + ", ".join(
                f"delayed ACK {'on' if d else 'off'} {fairness.tcp_capacity_mbps(d):.2f} Mb/s" for d in sorted(set(f["delayed_ack"])))
            + ". Total against it, and the share of frames reaching the AP that its queue dropped:", "",
            *md.frame(f, {"mix": "mix", "delayed ACK": lambda r: "on" if r.delayed_ack else "off", "scheme": "scheme",
                          "total vs capacity": lambda r: f"{r.vs_capacity_pct:+.1f} %",
                          "AP drop fraction": lambda r: f"{r.ap_drop_fraction:.3f}"}),
            "", "SWM(w) (F(X, C) over windows of w, C = 29.6 Mb/s, mean over window positions):", "",
            *md.frame(f, {"mix": "mix", "delayed ACK": lambda r: "on" if r.delayed_ack else "off", "scheme": "scheme",
                          **{f"w = {c[4:]}": (lambda c: lambda r: f"{r[c]:.3f}")(c) for c in swm_cols}}),
            "", "## Relocation (Fig. 2.6): 5 clients at 1 m, 5 at 10 m", "",
            "Ten upstream flows as above (delayed ACK off) with `[wlan.propagation]`: log-distance path loss with ns-3's "
            "defaults (n = 3, 46.68 dB at 1 m, 16.02 dBm, noise figure 7 dB), so the near clients reach the AP 30 dB "
            "stronger (SNR 63 against 33 dB, where 54 Mb/s loses nothing); a frame survives a collision when its SINR "
            "is ≥ 10 dB (ns-2's CPThresh) and its PER at that SINR spares it. \"one distance\" is the 10up row above "
            "(with every client at the same distance no frame is captured and none is lost, so propagation changes "
            "nothing there). The thesis prints no numbers for Fig. 2.6, only that the prioritised AP's fairness "
            "depends on the placement and the proposed method's does not (claims F8, F9).", "",
            *md.frame(t["relocation.csv"], {
                "scheme": "scheme", "Jain, one distance": lambda r: f"{r.jain_4m:.3f}", "Jain, relocated": _ci("jain"),
                "near / far flow (Mb/s)": lambda r: f"{r.near_mbps:.2f} / {r.far_mbps:.2f}",
                "near ÷ far": lambda r: f"{r.near_far_ratio:.2f}", "total (Mb/s)": _ci("total_mbps", "{:.2f}"),
                "captures": lambda r: f"{r.captures:,.0f}", "collisions": lambda r: f"{r.collisions:,.0f}"}),
            *testbed_section(cfg, t["testbed.csv"]),
            *testbed50_section(cfg, t["testbed50.csv"]),
            "", "## Table 3.1: mean ACK inter-arrival (m = 1, q = 0.3, RTT 100 ms)", "",
            *md.frame(t31, {
                "cross (Mb/s)": lambda r: int(r.cross_mbps), "E[W]": lambda r: f"{r.e_w:.2f}", "p": lambda r: f"{r.p:.3e}",
                "thesis ns-2": "paper_simulation_ms", "thesis analysis": "paper_analysis_ms",
                "wattlab model": lambda r: f"{r.analysis_ms:.3f}", "vs thesis analysis": lambda r: f"{r.vs_paper_analysis_pct:+.1f} %",
                "wattlab simulator": lambda r: _ci("sim_ms")(r) if sim(r) else "—",
                "model vs simulator": lambda r: f"{r.model_vs_sim_pct:+.1f} %" if sim(r) else "—",
                "simulated TCP (Mb/s)": lambda r: f"{r.sim_tcp_mbps:.2f}" if sim(r) else "—"}),
            "", "## Energy model (Ch. 3; q = 0.3, 10 MiB, T_0 = 1 s, w_1 = 1)", "",
            "m-sweep at p = 0.001, RTT 100 ms (Fig. 3.10): R_energy " + ", ".join(f"{v:.3f}" for v in p001["r_energy"])
            + f" for m = {p001['m'].min()}…{p001['m'].max()}. Maps and the p = 0.01 sweep are in r_energy_maps.csv and "
            "m_sweep.csv.", "",
            "Model vs simulator (one upstream Reno flow, 802.11a, q = 0, p as wired loss; error = model/sim − 1):", "",
            *md.frame(t["model_vs_sim.csv"], {
                "p": lambda r: f"{r.p:g}", "RTT (ms)": lambda r: f"{r.rtt_ms:g}", "m": lambda r: int(r.m),
                "E[J_cam] model / sim (J)": lambda r: f"{r.model_cam_j:.2f} / {r.sim_always_on_j:.2f}",
                "error": lambda r: f"{r.cam_err_pct:+.0f} %",
                "E[J_sleep] model / sim (J)": lambda r: f"{r.model_sleep_j:.2f} / {r.sim_ideal_sleep_j:.2f}",
                "error ": lambda r: f"{r.sleep_err_pct:+.0f} %"}),
            *gap4_section(t),
        ]

    def closing(self, cfg: Config, tables: dict[str, pd.DataFrame]) -> list[str]:
        return ["## Not reproduced", "",
                "- The testbed itself (commercial APs, Buffalo cards, Linux 2.6.28): Figs. 2.9–2.11 are run in the simulator "
                "with each AP's estimated buffer, Figs. 2.12–2.13 with Buffalo's behind a wired link of "
                f"{cfg.testbed50_delay_ms:g} ms one-way delay (the netem router's), delayed ACK off and on (above); "
                "firmware, the cards' rate control and the real channel are not modelled."]


REPRODUCTION = Hashimoto2013()
"""``wattlab reproduce hashimoto2013``."""
