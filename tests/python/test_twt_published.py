"""TWT against a published ns-3 duty-cycle sweep (issue 30, "What it must show", third item).

The reference (scenarios/validation/twt-duty-ns3-reference.csv, transcribed from a public ns-3
log; docs/validation.md "TWT against a published ns-3 duty-cycle sweep" cites it and spells
out both configurations) is one 802.11ax station whose ~2 Mb/s uplink goes only inside its
TWT service periods, swept over the duty cycle D / I at I = 102.4 ms. wattlab runs the same
shape (scenarios/validation/twt-duty-ns3-ax.toml) at every duty cycle where the reference
delivered its whole stream, and the checks below compare, each with the tolerance's reason:
the awake (doze) fraction, the energy, the energy's slope against the duty cycle, the mean
uplink delay; and where the two are not the same work (low duty cycles), that they are not.
"""

from __future__ import annotations

import csv
import math
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest

import wattlab
from wattlab.models import twt

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = ROOT / "scenarios/validation/twt-duty-ns3-ax.toml"
REFERENCE = ROOT / "scenarios/validation/twt-duty-ns3-reference.csv"

INTERVAL_MS = 102
"""wattlab's wake interval: whole milliseconds (the reference's is 102.4 ms); the duty cycle D / I is what both sweep."""
WINDOW_S = 30.0
"""wattlab's run; the reference's window is 30.003 s (its rows' time_elapsed_s), so energies are scaled by the ratio."""
PACKET_BITS = 1500 * 8

POWERS = twt.StatePowers.from_currents(3.0, sleep_a=0.12e-3, idle_a=50e-3, rx_a=66e-3, tx_a=232e-3)
"""The reference's state currents at 3.0 V (scenarios/validation/twt-ns3-cc3235sf.toml)."""


def reference_rows() -> list[dict]:
    with REFERENCE.open() as f:
        return [{k: float(v) for k, v in r.items()} for r in csv.DictReader(line for line in f if not line.startswith("#"))]


def same_work_rows() -> list[dict]:
    """Rows in which the reference delivered the offered stream: no expired MPDU and mean delay under one interval.

    Below D / I = 0.04 its station cannot send ~25 kB per SP in time: MPDUs expire (0.005 to
    0.015) or TCP's throughput falls to 0.96–1.9 Mb/s; those rows are not the same work."""
    return [r for r in reference_rows() if r["configured_duty"] >= 0.04]


def requested_us(duty: float) -> int:
    """The wake duration asked for at duty cycle ``duty``, µs."""
    return round(duty * INTERVAL_MS * 1000)


def on_air_us(duration_us: int) -> int:
    """The wake duration the AP's TWT Setup response carries and the BSS follows: rounded up
    to the TWT element's 256 µs unit, or 1 TU beyond 255 units (docs/wlan.md)."""
    unit = 1024 if duration_us > 255 * 256 else 256
    return math.ceil(duration_us / unit) * unit


@lru_cache(maxsize=None)
def run(duty: float, rate_kbps: int):
    """wattlab at duty cycle ``duty`` with a ``rate_kbps`` uplink: (flow row, radio row)."""
    duration_us = requested_us(duty)
    result = wattlab.run(
        str(SCENARIO),
        overrides=[f'wlan.0.power_save="twt:interval={INTERVAL_MS}ms,duration={duration_us}us,trigger=true"', f'flow.0.rate="{rate_kbps}kbps"'],
    )
    radios = result.radios
    radio = radios[(radios.node == "phone") & radios.policy.str.startswith("twt:")].iloc[0]
    return result.flows.iloc[0], radio


def compared(row: dict):
    """wattlab's run for a reference row: same duty cycle, same delivered uplink rate."""
    flow, radio = run(row["configured_duty"], round(row["ul_throughput_kbps"]))
    # Same work: every datagram arrives but those still held for the next SP when the run ends
    # (at most one interval's worth).
    assert flow.datagrams_lost <= math.ceil(row["ul_throughput_kbps"] * 1e3 * INTERVAL_MS / 1e3 / PACKET_BITS), flow
    return flow, radio


def awake_fraction(radio) -> float:
    return (WINDOW_S - radio.time_sleep_s) / WINDOW_S


def test_the_reference_is_the_closed_form_state_time_model():
    """Every reference row is E = 3.0 V × Σ current × time (awake + asleep = the window, the
    awake time's energy at least the idle current's), and its slope against the awake time is
    (P_idle − P_sleep): the reference reports energy the way wattlab.models.twt computes it."""
    rows = same_work_rows()
    for r in reference_rows():
        assert r["time_awake_s"] + r["time_asleep_s"] == pytest.approx(r["time_elapsed_s"], abs=1e-4)
        assert r["time_awake_s"] / r["time_elapsed_s"] == pytest.approx(r["effective_duty"], abs=2e-6)
        t_tx = twt.tx_time_from_energy(POWERS, r["energy_j"], r["time_elapsed_s"], r["time_awake_s"])
        assert 0 <= t_tx < r["time_awake_s"], r
    # Within one seed the delivered bytes are fixed, so E against t_awake is a line of slope P_idle − P_sleep.
    for seed in sorted({r["seed"] for r in rows}):
        seed_rows = [r for r in rows if r["seed"] == seed and r["configured_duty"] >= 0.05]
        slope = np.polyfit([r["time_awake_s"] for r in seed_rows], [r["energy_j"] for r in seed_rows], 1)[0]
        # 2 %: the Tx time grows by 2-10 % from D/I = 0.05 to 0.6 (fewer packets per A-MPDU in longer SPs).
        assert slope == pytest.approx(POWERS.idle - POWERS.sleep, rel=0.02), slope


