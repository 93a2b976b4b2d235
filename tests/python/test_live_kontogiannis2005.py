"""Paper 003's single flow live (``wattlab reproduce kontogiannis2005 --live``): which variants a
kernel can run and why not, the emulated path, the verdicts driven to each outcome, and (as
root) one live variant run end to end."""

from __future__ import annotations

import math
import os

import pandas as pd
import pytest

from wattlab.reproduce.framework import Context
from wattlab.reproduce.kontogiannis2005 import live, live_claims, live_kernel
from wattlab.reproduce.kontogiannis2005.config import Config
from wattlab.reproduce.verdict import AGREES, DISAGREES, PARTLY, UNTESTED


def _cfg(**kw) -> Config:
    cfg = Config.quick_preset()
    cfg.live = True
    cfg.seeds = 1
    for k, v in kw.items():
        setattr(cfg, k, v)
    return cfg


# --- the kernel's variants ----------------------------------------------------------------------


def _fake_proc(monkeypatch, tmp_path, available: str):
    (tmp_path / "tcp_available_congestion_control").write_text(available + "\n")
    monkeypatch.setattr(live_kernel, "PROC", tmp_path)


def test_a_listed_module_runs_and_a_missing_one_says_exactly_why(monkeypatch, tmp_path):
    _fake_proc(monkeypatch, tmp_path, "reno bbr cubic")
    monkeypatch.setattr(live_kernel, "_try_socket", lambda m: f"setsockopt(TCP_CONGESTION, {m}) failed: No such file or directory")
    monkeypatch.setattr(live_kernel, "_try_modprobe", lambda m: "/lib/modules/6.1 does not exist (a kernel without loadable modules)")
    assert live_kernel.availability("newreno") is None
    assert live_kernel.availability("sack") is None
    assert live_kernel.availability("cubic") is None
    why = live_kernel.availability("vegas")
    assert "`vegas` is not in this kernel's tcp_available_congestion_control (reno bbr cubic)" in why
    assert "setsockopt(TCP_CONGESTION, vegas) failed" in why and "/lib/modules/6.1 does not exist" in why
    assert "Linux has no Tahoe" in live_kernel.availability("tahoe")
    assert "NewReno" in live_kernel.availability("reno")
    with pytest.raises(ValueError, match="unknown live variant"):
        live_kernel.availability("bbr2")


def test_a_module_loaded_on_demand_runs(monkeypatch, tmp_path):
    _fake_proc(monkeypatch, tmp_path, "reno cubic")

    def load(module):  # the kernel loads it when a socket asks for it
        (tmp_path / "tcp_available_congestion_control").write_text(f"reno cubic {module}\n")

    monkeypatch.setattr(live_kernel, "_try_socket", load)
    monkeypatch.setattr(live_kernel, "_try_modprobe", lambda m: pytest.fail("modprobe is not needed"))
    assert live_kernel.availability("westwood") is None
    _fake_proc(monkeypatch, tmp_path, "reno cubic")
    assert "not in this kernel's" in live_kernel.availability("vegas", load=False)


def test_this_kernel_either_has_a_module_or_names_why_not():
    have = live_kernel.available_modules()
    for v, lv in live_kernel.LIVE_VARIANTS.items():
        why = live_kernel.availability(v, load=False)
        assert (why is None) == (lv.module in have), (v, why)
    prov = live_kernel.provenance()
    assert prov["kernel_release"] and len(prov["loadavg_1_5_15"]) == 3
    assert prov["sysctls"]["net.ipv4.tcp_available_congestion_control"] == " ".join(have)


# --- the path -------------------------------------------------------------------------------------


def test_the_hop_costs_one_dsss_exchange_per_frame_whatever_its_size():
    cfg = _cfg()
    over = live.hop_overhead_s(cfg)
    # the same overhead for a TCP ACK (40 B) as for a full segment: DSSS has no symbol rounding
    assert math.isclose(live.exchange_s(40) - 40 * 8 / 2e6, over, abs_tol=2e-9)
    # DIFS 50 + mean backoff 310 + PLCP 192 + 36 B of MAC header/FCS/LLC at 2 Mb/s 144 + SIFS 10 + ACK 304 µs
    assert math.isclose(over * 1e6, 50 + 310 + 192 + 144 + 10 + 304, abs_tol=1.0)
    assert math.isclose(live.thr_max_bps(cfg), 1064 * 8 / (over + 1064 * 8 / 2e6), rel_tol=1e-12)


