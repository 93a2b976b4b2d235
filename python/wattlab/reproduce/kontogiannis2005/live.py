"""Paper 003's single-flow experiment live (``wattlab reproduce kontogiannis2005 --live``): one
bulk transfer per (variant, error model, error rate, seed) on real Linux TCP through the live
testbed's emulated 2 Mb/s hop (``live_path.toml``), beside

- the simulator on the same path (the same scenario file and overrides, wattlab's TCP), and
- the simulator on the reproduction's own channel (802.11 DSSS DCF, ``channel.toml``; the
  numbers of ``exp1_points.csv`` for the same variant, errors and size).

Goodput = delivered bytes over the connection's time; throughput = the sender's IP bytes
(headers and retransmissions: live, what the emulator's server-side link carried) over the same
time; Thr_max = the hop's capacity for the paper's 1064-byte packets (one DCF exchange per
packet: a saturating UDP sender's throughput on this hop, which loses packets after sending
them); 3E as in the reproduction. Energy = the client's OriNOCO radio, always on, over the
connection, charged as the simulator's hop charges it (:func:`hop_energy`; the trace analyzer's
costing of the capture beside it).

Every run records the load average before and after it (the machine is shared) and the
emulator's worst verdict lateness; the kernel's release and TCP sysctls go to
``live_provenance.json``.
"""

from __future__ import annotations

import json
import math
import os
import time
from dataclasses import replace
from pathlib import Path
from typing import Callable

import pandas as pd

from wattlab import api, metrics
from wattlab.scenario_units import Duration

from ..framework import Context
from ..runner import aggregate
from ..scenarios import base, strings
from . import experiments, live_kernel, scenario
from .config import Config

BASE = base(__package__, "live_path.toml")
"""The emulated path every live run and its simulated twin share."""
HOP_PHY, HOP_RATE_KBPS = "dsss-2mbps", 2000
"""The paper's channel: 802.11 DSSS at 2 Mb/s (the reproduction's ``channel.toml``)."""
COLUMNS = ("goodput_bps", "throughput_bps", "eee", "energy_j", "time_s", "overhead", "retransmitted_segments",
           "loss_down", "loss_up", "host_late_max_ms")
"""What each live and simulated point aggregates."""


def ip_bytes(cfg: Config) -> int:
    """IP length of a full segment: the paper's 1024-byte packets plus 40 B of headers."""
    return cfg.segment_bytes + scenario.HEADER_BYTES


def exchange_s(ip: int) -> float:
    """Channel time of one collision-free DSSS exchange carrying ``ip`` IP bytes at 2 Mb/s."""
    from wattlab import physics

    return float(physics.exchange_s(HOP_PHY, [ip], HOP_RATE_KBPS)[0])


def hop_overhead_s(cfg: Config) -> float:
    """The hop's per-frame overhead: the DSSS exchange (DIFS, mean backoff, PLCP, MAC header and
    LLC/SNAP, SIFS, MAC ACK at 1 Mb/s) minus the IP bytes' own time at 2 Mb/s. DSSS has no symbol
    rounding, so it is the same for a data segment and a TCP ACK."""
    ip = ip_bytes(cfg)
    return exchange_s(ip) - ip * 8 / (HOP_RATE_KBPS * 1e3)


def thr_max_bps(cfg: Config) -> float:
    """Thr_max on the emulated hop: back-to-back full-size packets, one exchange each."""
    ip = ip_bytes(cfg)
    return ip * 8 / exchange_s(ip)


LINUX_DELACK_MIN_MS = 40.0
"""Linux's shortest delayed-ACK timer (``TCP_DELACK_MIN`` = HZ/25): the simulator's
``tcp.delayed_ack_timeout`` in the delayed-ACK twin."""


def tcp_table(variant: str, cfg: Config, delayed_ack: bool = False) -> dict:
    """The flow's TCP, as the reproduction's (ns-2 agents: no timestamps, no delayed ACK, window
    20 segments, initial window 2, minimum RTO), with SACK as the live variant has it. With
    ``delayed_ack`` the receiver delays ACKs as Linux's does after its quick-ACK start (every
    second segment, else after 40 ms): the simulated twin that tests whether Linux's ACKs
    explain a live-vs-sim gap."""
    lv = live_kernel.LIVE_VARIANTS[variant]
    t = {"cc": variant, "sack": lv.sack, "mss": cfg.segment_bytes, "timestamps": False, "delayed_ack": delayed_ack,
         "recv_buffer": cfg.window_segments * cfg.segment_bytes, "initial_cwnd": 2, "min_rto": Duration.ms(cfg.min_rto_ms)}
    if delayed_ack:
        t["delayed_ack_timeout"] = Duration.ms(LINUX_DELACK_MIN_MS)
    return t


