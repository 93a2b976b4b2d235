"""Issue 30's modern-phone study on the reproduction framework: the runs, the comparisons at
equal work, the summary table, the findings, the figures and summary.md."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ... import markdown as md
from .. import stats
from ..framework import Context, Info, Reproduction, run_heading
from . import experiments, figures, findings, workloads
from .config import SCHEME_FAMILIES, WORKLOADS, Config, available_schemes
from .schemes import schemes

FILES = ("config.json", "runs.csv", "points.csv", "summary.csv", "applicability.csv", "claims.csv", "summary.md",
         "fig_pareto.png", "fig_savings.png")
"""Every file the study writes."""


def _ms(v: float) -> str:
    return "—" if pd.isna(v) else f"{v:,.0f}"


def _pct(v: float) -> str:
    return "—" if pd.isna(v) else f"{v:+.0f} %"


class ModernPhone(Reproduction):
    """Issue 30, item 5: every scheme × workload × PHY on a phone."""

    name = "modern-phone"
    title = "The modern-phone study (issue 30)"
    config = Config
    files = FILES
    rule = findings.RULE
    claims_heading = "Findings"
    paper_heading = "expected from"
    claim_columns = findings.COLUMNS

    def heading(self, cfg: Config, tables: dict[str, pd.DataFrame]) -> str:
        return f"{self.title}: the seeds' schemes against adaptive PSM and TWT on a phone"

    def tables(self, cfg: Config, ctx: Context) -> dict[str, pd.DataFrame]:
        runs, applicable = experiments.run_all(cfg, ctx)
        points = experiments.points(runs)
        table = experiments.summary_table(points)
        front = pd.Series(False, index=table.index)
        for _, g in table[table.equal_work].groupby(["workload", "phy"], sort=False):
            front[g.index] = experiments.pareto(g, "delay_p99_ms", "energy")
        table["on_front"] = front
        return {"runs.csv": runs, "points.csv": points, "summary.csv": table, "applicability.csv": applicable}

    def claims(self, cfg: Config, tables: dict[str, pd.DataFrame]) -> list[findings.Claim]:
        return findings.evaluate(tables["summary.csv"], experiments.default_key(cfg))

    def figures(self, cfg: Config, tables: dict[str, pd.DataFrame], out: Path) -> list[Path]:
        per_point = stats.count([int(n) for n in tables["points.csv"].runs], "runs")
        t = tables["summary.csv"]
        return [figures.pareto(t, out, per_point), figures.savings(t, out, per_point)]

    def summary(self, cfg: Config, tables: dict[str, pd.DataFrame], verdicts, info: Info) -> list[str]:
        t = tables["summary.csv"]
        na = tables["applicability.csv"]
        na = (na[~na.runs.astype(bool)].groupby(["scheme", "workload", "why_not"], sort=False).phy
              .agg(", ".join).reset_index())
        absent = [f for f in SCHEME_FAMILIES if f not in available_schemes()]
        lines = [
            f"{run_heading(cfg, info)}; {cfg.seeds} seed(s) per point.", "",
            "## Setup", "",
            f"- One phone, the only station of an 802.11 BSS, radio profile `{cfg.profile}`; a server behind a 100 Mb/s, "
            f"{cfg.wired_delay_ms:g} ms link. PHYs: 802.11a at 54 Mb/s; 802.11ax HE-MCS {cfg.ax_mcs}, 1 stream, 20 MHz, "
            "0.8 µs GI (5 GHz). Beacons every 102.4 ms, listen interval 1.",
            f"- Workloads: bulk download of {cfg.bulk_bytes / 1e6:g} MB; web browsing, {cfg.web_pages} pages (paper 000's "
            f"generator, 3 s mean think time); video-like CBR, {cfg.video_rate_kbps / 1e3:g} Mb/s of "
            f"{cfg.video_packet_bytes}-byte datagrams for {cfg.stream_s:g} s; VoIP-like, {cfg.voip_packet_bytes}-byte "
            f"datagrams every {cfg.voip_interval_ms:g} ms both ways for {cfg.stream_s:g} s; background sync, "
            f"{cfg.sync_transfers} downloads of {cfg.sync_bytes / 1e3:g} kB every {cfg.sync_period_s:g} s.",
            "- Schemes: " + "; ".join(f"`{s.key}` ({s.note})" for s in schemes(cfg)) + ".",
            "- Energy: the phone's radio, its power mode's meter (always-on for CAM and WWP), over the run, which ends "
            "when the workload's last flow completes. Per delivered MB (application bytes with an end at the phone) "
            "and per hour (the run's energy over its length). Savings: against CAM's run and against the phone's "
            f"default (`{experiments.default_key(cfg)}`) of the same workload, PHY and seed, only where the run did "
            "the reference's work (the core's rules, python/wattlab/work.py); otherwise none, and the loss is said.",
            "", "## Summary per workload", "",
            "Energy: J per delivered MB for the bulk download, kJ per hour for the others. Delay: "
            + "; ".join(f"{w}: {d}" for w, d in workloads.DELAY_METRIC.items() if w in cfg.workloads)
            + ". Added: the scheme's minus CAM's. ★: on its PHY's Pareto front (energy vs p99 delay).", "",
        ]
        for w in [w for w in WORKLOADS if w in cfg.workloads]:
            d = t[t.workload == w]
            per_mb = workloads.ENERGY_METRIC[w] == "j_per_mb"
            lines += [f"### {w}: {WORKLOADS[w]}", "", *md.frame(d, {
                "PHY": "phy", "scheme": lambda r: f"{r.scheme}{' ★' if r.on_front else ''}",
                f"energy ({'J/MB' if per_mb else 'kJ/h'})":
                    lambda r: "—" if pd.isna(r.energy) else f"{r.energy / (1 if per_mb else 1e3):.3g}",
                "sleep": lambda r: "—" if pd.isna(r.sleep_fraction) else f"{100 * r.sleep_fraction:.0f} %",
                "p50 / p99 (ms)": lambda r: f"{_ms(r.delay_p50_ms)} / {_ms(r.delay_p99_ms)}",
                "added p50 / p99": lambda r: f"{_ms(r.added_p50_ms)} / {_ms(r.added_p99_ms)}",
                "vs CAM": lambda r: _pct(r.saving_vs_cam_pct) if r.equal_work else f"none: {r.lost_vs_cam}",
                "vs default": lambda r: _pct(r.saving_vs_default_pct)}), ""]
        lines += ["## Where a scheme does not apply", "",
                  *md.frame(na, {"scheme": "scheme", "workload": "workload", "PHY": "phy", "why": "why_not"})]
        if absent:
            lines += ["", f"Not in this build of wattlab (no such power mode in the core's registry): {', '.join(absent)}."]
        return lines


REPRODUCTION = ModernPhone()
"""``wattlab reproduce modern-phone``."""
