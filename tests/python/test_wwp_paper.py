"""Seed 004's Table 1 as data: the effort-overhead formula against every published value, the
derived Total column, and the inconsistencies the reproduction reports."""

import pytest

from wattlab.reproduce.tsaoussidis1999_wwp import paper

TOTALS = [952_130, 6_509_273, 876_256, 5_805_467, 431_780, 186_235, 539_814, 5_558_104, 539_314,
          5_818_002, 1_108_076, 1_186_741, 1_058_904, 23_194_553]


def test_effort_overhead_recomputed_matches_all_fourteen_published_values():
    assert len(paper.TABLE_1) == 14
    for r in paper.TABLE_1:
        assert abs(r.effort_overhead_recomputed - r.effort_overhead) <= 0.001, r.test


def test_effort_overhead_check_can_fail():
    # A wrong formula (total over original, without the − 1) misses every published value.
    wrong = [r.total / r.original_data for r in paper.TABLE_1]
    assert all(abs(w - r.effort_overhead) > 0.001 for w, r in zip(wrong, paper.TABLE_1))


def test_total_column_is_sender_plus_receiver_overhead():
    assert [r.total for r in paper.TABLE_1] == TOTALS


def test_sets_and_ratios():
    assert [s.vdrop_every for s in paper.SETS] == [5, 5, 5, 3, 3, 20, 20]
    assert paper.SETS[2].label == "50 ms, 20 %, always"
    assert paper.ratios(1)["original_data"] == pytest.approx(7.24, abs=0.01)
    assert paper.ratios(3)["original_data"] == pytest.approx(0.43, abs=0.01)
    assert paper.ratios(7)["original_data"] == pytest.approx(22.47, abs=0.01)


def test_inconsistencies_are_found_from_the_numbers():
    found = paper.inconsistencies()
    assert any("4.1 and 5.1" in f for f in found)
    assert sum("1,024,000" in f for f in found) == 2
    assert any("22.5×" in f for f in found)
