"""Issue 32 gap 3, settled by experiment: what explains the distance between wattlab's emulated
averages (Fig. 14) and the paper's, and why PSM beats CC in Fig. 17 with competitors?

- **Windows below 64 KB** (the averages): the paper's "average over all RTTs and loss rates"
  (51 % / +12 % peak, 47 % / +6 % off-peak) sits above what 64 KB windows give, and CC's
  closed-ACK stream delay shrinks with the window. The RTT × loss grid is rerun with every
  receive buffer of ``window_sensitivity_kb`` (``tcp.recv_buffer``, CC and TCP only).
- **The AP's fair-queueing weights** (Fig. 17 on the ``wlan`` medium): the paper's AP shared
  its bandwidth between power-saving and regular clients with weighted fair queueing and gives
  no weights; the PSM client's runs are repeated for every ``fig17_power_save_weights``
  (``ap_power_save_weight`` of ``[[wlan]]``). CC's station is regular and the competitors are
  plain TCP, so a weight changes only runs with a power-saving station.

- **Single-server pages on fixed-RTT, loss-free paths** (the web claims, Figs. 9–11): the
  browsing session is rerun on the multi-server page model (the web flow's ``third_party``: each
  page also fetches embedded objects from a pool of third-party servers, each on its own path
  with its own RTT, ``web_third_party_delays_ms``), loss-free and with
  ``web_multiserver_losses`` on every server's path; the same pages and sizes, only the
  servers change. Fig. 11 is compared per site (``web.web_sites``).

A component's gap is |wattlab − paper| on a linear scale (percentage points; to a range, the
distance outside it); a variant explains 1 − gap(variant) / gap(baseline) of it (negative: it
widens the gap).
"""

from __future__ import annotations

import math

import pandas as pd

from . import seed
from .config import PEAK

from ..verdict import EXPLAINS_MOST as MOST, EXPLAINS_PART as PART

WINDOW_COLUMNS = ("variation", "recv_buffer", "points", "saving", "slowdown", "paper_saving", "paper_slowdown",
                  "base_saving", "base_slowdown", "saving_explained", "slowdown_explained")
"""window_gap.csv's columns: per period and receive buffer, CC's averages beside the paper's and
the 64 KB baseline's, and the share of each component's gap the window explains."""


def gap_explained(paper: float, base: float, variant: float) -> float:
    """Share of the linear gap between the baseline and the paper that the variant closes
    (1: closed, 0: unchanged, < 0: wider); NaN when a value is missing or there is no gap."""
    if not all(math.isfinite(x) for x in (paper, base, variant)) or base == paper:
        return math.nan
    return 1.0 - abs(variant - paper) / abs(base - paper)


def word(shares: list[float]) -> str:
    """How much of a gap of several components a variant explains: the least it explains of
    any component decides, and a variant that closes one component while widening another
    explains none of it."""
    shares = [s for s in shares if math.isfinite(s)]
    if not shares:
        return "cannot be judged (no gap or no data)"
    lo, hi = min(shares), max(shares)
    if lo < 0 < hi:
        return "does not explain (it narrows one component and widens the other)"
    return "explains most of" if lo >= MOST else "explains part of" if lo >= PART else "does not explain"


def window_table(fig14: pd.DataFrame, window: pd.DataFrame, base_buffer: int) -> pd.DataFrame:
    """window_gap.csv: per period and receive buffer (the baseline's ``base_buffer`` first), CC's
    average saving and slowdown over the grid's points (means of the per-point medians, as the
    paper averages its bars), only over the points both tables have."""
    rows = []
    cc14 = fig14[fig14.policy == "cc"] if not fig14.empty else fig14
    ccw = window[window.policy == "cc"] if not window.empty else window
    for var in dict.fromkeys(cc14.variation if not cc14.empty else []):
        base = cc14[cc14.variation == var]
        paper_save, paper_slow = seed.EMULATED[var]
        variants = [(base_buffer, base)] + [
            (int(buf), g) for buf, g in (ccw[ccw.variation == var].groupby("recv_buffer") if not ccw.empty else [])
            if int(buf) != base_buffer]
        for buf, g in variants:
            keys = set(zip(g.rtt_ms, g.loss)) & set(zip(base.rtt_ms, base.loss))
            g = g[[k in keys for k in zip(g.rtt_ms, g.loss)]]
            b = base[[k in keys for k in zip(base.rtt_ms, base.loss)]]
            save, slow = float(g.saving.mean()), float(g.slowdown.mean())
            bsave, bslow = float(b.saving.mean()), float(b.slowdown.mean())
            rows.append({"variation": var, "recv_buffer": buf, "points": len(g), "saving": save, "slowdown": slow,
                         "paper_saving": paper_save, "paper_slowdown": paper_slow, "base_saving": bsave,
                         "base_slowdown": bslow, "saving_explained": gap_explained(paper_save, bsave, save),
                         "slowdown_explained": gap_explained(paper_slow, bslow, slow)})
    return pd.DataFrame(rows, columns=list(WINDOW_COLUMNS))


