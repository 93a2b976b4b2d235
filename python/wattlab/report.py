"""Terminal tables (rich) for run results, profiles and benchmarks."""

from __future__ import annotations

import statistics

import pandas as pd
from rich.console import Console
from rich.table import Table


def _fmt_bps(bps: float) -> str:
    for unit, scale in (("Gb/s", 1e9), ("Mb/s", 1e6), ("kb/s", 1e3)):
        if bps >= scale:
            return f"{bps / scale:.2f} {unit}"
    return f"{bps:.0f} b/s"


def _fmt_bytes(n: float) -> str:
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.2f} {unit}"
    return f"{n:.0f} B"


def print_run(console: Console, res) -> None:
    """Print the flow table and the energy table of one run."""
    s = res.summary
    console.print(
        f"[bold]{s['scenario']}[/]  seed {s['seed']}  simulated {s['end_time_s']:.3f} s  "
        f"({s['events']:,} events in {res.wall_time_s:.3f} s wall)"
        + ("" if s["completed"] else "  [bold red]not every flow completed[/]")
    )
    t = Table(title="Flows", title_justify="left")
    for col, just in (
        ("flow", "left"),
        ("kind", "left"),
        ("delivered", "right"),
        ("time (s)", "right"),
        ("goodput", "right"),
        ("retx", "right"),
        ("timeouts", "right"),
        ("probes", "right"),
    ):
        t.add_column(col, justify=just)
    for f in s["flows"]:
        ct = f["completion_time_s"]
        t.add_row(
            f["name"],
            f["kind"],
            _fmt_bytes(f["bytes_delivered"]),
            "—" if ct is None else f"{ct:.3f}",
            _fmt_bps(f["goodput_bps"]),
            str(f["retransmitted_segments"]),
            str(f["timeouts"]),
            str(f["persist_probes"]),
        )
    console.print(t)
    if len(res.radios):
        print_energy(console, res.radios)
    if len(res.agents):
        print_agents(console, res.agents)


def print_agents(console: Console, agents: pd.DataFrame) -> None:
    """What each client-centered agent did (docs/agent.md)."""
    t = Table(title="Client-centered agent", title_justify="left")
    cols = [
        ("node", "node"), ("detection", "detection"), ("bursts", "bursts"),
        ("closed_acks", "closed ACKs"), ("open_acks", "open ACKs"), ("open_acks_resent", "resent"),
        ("probes", "probes"), ("probes_lost", "lost"), ("recoveries", "recoveries"),
        ("reverted", "reverted"), ("sleeps", "sleeps"), ("dropped_asleep", "lost asleep"),
    ]
    for _, title in cols:
        t.add_column(title, justify="left" if title in ("node", "detection") else "right")
    for _, a in agents.iterrows():
        t.add_row(*(str(a[k]) for k, _ in cols))
    console.print(t)


def print_energy(console: Console, radios: pd.DataFrame) -> None:
    """Energy per radio and policy, normalized to always-on where it was accounted."""
    t = Table(title="Radio energy", title_justify="left")
    for col, just in (
        ("node", "left"),
        ("profile", "left"),
        ("policy", "left"),
        ("energy (J)", "right"),
        ("vs always-on", "right"),
        ("awake (s)", "right"),
        ("sleep (s)", "right"),
        ("tx / rx (s)", "right"),
        ("transitions", "right"),
    ):
        t.add_column(col, justify=just)
    for node, group in radios.groupby("node", sort=False):
        base = group[group.policy == "always-on"].energy_j
        base = float(base.iloc[0]) if len(base) else None
        for _, r in group.iterrows():
            awake = sum(r.get(f"time_{s}_s", 0.0) for s in ("idle", "idle_high", "rx", "tx"))
            sleep = r.get("time_sleep_s", 0.0) + r.get("time_off_s", 0.0)
            norm = "—" if not base else f"{r.energy_j / base:.1%}"
            t.add_row(
                str(node),
                r.profile,
                r.policy,
                f"{r.energy_j:.4f}",
                norm,
                f"{awake:.3f}",
                f"{sleep:.3f}",
                f"{r.get('time_tx_s', 0.0):.3f} / {r.get('time_rx_s', 0.0):.3f}",
                str(int(r.transitions)),
            )
    console.print(t)


def print_profiles(console: Console, df: pd.DataFrame) -> None:
    """Table of device profiles."""
    t = Table(title="Device profiles (mW)", title_justify="left")
    t.add_column("name")
    states = ("tx", "rx", "idle_high", "idle", "sleep", "off")
    for s in states:
        t.add_column(s, justify="right")
    t.add_column("source", overflow="fold", max_width=60)
    for _, r in df.iterrows():
        t.add_row(r["name"], *(f"{r[f'{s}_mw']:g}" for s in states), r["source"])
    console.print(t)


def print_bench(console: Console, rows: list[tuple[str, list[dict]]]) -> None:
    """Benchmark table: best and median wall time, events and events/s."""
    t = Table(title="Benchmarks (one core, release build)", title_justify="left")
    for col in ("case", "runs", "best wall (s)", "median wall (s)", "events", "events/s (best)"):
        t.add_column(col, justify="left" if col == "case" else "right")
    for name, runs in rows:
        walls = [r["wall_time_s"] for r in runs]
        best = min(runs, key=lambda r: r["wall_time_s"])
        t.add_row(
            name,
            str(len(runs)),
            f"{best['wall_time_s']:.3f}",
            f"{statistics.median(walls):.3f}",
            f"{best['events']:,}",
            f"{best['events_per_s']:,.0f}",
        )
    console.print(t)


def print_frame(console: Console, df: pd.DataFrame, title: str, floats: str = "{:.3f}") -> None:
    """Any small DataFrame as a table, floats formatted alike."""
    t = Table(title=title, title_justify="left")
    for c in df.columns:
        t.add_column(str(c), justify="left" if df[c].dtype == object else "right")
    for _, r in df.iterrows():
        t.add_row(*(floats.format(v) if isinstance(v, float) else str(v) for v in r))
    console.print(t)
