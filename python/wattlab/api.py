"""The Python API: run scenarios, get pandas DataFrames back, write result files."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

import pandas as pd

from wattlab import _core

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


@dataclass
class RunResult:
    """Everything one run produced."""

    summary: dict
    """The JSON summary as a dict (flows, radios, links, drops)."""
    summary_json: str
    """The summary exactly as written to ``summary.json`` (deterministic bytes)."""
    flows: pd.DataFrame
    """One row per flow."""
    radios: pd.DataFrame
    """One row per (radio, accounting policy), with time and energy per state."""
    links: pd.DataFrame
    """One row per link direction."""
    flow_series: pd.DataFrame | None = None
    """Sampled sender state per flow (cwnd, windows, RTT), if time series were requested."""
    queue_series: pd.DataFrame | None = None
    """Sampled queue lengths per link direction, if time series were requested."""
    radio_series: pd.DataFrame | None = None
    """Radio state changes (node, policy, time, state entered), if time series were requested."""
    pages: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=PAGE_COLUMNS))
    """Web flows: one row per page view started (site, start/end, think time, objects, bytes)."""
    objects: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=OBJECT_COLUMNS))
    """Web flows: one row per object of every page view started (connection, size, request,
    first-byte and done times, connection reused, concurrent connections)."""
    agents: pd.DataFrame = field(default_factory=pd.DataFrame)
    """Client-centered agents (``power_save = "cc"``): one row per agent with its counters
    (closed/open ACKs, probes, bursts, recoveries, reversions, sleeps, drops while asleep)."""
    agent_events: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=AGENT_EVENT_COLUMNS))
    """The agents' log: stage ends, shaping, bursts and how they ended, open ACKs, probes,
    changes of D, reversions, sleeps and wake-ups (``conn`` = -1 for the radio)."""
    pcap_files: list[str] = field(default_factory=list)
    """Capture files written."""
    wall_time_s: float = 0.0
    """Wall-clock time of the simulation itself."""

    def energy(self, policy: str = "always-on", node: str | None = None) -> float:
        """Joules of one radio under one policy (the only radio if ``node`` is None)."""
        r = self.radios[self.radios.policy == policy]
        if node is not None:
            r = r[r.node == node]
        if len(r) != 1:
            raise KeyError(f"no unique radio for policy={policy!r} node={node!r}")
        return float(r.energy_j.iloc[0])

    def write(self, out_dir: str | Path, formats: Iterable[str] = ("csv",)) -> list[Path]:
        """Write summary.json and the tables (csv and/or parquet) into ``out_dir``."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        written = [out / "summary.json"]
        written[0].write_text(self.summary_json + "\n", encoding="utf-8")
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
        return written + write_tables(out, tables, formats)


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


def _radios_frame(radios: list[dict]) -> pd.DataFrame:
    rows = []
    for r in radios:
        rep = r["report"]
        row = {"node": r["node"], "profile": r["profile"], "policy": r["policy"], "energy_j": r["energy_j"]}
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
    return pd.DataFrame(rows)


def _web_frame(cols: dict | None, columns: list[str], flow_names: list[str]) -> pd.DataFrame:
    """A web table from its columns, with flow indices replaced by flow names."""
    if not cols or not cols.get("flow"):
        return pd.DataFrame(columns=columns)
    df = pd.DataFrame({c: cols[c] for c in columns})
    df["flow"] = [flow_names[i] for i in df["flow"]]
    return df


def _result(raw: dict) -> RunResult:
    summary = json.loads(raw["summary_json"])
    flows = pd.DataFrame(summary["flows"])
    radios = _radios_frame(summary["radios"])
    links = pd.DataFrame(summary["links"])
    flow_series = queue_series = radio_series = None
    ts = raw.get("timeseries")
    if ts is not None:
        flow_names = raw["flow_names"]
        chan_names = raw["channel_names"]
        flow_series = pd.DataFrame(
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
        )
        queue_series = pd.DataFrame(
            {
                "time_s": ts["queue_time_s"],
                "link": [chan_names[i] for i in ts["channel"]],
                "packets": ts["queue_packets"],
                "bytes": ts["queue_bytes"],
            }
        )
        radio_series = pd.DataFrame(
            {
                "node": ts["radio_node"],
                "policy": ts["radio_policy"],
                "time_s": ts["radio_time_s"],
                "state": ts["radio_state"],
            }
        )
    flow_names = raw["flow_names"]
    pages = _web_frame(raw.get("pages"), PAGE_COLUMNS, flow_names)
    objects = _web_frame(raw.get("objects"), OBJECT_COLUMNS, flow_names)
    if len(objects):
        objects["connection"] = objects["connection"].astype("Int64")
    agent_events = pd.DataFrame(raw.get("agent_events") or {c: [] for c in AGENT_EVENT_COLUMNS})
    agents = pd.DataFrame(summary.get("agents", []))
    return RunResult(
        summary=summary,
        summary_json=raw["summary_json"],
        flows=flows,
        radios=radios,
        links=links,
        flow_series=flow_series,
        queue_series=queue_series,
        radio_series=radio_series,
        pages=pages,
        objects=objects,
        agents=agents,
        agent_events=agent_events,
        pcap_files=list(raw["pcap_files"]),
        wall_time_s=raw["wall_time_s"],
    )


def run(
    scenario: ScenarioLike,
    seed: int | None = None,
    overrides: Iterable[str] = (),
    out_dir: str | Path | None = None,
    pcap: Iterable[str] = (),
    timeseries: bool = False,
) -> RunResult:
    """Run a scenario (a ``.toml`` path or TOML text) and return its results.

    ``overrides`` are ``key=value`` settings (``link.wired.rate=10Mbps``); ``pcap`` lists
    interfaces to capture as ``node:iface`` (written into ``out_dir``). Raises
    ``wattlab.ScenarioError`` for an invalid scenario, naming file, line and key.
    """
    text, origin = _read_scenario(scenario)
    if out_dir is not None:
        Path(out_dir).mkdir(parents=True, exist_ok=True)
    raw = _core.run_scenario(
        text,
        origin,
        seed=seed,
        overrides=list(overrides),
        out_dir=None if out_dir is None else str(out_dir),
        pcaps=list(pcap),
        timeseries=timeseries,
    )
    return _result(raw)


def validate(scenario: ScenarioLike, overrides: Iterable[str] = ()) -> None:
    """Raise ``wattlab.ScenarioError`` if the scenario is invalid; return None if it is fine."""
    text, origin = _read_scenario(scenario)
    _core.validate(text, origin, overrides=list(overrides))


def profiles() -> pd.DataFrame:
    """The built-in device profiles: powers per state (mW), source, and description."""
    rows = []
    for p in _core.profiles():
        row = {"name": p["name"]}
        row.update({f"{k}_mw": v for k, v in p["power_mw"].items()})
        row["description"] = p["description"]
        row["source"] = p["source"]
        rows.append(row)
    return pd.DataFrame(rows)