def test_overrides_put_the_reproductions_errors_on_both_directions_and_the_variants_tcp():
    cfg = _cfg()
    eff = live.BASE.effective(live.overrides("sack", "burst", 0.04, cfg))
    hop = eff["wireless"][0]
    for d in ("down", "up"):
        assert hop[d]["loss"] == {"model": "gilbert-elliott", "p_good_to_bad": 0.05, "p_bad_to_good": 0.10,
                                  "loss_good": 0.0, "loss_bad": 0.04}
    tcp = eff["flow"][0]["tcp"]
    assert tcp["cc"] == "sack" and tcp["sack"] is True and tcp["mss"] == 1024 and tcp["initial_cwnd"] == 2
    eff = live.BASE.effective(live.overrides("newreno", "random", 0.01, cfg))
    assert eff["wireless"][0]["up"]["loss"] == {"model": "bernoulli", "p": 0.01}
    assert eff["flow"][0]["tcp"]["sack"] is False
    assert "loss" not in live.BASE.effective(live.overrides("cubic", "random", 0.0, cfg))["wireless"][0].get("down", {})


def test_live_settings_are_checked():
    for kw, msg in ((dict(live_variants=["tahoe"]), "Linux has no Tahoe"), (dict(live_variants=["bbr"]), "unknown live variant"),
                    (dict(live_per=[1.0]), "--live-per 1.0"), (dict(live_models=["gilbert"]), "--live-errors gilbert"),
                    (dict(live_bytes=10), "--live-bytes 10"), (dict(live_time_limit_s=0.0), "--live-time-limit 0")):
        with pytest.raises(ValueError, match=msg):
            _cfg(**kw).check()


def test_the_simulator_on_the_live_path(tmp_path):
    cfg = _cfg(live_variants=["newreno"], live_per=[0.01], live_models=["random"], live_bytes=256 * 1024)
    ctx = Context(1, None, tmp_path)
    runs = live.with_eee(live.simulate_path(cfg, ["newreno"], ctx), cfg)
    (r,) = runs.itertuples()
    assert r.completed and r.delivered_bytes == 256 * 1024
    assert 0 < r.goodput_bps <= r.throughput_bps <= live.thr_max_bps(cfg)
    assert 0.0 <= r.eee <= cfg.alpha and r.energy_j > 0


# --- verdicts -------------------------------------------------------------------------------------


def _side(ratios, eee_diffs):
    rows = []
    for i, (q, d) in enumerate(zip(ratios, eee_diffs)):
        rows.append({"variant": "newreno", "model": "random", "per": 0.01 * (i + 1), "goodput_bps_live": 1e6 * q,
                     "goodput_bps_sim_path": 1e6, "eee_live": 0.3 + d, "eee_sim_path": 0.3})
    return pd.DataFrame(rows)


@pytest.mark.parametrize("ratios, diffs, l1, l2", [
    ([1.0, 1.05, 0.95, 1.09], [0.0, 0.01, -0.04, 0.02], AGREES, AGREES),
    ([1.0, 1.05, 0.8, 1.3], [0.0, 0.06, -0.1, 0.02], PARTLY, PARTLY),
    ([1.5, 0.7, 0.8, 1.0], [0.2, 0.06, -0.1, 0.0], DISAGREES, DISAGREES),
])
def test_live_vs_sim_claims_reach_each_verdict(ratios, diffs, l1, l2):
    c1, c2 = live_claims.agreement_claims(_side(ratios, diffs))
    assert (c1.id, c1.verdict, c2.id, c2.verdict) == ("L1", l1, "L2", l2)


def test_live_vs_sim_claims_untested_without_live_points():
    side = _side([1.0], [0.0]).assign(goodput_bps_live=float("nan"))
    assert {c.verdict for c in live_claims.agreement_claims(side)} == {UNTESTED}


def _points(variants, pers=(0.01, 0.04, 0.07)):
    rows = []
    for m in ("random", "burst"):
        for v in variants:
            for p in pers:
                g = 1.2e6 * (1 - 8 * p) * (1.1 if v == "cubic" else 1.0)
                rows.append({"model": m, "variant": v, "per": p, "goodput_bps": g, "eee": 0.1 + p, "time_s": 8 * 2**20 / g,
                             "energy_j": 0.76 * 8 * 2**20 / g, "overhead": 1 + p, "throughput_bps": g * (1 + p)})
    return pd.DataFrame(rows)


def test_r1_claims_live_say_which_variants_linux_lacks():
    variants = pd.DataFrame([
        {"variant": "newreno", "runs_live": True, "reason": ""},
        {"variant": "vegas", "runs_live": False, "reason": "`vegas` is not in this kernel's list"},
        {"variant": "tahoe", "runs_live": False, "reason": live_kernel.NOT_LIVE["tahoe"]},
    ])
    got = {c.id: c for c in live_claims.r1_claims(_points(["newreno", "cubic"]), variants)}
    assert got["R1.4"].verdict == UNTESTED and "vegas: `vegas` is not in this kernel's list" in got["R1.4"].evidence
    assert "tahoe: Linux has no Tahoe" in got["R1.1"].evidence and "sack: not asked for" in got["R1.1"].evidence
    assert "westwood" not in got["R1.4"].evidence  # only the variants the claim needs
    assert got["R1.6"].verdict == AGREES  # energy per bit falls with goodput at every point here
    empty = live_claims.r1_claims(pd.DataFrame(), variants)
    assert {c.verdict for c in empty} == {UNTESTED} and len(empty) == 8


