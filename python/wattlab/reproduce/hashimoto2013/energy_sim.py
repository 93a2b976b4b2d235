"""Paper 002 Ch. 3 in the simulator: one upstream TCP transfer over 802.11a, costed with the
client sleeping exactly between its frames (accounting policy ``ideal-sleep``: every gap that
holds the AR5004's transitions, as Eq. 3.25/3.32) and always awake (``always-on``), with the
receiver ACKing every m packets (``tcp.ack_every``), next to the analytic model
(:mod:`wattlab.models.tcp_energy`) evaluated with the same inputs.

The point (p, RTT, m) is set up so that the model's assumptions hold wherever the simulator
can make them hold (docs/models.md, "Model vs simulator"):

- one client, no contention, no frame errors (q = 0): the MAC model's per-attempt times are
  then exact, and we give the model the simulator's frame timing (OFDM symbols, control
  frames at 24 Mb/s, 28-byte MAC header + FCS);
- TCP-level losses with probability p on the wired link, data direction only (the thesis's
  p_l; no ACK is lost in the wired network);
- RTT = the path's base round trip: wired propagation + one data and one ACK exchange on the
  air + the wired serialisation;
- Reno, 1460-byte MSS without timestamps (1500-byte packets, 40-byte ACKs as the thesis),
  initial window w_1 = 2, RTO floor 1 s (T_0 = 1 s in the model), a receive window that never
  limits;
- the energy window is the model's: from the first data packet to the ACK of the last one
  (the handshake and FIN are taken out, below).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from wattlab.models import tcp_energy as te
from wattlab.scenario_units import Duration, Size

from .. import runner
from ..framework import Context
from ..scenarios import base

PROFILE = "atheros-ar5004"
POLICIES = ("always-on", "ideal-sleep", "oracle")
MSS = 1460  # no timestamps: 1460 B of data in a 1500 B packet
W1 = 2
MIN_RTO_S = 1.0
WIRED_BPS = 100e6


@dataclass(frozen=True)
class Point:
    """One grid point: loss probability p, base RTT (s), ACK every m packets."""

    p: float
    rtt_s: float
    m: int
    bytes: int = 1 << 20  # S_d of data (payload bytes)


def sim_mac() -> te.Mac80211a:
    """The model's MAC with the simulator's 802.11a frame timing, from the core
    (``Mac80211a.for_phy``): OFDM symbols, control frames at the highest basic rate not above
    54 Mb/s (24 Mb/s), MAC header + FCS 28 bytes, LLC/SNAP 8."""
    return te.Mac80211a.for_phy("802.11a", 54_000)


def model_inputs(pt: Point) -> dict:
    """Keyword arguments of :func:`wattlab.models.tcp_energy.energy` for ``pt``."""
    tr = te.Transfer(file_bytes=pt.bytes * 1500 / MSS, data_bytes=1500, ack_bytes=40, w1=W1, t0_s=MIN_RTO_S)
    return dict(p=pt.p, rtt_s=pt.rtt_s, q=0.0, m=pt.m, mac=sim_mac(), wni=te.Wni.from_profile(PROFILE), tr=tr)


def air_rtt_s() -> float:
    """One data exchange (RTS/CTS/data/ACK with DIFS and mean backoff) and one TCP-ACK
    exchange on the air, plus the wired serialisation of both packets."""
    mt = te.mac_times(0.0, mac=sim_mac(), wni=te.Wni.from_profile(PROFILE))
    return float(mt["t_t"] + mt["t_r"]) + (1500 + 40) * 8 / WIRED_BPS


BASE = base(__package__, "energy.toml")
"""The one-flow path every grid point shares."""


def overrides(pt: Point, seed: int = 1) -> list[tuple[str, Any]]:
    """Grid point ``pt``'s overrides: the wired delay that makes its RTT (to the nanosecond), p,
    m and the bytes."""
    one_way = (pt.rtt_s - air_rtt_s()) / 2
    if one_way <= 0:
        raise ValueError(f"RTT {pt.rtt_s} s is below the air time of one exchange")
    tcp = {"cc": "reno", "mss": MSS, "timestamps": False, "initial_cwnd": W1, "min_rto": Duration.s(MIN_RTO_S),
           "recv_buffer": Size.mb(16), "window_scale": 10, "ack_every": pt.m}
    return [("name", f"hashimoto-ch3-p{pt.p}-rtt{pt.rtt_s}-m{pt.m}"), ("simulation.seed", seed),
            ("node.client.radio", {"profile": PROFILE, "policies": list(POLICIES)}),
            ("link.wired.delay", Duration(round(one_way * 1e9))),
            ("link.wired.a_to_b", {"loss": {"model": "bernoulli", "p": pt.p}}),
            ("flow.0.bytes", pt.bytes), ("flow.0.tcp", tcp)]


def run_point(pt: Point, seed: int = 1) -> dict:
    """Simulate ``pt`` once: the client's energy in the model's window, per policy."""
    return measure_point(pt, seed, BASE.run(overrides=overrides(pt, seed)))


def job(pt: Point, seed: int) -> runner.Job:
    """Grid point ``pt`` with ``seed`` as a :class:`runner.Job` for :func:`measure`."""
    return BASE.job(seed, {"p": pt.p, "rtt_s": pt.rtt_s, "m": pt.m, "bytes": pt.bytes}, overrides(pt, seed))


def measure(job: runner.Job, res) -> dict:
    """:func:`measure_point` of a :func:`job`'s result (without the labels it already has)."""
    lab = job.labels
    row = measure_point(Point(lab["p"], lab["rtt_s"], lab["m"], lab["bytes"]), job.seed, res)
    return {k: v for k, v in row.items() if k not in ("p", "rtt_s", "m", "seed")}


