"""Terminal tables (rich) for run results, profiles and benchmarks."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from wattlab import _core
from wattlab.api import savings_rows
from wattlab.tables import column_header, new_table, print_table

if TYPE_CHECKING:
    import pandas as pd


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


def _table(title: str, caption: str | None = None) -> Table:
    """A result table in the compact style of every run table (header rule, no cell borders),
    printed with :func:`wattlab.tables.print_table` to fit the console's width."""
    return new_table(title, caption)


def run_header(res) -> str:
    """The line that says what ran: name, seed, the overrides that changed it, and the time."""
    s = res.summary
    sets = s.get("provenance", {}).get("overrides") or []
    changed = f"  [dim](with --set {escape(' --set '.join(sets))})[/]" if sets else ""
    done = "" if s["completed"] else "  [bold red]not every flow completed before the time limit[/]"
    return (
        f"[bold]{escape(s['scenario'])}[/]  seed {s['seed']}{changed}  simulated {s['end_time_s']:.3f} s  "
        f"({s['events']:,} events in {res.wall_time_s:.3f} s wall){done}"
    )


def print_run(console: Console, res) -> None:
    """Print the flow table, the energy table (and the savings against the baseline run) and
    the agents of one run."""
    s = res.summary
    console.print(run_header(res), highlight=False)
    t = _table("Flows")
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
            escape(f["name"]),
            f["kind"],
            _fmt_bytes(f["bytes_delivered"]),
            "—" if ct is None else f"{ct:.3f}",
            _fmt_bps(f["goodput_bps"]),
            str(f.get("retransmitted_segments", "—")),  # a PSNA flow has no TCP of its own at the client
            str(f.get("timeouts", "—")),  # TCP's columns; a WWP or UDP flow has none
            str(f.get("persist_probes", "—")),
        )
    print_table(console, t, keys=1)
    if s["radios"]:
        print_energy(console, res.tables["radios"].to_pylist())
    savings = savings_rows(res)
    if savings:
        print_savings(console, savings)
    if s.get("agents"):
        print_agents(console, s["agents"])
    if s.get("tunnels"):
        print_tunnels(console, s["tunnels"])
    if s.get("wlans"):
        print_wlan_stations(console, res.tables["wlan_stations"].to_pylist())


def print_wlan_stations(console: Console, rows: list[dict]) -> None:
    """Per station of each BSS: airtime, aggregation and the rates in use (docs/wlan.md)."""
    def mbps(v: float) -> str:
        return f"{v:.1f}" if v else "—"
    table = [{
        "node": r["node"], "airtime": f"{100 * r['airtime_share']:.1f} %",
        "ampdu": f"{r['ampdu_mean']:.1f}" if r["ampdus"] else "—", "ba_retries": r["ba_retries"],
        "amsdu": f"{r['msdus_per_mpdu']:.1f}" if r["ampdus"] else "—",
        "mcs": r["mcs_mode"] if r["mcs_mode"] >= 0 else "—", "rate": mbps(r["rate_mbps_mean"]),
        "up": mbps(r["rate_up_mbps"]), "down": mbps(r["rate_down_mbps"]),
    } for r in rows]
    cols = [("node", "node"), ("airtime", "airtime"), ("ampdu", "A-MPDU"), ("ba_retries", "BA rtx"),
            ("mcs", "MCS"), ("rate", "Mb/s"), ("up", "up"), ("down", "down")]
    if any(r["msdus_per_mpdu"] > 1 for r in rows):
        # Only where A-MSDU packed packets: MSDUs per MPDU beside MPDUs per A-MPDU.
        cols.insert(3, ("amsdu", "A-MSDU"))
    _print_counters(console, "WLAN stations (data MPDUs: most used MCS, mean rate)", table, cols,
                    left=("node",))


def print_agents(console: Console, agents: list[dict]) -> None:
    """What each client-centered agent did (docs/agent.md)."""
    cols = [
        ("node", "node"), ("detection", "detection"), ("bursts", "bursts"),
        ("closed_acks", "closed ACKs"), ("open_acks", "open ACKs"), ("open_acks_resent", "resent"),
        ("probes", "probes"), ("probes_lost", "lost"), ("recoveries", "recoveries"),
        ("reverted", "reverted"), ("sleeps", "sleeps"), ("dropped_asleep", "lost asleep"),
        ("rtt_cache_hits", "cache hits"), ("rtt_cache_misses", "misses"), ("rtt_cache_servers_max", "servers"),
    ]
    _print_counters(console, "Client-centered agent", agents, cols, left=("node", "detection"))


