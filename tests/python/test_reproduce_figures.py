"""The reproductions' figures on small synthetic tables: bars that fit the statistic and the
number of seeds and stay in the quantity's domain, captions that say what the bars are,
legends outside the data, and titles built from the configuration that ran (issue 15, items 3
and 6)."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from matplotlib.collections import LineCollection

from wattlab.reproduce import plotting
from wattlab.reproduce import kontogiannis2005 as k
from wattlab.reproduce import yan_cc as y
from wattlab.reproduce.kontogiannis2005 import experiments as kexp
from wattlab.reproduce.kontogiannis2005 import figures as kfig
from wattlab.reproduce.yan_cc import downloads
from wattlab.reproduce.yan_cc import figures as yfig
from wattlab.reproduce.yan_cc.measure import AGENT_COUNTERS


@pytest.fixture
def kept(monkeypatch):
    """The figures the code under test finishes, kept open instead of closed."""
    figs = []
    monkeypatch.setattr(plotting.plt, "close", lambda fig=None: figs.append(fig))
    return figs


def _bar_ends(ax) -> list[tuple[float, float]]:
    """(low, high) of every vertical error bar drawn in ``ax``."""
    ends = []
    for coll in ax.collections:
        if isinstance(coll, LineCollection):
            for seg in coll.get_segments():
                if len(seg) == 2 and np.isclose(seg[0][0], seg[1][0]):
                    ends.append((min(seg[0][1], seg[1][1]), max(seg[0][1], seg[1][1])))
    return ends


def _caption(fig) -> str:
    return " ".join(t.get_text() for t in fig.texts)


def _assert_legend_outside_axes(fig) -> None:
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    legends = list(fig.legends) + [ax.get_legend() for ax in fig.axes if ax.get_legend()]
    assert legends, "the figure has a legend"
    for leg in legends:
        box = leg.get_window_extent(renderer)
        for ax in fig.axes:
            assert not box.overlaps(ax.get_window_extent(renderer)), (leg, ax.get_title())


# --- seed 003 -------------------------------------------------------------------------------

def _exp2_runs(seeds: int) -> pd.DataFrame:
    """Two seeds that disagree a lot: a t-interval from them would leave every domain."""
    rows = []
    rng = np.random.default_rng(7)
    for n, variant, seed in itertools.product((1, 3, 8), ("tahoe", "vegas"), range(1, seeds + 1)):
        spread = seed % 2
        rows.append({"flows": n, "variant": variant, "seed": seed,
                     "fairness": 1.0 if n == 1 else (0.80 if spread else 1.0),
                     "goodput_bps": 200e3 if spread else 2000e3, "eee_system": 0.001 if spread else 0.4,
                     "energy_j": 10.0 + rng.uniform(0, 5), "run_time_s": 10.0})
    return pd.DataFrame(rows)


def _exp1_runs(seeds: int) -> pd.DataFrame:
    rows = []
    for model, variant, per, seed in itertools.product(("random", "burst"), k.VARIANTS, (0.0, 0.1), range(1, seeds + 1)):
        good = (1200e3 if per == 0 else (5e3 if seed % 2 else 400e3))
        rows.append({"model": model, "variant": variant, "per": per, "seed": seed, "goodput_bps": good,
                     "throughput_bps": good * 1.05, "eee": 0.01 if seed % 2 else 0.45, "overhead": 0.05,
                     "energy_j": 5.0, "time_s": 8.0, "timeouts": 0, "thr_max_bps": 1.6e6})
    return pd.DataFrame(rows)


def test_kontogiannis_two_seed_bars_stay_in_each_quantitys_domain(tmp_path, kept):
    cfg = k.Config.quick_preset()
    kfig.figure4(kexp.exp2_points(_exp2_runs(2), cfg), cfg, tmp_path)
    (fig,) = kept
    panels = {ax.get_title().split(" ")[0]: ax for ax in fig.axes}
    jain = _bar_ends(panels["(a)"])
    assert jain and all(lo >= 1 / 8 - 1e-9 and hi <= 1.0 + 1e-9 for lo, hi in jain), jain
    # Two seeds: the bar is the two values, 200 and 2000 kb/s, not 1100 ± 5700.
    goodput = _bar_ends(panels["(b)"])
    assert (200.0, 2000.0) in [(round(lo), round(hi)) for lo, hi in goodput]
    assert all(lo >= 0 for lo, _ in goodput)
    assert all(lo >= 0 and hi <= cfg.alpha for lo, hi in _bar_ends(panels["(c)"]))
    assert "min–max of the seeds" in _caption(fig) and "mean over 2 seeds" in _caption(fig)


def test_kontogiannis_t_intervals_from_three_seeds_are_clipped_and_said(tmp_path, kept):
    cfg = k.Config.quick_preset()
    cfg.seeds = 3
    kfig.figure2(kexp.exp1_points(_exp1_runs(3), cfg), cfg, tmp_path)
    (fig,) = kept
    ends = [e for ax in fig.axes for e in _bar_ends(ax)]
    assert ends and min(lo for lo, _ in ends) == pytest.approx(0.0), "goodput bars stop at 0 kb/s"
    assert "95 % Student-t interval of the mean" in _caption(fig) and "clipped at 0 kb/s" in _caption(fig)
    _assert_legend_outside_axes(fig)


def test_kontogiannis_titles_come_from_the_configuration(tmp_path, kept):
    cfg = k.Config.quick_preset()
    cfg.exp2_per = 0.005
    kfig.figure4(kexp.exp2_points(_exp2_runs(2), cfg), cfg, tmp_path)
    kfig.figure3(kexp.exp1_points(_exp1_runs(2), cfg), cfg, tmp_path)
    t4, t3 = (f._suptitle.get_text() for f in kept)
    assert "0.5 % random errors" in t4 and "1 MiB per flow" in t4 and "2 seeds" in t4
    assert "one 1 MiB flow" in t3 and "2 seeds" in t3
    for f in kept:
        _assert_legend_outside_axes(f)


# --- seed 000 -------------------------------------------------------------------------------

def _download_runs(seeds: int) -> pd.DataFrame:
    """The Fig. 14/15 grid for CC, PSM and BSD-50: per-seed normalized energies 0.5, 0.6, 0.9
    (median 0.6, mean 0.667 with a 95 % t-interval reaching from 0.19 to 1.15)."""
    rows = []
    vals = [0.5, 0.6, 0.9, 0.55, 0.7]
    for var, rtt, pol, seed in itertools.product(("none", "gamma"), (30, 90), ("cc", "ideal-psm", "bsd-50"),
                                                 range(seeds)):
        e = vals[seed]
        row = {c: 0.0 for c in (*downloads.SUMMED, *downloads.COUNTERS)}
        row.update({"variation": var, "rtt_ms": rtt, "loss": 0.001, "policy": pol, "seed": seed + 1,
                    "completed": True, "norm_energy": e, "norm_time": 1 + e, "saving": 1 - e, "slowdown": e})
        rows.append(row)
    assert set(AGENT_COUNTERS) <= set(rows[0])
    return pd.DataFrame(rows)


def test_yan_cc_whiskers_are_the_seeds_range_around_the_median(tmp_path, kept):
    cfg = y.Config.quick_preset()
    cfg.seeds = 3
    pts = downloads.points(_download_runs(3), ["variation", "rtt_ms", "loss", "policy"])
    yfig.fig15(pts, cfg, tmp_path)
    (fig,) = kept
    energy = [ax for ax in fig.axes if ax.get_ylabel().startswith("normalized energy")]
    ends = {(round(lo, 6), round(hi, 6)) for ax in energy for lo, hi in _bar_ends(ax)}
    assert ends == {(0.5, 0.9)}, "min–max of the seeds, not the mean's t-interval"
    bars = [p.get_height() for ax in energy for p in ax.patches]
    assert set(np.round(bars, 6)) == {0.6}, "the bars are the medians"
    assert "median over 3 seeds; whiskers: min–max of the seeds" in _caption(fig)
    _assert_legend_outside_axes(fig)


def test_yan_cc_one_seed_draws_no_whiskers_and_says_so(tmp_path, kept):
    cfg = y.Config.quick_preset()
    yfig.fig14(downloads.points(_download_runs(1), ["variation", "rtt_ms", "loss", "policy"]), cfg, tmp_path)
    (fig,) = kept
    assert not [e for ax in fig.axes for e in _bar_ends(ax)]
    assert "median over 1 seed; whiskers: none" in _caption(fig)


def test_quick_yan_cc_figure_titles_state_what_ran(tmp_path, kept):
    quick = y.Config.quick_preset()
    pts = downloads.points(_download_runs(1), ["variation", "rtt_ms", "loss", "policy"])
    yfig.fig14(pts, quick, tmp_path)
    yfig.fig15(pts, quick, tmp_path)
    t14, t15 = (f._suptitle.get_text() for f in kept)
    assert "1 MB files" in t14 and "5 MB" not in t14 and "1 seed" in t14 and "20 Mb/s hop" in t14
    assert "0.1 % loss" in t15 and "1 MB files" in t15
    full = y.Config.full()
    assert yfig.setting(full) == "5 MB files, 20 Mb/s hop, 3 seeds"
    assert yfig.setting(quick, rtt_ms=60, loss=0.005) == "1 MB files, 20 Mb/s hop, 60 ms, 0.5 % loss, 1 seed"
