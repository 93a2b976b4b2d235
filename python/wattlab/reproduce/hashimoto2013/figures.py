"""The reproduction's figures: Ch. 2 fairness (per-flow throughput; Jain, F, RTT; SWM over w),
Table 3.1, the R_energy maps, the m-sweeps, R_energy against q and the WNI multipliers (Figs. 3.8,
3.13) and the model against the simulator."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from .. import stats
from ..plotting import empty, finish, plt
from .config import SCHEMES

COLORS = {"reno": "tab:red", "ackloss": "tab:blue", "prioritised-ap": "tab:green"}
NAMES = ("fig_throughput.png", "fig_fairness.png", "fig_swm.png", "fig_table31.png", "fig_r_energy_maps.png",
         "fig_m_sweep.png", "fig_model_vs_sim.png", "fig_relocation.png", "fig_q_multipliers.png", "fig_testbed.png",
         "fig_testbed50.png")
PARAM_LABELS = {"p_sleep": "P^s", "p_as": "P^as", "p_sa": "P^sa", "t_as": "T^as", "t_sa": "T^sa"}


def _cases(agg: pd.DataFrame) -> list[tuple[str, bool]]:
    return list(dict.fromkeys(zip(agg["mix"], agg["delayed_ack"])))


def _title(mix: str, delack: bool) -> str:
    return f"{'10 up' if mix == '10up' else '5 up + 5 down'}, delayed ACK {'on' if delack else 'off'}"


def throughput(agg: pd.DataFrame, out: Path) -> Path:
    """Per-flow throughput over [warmup, duration] per scheme, one panel per (mix, delayed ACK)
    (Figs. 2.4, 2.5, 2.12)."""
    cases = _cases(agg)
    fig, axes = plt.subplots(len(cases), 1, figsize=(10, 2.6 * len(cases)), squeeze=False)
    for ax, (mix, d) in zip(axes[:, 0], cases):
        g = agg[(agg["mix"] == mix) & (agg["delayed_ack"] == d)]
        flows = [c[2:] for c in g.columns if c.startswith("x_") and not c.endswith(("_ci", "_lo", "_hi"))
                 and g[c].notna().all()]
        w = 0.8 / len(g)
        for i, (_, r) in enumerate(g.iterrows()):
            ys = [r[f"x_{f}"] for f in flows]
            err = stats.yerr(ys, [r[f"x_{f}_lo"] for f in flows], [r[f"x_{f}_hi"] for f in flows])
            ax.bar(np.arange(len(flows)) + (i - (len(g) - 1) / 2) * w, ys, w, yerr=err, capsize=2,
                   color=COLORS[r["scheme"]], label=r["scheme"])
        ax.set_xticks(np.arange(len(flows)), flows, fontsize=8)
        ax.set_ylabel("Mb/s")
        ax.set_title(_title(mix, d), fontsize=10)
        ax.grid(alpha=0.3, axis="y")
    cap = ("Throughput of each flow over the averaging interval; " + stats.bars_text(stats.MEAN, agg["runs"])
           + ". Which of Reno's flows starves differs between seeds, so its per-flow means hide the starvation: "
           "the slowest flow per run is in fairness_runs.csv (min_flow_mbps).")
    return finish(fig, out / NAMES[0], "Paper 002 Figs. 2.4/2.5/2.12: per-flow throughput", cap, ncol=3)


def fairness(agg: pd.DataFrame, out: Path) -> Path:
    """Jain, F(X, C), total throughput and upstream/downstream RTT per scheme and case (Fig. 2.7)."""
    cases = _cases(agg)
    metrics = [("jain", "Jain's index"), ("F", "F(X, C), C = 29.6 Mb/s"), ("total_mbps", "total throughput (Mb/s)"),
               ("up_rtt_ms", "upstream flows' RTT (ms)"), ("down_rtt_ms", "downstream flows' RTT (ms)")]
    fig, axes = plt.subplots(1, len(metrics), figsize=(4 * len(metrics), 3.8))
    x = np.arange(len(cases))
    for ax, (col, label) in zip(axes, metrics):
        for i, s in enumerate(SCHEMES):
            g = agg[agg["scheme"] == s].set_index(["mix", "delayed_ack"]).reindex(cases)
            if g[col].isna().all():
                continue
            ax.bar(x + (i - 1) * 0.27, g[col], 0.27, yerr=stats.yerr(g[col], g[f"{col}_lo"], g[f"{col}_hi"]), capsize=2,
                   color=COLORS[s], label=s)
        ax.set_xticks(x, [f"{m}\n{'delack' if d else 'no delack'}" for m, d in cases], fontsize=8)
        ax.set_title(label, fontsize=9)
        if col.endswith("rtt_ms"):
            ax.set_yscale("log")
        ax.grid(alpha=0.3, axis="y")
    cap = stats.bars_text(stats.MEAN, agg["runs"]) + ". RTT: each flow's mean over the run, averaged over its flows."
    return finish(fig, out / NAMES[1], "Paper 002: fairness, utilisation and RTT per scheme", cap, ncol=3)


def swm(agg: pd.DataFrame, windows_s, out: Path) -> Path:
    """SWM(w) against the window size w per scheme, one panel per case (Figs. 2.10–2.11, 2.13)."""
    cases = _cases(agg)
    fig, axes = plt.subplots(1, len(cases), figsize=(3.6 * len(cases), 3.6), squeeze=False)
    for ax, (mix, d) in zip(axes[0], cases):
        for s in SCHEMES:
            g = agg[(agg["mix"] == mix) & (agg["delayed_ack"] == d) & (agg["scheme"] == s)]
            if g.empty:
                continue
            r = g.iloc[0]
            ys = [r[f"swm_{w:g}s"] for w in windows_s]
            ax.errorbar(windows_s, ys, yerr=stats.yerr(ys, [r[f"swm_{w:g}s_lo"] for w in windows_s],
                                                       [r[f"swm_{w:g}s_hi"] for w in windows_s]),
                        marker="o", capsize=2, color=COLORS[s], label=s)
        ax.set_xscale("log")
        ax.set_xlabel("window w (s)")
        ax.set_ylim(0, 1)
        ax.set_title(_title(mix, d), fontsize=9)
        ax.grid(alpha=0.3)
    axes[0, 0].set_ylabel("SWM(w)")
    cap = ("SWM(w): F(X, C) of the flows' throughputs over each window of length w inside the averaging interval, averaged "
           "over window positions (Koksal); C = 29.6 Mb/s. " + stats.bars_text(stats.MEAN, agg["runs"]) + ".")
    return finish(fig, out / NAMES[2], "Paper 002 Figs. 2.10/2.11: sliding-window fairness", cap, ncol=3)


def relocation(rel: pd.DataFrame, out: Path) -> Path:
    """Fig. 2.6: per-flow throughput with five clients at 1 m and five at 10 m per scheme (far
    clients' bars hatched), and each scheme's Jain index relocated against at one distance."""
    from .relocation import FAR_M, N_NEAR, NEAR_M

    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(12, 3.8), gridspec_kw={"width_ratios": [3, 1]})
    flows = [c[2:] for c in rel.columns if c.startswith("x_") and not c.endswith(("_ci", "_lo", "_hi"))]
    w = 0.8 / max(len(rel), 1)
    for i, (_, r) in enumerate(rel.iterrows()):
        ys = [r[f"x_{f}"] for f in flows]
        err = stats.yerr(ys, [r[f"x_{f}_lo"] for f in flows], [r[f"x_{f}_hi"] for f in flows])
        bars = ax.bar(np.arange(len(flows)) + (i - (len(rel) - 1) / 2) * w, ys, w, yerr=err, capsize=2,
                      color=COLORS[r["scheme"]], label=r["scheme"])
        for b in bars[N_NEAR:]:
            b.set_hatch("//")
    ax.set_xticks(np.arange(len(flows)), [f"{f}\n{NEAR_M:g} m" if k < N_NEAR else f"{f}\n{FAR_M:g} m"
                                          for k, f in enumerate(flows)], fontsize=7)
    ax.set_ylabel("throughput (Mb/s)")
    ax.set_title("10 upstream flows, clients relocated (hatched: far)", fontsize=10)
    ax.grid(alpha=0.3, axis="y")
    x = np.arange(len(rel))
    ax2.bar(x - 0.2, rel["jain_4m"], 0.4, color="lightgray", edgecolor="black", label="one distance (10up)")
    ax2.bar(x + 0.2, rel["jain"], 0.4, yerr=stats.yerr(rel["jain"], rel["jain_lo"], rel["jain_hi"]), capsize=2,
            color=[COLORS[s] for s in rel["scheme"]])
    ax2.set_title("grey: one distance; colour: relocated", fontsize=9)
    ax2.set_xticks(x, list(rel["scheme"]), fontsize=8)
    ax2.set_ylim(0, 1.05)
    ax2.set_ylabel("Jain's index")
    ax2.grid(alpha=0.3, axis="y")
    cap = (f"Log-distance path loss (ns-3 defaults, n = 3), capture at SINR ≥ 10 dB. "
           + stats.bars_text(stats.MEAN, rel["runs"]) + "; the one-distance Jain is fairness.csv's 10up mean.")
    return finish(fig, out / NAMES[7], "Paper 002 Fig. 2.6: clients at 1 m and 10 m", cap, ncol=3)


def table31(t: pd.DataFrame, out: Path) -> Path:
    """Mean ACK inter-arrival against cross traffic: the thesis's ns-2 and analysis, ours."""
    fig, ax = plt.subplots(figsize=(6.5, 4))
    ax.plot(t["cross_mbps"], t["paper_simulation_ms"], "s--", color="gray", label="thesis: ns-2 simulation")
    ax.plot(t["cross_mbps"], t["paper_analysis_ms"], "o--", color="black", label="thesis: analysis")
    ax.plot(t["cross_mbps"], t["analysis_ms"], "o-", color="tab:blue", label="wattlab: model")
    cap = "Table 3.1 (m = 1, q = 0.3, RTT 100 ms, 30 Mb/s / 50 ms bottleneck)."
    if "sim_ms" in t.columns and t["sim_ms"].notna().any():
        ax.errorbar(t["cross_mbps"], t["sim_ms"], yerr=stats.yerr(t["sim_ms"], t["sim_ms_lo"], t["sim_ms_hi"]), fmt="s-",
                    capsize=2, color="tab:orange", label="wattlab: simulator")
        cap += " Simulator: " + stats.bars_text(stats.MEAN, t["sim_runs"]) + "."
    ax.set_yscale("log")
    ax.set_xlabel("cross traffic (Mb/s)")
    ax.set_ylabel("mean ACK inter-arrival (ms)")
    ax.grid(alpha=0.3)
    return finish(fig, out / NAMES[3], "Paper 002 Table 3.1: ACK inter-arrival, analysis vs simulation", cap, ncol=2)


def r_energy_maps(maps: pd.DataFrame, out: Path) -> Path:
    """R_energy over (RTT, p) for each m (Fig. 3.9)."""
    ms = sorted(set(maps["m"]))
    fig, axes = plt.subplots(1, len(ms), figsize=(5.5 * len(ms), 4.2), squeeze=False)
    for ax, m in zip(axes[0], ms):
        g = maps[maps["m"] == m].pivot(index="rtt_ms", columns="p", values="r_energy")
        mesh = ax.pcolormesh(g.columns, g.index, g.values, vmin=0, vmax=1.1, cmap="viridis", shading="nearest")
        cs = ax.contour(g.columns, g.index, g.values, levels=[0.1, 0.3, 0.5, 0.7, 0.9], colors="white", linewidths=0.7)
        ax.clabel(cs, fontsize=7)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("p")
        ax.set_ylabel("RTT (ms)")
        ax.set_title(f"m = {m}")
        fig.colorbar(mesh, ax=ax, label="R_energy = E[J_sleep]/E[J_cam]")
    return finish(fig, out / NAMES[4], "Paper 002 Fig. 3.9: R_energy maps (model, q = 0.3, 10 MiB)",
                  "Closed-form model (wattlab.models.tcp_energy); no error bars (no randomness).")


def m_sweep(curves: pd.DataFrame, sweep: pd.DataFrame, out: Path) -> Path:
    """Fig. 3.10 (R_energy vs p per m) and Figs. 3.11–3.12 (R_energy and latency vs m)."""
    fig, axes = plt.subplots(1, 3, figsize=(15, 4))
    for m, g in curves.groupby("m"):
        axes[0].plot(g["p"], g["r_energy"], label=f"m = {m}")
    axes[0].set_xscale("log")
    axes[0].set_xlabel("p")
    axes[0].set_ylabel("R_energy")
    axes[0].set_title("R_energy vs p (RTT 100 ms)", fontsize=10)
    s = sweep[np.isclose(sweep["p"], 0.01)]
    for rtt, g in s.groupby("rtt_ms"):
        axes[1].plot(g["m"], g["r_energy"], "o-", ms=3, label=f"RTT {rtt:g} ms")
        axes[2].plot(g["m"], g["latency_s"], "o-", ms=3, label=f"RTT {rtt:g} ms")
    axes[1].set_title("R_energy vs m (p = 0.01)", fontsize=10)
    axes[2].set_title("latency E[T̂^all](m) vs m (p = 0.01)", fontsize=10)
    axes[2].set_yscale("log")
    for a in axes[1:]:
        a.set_xlabel("m (packets per ACK)")
    for a in axes:
        a.grid(alpha=0.3)
    return finish(fig, out / NAMES[5], "Paper 002 Figs. 3.10–3.12: burst transmission (model, q = 0.3, 10 MiB)",
                  "Closed-form model; no error bars (no randomness).", ncol=5)


def q_multipliers(qc: pd.DataFrame, mc: pd.DataFrame, out: Path) -> Path:
    """Fig. 3.8 (R_energy vs p per q) and Fig. 3.13 (per-RTT reduction vs each WNI parameter's multiplier)."""
    fig, axes = plt.subplots(1, 3, figsize=(15, 4))
    for q, g in qc.groupby("q"):
        axes[0].plot(g["p"], g["r_energy"], "o-", ms=2, label=f"q = {q:g}")
    axes[0].set_xscale("log")
    axes[0].set_xlabel("p (TCP loss-event probability)")
    axes[0].set_ylabel("R_energy = E[J_sleep]/E[J_cam]")
    axes[0].set_title("Fig. 3.8: R_energy vs p per q (RTT 100 ms, m = 1)", fontsize=10)
    m = mc[mc["multiplier"] > 0]
    for ax, params, title in ((axes[1], ("p_sleep", "p_as", "p_sa"), "Fig. 3.13(a): powers"),
                              (axes[2], ("t_as", "t_sa"), "Fig. 3.13(b): transition times")):
        for par in params:
            g = m[m["param"] == par].sort_values("multiplier")
            ax.plot(g["multiplier"], g["reduction_j"], label=PARAM_LABELS[par])
        ax.set_xscale("log")
        ax.set_xlabel("multiplier of Table 3.3's value")
        ax.set_ylabel("energy reduction per RTT (J)")
        ax.set_ylim(0, 1.7)
        ax.axvline(0.05, color="grey", lw=0.8, ls=":")
        ax.set_title(title + " (E[t^s] = 100 ms, N^st = 20)", fontsize=10)
    for a in axes:
        a.grid(alpha=0.3)
    return finish(fig, out / NAMES[8], "Paper 002 Figs. 3.8 and 3.13 (model, AR5004)",
                  "Closed-form model; no error bars (no randomness). Dotted: multiplier 0.05.", ncol=5)


def _mix_panel(ax, g: pd.DataFrame, title: str) -> None:
    """One panel of Figs. 2.9 and 2.12 over ``g``'s mixes: per scheme (Reno, the ACK-loss-aware
    Reno) the mean upstream and downstream flow's throughput (bars) and the total (line, with
    its 95 % t-interval over seeds)."""
    mixes = list(dict.fromkeys(g["mix"]))
    x = np.arange(len(mixes))
    for i, scheme in enumerate(("reno", "ackloss")):
        r = g[g["scheme"] == scheme].set_index("mix").reindex(mixes)
        if r.empty:
            continue
        off = (i - 0.5) * 0.4
        ax.bar(x + off - 0.1, r["up_per_flow_mbps"].fillna(0), 0.2, color=COLORS[scheme], alpha=0.9,
               label=f"{scheme}: per upstream flow")
        ax.bar(x + off + 0.1, r["down_per_flow_mbps"].fillna(0), 0.2, color=COLORS[scheme], alpha=0.4, hatch="//",
               label=f"{scheme}: per downstream flow")
        ax.errorbar(x, r["total_mbps"], yerr=stats.yerr(r["total_mbps"], r["total_mbps_lo"], r["total_mbps_hi"]),
                    color=COLORS[scheme], marker="o", ms=3, capsize=2, label=f"{scheme}: total")
    ax.set_xticks(x, mixes, rotation=45, fontsize=8)
    ax.set_xlabel("flows (u = upstream, d = downstream)")
    ax.set_ylabel("throughput (Mb/s)")
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3, axis="y")


