"""Paper 000's web-browsing experiment (Figs. 9–11): the client-centered agent with and without
its RTT cache against baseline TCP, ideal PSM, BSD and the oracle, over a browsing session of
pages with embedded objects fetched on persistent connections, with Pareto think times.

Energy is split by the number of concurrent connections (Fig. 10) by laying each policy's
radio timeline over the client's connection-concurrency timeline (from the objects table).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from wattlab import api, physics
from wattlab.scenario_units import Duration, Rate

from ..framework import Context
from ..runner import Job
from ..scenarios import base

from .config import WEB_POLICIES, meter_of


# Meter that holds a policy's real energy: the mode meter, or always-on for baseline TCP.
def _meter(policy: str) -> str:
    return meter_of(WEB_POLICIES[policy][0])


@dataclass(frozen=True)
class WebSetup:
    """The browsing session: sites (one-way delays behind the AP), pages, think times; with
    ``third_party_delays_ms`` the multi-server page model (the flow's ``third_party``: a pool of
    servers, each on its own 100 Mb/s link with its own delay); ``path_loss`` is Bernoulli loss
    on every server's link towards the AP."""

    site_delays_ms: tuple[float, ...] = (10.0, 30.0, 60.0)
    hop_rate: str = "20Mbps"
    pages: int = 100
    think_shape: float = 1.5
    think_scale_s: float = 1.0
    max_connections: int = 4
    duration_s: float = 36_000.0
    third_party_delays_ms: tuple[float, ...] = ()
    third_party_share: float = 0.35
    third_party_hosts: tuple[int, int] = (1, 3)
    path_loss: float = 0.0


BASE = base(__package__, "web.toml")
"""The browsing session's base scenario."""
PROFILE: str = next(n["radio"]["profile"] for n in BASE.table["node"] if n["name"] == "client")
"""The client's radio profile in the base (paper 000's WaveLAN: its 2 ms sleep → idle wake-up is
the profile's, costed by the core's meter)."""


def web_overrides(setup: WebSetup, policy: str) -> list[tuple[str, Any]]:
    """The browsing session under ``policy`` (a key of ``WEB_POLICIES``): the sites, each a host on
    its own 100 Mb/s link to the AP, ahead of the base's nodes."""
    mode, agent = WEB_POLICIES[policy]
    sites = [f"site{i}" for i in range(len(setup.site_delays_ms))]
    hop = {**BASE.table["wireless"][0], "rate": setup.hop_rate, "power_save": mode, **({"agent": agent} if agent else {})}
    third = [f"third{i}" for i in range(len(setup.third_party_delays_ms))]
    loss = ({"a_to_b": {"loss": {"model": "bernoulli", "p": setup.path_loss}}}
            if setup.path_loss > 0 else {})
    links = [{"a": s, "b": "ap", "rate": Rate.mbps(100), "delay": Duration.ms(d), **loss}
             for s, d in zip(sites, setup.site_delays_ms)]
    links += [{"a": s, "b": "ap", "rate": Rate.mbps(100), "delay": Duration.ms(d), **loss}
              for s, d in zip(third, setup.third_party_delays_ms)]
    out = [("name", f"yan-cc web {policy}"), ("simulation.duration", Duration.s(setup.duration_s)),
           ("node", [*({"name": s, "kind": "host"} for s in sites + third), *BASE.table["node"]]),
           ("link", links),
           ("wireless.0", hop), ("flow.0.servers", sites), ("flow.0.pages", setup.pages),
           ("flow.0.think", {"shape": setup.think_shape, "scale": Duration.s(setup.think_scale_s)}),
           ("flow.0.max_connections", setup.max_connections)]
    if third:
        lo, hi = setup.third_party_hosts
        out.append(("flow.0.third_party", {"servers": third, "share": setup.third_party_share,
                                           "hosts": {"min": lo, "max": hi}}))
    return out


