"""Seed 000's fairness and friendliness study (python/wattlab/reproduce/yan_cc/fairness.py) on
small mixes through one shared bottleneck."""

from __future__ import annotations

from pathlib import Path

import pytest

from wattlab.reproduce.framework import Context
from wattlab.reproduce.yan_cc.fairness import BASE, FairnessSetup, fairness_overrides, run_fairness


@pytest.fixture(scope="module")
def results():
    setup = FairnessSetup(file="1MB")
    return run_fairness(setup, [[("cc", 3)], [("tcp", 3)], [("cc", 2), ("tcp", 2)]], seeds=[1], ctx=Context(2, None, Path(".")))


def test_every_client_downloads_its_file(results):
    runs, flows = results
    assert runs.completed.all()
    assert len(flows) == 3 + 3 + 4
    assert flows.normalized.groupby([flows["mix"], flows["seed"]]).mean().round(9).eq(1.0).all()


def test_cc_shares_the_bottleneck_and_coexists_with_tcp(results):
    runs, flows = results
    assert (runs.jain > 0.9).all(), runs
    mixed = flows[flows["mix"] == "2cc+2tcp"].groupby("group").completion_time_s.median()
    assert 0.7 < mixed["cc"] / mixed["tcp"] < 1.4, mixed
    assert runs.queue_mean_pkts.notna().all()


def test_scenario_has_one_hop_and_meter_per_client():
    scn = BASE.effective(fairness_overrides(FairnessSetup(), [("cc", 2), ("psm", 1)]))
    assert [w["power_save"] for w in scn["wireless"]] == ["cc", "cc", "ideal-psm"]
    assert [n["name"] for n in scn["node"] if "radio" in n] == ["cc0", "cc1", "psm0"]


def test_start_spread_draws_each_flows_start_from_the_seed():
    setup = FairnessSetup(start_spread_ms=60.0)
    a = fairness_overrides(setup, [("cc", 2), ("tcp", 2)], seed=1)
    assert a == fairness_overrides(setup, [("cc", 2), ("tcp", 2)], seed=1)
    assert a != fairness_overrides(setup, [("cc", 2), ("tcp", 2)], seed=2)
    starts = [f["start"].ns for f in dict(a)["flow"]]
    assert len(starts) == 4 and all(0 < s < 60_000_000 and s % 1000 == 0 for s in starts)  # ns, whole µs
    flows = BASE.effective(fairness_overrides(FairnessSetup(), [("cc", 2)], seed=1))["flow"]
    assert not any("start" in f for f in flows), "no spread: all start at 0"