def overrides(variant: str, model: str, per: float, cfg: Config, delayed_ack: bool = False) -> list[tuple[str, object]]:
    """One run of the path: the hop's overhead and errors (both directions, the reproduction's
    loss processes), the flow's size and TCP (:func:`tcp_table`)."""
    loss = scenario.loss_table(model, per, cfg)
    ov: list[tuple[str, object]] = [
        ("name", f"kontogiannis2005-live-{variant}-{model}-{100 * per:g}pct"),
        ("wireless.0.mac_overhead", Duration.us(round(hop_overhead_s(cfg) * 1e6, 3))),
        ("flow.0.bytes", cfg.live_bytes),
        ("flow.0.tcp", tcp_table(variant, cfg, delayed_ack)),
    ]
    if loss:
        ov += [("wireless.0.down.loss", loss), ("wireless.0.up.loss", loss)]
    return ov


def _settings(cfg: Config) -> list[tuple[str, float]]:
    return [(m, p) for m in cfg.live_models for p in cfg.live_per]


# --- the simulator on the same path ---------------------------------------------------------


def _measure_sim(job, res: api.RunResult) -> dict:
    (row,) = experiments._flow_rows(res)
    return {"time_s": row["time_s"], "goodput_bps": row["goodput_bps"], "throughput_bps": row["throughput_bps"],
            "sender_bytes": row["sender_bytes"], "delivered_bytes": row["delivered_bytes"], "completed": row["completed"],
            "retransmitted_segments": int(res.summary["flows"][0]["retransmitted_segments"]),
            "timeouts": row["timeouts"], "energy_j": res.energy("always-on", "client"), "verified": True,
            "host_late_max_ms": 0.0}


def simulate_path(cfg: Config, variants: list[str], ctx: Context, delayed_ack: bool = False) -> pd.DataFrame:
    """wattlab's TCP on the live path: the same scenario and overrides as the live runs (with
    ``delayed_ack``, the receiver delaying ACKs as Linux's does)."""
    jobs = [BASE.job(seed, {"variant": v, "model": m, "per": p}, overrides(v, m, p, cfg, delayed_ack))
            for m, p in _settings(cfg) for v in variants for seed in cfg.seed_list()]
    return ctx.run(jobs, _measure_sim, "simulator on the live path" + (", delayed ACKs" if delayed_ack else ""))


def simulate_channel(cfg: Config, variants: list[str], ctx: Context) -> pd.DataFrame:
    """The reproduction's Experiment 1 (802.11 DCF channel) for the same variants, errors,
    error rates, size and seeds: its per-point means."""
    c = replace(cfg, variants=list(variants), exp1_bytes=cfg.live_bytes)
    _, points, _ = experiments.experiment1(c, ctx, models=tuple(cfg.live_models), pers=list(cfg.live_per),
                                           label="simulator on the paper's channel")
    return points


# --- live -------------------------------------------------------------------------------------


def _window_energy(res) -> float:
    """The client's always-on energy over the connection: the costed capture's energy minus
    idle power for the capture's time outside the connection (setup before ``connect``, the
    wait after the server's FIN); the packets outside it are the handshake's and the close's."""
    e = res.energy.energy
    row = e[e.policy == "always-on"].iloc[0]
    outside = max(0.0, float(row.duration_s) - res.transfer_time_s)
    idle_w = float(row.energy_idle_j) / float(row.time_idle_s) if row.time_idle_s > 0 else 0.0
    return float(row.energy_j) - outside * idle_w


def hop_energy(path: dict, energy_row, transfer_s: float) -> float:
    """The client's always-on energy over the connection as the simulator's ``[[wireless]]`` hop
    charges it, from the live packets: idle power for the connection's time, plus receive power
    (over idle) for the downlink's busy time and transmit power for the uplink's, each frame
    costing ``mac_overhead`` + its IP bytes at the rate whether it was lost or not (the
    emulator's ``busy_ns``, the same accounting as the simulator's channel). The trace
    analyzer's ``link@2`` costing of the capture (IP bytes only, no MAC exchange) is kept as
    ``energy_capture_j``; powers are the profile's, read off its table."""
    p = lambda state: float(energy_row[f"energy_{state}_j"]) / float(energy_row[f"time_{state}_s"])  # noqa: E731
    idle = p("idle")
    busy = lambda ch: path[ch]["busy_ns"] / 1e9  # noqa: E731
    return idle * transfer_s + (p("rx") - idle) * busy("hop_down") + (p("tx") - idle) * busy("hop_up")


