"""The grid's sampling diagnostic (wattlab.live.grid_stats): a paired bootstrap over seeds of the
medians gaps, driven to each sampled verdict (pass, fail, open, not judged)."""

from __future__ import annotations

import pytest

from wattlab.live import grid, grid_stats


def _sides(live_cc, sim_cc, on=10.0):
    """Per mode, per seed: always-on equal on both sides (time 10 s, energy 10 J); cc's time and
    energy per seed as given."""
    live = {"always-on": {s: {"time_s": on, "energy_j": on} for s in range(1, len(live_cc) + 1)},
            "cc": {s: {"time_s": t, "energy_j": t / 2} for s, t in enumerate(live_cc, start=1)}}
    sim = {"always-on": {s: {"time_s": on, "energy_j": on} for s in range(1, len(sim_cc) + 1)},
           "cc": {s: {"time_s": t, "energy_j": t / 2} for s, t in enumerate(sim_cc, start=1)}}
    return live, sim


LIVE = [4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0]


@pytest.mark.parametrize("sim, want", [
    ([t * 1.01 for t in LIVE], "pass"),  # every seed +1 %: every resample's gap is +1 %
    ([t * 1.20 for t in LIVE], "fail"),  # every seed +20 %: the whole interval is outside ±5 %
    # Half the seeds much faster, half equal: the median moves with which seeds are drawn.
    ([t * (0.6 if i % 2 else 1.0) for i, t in enumerate(LIVE)], "open"),
])
def test_the_sampled_verdict_reaches_each_value(sim, want):
    live, simd = _sides(LIVE, sim)
    ci = grid_stats.intervals(live, simd)
    assert ci["seeds"] == 12 and ci["always-on_time_gap_lo"] == ci["always-on_time_gap_hi"] == 0.0
    places = [grid_stats.placement(ci[f"{m}_time_gap_lo"], ci[f"{m}_time_gap_hi"], 5.0) for m in ("always-on", "cc")]
    places.append(grid_stats.placement(ci["saving_gap_lo"], ci["saving_gap_hi"], 3.0))
    assert grid_stats.settled(places, ci["seeds"]) == want
    if want == "pass":
        assert ci["cc_time_gap_lo"] == pytest.approx(1.0) and ci["cc_time_gap_hi"] == pytest.approx(1.0)


def test_few_seeds_give_intervals_but_no_sampled_verdict():
    live, sim = _sides(LIVE[:3], [t * 1.01 for t in LIVE[:3]])
    ci = grid_stats.intervals(live, sim)
    assert ci["seeds"] == 3 and "cc_time_gap_lo" in ci
    assert grid_stats.settled(["in", "in", "in"], ci["seeds"]) is None
    assert grid_stats.intervals(*_sides(LIVE[:1], LIVE[:1])) == {}


def test_the_interval_is_deterministic_and_uses_only_seeds_both_sides_ran():
    live, sim = _sides(LIVE, [t * (0.6 if i % 2 else 1.0) for i, t in enumerate(LIVE)])
    assert grid_stats.intervals(live, sim) == grid_stats.intervals(live, sim)
    del sim["cc"][12]
    assert grid_stats.intervals(live, sim)["seeds"] == 11


def test_placement_bounds():
    assert grid_stats.placement(-5.0, 5.0, 5.0) == "in"
    assert grid_stats.placement(5.1, 9.0, 5.0) == "out" and grid_stats.placement(-9.0, -5.1, 5.0) == "out"
    assert grid_stats.placement(-6.0, 1.0, 5.0) == "open"
    assert grid_stats.placement(None, 1.0, 5.0) is None


def test_the_grid_table_shows_the_intervals_within_80_columns():
    from test_live_grid import _seeded_frame

    spec = grid.GridSpec(rates_mbps=(20,), rtts_ms=(20,), losses_pct=(0.0,), runs=3, profiles=("linux",))
    t = grid.summarize(spec, _seeded_frame((1.0, 4.0, 8.0), (1.2, 4.8, 9.6)))
    assert t.loc[0, "linux_ci_seeds"] == 3 and t.loc[0, "linux_ci_cc_time_gap_lo"] == pytest.approx(20.0)
    text = grid.text_tables(spec, t)
    assert "Medians' gaps (linux) with 95 % intervals" in text and "+20.0 [+20,+20]" in text
    assert max(len(line) for line in text.splitlines()) <= 80, text
