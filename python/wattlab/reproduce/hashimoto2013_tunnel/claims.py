"""The thesis's Ch. 4 claims (Sect. 4.4.2; notes/002.md §3.5), each a test over the model's
tables that can agree, partly agree or disagree, and "not tested" when its rows are missing;
S1 is issue 21's model-vs-simulator check, "not tested" until simulator results are passed in.
tests/python/test_hashimoto2013_tunnel.py drives every claim to each verdict with synthetic tables.

Rules: a number agrees within ``KEY_AGREE`` of the thesis's and is partly right within
``KEY_PARTLY`` (Fig. 4.8's gains, read off a figure as "roughly", within ``GAIN_AGREE`` /
``GAIN_PARTLY``); a claim checked at several points agrees when every check holds and is
partly right when at least half hold.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from . import paper
from .experiments import gain_key

from .. import verdict
from ..verdict import AGREES, CHECK, CHECK_FAILED, DISAGREES, PARTLY, UNTESTED, Claim  # noqa: F401  (the vocabulary, for tests)

KEY_AGREE, KEY_PARTLY = 0.05, 0.10
"""P_ratio within 5 / 10 points of the thesis's 27 % and 69 %: the conventions the thesis leaves
open move our values by up to 6 (m = 1) and 10 (m = 5) points (sensitivity.csv)."""
GAIN_AGREE, GAIN_PARTLY = 0.10, 0.20
"""Fig. 4.8's gains are quoted to one digit ("roughly 0.3"): ±0.1 agrees, ±0.2 partly."""
CONSIDERABLE = 0.30
""""Considerably reduced": P_ratio ≥ 30 % at the lightest load of Fig. 4.5."""
LITTLE = 0.05
""""Little effect" of q on CAM: the spread of P_cam over q within 5 % of its smallest value."""
CONVERGED = 0.10
""""Converges": the last step of m adds at most 10 % of what its largest step added."""
SIMILAR = 0.10
""""Similar trend" with downstream flows: P_cam and P_sleep within 10 % of the upstream-only values."""
LINEAR_R2 = 0.99
""""Decreases linearly": a straight line explains ≥ 99 % of the positive part's variance."""
ALL_HOLD, HALF_HOLD = 1.0, 0.5
"""A claim over several points agrees when every check holds, is partly right from half."""
RULE = (f"a number agrees within {KEY_AGREE:g} (Fig. 4.8 gains {GAIN_AGREE:g}) of the thesis's and is partly right "
        f"within {KEY_PARTLY:g} ({GAIN_PARTLY:g}); a claim over several points "
        + verdict.share_rule(ALL_HOLD, HALF_HOLD, "checks")
        + "; T9 is a check of the thesis's model at its own inputs (\"check\", not agreement)")
"""The verdict rule in one sentence, for summary.md, from the thresholds the code uses."""
ROUNDING = 1e-12
"""Slack on a difference's band, so that a value on the band's edge is inside it."""
COLUMNS = (("id", "id"), ("thesis", "paper"), ("test", "test"), ("verdict", "verdict"), ("evidence", "evidence"))
"""claims.csv's columns: the thesis's words in ``thesis``."""


def _share(checks: list[bool]) -> str:
    return verdict.checks(checks, agrees=ALL_HOLD, partly=HALF_HOLD)


def _close(diffs: list[float], agree: float, partly: float) -> str:
    if not diffs or any(not np.isfinite(d) for d in diffs):
        return UNTESTED
    return verdict.within(diffs, agree, partly, slack=ROUNDING)


def _key(key: pd.DataFrame, name: str):
    r = key[key["key"] == name]
    return None if r.empty else r.iloc[0]


def _key_ratio(key: pd.DataFrame, m: int, cid: str, text: str) -> Claim:
    r = _key(key, f"p_ratio_m{m}")
    diffs = [] if r is None else [float(r.ours) - float(r.thesis)]
    ev = "no row" if r is None else f"ours {100 * r.ours:.1f} % vs thesis {100 * r.thesis:.0f} % ({100 * diffs[0]:+.1f} points)"
    return Claim(cid, text, f"|ours − thesis| ≤ {KEY_AGREE:g} (partly ≤ {KEY_PARTLY:g})",
                 _close(diffs, KEY_AGREE, KEY_PARTLY), ev)


