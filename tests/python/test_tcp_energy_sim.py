"""Seed 002 Ch. 3: the analytic model (wattlab.models.tcp_energy) against the simulator, point
by point over p ∈ {0.001, 0.01, 0.05}, RTT ∈ {20, 100, 200} ms, m ∈ {1, 2, 5} (1 MiB
transfers, 8 seeds per point; docs/models.md, "Model vs simulator")."""

from __future__ import annotations

import pandas as pd
import pytest

from wattlab.reproduce.hashimoto2013 import energy_sim as es

BURSTY_ACKS = ("the model spaces ACKs equally over the RTT (Eq. 3.22); an unqueued flow's ACKs come back "
               "in the burst its window left in, one exchange (~0.6 ms·m) apart, so below t^st the client "
               "sleeps once per burst, not once per ACK: the model pays ~1.4 mJ per ACK the simulator does not")
SHORT_FAST = ("a 0.5 s transfer at 20 ms: the model caps the rate at W_bdp with no client/AP collision and "
              "prices the rare slow-start RTO (T_0 = 1 s, one run in five) below its weight in so short a transfer")

# (p, RTT ms, m) → why the model is more than 15 % off (measured: tests print the table).
CAM_OUTSIDE = {(0.001, 20.0, m): SHORT_FAST for m in (1, 2, 5)}
SLEEP_OUTSIDE = {
    **{(p, r, 1): BURSTY_ACKS for p in (0.001, 0.01, 0.05) for r in (20.0, 100.0, 200.0) if (p, r) != (0.001, 20.0)},
    **{(p, r, 2): BURSTY_ACKS for p in (0.001, 0.01, 0.05) for r in (20.0, 100.0, 200.0)
       if (p, r) not in {(0.001, 20.0), (0.05, 100.0), (0.05, 200.0)}},
    (0.001, 200.0, 5): BURSTY_ACKS,
}


@pytest.fixture(scope="module")
def grid() -> pd.DataFrame:
    return es.compare(es.GRID, seeds=range(1, 9))


def test_model_and_simulator_agree_within_15_percent_except_the_listed_points(grid, capsys):
    with capsys.disabled():
        cols = ["p", "rtt_ms", "m", "model_cam_j", "sim_always_on_j", "cam_err_pct", "model_sleep_j",
                "sim_ideal_sleep_j", "sleep_err_pct", "timeouts"]
        print("\n" + grid[cols].round(3).to_string(index=False))
    for r in grid.itertuples():
        key = (r.p, r.rtt_ms, r.m)
        for err, outside, what in ((r.cam_err_pct, CAM_OUTSIDE, "E[J_cam]"), (r.sleep_err_pct, SLEEP_OUTSIDE, "E[J_sleep]")):
            if key in outside:
                assert abs(err) > 15, f"{what} at {key} is now within 15 % ({err:.1f} %): remove it from the list"
            else:
                assert abs(err) <= 15, f"{what} at {key}: {err:.1f} %"
    within = sum(abs(r.cam_err_pct) <= 15 for r in grid.itertuples()) + sum(abs(r.sleep_err_pct) <= 15 for r in grid.itertuples())
    assert within == 2 * len(grid) - len(CAM_OUTSIDE) - len(SLEEP_OUTSIDE)


def test_sleep_gap_is_the_per_ack_transitions_the_simulator_does_not_make(grid):
    """Where E[J_sleep] is off, the model is above the simulator (never below), and bursting
    (larger m, fewer ACKs) closes the gap, as the equal-spacing cause says."""
    for key in SLEEP_OUTSIDE:
        r = grid.set_index(["p", "rtt_ms", "m"]).loc[key]
        assert r.sleep_err_pct > 15
    g = grid.set_index(["p", "rtt_ms", "m"])["sleep_err_pct"]
    for p in (0.001, 0.01, 0.05):
        for rtt in (100.0, 200.0):
            assert g[(p, rtt, 1)] > g[(p, rtt, 2)] > g[(p, rtt, 5)] - 5


def test_ideal_sleep_costs_at_least_the_oracle_and_sleep_saves(grid):
    assert (grid["sim_ideal_sleep_j"] >= grid["sim_oracle_j"] - 1e-9).all()
    assert (grid["sim_ideal_sleep_j"] < grid["sim_always_on_j"]).all()