def testbed(tb: pd.DataFrame, out: Path) -> Path:
    """Fig. 2.9 in the simulator: per AP, the mean upstream and downstream flow's throughput (bars)
    and the total (lines) over the mixes, Reno and the ACK-loss-aware Reno."""
    aps = list(dict.fromkeys(tb["ap"])) if not tb.empty else []
    fig, axes = plt.subplots(1, max(len(aps), 1), figsize=(5 * max(len(aps), 1), 4), squeeze=False)
    for ax, ap in zip(axes[0], aps):
        g = tb[tb["ap"] == ap]
        _mix_panel(ax, g, f"{ap}-AP ({int(g['ap_buffer'].iloc[0])}-packet buffer)")
    return finish(fig, out / NAMES[9], "Paper 002 Fig. 2.9 in the simulator (10 clients, delayed ACK off)",
                  "Bars: mean per-flow throughput; lines: total with the 95 % t-interval of the mean over seeds.", ncol=3)


def testbed50(t: pd.DataFrame, out: Path) -> Path:
    """Figs. 2.12–2.13 in the simulator (Buffalo-AP, 50 ms one-way): per delayed-ACK setting the
    mean upstream and downstream flow's throughput (bars) and the total (lines) over the mixes;
    then SWM(w) per scheme and delayed-ACK setting in each of claims B12–B13's mixes."""
    from .claims import SWM_MIXES_50

    if t.empty:
        return empty(out / NAMES[10], "Paper 002 Figs. 2.12–2.13 in the simulator")
    swm_mixes = [m for m in SWM_MIXES_50 if m in set(t["mix"])]
    fig, axes = plt.subplots(1, 2 + len(swm_mixes), figsize=(5 * (2 + len(swm_mixes)), 4), squeeze=False)
    delay = f"{t['delay_ms'].iloc[0]:g} ms"
    for ax, d in zip(axes[0], (False, True)):
        _mix_panel(ax, t[t["delayed_ack"] == d], f"Fig. 2.12: {'delack' if d else 'nodelack'}")
    for ax, mix in zip(axes[0][2:], swm_mixes):
        cols = [c for c in t.columns if c.startswith("swm_") and not c.endswith(("_ci", "_lo", "_hi"))]
        w = [float(c[4:-1]) for c in cols]
        for scheme in ("reno", "ackloss"):
            for d in (False, True):
                r = t[(t["mix"] == mix) & (t["scheme"] == scheme) & (t["delayed_ack"] == d)]
                if r.empty:
                    continue
                r = r.iloc[0]
                y = np.array([r[c] for c in cols])
                err = stats.yerr(pd.Series(y), pd.Series([r[f"{c}_lo"] for c in cols]), pd.Series([r[f"{c}_hi"] for c in cols]))
                ax.errorbar(w, y, yerr=err, color=COLORS[scheme], ls="-" if d else "--", marker="o" if d else "s", ms=3,
                            capsize=2, label=f"{scheme}, {'delack (solid)' if d else 'nodelack (dashed)'}")
        ax.set_xscale("log")
        ax.set_ylim(0, 1.02)
        ax.set_xlabel("window size w (s)")
        ax.set_ylabel("SWM(w), F(X, C), C = 29.6 Mb/s")
        ax.set_title(f"Fig. 2.13: {mix}", fontsize=10)
        ax.grid(alpha=0.3)
    return finish(fig, out / NAMES[10], f"Paper 002 Figs. 2.12–2.13 in the simulator (Buffalo-AP, {delay} one-way delay)",
                  "Bars: mean per-flow throughput; lines: total, and SWM(w), each with the 95 % t-interval of the mean "
                  "over seeds.", ncol=4)


