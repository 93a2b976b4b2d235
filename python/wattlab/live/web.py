"""A live run of a ``web`` flow (paper 000's web workload): the browser (``wattlab-live
web-fetch``) in the client's namespace and the server (``web-serve``) in the server's, on real
Linux TCP through the emulator, both following the page plan the simulator's web application
draws (``plan["web"]``: the same generator, seed and stream names), with the client-centered
agent on NFQUEUE under ``--policy cc``. The browser tells the agent when a page starts (the
agent flushes its RTT cache) and each response's length (Content-Length), as the simulator's
web application hints its agent; the agent reports its RTT cache's hits and misses.

:func:`compare` simulates and runs the scenario always-on and with the agent, and puts per-page
load times, the session's time, the energy and the RTT cache's counters side by side."""

from __future__ import annotations

import json
import statistics
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import pandas as pd

from wattlab.live import checks, netns
from wattlab.live.netns import LiveError, LiveInputError, LiveTimeLimit, Testbed
from wattlab.live.result import AgentRunMixin, LiveRunInfo
from wattlab.live.session import Session, built_testbed, report

OUTPUTS = ("web_fetch.json", "web_fetch.log", "web_server.json", "web_server.out", "web_server.log", "pages.csv")
"""Files a web run writes besides the common ones (:data:`wattlab.live.checks.OUTPUTS`)."""

DEFAULT_BOUND_FACTOR = 3.0
"""Without ``--time-limit`` a web run's bound is this many times its least time plus 30 s (at
most :data:`checks.DEFAULT_TIME_LIMIT_S`): the think times alone are fixed by the plan."""


def least_time_s(plan: dict) -> float:
    """The least time the session can take (s): its start, every think time, per page the
    handshake's and the HTML's and the objects' round trips, and every response at the path's
    slowest rate."""
    w = plan["web"]
    down = plan["bytes"] * 8 / plan["down_rate_bps"] if plan["down_rate_bps"] else 0.0
    rounds = sum(3 if len(p["sizes"]) > 1 else 2 for p in w["pages"])
    last_think = w["pages"][-1]["think_s"] if w["pages"] else 0.0
    return plan["start_s"] + (w["think_total_s"] - last_think) + rounds * plan["base_rtt_s"] + down


def time_bound(plan: dict, limit: float | None) -> float:
    """The session's bound (s): ``limit``, or 3 × its least time + 30 s, at most 600 s; a
    session that cannot finish within it is refused before anything runs."""
    need = least_time_s(plan)
    if need > checks.MAX_TIME_LIMIT_S:
        raise LiveInputError(f"the web session needs at least {need:,.1f} s (its think times and responses), more than a live run may "
                             f"take ({checks.MAX_TIME_LIMIT_S:g} s): lower the flow's pages")
    bound = limit if limit is not None else min(DEFAULT_BOUND_FACTOR * need + 30.0, checks.DEFAULT_TIME_LIMIT_S)
    if need > bound:
        given = f"--time-limit {limit:g} s" if limit is not None else f"the default bound of {bound:g} s"
        raise LiveInputError(f"the web session ({len(plan['web']['pages'])} pages, {plan['web']['think_total_s']:.1f} s of think time) "
                             f"needs at least {need:,.1f} s, more than {given}: raise --time-limit (at most {checks.MAX_TIME_LIMIT_S:g} s) "
                             "or lower the flow's pages")
    return bound


def hints_socket(tb: Testbed) -> Path:
    """The Unix socket on which the agent takes the browser's hints (short path: 108 bytes)."""
    return netns.RUN_DIR / f"{netns.PREFIX}{tb.run_id}-hints.sock"