def _live_row(res, thr: float) -> dict:
    path = res.emulator["path"]
    t = res.transfer_time_s
    sent = int(path["wired_down"]["bytes_sent"])
    lost = lambda ch: path[ch]["losses"] / max(1, path[ch]["packets_sent"])  # noqa: E731
    return {"completed": True, "verified": res.verified, "linux_cc": res.server.get("cc", ""), "time_s": t,
            "goodput_bps": res.goodput_bps, "throughput_bps": sent * 8 / t if t > 0 else 0.0, "sender_bytes": sent,
            "delivered_bytes": int(res.fetch["bytes"]), "retransmitted_segments": int(res.server["retransmitted_segments"]),
            "srtt_ms": float(res.server.get("srtt_ms", 0.0)),
            "energy_j": hop_energy(path, res.energy.energy[res.energy.energy.policy == "always-on"].iloc[0], t),
            "energy_capture_j": _window_energy(res),
            "loss_down": lost("hop_down"), "loss_up": lost("hop_up"), "host_late_max_ms": res.host_late_max_ms,
            "wall_s": res.wall_time_s}


def run_live(cfg: Config, variants: list[str], out: Path, step: Callable[[str], None]) -> pd.DataFrame:
    """Every live run, one after another (they share the machine's two cores with nothing of
    ours), each in ``out/live/<variant>-<model>-<per>-s<seed>``; a run that fails or passes
    the time bound is a row with its error (the sweep goes on)."""
    from wattlab import live

    path = out / "live_path.toml"
    path.write_text(BASE.text, encoding="utf-8")
    thr = thr_max_bps(cfg)
    rows = []
    todo = [(m, p, v, s) for m, p in _settings(cfg) for v in variants for s in cfg.seed_list()]
    for i, (m, p, v, seed) in enumerate(todo, 1):
        tag = f"{v}-{m}-{100 * p:g}pct-s{seed}"
        step(f"live {i}/{len(todo)}: {tag}")
        ov = strings([*overrides(v, m, p, cfg), ("simulation.seed", seed)])
        load0, t0 = os.getloadavg(), time.monotonic()
        row = {"variant": v, "model": m, "per": p, "seed": seed}
        try:
            res = live.run(path, "always-on", out_dir=out / "live" / tag, overrides=ov, time_limit=cfg.live_time_limit_s,
                           overwrite=True)
            row.update(_live_row(res, thr))
            row["error"] = ""
        except live.LiveTimeLimit as e:
            row.update({"completed": False, "verified": False, "error": f"time limit: {e}"})
        except live.LiveError as e:
            row.update({"completed": False, "verified": False, "error": str(e)})
        row.update({"load1_before": load0[0], "load1_after": os.getloadavg()[0], "run_wall_s": time.monotonic() - t0})
        rows.append(row)
        pd.DataFrame(rows).to_csv(out / "live_runs.partial.csv", index=False)  # survives an interrupted sweep
    return pd.DataFrame(rows)


def with_eee(runs: pd.DataFrame, cfg: Config) -> pd.DataFrame:
    """3E and overhead per run against the path's Thr_max (rows without a completed transfer keep NaN)."""
    runs = runs.copy()
    thr = thr_max_bps(cfg)
    runs["thr_max_bps"] = thr
    ok = runs.get("completed", pd.Series(True, index=runs.index)).astype(bool)
    runs["eee"] = [metrics.eee(r.throughput_bps, r.goodput_bps, thr, cfg.alpha, cfg.b) if good else float("nan")
                   for r, good in zip(runs.itertuples(), ok)]
    runs["overhead"] = [metrics.overhead(r.sender_bytes, r.delivered_bytes) if good else float("nan")
                        for r, good in zip(runs.itertuples(), ok)]
    for c in COLUMNS:
        if c not in runs:
            runs[c] = float("nan")
    return runs


def points(runs: pd.DataFrame, cfg: Config) -> pd.DataFrame:
    """Means over seeds per (variant, error model, error rate), completed runs only."""
    done = runs[runs["completed"].astype(bool)] if "completed" in runs else runs
    if done.empty:
        return pd.DataFrame(columns=["model", "variant", "per", *COLUMNS])
    return aggregate(done, ["model", "variant", "per"], list(COLUMNS), experiments.domains(cfg))


