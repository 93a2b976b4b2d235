"""Paper 000's reproduction on the framework: the large downloads, the web session and the
fairness mixes, the claims, the figures and the summary."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..framework import Context, Info, Reproduction
from . import claims, downloads, fairness, figures, hypotheses, summary, web
from .config import SITES, Config

FIGURES = (
    "fig13_sites.png",
    "fig14_emulated.png",
    "fig15_policies.png",
    "fig16_variation.png",
    "fig17_competing.png",
    "fig18_bandwidth.png",
    "crossover.png",
    "fig09_web.png",
    "fig10_rtt_cache.png",
    "fig06_fairness.png",
    "fig07_friendliness.png",
    "fig08_queues.png",
)

WEB_FILES = ("web_runs.csv", "web_points.csv", "web_concurrency.csv")
FAIRNESS_FILES = ("fairness_runs.csv", "fairness_flows.csv")
GAP_FILES = ("window_gap.csv", "fig17_weight_gap.csv", "web_sites.csv", "web_multiserver_runs.csv",
             "web_multiserver_gap.csv")
"""Issue 32 gap 3's settling experiments, derived from the points (``hypotheses``)."""

FILES = (
    "config.json",
    "runs.csv",
    *(f"{name}_points.csv" for name in downloads.EXPERIMENTS),
    *WEB_FILES,
    *FAIRNESS_FILES,
    *GAP_FILES,
    "claims.csv",
    "summary.md",
    *FIGURES,
)
"""Every file ``run`` writes (it refuses to replace any of them unless told to)."""

TABLES = tuple(n for n in FILES if n.endswith(".csv") and n != "claims.csv")
"""The CSV tables, in the order they are written."""


def _web(cfg: Config, ctx: Context) -> dict[str, pd.DataFrame]:
    """The browsing session under every web policy, on the reproduction's seeds: with the
    configured think times, then with each sensitivity scale (column ``think_scale_s``)."""
    if not cfg.web_policies:
        return {"web_runs": pd.DataFrame(), "web_points": pd.DataFrame(),
                "web_concurrency": web.web_concurrency(pd.DataFrame({"policy": []})),
                "web_sites": web.web_sites(pd.DataFrame()), "web_multiserver_runs": pd.DataFrame(),
                "web_multiserver_gap": pd.DataFrame(columns=list(hypotheses.MULTISERVER_COLUMNS))}
    runs, points, conc = [], [], []
    for scale in dict.fromkeys([cfg.web_think_scale_s, *cfg.web_think_sensitivity_scales_s]):
        label = "web browsing" if scale == cfg.web_think_scale_s else f"web browsing, think scale {scale:g} s"
        df = web.run_web(web.setup_from(cfg, scale), cfg.seed_list(), list(cfg.web_policies), ctx, label)
        runs.append(df.assign(think_scale_s=scale))
        points.append(web.web_points(df).assign(think_scale_s=scale))
        conc.append(web.web_concurrency(df).assign(think_scale_s=scale))
    out = {"web_runs": pd.concat(runs, ignore_index=True), "web_points": pd.concat(points, ignore_index=True),
           "web_concurrency": pd.concat(conc, ignore_index=True)}
    out.update(_web_multiserver(cfg, ctx, runs[0], points[0]))
    return out


def _web_multiserver(cfg: Config, ctx: Context, single_runs: pd.DataFrame, single_points: pd.DataFrame
                     ) -> dict[str, pd.DataFrame]:
    """Issue 32 gap 3: Fig. 11 per site on the single-server session, and the same session on the
    multi-server page model (one variant per ``web_multiserver_losses``), with the share of the
    web gap each variant explains."""
    sites = [web.web_sites(single_runs).assign(model="single-server")]
    runs, variants = [], {}
    if cfg.web_third_party_delays_ms:
        for loss in cfg.web_multiserver_losses:
            name = web.multiserver_name(loss)
            df = web.run_web(web.multiserver_setup(cfg, loss), cfg.seed_list(), list(cfg.web_multiserver_policies), ctx,
                             f"web browsing, {name} pages")
            pts = web.web_points(df)
            conc = web.web_concurrency(df)
            dl = conc[conc.scope == "downloads"]
            s = web.web_sites(df).assign(model=name)
            runs.append(df.assign(variant=name, path_loss=loss,
                                  cache_saving_downloads=float(dl.cache_saving.iloc[0]) if len(dl) else float("nan")))
            sites.append(s)
            variants[name] = (s, pts, conc)
    gap = hypotheses.multiserver_table(sites[0], single_points, variants, web.web_concurrency(single_runs))
    return {"web_sites": pd.concat(sites, ignore_index=True), "web_multiserver_gap": gap,
            "web_multiserver_runs": pd.concat(runs, ignore_index=True) if runs else pd.DataFrame()}


