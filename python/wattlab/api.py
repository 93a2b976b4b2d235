"""The Python API: run scenarios, get pandas DataFrames back, write result files."""

from __future__ import annotations

import json
import os
import warnings
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, NamedTuple

from wattlab import _core
from wattlab.columns import frame

if TYPE_CHECKING:
    import pandas as pd


class Scenario:
    """A scenario to run or validate: its TOML text and the name errors give it.

    Make one with :meth:`from_file` (what ``wattlab.run(path)`` does) or :meth:`from_text`
    (what ``wattlab.run(text=...)`` does); a ``str`` is never guessed to be one or the other.
    """

    def __init__(self, text: str, origin: str, path: Path | None = None):
        if not isinstance(text, str):
            raise TypeError(f"scenario text must be a str, not {type(text).__name__}")
        self.text: str = text
        """The TOML text."""
        self.origin: str = origin
        """How errors name it: the file's path, or the name given to :meth:`from_text`."""
        self.path: Path | None = path
        """The file it was read from, if any."""

    @classmethod
    def from_file(cls, path: str | os.PathLike) -> "Scenario":
        """Read a scenario file (a regular file of at most 16 MiB of UTF-8 TOML). Raises
        ``FileNotFoundError`` if there is none, ``wattlab.ScenarioError`` if it is a directory,
        a device, too large or not UTF-8."""
        if isinstance(path, bytes) or not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"a scenario path must be a str or os.PathLike, not {type(path).__name__}")
        p = Path(path)
        if str(path) == "":
            raise ValueError("the scenario path is empty")
        if not p.exists():
            raise FileNotFoundError(f"scenario file not found: {p}")
        return cls(_core.read_scenario(str(p)), str(p), p)

    @classmethod
    def from_text(cls, text: str, name: str = "<scenario>") -> "Scenario":
        """A scenario given as TOML text; ``name`` stands for the file in error messages."""
        if not isinstance(name, str):
            raise TypeError(f"name must be a str, not {type(name).__name__}")
        return cls(text, name)

    def __repr__(self) -> str:
        return f"Scenario({self.origin!r}, {len(self.text)} chars)"


ScenarioLike = str | os.PathLike | Scenario
"""What ``run`` and ``validate`` take as their scenario: a file path or a :class:`Scenario`."""


class Progress(NamedTuple):
    """How far a long run has got, as passed to ``run(..., progress=callback)``."""

    sim_time_s: float
    """Simulated time reached."""
    end_s: float
    """The scenario's stop time (``[simulation] duration``); the run may end before it."""
    events: int
    """Events processed so far."""


