"""Web browsing live (issue 33, item 3): paper 000's web workload (several persistent
connections per page, think times) on real Linux TCP in the testbed, the client-centered agent
on NFQUEUE with its RTT cache, and ``wattlab live compare`` against the simulator.

The page plan is the simulator's own (``wattlab-live plan`` draws it with the web application's
generator): checked here against a simulated run's pages without root. Tests that need root,
network namespaces and NFQUEUE skip elsewhere with the reason (the check of ``test_live.py``);
CI runs them as root. Every run has a time bound and removes its namespaces.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from conftest import ROOT, SCENARIOS
from test_live import LIVE_REASON, _namespaces_of, needs_live, runs  # noqa: F401 - `runs` is a fixture
from wattlab import api, live
from wattlab.live import runner, web

WEB = SCENARIOS / "yan-cc-web-live.toml"

AGREEMENT = 0.10
"""The issue's bound: mean page load time, the session's time and the energy, live within
±10 % of the simulator's."""
MEDIAN_AGREEMENT = 0.20
"""The median page load time of a 4-page session is the mean of two pages' loads of 2–4 round
trips (60 ms each): one round trip more or less on one page moves it by 10–25 %. Measured
2026-11-28 at load 13–15: +14.5 % always-on, +15.3 % cc (docs/live.md, "Web flows")."""
HOST_LATE_LIMIT_MS = 5.0
"""A live run whose host served a timer or verdict later than this was disturbed (its packets
met delays the scenario does not have): it is repeated once instead of judged."""


def _needs_binary() -> None:
    if not (ROOT / "target" / "release" / "wattlab-live").is_file() and "WATTLAB_LIVE_BIN" not in os.environ:
        pytest.skip("target/release/wattlab-live is not built (make setup builds it)")


def _short(tmp_path: Path, pages: int = 4, think: str = "300ms") -> Path:
    """The web scenario with a few pages and short think times (a CI-sized session)."""
    text = WEB.read_text()
    assert "pages = 10" in text and 'scale = "1s"' in text
    p = tmp_path / "web-short.toml"
    p.write_text(text.replace("pages = 10", f"pages = {pages}").replace('scale = "1s"', f'scale = "{think}"'))
    return p


# ---- without root -----------------------------------------------------------------------

def test_plan_is_the_simulators_page_plan():
    """The live plan's pages (objects, body bytes, think times) are the ones the simulator
    browses: the same generator, seed and stream names."""
    _needs_binary()
    plan = runner.load_plan(WEB, "always-on")
    assert plan["kind"] == "web"
    w = plan["web"]
    assert len(w["pages"]) == 10 and w["max_connections"] == 4
    sim = api.run(WEB)
    pages = sim.pages.sort_values("page")
    assert pages.objects.tolist() == [len(p["sizes"]) for p in w["pages"]]
    assert pages.bytes.tolist() == [sum(p["sizes"]) for p in w["pages"]]
    assert pages.think_s.round(9).tolist() == [round(p["think_s"], 9) for p in w["pages"]]
    # The bytes the browser must read: every body plus its header, as the simulator's target.
    assert plan["bytes"] == sum(sum(p["sizes"]) + len(p["sizes"]) * w["response_header"] for p in w["pages"])
    assert int(sim.summary["flows"][0]["bytes_delivered"]) == plan["bytes"]
    # Another seed draws another plan.
    other = runner.load_plan(WEB, "always-on", ["simulation.seed=2"])
    assert [p["sizes"] for p in other["web"]["pages"]] != [p["sizes"] for p in w["pages"]]


def test_a_web_flow_with_several_servers_is_refused():
    _needs_binary()
    with pytest.raises(live.LiveInputError, match="browses one server"):
        runner.load_plan(SCENARIOS / "web.toml", "always-on")


def test_time_bound_counts_the_think_times(tmp_path):
    _needs_binary()
    plan = runner.load_plan(WEB, "always-on")
    need = web.least_time_s(plan)
    assert need > plan["web"]["think_total_s"] - plan["web"]["pages"][-1]["think_s"]
    with pytest.raises(live.LiveInputError, match="think time"):
        web.time_bound(plan, need * 0.5)
    assert web.time_bound(plan, need * 2) == need * 2
    assert web.time_bound(plan, None) == min(3 * need + 30, 600)


def test_live_energy_is_judged_over_the_simulated_runs_span():
    """The live energy compared with the simulator's is the capture's over the session window
    (first page's start to last page's end: the simulated run's span), not the whole capture,
    which runs on while the closes after the last page finish; the whole capture's stays in
    ``capture_energy_j``. Without a costed window the whole capture's is used."""
    import types

    import pandas as pd

    def costed(j: float, sleep: float):
        return types.SimpleNamespace(energy=pd.DataFrame({"policy": ["always-on", "replay"], "energy_j": [9.0, j], "time_sleep_s": [0.0, sleep]}))

    fetch = {"start_ns": 1_000, "end_ns": 4_000_000_000, "pages_done": 2, "bytes_complete": 10, "connections": 1,
             "page_rows": [{"view": 0, "start_ns": 1_000, "end_ns": 300_000_000}, {"view": 1, "start_ns": 700_000_000, "end_ns": 4_000_000_000}]}
    plan = {"policy": "cc", "web": {"pages": [{}, {}]}, "bytes": 10}
    res = web.WebLiveResult(plan=plan, fetch=fetch, server={"retransmitted_segments": 0}, emulator={"host": {"late_max_us": 0}},
                            agent=None, energy=costed(2.0, 3.5), out_dir=Path("."))
    assert res.window_ns == (1_000, 4_000_000_000)
    assert (res.energy_j, res.sleep_s) == (2.0, 3.5), "no window costed: the whole capture"
    res.window_energy = costed(1.8, 3.1)
    assert (res.energy_j, res.sleep_s, res.capture_energy_j) == (1.8, 3.1, 2.0)
    assert web.live_row(res, "cc")["energy_j"] == 1.8


