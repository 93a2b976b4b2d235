"""Every claim of seed 000's reproduction (yan_cc/claims.py) driven to each of its verdicts —
agrees, partly, disagrees and not tested — with small synthetic tables (issue 15, item 7).

``CASES`` lists, per claim id and verdict, a function that builds the tables and returns the
claims; ``test_every_claim_has_a_case_for_each_verdict`` checks that no claim of
``all_claims`` and no verdict is missing from it."""

from __future__ import annotations

import itertools
from typing import Callable

import numpy as np
import pandas as pd
import pytest

from wattlab.reproduce.yan_cc import claims as c
from wattlab.reproduce.yan_cc import seed, web
from wattlab.reproduce.yan_cc.config import SITES, Config

A, P, D, U = c.AGREES, c.PARTLY, c.DISAGREES, c.UNTESTED
QUICK = Config.quick_preset()
FULL = Config.full()


def frame(rows: list[dict], **defaults) -> pd.DataFrame:
    """Rows with defaults, and the normalized columns derived from saving and slowdown."""
    base = {"reverted": 0.0, "dropped_asleep": 0.0, "timeouts": 0.0, "dozes": 0.0, "sleeps": 10.0, **defaults}
    df = pd.DataFrame([{**base, **r} for r in rows])
    if "saving" in df.columns and "norm_energy" not in df.columns:
        df["norm_energy"] = 1 - df.saving
    if "slowdown" in df.columns and "norm_time" not in df.columns:
        df["norm_time"] = 1 + df.slowdown
    if "norm_energy" in df.columns and "saving" not in df.columns:
        df["saving"] = 1 - df.norm_energy
    if "norm_time" in df.columns and "slowdown" not in df.columns:
        df["slowdown"] = df.norm_time - 1
    return df


EMPTY = pd.DataFrame()

# --- Figs. 14/15, Table I --------------------------------------------------------------------


def average(saving: float, slowdown: float, var: str = "none") -> list[c.Claim]:
    """The emulated average (seed: off-peak 47 % saved, +6 % time; peak 51 %, +12 %) over a small
    grid where CC does exactly this."""
    rows = [{"policy": "cc", "variation": var, "rtt_ms": r, "loss": 0.001, "saving": saving, "slowdown": slowdown}
            for r in (30, 90)]
    cid = "emulated-peak" if var == "gamma" else "emulated-offpeak"
    return [c._average_claim(cid, var, frame(rows), None, None)]


def table1(factor: float, rtts=tuple(seed.TABLE1)) -> list[c.Claim]:
    """Table I with CC's time and energy ``factor`` × the seed's, at 0 and 0.1 % loss."""
    rows = [{"policy": "cc", "loss": loss, "rtt_ms": r, "time_s": factor * seed.TABLE1[r]["time_wired"],
             "energy_j": factor * seed.TABLE1[r]["energy_wired"], "base_time_s": 3.0, "base_energy_j": 4.0,
             "slowdown": 0.5} for r in rtts for loss in (0.0, 0.001)]
    return c.table1_claims(frame(rows), 0.0, 0.001, 5.0)


def table1_wireless(time_ratio: float, energy_ratio: float, rtts=tuple(seed.TABLE1)) -> list[c.Claim]:
    """CC on the hop as Table I's wired column, in the BSS ``time_ratio`` / ``energy_ratio`` × that."""
    wired = [{"policy": "cc", "loss": 0.0, "rtt_ms": r, "time_s": seed.TABLE1[r]["time_wired"],
              "energy_j": seed.TABLE1[r]["energy_wired"], "base_time_s": 3.0, "base_energy_j": 4.0, "slowdown": 0.5}
             for r in seed.TABLE1]
    wireless = [{**w, "time_s": time_ratio * w["time_s"], "energy_j": energy_ratio * w["energy_j"]}
                for w in wired if w["rtt_ms"] in rtts]
    return [c.table1_wireless_claim(frame(wired), frame(wireless), 0.0)]


def trends(rtt_sign: dict[str, float], loss_sign: dict[str, float], rtts=(30, 60, 90)) -> list[c.Claim]:
    """CC's normalized energy = 1 + sign·RTT/100 + sign·loss·10 per variation."""
    rows = [{"policy": "cc", "variation": v, "rtt_ms": r, "loss": loss,
             "norm_energy": 0.6 + rtt_sign[v] * r / 1000 + loss_sign[v] * loss * 10, "norm_time": 1.2}
            for v, r, loss in itertools.product(("none", "gamma"), rtts, (0.0, 0.005, 0.01))]
    return c._trend_claims(frame(rows))


def fig15(cc_faster_at: tuple[int, ...]) -> list[c.Claim]:
    rows = [{"policy": pol, "variation": "gamma", "rtt_ms": r, "loss": 0.001,
             "norm_time": (1.3 if r in cc_faster_at else 1.6) if pol == "cc" else 1.5}
            for r in (30, 45, 60, 120) for pol in ("cc", "ideal-psm")]
    return [c._fig15_claim(frame(rows), 0.001)]


