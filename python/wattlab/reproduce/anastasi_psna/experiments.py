"""Run transfers A and B under each architecture and seed, and measure each run.

The card's energy is the client's radio meter (the power mode's meter, or ``always-on`` for
legacy TCP) from the application's request to the transfer's end: the meter up to the flow's
completion minus the same meter in a run of the path alone until the request (``prefix``)."""

from __future__ import annotations

import math

from typing import Any

import pandas as pd

from wattlab import _core
from wattlab.scenario_units import Duration, Size

from .. import runner
from ..framework import Context
from . import scenario
from .config import TRANSFERS, Config

_U = _core.psna_units()
PSNA_COLUMNS = ("polls", "sleeps", "radio_on_switches", "radio_on_s", "signalling_on_s", "burst_s",
                "first_residual_s", "residual_error_mean_s", "residual_error_max_s", "estimator_samples")
"""The PSNA flow's extra metrics the paper does not report, kept per run."""


def _policy(arch: str) -> str:
    return {"legacy": "always-on", "psna": "psna", "psm": "psm", "cc": "cc"}[arch]


def _meter(res, policy: str) -> float:
    r = res.radios
    row = r[(r["node"] == "client") & (r["policy"] == policy)]
    return float(row["energy_j"].iloc[0])


def measure(job: runner.Job, res) -> dict:
    """One run's row: the prefix's card energy, or the transfer's completion, bytes, energy to
    completion and the PSNA columns."""
    transfer, arch = job.labels["transfer"], job.labels["arch"]
    policy = _policy(arch)
    if job.labels["part"] == "prefix":
        return {"prefix_j": _meter(res, policy)}
    fe = res.flow_energy
    row = fe[(fe["flow"] == scenario.flow_name(transfer)) & (fe["node"] == "client") & (fe["policy"] == policy)]
    f = res.flows[res.flows["name"] == scenario.flow_name(transfer)].iloc[0]
    out = {
        "completed": bool(f["completed"]),
        "bytes": int(f["bytes_delivered"]),
        "completion_s": float(f["completion_time_s"]) if f["completion_time_s"] is not None else math.nan,
        "goodput_bps": float(f["goodput_bps"]),
        "to_completion_j": float(row["to_completion_j"].iloc[0]),
    }
    for c in PSNA_COLUMNS:
        v = f.get(c) if c in f.index else None
        out[c] = float(v) if v is not None and not (isinstance(v, float) and math.isnan(v)) else math.nan
    return out


SENSITIVITY = {
    # variant: (architectures, extra flow keys). "default" is the main experiment's PSNA.
    "alpha=0.5": (("psna",), {"psna": {"alpha": 0.5}}),
    "alpha=0.99": (("psna",), {"psna": {"alpha": 0.99}}),
    "min_packets=5": (("psna",), {"psna": {"min_packets": 5}}),
    "min_packets=20": (("psna",), {"psna": {"min_packets": 20}}),
    "mss=536": (("legacy", "psna"), {"tcp": {"mss": 536}, "psna": {"fh_segment_size": Size(536)}}),
}
"""Transfer B's sensitivity runs: the estimator's α and 10-packet rule, and the 536-byte MSS of
the paper's Linux 2.0 towards non-local hosts (with the daemon counting 536-byte packets)."""
SWITCH_J = (0.1, 1.0, 10.0)
"""Energies of one off → on cycle for the transition sensitivity (the paper gives none and the
profile has none), simulated by the card's meter: the client's radio gets an off → idle
transition of E / 1.77 W at the card's idle power 1.77 W (a card re-initialising and
re-associating at about its idle draw), carved out of the off interval (``switch_variant``)."""
IDLE_MW = next(p["power_mw"]["idle"] for p in _core.profiles() if p["name"] == "wavelan-turbo-2mbps")
"""The ``wavelan-turbo-2mbps`` profile's idle power (1770 mW, from the core), at which the
switch-on transition is drawn."""


def switch_variant(e_j: float) -> tuple[str, tuple[str, ...], dict[str, Any]]:
    """The sensitivity variant of a switch-on cost of ``e_j`` joules: (name, architectures, the
    client radio's ``transitions`` override; the duration to the nanosecond)."""
    ms = round(e_j / (IDLE_MW / 1e3) * 1e3, 6)
    over = [{"from": "off", "to": "idle", "duration": Duration.ms(ms), "power_mw": IDLE_MW}]
    return f"switch={e_j:g}J", ("psna",), {"transitions": over}


for _e in SWITCH_J:
    _name, _archs, _extra = switch_variant(_e)
    SENSITIVITY[_name] = (_archs, _extra)