@dataclass
class WebLiveResult(AgentRunMixin, LiveRunInfo):
    """Everything a live web run produced (files are in ``out_dir``); the shared tail (energy,
    out_dir, wall time, notes, warnings) is :class:`~wattlab.live.result.LiveRunInfo`'s."""

    plan: dict
    """What ran (``wattlab-live plan``), with the page plan in ``plan["web"]``."""
    fetch: dict
    """The browser's report: pages, objects, bytes, connections, each page's times (Unix ns)."""
    server: dict
    """The server's report: connections, requests, bytes, retransmissions."""
    emulator: dict
    """The emulator's report."""
    agent: dict | None
    """The agent host's report (policy cc): the agent's counters (``rtt_cache_hits``...)."""
    window_energy: object = None
    """:class:`wattlab.trace.TraceEnergy` of the capture's session window
    (:attr:`window_ns`): the simulated run's span, so the two energies cover the same time."""

    @property
    def window_ns(self) -> tuple[int, int]:
        """The session window (Unix ns): the first page's start to the last page's end, the
        span of the simulator's run (it ends at the last page's end; the browser's closes after
        it, whose FINs the sleeping agent drops and the server resends, are outside)."""
        rows = self.fetch["page_rows"]
        return int(rows[0]["start_ns"]), int(rows[-1]["end_ns"])

    @property
    def verified(self) -> bool:
        """Every page of the plan completed, every object with its response's plan length."""
        f = self.fetch
        return f["pages_done"] == len(self.plan["web"]["pages"]) and f["bytes_complete"] == int(self.plan["bytes"])

    @property
    def pages(self) -> pd.DataFrame:
        """One row per page view: start and end (s from the first page's start), load time,
        objects, body bytes, new connections, think time after it."""
        rows = self.fetch["page_rows"]
        t0 = self.fetch["start_ns"]
        df = pd.DataFrame(rows, columns=["view", "start_ns", "end_ns", "objects", "bytes", "new_connections", "think_s"])
        out = pd.DataFrame({
            "page": df.view, "start_s": (df.start_ns - t0) / 1e9, "end_s": (df.end_ns - t0) / 1e9,
            "load_s": (df.end_ns - df.start_ns) / 1e9, "objects": df.objects, "bytes": df.bytes,
            "new_connections": df.new_connections, "think_s": df.think_s,
        })
        return out

    @property
    def transfer_time_s(self) -> float:
        """From the first page's start to the last page's end (the simulator's completion time)."""
        return (self.fetch["end_ns"] - self.fetch["start_ns"]) / 1e9

    def summary(self) -> dict:
        """The run as one JSON-able dict (``summary.json``)."""
        loads = self.pages.load_s.tolist()
        return {
            "mode": "live", "kind": "web", "plan": self.plan, "verified": self.verified,
            "transfer_time_s": self.transfer_time_s, "energy_j": self.energy_j, "capture_energy_j": self.capture_energy_j,
            "window_ns": list(self.window_ns),
            "pages_done": self.fetch["pages_done"], "load_mean_s": statistics.fmean(loads) if loads else None,
            "load_median_s": statistics.median(loads) if loads else None,
            "fetch": self.fetch, "server": self.server, "emulator": self.emulator, "agent": self.agent, **self.summary_tail(),
        }


def _live(plan: dict, scn: list[str], policy: str, out: Path, by_role: dict, limit: float, step: Callable[[str], None]) -> None:
    """Build the testbed, run the session in it, and remove it whatever happens."""
    with built_testbed(plan, step, by_role, remove=hints_socket) as tb:
        sock = hints_socket(tb)
        s = Session(plan, scn, out, tb, limit, step)
        s.emulator(policy)
        if policy == "cc":
            s.agent(extra=("--hints", str(sock)))
        s.capture()
        idle = max(10.0, min(limit, 60.0))
        step("starting the web server")
        argv = [s.exe, "web-serve", *scn, "--listen", f"{netns.SERVER_ADDR}:{plan['port']}",
                "--time-limit", f"{limit + idle:.3f}", "--report", str(out / "web_server.json")]
        server = s.start("the server", "server", argv, "web_server.out", "web_server.log")
        s.ready(server, "web_server.out", "ready")
        s.deadline = time.monotonic() + limit
        time.sleep(plan["start_s"])  # at most the bound (time_bound)
        step("browsing")
        argv = [s.exe, "web-fetch", *scn, "--connect", f"{netns.SERVER_ADDR}:{plan['port']}",
                "--idle-timeout", f"{idle:.3f}", "--time-limit", f"{limit:.3f}", "--report", str(out / "web_fetch.json")]
        if policy == "cc":
            argv += ["--hints", str(sock)]
        fetch = s.start("the browser", "client", argv, None, "web_fetch.log")
        while fetch.popen.poll() is None:
            s.check_others(fetch, " during the session")
            if time.monotonic() > s.deadline:
                raise LiveTimeLimit(f"the web session did not finish within the run's time bound ({limit:g} s); logs in {out}")
            time.sleep(0.05)
        if fetch.popen.returncode != 0:
            raise s.failure(fetch)
        s.finish(server)


