"""Seed 002 Ch. 2 in the simulator, short runs (5 up + 5 down, 802.11a, AP DropTail 100, wired
100 Mb/s / 100 ms, no delayed ACK; 60 s averaged over 20–60 s, 3 seeds): Reno starves the
downstream flows; ACK-loss-aware Reno raises their share with a lower upstream RTT. The issue's
targets are checked on the full runs by `wattlab reproduce hashimoto2013` (claims F1–F7)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from wattlab.reproduce.framework import Context
from wattlab.reproduce.hashimoto2013 import fairness

SEEDS = (1, 2, 3)


@pytest.fixture(scope="module")
def runs() -> pd.DataFrame:
    jobs = [fairness.job(s, k, "5u5d", 5, 5, False, 60.0, 20.0, 1.0, [1.0, 10.0])
            for s in ("reno", "ackloss") for k in SEEDS]
    return fairness.runs(jobs, Context(2, None, Path("."))).set_index(["scheme", "seed"])


def test_reno_starves_the_downstream_flows(runs):
    reno = runs.loc["reno"]
    assert (reno.down_share < 0.05).all(), reno.down_share
    assert (reno.jain < 0.6).all()


def test_ackloss_raises_the_downstream_share_with_a_lower_upstream_rtt(runs):
    reno, al = runs.loc["reno"], runs.loc["ackloss"]
    assert (al.down_share > 0.3).all() and al.down_share.mean() > 0.35, al.down_share
    assert (al.jain > 0.85).all() and (al.F > reno.F).all()
    assert (al.up_rtt_ms < reno.up_rtt_ms / 3).all(), (al.up_rtt_ms, reno.up_rtt_ms)
    assert (al.min_flow_mbps > 0.5).all(), "no flow starves"


def test_the_total_is_capped_by_the_acks_ackloss_delivers(runs):
    """Why ackloss's total is below Reno's: with every TCP ACK carried, the channel's collision-free
    TCP maximum is ~20.15 Mb/s. ackloss sits below it (0.90-0.96 of it for seeds 1-3, the AP
    drawing a backoff for what reaches it during an exchange, as every station does: wlan.md,
    "DCF"); Reno is above it, which only the AP's ACK drops (most frames reaching the AP) make
    possible."""
    cap = fairness.tcp_capacity_mbps(False)
    assert cap == pytest.approx(20.15, abs=0.01)
    reno, al = runs.loc["reno"], runs.loc["ackloss"]
    assert ((al.total_mbps > 0.85 * cap) & (al.total_mbps <= cap)).all(), al.total_mbps
    assert (reno.total_mbps > 1.1 * cap).all(), reno.total_mbps
    reno_drop = reno.ap_queue_drops / (reno.ap_frames + reno.ap_queue_drops)
    al_drop = al.ap_queue_drops / (al.ap_frames + al.ap_queue_drops)
    assert (reno_drop > 0.5).all() and (al_drop < 0.05).all(), (reno_drop, al_drop)
    assert (al.collisions < reno.collisions).all(), "fewer collisions, not more, under ackloss"