def window_conclusions(t: pd.DataFrame) -> list[str]:
    """One sentence per period and smaller window, generated from window_gap.csv."""
    out = []
    for r in t.itertuples():
        if r.recv_buffer == t[t.variation == r.variation].recv_buffer.iloc[0]:
            continue  # the baseline row
        w = word([r.saving_explained, r.slowdown_explained])
        out.append(
            f"{PEAK[r.variation]}: a {r.recv_buffer} B receive buffer ({r.recv_buffer / 1024:.0f} KB) {w} the gap to the "
            f"paper's average: saved {100 * r.base_saving:.0f} % → {100 * r.saving:.0f} % (paper "
            f"{100 * r.paper_saving:.0f} %; {_share(r.saving_explained)} of that gap), time "
            f"{100 * r.base_slowdown:+.0f} % → {100 * r.slowdown:+.0f} % (paper {100 * r.paper_slowdown:+.0f} %; "
            f"{_share(r.slowdown_explained)}), over {r.points} points")
    return out


def _share(x: float) -> str:
    return "n/a" if not math.isfinite(x) else f"{100 * x:+.0f} %"


def weights_table(f17: pd.DataFrame, weights: pd.DataFrame) -> pd.DataFrame:
    """fig17_weight_gap.csv: per power-saving weight and competitor count on the ``wlan`` medium,
    PSM's normalized energy and time beside CC's (CC's station is regular: its runs do not
    depend on the weight; weight 1 is Fig. 17's own run)."""
    cols = ["weight", "competitors", "psm_energy", "psm_time", "cc_energy", "cc_time", "cc_below_psm"]
    if f17.empty or "medium" not in f17.columns:
        return pd.DataFrame(columns=cols)
    wl = f17[f17.medium == "wlan"]
    cc = {int(r.competitors): r for r in wl[wl.policy == "cc"].itertuples()}
    psm = [(1.0, wl[wl.policy == "ideal-psm"])]
    if not weights.empty:
        psm += [(float(w), g) for w, g in weights[weights.policy == "ideal-psm"].groupby("ap_power_save_weight")]
    rows = []
    for w, g in psm:
        for r in g.itertuples():
            n = int(r.competitors)
            if n == 0 or n not in cc:
                continue
            c = cc[n]
            rows.append({"weight": w, "competitors": n, "psm_energy": r.norm_energy, "psm_time": r.norm_time,
                         "cc_energy": c.norm_energy, "cc_time": c.norm_time, "cc_below_psm": c.norm_energy < r.norm_energy})
    t = pd.DataFrame(rows, columns=cols)
    return t.drop_duplicates(["weight", "competitors"]).sort_values(["weight", "competitors"], ignore_index=True)


def weights_conclusion(t: pd.DataFrame) -> str:
    """The Fig. 17 explanation, generated from the weight sweep: per weight PSM's energy over
    the competitors against CC's, and whether any weight gives the paper's ordering (CC below
    PSM at every competitor count)."""
    if t.empty:
        return "no PSM run with competitors on the wlan medium: the fair-queueing weights are not tested"
    per = []
    for w, g in t.groupby("weight"):
        per.append((w, float(g.psm_energy.min()), float(g.psm_energy.max()), int(g.cc_below_psm.sum()), len(g)))
    cc = t.drop_duplicates("competitors")
    facts = "; ".join(f"weight {weight_name(w)} (PSM class share {100 * w / (1 + w):.0f} % when backlogged): PSM "
                      f"{lo:.2f}–{hi:.2f}, CC below PSM at {k} of {n} n" for w, lo, hi, k, n in per)
    facts += f"; CC {cc.cc_energy.min():.2f}–{cc.cc_energy.max():.2f} (regular class, no weight)"
    full = [w for w, _, _, k, n in per if k == n]
    some = [w for w, _, _, k, n in per if 0 < k < n]
    if len(per) < 2:
        return f"only weight {weight_name(per[0][0])} was run, so the fair-queueing weights are not tested; {facts}"
    if full:
        return (f"the AP's weights explain the paper's ordering: with a power-saving weight ≤ {weight_name(max(full))} CC "
                f"uses less energy than PSM at every competitor count; per weight: {facts}")
    if some:
        return (f"the AP's weights explain part of it: CC uses less energy than PSM at some competitor counts only, "
                f"with weight {', '.join(weight_name(w) for w in some)}; per weight: {facts}")
    return (f"the AP's fair-queueing weights do not explain it: no weight in the sweep makes CC use less energy than "
            f"PSM at any competitor count; per weight: {facts}")