# --- live (root) ----------------------------------------------------------------------------------


@pytest.mark.skipif(os.geteuid() != 0, reason="the live testbed needs root (network namespaces, NFQUEUE)")
def test_one_live_variant_run_beside_the_simulator(tmp_path):
    """Linux reno without SACK (the paper's NewReno), 1 MiB at 1 % random errors each way, through the
    reproduction; vegas rides along to show the skip (or runs, on a kernel that has it)."""
    from wattlab.reproduce.kontogiannis2005.reproduction import REPRODUCTION

    cfg = _cfg(live_variants=["newreno", "vegas"], live_per=[0.01], live_models=["random"], live_bytes=2**20,
               live_time_limit_s=300.0)
    res = REPRODUCTION.run(cfg, tmp_path / "out", workers=1)
    runs = res["live_runs"]
    nr = runs[runs.variant == "newreno"].iloc[0]
    assert bool(nr.completed) and bool(nr.verified), nr.get("error")
    assert nr.linux_cc == "reno" and nr.delivered_bytes == 2**20
    assert 0.002 < nr.loss_down < 0.03  # 1 % drawn on ~800 data packets
    thr = live.thr_max_bps(cfg)
    assert 0 < nr.goodput_bps <= nr.throughput_bps <= 1.01 * thr
    assert 0.0 <= nr.eee <= cfg.alpha and nr.energy_j > 0
    sim = res["live_sim_path_runs"]
    sim_g = float(sim[sim.variant == "newreno"].goodput_bps.iloc[0])
    # the same path and errors: Linux within a factor of 2 of the simulator (the verdict L1 says how close)
    assert 0.5 < nr.goodput_bps / sim_g < 2.0
    v = res["live_variants"].set_index("variant")
    if "vegas" not in live_kernel.available_modules():
        assert not bool(v.loc["vegas", "runs_live"]) and "vegas" in v.loc["vegas", "reason"]
        assert "vegas" not in set(runs.variant)
    claims = {c.id: c.verdict for c in res.claims}
    assert claims["L1"] != UNTESTED and "R1.6" in claims
    for f in ("live_fig.png", "live_provenance.json", "summary.md", "live_vs_sim.csv"):
        assert (tmp_path / "out" / f).exists()
    prov = __import__("json").loads((tmp_path / "out" / "live_provenance.json").read_text())
    assert prov["kernel_release"] and "net.ipv4.tcp_allowed_congestion_control" in prov["sysctls"]
    assert not math.isnan(float(nr.load1_before))


@pytest.mark.parametrize("dack, word", [(1.10, "explain most of"), (1.02, "explain part of"), (1.0, "do not explain"),
                                        (None, "not tested")])
def test_the_delayed_ack_hypothesis_reaches_each_wording(dack, word):
    from wattlab.reproduce.kontogiannis2005 import live_summary

    g_sim, g_live = 1.0e6, 1.12e6  # live 12 % above the simulator on the same path
    side = pd.DataFrame([{"goodput_bps_live": g_live if dack else g_sim, "goodput_bps_sim_path": g_sim,
                          "goodput_bps_sim_dack": g_sim * (dack or 1.0)}])
    assert word in live_summary.delayed_ack_sentence(side)


def test_the_delayed_ack_twin_acks_every_second_segment_on_the_path(tmp_path):
    cfg = _cfg(live_per=[0.0], live_models=["random"], live_bytes=512 * 1024)
    ctx = Context(1, None, tmp_path)
    no, yes = (live.simulate_path(cfg, ["newreno"], ctx, delayed_ack=d).iloc[0] for d in (False, True))
    # half the ACK frames on the half-duplex hop leave more air for data
    assert yes.goodput_bps > no.goodput_bps
    assert live.tcp_table("newreno", cfg, True)["delayed_ack_timeout"] == live.Duration.ms(40.0)


def test_without_root_live_is_refused_with_one_line(tmp_path, monkeypatch):
    from wattlab.live import netns

    monkeypatch.setattr(netns.os, "geteuid", lambda: 1000)
    cfg = _cfg(live_variants=["newreno"], live_per=[0.01], live_models=["random"], live_bytes=2**20)
    with pytest.raises(ValueError, match="--live: the live testbed needs root"):
        live.tables(cfg, Context(1, None, tmp_path))


def test_live_energy_charges_the_hops_busy_time_as_the_simulator_does():
    row = pd.Series({"energy_idle_j": 0.7585 * 2, "time_idle_s": 2.0, "energy_rx_j": 0.925 * 4, "time_rx_s": 4.0,
                     "energy_tx_j": 1.425, "time_tx_s": 1.0})
    path = {"hop_down": {"busy_ns": 50_000_000_000}, "hop_up": {"busy_ns": 10_000_000_000}}
    want = 0.7585 * 60 + (0.925 - 0.7585) * 50 + (1.425 - 0.7585) * 10
    assert math.isclose(live.hop_energy(path, row, 60.0), want, rel_tol=1e-12)
