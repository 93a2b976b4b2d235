"""Seed 000's web-browsing experiment (python/wattlab/reproduce/yan_cc/web.py) on a short
session: the policies' order, the RTT cache, and the split of energy by busy connections."""

from __future__ import annotations

from pathlib import Path

import pytest

from wattlab.reproduce.framework import Context
from wattlab.reproduce.yan_cc.web import WebSetup, normalize_web, rtt_cache_by_concurrency, run_web


@pytest.fixture(scope="module")
def runs():
    return run_web(WebSetup(pages=10), seeds=[3], policies=["tcp", "cc", "cc-nocache", "ideal-psm", "bsd-50"], ctx=Context(2, None, Path(".")))


def test_every_policy_completes_the_same_workload(runs):
    assert runs.completed.all()
    assert runs.objects.nunique() == 1 and runs.bytes.nunique() == 1


def test_cc_saves_energy_without_slowing_the_pages(runs):
    norm = normalize_web(runs).set_index("policy")
    assert norm.loc["oracle", "energy_norm"] <= norm.loc["cc", "energy_norm"] < norm.loc["bsd-50", "energy_norm"] < 1.0
    assert norm.loc["cc", "time_norm"] <= 1.01, "CC keeps TCP's page times"
    assert norm.loc["ideal-psm", "time_norm"] > 1.3, "PSM rounds every RTT up to the beacon"
    assert norm.loc["cc", "energy_norm"] < norm.loc["cc-nocache", "energy_norm"], "the RTT cache saves energy"
    assert (runs.agent_dropped_asleep.dropna() <= 2).all()


def test_energy_split_by_busy_connections_adds_up(runs):
    for _, r in runs.iterrows():
        assert abs(r.split_residual_j) <= 0.03 * r.energy_j, (r.policy, r.split_residual_j, r.energy_j)
    fig10 = rtt_cache_by_concurrency(runs)
    assert set(fig10.k) >= {0, 1}
    assert fig10.set_index("k").loc[0, "cache_saving"] == pytest.approx(0.0, abs=0.02), "think time: no set-up to sleep through"
