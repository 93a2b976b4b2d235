"""The Python API: run scenarios, get pandas DataFrames back, write result files."""

from __future__ import annotations

import json
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Iterable

from wattlab import _core

if TYPE_CHECKING:
    import pandas as pd

ScenarioLike = str | Path

# Columns of the web tables (docs/scenario.md, `kind = "web"`).
PAGE_COLUMNS = [
    "flow", "page", "site", "subpage", "first_visit", "start_s", "end_s",
    "think_s", "objects", "bytes", "new_connections",
]
OBJECT_COLUMNS = [
    "flow", "page", "object", "site", "connection", "size", "response_bytes",
    "request_s", "first_byte_s", "done_s", "reused", "concurrency",
]
# Columns of the client-centered agents' log (docs/agent.md).
AGENT_EVENT_COLUMNS = ["time_s", "node", "conn", "event"]


def _read_scenario(scenario: ScenarioLike) -> tuple[str, str]:
    """Return (text, origin) for a scenario path, or for TOML text given directly."""
    if isinstance(scenario, Path) or ("\n" not in scenario and scenario.endswith(".toml")):
        path = Path(scenario)
        try:
            return path.read_text(encoding="utf-8"), str(path)
        except FileNotFoundError:
            raise FileNotFoundError(f"scenario file not found: {path}") from None
        except UnicodeDecodeError as e:
            raise _core.ScenarioError(f"{path}: not UTF-8 text (byte {e.start})") from None
    return scenario, "<scenario>"


class RunResult:
    """Everything one run produced. The tables are pandas DataFrames, built on first use (so
    a caller that only reads :attr:`summary` never imports pandas)."""

    def __init__(self, raw: dict, effective_scenario: str, baseline: "RunResult | None" = None):
        self._raw = raw
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

    @cached_property
    def flows(self) -> pd.DataFrame:
        """One row per flow."""
        pd = _pandas()
        return pd.DataFrame(self.summary["flows"])

    @cached_property
    def radios(self) -> pd.DataFrame:
        """One row per (radio, accounting policy or power mode): ``basis`` says which (see
        :func:`radio_rows`), with time and energy per state."""
        return _pandas().DataFrame(radio_rows(self.summary["radios"]))

    @cached_property
    def links(self) -> pd.DataFrame:
        """One row per link direction."""
        return _pandas().DataFrame(self.summary["links"])

    @cached_property
    def savings(self) -> pd.DataFrame:
        """Per radio that ran a power mode: its energy and completion time against the
        :attr:`baseline` run's always-on radio (the same traffic without the scheme). Empty
        without a baseline."""
        return _pandas().DataFrame(savings_rows(self), columns=SAVINGS_COLUMNS)

    @cached_property
    def _series(self) -> dict:
        return _series_frames(self._raw)

    @property
    def flow_series(self) -> pd.DataFrame | None:
        """Sampled sender state per flow (cwnd, windows, RTT), if time series were requested."""
        return self._series.get("flows")

    @property
    def queue_series(self) -> pd.DataFrame | None:
        """Sampled queue lengths per link direction, if time series were requested."""
        return self._series.get("queues")

    @property
    def radio_series(self) -> pd.DataFrame | None:
        """Radio state changes (node, policy, time, state entered), if time series were requested."""
        return self._series.get("radio")

    @cached_property
    def pages(self) -> pd.DataFrame:
        """Web flows: one row per page view started (site, start/end, think time, objects, bytes)."""
        return _web_frame(self._raw.get("pages"), PAGE_COLUMNS, self._raw["flow_names"])

    @cached_property
    def objects(self) -> pd.DataFrame:
        """Web flows: one row per object of every page view started (connection, size, request,
        first-byte and done times, connection reused, concurrent connections)."""
        df = _web_frame(self._raw.get("objects"), OBJECT_COLUMNS, self._raw["flow_names"])
        if len(df):
            df["connection"] = df["connection"].astype("Int64")
        return df

    @cached_property
    def agents(self) -> pd.DataFrame:
        """Client-centered agents (``power_save = "cc"``): one row per agent with its counters
        (closed/open ACKs, probes, bursts, recoveries, reversions, sleeps, drops while asleep)."""
        return _pandas().DataFrame(self.summary.get("agents", []))

    @cached_property
    def agent_events(self) -> pd.DataFrame:
        """The agents' log: stage ends, shaping, bursts and how they ended, open ACKs, probes,
        changes of D, reversions, sleeps and wake-ups (``conn`` = -1 for the radio)."""
        return _pandas().DataFrame(self._raw.get("agent_events") or {c: [] for c in AGENT_EVENT_COLUMNS})

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
        if self.baseline is not None:
            tables["savings"] = self.savings
        written += write_tables(out, tables, formats)
        if self.baseline is not None:
            written += self.baseline.write(out / "baseline", formats)
        return written