def notes(plan: dict) -> list[str]:
    """What a live web run does differently from the simulator."""
    return [
        "the browser's hints (new page, response length) reach the live agent by a Unix socket, the simulator's by a "
        "function call: the agent learns them a few µs to a poll later",
        "Linux ACKs quickly at the start of a connection (quick-ACK mode), then delays ACKs up to 40 ms",
    ]


def run(plan: dict, path: Path, policy: str, ov: list[str], out: Path, by_role: dict, limit: float,
        step: Callable[[str], None], started: float, cost: Callable, warnings: list[str]) -> WebLiveResult:
    """The ``web`` branch of :func:`wattlab.live.runner.run` (inputs checked, root, ``out`` prepared)."""
    (out / "plan.json").write_text(json.dumps(plan, indent=2) + "\n")
    scn = ["--scenario", str(path.resolve()), "--policy", policy, *[a for o in ov for a in ("--set", o)]]
    _live(plan, scn, policy, out, by_role, limit, step)
    step("verifying and costing the capture")
    res = WebLiveResult(
        plan=plan, fetch=report(out, "web_fetch"), server=report(out, "web_server"), emulator=report(out, "emulator"),
        agent=report(out, "agent") if policy == "cc" else None, energy=cost(plan, out, policy), out_dir=out,
        notes=notes(plan), warnings=warnings,
    )
    if res.fetch["page_rows"]:
        from wattlab.live.tunnel import trim_pcap

        trim_pcap(out / "client.pcap", out / "client_window.pcap", res.window_ns[0], res.window_ns[1] + 1)
        res.window_energy = cost(plan, out, policy, capture="client_window.pcap", into="energy_window")
    res.wall_time_s = time.monotonic() - started
    res.pages.to_csv(out / "pages.csv", index=False)
    res.write_summary()
    return res


def _gap(live: float | None, sim: float | None) -> float | None:
    """Live against sim, as a fraction of sim."""
    if live is None or sim is None or sim == 0:
        return None
    return live / sim - 1.0


def sim_row(path: Path, policy: str, overrides: list[str]) -> dict:
    """The simulator's side of one policy: pages, load times, session time, energy, agent."""
    from wattlab import api

    sim = api.run(path, overrides=overrides)
    flow = sim.summary["flows"][0]
    pages = sim.pages
    loads = (pages.end_s - pages.start_s).dropna().tolist()
    radios = sim.radios
    m = radios[radios.policy == ("cc" if policy == "cc" else "always-on")].iloc[0]
    agent = sim.agents.iloc[0] if policy == "cc" and len(sim.agents) else None
    return {
        "mode": "sim", "policy": policy, "pages_done": int(pages.end_s.notna().sum()), "bytes": int(flow["bytes_delivered"]),
        "load_mean_s": statistics.fmean(loads) if loads else None, "load_median_s": statistics.median(loads) if loads else None,
        "total_s": float(pages.end_s.max() - pages.start_s.min()), "energy_j": float(m.energy_j),
        "sleep_s": float(m.get("time_sleep_s", 0.0)),
        "rtt_cache_hits": None if agent is None else int(agent.rtt_cache_hits),
        "rtt_cache_misses": None if agent is None else int(agent.rtt_cache_misses),
        "connections": int(pages.new_connections.sum()), "retransmitted": int(flow["retransmitted_segments"]),
        "verified": True, "host_late_max_ms": 0.0, "load_s": loads,
    }


