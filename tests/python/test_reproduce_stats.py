"""The interval every reproduction draws around a statistic (python/wattlab/reproduce/stats.py):
which interval fits the statistic and n, clipping to the quantity's domain, and the words."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sp

from wattlab.reproduce import stats
from wattlab.reproduce.runner import aggregate


def test_one_value_has_no_bar():
    for statistic in (stats.MEAN, stats.MEDIAN):
        iv = stats.interval([4.2], statistic)
        assert (iv.center, iv.lo, iv.hi, iv.kind, iv.n) == (4.2, 4.2, 4.2, stats.NONE, 1)


def test_two_values_span_their_range_not_a_t_interval():
    # A t-interval of 2 values uses t(1 df) = 12.7: for 1000 and 1100 it would reach 1050 ± 635.
    iv = stats.interval([1000.0, 1100.0], stats.MEAN)
    assert iv.kind == stats.RANGE and (iv.lo, iv.center, iv.hi) == (1000.0, 1050.0, 1100.0)
    assert stats.interval([1.0, 3.0], stats.MEDIAN).kind == stats.RANGE


def test_three_values_get_the_student_t_interval_of_the_mean():
    v = [1.0, 2.0, 4.0]
    iv = stats.interval(v, stats.MEAN)
    half = sp.t.ppf(0.975, 2) * np.std(v, ddof=1) / math.sqrt(3)
    assert iv.kind == stats.T_INTERVAL
    assert iv.lo == pytest.approx(7 / 3 - half) and iv.hi == pytest.approx(7 / 3 + half)


def test_ten_values_mean_and_median():
    v = list(range(10))
    t = stats.interval(v, stats.MEAN)
    half = sp.t.ppf(0.975, 9) * np.std(v, ddof=1) / math.sqrt(10)
    assert t.center == 4.5 and t.hi - t.center == pytest.approx(half)
    m = stats.interval(v, stats.MEDIAN)
    assert (m.center, m.lo, m.hi, m.kind) == (4.5, 0.0, 9.0, stats.RANGE)


def test_intervals_are_clipped_to_the_domain_but_keep_the_estimate():
    # Goodput ≥ 0: a wide t-interval of small goodputs stops at 0.
    iv = stats.interval([10.0, 2000.0, 50.0], stats.MEAN, stats.NON_NEGATIVE)
    assert iv.lo == 0.0 and iv.hi > 2000.0
    # Jain's index over 4 flows lies in [1/4, 1].
    j = stats.interval([0.30, 1.0, 0.99], stats.MEAN, (0.25, 1.0))
    assert j.lo == 0.25 and j.hi == 1.0
    # A measured value outside the domain (3E a hair below 0) stays inside its own bar.
    e = stats.interval([-0.001], stats.MEAN, (0.0, 1.0))
    assert e.lo == e.hi == e.center == -0.001


def test_non_finite_values_are_left_out():
    iv = stats.interval([1.0, float("nan"), 3.0], stats.MEAN)
    assert iv.n == 2 and iv.kind == stats.RANGE
    assert math.isnan(stats.interval([], stats.MEAN).center)


def test_unknown_statistic_is_refused():
    with pytest.raises(ValueError, match="unknown statistic"):
        stats.interval([1.0], "mode")


def test_bar_text_names_the_interval_and_n():
    assert stats.bars_text(stats.MEAN, [5, 5]) == "mean over 5 seeds; bars: 95 % Student-t interval of the mean"
    assert stats.bars_text(stats.MEAN, [2]) == "mean over 2 seeds; bars: min–max of the seeds (too few for a t-interval)"
    assert stats.bars_text(stats.MEDIAN, [1]) == "median over 1 seed; bars: none (one value)"
    mixed = stats.bars_text(stats.MEAN, [2, 3])
    assert "over 2–3 seeds" in mixed and "where n = 3" in mixed and "where n = 2" in mixed


def test_yerr_has_no_bars_for_single_values():
    assert stats.yerr([1.0, 2.0], [1.0, 2.0], [1.0, 2.0]) is None
    err = stats.yerr([1.0, 2.0], [0.5, 2.0], [1.5, 2.5], scale=10)
    assert err.tolist() == [[5.0, 0.0], [5.0, 5.0]]


def test_aggregate_clips_each_group_to_its_own_domain():
    runs = pd.DataFrame({"flows": [4, 4, 4, 1, 1, 1], "fairness": [0.3, 1.0, 0.99, 1.0, 1.0, 1.0],
                         "goodput_bps": [10.0, 2000.0, 50.0, 1.0, 2.0, 3.0]})
    p = aggregate(runs, ["flows"], ["fairness", "goodput_bps"],
                  {"fairness": lambda key: (1 / key["flows"], 1.0), "goodput_bps": stats.NON_NEGATIVE}).set_index("flows")
    assert p.loc[4, "fairness_lo"] == 0.25 and p.loc[4, "fairness_hi"] == 1.0
    assert p.loc[4, "goodput_bps_lo"] == 0.0
    assert p.loc[1, "fairness_lo"] == p.loc[1, "fairness_hi"] == 1.0
    # The CSV's mean ± 95 % CI half-width is still there, unclipped, for readers who want it.
    assert p.loc[4, "goodput_bps_ci"] > p.loc[4, "goodput_bps"]
