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