def print_tunnels(console: Console, tunnels: list[dict]) -> None:
    """What each SCTP tunnel endpoint did (docs/tunnel.md)."""
    cols = [
        ("tunnel", "tunnel"), ("side", "side"), ("inner_in", "carried"), ("inner_delivered", "delivered"),
        ("packets_sent", "packets"), ("sacks_sent", "SACKs"), ("sacks_piggybacked", "on DATA"),
        ("released_full", "bursts of m"), ("released_timeout", "by timeout"),
        ("released_burst_rule", "by burst rule"), ("timeout_retransmissions", "rtx (T3)"),
        ("fast_retransmissions", "rtx (fast)"), ("triggers", "triggers"), ("dropped_malformed", "malformed"),
    ]
    _print_counters(console, "SCTP tunnel", tunnels, cols, left=("tunnel", "side"))


def _print_counters(console: Console, title: str, rows: list[dict], cols: list[tuple[str, str]],
                    left: tuple[str, ...]) -> None:
    """A table of one row per entity: ``cols`` are (key, column title)."""
    t = _table(title)
    for key, name in cols:
        t.add_column(name, justify="left" if key in left else "right")
    for r in rows:
        t.add_row(*(escape(str(r[k])) for k, _ in cols))
    print_table(console, t, keys=len(left))


def print_energy(console: Console, radios: list[dict]) -> None:
    """Energy per radio: each accounting policy over this run's traffic (relative to the
    always-on accounting of the same traffic), then the power mode the run used (not relative:
    its traffic is not what it would have been without it; see print_savings)."""
    t = _table("Radio energy",
              caption="basis: accounting = a policy costing this run's traffic as it happened (packets unchanged), "
                      "mode = the power mode this run used (it may have changed the traffic); "
                      "'of always-on' compares accounting rows with always-on over the same traffic",
              )
    for col, just in (
        ("node", "left"),
        ("policy", "left"),
        ("basis", "left"),
        ("energy (J)", "right"),
        ("of always-on", "right"),
        ("awake (s)", "right"),
        ("sleep (s)", "right"),
        ("tx/rx (s)", "right"),
        ("wake-ups", "right"),
        ("profile", "left"),
    ):
        t.add_column(col, justify=just)
    base = {r["node"]: r["energy_j"] for r in radios if r["policy"] == "always-on" and r["basis"] == "accounting"}
    awake_states = _core.awake_states()
    dormant_states = [s for s in _core.radio_states() if s not in awake_states]
    for r in radios:
        awake = sum(r[f"time_{s}_s"] for s in awake_states)
        sleep = sum(r[f"time_{s}_s"] for s in dormant_states)
        b = base.get(r["node"])
        norm = "—" if r["basis"] == "mode" or not b else f"{r['energy_j'] / b:.1%}"
        t.add_row(
            escape(str(r["node"])),
            escape(r["policy"]),
            r["basis"],
            f"{r['energy_j']:.4f}",
            norm,
            f"{awake:.3f}",
            f"{sleep:.3f}",
            f"{r['time_tx_s']:.3f}/{r['time_rx_s']:.3f}",
            str(int(r["transitions"])),
            escape(r["profile"]),
        )
    print_table(console, t, keys=2)