def live_row(res: WebLiveResult, policy: str) -> dict:
    """The live side of one policy."""
    a = (res.agent or {}).get("agent")
    loads = res.pages.load_s.tolist()
    return {
        "mode": "live", "policy": policy, "pages_done": int(res.fetch["pages_done"]), "bytes": int(res.fetch["bytes_complete"]),
        "load_mean_s": statistics.fmean(loads) if loads else None, "load_median_s": statistics.median(loads) if loads else None,
        "total_s": res.transfer_time_s, "energy_j": res.energy_j, "sleep_s": res.sleep_s,
        "rtt_cache_hits": None if a is None else int(a["rtt_cache_hits"]),
        "rtt_cache_misses": None if a is None else int(a["rtt_cache_misses"]),
        "connections": int(res.fetch["connections"]), "retransmitted": int(res.server["retransmitted_segments"]),
        "verified": res.verified, "host_late_max_ms": res.host_late_max_ms, "load_s": loads,
    }


def compare(path: Path, ov: list[str], root: Path, time_limit: float | None, overwrite: bool, step: Callable[[str], None],
            sysctls: Sequence[str], run_live: Callable, load_plan: Callable) -> pd.DataFrame:
    """Simulate and run live a web scenario, always-on and cc: one row per (mode, policy) with
    pages, bytes, mean and median page load time, session time, energy, saving against
    always-on of the same mode, sleep time, RTT cache hits and misses (cc), connections,
    retransmissions, verified, the live host's worst timing error; the gaps live vs sim (in %
    of sim) are in ``df.attrs["gaps"]``, per-page load times in the ``load_s`` column."""
    rows = []
    for policy in ("always-on", "cc"):
        step(f"simulating {policy}")
        rows.append(sim_row(path, policy, load_plan(path, policy, ov)["overrides"]))
        res = run_live(path, policy, out_dir=root / f"live-{policy}", overrides=ov, time_limit=time_limit, overwrite=overwrite,
                       on_step=lambda s, p=policy: step(f"live {p}: {s}"), sysctls=sysctls)
        rows.append(live_row(res, policy))
    df = pd.DataFrame(rows)
    base = df[df.policy == "always-on"].set_index("mode").energy_j
    df.insert(8, "saving", 1.0 - df.energy_j / df["mode"].map(base))
    gaps = []
    for policy in ("always-on", "cc"):
        s = df[(df.policy == policy) & (df["mode"] == "sim")].iloc[0]
        lv = df[(df.policy == policy) & (df["mode"] == "live")].iloc[0]
        for k in ("load_mean_s", "load_median_s", "total_s", "energy_j"):
            gaps.append({"policy": policy, "measure": k, "sim": s[k], "live": lv[k], "gap": _gap(lv[k], s[k])})
        if policy == "cc":
            gaps.append({"policy": policy, "measure": "saving", "sim": s.saving, "live": lv.saving, "gap": lv.saving - s.saving})
    df.attrs["gaps"] = gaps
    df.attrs["kind"] = "web"
    df.drop(columns=["load_s"]).to_csv(root / "compare.csv", index=False)
    pd.DataFrame(gaps).to_csv(root / "gaps.csv", index=False)
    (root / "page_loads.json").write_text(json.dumps([{"mode": r["mode"], "policy": r["policy"], "load_s": r["load_s"]} for r in rows]) + "\n")
    return df