def weight_name(w: float) -> str:
    """A weight as the fraction it was given as (1/8, 1/4, 1/2, 1, 2)."""
    return f"1/{round(1 / w):g}" if w < 1 and abs(1 / w - round(1 / w)) < 1e-9 else f"{w:g}"


# --- the multi-server page model (the web claims, Fig. 11) ------------------------------------

MULTISERVER_COLUMNS = ("variant", "figure", "component", "paper", "paper_lo", "paper_hi", "single", "multi", "explained")
"""web_multiserver_gap.csv's columns: per variant of the multi-server session and per component
of the web gap, the paper's value (a range [paper_lo, paper_hi]), the single-server session's and
the variant's, and the share of the gap the variant closes."""


def range_gap(x: float, lo: float, hi: float) -> float:
    """Distance of ``x`` outside [lo, hi] (0 inside; NaN if ``x`` is not finite)."""
    if not math.isfinite(x):
        return math.nan
    return max(0.0, lo - x, x - hi)


def range_explained(lo: float, hi: float, base: float, variant: float) -> float:
    """:func:`gap_explained` for a paper range: 1 − gap(variant) / gap(baseline); when the
    baseline lies in the range, NaN if the variant does too and −1 (a gap opened) if not; NaN
    when a value is missing."""
    gb, gv = range_gap(base, lo, hi), range_gap(variant, lo, hi)
    if not (math.isfinite(gb) and math.isfinite(gv)):
        return math.nan
    if gb == 0:
        return math.nan if gv == 0 else -1.0
    return 1.0 - gv / gb


def _web_components(sites: pd.DataFrame, points: pd.DataFrame, conc: pd.DataFrame | None = None) -> dict[str, float]:
    """The compared numbers of one session: its best and worst site's CC saving, the session's
    CC saving, oracle saving and CC slowdown (``web_points`` rows cc and oracle) and the RTT
    cache's saving while pages load and at 3 and 4 busy connections (``web_concurrency``)."""
    def pick(policy: str, col: str) -> float:
        g = points[points.policy == policy] if points is not None and not points.empty else None
        return float(g[col].iloc[0]) if g is not None and len(g) else math.nan

    def cache(scope: str, k: int | None = None) -> float:
        if conc is None or conc.empty:
            return math.nan
        g = conc[conc.scope == scope]
        if k is not None:
            g = g[g.k == k]
        return float(g.cache_saving.iloc[0]) if len(g) else math.nan

    cc = sites.cc_saving.dropna() if sites is not None and not sites.empty else pd.Series(dtype=float)
    return {"best_site_cc": float(cc.max()) if len(cc) else math.nan,
            "worst_site_cc": float(cc.min()) if len(cc) else math.nan,
            "session_cc": pick("cc", "saving"), "session_oracle": pick("oracle", "saving"),
            "session_slowdown": pick("cc", "slowdown"),
            "cache_downloads": cache("downloads"), "cache_k3": cache("k", 3), "cache_k4": cache("k", 4)}