def bsd(bsd50_energy: float | None, bsd100_saving: dict[int, float]) -> list[c.Claim]:
    rows = [{"policy": "bsd-100", "variation": "none", "rtt_ms": r, "loss": 0.001, "saving": s, "slowdown": 0.02}
            for r, s in bsd100_saving.items()]
    if bsd50_energy is not None:
        rows += [{"policy": "bsd-50", "variation": "none", "rtt_ms": r, "loss": 0.001, "norm_energy": bsd50_energy,
                  "norm_time": 1.0} for r in (30, 120)]
    return c._bsd_claims(frame(rows))


def stream(slowdown: float | None) -> list[c.Claim]:
    rows = [] if slowdown is None else [{"policy": "cc", "rate_mbps": 20.0, "rtt_ms": 65, "slowdown": slowdown}]
    return c._stream_claims(frame(rows) if rows else EMPTY, 20.0)


CROSS_RTTS = (60, 65, 70, 72, 75, 80, 85, 90, 100, 110)


def crossover(gap: Callable[[int], float] | None) -> list[c.Claim]:
    """CC's normalized time = PSM's (1.4) + gap(RTT)."""
    if gap is None:
        return [c._crossover_claim(EMPTY, 20.0)]
    rows = [{"policy": pol, "rate_mbps": 20.0, "rtt_ms": r, "norm_time": 1.4 + (gap(r) if pol == "cc" else 0.0)}
            for r in CROSS_RTTS for pol in ("cc", "ideal-psm")]
    return [c._crossover_claim(frame(rows), 20.0)]


def fig16(active: dict[str, float], dynamic: dict[str, float]) -> list[c.Claim]:
    rows = [{"policy": pol, "variation": v, "norm_energy": e, "norm_time": 1.3}
            for pol, vals in (("cc", active), ("cc-dynamic", dynamic)) for v, e in vals.items()]
    return c._fig16_claims(frame(rows))


def fig17(cc_e=None, psm_e=None, dyn_e=None, dyn_t=None, cam_slow=None) -> list[c.Claim]:
    """Per policy a {competitors: value} map; cam_slow: plain TCP's slowdown by competitors."""
    rows = []
    for n, e in (cc_e or {}).items():
        rows.append({"policy": "cc", "competitors": n, "norm_energy": e, "norm_time": 1.3})
    for n, e in (psm_e or {}).items():
        rows.append({"policy": "ideal-psm", "competitors": n, "norm_energy": e, "norm_time": 1.5})
    for n, e in (dyn_e or {}).items():
        rows.append({"policy": "cc-dynamic", "competitors": n, "norm_energy": e, "norm_time": (dyn_t or {}).get(n, 1.4)})
    for n, s in (cam_slow or {}).items():
        rows.append({"policy": "cam", "competitors": n, "norm_energy": 1.0, "slowdown": s, "norm_time": 1 + s})
    return c._fig17_claims(frame(rows) if rows else EMPTY)


N4 = (1, 2, 3, 4)


def fig18(cc_energy: dict[str, list[float]] | None, psm_time: list[float] | None = None) -> list[c.Claim]:
    """CC's normalized energy (and time) at 10/20/40 Mb/s per variation; PSM's absolute times."""
    rows = []
    for v, es in (cc_energy or {}).items():
        rows += [{"policy": "cc", "variation": v, "loss": 0.001, "rate_mbps": r, "norm_energy": e, "norm_time": 1 + e,
                  "time_s": 5.0} for r, e in zip((10, 20, 40), es)]
    for r, t in zip((10, 20, 40), psm_time or []):
        rows.append({"policy": "ideal-psm", "variation": "none", "loss": 0.001, "rate_mbps": r, "norm_energy": 0.5,
                     "norm_time": 1.5, "time_s": t})
    return c._fig18_claims(frame(rows) if rows else EMPTY)


# --- Internet sites ----------------------------------------------------------------------------

def sites(cc: dict | None = None, psm: dict | None = None, only: tuple[str, ...] | None = None) -> list[c.Claim]:
    """Every site off-peak and peak; cc[(site, variation)] / cc[variation] / psm[site] override the
    defaults (CC saves 30 % for +20 % time and never reverts, but on uiuc; PSM +100 %)."""
    cc, psm = cc or {}, psm or {}
    rows = []
    for s, v in itertools.product(SITES, ("none", "gamma")):
        if only is not None and s.name not in only:
            continue
        row = {"policy": "cc", "site": s.name, "variation": v, "saving": 0.3, "slowdown": 0.2,
               "reverted": 1.0 if s.name == "cs.uiuc.edu" else 0.0}
        row.update(cc.get(v, {}))
        row.update(cc.get((s.name, v), {}))
        rows.append(row)
        rows.append({"policy": "ideal-psm", "site": s.name, "variation": v, "saving": 0.4,
                     "slowdown": psm.get(s.name, seed.PSM_SLOWDOWN.get(s.name, 1.0))})
    return c._site_claims(frame(rows), [s.name for s in SITES])


