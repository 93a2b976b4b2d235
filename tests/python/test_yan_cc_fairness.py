"""Seed 000's fairness and friendliness study (python/wattlab/reproduce/yan_cc/fairness.py) on
small mixes through one shared bottleneck."""

from __future__ import annotations

import pytest

from wattlab.reproduce.yan_cc.fairness import FairnessSetup, fairness_scenario, run_fairness


@pytest.fixture(scope="module")
def results():
    setup = FairnessSetup(file="1MB")
    return run_fairness(setup, [[("cc", 3)], [("tcp", 3)], [("cc", 2), ("tcp", 2)]], seeds=[1], workers=2)


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
    text = fairness_scenario(FairnessSetup(), [("cc", 2), ("psm", 1)])
    assert text.count("[[wireless]]") == 3
    assert text.count('power_save = "cc"') == 2 and text.count('power_save = "ideal-psm"') == 1


def test_start_spread_draws_each_flows_start_from_the_seed():
    setup = FairnessSetup(start_spread_ms=60.0)
    a = fairness_scenario(setup, [("cc", 2), ("tcp", 2)], seed=1)
    assert a == fairness_scenario(setup, [("cc", 2), ("tcp", 2)], seed=1)
    assert a != fairness_scenario(setup, [("cc", 2), ("tcp", 2)], seed=2)
    starts = [float(line.split('"')[1][:-2]) for line in a.splitlines() if line.startswith("start = ")]
    assert len(starts) == 4 and all(0 < s < 60_000 for s in starts)  # µs
    assert "start = " not in fairness_scenario(FairnessSetup(), [("cc", 2)], seed=1), "no spread: all start at 0"
