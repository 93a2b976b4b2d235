"""Target Wake Time: the station's energy against its wake interval and wake duration, closed form.

The state-time model every TWT energy study we could read states (ns-3's
``WifiRadioEnergyModel``, which charges each PHY state its current for the time spent in it;
the ns-3 TWT sweep of ``docs/validation.md`` reports energy exactly so): a station under an
individual agreement with wake interval I and nominal wake duration D, whose traffic fits
inside its service periods (SPs), is awake for the n SPs of a window T and dozes otherwise::

    t_awake = n · D            (n = T / I SPs; D / I is the duty cycle)
    E = P_sleep · T + (P_idle − P_sleep) · t_awake + (P_tx − P_idle) · t_tx + (P_rx − P_idle) · t_rx

where t_tx and t_rx (inside the awake time) are the PPDUs the station sends and receives. The
doze fraction is 1 − t_awake / T. Wake-up and doze transitions cost nothing here (the ns-3
reference charges none); a profile's ``[[transition]]`` entries would add per SP.

Vectorised: every argument broadcasts (numpy). Powers in W, times in s, energy in J.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class StatePowers:
    """Radio powers (W) of the four states the model charges."""

    sleep: float
    idle: float
    rx: float
    tx: float

    @classmethod
    def from_currents(cls, volts: float, sleep_a: float, idle_a: float, rx_a: float, tx_a: float) -> "StatePowers":
        """Powers from per-state currents (A) at one supply voltage, as ns-3's energy source gives them."""
        return cls(sleep=volts * sleep_a, idle=volts * idle_a, rx=volts * rx_a, tx=volts * tx_a)


def awake_time(window_s, interval_s, duration_s):
    """Seconds awake in ``window_s``: whole SPs (``window / interval`` of them) of ``duration_s`` each."""
    window_s, interval_s, duration_s = np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in (window_s, interval_s, duration_s)))
    if np.any(duration_s <= 0) or np.any(duration_s >= interval_s):
        raise ValueError("the wake duration must be positive and shorter than the wake interval")
    return window_s / interval_s * duration_s


def energy(powers: StatePowers, window_s, t_awake_s, t_tx_s=0.0, t_rx_s=0.0):
    """Energy (J) of a window in which the station is awake ``t_awake_s`` (its Tx and Rx inside it)."""
    window_s, t_awake_s, t_tx_s, t_rx_s = (np.asarray(x, dtype=float) for x in (window_s, t_awake_s, t_tx_s, t_rx_s))
    if np.any(t_awake_s > window_s) or np.any(t_tx_s + t_rx_s > t_awake_s):
        raise ValueError("Tx and Rx happen while awake, and the awake time is within the window")
    return (
        powers.sleep * window_s
        + (powers.idle - powers.sleep) * t_awake_s
        + (powers.tx - powers.idle) * t_tx_s
        + (powers.rx - powers.idle) * t_rx_s
    )


def energy_per_duty(powers: StatePowers, window_s):
    """dE/d(duty) at fixed traffic: (P_idle − P_sleep) · T, the J each unit of duty cycle costs."""
    return (powers.idle - powers.sleep) * np.asarray(window_s, dtype=float)


def tx_time_from_energy(powers: StatePowers, energy_j, window_s, t_awake_s, t_rx_s=0.0):
    """Invert :func:`energy` for t_tx: what a reported energy implies the station spent sending."""
    energy_j, window_s, t_awake_s, t_rx_s = (np.asarray(x, dtype=float) for x in (energy_j, window_s, t_awake_s, t_rx_s))
    rest = energy_j - powers.sleep * window_s - (powers.idle - powers.sleep) * t_awake_s - (powers.rx - powers.idle) * t_rx_s
    return rest / (powers.tx - powers.idle)