def site_pair(site: str, peak: dict, offpeak: dict) -> dict:
    return {(site, "gamma"): peak, (site, "none"): offpeak}


def psm_site(site: str, factor: float) -> dict:
    """PSM's slowdown on ``site``: ``factor`` × the seed's (compared as itself, not as 1 + slowdown)."""
    return {site: factor * seed.PSM_SLOWDOWN[site]}


# --- web browsing --------------------------------------------------------------------------------

WEB_ENERGY = {"tcp": 1.0, "cc": 0.16, "cc-nocache": 0.19, "ideal-psm": 0.2025, "psm": 0.2025, "bsd-10": 0.2,
              "bsd-20": 0.19, "bsd-50": 0.185, "bsd-100": 0.18}
WEB_TIME = {"ideal-psm": 2.0, "psm": 2.0}
WEB_CACHE = {1: 0.1, 2: 0.1, 3: 0.13, 4: 0.32}


def web_claims(energy: dict | None = None, time: dict | None = None, cache: dict | None = None,
               oracle: float = 0.14, drop: tuple[str, ...] = ()) -> list[c.Claim]:
    """Three seeds of a session per policy with the given normalized energies and page times; the
    RTT cache saves cache[k] of CC-without-cache's 2 J at each busy k."""
    energy, time, cache = {**WEB_ENERGY, **(energy or {})}, {**WEB_TIME, **(time or {})}, cache or WEB_CACHE
    rows = []
    for s, (pol, e) in itertools.product((1, 2, 3), energy.items()):
        if pol in drop:
            continue
        busy = {k: (2 * (1 - cache[k]) if pol == "cc" else 2.0 if pol == "cc-nocache" else 3.0) for k in cache}
        row = {"policy": pol, "seed": s, "energy_j": 100 * e, "download_s": 10 * time.get(pol, 1.0), "session_s": 100.0,
               "oracle_j": 100 * oracle, "completed": True, "objects": 50, "bytes": 1e6, "agent_sleeps": 5.0,
               "agent_dropped_asleep": 0.0, "energy_k0_j": 100 * e - sum(busy.values()), "time_k0_s": 90.0}
        row.update({f"energy_k{k}_j": v for k, v in busy.items()})
        row.update({f"time_k{k}_s": 1.0 for k in busy})
        rows.append(row)
    runs = pd.DataFrame(rows)
    pts = {"web_runs": runs.assign(think_scale_s=1.0), "web_points": web.web_points(runs).assign(think_scale_s=1.0),
           "web_concurrency": web.web_concurrency(runs).assign(think_scale_s=1.0)}
    return c._web_claims(pts, QUICK)


# --- fairness ---------------------------------------------------------------------------------------

MIXES = ("cc+tcp", "cc+psm", "tcp+psm")


def fairness(sd: dict | None = None, times: dict | None = None, queues: dict | None = None, max_n: int = 10,
             sizes=(2, 4, 8), cfg: Config = FULL) -> list[c.Claim]:
    """Fig. 6 runs with goodput std. dev. sd[(pair, n)] (default 0.01), Fig. 7 flows with download
    times times[(mix, group)] (default 3 s), Fig. 8 queues queues[(mix, k)] (default 30 packets)."""
    sd, times, queues = sd or {}, times or {}, queues or {}
    runs, flows = [], []
    for pair, n in itertools.product(("cc", "tcp"), range(1, max_n + 1)):
        runs.append({"figure": "fig6", "pair": pair, "flows": n, "of_each": n, "seed": 1, "jain": 0.99, "spread": 0.1,
                     "goodput_sd": sd.get((pair, n), 0.01), "queue_mean_pkts": 20.0, "queue_p95_pkts": 40.0})
        flows += [{"figure": "fig6", "pair": pair, "flows": n, "of_each": n, "group": pair, "flow": f"f{i}", "seed": 1,
                   "completion_time_s": 3.0, "normalized": 1.0, "timeouts": 0.0, "retransmits": 1.0,
                   "dropped_asleep": 0.0} for i in range(n)]
    for mix, k in itertools.product(MIXES, sizes):
        runs.append({"figure": "fig7", "pair": mix, "flows": 2 * k, "of_each": k, "seed": 1, "jain": 0.99,
                     "spread": 0.1, "goodput_sd": 0.05, "queue_mean_pkts": queues.get((mix, k), 30.0),
                     "queue_p95_pkts": 60.0})
        for g in mix.split("+"):
            flows += [{"figure": "fig7", "pair": mix, "flows": 2 * k, "of_each": k, "group": g, "flow": f"{g}{i}",
                       "seed": 1, "completion_time_s": times.get((mix, g), 3.0), "normalized": 1.0, "timeouts": 0.5,
                       "retransmits": 2.0, "dropped_asleep": 0.0} for i in range(k)]
    return c._fairness_claims({"fairness_runs": pd.DataFrame(runs), "fairness_flows": pd.DataFrame(flows)}, cfg)


def few(ns: tuple[int, ...]) -> dict:
    return {("cc", n): 0.2 for n in ns}