def runs(cfg: Config, ctx: Context, sensitivity: bool = False) -> pd.DataFrame:
    """One row per (transfer, architecture, seed): card energy (J and battery-seconds), completion,
    the paper's Kbps and transfer length, and the PSNA columns. With ``sensitivity``, transfer B's
    variants of ``SENSITIVITY`` instead (column ``variant``)."""
    jobs = []
    cases = ([("B", a, v, extra) for v, (archs, extra) in SENSITIVITY.items() for a in archs] if sensitivity else
             [(t, a, "default", {}) for t in cfg.transfers for a in cfg.architectures])
    for t, a, v, extra in cases:
        for k in range(cfg.seeds):
            seed = cfg.base_seed + k
            labels = {"transfer": t, "arch": a, "variant": v}
            jobs.append(scenario.BASE.job(seed, {**labels, "part": "run"}, scenario.overrides(cfg, t, a, extra)))
            jobs.append(scenario.BASE.job(seed, {**labels, "part": "prefix"}, scenario.prefix(cfg, t, a)))
    df = ctx.run(jobs, measure, "PSNA sensitivity" if sensitivity else "PSNA transfers")
    key = ["transfer", "arch", "variant", "seed"]
    pre = df[df["part"] == "prefix"][key + ["prefix_j"]]
    r = df[df["part"] == "run"].drop(columns=["part", "prefix_j"]).merge(pre, on=key)
    r["card_j"] = r["to_completion_j"] - r["prefix_j"]
    r["battery_s"] = r["card_j"].map(_core.psna_battery_seconds)
    r["lifetime_s"] = _U["reference_lifetime_s"] - r["battery_s"]
    r["power_saving_index"] = [_core.psna_index(int(b), s) for b, s in zip(r["bytes"], r["battery_s"])]
    # The paper's "data transfer length" and Kbps: the end-to-end transfer for legacy TCP, the
    # wireless burst for PSNA (Table 2).
    r["transfer_length_s"] = [b if a == "psna" else c for a, b, c in zip(r["arch"], r["burst_s"], r["completion_s"])]
    r["kbps_paper"] = [_core.psna_paper_kbps(int(b), s) for b, s in zip(r["bytes"], r["transfer_length_s"])]
    r["target_bytes"] = [TRANSFERS[t][1] for t in r["transfer"]]
    return r.reset_index(drop=True)


def sensitivity_table(sens: pd.DataFrame, main: pd.DataFrame) -> pd.DataFrame:
    """Transfer B per variant: PSNA's card energy, on-time, initial wait and polls, and the gain
    against legacy TCP (the variant's own legacy run where it has one, else the main one); the
    ``switch=E`` rows are simulated with the switch-on cost in the meter (``switch_variant``)."""
    both = pd.concat([main[(main["transfer"] == "B") & (main["arch"].isin(["legacy", "psna"]))], sens], ignore_index=True)
    m = both.groupby(["variant", "arch"], sort=False).agg(
        card_j=("card_j", "mean"), radio_on_s=("radio_on_s", "mean"), first_residual_s=("first_residual_s", "mean"),
        polls=("polls", "mean"), radio_on_switches=("radio_on_switches", "mean"), completion_s=("completion_s", "mean"),
        goodput_bps=("goodput_bps", "mean"), completed=("completed", "all"), bytes=("bytes", "min")).reset_index()
    legacy = m[m["arch"] == "legacy"].set_index("variant")
    rows = []
    for _, r in m[m["arch"] == "psna"].iterrows():
        lg = legacy.loc[r["variant"]] if r["variant"] in legacy.index else legacy.loc["default"]
        e = next((x for x in SWITCH_J if switch_variant(x)[0] == r["variant"]), 0.0)
        same = bool(r["completed"] and lg["completed"] and r["bytes"] == lg["bytes"])
        rows.append({**r.to_dict(), "switch_j": e, "legacy_card_j": lg["card_j"], "same_work": same,
                     "gain_factor": lg["card_j"] / r["card_j"] if same else math.nan})
    return pd.DataFrame(rows)


def table(r: pd.DataFrame) -> pd.DataFrame:
    """Per (transfer, architecture): means over seeds, and the gain factor and card-energy
    reduction against legacy TCP of the same transfer."""
    cols = ["card_j", "battery_s", "lifetime_s", "completion_s", "goodput_bps", "transfer_length_s", "kbps_paper", "power_saving_index",
            *PSNA_COLUMNS]
    t = r.groupby(["transfer", "arch"], sort=False).agg(
        runs=("seed", "size"), completed=("completed", "all"), bytes=("bytes", "min"), **{c: (c, "mean") for c in cols},
        card_j_min=("card_j", "min"), card_j_max=("card_j", "max")).reset_index()
    legacy = t[t["arch"] == "legacy"].set_index("transfer")
    # Equal work before a saving (wattlab.work): every run of both completed the transfer (the
    # same bytes); otherwise no gain or reduction is computed (NaN).
    t["same_work"] = [bool(c and legacy.loc[x, "completed"] and b == legacy.loc[x, "bytes"])
                      for x, c, b in zip(t["transfer"], t["completed"], t["bytes"])]
    ok = t["same_work"]
    t["gain_factor"] = [legacy.loc[x, "card_j"] / e if s else math.nan for x, e, s in zip(t["transfer"], t["card_j"], ok)]
    t["reduction_percent"] = [100.0 * (1.0 - e / legacy.loc[x, "card_j"]) if s else math.nan
                              for x, e, s in zip(t["transfer"], t["card_j"], ok)]
    t["slowdown"] = [c / legacy.loc[x, "completion_s"] if s else math.nan
                     for x, c, s in zip(t["transfer"], t["completion_s"], ok)]
    return t