def test_wattlab_is_the_closed_form_on_its_own_state_times():
    flow, radio = compared(next(r for r in same_work_rows() if r["configured_duty"] == 0.1))
    closed = twt.energy(POWERS, WINDOW_S, WINDOW_S - radio.time_sleep_s, radio.time_tx_s, radio.time_rx_s)
    assert radio.energy_j == pytest.approx(float(closed), rel=1e-9)


@pytest.mark.parametrize("row", same_work_rows(), ids=lambda r: f"seed{int(r['seed'])}-duty{r['configured_duty']}")
def test_doze_fraction_energy_and_delay_against_the_reference(row):
    flow, radio = compared(row)
    duty = row["configured_duty"]
    ours = awake_fraction(radio)
    # wattlab's station is awake for exactly its SPs: D / I with D as the AP's response carries
    # it (102 ms × duty rounded up to 256 µs or 1 TU: +0.39 % at every duty cycle here, since
    # 102 000 µs = 398.4375 × 256), less the part of the last SP the 30 s run cuts off (294.1
    # intervals: at most 0.3 % at D / I = 0.6), plus the setup (< 1 ms).
    assert ours == pytest.approx(on_air_us(requested_us(duty)) / (INTERVAL_MS * 1000), rel=0.005), ours
    # The reference's is 1.7-2.0 % below D / I in every row from 0.05 on (as if its SPs recurred
    # every 104.4 ms, not 102.4: 102.4 / 104.4 = 0.9808); the ratio is that gap, not noise, less
    # the 0.39 % wattlab's rounded-up SPs add (measured 0.976-0.980; was 0.980-0.984).
    ratio = row["effective_duty"] / ours
    assert 0.975 <= ratio <= 0.985, ratio
    # Energy: the same bytes over the same window. wattlab's is 4.3-5.2 % higher: the longer
    # awake time above (up to 1.9 % of E at D / I = 0.6) and a longer Tx time: one TB PPDU per
    # trigger (a datagram arriving in an open SP goes alone; up to 12 % more Tx at 0.6, 2 % of E),
    # and every TB PPDU at 1.6 us GI with an 8 us HE-STF (a TB PPDU has no 0.8 us GI), where the
    # reference's contending station sends HE SU PPDUs at 0.8 us: data symbols 14.4 instead of
    # 13.6 us (+5.9 % Tx time, ~4 % of E here, where Tx is ~70 % of the energy). Before the TB
    # airtime (wt-btwt) this was 0.2-3.6 %.
    ours_j = radio.energy_j * row["time_elapsed_s"] / WINDOW_S
    assert 0.0 <= ours_j / row["energy_j"] - 1 <= 0.06, (ours_j, row["energy_j"])
    # At equal awake time (the reference's energy moved to wattlab's awake time by the closed
    # form) the rest is the Tx/Rx time only: +2.9 to +4.6 %, the TB PPDU's longer symbols most
    # of it (-0.4 to +2.1 % with the TB PPDU costed as HE SU): within 0 to +5 %.
    moved = row["energy_j"] + (POWERS.idle - POWERS.sleep) * (ours * row["time_elapsed_s"] - row["time_awake_s"])
    assert 0.0 <= ours_j / moved - 1 <= 0.05, (ours_j, moved)
    # Mean uplink delay: both hold each datagram for the next SP. From D / I = 0.07 on within
    # 2 ms: the reference's seeds (different video frames over TCP) differ by up to 2.1 ms at
    # one duty cycle (0.2). Below, its TCP queues behind the short SPs (56-77 ms against 50 ms).
    if duty >= 0.07:
        assert flow.delay_mean_ms == pytest.approx(row["ul_latency_mean_ms"], abs=2.0)


def test_the_energy_slope_against_the_duty_cycle_matches():
    """dE / d(D/I) over 0.05-0.3 (both seeds' shared rows): the reference 4.52 J, wattlab
    4.63 J (4.61 J with the TB PPDU costed as HE SU); the closed form with the Tx time fixed is (P_idle − P_sleep) × T = 4.49 J. Both
    exceed it by their Tx time's growth with the SP length; within 3 % of each other."""
    rows = [r for r in same_work_rows() if r["seed"] == 1000 and 0.05 <= r["configured_duty"] <= 0.3]
    duties = [r["configured_duty"] for r in rows]
    ref = np.polyfit([r["effective_duty"] for r in rows], [r["energy_j"] for r in rows], 1)[0]
    ours = np.polyfit(duties, [compared(r)[1].energy_j for r in rows], 1)[0]
    closed = float(twt.energy_per_duty(POWERS, WINDOW_S))
    assert ref > closed and ours > closed
    assert ours == pytest.approx(ref, rel=0.03), (ours, ref)


def test_below_the_streams_airtime_the_two_are_not_the_same_work():
    """At D / I = 0.02 (2.04 ms SPs) one interval's ~25 kB need ~2.4 ms of air. The reference's
    station stops at the SP's end: its TCP delivers 0.96-1.27 Mb/s of the ~2 Mb/s. wattlab's
    answers the trigger with one TB PPDU holding the whole queue and finishes it past the SP's
    end (the wake duration is a nominal minimum): it delivers everything, awake ~2.5 % of the
    time, not 2 %. Neither energy is comparable, and the comparison above excludes them."""
    low = [r for r in reference_rows() if r["configured_duty"] == 0.02]
    assert all(r["ul_throughput_kbps"] < 0.7 * 1933 for r in low)
    flow, radio = run(0.02, 1933)
    assert flow.datagrams_lost <= 17
    assert awake_fraction(radio) > 1.1 * 0.02