CASES: dict[tuple[str, str], Callable[[], list[c.Claim]]] = {
    ("emulated-offpeak", A): lambda: average(0.47, 0.06),
    ("emulated-offpeak", P): lambda: average(0.47, 0.26),
    # Only one component close: partly before issue 15, now 'disagrees'.
    ("emulated-offpeak", D): lambda: average(0.47, 0.46),
    ("emulated-offpeak", U): lambda: [c._average_claim("emulated-offpeak", "none", EMPTY, None, None)],
    ("emulated-peak", A): lambda: average(0.51, 0.12, "gamma"),
    ("emulated-peak", P): lambda: average(0.30, 0.12, "gamma"),
    ("emulated-peak", D): lambda: average(0.24, 0.29, "gamma"),
    # Only off-peak points in the grid: the peak average is not tested.
    ("emulated-peak", U): lambda: [c._average_claim("emulated-peak", "gamma", frame(
        [{"policy": "cc", "variation": "none", "rtt_ms": 30, "loss": 0.0, "saving": 0.5, "slowdown": 0.1}]), None, None)],
    **{(f"table1-{r}ms", v): (lambda f=f: table1(f)) for r in seed.TABLE1 for v, f in ((A, 1.0), (P, 1.2), (D, 1.5))},
    **{(f"table1-{r}ms", U): (lambda r=r: table1(1.0, [x for x in seed.TABLE1 if x != r])) for r in seed.TABLE1},
    # The paper's wireless/wired ratios are 0.95–0.98 (time) and 0.96–0.99 (energy).
    ("table1-wireless", A): lambda: table1_wireless(1.0, 1.0),
    ("table1-wireless", P): lambda: table1_wireless(1.15, 1.0),
    ("table1-wireless", D): lambda: table1_wireless(1.0, 0.6),
    ("table1-wireless", U): lambda: table1_wireless(1.0, 1.0, rtts=()),
    ("fig14-rtt-trend", A): lambda: trends({"none": -1, "gamma": -1}, {"none": -1, "gamma": -1}),
    ("fig14-rtt-trend", P): lambda: trends({"none": -1, "gamma": 1}, {"none": -1, "gamma": -1}),
    ("fig14-rtt-trend", D): lambda: trends({"none": 1, "gamma": 1}, {"none": -1, "gamma": -1}),
    ("fig14-rtt-trend", U): lambda: trends({"none": -1, "gamma": -1}, {"none": -1, "gamma": -1}, rtts=(30, 90)),
    ("fig14-loss-trend", A): lambda: trends({"none": -1, "gamma": -1}, {"none": -1, "gamma": -1}),
    ("fig14-loss-trend", P): lambda: trends({"none": -1, "gamma": -1}, {"none": -1, "gamma": 1}),
    ("fig14-loss-trend", D): lambda: trends({"none": -1, "gamma": -1}, {"none": 1, "gamma": 1}),
    ("fig14-loss-trend", U): lambda: c._trend_claims(frame([{"policy": "cc", "variation": "none", "rtt_ms": 30,
                                                              "loss": 0.0, "norm_energy": 0.8, "norm_time": 1.2}])),
    ("fig15-cc-vs-psm-time", A): lambda: fig15((30, 45, 60, 120)),
    ("fig15-cc-vs-psm-time", P): lambda: fig15((30, 45)),
    ("fig15-cc-vs-psm-time", D): lambda: fig15((30,)),
    ("fig15-cc-vs-psm-time", U): lambda: [c._fig15_claim(EMPTY, 0.001)],
    ("bsd50-equals-tcp", A): lambda: bsd(1.0, {120: 0.05}),
    ("bsd50-equals-tcp", P): lambda: bsd(1.03, {120: 0.05}),
    ("bsd50-equals-tcp", D): lambda: bsd(1.2, {120: 0.05}),
    ("bsd50-equals-tcp", U): lambda: bsd(None, {120: 0.05}),
    ("bsd100-above-100ms", A): lambda: bsd(1.0, {90: 0.0, 120: 0.05}),
    ("bsd100-above-100ms", P): lambda: bsd(1.0, {90: 0.05, 120: 0.05}),  # saves below 100 ms too
    ("bsd100-above-100ms", D): lambda: bsd(1.0, {90: 0.0, 120: 0.0}),  # unreachable before issue 15
    ("bsd100-above-100ms", U): lambda: bsd(1.0, {90: 0.0}),
    ("stream-delay-20mbps", A): lambda: stream(0.42),
    ("stream-delay-20mbps", P): lambda: stream(0.50),
    ("stream-delay-20mbps", D): lambda: stream(0.60),
    ("stream-delay-20mbps", U): lambda: stream(None),
    ("stream-delay-40mbps", U): lambda: stream(0.42),
    **{("stream-delay-40mbps", v): (lambda s=s: c._stream_claims(
        frame([{"policy": "cc", "rate_mbps": 40.0, "rtt_ms": 65, "slowdown": s}]), 20.0))
       for v, s in ((A, 0.18), (P, 0.28), (D, 0.40))},
    ("crossover-75ms", A): lambda: crossover(lambda r: 0.05 if r >= 75 else -0.1),
    ("crossover-75ms", P): lambda: crossover(lambda r: 0.05 if r >= 90 else -0.1),  # crossing 15 ms late
    ("crossover-75ms", D): lambda: crossover(lambda r: 0.05 if r >= 110 else -0.1),
    ("crossover-75ms", U): lambda: crossover(None),
    ("fig16-active-beats-dynamic", A): lambda: fig16({"gamma": 0.7, "2var": 0.8}, {"gamma": 0.9, "2var": 1.0}),
    ("fig16-active-beats-dynamic", P): lambda: fig16({"gamma": 0.7, "2var": 1.1}, {"gamma": 0.9, "2var": 1.0}),
    ("fig16-active-beats-dynamic", D): lambda: fig16({"gamma": 1.0, "2var": 1.1}, {"gamma": 0.9, "2var": 1.0}),
    ("fig16-active-beats-dynamic", U): lambda: fig16({"none": 0.66}, {"none": 0.63}),
    ("fig16-no-variation", A): lambda: fig16({"none": 0.66}, {"none": 0.63}),
    ("fig16-no-variation", P): lambda: fig16({"none": 0.66}, {"none": 0.67}),  # a tie: unreachable before
    ("fig16-no-variation", D): lambda: fig16({"none": 0.66}, {"none": 0.80}),
    ("fig16-no-variation", U): lambda: fig16({"gamma": 0.7}, {"gamma": 0.9}),
    ("fig17-cc-beats-psm", A): lambda: fig17(cc_e={n: 0.6 for n in N4}, psm_e={n: 0.7 for n in N4}),
    ("fig17-cc-beats-psm", P): lambda: fig17(cc_e={1: 0.6, 2: 0.6, 3: 0.8, 4: 0.8}, psm_e={n: 0.7 for n in N4}),
    ("fig17-cc-beats-psm", D): lambda: fig17(cc_e={1: 0.6, 2: 0.8, 3: 0.8, 4: 0.8}, psm_e={n: 0.7 for n in N4}),
    ("fig17-cc-beats-psm", U): lambda: fig17(cc_e={0: 0.6}, psm_e={0: 0.7}),
    ("fig17-active-beats-dynamic", A): lambda: fig17(cc_e={n: 0.6 for n in N4}, dyn_e={n: 0.7 for n in N4}),
    ("fig17-active-beats-dynamic", P): lambda: fig17(cc_e={n: 0.6 for n in N4}, dyn_e={n: 0.7 for n in N4},
                                                     dyn_t={n: 1.2 for n in N4}),
    ("fig17-active-beats-dynamic", D): lambda: fig17(cc_e={n: 0.8 for n in N4}, dyn_e={n: 0.7 for n in N4},
                                                     dyn_t={n: 1.2 for n in N4}),
    ("fig17-active-beats-dynamic", U): lambda: fig17(cc_e={n: 0.6 for n in N4}),
    ("fig17-saturation", A): lambda: fig17(cam_slow={0: 0, 1: 0.02, 2: 0.05, 3: 0.2, 4: 0.4}),
    ("fig17-saturation", P): lambda: fig17(cam_slow={0: 0, 1: 0.02, 2: 0.15, 3: 0.2, 4: 0.4}),
    ("fig17-saturation", D): lambda: fig17(cam_slow={0: 0, 1: 0.02, 2: 0.05, 3: 0.06, 4: 0.07, 5: 0.08}),
    ("fig17-saturation", U): lambda: fig17(cam_slow={0: 0, 1: 0.02, 2: 0.05}),
    ("fig18-bandwidth", A): lambda: fig18({"none": [0.8, 0.7, 0.6], "gamma": [0.9, 0.8, 0.7]}),
    ("fig18-bandwidth", P): lambda: fig18({"none": [0.8, 0.7, 0.6], "gamma": [0.7, 0.8, 0.9]}),
    ("fig18-bandwidth", D): lambda: fig18({"none": [0.6, 0.7, 0.8], "gamma": [0.7, 0.8, 0.9]}),
    ("fig18-bandwidth", U): lambda: fig18(None, [8.0, 8.0, 8.0]),
    ("fig18-psm-rigid", A): lambda: fig18(None, [8.0, 8.2, 8.0]),
    ("fig18-psm-rigid", P): lambda: fig18(None, [9.6, 8.0, 8.0]),
    ("fig18-psm-rigid", D): lambda: fig18(None, [12.0, 8.0, 8.0]),
    ("fig18-psm-rigid", U): lambda: fig18(None, [8.0]),
    # Internet sites (seed: peak 27 % / +20 %, off-peak 32 % / +20 %).
    ("internet-peak", A): lambda: sites({"gamma": {"saving": 0.27, "slowdown": 0.20}}),
    ("internet-peak", P): lambda: sites({"gamma": {"saving": 0.27, "slowdown": 0.40}}),
    ("internet-peak", D): lambda: sites({"gamma": {"saving": 0.27, "slowdown": 0.60}}),  # was 'partly'
    ("internet-peak", U): lambda: sites(only=tuple(s.name for s in SITES[:6])),
    ("internet-offpeak", A): lambda: sites({"none": {"saving": 0.32, "slowdown": 0.20}}),
    ("internet-offpeak", P): lambda: sites({"none": {"saving": 0.50, "slowdown": 0.20}}),
    ("internet-offpeak", D): lambda: sites({"none": {"saving": 0.70, "slowdown": 0.20}}),
    ("internet-offpeak", U): lambda: sites(only=("jriver.net",)),
    ("jriver", A): lambda: sites(site_pair("jriver.net", {"saving": 0.6, "slowdown": 0.05}, {"saving": 0.7, "slowdown": 0.03})),
    ("jriver", P): lambda: sites(site_pair("jriver.net", {"saving": 0.4, "slowdown": 0.05}, {"saving": 0.7, "slowdown": 0.03})),
    ("jriver", D): lambda: sites(site_pair("jriver.net", {"saving": 0.4, "slowdown": 0.05}, {"saving": 0.7, "slowdown": 0.1})),
    ("jriver", U): lambda: sites(only=("cs.uiuc.edu",)),
    ("stanford", A): lambda: sites(site_pair("cs.stanford.edu", {"slowdown": 0.44}, {"slowdown": 0.40})),
    ("stanford", P): lambda: sites(site_pair("cs.stanford.edu", {"slowdown": 0.44}, {"slowdown": 0.60})),
    ("stanford", D): lambda: sites(site_pair("cs.stanford.edu", {"slowdown": 0.44}, {"slowdown": 0.90})),  # was 'partly'
    ("stanford", U): lambda: sites(only=("cs.uiuc.edu",)),
    ("uiuc-reverts", A): lambda: sites(),
    ("uiuc-reverts", P): lambda: sites(site_pair("cs.uiuc.edu", {"reverted": 1.0}, {"reverted": 0.0})),
    ("uiuc-reverts", D): lambda: sites(site_pair("cs.uiuc.edu", {"reverted": 0.0}, {"reverted": 0.0})),
    ("uiuc-reverts", U): lambda: sites(only=("jriver.net",)),
    ("sites-save-10pct", A): lambda: sites(),
    ("sites-save-10pct", P): lambda: sites({**site_pair("hp.com", {"saving": 0.05}, {"saving": 0.05}),
                                            **site_pair("inria.fr", {"saving": 0.05}, {"saving": 0.05})}),
    ("sites-save-10pct", D): lambda: sites({"gamma": {"saving": 0.05}, "none": {"saving": 0.05}}),
    ("sites-save-10pct", U): lambda: sites(only=("cs.uiuc.edu",)),
    ("psm-sites-average", A): lambda: sites(psm={s.name: 1.0 for s in SITES}),
    ("psm-sites-average", P): lambda: sites(psm={s.name: 1.2 for s in SITES}),
    ("psm-sites-average", D): lambda: sites(psm={s.name: 2.0 for s in SITES}),
    ("psm-sites-average", U): lambda: sites(only=("cs.uiuc.edu",)),
    **{(f"psm-{site}", v): (lambda site=site, f=f: sites(psm=psm_site(site, f)))
       for site in ("cs.uiuc.edu", "research.msft.com", "inria.fr") for v, f in ((A, 1.0), (P, 1.2), (D, 1.5))},
    **{(f"psm-{site}", U): (lambda site=site: sites(only=("jriver.net",)))
       for site in ("cs.uiuc.edu", "research.msft.com", "inria.fr")},
    # Web browsing (seed: 21 % less than PSM, < 1 % slower, up to 25 % less than BSD, cache 10 %, 13/32 %).
    ("web-cc-vs-psm", A): lambda: web_claims(),
    ("web-cc-vs-psm", P): lambda: web_claims({"ideal-psm": 0.17}),
    ("web-cc-vs-psm", D): lambda: web_claims({"ideal-psm": 0.15}),
    ("web-cc-vs-psm", U): lambda: web_claims(drop=("ideal-psm",)),
    ("web-cc-vs-real-psm", A): lambda: web_claims(),
    ("web-cc-vs-real-psm", P): lambda: web_claims({"psm": 0.17}),
    ("web-cc-vs-real-psm", D): lambda: web_claims({"psm": 0.15}),
    ("web-cc-vs-real-psm", U): lambda: web_claims(drop=("psm",)),
    ("web-cc-time", A): lambda: web_claims(),
    ("web-cc-time", P): lambda: web_claims(time={"cc": 1.2}),
    ("web-cc-time", D): lambda: web_claims(time={"cc": 1.4}),
    ("web-cc-time", U): lambda: web_claims(drop=("cc",)),
    ("web-cc-beats-bsd", A): lambda: web_claims(),  # CC below every BSD, at most 21 % less
    ("web-cc-beats-bsd", P): lambda: web_claims({"bsd-10": 0.30}),  # 47 % less than BSD-10
    ("web-cc-beats-bsd", D): lambda: web_claims({"bsd-10": 0.55}),  # 71 % less: 'agrees' before issue 15
    ("web-cc-beats-bsd", U): lambda: web_claims(drop=("bsd-10", "bsd-20", "bsd-50", "bsd-100")),
    ("web-rtt-cache-overall", A): lambda: web_claims(),
    ("web-rtt-cache-overall", P): lambda: web_claims(cache={k: 0.3 for k in WEB_CACHE}),
    ("web-rtt-cache-overall", D): lambda: web_claims(cache={k: 0.6 for k in WEB_CACHE}),
    ("web-rtt-cache-overall", U): lambda: web_claims(drop=("cc-nocache",)),
    ("web-rtt-cache-3-4", A): lambda: web_claims(),
    ("web-rtt-cache-3-4", P): lambda: web_claims(cache={**WEB_CACHE, 4: 0.52}),
    ("web-rtt-cache-3-4", D): lambda: web_claims(cache={**WEB_CACHE, 4: 0.72}),  # was 'partly'
    ("web-rtt-cache-3-4", U): lambda: web_claims(cache={1: 0.1, 2: 0.1}),
    ("web-cc-vs-oracle", A): lambda: web_claims({"cc": 0.5}, oracle=0.2),
    ("web-cc-vs-oracle", P): lambda: web_claims({"cc": 0.2}, oracle=0.15),
    ("web-cc-vs-oracle", D): lambda: web_claims({"cc": 0.9}, oracle=0.15),
    ("web-cc-vs-oracle", U): lambda: web_claims(drop=("cc",)),
    # Fairness and friendliness.
    ("fig6-few-flows", A): lambda: fairness(few((2, 3, 4))),
    ("fig6-few-flows", P): lambda: fairness(few((2, 3))),
    ("fig6-few-flows", D): lambda: fairness(few((2,))),
    ("fig6-few-flows", U): lambda: fairness(max_n=1),
    ("fig6-many-flows", A): lambda: fairness({("cc", n): 0.06 for n in (8, 9, 10)}),
    ("fig6-many-flows", P): lambda: fairness({("cc", n): 0.21 for n in (8, 9, 10)}),
    ("fig6-many-flows", D): lambda: fairness({("cc", 8): 0.41, ("cc", 9): 0.06, ("cc", 10): 0.06}),  # was 'partly'
    ("fig6-many-flows", U): lambda: fairness(max_n=4),
    ("fig7-cc-tcp", A): lambda: fairness(times={("cc+tcp", "cc"): 3.1}),
    ("fig7-cc-tcp", P): lambda: fairness(times={("cc+tcp", "cc"): 3.6}),
    ("fig7-cc-tcp", D): lambda: fairness(times={("cc+tcp", "cc"): 4.5}),
    ("fig7-cc-tcp", U): lambda: fairness(sizes=()),
    ("fig7-psm", A): lambda: fairness(times={("cc+psm", "psm"): 5.0, ("tcp+psm", "psm"): 5.0}),
    ("fig7-psm", P): lambda: fairness(times={("tcp+psm", "psm"): 5.0}),
    ("fig7-psm", D): lambda: fairness(times={("cc+psm", "psm"): 2.0, ("tcp+psm", "psm"): 2.0}),
    ("fig7-psm", U): lambda: fairness(sizes=()),
    ("fig8-queues", A): lambda: fairness(queues={("cc+tcp", k): 35.0 for k in (2, 4, 8)}),
    ("fig8-queues", P): lambda: fairness(queues={("cc+tcp", k): 50.0 for k in (2, 4, 8)}),
    ("fig8-queues", D): lambda: fairness(queues={("cc+tcp", 2): 70.0}),  # one mix 40 pp apart: was 'partly'
    ("fig8-queues", U): lambda: fairness(sizes=()),
}