def key_m1(key: pd.DataFrame) -> Claim:
    """T1: 450 kB/s, q = 0.1: sleep without bursting cuts power by 27 %."""
    return _key_ratio(key, 1, "T1", "At 450 kB/s, q = 0.1, sleeping without burst transmission (m = 1) reduces power by 27 % vs CAM.")


def key_m5(key: pd.DataFrame) -> Claim:
    """T2: 450 kB/s, q = 0.1: m = 5 cuts it by about 69 % (the abstract's "up to 69 %")."""
    return _key_ratio(key, 5, "T2", "With m = 5 the reduction is around 69 % (the abstract's \"up to 69 %\").")


def cam_rises(lines: pd.DataFrame) -> Claim:
    """T3: P_cam rises with the aggregate throughput (every q panel)."""
    checks, ev = [], []
    for q, g in lines[lines.m == lines.m.min()].groupby("q"):
        g = g.sort_values("aggregate_kBps")
        if len(g) >= 2:
            checks.append(bool((np.diff(g.p_cam_w.to_numpy()) > 0).all()))
            ev.append(f"q = {q:g}: {g.p_cam_w.iloc[0]:.3f} → {g.p_cam_w.iloc[-1]:.3f} W")
    return Claim("T3", "CAM power rises with aggregate throughput (transmission replaces idle time).",
                 "per q: P_cam strictly increasing along the model's line up to R_max", _share(checks), "; ".join(ev))


def sleep_cuts(fig45: pd.DataFrame) -> Claim:
    """T4: at light load sleeping cuts power considerably for every m."""
    checks, ev = [], []
    for (q, m), g in fig45.groupby(["q", "m"]):
        r = g.sort_values("aggregate_kBps").iloc[0]
        checks.append(bool(r.p_ratio >= CONSIDERABLE))
        ev.append(f"q {q:g} m {m}: {100 * r.p_ratio:.0f} %")
    return Claim("T4", "Sleeping reduces power considerably regardless of m.",
                 f"per (q, m): P_ratio ≥ {100 * CONSIDERABLE:g} % at Fig. 4.5's lightest load", _share(checks),
                 f"at {fig45.aggregate_kBps.min():g} kB/s: " + ", ".join(ev) if ev else "no rows")


def slower_rise(fig45: pd.DataFrame) -> Claim:
    """T5: sleep power rises with throughput, more slowly for larger m."""
    checks, ev = [], []
    for q, g in fig45.groupby("q"):
        aggs = sorted(g.aggregate_kBps.unique())
        if len(aggs) < 2 or g.m.nunique() < 2:
            continue
        a0, a1 = aggs[0], aggs[1]
        rise = {int(m): float(h[h.aggregate_kBps == a1].p_sleep_w.iloc[0] - h[h.aggregate_kBps == a0].p_sleep_w.iloc[0])
                for m, h in g.groupby("m") if {a0, a1} <= set(h.aggregate_kBps)}
        vals = [rise[m] for m in sorted(rise)]
        checks.append(all(v > 0 for v in vals) and all(x > y for x, y in zip(vals, vals[1:])))
        ev.append(f"q {q:g}, {a0:g}→{a1:g} kB/s: " + ", ".join(f"m {m} +{1e3 * rise[m]:.0f} mW" for m in sorted(rise)))
    return Claim("T5", "Sleep power also rises with throughput, but more slowly for larger m.",
                 "per q: P_sleep rises between the first two flow counts, by less for each larger m", _share(checks),
                 "; ".join(ev) or "no rows")


def exceeds_then_equals(lines: pd.DataFrame) -> Claim:
    """T6: at higher throughput sleep exceeds CAM; at still higher it equals CAM (no idle left)."""
    checks, ev = [], []
    for q, g in lines[lines.m == lines.m.min()].groupby("q"):
        g = g.sort_values("aggregate_kBps")
        above = g[g.p_sleep_w > g.p_cam_w * (1 + 1e-9)]
        checks.append(not above.empty)
        if above.empty:
            ev.append(f"q {q:g}: sleep never above CAM")
            continue
        later = g[(g.aggregate_kBps > above.aggregate_kBps.max()) & (np.abs(g.p_sleep_w - g.p_cam_w) <= 1e-9 * g.p_cam_w)]
        checks.append(not later.empty)
        ev.append(f"q {q:g}: above CAM {above.aggregate_kBps.min():g}–{above.aggregate_kBps.max():g} kB/s (by up to "
                  f"{100 * (above.p_sleep_w / above.p_cam_w - 1).max():.0f} %), equal from "
                  + (f"{later.aggregate_kBps.min():g} kB/s" if not later.empty else "nowhere"))
    return Claim("T6", "At higher throughput sleep power exceeds CAM (transitions outweigh short sleeps); at still higher "
                 "throughput it equals CAM (no idle time left).",
                 "per q, smallest m: some P_sleep > P_cam, and P_sleep = P_cam at a higher throughput", _share(checks),
                 "; ".join(ev) or "no rows")


