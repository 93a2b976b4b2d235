"""The SCTP tunnel through the Python API: its endpoints' table, the baseline without the
tunnel, and the written result set (docs/tunnel.md)."""

from pathlib import Path

import pytest

import wattlab

SCENARIO = Path(__file__).resolve().parents[2] / "scenarios" / "tunnel-4flows.toml"


def test_tunnel_table_savings_and_files(tmp_path):
    res = wattlab.run(str(SCENARIO), overrides=["simulation.duration=3s"], baseline=True)
    t = res.tunnels.set_index("side")
    assert list(t.index) == ["client", "ap"]
    # What one end sent as inner packets the other delivered (nothing is lost on this path
    # except what is still in flight at the end).
    assert t.loc["client", "inner_in"] > 500
    assert abs(int(t.loc["client", "inner_in"]) - int(t.loc["ap", "inner_delivered"])) < 50
    assert int(t.loc["client", "dropped_malformed"]) == 0
    s = res.savings.iloc[0]
    assert s["mode"] == "u-apsd" and "without the [[tunnel]]" in s["baseline"]
    assert 0.3 < s["saving"] < 1.0
    assert res.baseline.summary.get("tunnels", []) == []
    written = res.write(tmp_path)
    assert any(Path(p).name.startswith("tunnels.") for p in written)


def test_simulator_rows_for_the_reproduction():
    from wattlab.reproduce.hashimoto2013_tunnel import simulator as sim
    from wattlab.reproduce.hashimoto2013_tunnel.config import Config

    pts = sim.grid_points(Config())
    two = pts[(pts.q == 0.1) & (pts.n_flows == 3) & pts.m.isin([1, 5])]
    rows = sim.check(sim.simulate(two, duration_s=5))
    assert list(rows.m) == [1, 5]
    assert set(sim.SIM_COLUMNS) <= set(rows.columns)
    # The same traffic reaches its rate, costs the same awake, and bursting saves more.
    assert (abs(rows.goodput_kBps - 450) < 25).all()
    assert abs(rows.p_cam_w.iloc[0] / rows.p_cam_w.iloc[1] - 1) < 0.05
    assert rows.p_ratio.iloc[1] > rows.p_ratio.iloc[0] + 0.3
    # The U-APSD mode the run used and the ideal-sleep accounting of its traffic nearly agree.
    assert (abs(rows.p_mode_w / rows.p_sleep_w - 1) < 0.1).all()


def _series(rows, node="client"):
    import pandas as pd

    return pd.DataFrame([{"node": node, "policy": "always-on", "time_s": t, "state": s} for t, s in rows])


def test_gap_stats_counts_what_ends_each_slept_gap():
    from wattlab.models import tcp_energy as te
    from wattlab.reproduce.hashimoto2013_tunnel import gaps

    w = te.Wni.from_profile("atheros-ar5004")
    # data sent at 0, 5 and 10 ms (260 µs each), a trigger (36 µs) at 3 ms, a frame received
    # (30 µs) at 8 ms; the run ends at 11.5 ms.
    ser = _series([(0.0, "tx"), (260e-6, "idle"), (3e-3, "tx"), (3.036e-3, "idle"), (5e-3, "tx"), (5.26e-3, "idle"),
                   (8e-3, "rx"), (8.03e-3, "idle"), (10e-3, "tx"), (10.26e-3, "idle")])
    end = 11.5e-3
    g = gaps.gap_stats(ser, end, t0_s=0.0, wni=w)
    idle = [3e-3 - 260e-6, 5e-3 - 3.036e-3, 8e-3 - 5.26e-3, 10e-3 - 8.03e-3, end - 10.26e-3]
    assert round(g["sleeps_s"] * end) == 5  # every gap is longer than t^st (1.001 ms), the last (1.24 ms) ...
    assert round(g["loss_sleeps_s"] * end) == 1  # ... shorter than the break-even time (1.766 ms)
    assert abs(g["gaps_s"] * end - 5) < 1e-9 and abs(g["wake_small_tx_s"] * end - 1) < 1e-9
    assert abs(g["wake_data_s"] * end - 2) < 1e-9 and abs(g["wake_rx_s"] * end - 1) < 1e-9
    assert abs(g["bursts_s"] * end - 3) < 1e-9 and abs(g["data_frames_s"] * end - 3) < 1e-9
    e_cam = w.p_tx * (3 * 260e-6 + 36e-6) + w.p_rx * 30e-6 + w.p_idle * sum(idle)
    save = sum(w.p_idle * x - w.p_sleep * (x - w.t_st) - w.e_st for x in idle if x > w.t_st)
    assert abs(g["p_cam_w"] - e_cam / end) < 1e-12 and abs(g["p_sleep_w"] - (e_cam - save) / end) < 1e-12
    # Renewal: between the burst starts (0, 5, 10 ms) one gap each, 5 ms minus the activity there.
    ren = [5e-3 - 296e-6, 5e-3 - 290e-6]
    e = e_cam * 10e-3 / end
    want = (e - sum(w.p_idle * x - w.p_sleep * (x - w.t_st) - w.e_st for x in ren)) / 10e-3
    assert abs(g["renewal_p_sleep_w"] - want) < 1e-12
    assert g["renewal_p_sleep_w"] < g["p_sleep_w"]  # one long gap per burst sleeps better than the split ones


