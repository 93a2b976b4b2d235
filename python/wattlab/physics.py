"""The core's physics for Python: 802.11 frame timing, a radio's break-even time and the energy
of a radio state timeline, computed by the Rust core (``wattlab._core``), never re-derived here.

Arguments broadcast like numpy's (scalars or arrays in, float arrays of seconds or joules out);
one call per array, so a model evaluating 10^6 points stays vectorised (arrays cross as
contiguous buffers, results come back as bytes read by ``numpy.frombuffer``).

- :func:`phy` (a PHY's slot, SIFS, DIFS, contention windows, rates), :data:`FRAME_BYTES`;
- :func:`frame_s`, :func:`data_frame_s`, :func:`ack_s`, :func:`exchange_s`,
  :func:`control_rate_kbps`: airtimes as ``crates/wattlab-core/src/wlan/phy.rs`` computes them;
- :func:`ppdu_s`, :func:`mcs_info`: HT/VHT/HE (802.11n/ac/ax) PPDU airtimes and MCS rates;
- :func:`break_even_s`: the shortest idle gap worth sleeping through (``energy::break_even_time``);
- :func:`timeline_energy`: a state timeline costed by the core's meter (energy per owner and up
  to instants, the meter's transition legs and attribution).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from wattlab import _core

RADIO_STATES: tuple[str, ...] = tuple(_core.radio_states())
"""The radio states in the core's order (a state's code is its position)."""
FRAME_BYTES: dict[str, int] = dict(_core.wlan_frame_bytes())
"""The MAC's frame sizes (bytes): data_overhead, qos_extra, ack, rts, ps_poll, null_frame, beacon."""


@lru_cache(maxsize=None)
def _phy(name: str, short_preamble: bool) -> dict:
    return dict(_core.phy_profile(name, short_preamble))


def phy(name: str, short_preamble: bool = False) -> dict:
    """A PHY's timing (a copy): the core's dict (``slot_ns``, ``sifs_ns``, ``difs_ns``,
    ``eifs_ns``, ``cw_min``, ``cw_max``, ``rates_kbps``, …) plus the times in seconds
    (``slot_s``, ``sifs_s``, ``difs_s``, ``eifs_s``)."""
    d = dict(_phy(name, short_preamble))
    for k in ("slot", "sifs", "difs", "eifs", "signal_extension"):
        d[f"{k}_s"] = d[f"{k}_ns"] / 1e9
    return d


def phy_names() -> list[str]:
    """The built-in PHYs' names."""
    return list(_core.phy_names())


def ppdu_s(phy_name: str, psdu_bytes, mcs: int, nss: int = 1, width_mhz: int = 20, gi_ns: int = 800,
           band: str | None = None, packet_padding_us: int = 0) -> np.ndarray:
    """Airtime (s) of 802.11n/ac/ax PPDUs carrying PSDUs of ``psdu_bytes`` at one MCS (``mcs``
    per stream, ``nss`` streams, ``width_mhz``, ``gi_ns``) in ``band`` (default 5 GHz), with
    ``packet_padding_us`` of HE nominal packet padding; an invalid combination raises
    ``ValueError`` naming what is valid."""
    b = np.broadcast_arrays(_ints("psdu_bytes", psdu_bytes))[0]
    flat = np.ascontiguousarray(b.ravel(), dtype=np.int64)
    raw = _core.ppdu_durations_ns(phy_name, flat, mcs, nss, width_mhz, gi_ns, band, packet_padding_us)
    return _array(raw, np.int64).reshape(b.shape) / 1e9


def mcs_info(phy_name: str, mcs: int, nss: int = 1, width_mhz: int = 20, gi_ns: int = 800,
             band: str | None = None) -> dict:
    """One 802.11n/ac/ax MCS: ``data_rate_bps``, ``response_kbps`` (the non-HT rate of the
    ACK answering it) and ``modulation``."""
    return dict(_core.mcs_info(phy_name, mcs, nss, width_mhz, gi_ns, band))


def _ints(name: str, x) -> np.ndarray:
    """``x`` as int64, refusing values that are not whole numbers (byte counts, kb/s)."""
    a = np.asarray(x)
    if a.dtype.kind in "iu":
        return a.astype(np.int64)
    r = np.rint(a)
    if not np.array_equal(r, a):
        raise ValueError(f"{name} must be whole numbers (got {a[r != a].ravel()[:3].tolist()} …)")
    return r.astype(np.int64)


def _array(raw, dtype) -> np.ndarray:
    """A result of the core (native-endian bytes) as a writable array of ``dtype``."""
    return np.frombuffer(raw, dtype=dtype)


def _call(fn, *arrays, **kw) -> np.ndarray:
    """``fn`` on the broadcast, flattened int64 arrays; its ns result reshaped, in seconds."""
    b = np.broadcast_arrays(*arrays)
    flat = [np.ascontiguousarray(a.ravel(), dtype=np.int64) for a in b]
    return _array(fn(*flat, **kw), np.int64).reshape(b[0].shape) / 1e9


def frame_s(phy_name: str, mpdu_bytes, rate_kbps, short_preamble: bool = False) -> np.ndarray:
    """Airtime (s) of PPDUs carrying MPDUs of ``mpdu_bytes`` (MAC header and FCS included) at
    ``rate_kbps`` (one of the PHY's rates): preamble, PLCP header, OFDM symbols or DSSS
    microseconds, signal extension."""
    b, r = _ints("mpdu_bytes", mpdu_bytes), _ints("rate_kbps", rate_kbps)
    return _call(lambda b, r: _core.frame_durations_ns(phy_name, b, r, short_preamble), b, r)


