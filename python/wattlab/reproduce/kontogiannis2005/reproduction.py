"""Paper 003's reproduction on the framework: Thr_max, Experiments 1 and 2, the claims, the
figures and the summary."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ... import markdown as md
from .. import stats
from ..framework import Context, Info, Reproduction, run_heading
from . import claims, experiments, figures, hypotheses, live_summary
from .config import ERROR_LAYERS, PER_READINGS, SENDERS, VARIANTS, Config

FILES = ("config.json", "thr_max.csv", "exp1_runs.csv", "exp1_points.csv", "exp2_runs.csv", "exp2_points.csv",
         "hyp_senders_points.csv", "hyp_timer_points.csv", "hyp_reading_points.csv", "hypotheses.csv", "claims.csv",
         "summary.md", "fig2_goodput.png", "fig3_eee.png", "fig4_systems.png")
"""Every file the simulated reproduction writes (``--live`` writes config.json, claims.csv,
summary.md and ``live_summary.FILES``)."""


def _exp2_thr(runs2: pd.DataFrame) -> pd.DataFrame:
    d = runs2[["seed", "thr_max_bps"]].drop_duplicates("seed")
    return d.assign(model="random", experiment=2)


def extremes(p1: pd.DataFrame) -> pd.DataFrame:
    """Experiment 1 at the sweep's first, middle and last error rate: per error model and rate,
    each variant's goodput and 3E."""
    pers = sorted(set(p1.per))
    picks = sorted({pers[0], pers[len(pers) // 2], pers[-1]})
    rows = []
    for model in dict.fromkeys(p1.model):
        for per in picks:
            row = {"errors": model, "PER": f"{100 * per:g} %"}
            for v in VARIANTS:
                d = p1[(p1.model == model) & (p1.variant == v) & (p1.per == per)]
                row[v] = "" if d.empty else f"{d.goodput_bps.iloc[0] / 1e3:.0f} kb/s, 3E {d.eee.iloc[0]:.3f}"
            rows.append(row)
    return pd.DataFrame(rows, columns=["errors", "PER", *VARIANTS])


def _gain(row) -> str:
    """Tahoe's energy gain with the interval the sample size allows (no ± from two seeds)."""
    iv = stats.Interval(row.energy_gain_pct, row.energy_gain_pct_lo, row.energy_gain_pct_hi,
                        stats.kind_for(stats.MEAN, int(row.runs)), int(row.runs))
    return stats.describe(iv, "{:+.2f}".format, " %")


def systems(p2: pd.DataFrame) -> pd.DataFrame:
    """Experiment 2 per n: Tahoe's and Vegas's rows side by side (``_t``, ``_v``)."""
    t = p2[p2.variant == "tahoe"].set_index("flows")
    v = p2[p2.variant == "vegas"].set_index("flows")
    return t.join(v, lsuffix="_t", rsuffix="_v").reset_index()


class Kontogiannis2005(Reproduction):
    """Paper 003 (Kontogiannis et al. 2005)."""

    name = "kontogiannis2005"
    title = "Paper 003 (Kontogiannis et al. 2005)"
    config = Config
    files = FILES + live_summary.FILES
    rule = claims.RULE
    claims_heading = "Verdicts"

    def configure(self, cfg: Config, options: dict) -> None:
        """``--live`` runs one seed per point unless ``--seeds`` says otherwise."""
        if cfg.live and options.get("seeds") is None:
            cfg.seeds = 1

    def render_summary(self, cfg: Config, tables, verdicts, info: Info) -> str:
        if not cfg.live:
            return super().render_summary(cfg, tables, verdicts, info)
        self.rule = live_summary.RULE  # the live verdicts' rule, for this summary only
        try:
            return super().render_summary(cfg, tables, verdicts, info)
        finally:
            del self.rule

    def heading(self, cfg: Config, tables: dict[str, pd.DataFrame]) -> str:
        return f"{self.title}: Experiment 1 live on Linux TCP" if cfg.live else super().heading(cfg, tables)

    def tables(self, cfg: Config, ctx: Context) -> dict[str, pd.DataFrame]:
        if cfg.live:
            return live_summary.tables(cfg, ctx)
        runs1, points1, thr1 = experiments.experiment1(cfg, ctx)
        runs2, points2 = experiments.experiment2(cfg, ctx)
        thr_all = pd.concat([thr1.assign(experiment=1), _exp2_thr(runs2)], ignore_index=True)
        main = {"thr_max.csv": thr_all, "exp1_runs.csv": runs1, "exp1_points.csv": points1, "exp2_runs.csv": runs2,
                "exp2_points.csv": points2}
        return {**main, **hypotheses.run(cfg, ctx, main)}

    def claims(self, cfg: Config, tables: dict[str, pd.DataFrame]) -> list[claims.Claim]:
        if cfg.live:
            return live_summary.claims(tables)
        return claims.experiment1_claims(tables["exp1_points.csv"]) + claims.experiment2_claims(tables["exp2_points.csv"],
                                                                                                 cfg.alpha)

    def quick_changes(self, cfg: Config) -> dict[str, str]:
        if cfg.live:
            return {}
        return claims.quick_changes(cfg, Config.full())

    def figures(self, cfg: Config, tables: dict[str, pd.DataFrame], out: Path) -> list[Path]:
        if cfg.live:
            return live_summary.figures(cfg, tables, out)
        p1, p2 = tables["exp1_points.csv"], tables["exp2_points.csv"]
        return [figures.figure2(p1, cfg, out), figures.figure3(p1, cfg, out), figures.figure4(p2, cfg, out)]

    def summary(self, cfg: Config, tables: dict[str, pd.DataFrame], verdicts, info: Info) -> list[str]:
        if cfg.live:
            return live_summary.summary(cfg, tables, info)
        f3 = lambda col: lambda r: f"{r[col]:.3f}"  # noqa: E731
        kbps = lambda col: lambda r: f"{r[col] / 1e3:.0f} kb/s"  # noqa: E731
        return [
            f"{run_heading(cfg, info)}; {cfg.seeds} seed(s) per point; error rates "
            f"{', '.join(f'{100 * p:g} %' for p in cfg.per_grid)}; n = {', '.join(map(str, cfg.exp2_flows))}.", "",
            "## Setup", "",
            "- Channel: two nodes 100 m apart on an 802.11 DSSS 2 Mb/s hop (wattlab's DCF model, long preamble, "
            "no RTS/CTS, interface queues of 50 packets); the sender's radio is the Lucent OriNOCO "
            "(1425 / 925 / 758.5 mW tx / rx / idle).",
            f"- TCP: {cfg.segment_bytes}-byte segments + 40 B headers, window {cfg.window_segments} segments, initial window 2, "
            "no delayed ACK, no timestamps (ns-2 agents of the time).",
            f"- Errors act per {cfg.error_layer}: {ERROR_LAYERS[cfg.error_layer]}.",
            f"- Random errors: Bernoulli(PER) in both directions. Burst errors: Gilbert chain [[0.95, 0.05], [0.10, 0.90]] "
            f"stepped per packet, reading `{cfg.per_reading}`: {PER_READINGS[cfg.per_reading]}.",
            f"- Thr_max: {cfg.cbr_flows} UDP CBR flows offering 4 Mb/s for {cfg.thr_max_seconds:g} s per error setting and "
            "seed; Thr_max = IP bytes the sender put on the air per second (delivered or not).",
            f"- Throughput = the TCP sender's IP bytes (headers and retransmissions) per second of connection; "
            f"3E weights α = {cfg.alpha:g}, b = {cfg.b:g}.",
            f"- Experiment 2's senders: {SENDERS[cfg.exp2_senders]}.",
            f"- TCP's retransmission timer: {hypotheses.timer_name(cfg.timer_tick_ms, cfg.min_rto_ms)}.",
            f"- Experiment 1: one flow of {cfg.exp1_bytes / 2**20:g} MiB per variant and point. Experiment 2: n flows of "
            f"{cfg.exp2_bytes / 2**20:g} MiB, random errors at {100 * cfg.exp2_per:g} %, starts spread over "
            f"{cfg.start_spread_s:g} s; energy = the transmitter's radio until the last flow ends; gain = (E_Vegas − E_Tahoe) "
            "/ E_Tahoe.", "",
            "## Experiment 1 at the extremes of the sweep", "",
            *md.frame(extremes(tables["exp1_points.csv"]), {c: c for c in ("errors", "PER", *VARIANTS)}), "",
            "## Experiment 2", "",
            *md.frame(systems(tables["exp2_points.csv"]), {
                "n": "flows", "F.I. Tahoe": f3("fairness_t"), "F.I. Vegas": f3("fairness_v"),
                "goodput Tahoe": kbps("goodput_bps_t"), "goodput Vegas": kbps("goodput_bps_v"),
                "3E_s Tahoe": f3("eee_system_t"), "3E_s Vegas": f3("eee_system_v"),
                "Tahoe's energy gain, (E_Vegas − E_Tahoe) / E_Tahoe, mean over seeds":
                    lambda r: _gain(pd.Series({k[:-2]: v for k, v in r.items() if k.endswith("_t")}))}), "",
            "## Issue 32 gap 2: what explains the disagreements", "",
            "Each hypothesis reruns part of the study with one option changed (same seeds and error patterns; "
            "hyp_*_points.csv, and hypotheses.csv for the verdicts under each; docs/reproductions/kontogiannis2005.md). "
            "Each sentence below is generated from those tables.", "",
            *(f"- {s}" for s in hypotheses.conclusions(cfg, tables)),
        ]


REPRODUCTION = Kontogiannis2005()
"""``wattlab reproduce kontogiannis2005``."""