def _common(fig45: pd.DataFrame, m: int) -> pd.DataFrame:
    g = fig45[fig45.m == m]
    nq = g.q.nunique()
    counts = g.groupby("aggregate_kBps").q.nunique()
    return g[g.aggregate_kBps.isin(counts[counts == nq].index)] if nq >= 2 else g.iloc[:0]


def q_little_cam(fig45: pd.DataFrame) -> Claim:
    """T7: q has little effect on CAM power."""
    checks, spreads = [], []
    for a, g in _common(fig45, int(fig45.m.min()) if len(fig45) else 1).groupby("aggregate_kBps"):
        s = float(g.p_cam_w.max() / g.p_cam_w.min() - 1)
        checks.append(s <= LITTLE)
        spreads.append((a, s))
    ev = ", ".join(f"{a:g} kB/s {100 * s:.1f} %" for a, s in spreads)
    return Claim("T7", "Changes in q have little effect on CAM power.",
                 f"per aggregate reached at every q: max/min of P_cam over q − 1 ≤ {100 * LITTLE:g} %", _share(checks),
                 ev or "no aggregate common to two q")


def q_matters_large_m(fig45: pd.DataFrame) -> Claim:
    """T8: under sleep, q matters more at large m (larger q lowers the gain of large m)."""
    checks, ev = [], []
    if len(fig45) and fig45.m.nunique() >= 2:
        lo, hi = int(fig45.m.min()), int(fig45.m.max())
        small, large = _common(fig45, lo), _common(fig45, hi)
        for a in sorted(set(small.aggregate_kBps) & set(large.aggregate_kBps)):
            s_lo = small[small.aggregate_kBps == a].p_sleep_w
            g_hi = large[large.aggregate_kBps == a].sort_values("q")
            s_hi = g_hi.p_sleep_w
            # Relative spreads: the extra MAC time of a larger q costs about the same joules at every m,
            # so its impact is judged against the power it adds to (half as much at m = 5 as at m = 1).
            spread_lo, spread_hi = float(s_lo.max() / s_lo.min() - 1), float(s_hi.max() / s_hi.min() - 1)
            falling = bool((np.diff(g_hi.p_ratio.to_numpy()) < 0).all())
            checks.append(spread_hi > spread_lo and falling)
            ev.append(f"{a:g} kB/s: P_sleep over q +{100 * spread_hi:.0f} % at m {hi} vs +{100 * spread_lo:.0f} % at m {lo}, "
                      f"P_ratio(m {hi}) over q {', '.join(f'{v:.2f}' for v in g_hi.p_ratio)}")
    return Claim("T8", "Under sleep, q has a greater impact at large m: larger q leaves less idle time and lowers the "
                 "reduction of large m.",
                 "per aggregate reached at every q: P_sleep's relative spread over q (max/min − 1) larger at the largest "
                 "m than at the smallest, and P_ratio at the largest m falling with q", _share(checks), "; ".join(ev) or "no rows")


def converges(fig46: pd.DataFrame) -> Claim:
    """T9: as m grows P_ratio converges while D grows linearly (Figs. 4.6–4.7)."""
    checks, ev = [], []
    for a, g in fig46.groupby("aggregate_kBps"):
        g = g.sort_values("m")
        if len(g) < 3:
            continue
        r, d, m = g.p_ratio.to_numpy(), g.delay_ms.to_numpy(), g.m.to_numpy(dtype=float)
        steps = np.diff(r)
        conv = steps.max() > 0 and abs(steps[-1]) <= CONVERGED * steps.max()
        slope = np.diff(d) / np.diff(m)
        linear = bool(np.allclose(slope, slope[0], rtol=1e-6)) and slope[0] > 0
        checks += [bool(conv), linear]
        ev.append(f"{a:g} kB/s: largest step +{steps.max():.3f}, m {int(m[-2])}→{int(m[-1])} {steps[-1]:+.4f}; "
                  f"D +{slope[0]:.2f} ms per m")
    return Claim("T9", "As m increases, the energy reduction ratio converges while the buffering delay grows linearly.",
                 f"a check of the thesis's model at its own inputs (Fig. 4.6 is the closed form, no simulation): per "
                 f"aggregate, the last step of m adds ≤ {100 * CONVERGED:g} % of the largest step; D's slope in m "
                 "constant and positive",
                 verdict.arithmetic(_share(checks)), "; ".join(ev) or "no rows")


