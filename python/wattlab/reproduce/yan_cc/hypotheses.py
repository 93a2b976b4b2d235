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

A component's gap is |wattlab − paper| on a linear scale (percentage points); a variant
explains 1 − gap(variant) / gap(baseline) of it (negative: it widens the gap).
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
