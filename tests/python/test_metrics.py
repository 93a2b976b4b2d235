"""The metrics API (the numbers themselves are unit-tested in wattlab-core::metrics)."""

import numpy as np
import pandas as pd
import pytest

from wattlab import metrics


def test_jain_example_from_seed_002():
    assert metrics.jain_index([10, 30, 40]) == pytest.approx(0.8205, abs=1e-4)
    assert metrics.jain_index(np.array([100.0, 300.0, 400.0])) == pytest.approx(metrics.jain_index((10, 30, 40)))
    assert metrics.jain_index(pd.Series([1.0, 1.0])) == 1.0


def test_table_2_1_case_7_from_python():
    xs = [1, 1, 1, 1, 1, 1, 2, 3, 3, 6]
    assert metrics.fairness_utilization_index(xs, 30) == pytest.approx(0.7258, abs=1e-4)


def test_eee_examples_and_tie():
    assert metrics.eee(100, 80, 100) == pytest.approx(0.20)
    assert metrics.eee(40, 39, 100) == pytest.approx(metrics.eee(60, 50, 100))  # tie at b = 0.45
    assert metrics.eee(40, 39, 100, b=0.4) < metrics.eee(60, 50, 100, b=0.4)
    assert metrics.eee_system([40, 60], [39, 50], 100) == pytest.approx(0.11)


@pytest.mark.parametrize(
    "alpha,b,reason",
    [(-1, 0.45, "α"), (1, float("nan"), "b"), (0, 0, "both 0"), (0.4, 0.45, "idle power")],
)
def test_invalid_eee_weights_are_rejected_with_a_reason(alpha, b, reason):
    with pytest.raises(ValueError, match=reason):
        metrics.check_eee_weights(alpha, b)
    with pytest.raises(ValueError, match=reason):
        metrics.eee(1, 1, 2, alpha=alpha, b=b)


def test_bad_inputs():
    with pytest.raises(ValueError, match="no flows"):
        metrics.jain_index([])
    with pytest.raises(ValueError, match="Thr_max"):
        metrics.eee(1, 1, 0)
    with pytest.raises(ValueError, match="2 throughputs but 1 goodputs"):
        metrics.eee_system([1, 2], [1], 10)


def test_effort_overhead_of_seed_004_test_1_1():
    assert metrics.effort_overhead(936_202, 15_928, 881_996) == pytest.approx(0.0795, abs=1e-4)


def test_sliding_window_index():
    a = [1000, 0] * 5
    b = [0, 1000] * 5
    assert metrics.sliding_window_index([a, b], 1.0, 1, 8000) == pytest.approx(0.5)
    assert metrics.sliding_window_index(np.array([a, b]), 1.0, 2, 8000) == pytest.approx(1.0)


# Seed 002 Table 2.1 (C = 30 Mb/s, n = 10): the 16 printed values (Jain, F) of the 8 cases.
TABLE_2_1 = [
    ([3] * 10, 1.00, 1.00),
    ([2] * 10, 1.00, 0.90),
    ([1] * 10, 1.00, 0.69),
    ([1] * 9 + [6], 0.50, 0.67),
    ([1] * 8 + [6, 6], 0.50, 0.64),
    ([2] * 9 + [12], 0.50, 0.50),
    ([1, 1, 1, 1, 1, 1, 2, 3, 3, 6], 0.62, 0.73),
    ([1, 1, 1, 3, 3, 3, 3, 4, 5, 6], 0.78, 0.78),
]


@pytest.mark.parametrize("case", range(1, 9))
def test_table_2_1_all_sixteen_values(case):
    xs, jain, f = TABLE_2_1[case - 1]
    # To the printed two decimals (case 7's Jain is exactly 0.625, printed 0.62: half a unit).
    assert metrics.jain_index(xs) == pytest.approx(jain, abs=0.005 + 1e-9)
    assert metrics.fairness_utilization_index(xs, 30) == pytest.approx(f, abs=0.005 + 1e-9)
    # Eq. 2.10 = 1/(1 + g²) (Eq. 2.7); Eq. 2.8: Jain = 1/(1 + COV²).
    g = metrics.fair_share_cov(xs, 30)
    assert metrics.fairness_utilization_index(xs, 30) == pytest.approx(1 / (1 + g * g), rel=1e-12)
    cov = metrics.coefficient_of_variation(xs)
    assert metrics.jain_index(xs) == pytest.approx(1 / (1 + cov * cov), rel=1e-12)


def test_jain_example_is_0_82():
    assert round(metrics.jain_index([10, 30, 40]), 2) == 0.82
    assert round(metrics.jain_index([100, 300, 400]), 2) == 0.82


@pytest.mark.parametrize("case,var", [(4, 2.25), (5, 4.0), (6, 9.0)])
def test_variances_of_cases_4_to_6(case, var):
    assert metrics.population_variance(TABLE_2_1[case - 1][0]) == pytest.approx(var, abs=1e-12)


@pytest.mark.parametrize(
    "min_rtt_ms,t_mbps,cwnd,b_est",
    [(0.975, 21.8, 118003, 76.9), (0.563, 19.6, 76719, 50.2), (0.674, 20.2, 366826, 243.4)],
    ids=["buffalo", "nec", "corega"],
)
def test_table_2_3_ap_buffer_estimates(min_rtt_ms, t_mbps, cwnd, b_est):
    est = metrics.ap_buffer_estimate(cwnd, t_mbps * 1e6, min_rtt_ms / 1e3, 1500)
    assert round(est, 1) == b_est


def test_swm_curve_over_window_sizes():
    a = [1000, 1000, 0, 0] * 3
    b = [0, 0, 1000, 1000] * 3
    df = metrics.swm_curve([a, b], 1.0, [1, 2, 4], capacity_bps=8000)
    assert list(df["window"]) == [1, 2, 4]
    assert df["swm"].iloc[0] == pytest.approx(0.5) and df["swm"].iloc[2] == pytest.approx(1.0)
    assert df["swm"].is_monotonic_increasing
    assert metrics.SEED002_CAPACITY_BPS == 29.6e6
    with pytest.raises(ValueError, match="does not fit"):
        metrics.swm_curve([a, b], 1.0, [13])
