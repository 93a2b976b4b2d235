"""Today's simulator judged against the live grid measured on 2026-11-28 (data/live-grid-2026-11-28:
360 live runs of real Linux TCP, 3 per shape and mode and 12 at eleven shapes, stored as the grid's
records with their energy from the SYN to the last byte). No root: `--rejudge` runs the simulator only. A regression guard for
the `linux` profile: it fails if a model change moves an always-on download out of ±5 % of live
or loses a shape that passes the issue's verdict (or the paired one) today."""

from __future__ import annotations

import pandas as pd
from click.testing import CliRunner

from conftest import ROOT
from wattlab.cli_live import live_app

STORED = ROOT / "data" / "live-grid-2026-11-28"
# Shapes measured with 12 runs per mode (seeds 1-12; the others 1-3): every 0.5 % shape (the loss
# pattern alone spreads their times 2-4x) and the two 0 % shapes whose cc agent's reversion was a
# lottery at 3 runs (docs/live.md, "Twelve runs at the lottery shapes").
TWELVE = {"r5-d20-l0.5", "r5-d90-l0.5", "r5-d200-l0.5", "r20-d20-l0.5", "r20-d90-l0.5", "r20-d200-l0.5",
          "r50-d20-l0.5", "r50-d90-l0.5", "r50-d200-l0.5", "r50-d90-l0", "r50-d200-l0"}
# The always-on downloads' bound (time gap to the live median, %): ±5 at every shape. (At 50 Mb/s
# 20 ms 0.5 % the simulated download is faster than live's at most seeds: -3.8 % on medians
# today, -5.4 % before Linux's SACK compression; docs/live.md, wt-perseed.)
ALWAYS_ON_BOUND: dict[str, float] = {}
# Shapes (rate, RTT, loss) where `linux` passes the verdict (medians: time ±5 %, saving
# ±3 pp) after session 44: Linux's PRR rules (`prr_variant`), RTO restarts (`rto_rearm`), recovery
# point (`recovery_point`), the flight's last segment (`ack_pushed`, `push_window_end`,
# `scaling_ratio`), SACK compression (`sack_compress`), RTT samples (`rtt_sample`), the RTO's
# timer wheel (`rto_timer`), the flight outside recovery (`in_flight`), and the testbed's own
# measured times: the agent's processing per packet (grid.SIM_AGENT) and the server's transmit
# path (grid.SIM_HOST); docs/live.md "Session 44" has each step.
PASSED = {"r5-d20-l0", "r5-d20-l0.5", "r5-d90-l0", "r5-d90-l0.5", "r5-d200-l0", "r20-d20-l0", "r20-d20-l0.5",
          "r20-d90-l0", "r20-d90-l0.5", "r20-d200-l0", "r20-d200-l0.5", "r50-d20-l0", "r50-d20-l0.5",
          "r50-d90-l0", "r50-d90-l0.5", "r50-d200-l0.5"}
# Shapes whose medians gap lies wholly outside the tolerance in the seeds' bootstrap interval
# (wattlab.live.grid_stats): a model gap that more seeds would not close. None today; the two
# shapes allowed here are the agents' reversion at 50 Mb/s 0 % (docs/live.md, wt-fifty), a knife
# edge in the server's transmit time. Every other 12-seed shape is "pass" or "open" (sampling
# alone can move its verdict).
SETTLED_FAIL = {"r50-d90-l0", "r50-d200-l0"}
# Shapes where the paired verdict (median of per-seed gaps, same tolerances) passes.
PASSED_PAIRED = {"r5-d20-l0", "r5-d20-l0.5", "r5-d90-l0", "r5-d90-l0.5", "r5-d200-l0", "r5-d200-l0.5", "r20-d20-l0",
                 "r20-d20-l0.5", "r20-d90-l0", "r20-d90-l0.5", "r20-d200-l0", "r20-d200-l0.5", "r50-d20-l0",
                 "r50-d20-l0.5", "r50-d90-l0", "r50-d90-l0.5", "r50-d200-l0.5"}


def test_linux_profile_against_the_stored_live_grid(tmp_path):
    out = tmp_path / "rj"
    args = ["grid", "--out", str(out), "--rejudge", str(STORED), "--scenario", str(ROOT / "scenarios" / "live-grid.toml"),
            "--profiles", "linux", "--losses", "0,0.5", "--quiet"]
    r = CliRunner().invoke(live_app, args)
    assert r.exit_code == 0, r.output
    g = pd.read_csv(out / "grid.csv").set_index("shape")
    runs = pd.Series({k: 12 if k in TWELVE else 3 for k in g.index})
    assert len(g) == 18 and (g["live_always-on_n"] == runs).all() and (g.live_cc_n == runs).all()
    sims = pd.read_csv(out / "runs.csv").query("side == 'sim'").groupby(["shape", "mode"]).seed.nunique().unstack()
    assert sims["cc"].to_dict() == sims["always-on"].to_dict() == runs.to_dict(), "the simulator runs the seeds live ran, per shape"
    gaps = g["linux_always-on_time_s_gap_pct"]
    bound = pd.Series({k: ALWAYS_ON_BOUND.get(k, 5.0) for k in g.index})
    assert (gaps.abs() <= bound).all(), gaps.to_string()
    passed = set(g.index[g.linux_verdict == "pass"])
    assert PASSED <= passed, f"lost: {sorted(PASSED - passed)}"
    paired = set(g.index[g.linux_paired_verdict == "pass"])
    assert PASSED_PAIRED <= paired, f"lost (paired): {sorted(PASSED_PAIRED - paired)}"
    sampled = g.linux_ci_settled
    assert set(g.index[sampled == "fail"]) <= SETTLED_FAIL, sampled.to_string()
    assert set(g.index[sampled.notna()]) == TWELVE, "a sampled verdict at every 12-seed shape, none below 6 seeds"