@pytest.mark.parametrize("cid,want", list(CASES))
def test_claim_reaches_verdict(cid, want):
    got = {x.id: x for x in CASES[(cid, want)]()}
    assert got[cid].verdict == want, (got[cid].evidence, got[cid].reason)


def test_every_claim_has_a_case_for_each_verdict():
    ids = [x.id for x in c.all_claims({}, FULL)]
    assert len(ids) == len(set(ids)) > 40
    missing = [(cid, v) for cid in ids for v in (A, P, D, U) if (cid, v) not in CASES]
    assert not missing, missing


def test_partly_needs_every_component_close():
    assert c._pp([0.0, 0.05]) == A
    assert c._pp([0.2, -0.24]) == P
    assert c._pp([0.0, 0.3]) == D, "one close component does not make the claim partly right"


def test_a_crossover_that_never_happens_disagrees_however_near_the_curves_come():
    # main called a near miss (CC 4 % of TCP's time faster at 72 ms, never slower) "partly".
    near = crossover(lambda r: -0.04 if r == 72 else -0.2)[0]
    far = crossover(lambda r: -0.30 if r == 72 else -0.5)[0]
    assert (near.verdict, far.verdict) == (D, D)
    assert "no crossover; closest at 72 ms" in near.evidence


def test_psm_slowdown_is_compared_as_itself_not_as_one_plus_it():
    # +12 % against research.msft.com's +29 %: 13 % off as 1.12 / 1.29 (main: agrees), 59 % off as itself.
    got = {x.id: x for x in sites(psm={"research.msft.com": 0.12})}["psm-research.msft.com"]
    assert got.verdict == D


