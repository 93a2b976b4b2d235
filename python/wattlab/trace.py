"""The trace analyzer: what a capture's traffic costs a client's radio, under power policies.

Quick start::

    import wattlab.trace
    t = wattlab.trace.energy("phone.pcapng", policies=["always-on", "psm", "adaptive-psm"])
    t.energy        # one row per policy: joules, vs always-on, time and energy per state
    t.attribution   # one row per (policy, connection): the energy each connection caused
    t.timeline      # the radio's state changes per policy (computed on first access for big captures)
    t.plot("timeline.png")

The analysis runs in the Rust core (``wattlab._core.trace_energy``, crate ``wattlab-trace``);
this module turns it into DataFrames, files and a figure. See ``docs/trace.md``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

import pandas as pd

from wattlab import _core
from wattlab.api import write_tables
from wattlab.columns import frame

TraceError = _core.TraceError

STATES = tuple(reversed(_core.radio_states()))
"""Radio states, busiest first (the core's, ``_core.radio_states()``, least power first)."""

STATE_LEVEL = {s: i for i, s in enumerate(_core.radio_states())}
"""Plot level of each state (timeline figures): its place in the core's order, off lowest."""


@dataclass
class TraceEnergy:
    """Result of :func:`energy`: DataFrames, plus what was read and how the client was chosen."""

    capture: dict
    """The capture: path, format, client and how it was chosen (``choice``: given/busiest,
    ``ties``, ``ranked``), records, IP packets, skips by reason, packets and bytes each way,
    broadcast/multicast received, packets of other hosts, oversize packets, airtime model."""
    profile: dict
    """The device profile: name, source, power per state (mW)."""
    energy: pd.DataFrame
    """One row per policy: label, name, ``model`` (``wattlab``; with EnergyBox files
    ``EnergyBox (engine)`` for the ``energybox`` row, ``EnergyBox (definition)`` for the
    adaptive-psm its model defines, ``wattlab (EnergyBox settings)`` for other rows), energy
    (J), share of always-on (NaN in EnergyBox's model, which has no always-on), EnergyBox's
    printed total (``energybox_j``, the ``energybox`` row only), average power, time and energy
    per state, transitions, beacons, replay counters; for a ``twt`` row the received packets it
    held (``held_packets``), their added delay (``delay_mean_ms``, ``delay_p95_ms``,
    ``delay_max_ms`` over every received packet), ``deferred_sends`` and ``service_periods``
    (NaN on the other rows, which keep the capture's packets where they are)."""
    states: pd.DataFrame
    """Long form: (policy, state, time_s, energy_j), transitions as a state."""
    connections: pd.DataFrame
    """One row per connection of the client (or peer and protocol): ports, packets, bytes; past
    ``max_connections``, a last row ``other`` (proto ``other``) holds the evicted ones, with
    their number in ``connections``."""
    attribution: pd.DataFrame
    """One row per (policy, connection): own (its frames and the wake-ups they needed), tail
    (the radio after its frames until the next frame), total and share; connection 0 is the
    time before the first packet."""
    throughput: pd.DataFrame
    """Per bin of capture time: start (s from the run's start), bytes and Mb/s up and down."""
    timeline: pd.DataFrame | None = field(default=None, repr=False, compare=False)
    """State changes: (policy, time_s from the run's start, state). Kept in memory when asked
    (``timeline=True``) or when the capture is small; otherwise computed on first access by a
    second pass over the capture (see :func:`energy`)."""
    timeline_files: dict[str, str] = field(default_factory=dict)
    """Per policy, the CSV its timeline was streamed to (``timeline_dir``)."""
    notes: list[str] = field(default_factory=list)
    """Remarks for the user (ties when choosing the client, ignored EnergyBox keys...)."""
    warnings: list[str] = field(default_factory=list)
    """What a result built on odd timestamps rests on (``accept_odd_times=True``): clock steps
    back, long gaps, sub-second fields out of range, each with its count and first packet.
    Empty when the capture's timestamps passed the checks (``capture["time_checks"]``)."""
    provenance: dict = field(default_factory=dict)
    """What made the result: the capture's path and SHA-256, the analysis options as given,
    wattlab's version and commit."""
    energybox: dict = field(default_factory=dict)
    """Per ``energybox`` row, EnergyBox's engine's outcome: its unrounded and printed energy
    (``energy_j``, ``printed_j``), seconds in PSM, CAM and CAMH, frames, windows counted and
    high, frames out of order, and its ``artifacts`` on this capture (docs/trace.md)."""
    twt: dict = field(default_factory=dict)
    """Per ``twt`` row, what the agreement did to the packets: interval, duration and offset
    (s), service periods, received and held packets, the added delay (``delay_mean_s``,
    ``delay_p95_s``, ``delay_max_s``), deferred sends and their wait, the last delivery
    (``last_end_ns``)."""
    observed: dict = field(default_factory=dict)
    """Per ``observed`` row, what the 802.11 capture showed the station doing: its MAC, AP and
    AID, frames sent (retries, control responses captured and inferred), received, beacons and
    group frames heard, PPDUs and A-MPDUs timed from their PHY fields (``phy_fallback``: at the
    ``--phy`` rate), PM bits, Nulls, PS-Polls, EOSPs, TWT setups, agreements and service
    periods, the broadcast TWT schedule joined (``broadcast_twt_id``, and
    ``broadcast_twt_window_us``: how much later its SPs may start than costed), dozes, wake-ups seen only by a
    frame received (``woke_to_receive``), and the costed span (``start_ns``, ``end_ns``)."""

    @property
    def start_ns(self) -> int:
        """Start of the costed run (ns since the epoch)."""
        return int(self.capture["start_ns"])

    @property
    def timeline_kept(self) -> bool:
        """True if the timeline is in memory (accessing ``timeline`` costs nothing more)."""
        return self.__dict__.get("_timeline") is not None or self.__dict__.get("_timeline_loader") is None

    def write(self, out_dir: str | Path, formats: Iterable[str] = ("csv",)) -> list[Path]:
        """Write summary.json and the tables (csv and/or parquet) into ``out_dir`` (the
        timeline too if it is kept: a timeline not kept is not computed for this)."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        summary = out / "summary.json"
        summary.write_text(json.dumps(self.summary(), indent=2) + "\n", encoding="utf-8")
        written = [summary]
        tables = {
            "energy": self.energy,
            "states": self.states,
            "connections": self.connections,
            "attribution": self.attribution,
            "throughput": self.throughput,
        }
        if self.timeline_kept and len(self.timeline):
            tables["timeline"] = self.timeline
        return written + write_tables(out, tables, formats)

    def summary(self) -> dict:
        """The capture, profile, per-policy energy and notes as one JSON-able dict."""
        return {
            "provenance": self.provenance,
            "capture": self.capture,
            "profile": self.profile,
            "policies": json.loads(self.energy.to_json(orient="records")),
            "timeline_files": self.timeline_files,
            "energybox": self.energybox,
            "twt": self.twt,
            "observed": self.observed,
            "warnings": self.warnings,
            "notes": self.notes,
        }

    def plot(self, path: str | Path, max_points: int = 200_000) -> Path:
        """PNG: each policy's state timeline (one row each) over the throughput. Raises
        ``FileNotFoundError`` naming the file and what to do if a timeline streamed to
        ``timeline_dir`` is no longer there."""
        from wattlab.trace_plot import plot_timeline

        gone = {label: f for label, f in self.timeline_files.items() if not Path(f).is_file()}
        if gone:
            label, f = next(iter(gone.items()))
            raise FileNotFoundError(
                f"cannot plot: the timeline of policy {label!r} was streamed to {f}, which no longer exists "
                f"({len(gone)} of {len(self.timeline_files)} timeline files missing; was timeline_dir removed?): "
                "analyze the capture again, with timeline_dir kept or timeline=True to keep the timelines in memory")
        return plot_timeline(self, Path(path), max_points=max_points)


_EMPTY_TIMELINE_COLUMNS = ["policy", "time_s", "state"]


def _get_timeline(self: TraceEnergy) -> pd.DataFrame:
    tl = self.__dict__.get("_timeline")
    if tl is None:
        loader = self.__dict__.get("_timeline_loader")
        tl = loader() if loader is not None else pd.DataFrame(columns=_EMPTY_TIMELINE_COLUMNS)
        self.__dict__["_timeline"] = tl
        self.__dict__["_timeline_loader"] = None
    return tl


def _set_timeline(self: TraceEnergy, value) -> None:
    self.__dict__["_timeline"] = value


# A property over the dataclass field: the generated __init__ stores through the setter, and
# a timeline not kept is computed on first access (see `energy`).
TraceEnergy.timeline = property(
    _get_timeline,
    _set_timeline,
    doc="State changes: (policy, time_s from the run's start, state); computed on first access when not kept.",
)

TIMELINE_AUTO_MAX_BYTES = 32 << 20
"""With ``timeline=None``, captures up to this size (32 MiB) keep their timeline in memory;
bigger ones compute it on first access."""


def energy(
    capture: str | Path,
    client: str | None = None,
    profile: str | None = None,
    policies: Sequence[str] = (),
    phy: str | None = None,
    transitions: str | Path | None = None,
    energybox: Sequence[str | Path] = (),
    bin_s: float = 0.05,
    timeline: bool | None = None,
    timeline_dir: str | Path | None = None,
    tail_s: float | None = None,
    max_gap_s: float | None = None,
    accept_odd_times: bool = False,
    max_connections: int | None = None,
    client_mac: str | None = None,
) -> TraceEnergy:
    """Cost ``capture`` (pcap or pcapng) on the radio of ``client`` under ``policies``.

    - ``client``: the client's IP address; None picks the busiest address (see ``capture["choice"]``
      and ``notes`` for ties);
    - ``profile``: a built-in profile name (``wattlab profiles``) or a profile TOML file;
      default ``atheros-ar5004``;
    - ``policies``: specs ``NAME[:key=value,...]`` of always-on, oracle, psm, adaptive-psm,
      twt (``twt:interval=100ms,duration=8ms``: received packets held until the agreement's
      service periods, delays in ``twt``), replay and energybox (default: the first four, plus replay with ``transitions``; with
      EnergyBox files: energybox, EnergyBox's own number from its engine emulated with its
      artifacts, and adaptive-psm, its model as defined, costed exactly);
    - ``phy``: ``PHY@RATE`` (e.g. ``802.11a@24``), ``link@RATE`` (Mb/s) or ``instant`` (no
      airtime); default ``802.11g@54``, or ``instant`` with EnergyBox files;
    - ``transitions``: a CSV of recorded radio transitions for ``replay``;
    - ``energybox``: EnergyBox Wi-Fi configuration files (device and/or network, powers in
      watts); they switch the defaults to EnergyBox's model (see docs/trace.md): the rows are
      the ones its model defines, labelled in the ``model`` column, with no share of always-on;
    - ``tail_s``: seconds costed after the last packet (default 0, or EnergyBox's
      ``CAM_PSM_INACTIVITY_TIME`` with its files);
    - ``bin_s``: throughput bin (1 µs to 1 day; only bins with traffic are kept);
    - ``timeline``: keep the state timelines in memory (True), or not (False). The default
      (None) keeps them for captures up to 32 MiB; for bigger ones (a 5 M-packet capture's
      timelines hold tens of millions of rows, about 2 GB) they are not built, and
      ``TraceEnergy.timeline`` computes them on first access by reading the capture again
      (a note gives their size; False behaves the same). ``timeline_dir``: stream them to CSV
      files there instead (flat memory);
    - ``max_gap_s``: the longest silence between two packets accepted (default 1 day);
      ``accept_odd_times``: cost a capture whose timestamps fail the checks (clock going back
      by more than 10 ms, a longer gap, sub-second fields out of range) instead of refusing
      it; the result then lists them in ``warnings``;
    - ``max_connections``: the client's connections kept (default 100,000; 1 to 10⁷); beyond
      that the least recently used is folded, packets, bytes and energy, into one ``other``
      row of ``connections`` and ``attribution`` (its ``connections`` column counts them), so
      memory stays bounded whatever the number of connections;
    - ``client_mac``: the station the ``observed`` policy costs in a monitor-mode (802.11)
      capture, ``aa:bb:cc:dd:ee:ff`` (policy ``observed[:listen=beacons|none,overhear=idle|rx,
      stamp=end|start,padding=0|8|16]``: airtime from each frame's PHY fields, doze/awake from
      the power-management frames; its counts in ``observed``, see docs/trace.md).

    Raises :class:`TraceError` with a message naming the file and where it went wrong (also
    for a bug inside the analyzer, which says so).
    """
    policies = _names("policies", policies)
    energybox = _names("energybox", energybox)
    for name, value in (("bin_s", bin_s), ("tail_s", tail_s), ("max_gap_s", max_gap_s)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
            raise TypeError(f"{name} must be a number of seconds, not {type(value).__name__}")
    if not isinstance(accept_odd_times, bool):
        raise TypeError(f"accept_odd_times must be True or False, not {type(accept_odd_times).__name__}")
    if timeline is not None and not isinstance(timeline, bool):
        raise TypeError(f"timeline must be True, False or None, not {type(timeline).__name__}")
    if max_connections is not None and (isinstance(max_connections, bool) or not isinstance(max_connections, int)):
        raise TypeError(f"max_connections must be a whole number, not {type(max_connections).__name__}")
    stat = Path(capture).stat() if Path(capture).is_file() else None
    keep = timeline if timeline is not None else (stat is not None and stat.st_size <= TIMELINE_AUTO_MAX_BYTES)
    mode = str(timeline_dir) if timeline_dir is not None else ("memory" if keep else "off")
    if timeline_dir is not None:
        Path(timeline_dir).mkdir(parents=True, exist_ok=True)
    kwargs = dict(
        client=client,
        profile=None if profile is None else str(profile),
        energybox=[str(p) for p in energybox],
        policies=list(policies),
        phy=phy,
        transitions=None if transitions is None else str(transitions),
        bin_s=float(bin_s),
        tail_s=None if tail_s is None else float(tail_s),
        max_gap_s=None if max_gap_s is None else float(max_gap_s),
        accept_odd_times=accept_odd_times,
        max_connections=max_connections,
        client_mac=client_mac,
    )
    raw = _core.trace_energy(str(capture), timeline=mode, **kwargs)
    res = _from_raw(raw)
    if mode == "off":
        rows = sum(p.get("state_changes", 0) for p in raw["policies"])
        res.__dict__["_timeline"] = None
        res.__dict__["_timeline_loader"] = lambda: _timeline_again(Path(capture), stat, kwargs)
        if timeline is None:
            res.notes.append(
                f"timeline not kept (capture of {stat.st_size / 2**20:.0f} MiB, about {rows:,} state changes): "
                "TraceEnergy.timeline computes it on first access by reading the capture again (timeline=True keeps it)"
            )
    res.provenance = {
        "capture": str(capture),
        "capture_sha256": _sha256(Path(capture)),
        "options": {
            "client": client, "profile": None if profile is None else str(profile), "policies": list(policies),
            "phy": phy, "transitions": None if transitions is None else str(transitions),
            "energybox": [str(p) for p in energybox], "bin_s": bin_s, "tail_s": tail_s,
            "max_gap_s": max_gap_s, "accept_odd_times": accept_odd_times, "max_connections": max_connections,
            "client_mac": client_mac,
            "timeline": timeline,
        },
        "wattlab_version": _core.__version__,
        "commit": _core.__commit__,
    }
    return res


def _timeline_again(capture: Path, stat, kwargs: dict) -> pd.DataFrame:
    """The timelines of an analysis that did not keep them: the same analysis again, with
    them, over the same capture (refused if the file changed since)."""
    now = capture.stat() if capture.is_file() else None
    if stat is None or now is None or (now.st_size, now.st_mtime_ns) != (stat.st_size, stat.st_mtime_ns):
        raise TraceError(f"{capture}: the capture changed or is gone since it was analyzed; its timeline cannot be computed")
    return _from_raw(_core.trace_energy(str(capture), timeline="memory", **kwargs)).timeline


def _names(what: str, value) -> list[str]:
    """A list of strings from one string (or path) or a sequence of them; refuses other types
    (a string must not be iterated character by character)."""
    if isinstance(value, (str, Path)):
        return [str(value)]
    try:
        items = list(value)
    except TypeError:
        raise TypeError(f"{what} must be a string or a sequence of strings, not {type(value).__name__}") from None
    for x in items:
        if not isinstance(x, (str, Path)):
            raise TypeError(f"{what} must hold strings, not {type(x).__name__}")
    return [str(x) for x in items]


def _sha256(path: Path) -> str:
    """SHA-256 of a file, read in 1 MiB blocks."""
    import hashlib

    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _from_raw(raw: dict) -> TraceEnergy:
    """The DataFrames of the core's tables (computed in Rust: ``wattlab_trace::tables``)."""
    t = raw["tables"]
    thr = frame(t["throughput"])
    thr.attrs["bin_s"] = raw["bin_s"]
    timeline = frame(t["timeline"])
    if not len(timeline):
        timeline = pd.DataFrame(columns=_EMPTY_TIMELINE_COLUMNS)
    return TraceEnergy(
        capture=raw["capture"],
        profile=raw["profile"],
        energy=frame(t["energy"]),
        states=frame(t["states"]),
        connections=frame(t["connections"]),
        attribution=frame(t["attribution"]),
        throughput=thr,
        timeline=timeline,
        timeline_files={p["label"]: p["timeline_file"] for p in raw["policies"] if p["timeline_file"]},
        notes=list(raw["notes"]),
        warnings=list(raw["warnings"]),
        energybox={p["label"]: p["energybox"] for p in raw["policies"] if p.get("energybox")},
        twt={p["label"]: p["twt"] for p in raw["policies"] if p.get("twt")},
        observed={p["label"]: p["observed"] for p in raw["policies"] if p.get("observed")},
    )


def slug(label: str) -> str:
    """A file-name-safe form of a policy label (``psm:beacon=204.8ms`` → ``psm-beacon-204.8ms``)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", label).strip("-") or "policy"