RESULT_FILES = (
    "summary.json", "scenario.toml", "flows", "radios", "links", "timeseries_flows", "timeseries_queues",
    "timeseries_radio", "pages", "objects", "agents", "agent_events", "savings", "baseline",
)
"""What ``RunResult.write`` may put in a directory (tables as ``NAME.csv`` / ``NAME.parquet``,
captures as ``*.pcap``): the result set that ``--overwrite`` replaces."""


SAVINGS_COLUMNS = [
    "node", "profile", "mode", "energy_j", "completion_s", "baseline_energy_j", "baseline_completion_s",
    "saving", "slowdown", "baseline",
]


def savings_rows(res: RunResult) -> list[dict]:
    """Rows of :attr:`RunResult.savings`: each radio's power-mode row against the baseline
    run's always-on accounting of the same radio (the same traffic with power saving off)."""
    if res.baseline is None:
        return []
    base = {(r["node"], r["policy"]): r for r in res.baseline.summary["radios"]}
    t_run, t_base = _completion(res.summary), _completion(res.baseline.summary)
    rows = []
    for r in res.summary["radios"]:
        b = base.get((r["node"], "always-on"))
        if r.get("basis") != "mode" or b is None:
            continue
        rows.append({
            "node": r["node"], "profile": r["profile"], "mode": r["policy"],
            "energy_j": r["energy_j"], "completion_s": t_run,
            "baseline_energy_j": b["energy_j"], "baseline_completion_s": t_base,
            "saving": 1 - r["energy_j"] / b["energy_j"] if b["energy_j"] > 0 else float("nan"),
            "slowdown": t_run / t_base - 1 if t_base else float("nan"),
            "baseline": "same scenario and seed, power_save = cam (always-on)",
        })
    return rows


def _completion(summary: dict) -> float:
    """When the run's last finite flow completed (the run's end if one did not)."""
    times = [f["completion_time_s"] for f in summary["flows"] if f.get("completion_time_s") is not None]
    return max(times) if times and summary["completed"] else summary["end_time_s"]


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


def radio_rows(radios: list[dict]) -> list[dict]:
    """Flat rows of the summary's radios: node, profile, policy, basis (``accounting``: a
    policy costing this run's traffic; ``mode``: the power mode the run used, which may have
    changed the traffic), energy, and time and energy per state."""
    rows = []
    for r in radios:
        rep = r["report"]
        row = {"node": r["node"], "profile": r["profile"], "policy": r["policy"],
               "basis": r.get("basis", "accounting"), "energy_j": r["energy_j"]}
        row["duration_s"] = rep.get("duration_ns", 0) / 1e9
        for state in ("tx", "rx", "idle", "idle_high", "sleep", "off"):
            v = rep[state]
            row[f"time_{state}_s"] = v["time_ns"] / 1e9
            row[f"energy_{state}_j"] = v["energy_nj"] / 1e9
        tr = rep.get("transitions", {})
        row["transitions"] = tr.get("count", 0)
        row["transition_time_s"] = tr.get("time_ns", 0) / 1e9
        row["transition_energy_j"] = tr.get("energy_nj", 0) / 1e9
        row["clipped_activity_s"] = rep.get("clipped_activity_ns", 0) / 1e9
        rows.append(row)
    return rows


def _web_frame(cols: dict | None, columns: list[str], flow_names: list[str]) -> pd.DataFrame:
    """A web table from its columns, with flow indices replaced by flow names."""
    pd = _pandas()
    if not cols or not cols.get("flow"):
        return pd.DataFrame(columns=columns)
    df = pd.DataFrame({c: cols[c] for c in columns})
    df["flow"] = [flow_names[i] for i in df["flow"]]
    return df