# ---- as root ------------------------------------------------------------------------------

def _compare(path: Path, out: Path):
    df = live.compare(path, out_dir=out)
    if df.host_late_max_ms.max() > HOST_LATE_LIMIT_MS:
        df = live.compare(path, out_dir=out, overwrite=True)
    return df


LIVE_ENERGY_WINDOW = "the session window"
"""The live energy judged is the capture's over the session window (first page's start to last
page's end, the simulated run's span). Over the whole capture, which runs on 0.33–0.36 s while
the sleeping agent drops the server's closing FINs, the cc agent's live energy on this 4-page
session with the restart on was +8.7 to +14.8 % of the simulator's (2026-11-28, load 1.2–7.7);
over the window +4.9 to +9.9 % (seven runs, session 42: three stored runs re-costed, four
live at load 4–9): the rest is page 0's one-RTT race (+3.9–4.9 %) and per-burst timing
(docs/live.md, "Web flows"). So the stock-Linux test now asserts every bound, the cc energy
included; its margin is small under load (+9.9 % once), like the page-load bounds'."""


def _check_session(df, skip: tuple[str, ...] = ()) -> None:
    """Every page and byte delivered, as simulated; load times and energy within the bounds
    (but the ``skip``ped "policy measure" gaps); the agent's RTT cache hit live and simulated,
    as often (the same look-ups on the same plan)."""
    print(df.drop(columns=["load_s"]).to_string())
    for g in df.attrs["gaps"]:
        print(g)
    assert df.verified.all()
    for policy in ("always-on", "cc"):
        s = df[(df.policy == policy) & (df["mode"] == "sim")].iloc[0]
        lv = df[(df.policy == policy) & (df["mode"] == "live")].iloc[0]
        assert lv.pages_done == s.pages_done == 4
        assert lv.bytes == s.bytes
    for g in df.attrs["gaps"]:
        if g["measure"] == "saving" or f"{g['policy']} {g['measure']}" in skip:
            continue
        bound = MEDIAN_AGREEMENT if g["measure"] == "load_median_s" else AGREEMENT
        assert abs(g["gap"]) <= bound, f"{g['policy']} {g['measure']}: sim {g['sim']:.4f}, live {g['live']:.4f} ({100 * g['gap']:+.1f} %)"
    cc = df[df.policy == "cc"].set_index("mode")
    assert cc.loc["live", "rtt_cache_hits"] > 0 and cc.loc["sim", "rtt_cache_hits"] > 0
    assert cc.loc["live", "rtt_cache_misses"] > 0
    assert cc.loc["live", "rtt_cache_hits"] == cc.loc["sim", "rtt_cache_hits"]
    assert cc.loc["live", "saving"] > 0


@needs_live
def test_one_web_session_on_stock_linux_against_the_simulator(tmp_path, runs):
    """A 4-page session with 300 ms think times, always-on and cc, Linux as it ships: the
    scenario sets ``tcp.slow_start_after_idle = true``, so the testbed leaves
    ``net.ipv4.tcp_slow_start_after_idle = 1`` (Linux restarts a connection's window after an
    idle RTO, so every page after a think time starts from the initial window) and the
    simulator models the same restart (docs/tcp.md). Every bound, the cc agent's energy over
    :data:`LIVE_ENERGY_WINDOW` included."""
    path = _short(tmp_path)
    assert runner.load_plan(path, "always-on")["slow_start_after_idle"] is True
    df = _compare(path, tmp_path / "cmp")
    _check_session(df)
    # The judged live energy is the session window's; the whole capture runs on after the last
    # page (the closes), so it costs more.
    summary = json.loads((tmp_path / "cmp" / "live-cc" / "summary.json").read_text())
    assert summary["capture_energy_j"] > summary["energy_j"] == df[(df.policy == "cc") & (df["mode"] == "live")].energy_j.iloc[0]
    # The restart is what both sides did: the simulator without it loads the 4 pages in
    # 1.19 s, stock Linux in 1.62 s (2026-11-28; pages 3 and 4 restart after 0.3 s > RTO).
    sim = api.run(path, overrides=["flow.0.tcp.slow_start_after_idle=false"])
    loads = (sim.pages.end_s - sim.pages.start_s).tolist()
    live_loads = df[(df.policy == "always-on") & (df["mode"] == "live")].iloc[0].load_s
    assert sum(live_loads) > sum(loads) * 1.2, (live_loads, loads)
    for rid in runs:
        assert _namespaces_of(rid) == []


@needs_live
def test_one_web_session_without_the_idle_restart(tmp_path, runs):
    """The same session with Linux's restart after idle off on both sides
    (``tcp.slow_start_after_idle = false``: the plan sets the sysctl to 0): every bound,
    the cc agent's energy included."""
    path = _short(tmp_path)
    path.write_text(path.read_text().replace("slow_start_after_idle = true", "slow_start_after_idle = false"))
    assert runner.load_plan(path, "always-on")["slow_start_after_idle"] is False
    _check_session(_compare(path, tmp_path / "cmp"))
    for rid in runs:
        assert _namespaces_of(rid) == []