def model_vs_sim(c: pd.DataFrame, out: Path, seeds: int) -> Path:
    """The model's E[J_cam] and E[J_sleep] against the simulator's, with the ±15 % band."""
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5))
    for ax, (mod, sim, title) in zip(axes, (("model_cam_j", "sim_always_on_j", "E[J_cam] (always on)"),
                                            ("model_sleep_j", "sim_ideal_sleep_j", "E[J_sleep] (ideal sleep)"))):
        for m, mk in zip((1, 2, 5), ("o", "s", "^")):
            g = c[c["m"] == m]
            for rtt, col in zip((20.0, 100.0, 200.0), ("tab:blue", "tab:orange", "tab:green")):
                h = g[g["rtt_ms"] == rtt]
                ax.scatter(h[sim], h[mod], marker=mk, color=col, label=f"m = {m}, RTT {rtt:g} ms", s=25)
        lo, hi = min(c[sim].min(), c[mod].min()) * 0.8, max(c[sim].max(), c[mod].max()) * 1.2
        xs = np.array([lo, hi])
        ax.plot(xs, xs, "k-", lw=0.8)
        ax.fill_between(xs, xs * 0.85, xs * 1.15, color="gray", alpha=0.2, label="±15 %")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("simulator (J)")
        ax.set_ylabel("model (J)")
        ax.set_title(title, fontsize=10)
        ax.grid(alpha=0.3)
    cap = (f"One upstream Reno transfer per point, p ∈ {{0.001, 0.01, 0.05}} (wired loss), 802.11a, q = 0; simulator: mean "
           f"over {seeds} seed(s) (no bars: the spread is in model_vs_sim_runs.csv).")
    return finish(fig, out / NAMES[6], "Paper 002 Ch. 3: model vs simulator", cap, ncol=5)