class CostWarning(UserWarning):
    """A run is estimated to be huge (events or time-series rows): the message says how big,
    what makes it so and which setting bounds it. Issued before the run starts."""


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped a run: :attr:`result` holds what was computed up to then (its
    ``interrupted`` is true and ``completed`` false). A ``KeyboardInterrupt``, so code that does
    not look for it stops as on any Ctrl-C."""

    def __init__(self, result: "RunResult"):
        super().__init__(f"interrupted at {result.summary['end_time_s']:.6g} s simulated")
        self.result = result

def _scenario(scenario: ScenarioLike | None, text: str | None) -> Scenario:
    """The :class:`Scenario` of ``run``'s or ``validate``'s arguments: a path or a Scenario
    object as ``scenario``, or TOML text as ``text`` (exactly one)."""
    if text is not None:
        if scenario is not None:
            raise TypeError("give the scenario as a path or as text=..., not both")
        return Scenario.from_text(text)
    if isinstance(scenario, Scenario):
        return scenario
    if scenario is None:
        raise TypeError("no scenario: give a path, a wattlab.Scenario, or text=\"...TOML...\"")
    if isinstance(scenario, str) and "\n" in scenario:
        raise TypeError("this str looks like TOML text, not a path: pass it as text=... or wattlab.Scenario.from_text(...)")
    if isinstance(scenario, dict):
        raise TypeError("a dict is not a scenario: give a path, or TOML text as text=... (a dict can be written with tomli_w)")
    if isinstance(scenario, bytes) or not isinstance(scenario, (str, os.PathLike)):
        raise TypeError(f"a scenario is a path (str or os.PathLike) or a wattlab.Scenario, not {type(scenario).__name__}")
    return Scenario.from_file(scenario)


def _strings(value: Iterable[str], what: str, example: str) -> list[str]:
    """A list of str from an iterable of str; a lone str (iterated letter by letter) is refused."""
    if isinstance(value, (str, bytes)):
        raise TypeError(f"{what} must be a list of strings, not a single {type(value).__name__}: write [{value!r}]")
    try:
        items = list(value)
    except TypeError:
        raise TypeError(f"{what} must be a list of strings such as [{example!r}], not {type(value).__name__}") from None
    for item in items:
        if not isinstance(item, str):
            raise TypeError(f"{what} must hold strings such as {example!r}, not {type(item).__name__} ({item!r})")
    return items


def _seed(seed: int | None) -> int | None:
    """``seed`` checked: None, or an int in [0, 2**64) (bool is refused)."""
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"seed must be an int, not {type(seed).__name__}")
    if not 0 <= seed < 2**64:
        raise ValueError(f"seed must be in [0, 2**64), got {seed}")
    return seed


def _flag(value: object, name: str, none_ok: bool = False) -> None:
    """Refuse a non-bool flag (``timeseries="no"`` would be true)."""
    if not (isinstance(value, bool) or (none_ok and value is None)):
        raise TypeError(f"{name} must be {'True, False or None' if none_ok else 'True or False'}, not {type(value).__name__}")


def _warn(message: str) -> None:
    """Issue the cost estimate's warning to the caller of ``run``/``validate``."""
    warnings.warn(message, CostWarning, stacklevel=4)


