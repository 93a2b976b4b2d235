"""Adaptive PSM on an 802.11ax BSS, through the ns-3 reference scenarios
(scenarios/validation/apsm-*.toml, docs/validation.md "Adaptive PSM: the ns-3 reference case").

Each check follows from the mode's rules, so a regression in the MAC's Null frames, the AP's
holding or the inactivity timer fails one of them."""

from pathlib import Path

import pytest

import wattlab

ROOT = Path(__file__).resolve().parents[2]
UDP = ROOT / "scenarios/validation/apsm-udp-2mbps-ax.toml"
TCP = ROOT / "scenarios/validation/apsm-tcp-5mb-ax.toml"


def run(path, mode):
    r = wattlab.run(str(path), overrides=[f'wlan.0.power_save="{mode}"'])
    radios = r.radios
    radio = radios[(radios.node == "phone") & (radios.policy == (mode if mode != "cam" else "always-on"))].iloc[0]
    st = r.wlan_stations
    return r.flows.iloc[0], radio, st[st.node == "phone"].iloc[0]


def test_a_timeout_longer_than_the_stream_gaps_keeps_the_station_active_with_two_nulls():
    """2 Mb/s of 1000-byte datagrams (one every 4 ms) never leave 100 ms idle: one PM=0 Null
    at the first TIM (the first datagram, held from 1 s, announced at the beacon of 1.024 s),
    one PM=1 Null 100 ms after the last, no PS-Poll; delay as under CAM but for the first
    datagrams held until that beacon."""
    flow, radio, sta = run(UDP, "adaptive-psm:timeout=100ms")
    cam_flow, cam_radio, _ = run(UDP, "cam")
    assert flow.datagrams_received == flow.datagrams_sent == 5000
    assert (sta.ps_polls, sta.null_frames) == (0, 2)
    assert flow.delay_p50_ms == pytest.approx(cam_flow.delay_p50_ms, abs=1e-3)
    assert flow.delay_mean_ms > cam_flow.delay_mean_ms
    # Asleep before the stream (1 s, less the beacon wake-ups) and after it (21.1 s to 22 s).
    assert 1.8 < radio.time_sleep_s < 2.0
    assert radio.energy_j < cam_radio.energy_j


def test_a_timeout_shorter_than_the_gaps_dozes_between_datagrams_and_waits_for_beacons():
    """2 ms < the 4 ms gap: after each delivery the station returns to PS mode, so from then on
    the AP holds and the station fetches each beacon's burst with a PM=0 Null and leaves with a
    PM=1 Null: two Nulls per beacon of the stream, delays of about half a beacon interval."""
    flow, radio, sta = run(UDP, "adaptive-psm:timeout=2ms")
    assert flow.datagrams_received == 5000
    assert sta.ps_polls == 0
    beacons = 20.0 / 0.1024
    assert sta.null_frames % 2 == 0 and abs(sta.null_frames / 2 - beacons) <= 3
    assert 40 < flow.delay_mean_ms < 60 and flow.delay_max_ms < 110
    assert radio.time_sleep_s > 20.0


def test_static_psm_polls_every_frame_and_adaptive_psm_none():
    flow, _, sta = run(UDP, "psm")
    assert flow.datagrams_received == 5000
    assert sta.ps_polls == 5000 and sta.null_frames == 0


def test_the_tcp_download_completes_and_a_short_timeout_costs_time():
    """Uplink data (the SYN, the ACKs) carries PM=0 itself: with 100 ms the download is as
    fast as under CAM (within a ms) and only the final PM=1 Null is sent; with 2 ms the
    station dozes within the 20 ms RTT and the download takes longer."""
    cam, cam_radio, _ = run(TCP, "cam")
    slow, _, slow_sta = run(TCP, "adaptive-psm:timeout=2ms")
    fast, fast_radio, fast_sta = run(TCP, "adaptive-psm:timeout=100ms")
    for f in (cam, slow, fast):
        assert f.bytes_delivered == 5_000_000 and f.completed
    assert fast.completion_time_s == pytest.approx(cam.completion_time_s, abs=2e-3)
    assert (fast_sta.ps_polls, fast_sta.null_frames) == (0, 1)
    assert slow.completion_time_s > 1.5 * cam.completion_time_s
    assert slow_sta.null_frames > fast_sta.null_frames
    assert fast_radio.energy_j < 0.6 * cam_radio.energy_j