def test_web_cc_vs_oracle_is_not_partly_just_because_think_time_dominates():
    # Both sleep through long think times: CC saves 92 %, the oracle 95 %, CC gets 97 % of the
    # oracle's saving (main: "partly" from that share alone); CC is 32 points above the paper's 45–60 %.
    got = {x.id: x for x in web_claims({"cc": 0.08}, oracle=0.05)}["web-cc-vs-oracle"]
    assert got.verdict == D and "97 % of the oracle's saving" in got.evidence


def test_fig17_reason_is_generated_from_the_data_it_explains():
    mech = c.FIG17_WHY["hop"]["cc-beats-psm"]
    flat = {x.id: x for x in fig17(cc_e={1: 0.6, 2: 0.7, 3: 0.8, 4: 0.9}, psm_e={n: 0.7 for n in N4})}
    assert flat["fig17-cc-beats-psm"].reason.endswith(mech) and "0.700–0.700" in flat["fig17-cc-beats-psm"].reason
    # PSM rising by 0.06 while CC rises by 0.3 (a fifth of it) is still flat; by 0.12 (two fifths) it is not.
    small = {x.id: x for x in fig17(cc_e={1: 0.6, 2: 0.7, 3: 0.8, 4: 0.9}, psm_e={1: 0.70, 2: 0.72, 3: 0.74, 4: 0.76})}
    large = {x.id: x for x in fig17(cc_e={1: 0.6, 2: 0.7, 3: 0.8, 4: 0.9}, psm_e={1: 0.70, 2: 0.74, 3: 0.78, 4: 0.82})}
    assert small["fig17-cc-beats-psm"].reason.endswith(mech) and mech not in large["fig17-cc-beats-psm"].reason
    rising = {x.id: x for x in fig17(cc_e={1: 0.9, 2: 0.8, 3: 0.8, 4: 0.8}, psm_e={1: 0.5, 2: 0.6, 3: 0.7, 4: 0.8})}
    r = rising["fig17-cc-beats-psm"].reason
    assert mech not in r and "not flat" in r and "does not explain" in r
    below = {x.id: x for x in fig17(cc_e={n: 0.6 for n in N4}, psm_e={n: 0.7 for n in N4})}
    assert mech not in below["fig17-cc-beats-psm"].reason and "as the paper says" in below["fig17-cc-beats-psm"].reason