def data_frame_s(phy_name: str, ip_bytes, rate_kbps, short_preamble: bool = False) -> np.ndarray:
    """Airtime (s) of data frames carrying ``ip_bytes`` IP packets (the MAC header, FCS and
    LLC/SNAP the simulator adds: ``FRAME_BYTES["data_overhead"]``)."""
    b, r = _ints("ip_bytes", ip_bytes), _ints("rate_kbps", rate_kbps)
    return _call(lambda b, r: _core.data_durations_ns(phy_name, b, r, short_preamble), b, r)


def ack_s(phy_name: str, data_kbps, short_preamble: bool = False) -> np.ndarray:
    """Airtime (s) of the MAC ACK answering a frame sent at ``data_kbps`` (at the control rate)."""
    return _call(lambda r: _core.ack_durations_ns(phy_name, r, short_preamble), _ints("data_kbps", data_kbps))


def exchange_s(phy_name: str, ip_bytes, rate_kbps, propagation_s: float = 0.0, short_preamble: bool = False) -> np.ndarray:
    """Channel time (s) of one collision-free exchange per ``ip_bytes`` packet: DIFS, mean
    backoff (CW_min/2 slots), the data frame, SIFS and the MAC ACK, the propagation delay
    paid by each frame."""
    b, r = _ints("ip_bytes", ip_bytes), _ints("rate_kbps", rate_kbps)
    prop = int(round(propagation_s * 1e9))
    return _call(lambda b, r: _core.exchange_durations_ns(phy_name, b, r, prop, short_preamble), b, r)


def control_rate_kbps(phy_name: str, data_kbps: int) -> int:
    """The rate (kb/s) of the control frames answering ``data_kbps``: the highest basic rate
    not above it."""
    return int(_core.control_rate_kbps(phy_name, int(data_kbps)))


def break_even_s(profile: str | None = None, *, idle_w: float | None = None, sleep_w: float | None = None,
                 down_s: float = 0.0, down_w: float = 0.0, up_s: float = 0.0, up_w: float = 0.0) -> float:
    """The shortest idle gap (s) worth sleeping through (the ``oracle`` policy's threshold;
    ``inf`` if sleep saves nothing): of a built-in ``profile``, or of a radio given by its idle
    and sleep powers (W) and its idle → sleep (``down``) and sleep → idle (``up``) transitions
    (s, W). The core works in ns and µW and rounds the result up to the nanosecond."""
    if profile is not None:
        ns = _core.break_even_ns(profile)
    else:
        if idle_w is None or sleep_w is None:
            raise ValueError("give a profile name, or idle_w and sleep_w")
        uw = lambda w: int(round(w * 1e6))  # noqa: E731
        ns_of = lambda s: int(round(s * 1e9))  # noqa: E731
        ns = _core.break_even_ns_of(uw(idle_w), uw(sleep_w), ns_of(down_s), uw(down_w), ns_of(up_s), uw(up_w))
    return float("inf") if ns is None else ns / 1e9


def state_codes(states) -> np.ndarray:
    """Radio state names (``idle``, ``sleep``, …) as the core's codes (uint8)."""
    import pandas as pd

    names = np.asarray(states, dtype=object).ravel()
    codes = pd.Index(RADIO_STATES).get_indexer(names)
    if (codes < 0).any():
        bad = sorted({str(s) for s in names[codes < 0]})
        raise ValueError(f"unknown radio state(s) {', '.join(bad)} (known: {', '.join(RADIO_STATES)})")
    return codes.astype(np.uint8)


def _ns(name: str, t_s) -> np.ndarray:
    """Seconds to integer ns (the simulator's times are whole ns, so this is exact)."""
    t = np.asarray(t_s, dtype=float)
    if not np.isfinite(t).all():
        raise ValueError(f"{name} must be finite")
    return np.ascontiguousarray(np.rint(t * 1e9).astype(np.int64).ravel())


def timeline_energy(profile: str, time_s, states, end_s: float, owners=None, at_s=None,
                    free_wakeups: bool = False) -> dict:
    """A radio state timeline costed by the core's meter with the built-in ``profile``.

    ``time_s`` and ``states`` are the changes in time order (the first row is the start and
    its state), e.g. one meter's rows of a run's ``radio_series``; ``end_s`` the end of the
    run. ``free_wakeups``: wake-ups from sleep cost nothing (ideal PSM's meter). Returns
    ``energy_j`` (the whole timeline), ``by_owner_j`` (if ``owners`` gives an integer owner
    per row: each owner's energy, a wake-up paid by the owner the radio woke for) and
    ``at_j`` (if ``at_s``: the energy up to each instant, shaped like ``at_s``; NaN after the
    end).
    """
    t = _ns("time_s", time_s)
    codes = np.ascontiguousarray(state_codes(states).ravel())
    own = None if owners is None else np.ascontiguousarray(np.asarray(owners).ravel().astype(np.uint32))
    at = None if at_s is None else _ns("at_s", at_s)
    end = int(_ns("end_s", end_s)[0])
    out = dict(_core.radio_timeline_energy(profile, t, codes, end, own, at, free_wakeups))
    out["by_owner_j"] = _array(out["by_owner_j"], np.float64)
    out["at_j"] = _array(out["at_j"], np.float64)
    if at_s is not None:
        out["at_j"] = out["at_j"].reshape(np.shape(at_s))
    return out
