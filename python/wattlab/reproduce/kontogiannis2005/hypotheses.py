"""Issue 32 gap 2 (seed 003), settled by experiment. Each hypothesis is one of the
reproduction's real options, run beside the main tables with everything else unchanged (same
seeds, same error patterns, the main run's Thr_max where the channel is the same):

- ``senders`` (``--exp2-senders``): Experiment 2 with one sender station per flow (each its own
  interface queue and radio, contending by DCF) instead of all flows through node0's one queue,
  where both systems are fair (Jain ≥ 0.98) and the paper's fairness–energy thesis cannot be
  tested;
- ``timer`` (``--timer-tick`` and ``--min-rto``, the scenario's ``tcp.timer_tick`` and
  ``tcp.min_rto``): ns-2's retransmission timer (``tcpTick_`` 10 ms) with the ``minrto_`` of
  ns-2.27 (1 s, as every main run) and of ns-2.28 (200 ms), for Tahoe, SACK and Vegas in
  Experiment 1's low-error region, where Vegas ends most losses in a timeout;
- ``reading`` (``--per-reading``): Experiment 1's burst points under the other reading of PER,
  which flips R1.2 / R1.3;
- ``vegas`` (``--vegas-retransmit``, the scenario's ``tcp.vegas_retransmit``): Vegas with the
  other loss rules (ns-2.35's own fine-grained retransmission against wattlab's), in the same
  low-error region as ``timer``, alone and together with ns-2.28's timer.

Each alternative is the other value of the option from the main run's (so a main run with
``--exp2-senders separate`` is compared with the shared queue); a timer setting equal to the
main run's is skipped. Every conclusion is a sentence
generated from the tables here.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..framework import Context
from .. import verdict
from ..verdict import Claim
from . import claims, experiments
from .config import NS2_MIN_RTO_MS, NS2_TCP_TICK_MS, PER_READINGS, SENDERS, VEGAS_RETRANSMIT, Config

from ..verdict import EXPLAINS_MOST as MOST, EXPLAINS_PART as PART
TIMER_VARIANTS = ("tahoe", "sack", "vegas")
"""The variants R1.4 compares (Vegas against Tahoe and SACK)."""
PAPER_N = (3, 5, 8, 25)
"""The system sizes the paper discusses (Fig. 4)."""
FAIRNESS_CLAIMS = ("R2.1", "R2.2", "R2.4")
"""Experiment 2's claims that check 'F.I._V > F.I._T'."""
READING_CLAIMS = ("R1.2", "R1.3")
"""The claims the issue says flip with the PER reading."""
MIB10 = 10 * 1024 * 1024
"""Timeouts are counted per 10 MiB (the paper's flow size)."""


@dataclass(frozen=True)
class Timer:
    """One retransmission timer setting: a ns-2 release's defaults."""

    name: str
    tick_ms: float | None
    min_rto_ms: float

    @property
    def option(self) -> str:
        """The reproduction's options that select it."""
        return (f"--timer-tick {self.tick_ms:g} " if self.tick_ms else "") + f"--min-rto {self.min_rto_ms:g}"

    def of(self, cfg: Config) -> Config:
        """``cfg`` with this timer."""
        return dataclasses.replace(cfg, timer_tick_ms=self.tick_ms, min_rto_ms=self.min_rto_ms)


TIMERS = tuple(Timer(release, NS2_TCP_TICK_MS, rto) for release, rto in NS2_MIN_RTO_MS.items())
"""ns-2's timer defaults in the two releases the paper (2005) may have run."""


@dataclass(frozen=True)
class Alternatives:
    """The other value of each option the hypotheses vary."""

    senders: str
    timers: tuple[Timer, ...]
    per_reading: str
    vegas_retransmit: str = "ns2"

    @classmethod
    def of(cls, cfg: Config) -> "Alternatives":
        """The alternative to ``cfg``'s value of each option."""
        other = lambda keys, v: next(k for k in keys if k != v)  # noqa: E731
        timers = tuple(t for t in TIMERS if (t.tick_ms, t.min_rto_ms) != (cfg.timer_tick_ms, cfg.min_rto_ms))
        return cls(other(SENDERS, cfg.exp2_senders), timers, other(PER_READINGS, cfg.per_reading),
                   other(VEGAS_RETRANSMIT, cfg.vegas_retransmit))