def gain_grows(fig46: pd.DataFrame) -> Claim:
    """T10: the higher the throughput, the more bursting improves P_ratio and the slower D grows."""
    rows = []
    for a, g in fig46.groupby("aggregate_kBps"):
        g = g.sort_values("m")
        if len(g) >= 2:
            rows.append((a, float(g.p_ratio.iloc[-1] - g.p_ratio.iloc[0]), float(g.delay_ms.iloc[-1]), int(g.m.iloc[-1])))
    rows.sort()
    checks = [y[1] > x[1] and y[2] < x[2] for x, y in zip(rows, rows[1:])]
    ev = ", ".join(f"{a:g} kB/s +{gain:.2f} (D {d:.1f} ms at m {m})" for a, gain, d, m in rows)
    return Claim("T10", "As the aggregate throughput increases, burst transmission improves the ratio more while the "
                 "delay grows more slowly.", "between consecutive aggregates: P_ratio(largest m) − P_ratio(1) grows and "
                 "D(largest m) falls", _share(checks), ev or "no rows")


def d0_linear(fig48: pd.DataFrame) -> Claim:
    """T11: Fig. 4.8's D_th = 0 curve falls linearly with throughput until it reaches zero."""
    g = fig48[fig48.d_th_ms == 0].sort_values("aggregate_kBps")
    pos = g[g.p_ratio > 0]
    checks, ev = [], []
    if len(pos) >= 3:
        x, y = pos.aggregate_kBps.to_numpy(), pos.p_ratio.to_numpy()
        fit = np.polyfit(x, y, 1)
        r2 = 1 - np.sum((y - np.polyval(fit, x)) ** 2) / np.sum((y - y.mean()) ** 2)
        checks.append(bool(r2 >= LINEAR_R2 and fit[0] < 0))
        ev.append(f"positive part {x[0]:g}–{x[-1]:g} kB/s: slope {1e3 * fit[0]:.2f} per MB/s, R² {r2:.4f}")
    if len(g):
        zero = g[np.abs(g.p_ratio) <= 1e-12]
        reaches = not zero.empty and (pos.empty or zero.aggregate_kBps.min() > pos.aggregate_kBps.max())
        checks.append(bool(reaches))
        ev.append(f"zero from {zero.aggregate_kBps.min():g} kB/s" if not zero.empty else "never zero")
    return Claim("T11", "With D_th = 0 (m = 1) the ratio decreases linearly with aggregate throughput and finally "
                 "reaches zero.", f"straight-line fit of the positive part R² ≥ {LINEAR_R2:g} with a negative slope; "
                 "zero beyond it", _share(checks) if len(checks) == 2 else UNTESTED, "; ".join(ev) or "no rows")


T12_TEXT = ("Fig. 4.8: 3 ms of acceptable delay adds roughly 0.3 and 0.4 to the ratio at 500 and 800 kB/s; "
            "10 ms adds roughly 0.5 and 0.6.")
T12_TEST = f"each gain over D_th = 0 within ±{GAIN_AGREE:g} (partly ±{GAIN_PARTLY:g})"


def fig48_gains(key: pd.DataFrame) -> Claim:
    """T12: D_th = 3 ms adds ~0.3 / 0.4 and 10 ms ~0.5 / 0.6 at 500 / 800 kB/s."""
    diffs, ev = [], []
    for (d_th, a), thesis in sorted(paper.FIG48_GAINS.items()):
        r = _key(key, gain_key(d_th, a))
        if r is None:
            return Claim("T12", T12_TEXT, T12_TEST, UNTESTED, f"no row for {d_th:g} ms, {a:g} kB/s")
        diffs.append(float(r.ours) - thesis)
        ev.append(f"{d_th:g} ms @ {a:g} kB/s: +{r.ours:.2f} (thesis +{thesis:g})")
    return Claim("T12", T12_TEXT, T12_TEST, _close(diffs, GAIN_AGREE, GAIN_PARTLY), "; ".join(ev))