WEB_PAPER = {
    "best_site_cc": ("Fig. 11", "CC's saving on the best site (best five 45–60 %)", *seed.WEB_BEST5_CC),
    "worst_site_cc": ("Fig. 11", "CC's saving on the worst site (worst five ≈ 12 %)", seed.WEB_WORST5[0], seed.WEB_WORST5[0]),
    "session_cc": ("Fig. 11", "CC's session saving (against the best five, as web-cc-vs-oracle)", *seed.WEB_BEST5_CC),
    "session_oracle": ("Fig. 11", "the oracle's session saving (best five 75–90 %)", *seed.WEB_BEST5_ORACLE),
    "session_slowdown": ("Fig. 11", "CC's slowdown of page loads (Fig. 9: < 1 %)", -1.0, seed.WEB_TIME_VS_TCP),
    "cache_downloads": ("Fig. 10", "the RTT cache's saving while pages load (≈ 10 %)", seed.WEB_CACHE_OVERALL,
                        seed.WEB_CACHE_OVERALL),
    "cache_k3": ("Fig. 10", "at 3 busy connections (13 %)", seed.WEB_CACHE_BY_K[3], seed.WEB_CACHE_BY_K[3]),
    "cache_k4": ("Fig. 10", "at 4 (32 %)", seed.WEB_CACHE_BY_K[4], seed.WEB_CACHE_BY_K[4]),
}
"""The paper's side of each component: (figure, what, low, high); a point is a range of one value."""


def multiserver_table(single_sites: pd.DataFrame, single_points: pd.DataFrame,
                      variants: dict[str, tuple], single_conc: pd.DataFrame | None = None) -> pd.DataFrame:
    """web_multiserver_gap.csv: per variant (name → its ``web_sites``, ``web_points`` and
    optionally ``web_concurrency``) and component, the single-server and the variant's numbers
    against the paper's range."""
    base = _web_components(single_sites, single_points, single_conc)
    rows = []
    for name, tables in variants.items():
        var = _web_components(*tables)
        for k, (fig, what, lo, hi) in WEB_PAPER.items():
            rows.append({"variant": name, "figure": fig, "component": k, "paper": what, "paper_lo": lo, "paper_hi": hi,
                         "single": base[k], "multi": var[k], "explained": range_explained(lo, hi, base[k], var[k])})
    return pd.DataFrame(rows, columns=list(MULTISERVER_COLUMNS))


def multiserver_conclusions(t: pd.DataFrame, sites: pd.DataFrame | None = None, figure: str | None = None) -> list[str]:
    """One sentence per variant and figure (Fig. 11 with the page times; Fig. 10, the RTT cache),
    generated from web_multiserver_gap.csv: how much of the gap the multi-server pages explain
    (the least explained component with a gap decides, as :func:`word`), with every component's
    numbers; ``sites`` (web_sites.csv) adds the per-site savings to Fig. 11's; ``figure`` keeps
    one figure's sentences."""
    out = []
    if t is None or t.empty:
        return out
    for (name, fig), g in t.groupby(["variant", "figure"], sort=False):
        if figure is not None and fig != figure:
            continue
        w = word(list(g.explained))
        parts = []
        for r in g.itertuples():
            paper = (f"< {100 * r.paper_hi:+.0f} %" if r.component == "session_slowdown" else
                     f"{100 * r.paper_lo:.0f} %" if r.paper_lo == r.paper_hi else
                     f"{100 * r.paper_lo:.0f}–{100 * r.paper_hi:.0f} %")
            fmt = (lambda x: f"{100 * x:+.1f} %") if r.component == "session_slowdown" else (lambda x: f"{100 * x:.0f} %")
            parts.append(f"{r.paper.split(' (')[0]} {fmt(r.single)} → {fmt(r.multi)} (paper {paper}; {_share(r.explained)})")
        per_site = ""
        if fig == "Fig. 11" and sites is not None and not sites.empty and "model" in sites.columns:
            rows = sites[sites.model.isin(["single-server", name])]
            per_site = "; per site (single → this): " + ", ".join(
                f"{s} CC {100 * a.cc_saving.iloc[0]:.0f} → {100 * b.cc_saving.iloc[0]:.0f} %, oracle "
                f"{100 * a.oracle_saving.iloc[0]:.0f} → {100 * b.oracle_saving.iloc[0]:.0f} %, time "
                f"{100 * a.cc_slowdown.iloc[0]:+.1f} → {100 * b.cc_slowdown.iloc[0]:+.1f} %"
                for s, a, b in ((s, rows[(rows.model == "single-server") & (rows.site == s)],
                                 rows[(rows.model == name) & (rows.site == s)]) for s in sorted(set(rows.site)))
                if len(a) and len(b))
        what = "Fig. 11 and the page times" if fig == "Fig. 11" else "the RTT cache's gap (Fig. 10)"
        out.append(f"{name}: the multi-server page model {w} {what}: " + "; ".join(parts) + per_site)
    return out