def print_savings(console: Console, rows: list[dict]) -> None:
    """Each power mode against the baseline run: the same scenario and seed with power saving
    off (the same traffic without the scheme); no saving where the work differs."""
    from wattlab.work import describe_loss

    lost = [f"{r['mode']} at {r['node']}: no saving, the run did not do the baseline's work ({describe_loss(r)})"
            for r in rows if not r["same_work"]]
    t = _table("Power mode vs the same traffic without it",
               caption=escape("\n".join([*lost, "baseline: the same scenario and seed with power_save = cam (radio always on), "
                                          "no [[tunnel]], PSNA flows as end-to-end TCP; J/MB: per 10^6 bytes delivered"])))
    for col in ("node", "mode", "energy (J)", "baseline (J)", "saving", "J/MB", "baseline J/MB", "time (s)",
                "baseline time (s)", "slowdown"):
        t.add_column(col, justify="left" if col in ("node", "mode") else "right")
    per_mb = lambda v: "—" if v is None else f"{v:.4g}"  # noqa: E731
    for r in rows:
        same = r["same_work"]
        t.add_row(
            escape(str(r["node"])), escape(r["mode"]), f"{r['energy_j']:.4f}", f"{r['baseline_energy_j']:.4f}",
            f"{r['saving']:.1%}" if same else "[bold red]none[/]", per_mb(r["energy_j_per_mb"]),
            per_mb(r["baseline_energy_j_per_mb"]), f"{r['completion_s']:.3f}", f"{r['baseline_completion_s']:.3f}",
            f"{r['slowdown']:+.1%}" if same else "—",
        )
    print_table(console, t, keys=2)


def mode_note(res) -> str | None:
    """What to say when a power mode ran without a baseline (its saving is then unknown)."""
    if res.baseline is not None:
        return None
    modes = sorted({r["policy"] for r in res.summary["radios"] if r.get("basis") == "mode"})
    if not modes:
        return None
    return (
        f"{', '.join(modes)}: the power mode this run used changes the traffic, so its saving is measured against "
        "the same scenario without it; run without --no-baseline to see it"
    )


def print_profiles(console: Console, df: pd.DataFrame) -> None:
    """Table of device profiles."""
    t = Table(title="Device profiles (mW)", title_justify="left")
    t.add_column("name")
    states = list(reversed(_core.radio_states()))  # busiest first
    for s in states:
        t.add_column(s, justify="right")
    # Per-(width, NSS) PPDU powers: a count column only when some profile has them.
    ppdu = "ppdu_powers" in df and bool(df["ppdu_powers"].any())
    if ppdu:
        t.add_column("per-PPDU", justify="right")
    t.add_column("source", overflow="fold", max_width=60)
    for _, r in df.iterrows():
        extra = [str(r["ppdu_powers"])] if ppdu else []
        t.add_row(r["name"], *(f"{r[f'{s}_mw']:g}" for s in states), *extra, r["source"])
    print_table(console, t, keys=1)


def print_bench(console: Console, rows: list[tuple[str, list[dict]]]) -> None:
    """Benchmark table: best and median wall time, events and events/s."""
    import statistics

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
    print_table(console, t, keys=1)


def print_frame(console: Console, df: pd.DataFrame, title: str, floats: str = "{:.3f}", keys: int = 1,
                formats: dict[str, str] | None = None) -> None:
    """Any small DataFrame as a table: headers from the column names with their units
    (:func:`wattlab.tables.column_header`), floats formatted alike (or by ``formats``, per
    column), a missing value as —; the first ``keys`` columns name a row."""
    import pandas as pd

    formats = formats or {}
    t = _table(title)
    for c in df.columns:
        numeric = pd.api.types.is_numeric_dtype(df[c]) and not pd.api.types.is_bool_dtype(df[c])
        t.add_column(escape(column_header(str(c))), justify="right" if numeric else "left")
    for r in df.itertuples(index=False):
        t.add_row(*("—" if pd.isna(v) else formats.get(c, floats).format(v) if isinstance(v, float) or c in formats
                    else escape(str(v)) for c, v in zip(df.columns, r)))
    print_table(console, t, keys=keys)


def print_live_compare(console: Console, df: pd.DataFrame, scenario: str) -> None:
    """``wattlab live compare``'s rows: simulated and live, always-on and cc, side by side."""
    counts = [c for c in ("closed_acks", "open_acks", "probes", "lost_asleep", "retransmitted") if c in df.columns]
    df = df.astype({c: "Int64" for c in counts})  # counts, missing where the policy has no agent
    print_frame(console, df, f"{scenario}: simulated vs live (saving = 1 − energy / always-on of the same mode)", keys=2,
                formats={"saving": "{:.1%}", "energy_j": "{:.4f}", "goodput_mbps": "{:.2f}", "host_late_max_ms": "{:.1f}"})