def test_gap_stats_costs_exactly_the_window():
    """The CAM power over [t0, end) is the core's meter up to both instants (issue 28, physics
    once): the interval that straddles t0 counts from t0 (the Python sum left it out whole)."""
    from wattlab.models import tcp_energy as te
    from wattlab.reproduce.hashimoto2013_tunnel import gaps

    w = te.Wni.from_profile("atheros-ar5004")
    ser = _series([(0.0, "tx"), (260e-6, "idle"), (5e-3, "tx"), (5.26e-3, "idle"), (8e-3, "rx"), (8.03e-3, "idle")])
    g = gaps.gap_stats(ser, 10e-3, t0_s=4e-3, wni=w)
    e_cam = w.p_idle * (1e-3 + 2.74e-3 + 1.97e-3) + w.p_tx * 260e-6 + w.p_rx * 30e-6
    assert g["p_cam_w"] == pytest.approx(e_cam / 6e-3, rel=1e-12)


def test_gap_stats_refuses_an_empty_window():
    import pytest

    from wattlab.reproduce.hashimoto2013_tunnel import gaps

    with pytest.raises(ValueError, match="no always-on radio series for 'client'"):
        gaps.gap_stats(_series([(0.0, "idle")], node="ap"), 1.0, t0_s=0.0)


def test_controlled_settings_change_one_thing_each():
    import pytest

    from wattlab.reproduce.hashimoto2013_tunnel import simulator as sim

    def scn(**kw) -> dict:
        return sim.BASE.effective(sim.overrides(0.1, 1, 1, 150, 1024, duration_s=2, **kw))

    base = scn()
    assert scn(power_save="cam")["wlan"][0]["power_save"] == "cam" and base["wlan"][0]["power_save"] == "u-apsd"
    assert scn(delayed_ack=False)["flow"][0]["tcp"] == {"delayed_ack": False}
    assert scn(rts=True)["wlan"][0]["rts_threshold"] == "500B"
    assert scn(trigger_min_ms=5)["tunnel"][0]["trigger_min"] == "5ms"
    assert "tcp" not in base["flow"][0] and "rts_threshold" not in base["wlan"][0] and "trigger_min" not in base["tunnel"][0]
    with pytest.raises(ValueError, match="trigger_min_ms needs"):
        sim.overrides(0.1, 1, 1, 150, 1024, power_save="cam", trigger_min_ms=5)
    with pytest.raises(ValueError, match="unknown power_save 'psm'"):
        sim.overrides(0.1, 1, 1, 150, 1024, power_save="psm")


def test_trigger_floor_sets_the_m1_sleep():
    """Claim S1's m = 1 gap (docs/tunnel.md): the explicit triggers' floor t_min, not the model's
    sleep rule, decides how long the gaps are; a higher floor leaves fewer, longer gaps."""
    from wattlab.reproduce.hashimoto2013_tunnel import gaps
    from wattlab.reproduce.hashimoto2013_tunnel import simulator as sim

    out = {}
    for t_min in (2, 10):
        res = sim.run_point(0.1, 1, 3, 150, 1024, duration_s=6, trigger_min_ms=t_min, timeseries=True)
        out[t_min] = gaps.gap_stats(res.radio_series, res.summary["end_time_s"])
    low, high = out[2], out[10]
    # With t_min = 2 ms nearly every slept gap ends in a short uplink frame (the trigger) ...
    assert low["wake_small_tx_s"] > 0.95 * low["sleeps_s"]
    assert low["mean_sleep_gap_ms"] < 2.2
    # ... and a 10 ms floor halves the wake-ups and lowers the ideal-sleep power by > 0.2 W.
    assert high["sleeps_s"] < 0.5 * low["sleeps_s"]
    assert high["p_sleep_w"] < low["p_sleep_w"] - 0.2


def test_gap_table_and_s1_by_setting_on_a_tiny_grid():
    from wattlab.reproduce.hashimoto2013_tunnel import gaps
    from wattlab.reproduce.hashimoto2013_tunnel import simulator as sim
    from wattlab.reproduce.hashimoto2013_tunnel.config import Config

    cfg = Config(q_values=[0.5], sim_duration_s=2.0)
    pts = sim.grid_points(cfg)
    t = gaps.gap_table(pts[pts.aggregate_kBps == 150], duration_s=2.0, t0_s=0.0)
    assert list(t.m) == [1, 2, 5] and (t.mod_bursts_s > 0).all()
    # The run's own ideal-sleep accounting and the gap accounting of its whole series agree.
    direct = sim.simulate(pts[pts.aggregate_kBps == 150], duration_s=2.0)
    assert (abs(t.p_sleep_w.to_numpy() - direct.p_sleep_w.to_numpy()) < 0.02).all()
    s1 = gaps.s1_by_setting(cfg, names=("default", "CAM station"))
    assert list(s1.settings) == ["default", "CAM station"] and (s1.points == 12).all()
    assert ((0 <= s1.within) & (s1.within <= s1.p_sleep_within) & (s1.p_sleep_within <= 12)).all()