@dataclass(frozen=True)
class VegasSetting:
    """One run of the ``vegas`` hypothesis: the other Vegas loss rules, with the main run's timer
    (``timer`` None) or with a ns-2 release's."""

    name: str
    retransmit: str
    timer: Timer | None

    @property
    def option(self) -> str:
        """The reproduction's options that select it."""
        return f"--vegas-retransmit {self.retransmit}" + (f" {self.timer.option}" if self.timer else "")

    def of(self, cfg: Config) -> Config:
        """``cfg`` with this setting."""
        c = dataclasses.replace(cfg, vegas_retransmit=self.retransmit)
        return self.timer.of(c) if self.timer else c


def vegas_settings(cfg: Config) -> tuple[VegasSetting, ...]:
    """The other Vegas loss rules alone, and with ns-2.28's timer unless that is the main run's."""
    other = Alternatives.of(cfg).vegas_retransmit
    ns228 = next(t for t in TIMERS if t.name == "ns-2.28")
    alone = VegasSetting(other, other, None)
    if (ns228.tick_ms, ns228.min_rto_ms) == (cfg.timer_tick_ms, cfg.min_rto_ms):
        return (alone,)
    return alone, VegasSetting(f"{other} + {ns228.name}", other, ns228)


def timer_name(tick_ms: float | None, min_rto_ms: float) -> str:
    """How TCP's retransmission timer runs, in words."""
    clock = "RFC 6298 with a 1 ms clock" if tick_ms is None else f"a {tick_ms:g} ms tick (tcp.timer_tick)"
    return f"{clock}, minimum RTO {min_rto_ms:g} ms"


def low_pers(cfg: Config) -> list[float]:
    """Experiment 1's error rates in the paper's low-error region, 0 < PER ≤ 7 %."""
    return [p for p in cfg.per_grid if 0 < p <= claims.LOW_PER_MAX + 1e-9]