def test_cc_vs_bsd_compares_the_largest_saving_with_the_seeds_25_percent():
    order_fails = {x.id: x for x in web_claims({"cc": 0.19, "bsd-10": 0.185, "bsd-20": 0.18, "bsd-50": 0.185,
                                                "bsd-100": 0.18})}["web-cc-beats-bsd"]
    assert order_fails.verdict == D
    big = {x.id: x for x in web_claims({"bsd-10": 0.55})}["web-cc-beats-bsd"]
    assert "most: 71 % vs bsd-10" in big.evidence and "1 − E_CC / E_BSD" in big.evidence


def test_web_cc_time_is_only_partly_right_when_cc_is_slower_than_psm():
    got = {x.id: x for x in web_claims(time={"ideal-psm": 0.9, "psm": 0.9})}["web-cc-time"]
    assert got.verdict == P


def test_table1_reason_names_the_loss_rate_as_run():
    reasons = [x.reason for x in table1(1.0)]
    assert all("at 0.1 % loss CC takes" in r for r in reasons), reasons[0]
    assert not any("at 0 % loss" in r for r in reasons)


def test_percentages_name_their_baseline():
    bsd100 = {x.id: x for x in bsd(1.0, {90: 0.0, 120: 0.05})}["bsd100-above-100ms"]
    assert "(1 − E/E_TCP)" in bsd100.evidence


def test_the_verdict_rule_is_documented():
    doc = c.__doc__
    assert "*every* compared component is within" in doc and "worse of the two" in doc
    assert np.isclose(c.PP_AGREE, 0.10) and np.isclose(c.PP_PARTLY, 0.25)


def test_fig17_reason_with_one_competitor_count_does_not_claim_a_trend():
    got = {x.id: x for x in fig17(cc_e={2: 0.86}, psm_e={2: 0.49})}["fig17-cc-beats-psm"]
    assert got.verdict == D and "one competitor count only" in got.reason
    assert c.FIG17_WHY["hop"]["cc-beats-psm"] not in got.reason


def test_crossover_reason_explains_a_missing_crossing_only_when_there_is_none():
    crossing = crossover(lambda r: 0.05 if r >= 75 else -0.1)[0]
    none = crossover(lambda r: -0.1)[0]
    assert "misses the beacon" not in crossing.reason and "misses the beacon" in none.reason