def print_compare(console, df: pd.DataFrame, name: str) -> None:
    """The comparison as two tables: per (mode, policy), then the gaps."""
    from wattlab.tables import new_table, print_table

    t = new_table(f"{name}: web browsing, simulated and live")
    cols = ("mode", "policy", "pages", "load mean (s)", "load median (s)", "total (s)", "energy (J)", "saving",
            "sleep (s)", "cache hits", "cache misses", "conns", "retx", "verified", "host late (ms)")
    for c in cols:
        t.add_column(c, justify="left" if c in ("mode", "policy") else "right")
    f = lambda v, fmt: "-" if v is None or (isinstance(v, float) and v != v) else format(v, fmt)  # noqa: E731
    for r in df.to_dict("records"):
        t.add_row(r["mode"], r["policy"], str(r["pages_done"]), f(r["load_mean_s"], ".3f"), f(r["load_median_s"], ".3f"),
                  f(r["total_s"], ".2f"), f(r["energy_j"], ".3f"), f(r["saving"], ".1%"), f(r["sleep_s"], ".2f"),
                  f(r["rtt_cache_hits"], ".0f"), f(r["rtt_cache_misses"], ".0f"), str(r["connections"]), str(r["retransmitted"]),
                  "yes" if r["verified"] else "NO", f(r["host_late_max_ms"], ".1f"))
    print_table(console, t, keys=2)
    g = new_table("live against sim (gap in % of sim; saving: percentage points)")
    for c in ("policy", "measure", "sim", "live", "gap"):
        g.add_column(c, justify="left" if c in ("policy", "measure") else "right")
    for r in df.attrs.get("gaps", []):
        pp = r["measure"] == "saving"
        g.add_row(r["policy"], r["measure"], f(r["sim"], ".1%" if pp else ".3f"), f(r["live"], ".1%" if pp else ".3f"),
                  "-" if r["gap"] is None else (f"{100 * r['gap']:+.1f} pp" if pp else f"{100 * r['gap']:+.1f} %"))
    print_table(console, g, keys=2)


def print_result(console, res: WebLiveResult, note: Callable, quiet: bool = False) -> None:
    """A live web run: pages, load times, energy, the agent's counters (RTT cache); the CLI
    prints the end every run shares (lateness, warnings, notes, where the results are)."""
    from rich.markup import escape

    from wattlab import report as rpt
    from wattlab.tables import new_table, print_table

    p, f = res.plan, res.fetch
    s = res.summary()
    ok = "[green]verified[/]" if res.verified else "[bold red]INCOMPLETE[/]"
    console.print(
        f"[bold]{escape(p['scenario'])}[/] live web, policy {p['policy']}, Linux {p['linux_cc']}  {f['pages_done']}/{f['pages']} pages, "
        f"{f['objects_done']} objects, {f['bytes_complete']:,} B {ok}  session {res.transfer_time_s:.2f} s, page load mean "
        f"{s['load_mean_s']:.3f} s, median {s['load_median_s']:.3f} s  ({res.wall_time_s:.1f} s wall)"
    )
    t = new_table("Pages")
    for c in ("page", "start (s)", "load (s)", "objects", "bytes", "new conns", "think (s)"):
        t.add_column(c, justify="right")
    for r in res.pages.to_dict("records"):
        t.add_row(str(r["page"]), f"{r['start_s']:.3f}", f"{r['load_s']:.3f}", str(r["objects"]), f"{r['bytes']:,}",
                  str(r["new_connections"]), f"{r['think_s']:.3f}")
    print_table(console, t, keys=1)
    rpt.print_energy(console, res.radios().to_dict("records"))
    note(f"energy over the session window (the simulated run's span, what compare judges): {res.energy_j:.3f} J; "
         f"the whole capture above: {res.capture_energy_j:.3f} J", quiet)
    if res.agent:
        row = {"node": p["client"], "detection": p.get("detection") or "active", **res.agent["agent"]}
        rpt.print_agents(console, [row])
        a, h = res.agent["agent"], res.agent["host"]
        note(f"RTT cache: {a['rtt_cache_hits']} hits, {a['rtt_cache_misses']} misses; hints applied: {h['hints_new_page']} new pages, "
             f"{h['hints_response']} response lengths", quiet)