def run(cfg: Config, ctx: Context, tables: dict[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """Run the three hypotheses; returns their tables by file name (hypotheses.csv last)."""
    alt = Alternatives.of(cfg)
    thr = tables["thr_max.csv"]
    thr1 = thr[thr.experiment == 1].drop(columns="experiment")
    thr2 = thr[thr.experiment == 2].drop(columns="experiment").assign(per=cfg.exp2_per)
    _, senders = experiments.experiment2(dataclasses.replace(cfg, exp2_senders=alt.senders), ctx, thr2,
                                         f"Gap 2 hypothesis: Experiment 2 with {alt.senders} senders")
    variants = [v for v in TIMER_VARIANTS if v in cfg.variants]
    pers = low_pers(cfg)
    timer = [experiments.experiment1(dataclasses.replace(t.of(cfg), variants=variants), ctx, pers=pers, thr=thr1,
                                     label=f"Gap 2 hypothesis: TCP as {t.name} ({timer_name(t.tick_ms, t.min_rto_ms)})")
             [1].assign(timer=t.name) for t in alt.timers] if pers and variants else []
    timer = pd.concat(timer, ignore_index=True) if timer else pd.DataFrame(columns=["timer"])
    vegas = vegas_points(cfg, ctx, tables, timer, thr1)
    reading_cfg = dataclasses.replace(cfg, per_reading=alt.per_reading)
    burst = experiments.experiment1(reading_cfg, ctx, models=("burst",),
                                    label=f"Gap 2 hypothesis: burst errors read as '{alt.per_reading}'")[1]
    points1 = tables["exp1_points.csv"]
    reading = pd.concat([points1[points1.model == "random"], burst], ignore_index=True)
    return {"hyp_senders_points.csv": senders, "hyp_timer_points.csv": timer, "hyp_reading_points.csv": reading,
            "hyp_vegas_points.csv": vegas, "hypotheses.csv": verdicts(cfg, tables, senders, timer, reading, vegas)}


def _reference(cfg: Config, s: VegasSetting, main: pd.DataFrame, timer: pd.DataFrame) -> pd.DataFrame:
    """The points ``s`` is compared with on the other variants (Tahoe, SACK): the main run's, or the
    ``timer`` hypothesis's under the same timer (the option leaves non-Vegas flows unchanged)."""
    if s.timer is None:
        return main
    d = timer[timer.timer == s.timer.name] if "timer" in timer else timer.iloc[0:0]
    return d.drop(columns="timer")


def vegas_points(cfg: Config, ctx: Context, tables: dict[str, pd.DataFrame], timer: pd.DataFrame,
                 thr1: pd.DataFrame) -> pd.DataFrame:
    """hyp_vegas_points.csv: per setting (:func:`vegas_settings`), Vegas rerun in 0 < PER ≤ 7 % and
    the Tahoe and SACK points it is compared with (column ``setting``)."""
    pers = low_pers(cfg)
    if not pers or not {"vegas", "tahoe"} <= set(cfg.variants):
        return pd.DataFrame(columns=["setting"])
    out = []
    for s in vegas_settings(cfg):
        ref = _reference(cfg, s, tables["exp1_points.csv"], timer)
        ref = ref[ref.variant.isin(("tahoe", "sack")) & ref.per.isin(pers)]
        if not len(ref):
            continue
        v = experiments.experiment1(dataclasses.replace(s.of(cfg), variants=["vegas"]), ctx, pers=pers, thr=thr1,
                                    label=f"Gap 2 hypothesis: Vegas with {s.option}")[1]
        out.append(pd.concat([ref, v], ignore_index=True).assign(setting=s.name))
    return pd.concat(out, ignore_index=True) if out else pd.DataFrame(columns=["setting"])


def verdicts(cfg: Config, tables: dict[str, pd.DataFrame], senders: pd.DataFrame, timer: pd.DataFrame,
             reading: pd.DataFrame, vegas: pd.DataFrame | None = None) -> pd.DataFrame:
    """hypotheses.csv: per hypothesis and claim it can move, the main run's verdict and the
    alternative's, with the alternative's evidence."""
    alt = Alternatives.of(cfg)
    rows = []
    quick = claims.quick_changes(cfg, Config.full())

    def add(name: str, option: str, base: list[Claim], other: list[Claim], ids) -> None:
        # the quick preset's 1 MiB flows make R2.5/R2.6 "quick: not comparable" here too
        b = {c.id: c for c in verdict.mark_quick(base, quick)}
        for c in verdict.mark_quick(other, quick):
            if c.id in ids:
                rows.append({"hypothesis": name, "option": option, "claim": c.id, "main": b[c.id].verdict,
                             "alternative": c.verdict, "evidence": c.evidence})

    exp2_ids = [f"R2.{i}" for i in range(1, 8)]
    add("senders", f"--exp2-senders {alt.senders}", claims.experiment2_claims(tables["exp2_points.csv"], cfg.alpha),
        claims.experiment2_claims(senders, cfg.alpha), exp2_ids)
    for t in alt.timers:
        d = timer[timer.timer == t.name]
        if d.empty:
            continue
        low = tables["exp1_points.csv"]
        low = low[low.variant.isin(TIMER_VARIANTS) & low.per.isin(set(d.per))]
        add(f"timer {t.name}", t.option, claims.experiment1_claims(low), claims.experiment1_claims(d), ("R1.4",))
    for s in vegas_settings(cfg):
        d = vegas[vegas.setting == s.name].drop(columns="setting") if vegas is not None and "setting" in vegas else None
        if d is None or d.empty:
            continue
        low = tables["exp1_points.csv"]
        low = low[low.variant.isin(TIMER_VARIANTS) & low.per.isin(set(d.per))]
        add(f"vegas {s.name}", s.option, claims.experiment1_claims(low), claims.experiment1_claims(d), ("R1.4",))
    exp1_ids = [f"R1.{i}" for i in range(1, 9)]
    add("reading", f"--per-reading {alt.per_reading}", claims.experiment1_claims(tables["exp1_points.csv"]),
        claims.experiment1_claims(reading), exp1_ids)
    return pd.DataFrame(rows, columns=["hypothesis", "option", "claim", "main", "alternative", "evidence"])


def explains(share: float) -> str:
    """The words for the share of a gap a hypothesis closes."""
    if not np.isfinite(share):
        return "cannot be judged on"
    return ("explains most of" if share >= MOST else "explains part of" if share >= PART
            else "widens" if share < 0 else "does not explain")


def _changes(h: pd.DataFrame, name: str) -> str:
    d = h[h.hypothesis == name]
    moved = [f"{r.claim} {r.main} → {r.alternative}" for r in d.itertuples() if r.main != r.alternative]
    return ", ".join(moved) if moved else f"every one of {', '.join(d.claim)} keeps its verdict"


def _fair_range(p: pd.DataFrame, variant: str) -> str:
    f = p[(p.variant == variant) & (p.flows >= 2)].fairness
    return f"{f.min():.3f}–{f.max():.3f}" if len(f) else "n/a"


def fairness_differs(p: pd.DataFrame) -> pd.DataFrame:
    """Per n ≥ 2: Vegas's Jain index minus Tahoe's, and whether the difference is beyond the two
    means' 95 % intervals together (``differs``); an interval that could not be computed (one
    seed) counts as no difference."""
    t = p[p.variant == "tahoe"].set_index("flows")
    v = p[p.variant == "vegas"].set_index("flows")
    ns = [n for n in t.index if n >= 2 and n in v.index]
    d = pd.DataFrame({"flows": ns})
    d["diff"] = [float(v.fairness[n] - t.fairness[n]) for n in ns]
    width = [float(v.fairness_ci[n] + t.fairness_ci[n]) for n in ns]
    d["differs"] = [bool(np.isfinite(w) and abs(x) > w) for x, w in zip(d["diff"], width)]
    return d


def _largest(d: pd.DataFrame) -> str:
    if d.empty:
        return "none"
    r = d.loc[d["diff"].abs().idxmax()]
    return f"{r['diff']:+.3f} at n={int(r.flows)}"


def senders_sentence(cfg: Config, main: pd.DataFrame, alt_points: pd.DataFrame, h: pd.DataFrame) -> str:
    """Whether the other sender topology gives the paper's fairness difference (Vegas fairer
    than Tahoe at n = 3, 5, 8, 25, beyond the 95 % intervals), and what it does to Experiment
    2's claims."""
    alt = Alternatives.of(cfg)
    d, d0 = fairness_differs(alt_points), fairness_differs(main)
    fairer = lambda x: x[x.flows.isin(PAPER_N) & x.differs & (x["diff"] > 0)]  # noqa: E731
    paper = d[d.flows.isin(PAPER_N)]
    got, got0 = len(fairer(d)), len(fairer(d0))
    words = ("reproduce" if paper.size and got == len(paper) else "reproduce part of" if got > got0
             else "do not reproduce")
    at = ", ".join(f"n={int(r.flows)} {r.diff:+.3f}{'' if r.differs else ' (within the intervals)'}"
                   for r in paper.itertuples()) or "none of them run"
    return (f"**{alt.senders} senders** (`--exp2-senders {alt.senders}`: {SENDERS[alt.senders]}): {words} the paper's "
            f"fairness difference: Vegas is fairer than Tahoe beyond the 95 % intervals at {got} of the paper's "
            f"{len(paper)} n ({cfg.exp2_senders}: {got0}; the paper: all); Vegas minus Tahoe there: {at}. Jain's index "
            f"over n ≥ 2 is Tahoe {_fair_range(alt_points, 'tahoe')}, Vegas {_fair_range(alt_points, 'vegas')} "
            f"({cfg.exp2_senders}: Tahoe {_fair_range(main, 'tahoe')}, Vegas {_fair_range(main, 'vegas')}); the systems "
            f"differ beyond the intervals at {int(d.differs.sum())} of {len(d)} n, Vegas the fairer at "
            f"{int((d.differs & (d['diff'] > 0)).sum())}, largest difference {_largest(d)} ({cfg.exp2_senders}: "
            f"{int(d0.differs.sum())} of {len(d0)}, largest {_largest(d0)}). Experiment 2's claims: {_changes(h, 'senders')} "
            f"(the fairness checks of {', '.join(FAIRNESS_CLAIMS)}: {_fair_checks(h[(h.hypothesis == 'senders') & h.claim.isin(FAIRNESS_CLAIMS)])}).")


def _fair_checks(d: pd.DataFrame) -> str:
    return "; ".join(f"{r.claim} {r.evidence.split(' (')[0]}" for r in d.itertuples()) or "not run"


def timeouts_per_10mib(points: pd.DataFrame, variant: str, pers: list[float], flow_bytes: int) -> float:
    """Mean timeouts of ``variant`` per 10 MiB over ``pers`` and both error models."""
    d = points[(points.variant == variant) & points.per.isin(pers)]
    return float(d.timeouts.mean() * MIB10 / flow_bytes) if len(d) else float("nan")


def goodput_gap(points: pd.DataFrame) -> tuple[float, float]:
    """Vegas's mean goodput over Tahoe's (the points given) and the gap to parity on a log
    scale, max(0, −ln ratio): R1.4 has Vegas ahead, so a ratio ≥ 1 leaves no gap."""
    ratio = float(points[points.variant == "vegas"].goodput_bps.mean() / points[points.variant == "tahoe"].goodput_bps.mean())
    return ratio, max(0.0, -float(np.log(ratio))) if ratio > 0 else float("inf")


@dataclass(frozen=True)
class DeficitChange:
    """Vegas's goodput deficit against Tahoe (0 < PER ≤ 7 %) and its timeouts, in the main run
    and under an alternative setting run at the same error rates."""

    ratio_before: float
    ratio_after: float
    gap_before: float
    share: float
    """The part of the deficit (log scale) the alternative closes; NaN without a deficit."""
    vegas_timeouts: tuple[float, float]
    tahoe_timeouts: tuple[float, float]
    size_note: str
    gap_words: str
    """"explains most of … Vegas's goodput deficit …", or that there is none to explain."""


def deficit_change(cfg: Config, main: pd.DataFrame, d: pd.DataFrame) -> DeficitChange:
    """Compare the alternative's points ``d`` with the main run's at the same error rates."""
    pers = sorted(set(d.per))
    lo = main[main.per.isin(pers) & main.variant.isin(TIMER_VARIANTS)]
    (rb, gb), (ra, ga) = goodput_gap(lo), goodput_gap(d)
    share = 1.0 - ga / gb if gb > 0 else float("nan")
    n = lambda p, v: timeouts_per_10mib(p, v, pers, cfg.exp1_bytes)  # noqa: E731
    size = "" if cfg.exp1_bytes == MIB10 else f" (counted on {cfg.exp1_bytes / 2**20:g} MiB flows, scaled)"
    gap = (f"{explains(share)} Vegas's goodput deficit against Tahoe ({share:+.0%} of it on a log scale)" if gb > 0
           else "has no deficit to explain (Vegas is not behind Tahoe in the main run)")
    return DeficitChange(rb, ra, gb, share, (n(lo, "vegas"), n(d, "vegas")), (n(lo, "tahoe"), n(d, "tahoe")), size, gap)


def timer_sentence(cfg: Config, t: Timer, main: pd.DataFrame, timer: pd.DataFrame, h: pd.DataFrame) -> str:
    """How much of Vegas's goodput deficit against Tahoe (0 < PER ≤ 7 %, R1.4) the timer ``t``
    closes, and what it does to the timeouts behind it."""
    head = f"**timer as {t.name}** (`{t.option}`: {timer_name(t.tick_ms, t.min_rto_ms)})"
    d = timer[timer.timer == t.name] if "timer" in timer else timer
    if d.empty:
        return f"{head}: not run (no error rate in 0 < PER ≤ 7 % or none of Tahoe, SACK, Vegas)."
    c = deficit_change(cfg, main, d)
    (rb, ra), gb, share, size, gap = (c.ratio_before, c.ratio_after), c.gap_before, c.share, c.size_note, c.gap_words
    (vb, va), (tb, ta) = c.vegas_timeouts, c.tahoe_timeouts
    same = bool(np.isclose(vb, va) and np.isclose(tb, ta))
    why = (": the same losses still end in a timeout, the timer only sets what each costs" if same else "")
    return (f"{head}: {gap}: Vegas's goodput over Tahoe's at 0 < PER ≤ 7 %, mean over random and burst errors, "
            f"{rb:.2f} → {ra:.2f} (main run: {timer_name(cfg.timer_tick_ms, cfg.min_rto_ms)}); timeouts per 10 MiB"
            f"{size} Vegas {vb:.1f} → {va:.1f}, Tahoe {tb:.1f} → {ta:.1f}{why}. R1.4: {_changes(h, f'timer {t.name}')}.")


def vegas_sentence(cfg: Config, s: VegasSetting, main: pd.DataFrame, vegas: pd.DataFrame, timer: pd.DataFrame,
                   h: pd.DataFrame) -> str:
    """How much of Vegas's goodput deficit against Tahoe (0 < PER ≤ 7 %, R1.4) the other Vegas loss
    rules close (alone, or with a ns-2 timer: then the timer's own share beside it), and what
    they do to Vegas's timeouts."""
    with_timer = f" with {s.timer.name}'s timer" if s.timer else ""
    head = f"**Vegas loss rules `{s.retransmit}`{with_timer}** (`{s.option}`)"
    d = vegas[vegas.setting == s.name] if "setting" in vegas else vegas.iloc[0:0]
    if d.empty:
        return f"{head}: not run (no error rate in 0 < PER ≤ 7 % or Tahoe or Vegas not among the variants)."
    c = deficit_change(cfg, main, d)
    (rb, ra), gb, share, size, gap = (c.ratio_before, c.ratio_after), c.gap_before, c.share, c.size_note, c.gap_words
    (vb, va), (tb, ta) = c.vegas_timeouts, c.tahoe_timeouts
    alone = ""
    if s.timer is not None and gb > 0 and "timer" in timer:
        t = timer[timer.timer == s.timer.name]
        if len(t):
            alone = f"; {s.timer.name}'s timer alone: {1.0 - goodput_gap(t)[1] / gb:+.0%}"
    return (f"{head}: {gap}{alone}: Vegas's goodput over Tahoe's at 0 < PER ≤ 7 %, mean over random and burst errors, "
            f"{rb:.2f} → {ra:.2f} (main run: `{cfg.vegas_retransmit}`, {timer_name(cfg.timer_tick_ms, cfg.min_rto_ms)}); "
            f"timeouts per 10 MiB{size} Vegas {vb:.1f} → {va:.1f}, Tahoe {tb:.1f} → {ta:.1f}. "
            f"R1.4: {_changes(h, f'vegas {s.name}')}.")


def reading_sentence(cfg: Config, h: pd.DataFrame) -> str:
    """Which of Experiment 1's claims hold under each reading of PER."""
    alt = Alternatives.of(cfg)
    d = h[h.hypothesis == "reading"]
    if d.empty:
        return "**reading**: not run."
    key = ", ".join(f"{r.claim} {r.main} / {r.alternative}" for r in d.itertuples() if r.claim in READING_CLAIMS)
    both = [r.claim for r in d.itertuples() if r.main == r.alternative == claims.AGREES]
    either = [r.claim for r in d.itertuples() if claims.AGREES in (r.main, r.alternative) and r.claim not in both]
    return (f"**reading** (burst errors read as `{alt.per_reading}` against the main run's `{cfg.per_reading}`; random "
            f"errors are the same runs): {key} under `{cfg.per_reading}` / `{alt.per_reading}`; agree under both: "
            f"{', '.join(both) or 'none'}; agree under one reading only: {', '.join(either) or 'none'}; "
            f"changes: {_changes(h, 'reading')}.")


def conclusions(cfg: Config, tables: dict[str, pd.DataFrame]) -> list[str]:
    """The generated sentences (senders, each timer, reading), from the tables ``run`` returned
    (and the main ones)."""
    h = tables["hypotheses.csv"]
    return [senders_sentence(cfg, tables["exp2_points.csv"], tables["hyp_senders_points.csv"], h),
            *(timer_sentence(cfg, t, tables["exp1_points.csv"], tables["hyp_timer_points.csv"], h)
              for t in Alternatives.of(cfg).timers),
            *(vegas_sentence(cfg, s, tables["exp1_points.csv"], tables.get("hyp_vegas_points.csv", pd.DataFrame()),
                             tables["hyp_timer_points.csv"], h) for s in vegas_settings(cfg)),
            reading_sentence(cfg, h)]