class RunResult:
    """Everything one run produced. The tables are pandas DataFrames, built on first use (so
    a caller that only reads :attr:`summary` never imports pandas)."""

    def __init__(self, raw: dict, effective_scenario: str, baseline: "RunResult | None" = None,
                 savings=None, lost_work: str | None = None):
        self._raw = raw
        self._savings = savings
        """The core's savings table (Arrow, ``wattlab_sim::savings``), with a baseline."""
        self._lost_work = lost_work
        self.summary: dict = json.loads(raw["summary_json"])
        """The JSON summary as a dict (provenance, flows, radios, links, drops)."""
        self.summary_json: str = raw["summary_json"]
        """The summary exactly as written to ``summary.json`` (deterministic bytes)."""
        self.effective_scenario: str = effective_scenario
        """The scenario that ran, as TOML (the file itself, or its table with the overrides
        applied); written as ``scenario.toml`` beside the results."""
        self.baseline: RunResult | None = baseline
        """The same scenario and seed with every station's power saving off (``power_save =
        "cam"``), when the run used a power mode and a baseline was asked for: the same traffic
        without the scheme, against which :attr:`savings` are computed."""
        self.pcap_files: list[str] = list(raw["pcap_files"])
        """Capture files written."""
        self.wall_time_s: float = raw["wall_time_s"]
        """Wall-clock time of the simulation itself."""

    @property
    def provenance(self) -> dict:
        """What made the run: scenario path and SHA-256, overrides, seed, wattlab version and commit."""
        return self.summary["provenance"]

    @property
    def completed(self) -> bool:
        """True if every finite flow completed before the run's time limit."""
        return bool(self.summary["completed"])

    @property
    def interrupted(self) -> bool:
        """True if Ctrl-C stopped the run: the results cover ``summary["end_time_s"]`` only."""
        return bool(self.summary.get("interrupted", False))

    @property
    def warnings(self) -> list[str]:
        """The cost estimate's warnings about this run (empty for an ordinary run)."""
        return list(self._raw.get("warnings") or [])

    @property
    def tables(self) -> dict:
        """Every result table of the run by name, as Arrow (``wattlab._core.Table``, which
        ``pyarrow.table(t)``, polars or DuckDB import without a copy; ``pyarrow.Table`` for a
        stored run): the summary's ``flows``, ``radios``, ``links``, ``agents``, ``tunnels``,
        ``wlans`` and ``wlan_stations``, and ``pages``, ``objects``, ``agent_events``,
        ``sockets``, ``flow_energy`` and, if recorded, ``timeseries_flows``,
        ``timeseries_queues``, ``timeseries_radio``. The DataFrame properties are these."""
        return self._raw["tables"]

    def _frame(self, name: str) -> pd.DataFrame | None:
        table = self._raw["tables"].get(name)
        return None if table is None else frame(table)

    @cached_property
    def flows(self) -> pd.DataFrame:
        """One row per flow: the columns every flow has, then each kind's own (missing where
        a flow's kind has no such column)."""
        return self._frame("flows")

    @cached_property
    def radios(self) -> pd.DataFrame:
        """One row per (radio, accounting policy or power mode): ``basis`` says which
        (``accounting``: a policy costing this run's traffic; ``mode``: the power mode the run
        used, which may have changed the traffic), energy, time and energy per state, the
        transitions and the clipped activity."""
        return self._frame("radios")

    @cached_property
    def links(self) -> pd.DataFrame:
        """One row per link direction."""
        return self._frame("links")

    @cached_property
    def wlans(self) -> pd.DataFrame:
        """One row per 802.11 BSS (``[[wlan]]``): PHY, rate, utilization and the BSS's counters."""
        return self._frame("wlans")

    @cached_property
    def wlan_stations(self) -> pd.DataFrame:
        """One row per station of every BSS, the AP first: its BSS (``wlan``), role, power
        management and counters."""
        return self._frame("wlan_stations")

    @cached_property
    def savings(self) -> pd.DataFrame:
        """Per radio that ran a power mode: its energy and completion time against the
        :attr:`baseline` run's always-on radio (the same traffic without the scheme), and its
        energy per delivered MB (10^6 bytes). ``saving`` is missing (NaN) unless the run did
        the baseline's work (``same_work``: the same bytes and datagrams delivered, the same
        flows completed); ``lost_bytes``, ``lost_datagrams`` and ``flows_not_completed`` say
        what it did not do. Empty without a baseline."""
        df = _pandas().DataFrame(savings_rows(self), columns=SAVINGS_COLUMNS)
        # A missing saving is NaN in a float column, a missing count <NA> in a nullable one.
        return df.astype({**{c: "float64" for c in _SAVINGS_FLOATS}, **{c: "Int64" for c in _SAVINGS_COUNTS},
                          "same_work": "bool"})

    @cached_property
    def flow_series(self) -> pd.DataFrame | None:
        """Sampled sender state per flow (cwnd, windows, RTT), if time series were requested."""
        return self._frame("timeseries_flows")

    @cached_property
    def queue_series(self) -> pd.DataFrame | None:
        """Sampled queue lengths per link direction, if time series were requested."""
        return self._frame("timeseries_queues")

    @cached_property
    def radio_series(self) -> pd.DataFrame | None:
        """Radio state changes (node, policy, time, state entered), if time series were requested."""
        return self._frame("timeseries_radio")

    @cached_property
    def pages(self) -> pd.DataFrame:
        """Web flows: one row per page view started (site, start/end, think time, objects, bytes)."""
        return self._frame("pages")

    @cached_property
    def objects(self) -> pd.DataFrame:
        """Web flows: one row per object of every page view started (connection, size, request,
        first-byte and done times, connection reused, concurrent connections)."""
        return self._frame("objects")

    @cached_property
    def agents(self) -> pd.DataFrame:
        """Client-centered agents (``power_save = "cc"``): one row per agent with its counters
        (closed/open ACKs, probes, bursts, recoveries, reversions, sleeps, drops while asleep)."""
        return self._frame("agents")

    @cached_property
    def tunnels(self) -> pd.DataFrame:
        """SCTP tunnel endpoints (``[[tunnel]]``, docs/tunnel.md): one row per endpoint (client
        and AP) with its counters (packets, SACKs piggybacked, retransmissions, inlet releases
        by cause, triggers, dropped malformed packets)."""
        return self._frame("tunnels")

    @cached_property
    def agent_events(self) -> pd.DataFrame:
        """The agents' log: stage ends, shaping, bursts and how they ended, open ACKs, probes,
        changes of D, reversions, sleeps and wake-ups (``conn`` = -1 for the radio)."""
        return self._frame("agent_events")

    @cached_property
    def sockets(self) -> pd.DataFrame:
        """One row per socket (TCP connection, UDP or ping socket): its flow, node, protocol,
        endpoints, and the packets and bytes it sent and received, and dropped."""
        return self._frame("sockets")

    @cached_property
    def flow_energy(self) -> pd.DataFrame:
        """Each flow's energy at the radios of its end nodes, one row per (flow, end radio,
        meter): the radio's energy from the run's start to the flow's completion
        (``to_completion_nj`` exact to the nJ, ``to_completion_j``; missing / NaN if the flow did
        not complete) and, over the whole run, the flow's attributed ``own`` and ``tail`` energy,
        the ``other_flows``' and the ``unattributed`` rest (beacons, PS-Polls, before the first
        frame), which sum to ``run_total`` (docs/design.md, "Energy of a flow"). Empty if no
        flow has a radio at an end."""
        return self._frame("flow_energy")

    def energy(self, policy: str = "always-on", node: str | None = None) -> float:
        """Joules of one radio under one policy or mode (the only radio if ``node`` is None)."""
        rows = [r for r in self.summary["radios"] if r["policy"] == policy and (node is None or r["node"] == node)]
        if len(rows) != 1:
            raise KeyError(f"no unique radio for policy={policy!r} node={node!r}")
        return float(rows[0]["energy_j"])

    def write(self, out_dir: str | Path, formats: Iterable[str] = ("csv",)) -> list[Path]:
        """Write summary.json, scenario.toml (the effective scenario) and the tables (csv
        and/or parquet) into ``out_dir``; with a baseline, the same under ``out_dir/baseline``."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        written = [out / "summary.json", out / "scenario.toml"]
        written[0].write_text(self.summary_json + "\n", encoding="utf-8")
        written[1].write_text(self.effective_scenario, encoding="utf-8")
        tables = {"flows": self.flows, "radios": self.radios, "links": self.links}
        if self.flow_series is not None:
            tables["timeseries_flows"] = self.flow_series
        if self.queue_series is not None:
            tables["timeseries_queues"] = self.queue_series
        if self.radio_series is not None:
            tables["timeseries_radio"] = self.radio_series
        if len(self.pages) or len(self.objects):
            tables["pages"] = self.pages
            tables["objects"] = self.objects
        if len(self.agents):
            tables["agents"] = self.agents
            tables["agent_events"] = self.agent_events
        if len(self.tunnels):
            tables["tunnels"] = self.tunnels
        if len(self.flow_energy):
            tables["flow_energy"] = self.flow_energy
        if self.baseline is not None:
            tables["savings"] = self.savings
        written += write_tables(out, tables, formats)
        if self.baseline is not None:
            written += self.baseline.write(out / "baseline", formats)
        return written


RESULT_FILES = (
    "summary.json", "scenario.toml", "flows", "radios", "links", "timeseries_flows", "timeseries_queues",
    "timeseries_radio", "pages", "objects", "agents", "agent_events", "tunnels", "sockets", "flow_energy", "savings",
    "baseline",
)
"""What ``RunResult.write`` may put in a directory (tables as ``NAME.csv`` / ``NAME.parquet``,
captures as ``*.pcap``): the result set that ``--overwrite`` replaces."""


SAVINGS_COLUMNS: list[str] = list(_core.SAVINGS_COLUMNS)
"""The columns of :attr:`RunResult.savings` (and of a sweep's ``savings`` table), in order
(the core's: ``wattlab_sim::savings::SAVINGS_COLUMNS``)."""
_SAVINGS_FLOATS = ("energy_j", "completion_s", "baseline_energy_j", "baseline_completion_s", "saving", "slowdown",
                   "energy_j_per_mb", "baseline_energy_j_per_mb")
_SAVINGS_COUNTS = ("lost_bytes", "lost_datagrams", "delivered_bytes", "baseline_delivered_bytes")


def savings_rows(res: RunResult) -> list[dict]:
    """Rows of :attr:`RunResult.savings`, as the core computed them with the run
    (``wattlab_sim::savings``): each radio's power-mode row against the baseline run's
    always-on accounting of the same radio (the same traffic with power saving off).

    A saving needs the same work (docs/scenario.md, "Savings need the same work"):
    ``same_work`` is true only if every flow of the run delivered the same bytes and datagrams
    as in the baseline and completed iff it completed there. Otherwise ``saving`` and
    ``slowdown`` are missing (None / NaN) and ``lost_bytes``, ``lost_datagrams`` and
    ``flows_not_completed`` say what differs (over every flow of the run) and ``saving_note``
    says it in words ("" where the work was the same). ``energy_j_per_mb`` and
    ``baseline_energy_j_per_mb`` divide each run's energy by the application bytes, in
    10^6-byte MB, of the flows with an end at the node. Empty without a baseline."""
    if res.baseline is None or res._savings is None:
        return []
    return res._savings.to_pylist()


def lost_work(res: RunResult) -> str | None:
    """What the run's power mode failed to deliver against its baseline, in words (None if
    there is no baseline or the work was the same): the warning of ``wattlab run``."""
    return None if res.baseline is None else res._lost_work


def write_tables(out: Path, tables: dict[str, pd.DataFrame], formats: Iterable[str]) -> list[Path]:
    """Write each table as ``out/NAME.FMT`` for every format (csv, parquet); returns the paths."""
    written = []
    for fmt in formats:
        if fmt not in ("csv", "parquet"):
            raise ValueError(f"unknown format {fmt!r} (csv or parquet)")
        for name, df in tables.items():
            path = out / f"{name}.{fmt}"
            if fmt == "csv":
                df.to_csv(path, index=False)
            else:
                df.to_parquet(path, index=False)
            written.append(path)
    return written


def _pandas():
    """pandas, imported when a table is first needed (it takes most of a run's start-up)."""
    import pandas

    return pandas


def run(
    scenario: ScenarioLike | None = None,
    seed: int | None = None,
    overrides: Iterable[str] = (),
    out_dir: str | os.PathLike | None = None,
    pcap: Iterable[str] = (),
    timeseries: bool = False,
    baseline: bool | None = False,
    *,
    text: str | None = None,
    progress: Callable[[Progress], object] | None = None,
) -> RunResult:
    """Run a scenario and return its results.

    The scenario is a file path (``str`` or ``os.PathLike``: ``wattlab.run("demo.toml")``), a
    :class:`Scenario`, or TOML text given as ``text=`` (``wattlab.run(text=toml)``); a str is
    always a path. ``seed`` (an int in [0, 2**64)) overrides the scenario's. ``overrides`` are
    ``key=value`` strings (``["link.wired.rate=10Mbps"]``); ``pcap`` lists interfaces to capture
    as ``node:iface`` (written into ``out_dir``). ``baseline``: also run the same scenario and
    seed with every station's power saving off, the same traffic without the scheme, so that
    :attr:`RunResult.savings` compares against it (None: only if a station uses a power mode;
    True: required, an error if none does). ``progress(p)`` is called about every 0.1 s of a run
    that has lasted over 0.5 s, with a :class:`Progress`; an exception it raises stops the run.

    Before a run the cost is estimated; a huge one (over 1e9 events, or 5e7 time-series rows)
    is warned about with a :class:`CostWarning`. Ctrl-C stops a run within ~0.1 s and raises
    :class:`RunInterrupted` (a ``KeyboardInterrupt``) whose ``result`` holds the partial results.

    Raises ``TypeError``/``ValueError`` for arguments of the wrong kind, ``FileNotFoundError``
    for a missing file, ``wattlab.ScenarioError`` for an invalid scenario (naming file, line,
    column and key), ``wattlab.SimulationError`` if the run fails and ``wattlab.InternalError``
    for a bug; all derive from ``Exception``.
    """
    scn = _scenario(scenario, text)
    text, origin = scn.text, scn.origin
    seed = _seed(seed)
    overrides = _strings(overrides, "overrides", "link.wired.rate=10Mbps")
    pcaps = _strings(pcap, "pcap", "client:wlan0")
    _flag(timeseries, "timeseries")
    _flag(baseline, "baseline", none_ok=True)
    if out_dir is not None and (isinstance(out_dir, bytes) or not isinstance(out_dir, (str, os.PathLike))):
        raise TypeError(f"out_dir must be a str or os.PathLike, not {type(out_dir).__name__}")
    if out_dir is not None and str(out_dir) == "":
        raise ValueError("out_dir is empty: give a directory (use \".\" for the current one)")
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be callable, not {type(progress).__name__}")
    on_progress = None if progress is None else (lambda t, end, n: progress(Progress(t, end, n)))
    if out_dir is not None:
        Path(out_dir).mkdir(parents=True, exist_ok=True)
    # One call: the core parses the scenario once and runs it, then (with a power mode) its
    # baseline with the same seed, and computes the savings at equal work.
    out = _core.run(
        text,
        origin,
        from_file=scn.path is not None,
        seed=seed,
        overrides=overrides,
        baseline=baseline,
        out_dir=None if out_dir is None else str(out_dir),
        pcaps=pcaps,
        timeseries=timeseries,
        progress=on_progress,
        on_warning=_warn,
    )
    raw, effective = out["run"], out["effective_scenario"]
    _raise_interrupt(raw, lambda: RunResult(raw, effective))
    base = None
    if out["baseline"] is not None:
        base_raw = out["baseline"]
        base = RunResult(base_raw, out["baseline_scenario"])
        _raise_interrupt(base_raw, lambda: RunResult(raw, effective, base, out["savings"], out["lost_work"]))
    return RunResult(raw, effective, base, out["savings"], out["lost_work"])


def _raise_interrupt(raw: dict, partial: Callable[[], RunResult]) -> None:
    """Re-raise what stopped a run early: Ctrl-C as :class:`RunInterrupted` with the partial
    results, any other exception (from a signal handler or the progress callback) as it is."""
    exc = raw.get("interrupt")
    if exc is None:
        return
    if isinstance(exc, KeyboardInterrupt):
        raise RunInterrupted(partial()) from exc
    raise exc


def validate(scenario: ScenarioLike | None = None, overrides: Iterable[str] = (), *, text: str | None = None) -> None:
    """Raise ``wattlab.ScenarioError`` if the scenario (a path, a :class:`Scenario`, or TOML
    ``text=``) is invalid; return None if it is fine. A run estimated to be huge is warned
    about with a :class:`CostWarning`."""
    scn = _scenario(scenario, text)
    for message in _core.validate(scn.text, scn.origin, overrides=_strings(overrides, "overrides", "link.wired.rate=10Mbps")):
        _warn(message)


def profiles(specs: list[str] | None = None) -> pd.DataFrame:
    """Device profiles: powers per state (mW), the number of per-(width, NSS) PPDU powers,
    source, and description; the built-in ones, or those ``specs`` name (built-in names or
    profile TOML files). Raises ``ValueError`` (file, line and key) for a bad file."""
    pd = _pandas()
    rows = []
    for p in _core.profiles(specs):
        row = {"name": p["name"]}
        row.update({f"{k}_mw": v for k, v in p["power_mw"].items()})
        row["ppdu_powers"] = len(p["ppdu_power"])
        row["description"] = p["description"]
        row["source"] = p["source"]
        rows.append(row)
    return pd.DataFrame(rows)