def _series_frames(raw: dict) -> dict:
    """The time series as DataFrames (``flows``, ``queues``, ``radio``), if recorded."""
    ts = raw.get("timeseries")
    if ts is None:
        return {}
    pd = _pandas()
    flow_names = raw["flow_names"]
    chan_names = raw["channel_names"]
    return {
        "flows": pd.DataFrame(
            {
                "time_s": ts["flow_time_s"],
                "flow": [flow_names[i] for i in ts["flow"]],
                "cwnd": ts["cwnd"],
                "ssthresh": ts["ssthresh"],
                "peer_window": ts["peer_window"],
                "advertised_window": ts["advertised_window"],
                "in_flight": ts["in_flight"],
                "srtt_ms": ts["srtt_ms"],
                "rto_ms": ts["rto_ms"],
                "delivered": ts["delivered"],
            }
        ),
        "queues": pd.DataFrame(
            {
                "time_s": ts["queue_time_s"],
                "link": [chan_names[i] for i in ts["channel"]],
                "packets": ts["queue_packets"],
                "bytes": ts["queue_bytes"],
            }
        ),
        "radio": pd.DataFrame(
            {
                "node": ts["radio_node"],
                "policy": ts["radio_policy"],
                "time_s": ts["radio_time_s"],
                "state": ts["radio_state"],
            }
        ),
    }


def _pandas():
    """pandas, imported when a table is first needed (it takes most of a run's start-up)."""
    import pandas

    return pandas


def run(
    scenario: ScenarioLike,
    seed: int | None = None,
    overrides: Iterable[str] = (),
    out_dir: str | Path | None = None,
    pcap: Iterable[str] = (),
    timeseries: bool = False,
    baseline: bool | None = False,
) -> RunResult:
    """Run a scenario (a ``.toml`` path or TOML text) and return its results.

    ``overrides`` are ``key=value`` settings (``link.wired.rate=10Mbps``); ``pcap`` lists
    interfaces to capture as ``node:iface`` (written into ``out_dir``). ``baseline``: also run
    the same scenario and seed with every station's power saving off, the same traffic without
    the scheme, so that :attr:`RunResult.savings` compares against it (None: only if a station
    uses a power mode; True: required, an error if none does). Raises
    ``wattlab.ScenarioError`` for an invalid scenario, naming file, line and key.
    """
    text, origin = _read_scenario(scenario)
    overrides = list(overrides)
    effective = _core.effective_scenario(text, origin, overrides=overrides)
    base_text = None
    if baseline or baseline is None:
        base_text = _core.without_power_save(text, origin, overrides=overrides)
        if base_text is None and baseline:
            raise _core.ScenarioError(
                f"{origin}: no station uses a power-save mode, so there is no baseline to run "
                "(the accounting policies already cost this run's traffic)"
            )
    if out_dir is not None:
        Path(out_dir).mkdir(parents=True, exist_ok=True)
    raw = _core.run_scenario(
        text,
        origin,
        seed=seed,
        overrides=overrides,
        out_dir=None if out_dir is None else str(out_dir),
        pcaps=list(pcap),
        timeseries=timeseries,
    )
    base = None
    if base_text is not None:
        # Same seed: the streams are named per component, so the traffic differs only where
        # power saving made it differ.
        used_seed = json.loads(raw["summary_json"])["seed"]
        base_raw = _core.run_scenario(base_text, f"{origin} (baseline: power saving off)", seed=used_seed, timeseries=timeseries)
        base = RunResult(base_raw, base_text)
    return RunResult(raw, effective, base)


def validate(scenario: ScenarioLike, overrides: Iterable[str] = ()) -> None:
    """Raise ``wattlab.ScenarioError`` if the scenario is invalid; return None if it is fine."""
    text, origin = _read_scenario(scenario)
    _core.validate(text, origin, overrides=list(overrides))


def profiles() -> pd.DataFrame:
    """The built-in device profiles: powers per state (mW), source, and description."""
    pd = _pandas()
    rows = []
    for p in _core.profiles():
        row = {"name": p["name"]}
        row.update({f"{k}_mw": v for k, v in p["power_mw"].items()})
        row["description"] = p["description"]
        row["source"] = p["source"]
        rows.append(row)
    return pd.DataFrame(rows)
