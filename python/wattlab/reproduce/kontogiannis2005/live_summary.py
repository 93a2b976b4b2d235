"""``--live``'s side of the reproduction contract: its files, tables, verdicts, figure and
summary.md sections (live.py measures, live_claims.py judges)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from ... import markdown as md
from ..framework import Context, Info, run_heading
from . import live, live_claims, live_figures
from .config import Config

FILES = ("live_provenance.json", "live_path.toml", "live_runs.csv", "live_points.csv", "live_sim_path_runs.csv",
         "live_sim_path_points.csv", "live_sim_dack_points.csv", "live_sim_channel_points.csv", "live_vs_sim.csv", "live_variants.csv", "live_fig.png")
"""What ``--live`` writes besides config.json, claims.csv and summary.md (each run's files in ``live/``)."""
RULE = live_claims.RULE

LINUX_VS_NS2 = [
    "Where Linux's TCP differs from the ns-2 agents the paper ran (ns-2's one-way `Agent/TCP`, `/Reno`, `/Newreno`, "
    "`/Sack1`, `/Vegas`, and the UCLA Westwood agent), whatever the congestion-control module:",
    "- **Loss recovery is the stack's, not the module's.** A Linux module sets only the window's growth and its "
    "reduction (`ssthresh`); detection and repair are shared: NewReno partial-ACK recovery without SACK, the SACK "
    "scoreboard (RFC 6675-like) with it, RACK-TLP (RFC 8985) time-based loss detection and tail-loss probes, "
    "Proportional Rate Reduction (RFC 6937) during recovery, F-RTO (RFC 5682) spurious-timeout detection, D-SACK "
    "undo. ns-2's agents each implement their own recovery (Reno leaves recovery on the first new ACK; Tahoe returns "
    "to one segment). Hence no live Tahoe or ns-2 Reno.",
    "- **No SACK in ns-2's one-way agents** except `Sack1`: the live `newreno`, `vegas`, `westwood` and `cubic` rows run "
    "with `tcp_sack = 0` as the simulator's, the live `sack` row with SACK on.",
    "- **Timers.** ns-2 rounds its RTO to a 10 ms `tcpTick_` (500 ms in older defaults) with `minrto_` 1 s (200 ms "
    "from ns-2.28); Linux measures RTT in microseconds and its RTO is SRTT + max(RTTVAR·4, `rto_min`) roughly "
    "(`rttvar` never below `rto_min`), here `rto_min` = 1 s on the route as the simulator's `tcp.min_rto`; Linux also "
    "backs off exponentially and caps at 120 s.",
    "- **ACKs.** ns-2's one-way sinks ACK every segment (the reproduction's `delayed_ack = false`); Linux's receiver "
    "ACKs every segment only in quick-ACK mode (start of a connection, after out-of-order data) and otherwise every "
    "second segment or after up to 40 ms; it cannot be switched off per namespace.",
    "- **Initial window and MSS.** Set as the simulator's: `initcwnd 2` and `advmss` = 1024 B on the routes; window "
    "clamp 20 segments (ns-2's `window_`).",
    "- **Vegas** (`tcp_vegas.c`) changes only congestion avoidance; it keeps Linux's recovery and timers (no Vegas "
    "fine-grained retransmission check on duplicate ACKs as ns-2's and wattlab's Vegas have). **Westwood+** "
    "(`tcp_westwood.c`) samples bandwidth once per RTT, not per ACK as the original Westwood the paper cites.",
    "- **CUBIC** is not in the paper: Linux's default (with HyStart), run for what a phone's kernel does.",
]
"""summary.md's section on Linux against ns-2 (documented differences; which of them moves a number
is what the live-vs-sim table measures, not these sentences)."""


def tables(cfg: Config, ctx: Context) -> dict[str, pd.DataFrame]:
    """The live sweep and its simulated twins (:func:`live.tables`)."""
    return live.tables(cfg, ctx)


def claims(tables_: dict[str, pd.DataFrame]):
    """R1.1–R1.8 on the live points, L1 and L2 (:mod:`live_claims`)."""
    return live_claims.judge(tables_)


def figures(cfg: Config, tables_: dict[str, pd.DataFrame], out: Path) -> list[Path]:
    """``live_fig.png``."""
    return [live_figures.figure(cfg, tables_, out)]


def _text(x) -> str:
    """A text cell as written, or empty (a CSV read back gives NaN for an empty one)."""
    return x if isinstance(x, str) else ""


def _f(x, fmt: str, scale: float = 1.0) -> str:
    return "—" if x is None or not np.isfinite(x) else format(x * scale, fmt)


def summary(cfg: Config, t: dict[str, pd.DataFrame], info: Info) -> list[str]:
    """summary.md's sections of a live run."""
    runs = t["live_runs.csv"]
    prov_line = ""
    ok = runs[runs.completed.astype(bool)] if len(runs) else runs
    if len(runs):
        prov_line = (f"Live runs: {len(ok)} of {len(runs)} completed, {int(ok.verified.astype(bool).sum()) if len(ok) else 0} "
                     f"verified by SHA-256; load average (1 min) {runs.load1_before.min():.1f}–{runs.load1_before.max():.1f} "
                     f"at their starts; emulator verdicts at most {ok.host_late_max_ms.max() if len(ok) else float('nan'):.1f} ms "
                     f"late; live wall time {runs.run_wall_s.sum():.0f} s.")
    side = t["live_vs_sim.csv"]
    rows = []
    for r in side.itertuples():
        rows.append([r.variant, r.model, f"{100 * r.per:g} %", _f(r.goodput_bps_live, ".0f", 1e-3),
                     _f(r.goodput_bps_sim_path, ".0f", 1e-3), _f(getattr(r, "goodput_bps_sim_dack", float("nan")), ".0f", 1e-3),
                     _f(r.goodput_bps_sim_channel, ".0f", 1e-3),
                     _f(r.goodput_live_over_sim - 1.0, "+.0f", 100.0) + " %" if np.isfinite(r.goodput_live_over_sim) else "—",
                     _f(r.eee_live, ".3f"), _f(r.eee_sim_path, ".3f"), _f(r.eee_sim_channel, ".3f"),
                     _f(r.energy_j_live, ".1f"), _f(r.energy_j_sim_path, ".1f")])
    v = t["live_variants.csv"]
    return [
        f"{run_heading(cfg, info, 'simulations (the live runs are in live_runs.csv)')}; {cfg.seeds} seed(s) per point; "
        f"error rates {', '.join(f'{100 * p:g} %' for p in cfg.live_per)}; errors {', '.join(cfg.live_models)}; "
        f"{cfg.live_bytes / 2**20:g} MiB per transfer.", "", prov_line, "",
        "## Setup", "",
        "- Live path (`live_path.toml`, docs/live.md): server ⇄ 100 Mb/s wired link ⇄ AP ⇄ 2 Mb/s hop ⇄ client, through "
        f"the testbed's userspace emulator. Each hop frame costs {live.hop_overhead_s(cfg) * 1e6:.1f} µs plus its IP bytes "
        "at 2 Mb/s (the collision-free DSSS DCF exchange of the reproduction's channel), half duplex, 50-packet queues; "
        f"Thr_max = {live.thr_max_bps(cfg) / 1e3:.1f} kb/s for 1064-byte packets.",
        "- Errors on both directions of the hop, drawn per packet after serialization by the simulator's own loss "
        "processes (Bernoulli; Gilbert–Elliott [[0.95, 0.05], [0.10, 0.90]], bad state losing PER, the reproduction's "
        f"`{cfg.per_reading}` reading).",
        f"- TCP as the reproduction's: {cfg.segment_bytes}-byte segments, window {cfg.window_segments} segments, initial "
        f"window 2, minimum RTO {cfg.min_rto_ms:g} ms, no timestamps; the server sends, the client receives.",
        "- Energy: the client's OriNOCO radio, always on, over the connection, charged as the simulator's hop charges "
        "it (idle power for the time, receive and transmit power over idle for the hop's busy time each way, a frame "
        "costing its exchange whether lost or not); live from the emulator's busy times (`energy_j`; the trace "
        "analyzer's IP-bytes-only costing of the capture is `energy_capture_j` in live_runs.csv). The paper measures the sender's radio; in both live and "
        "simulated runs here it is the receiving station's, so the two compare like with like.",
        "- Simulated twins: *sim, path* = the same scenario file and overrides on the simulator (only the TCP differs); "
        "*sim, channel* = the reproduction's Experiment 1 on its 802.11 DCF channel for the same variant, errors, size and "
        "seeds.", "",
        "## Variants", "",
        *md.frame(v, {"variant": "variant", "Linux module": lambda r: _text(r["linux_module"]),
                      "SACK": lambda r: "" if r["sack"] is None or r["sack"] != r["sack"] else ("on" if r["sack"] else "off"),
                      "ran live": lambda r: "yes" if r["runs_live"] else "no", "why not / what Linux does":
                      lambda r: _text(r["reason"]) or _text(r["linux"])}), "",
        "## Live beside the simulator", "",
        *md.table(["variant", "errors", "PER", "goodput live (kb/s)", "sim, path", "sim, path, delayed ACK", "sim, channel",
                   "live vs sim path",
                   "3E live", "3E sim, path", "3E sim, channel", "energy live (J)", "energy sim, path (J)"], rows), "",
        f"- {delayed_ack_sentence(side)}", "",
        "## Linux's TCP against ns-2's", "", *LINUX_VS_NS2,
    ]


def delayed_ack_sentence(side: pd.DataFrame) -> str:
    """Whether Linux's delayed ACKs explain the live-vs-sim goodput gap on the same path, from
    the delayed-ACK twin (thresholds: ``verdict.EXPLAINS_MOST`` / ``EXPLAINS_PART``)."""
    from ..verdict import EXPLAINS_MOST, EXPLAINS_PART

    share, n = live.delayed_ack_share(side)
    if n == 0:
        return ("Hypothesis (delayed ACKs): not tested, no point with a live-vs-sim goodput gap of 2 % or more and all "
                "three runs.")
    word = ("explain most of" if share >= EXPLAINS_MOST else "explain part of" if share >= EXPLAINS_PART
            else "do not explain")
    return (f"Hypothesis (delayed ACKs): the receiver's delayed ACKs (the simulator with `delayed_ack = true`, 40 ms, "
            f"as Linux's after its quick-ACK start: half the ACK frames on the half-duplex hop) **{word}** the live-vs-sim "
            f"goodput gap on the same path: median share closed {100 * share:.0f} % over {n} point(s) with a gap ≥ 2 % "
            "(share = 1 − |ln(G_live/G_dack)| / |ln(G_live/G_sim)|; most from 50 %, part from 10 %).")


def provenance(out: Path) -> dict:
    """``live_provenance.json`` as written."""
    return json.loads((out / "live_provenance.json").read_text())