def side_by_side(live_p: pd.DataFrame, path_p: pd.DataFrame, chan_p: pd.DataFrame,
                 dack_p: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per (variant, errors, error rate): goodput, 3E and energy live, simulated on the
    live path (and with delayed ACKs, ``_sim_dack``) and simulated on the paper's channel, with
    live/sim ratios on the same path."""
    keys = ["variant", "model", "per"]
    pick = lambda p, sfx, cols: p[keys + cols].rename(columns={c: f"{c}_{sfx}" for c in cols})  # noqa: E731
    cols = ["goodput_bps", "eee", "energy_j", "time_s"]
    df = pick(path_p, "sim_path", cols).merge(pick(live_p, "live", cols + ["retransmitted_segments", "host_late_max_ms"]),
                                              on=keys, how="left")
    df = df.merge(pick(chan_p, "sim_channel", ["goodput_bps", "eee", "energy_j"]), on=keys, how="left")
    if dack_p is not None and not dack_p.empty:
        df = df.merge(pick(dack_p, "sim_dack", ["goodput_bps", "eee"]), on=keys, how="left")
    df["goodput_live_over_sim"] = df.goodput_bps_live / df.goodput_bps_sim_path
    df["eee_live_minus_sim"] = df.eee_live - df.eee_sim_path
    return df.sort_values(keys).reset_index(drop=True)


def tables(cfg: Config, ctx: Context, step: Callable[[str], None] | None = None) -> dict[str, pd.DataFrame]:
    """The live sweep and its two simulated twins: live_runs.csv, live_points.csv,
    live_sim_path_runs.csv, live_sim_path_points.csv, live_sim_channel_points.csv,
    live_vs_sim.csv and live_variants.csv (which variants ran, and why the others did not);
    live_provenance.json beside them."""
    step = step or (lambda s: ctx.console.log(s) if ctx.console else None)
    avail = {v: live_kernel.availability(v) for v in cfg.live_variants}
    ran = [v for v, why in avail.items() if why is None]
    notes = [{"variant": v, "linux_module": live_kernel.LIVE_VARIANTS[v].module if v in live_kernel.LIVE_VARIANTS else "",
              "sack": live_kernel.LIVE_VARIANTS[v].sack if v in live_kernel.LIVE_VARIANTS else None,
              "runs_live": why is None, "reason": why or "", "linux": live_kernel.LIVE_VARIANTS[v].linux
              if v in live_kernel.LIVE_VARIANTS else ""} for v, why in avail.items()]
    notes += [{"variant": v, "linux_module": "", "sack": None, "runs_live": False, "reason": why, "linux": ""}
              for v, why in live_kernel.NOT_LIVE.items() if v not in avail]
    prov = {**live_kernel.provenance(), "thr_max_bps": thr_max_bps(cfg), "hop_overhead_us": hop_overhead_s(cfg) * 1e6,
            "variants": notes}
    started = time.monotonic()
    if ran:
        from wattlab.live import LiveError, require_root

        try:
            require_root()  # before the simulations: a user without root learns it at once
        except LiveError as e:
            raise ValueError(f"--live: {e}") from None  # the CLI's bad-input exit (2), one line
    sim_variants = list(cfg.live_variants)
    path_runs = with_eee(simulate_path(cfg, sim_variants, ctx), cfg)
    dack_runs = with_eee(simulate_path(cfg, sim_variants, ctx, delayed_ack=True), cfg)
    chan = simulate_channel(cfg, sim_variants, ctx)
    live_runs = with_eee(run_live(cfg, ran, ctx.out, step), cfg) if ran else pd.DataFrame(
        columns=["variant", "model", "per", "seed", "completed", *COLUMNS])
    prov["live_wall_s"] = time.monotonic() - started
    prov["loadavg_after"] = list(os.getloadavg())
    (ctx.out / "live_provenance.json").write_text(json.dumps(prov, indent=2, default=str) + "\n")
    partial = ctx.out / "live_runs.partial.csv"
    if partial.exists():
        partial.unlink()
    live_p, path_p, dack_p = points(live_runs, cfg), points(path_runs, cfg), points(dack_runs, cfg)
    return {"live_runs.csv": live_runs, "live_points.csv": live_p, "live_sim_path_runs.csv": path_runs,
            "live_sim_path_points.csv": path_p, "live_sim_dack_points.csv": dack_p, "live_sim_channel_points.csv": chan,
            "live_vs_sim.csv": side_by_side(live_p, path_p, chan, dack_p), "live_variants.csv": pd.DataFrame(notes)}


def delayed_ack_share(side: pd.DataFrame) -> tuple[float, int]:
    """How much of the live-vs-sim goodput gap on the same path the simulator's delayed ACKs
    close: the median over points of 1 − |ln(G_live/G_dack)| / |ln(G_live/G_sim)| (points with
    a gap of at least 2 %), and the number of such points; (NaN, 0) without any."""
    need = {"goodput_bps_live", "goodput_bps_sim_path", "goodput_bps_sim_dack"}
    if not need <= set(side.columns):
        return float("nan"), 0
    d = side.dropna(subset=list(need))
    gap = (d.goodput_bps_live / d.goodput_bps_sim_path).map(lambda x: abs(math.log(x)))
    left = (d.goodput_bps_live / d.goodput_bps_sim_dack).map(lambda x: abs(math.log(x)))
    keep = gap >= math.log(1.02)
    if not keep.any():
        return float("nan"), 0
    return float((1.0 - left[keep] / gap[keep]).median()), int(keep.sum())