def _fairness(cfg: Config, ctx: Context) -> dict[str, pd.DataFrame]:
    """Figs. 6–8: every mix on the reproduction's seeds."""
    mixes = fairness.mixes_from(cfg)
    if not mixes:
        return {"fairness_runs": pd.DataFrame(columns=["mix", "figure", "pair", "of_each", "flows", "seed"]),
                "fairness_flows": pd.DataFrame(columns=["mix", "figure", "pair", "of_each", "flows", "seed", "flow",
                                                        "group", "goodput_bps", "normalized", "completion_time_s"])}
    runs, flows = fairness.run_fairness(fairness.setup_from(cfg), mixes, cfg.seed_list(), ctx)
    runs, flows = fairness.label_runs(runs, flows)
    return {"fairness_runs": runs, "fairness_flows": flows}


def _figures(cfg: Config, pts: dict[str, pd.DataFrame], out: Path) -> list[Path]:
    return [
        figures.fig13(pts["sites"], cfg, [s.name for s in SITES], out),
        figures.fig14(pts["fig14"], cfg, out),
        figures.fig15(pts["fig14"], cfg, out),
        figures.fig16(pts["fig16"], cfg, out),
        figures.fig17(pts["fig17"], cfg, out),
        figures.fig18(pts["fig18"], cfg, out),
        figures.crossover(pts["crossover"], cfg, out),
        figures.fig09(pts["web_points"], cfg, out),
        figures.fig10(web.main_think(pts["web_concurrency"], cfg), cfg, out),
        figures.fig06(pts["fairness_flows"], cfg, out),
        figures.fig07(pts["fairness_flows"], cfg, out),
        figures.fig08(pts["fairness_runs"], cfg, out),
    ]


def points(tables: dict[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """The tables under the names the claims and figures read: each experiment's points by its
    name, the web and fairness tables by their file's stem."""
    pts = {name: tables[f"{name}_points.csv"] for name in downloads.EXPERIMENTS}
    pts.update({n.removesuffix(".csv"): tables[n] for n in WEB_FILES + FAIRNESS_FILES + GAP_FILES})
    return pts


class YanCc(Reproduction):
    """Paper 000 (Yan et al.): client-centered energy saving."""

    name = "yan-cc"
    title = "Paper 000 (Yan et al.): client-centered energy saving,"
    config = Config
    files = FILES
    claim_columns = claims.COLUMNS
    rule = claims.RULE
    claims_heading = "Verdicts"

    def tables(self, cfg: Config, ctx: Context) -> dict[str, pd.DataFrame]:
        sims = downloads.Sims(cfg, ctx)
        runs_by, pts = {}, {}
        for name, experiment in downloads.EXPERIMENTS.items():
            runs_by[name], pts[name] = experiment(cfg, sims)
        pts.update(_web(cfg, ctx))
        pts.update(_fairness(cfg, ctx))
        runs = pd.concat([r for r in runs_by.values() if not r.empty], ignore_index=True)
        pts["window_gap"] = hypotheses.window_table(pts["fig14"], pts["window"], cfg.recv_buffer)
        pts["fig17_weight_gap"] = hypotheses.weights_table(pts["fig17"], pts["fig17_weights"])
        return {"runs.csv": runs, **{f"{n}_points.csv": pts[n] for n in downloads.EXPERIMENTS},
                **{n: pts[n.removesuffix(".csv")] for n in WEB_FILES + FAIRNESS_FILES + GAP_FILES}}

    def quick_changes(self, cfg: Config) -> dict[str, str]:
        return claims.quick_changes(cfg, Config.full())

    def claims(self, cfg: Config, tables: dict[str, pd.DataFrame]) -> list[claims.Claim]:
        return claims.all_claims(points(tables), cfg)

    def figures(self, cfg: Config, tables: dict[str, pd.DataFrame], out: Path) -> list[Path]:
        return _figures(cfg, points(tables), out)

    def summary(self, cfg: Config, tables: dict[str, pd.DataFrame], verdicts, info: Info) -> list[str]:
        return summary.setup(cfg, info) + summary.sections(cfg, points(tables), tables["runs.csv"])

    def closing(self, cfg: Config, tables: dict[str, pd.DataFrame]) -> list[str]:
        return summary.limits()


REPRODUCTION = YanCc()
"""``wattlab reproduce yan-cc``."""