def mixed_similar(mixed: pd.DataFrame) -> Claim:
    """T13: with downstream flows too the results look like the upstream-only ones."""
    base = mixed[mixed.down_share == 0].set_index(["m", "aggregate_kBps"])
    checks, worst = [], {}
    for share, g in mixed[mixed.down_share > 0].groupby("down_share"):
        g = g.set_index(["m", "aggregate_kBps"])
        common = g.index.intersection(base.index)
        dev = np.maximum(np.abs(g.loc[common].p_cam_w / base.loc[common].p_cam_w - 1),
                         np.abs(g.loc[common].p_sleep_w / base.loc[common].p_sleep_w - 1))
        checks += [bool(d <= SIMILAR) for d in dev]
        if len(dev):
            worst[share] = (float(dev.max()), dev.idxmax())
    ev = f"{sum(checks)} of {len(checks)} within; " + "; ".join(
        f"downstream share {s:g}: worst {100 * d:.1f} % (m {k[0]}, {k[1]:g} kB/s)" for s, (d, k) in worst.items())
    return Claim("T13", "When upstream and downstream flows coexist the results show a similar trend: packet sizes "
                 "influence power little next to MAC overheads.",
                 f"q = 0.1, each m and aggregate: P_cam and P_sleep with ½ or all of the aggregate downstream within "
                 f"±{100 * SIMILAR:g} % of the upstream-only values", _share(checks), ev if checks else "no rows")


def model_vs_sim(beside: pd.DataFrame) -> Claim:
    """S1 (issue 21): model and simulator within 15 % on P_sleep and P_ratio at Fig. 4.5's points."""
    ran = beside[beside.sim_runs.notna()] if "sim_runs" in beside else beside.iloc[:0]
    text = "Model vs simulator (issue 21): P_sleep and P_ratio within 15 % over Fig. 4.5's grid points below R_max."
    test = "per simulated point: |model − sim| ≤ 15 % of sim (P_ratio: of max(|sim|, 0.05))"
    if ran.empty:
        return Claim("S1", text, test, UNTESTED, "simulator side not run yet: no simulator results were given")
    checks = [bool(v) for v in ran.within_15]
    worst = ran.assign(e=np.abs(ran.err_p_sleep)).sort_values("e").iloc[-1]
    ev = (f"{sum(checks)} of {len(checks)} points within 15 % (of {len(beside)} grid points); worst P_sleep "
          f"{100 * worst.err_p_sleep:+.0f} % at q {worst.q:g}, m {int(worst.m)}, {worst.aggregate_kBps:g} kB/s")
    per_m = ran.assign(ok=ran.within_15.astype(bool)).groupby("m").ok.agg(["sum", "size"])
    ev += "; within by m: " + ", ".join(f"m {int(m)} {int(r['sum'])}/{int(r['size'])}" for m, r in per_m.iterrows())
    return Claim("S1", text, test, _share(checks), ev)


def evaluate(fig45, lines, fig46, fig48, key, mixed, beside) -> list[Claim]:
    """Every claim's verdict over the reproduction's tables."""
    return [key_m1(key), key_m5(key), cam_rises(lines), sleep_cuts(fig45), slower_rise(fig45), exceeds_then_equals(lines),
            q_little_cam(fig45), q_matters_large_m(fig45), converges(fig46), gain_grows(fig46), d0_linear(fig48),
            fig48_gains(key), mixed_similar(mixed), model_vs_sim(beside)]


def quick_changes(cfg, full) -> dict[str, str]:
    """The claims whose quantity a reduced preset changes: T9 and T10 read Fig. 4.6 at its
    largest m (convergence, the gain at the end), T11 fits a line through Fig. 4.8's points."""
    out = {}
    if max(cfg.m_fig46) < max(full.m_fig46):
        why = f"m up to {max(cfg.m_fig46)}, the thesis's Fig. 4.6 up to {max(full.m_fig46)}"
        out.update({"T9": why, "T10": why})
    if cfg.line_step_kBps > full.line_step_kBps:
        out["T11"] = f"Fig. 4.8 every {cfg.line_step_kBps:g} kB/s, not {full.line_step_kBps:g}"
    return out