def concurrency_timeline(objects: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Change points and the number of requests outstanding from each one on (one request per
    connection, so this is the number of busy connections)."""
    starts = objects.request_s.to_numpy(dtype=float)
    ends = objects.done_s.to_numpy(dtype=float)
    t = np.concatenate([starts, ends])
    step = np.concatenate([np.ones_like(starts), -np.ones_like(ends)])
    order = np.lexsort((step, t))  # at a tie, ends (−1) before starts
    t, step = t[order], step[order]
    return t, np.cumsum(step)


def energy_by_concurrency(
    radio: pd.DataFrame, objects: pd.DataFrame, profile: str, end_s: float, free_wakeups: bool = False
) -> pd.DataFrame:
    """Energy and time of one radio timeline split by the number of busy connections (0 =
    think time). ``radio`` holds (time_s, state) rows of one meter; the core's meter costs
    them with the built-in ``profile`` (wake-ups free with ``free_wakeups``, as ideal PSM's
    meter has them), each interval owned by the number of busy connections at its start, so
    a wake-up is paid by the k the radio woke for (:func:`wattlab.physics.timeline_energy`)."""
    ct, ck = concurrency_timeline(objects)
    rt = radio.time_s.to_numpy(dtype=float)
    rs = radio.state.to_numpy()
    # Merge the two step functions on a common grid.
    grid = np.unique(np.concatenate([[0.0], rt, ct, [end_s]]))
    grid = grid[grid <= end_s]
    k_at = ck[np.searchsorted(ct, grid, side="right") - 1] if len(ct) else np.zeros_like(grid)
    k_at = np.where(np.searchsorted(ct, grid, side="right") == 0, 0, k_at).astype(int)
    s_idx = np.searchsorted(rt, grid, side="right") - 1
    state_at = np.where(s_idx >= 0, rs[np.clip(s_idx, 0, None)], "idle")
    e = physics.timeline_energy(profile, grid, state_at, end_s, owners=k_at, free_wakeups=free_wakeups)["by_owner_j"]
    rows = pd.DataFrame({"k": k_at[:-1], "time_s": np.diff(grid)}).groupby("k", as_index=False)["time_s"].sum()
    rows["energy_j"] = [float(e[k]) if k < len(e) else 0.0 for k in rows.k]
    return rows


def energy_by_site(radio: pd.DataFrame, pages: pd.DataFrame, profile: str, end_s: float,
                   free_wakeups: bool = False) -> dict[str, float]:
    """Fig. 11's split: one radio timeline's energy per site, each page view owning the time
    from its start to the next view's start (its load and the think time after it; the time
    before the first page goes to the first page's site)."""
    names = sorted(set(pages.site))
    code = {n: i for i, n in enumerate(names)}
    starts = pages.start_s.to_numpy(dtype=float)
    owner_of = np.array([code[s] for s in pages.site], dtype=int)
    rt = radio.time_s.to_numpy(dtype=float)
    grid = np.unique(np.concatenate([[0.0], rt, starts, [end_s]]))
    grid = grid[grid <= end_s]
    idx = np.clip(np.searchsorted(starts, grid, side="right") - 1, 0, None)
    owners = owner_of[idx] if len(owner_of) else np.zeros_like(grid, dtype=int)
    s_idx = np.searchsorted(rt, grid, side="right") - 1
    state_at = np.where(s_idx >= 0, radio.state.to_numpy()[np.clip(s_idx, 0, None)], "idle")
    e = physics.timeline_energy(profile, grid, state_at, end_s, owners=owners, free_wakeups=free_wakeups)["by_owner_j"]
    return {n: float(e[i]) if i < len(e) else 0.0 for n, i in code.items()}


AGENT_COUNTERS = ("sleeps", "dropped_asleep", "reverted", "connections", "rtt_cache_hits", "rtt_cache_misses",
                  "rtt_cache_servers_max")
"""The agent's counters a web run keeps (the RTT cache's per server: hits, misses and the most
servers cached at once within a page)."""


def _measure(job: Job, res: api.RunResult) -> dict:
    policy = job.labels["policy"]
    pages = res.pages
    row = {
        "completed": bool(res.summary["completed"]),
        "session_s": float(res.flows.completion_time_s.iloc[0]),
        "download_s": float((pages.end_s - pages.start_s).sum()),
        "energy_j": res.energy(_meter(policy)),
        "oracle_j": res.energy("oracle"),
        "objects": len(res.objects),
        "bytes": int(pages.bytes.sum()),
    }
    if len(res.agents):
        a = res.agents.iloc[0]
        row.update({f"agent_{k}": int(a[k]) for k in AGENT_COUNTERS if k in a.index})
    # Split of energy by concurrent connections (for Fig. 10).
    meter = _meter(policy)
    radio = res.radio_series[res.radio_series.policy == meter]
    # Up to the meter's own end: a power mode's last frame (the agent's sleep notice) may end
    # after the session, and the meter's energy includes it.
    end_s = float(res.radios.loc[(res.radios.node == "client") & (res.radios.policy == meter), "duration_s"].iloc[0])
    free = WEB_POLICIES[policy][0] == "ideal-psm"  # ideal PSM's meter wakes for free (paper 000)
    split = energy_by_concurrency(radio, res.objects, PROFILE, end_s, free)
    # What the replay of the logged timeline misses (beacon cycles a meter costs in closed
    # form and logs once: PSM, BSD), so a reader can see how far to trust the split.
    row["split_residual_j"] = float(row["energy_j"] - split.energy_j.sum())
    for _, r in split.iterrows():
        row[f"energy_k{int(r.k)}_j"] = float(r.energy_j)
        row[f"time_k{int(r.k)}_s"] = float(r.time_s)
    # Fig. 11: per site, the energy of its page views (with their think times) and their load
    # time; baseline TCP's run also gives the oracle's (its `oracle` meter).
    for site, e in energy_by_site(radio, pages, PROFILE, end_s, free).items():
        row[f"site_energy_{site}_j"] = e
    for site, g in pages.groupby("site"):
        row[f"site_load_{site}_s"] = float((g.end_s - g.start_s).sum())
    if policy == "tcp":
        orc = res.radio_series[res.radio_series.policy == "oracle"]
        o_end = float(res.radios.loc[(res.radios.node == "client") & (res.radios.policy == "oracle"), "duration_s"].iloc[0])
        for site, e in energy_by_site(orc, pages, PROFILE, o_end).items():
            row[f"site_oracle_{site}_j"] = e
    row["servers_per_page"] = float(pages.servers.mean()) if "servers" in pages.columns else 1.0
    return row


def run_web(setup: WebSetup, seeds: list[int], policies: list[str], ctx: Context,
            description: str = "web browsing") -> pd.DataFrame:
    """One row per (policy, seed): session and download time, energy, oracle, split by k."""
    jobs = [BASE.job(seed, {"policy": p}, web_overrides(setup, p)) for seed in seeds for p in policies]
    return ctx.run(jobs, _measure, description)


def same_work(df: pd.DataFrame) -> pd.Series:
    """Per run: did it do the work of baseline TCP's run of the same seed (the session
    completed in both, the same bytes delivered)? A ratio to TCP is computed only there."""
    base = df[df.policy == "tcp"].set_index("seed")
    done = df.completed.astype(bool) & df.seed.map(base.completed).fillna(False).astype(bool)
    return done & (df.bytes == df.seed.map(base.bytes))


def _same_work_only(df: pd.DataFrame) -> pd.DataFrame:
    """The runs that did TCP's work of their seed (and TCP's own): the only ones a saving
    between policies compares (a seed missing from one side drops out of its ratios)."""
    if not (df.policy == "tcp").any():
        return df
    return df[same_work(df) | (df.policy == "tcp")]


def normalize_web(df: pd.DataFrame) -> pd.DataFrame:
    """Per seed, every policy's energy and download time over baseline TCP's, plus the
    oracle (the always-on run's oracle meter); medians over seeds."""
    base = df[df.policy == "tcp"].set_index("seed")
    out = df.copy()
    same = same_work(out)
    out["energy_norm"] = (out.energy_j / out.seed.map(base.energy_j)).where(same)
    out["time_norm"] = (out.download_s / out.seed.map(base.download_s)).where(same)
    oracle = base.reset_index()[["seed", "oracle_j", "download_s"]].assign(policy="oracle", energy_j=base.oracle_j.values)
    oracle["energy_norm"] = oracle.energy_j / oracle.seed.map(base.energy_j)
    oracle["time_norm"] = 1.0
    out = pd.concat([out, oracle], ignore_index=True)
    return out.groupby("policy", sort=False)[["energy_norm", "time_norm"]].median().reset_index()


def rtt_cache_by_concurrency(df: pd.DataFrame) -> pd.DataFrame:
    """Fig. 10: energy of CC with the RTT cache relative to without it, per number of busy
    connections k (k = 0 is think time), medians over seeds."""
    df = _same_work_only(df)
    cols = sorted({c for c in df.columns if c.startswith("energy_k")}, key=lambda c: int(c[8:-2]))
    rows = []
    for c in cols:
        k = int(c[8:-2])
        with_c = df[df.policy == "cc"].set_index("seed")[c]
        without = df[df.policy == "cc-nocache"].set_index("seed")[c]
        ratio = (with_c / without).replace([np.inf, -np.inf], np.nan).dropna()
        if len(ratio):
            rows.append({"k": k, "cache_saving": float(1 - ratio.median()), "seeds": len(ratio)})
    return pd.DataFrame(rows)


# --- what `wattlab reproduce yan-cc` writes -------------------------------------------------------

def setup_from(cfg, think_scale_s: float | None = None) -> WebSetup:
    """The browsing session of a reproduction ``Config`` (with another Pareto scale if given).
    The simulated time allows 20 times the session's mean length."""
    scale = cfg.web_think_scale_s if think_scale_s is None else think_scale_s
    mean_think = cfg.web_think_shape * scale / (cfg.web_think_shape - 1)
    return WebSetup(
        site_delays_ms=tuple(float(d) for d in cfg.web_site_delays_ms),
        hop_rate=f"{cfg.hop_rate_mbps:g}Mbps",
        pages=cfg.web_pages,
        think_shape=cfg.web_think_shape,
        think_scale_s=scale,
        max_connections=cfg.web_max_connections,
        duration_s=max(WebSetup.duration_s, 20.0 * cfg.web_pages * (mean_think + 1.0)),
    )


def multiserver_setup(cfg, loss: float) -> WebSetup:
    """The configured browsing session on the multi-server page model: the same sites, pages and
    think times, plus the third-party pool, with ``loss`` on every server's path."""
    import dataclasses

    return dataclasses.replace(setup_from(cfg), third_party_delays_ms=tuple(float(d) for d in cfg.web_third_party_delays_ms),
                               third_party_share=cfg.web_third_party_share,
                               third_party_hosts=tuple(int(h) for h in cfg.web_third_party_hosts), path_loss=loss)


def multiserver_name(loss: float) -> str:
    """A multi-server variant's name in the tables."""
    return "multi-server" if loss == 0 else f"multi-server, {100 * loss:g} % loss"


WEB_COUNTERS = ("agent_sleeps", "agent_dropped_asleep", "agent_reverted", "agent_connections")


def web_points(df: pd.DataFrame) -> pd.DataFrame:
    """``normalize_web`` (median energy and page time over baseline TCP per policy, plus the
    oracle) with the medians of the absolute numbers and the means of the agent's counters."""
    from .. import stats
    from ..runner import mean_ci

    norm = normalize_web(df)
    rows = []
    base = df[df.policy == "tcp"]
    for r in norm.itertuples():
        g = df[df.policy == r.policy] if r.policy != "oracle" else base.assign(energy_j=base.oracle_j)
        row = {"policy": r.policy, "energy_norm": r.energy_norm, "time_norm": r.time_norm,
               "saving": 1 - r.energy_norm, "slowdown": r.time_norm - 1, "seeds": len(g),
               "energy_j": float(g.energy_j.median()), "download_s": float(g.download_s.median()),
               "session_s": float(g.session_s.median()), "oracle_j": float(g.oracle_j.median()),
               "completed": bool(g.completed.all())}
        # The medians above are what the tables show; Fig. 9 draws the seeds' range around them
        # (``stats.interval`` of the median); the CSV also holds the mean and its 95 % CI.
        # The oracle row is baseline TCP's own run; another policy's seeds count where they did
        # TCP's work.
        g_ok = g if r.policy == "oracle" else g[same_work(df).loc[g.index]]
        per_seed = {"energy_norm": g_ok.set_index("seed").energy_j / base.set_index("seed").energy_j,
                    "time_norm": g_ok.set_index("seed").download_s / base.set_index("seed").download_s}
        for col, ratio in per_seed.items():
            iv = stats.interval(ratio.dropna(), stats.MEDIAN, stats.NON_NEGATIVE)
            row[f"{col}_lo"], row[f"{col}_hi"] = iv.lo, iv.hi
            row[f"{col}_mean"], row[f"{col}_ci"] = mean_ci(ratio.dropna())
        for c in WEB_COUNTERS:
            row[c] = float(g[c].mean()) if c in g.columns and r.policy != "oracle" and g[c].notna().any() else np.nan
        rows.append(row)
    return pd.DataFrame(rows)


def _saving(e: pd.Series, ref: pd.Series) -> float:
    """1 − median over seeds of e / ref (seeds where ref is 0 left out)."""
    ratio = (e / ref).replace([np.inf, -np.inf], np.nan).dropna()
    return float(1 - ratio.median()) if len(ratio) else np.nan


def web_concurrency(df: pd.DataFrame) -> pd.DataFrame:
    """Fig. 10 as a table: per number of busy connections k (0 = think time), the RTT cache's
    saving (``rtt_cache_by_concurrency``: 1 − E(cc)/E(cc-nocache), median over seeds) and the
    medians of the absolute energy of cc, cc-nocache and tcp and the time at that k, CC's share
    of its session energy and CC's saving against TCP at that k; then two rows with the same
    for every k ≥ 1 together (``downloads``) and for the whole session (``session``)."""
    df = _same_work_only(df)
    cc, nc = df[df.policy == "cc"].set_index("seed"), df[df.policy == "cc-nocache"].set_index("seed")
    tcp = df[df.policy == "tcp"].set_index("seed")
    if cc.empty or nc.empty:
        return pd.DataFrame(columns=["scope", "k", "cache_saving", "seeds", "cc_energy_j", "nocache_energy_j",
                                     "tcp_energy_j", "cc_time_s", "nocache_time_s", "cc_share_of_energy",
                                     "cc_saving_vs_tcp"])
    saving = rtt_cache_by_concurrency(df).set_index("k")
    ks = sorted({int(c[8:-2]) for c in df.columns if c.startswith("energy_k")})

    def col(frame: pd.DataFrame, name: str) -> pd.Series:
        return frame[name].fillna(0.0) if name in frame.columns else pd.Series(0.0, index=frame.index)

    rows = []
    for k in ks:
        rows.append({"scope": "k", "k": k,
                     "cache_saving": float(saving.cache_saving.get(k, np.nan)),
                     "seeds": int(saving.seeds.get(k, 0)),
                     "cc_energy_j": float(col(cc, f"energy_k{k}_j").median()),
                     "nocache_energy_j": float(col(nc, f"energy_k{k}_j").median()),
                     "tcp_energy_j": float(col(tcp, f"energy_k{k}_j").median()) if len(tcp) else np.nan,
                     "cc_time_s": float(col(cc, f"time_k{k}_s").median()),
                     "nocache_time_s": float(col(nc, f"time_k{k}_s").median()),
                     "cc_share_of_energy": float((col(cc, f"energy_k{k}_j") / cc.energy_j).median()),
                     "cc_saving_vs_tcp": _saving(col(cc, f"energy_k{k}_j"), col(tcp, f"energy_k{k}_j"))
                     if len(tcp) else np.nan})
    busy = [k for k in ks if k >= 1]
    for scope, keys in (("downloads", busy), ("session", ks)):
        e_cc = sum(col(cc, f"energy_k{k}_j") for k in keys)
        e_nc = sum(col(nc, f"energy_k{k}_j") for k in keys)
        t_cc = sum(col(cc, f"time_k{k}_s") for k in keys)
        t_nc = sum(col(nc, f"time_k{k}_s") for k in keys)
        e_tcp = sum(col(tcp, f"energy_k{k}_j") for k in keys) if len(tcp) else None
        rows.append({"scope": scope, "k": np.nan, "cache_saving": _saving(e_cc, e_nc),
                     "seeds": int((e_nc > 0).sum()), "cc_energy_j": float(e_cc.median()),
                     "nocache_energy_j": float(e_nc.median()),
                     "tcp_energy_j": float(e_tcp.median()) if e_tcp is not None else np.nan,
                     "cc_time_s": float(t_cc.median()), "nocache_time_s": float(t_nc.median()),
                     "cc_share_of_energy": float((e_cc / cc.energy_j).median()),
                     "cc_saving_vs_tcp": _saving(e_cc, e_tcp) if e_tcp is not None else np.nan})
    out = pd.DataFrame(rows)
    out["k"] = out["k"].astype("Int64")
    return out


def main_think(df: pd.DataFrame | None, cfg) -> pd.DataFrame:
    """The rows of a web table with the configured think times (not a sensitivity run)."""
    if df is None or df.empty or "think_scale_s" not in df.columns:
        return pd.DataFrame() if df is None else df
    return df[np.isclose(df.think_scale_s, cfg.web_think_scale_s)]


def web_sites(df: pd.DataFrame) -> pd.DataFrame:
    """Fig. 11 per site: for each site (page origin) CC's and the oracle's saving against
    baseline TCP over that site's page views and think times (1 − median over seeds of the
    per-seed energy ratio) and CC's slowdown of the site's page loads (median of per-seed
    load-time ratios − 1); only seeds where CC did TCP's work."""
    cols = ["site", "cc_saving", "oracle_saving", "cc_slowdown", "nocache_saving", "seeds"]
    if df is None or df.empty or not (df.policy == "tcp").any() or not (df.policy == "cc").any():
        return pd.DataFrame(columns=cols)
    df = df[same_work(df) | (df.policy == "tcp")]
    tcp = df[df.policy == "tcp"].set_index("seed")
    cc = df[df.policy == "cc"].set_index("seed")
    nc = df[df.policy == "cc-nocache"].set_index("seed")
    sites = sorted(c[len("site_energy_"):-2] for c in df.columns if c.startswith("site_energy_"))
    rows = []
    for s in sites:
        e, o, t = f"site_energy_{s}_j", f"site_oracle_{s}_j", f"site_load_{s}_s"
        rows.append({"site": s, "cc_saving": _saving(cc[e], tcp[e]),
                     "oracle_saving": _saving(tcp[o], tcp[e]) if o in tcp.columns else np.nan,
                     "cc_slowdown": -_saving(cc[t], tcp[t]) if t in cc.columns else np.nan,
                     "nocache_saving": _saving(nc[e], tcp[e]) if len(nc) else np.nan,
                     "seeds": int(cc[e].notna().sum())})
    return pd.DataFrame(rows, columns=cols)