def measure_point(pt: Point, seed: int, res) -> dict:
    """The client's energy of one run of ``pt`` in the model's window, per policy.

    The simulator's per-flow energy runs from the flow's start to its completion (the server
    has the last byte). The model counts from the first data packet to the ACK of the last
    one, so we take out the handshake (idle, or one sleep with its transitions) and add the
    last ACK's half round trip (idle, or a sleep with its transitions and the ACK's reception).
    """
    f = res.flows.iloc[0]
    if not bool(f["completed"]):
        raise RuntimeError(f"{pt} seed {seed}: the transfer did not complete")
    fe = res.flow_energy.set_index("policy")
    wni = te.Wni.from_profile(PROFILE)
    p_l, p_s = wni.p_idle, wni.p_sleep
    hs = float(f["connected_s"])
    half = pt.rtt_s / 2
    e_r = float(te.mac_times(0.0, mac=sim_mac(), wni=wni)["e_r"])
    out = {"p": pt.p, "rtt_s": pt.rtt_s, "m": pt.m, "seed": seed,
           "sim_s": float(f["completion_time_s"]) - hs + half,
           "timeouts": int(f["timeouts"]), "fast_retransmits": int(f["fast_retransmits"]),
           "retransmitted": int(f["retransmitted_segments"])}
    for pol in POLICIES:
        e = float(fe.loc[pol, "to_completion_j"])
        if pol == "always-on":
            e += p_l * (half - hs)
        else:
            e += p_s * (half - hs) + e_r  # one sleep (with its transitions) out, one in
        out[f"sim_{pol}_j"] = e
    return out


def model_point(pt: Point) -> dict:
    """The model's E[J_cam], E[J_sleep], R_energy and E[T^all] at ``pt``."""
    d = te.energy(detail=True, **model_inputs(pt))
    return {"model_cam_j": float(d["j_cam"]), "model_sleep_j": float(d["j_sleep"]),
            "model_r_energy": float(d["r_energy"]), "model_s": float(d["t_all"])}


def compare(points, seeds=range(1, 6), workers: int = 1, console=None) -> pd.DataFrame:
    """Model vs simulator, one row per point: the simulated energies averaged over ``seeds``
    and the relative errors (model − sim)/sim in percent."""
    return compare_runs(runs(points, seeds, Context(workers, console, Path("."))), points)


def runs(points, seeds, ctx: Context) -> pd.DataFrame:
    """Every (point, seed) simulated: one row each (:func:`measure_point`'s columns)."""
    df = ctx.run([job(pt, s) for pt in points for s in seeds], measure, "Ch. 3 model vs simulator")
    return df.drop(columns=["bytes"])


def compare_runs(sim_runs: pd.DataFrame, points) -> pd.DataFrame:
    """:func:`compare` from the runs already made (:func:`runs`)."""
    rows = []
    for pt in points:
        sims = sim_runs[(sim_runs["p"] == pt.p) & (sim_runs["rtt_s"] == pt.rtt_s) & (sim_runs["m"] == pt.m)]
        row = {"p": pt.p, "rtt_ms": pt.rtt_s * 1e3, "m": pt.m, "seeds": len(sims)}
        row.update(model_point(pt))
        for c in ["sim_s", "sim_always-on_j", "sim_ideal-sleep_j", "sim_oracle_j", "timeouts"]:
            row[c.replace("-", "_")] = float(sims[c].mean())
        row["cam_err_pct"] = 100 * (row["model_cam_j"] / row["sim_always_on_j"] - 1)
        row["sleep_err_pct"] = 100 * (row["model_sleep_j"] / row["sim_ideal_sleep_j"] - 1)
        row["time_err_pct"] = 100 * (row["model_s"] / row["sim_s"] - 1)
        row["sim_r_energy"] = row["sim_ideal_sleep_j"] / row["sim_always_on_j"]
        rows.append(row)
    return pd.DataFrame(rows)


GRID = [Point(p, rtt, m) for p in (0.001, 0.01, 0.05) for rtt in (0.02, 0.1, 0.2) for m in (1, 2, 5)]
