"""Issue 32 gap 2 (seed 003): the options the hypotheses run (separate sender stations, ns-2's
coarse timer) and the generated conclusions, each driven to each of its wordings."""

from __future__ import annotations

import dataclasses

import pandas as pd
import pytest
from click.testing import CliRunner

from wattlab.cli import app
from wattlab.reproduce.kontogiannis2005 import claims, experiments, hypotheses as h, scenario
from wattlab.reproduce.kontogiannis2005.config import NS2_TCP_TICK_MS, Config

CFG = Config.quick_preset()


def test_separate_senders_give_each_flow_its_own_station_queue_and_radio():
    ovr = scenario.tcp_overrides("tahoe", 3, 100_000, "random", 0.001, CFG, seed=1, separate=True)
    eff = scenario.BASE.effective(ovr)
    (wlan,) = eff["wlan"]
    assert wlan["stations"] == ["node0", "node2", "node3"]
    radios = {n["name"]: n.get("radio", {}).get("profile") for n in eff["node"]}
    assert radios == {"node0": "orinoco", "node1": None, "node2": "orinoco", "node3": "orinoco"}
    assert [f["client"] for f in eff["flow"]] == ["node0", "node2", "node3"]
    # the shared default: every flow from node0, node0 the only station
    shared = scenario.BASE.effective(scenario.tcp_overrides("tahoe", 3, 100_000, "random", 0.001, CFG, seed=1))
    assert shared["wlan"][0]["stations"] == ["node0"] and {f["client"] for f in shared["flow"]} == {"node0"}


def test_separate_senders_run_and_their_energy_is_summed():
    ovr = scenario.tcp_overrides("vegas", 2, 200_000, "random", 0.0, CFG, seed=3, separate=True)
    res = scenario.BASE.run(3, ovr)
    stations = {s["node"]: s for w in res.summary["wlans"] for s in w["stations"] if s["role"] == "station"}
    assert set(stations) == {"node0", "node2"}
    assert all(s["bytes_sent"] > 200_000 for s in stations.values()), "each station carried its own flow"
    assert res.flows.completed.all()
    e = experiments.system_energy(res, scenario.senders(2, True))
    assert e == pytest.approx(res.energy("always-on", "node0") + res.energy("always-on", "node2"))
    assert experiments.system_energy(res, ["node0", "node0"]) == res.energy("always-on", "node0")


def test_timer_tick_and_min_rto_reach_every_flow_and_default_to_1s_rfc6298():
    eff = scenario.BASE.effective(scenario.tcp_overrides(
        "vegas", 2, 1000, "random", 0.0, dataclasses.replace(CFG, timer_tick_ms=10.0, min_rto_ms=200.0), seed=1))
    assert {f["tcp"]["timer_tick"] for f in eff["flow"]} == {"10ms"}
    assert {f["tcp"]["min_rto"] for f in eff["flow"]} == {"200ms"}
    off = scenario.BASE.effective(scenario.tcp_overrides("vegas", 1, 1000, "random", 0.0, CFG, seed=1))
    assert "timer_tick" not in off["flow"][0]["tcp"] and off["flow"][0]["tcp"]["min_rto"] == "1s"


@pytest.mark.parametrize("args,reason", [(["--exp2-senders", "mesh"], "'mesh' is not one of"),
                                         (["--timer-tick", "0.5"], "0.5 is not in the range"),
                                         (["--min-rto", "0"], "0.0 is not in the range")])
def test_bad_option_values_are_refused_before_anything_runs(tmp_path, args, reason):
    r = CliRunner().invoke(app, ["reproduce", "kontogiannis2005", "--quick", *args, "--out", str(tmp_path)])
    assert r.exit_code == 2 and reason in r.output
    assert not any(tmp_path.iterdir())


def test_config_check_names_the_bad_senders_value():
    with pytest.raises(ValueError, match="unknown Experiment 2 senders 'mesh'"):
        dataclasses.replace(CFG, exp2_senders="mesh").check()


def test_alternatives_are_the_other_value_of_each_option():
    a = h.Alternatives.of(CFG)
    assert (a.senders, a.per_reading) == ("separate", "average")
    assert [(t.name, t.tick_ms, t.min_rto_ms) for t in a.timers] == [("ns-2.27", NS2_TCP_TICK_MS, 1000.0),
                                                                     ("ns-2.28", NS2_TCP_TICK_MS, 200.0)]
    assert a.timers[1].option == "--timer-tick 10 --min-rto 200"
    b = h.Alternatives.of(dataclasses.replace(CFG, exp2_senders="separate", timer_tick_ms=10.0, per_reading="average"))
    assert (b.senders, b.per_reading) == ("shared", "bad-state")
    assert [t.name for t in b.timers] == ["ns-2.28"], "the main run's own timer is not rerun"


@pytest.mark.parametrize("share,words", [(0.8, "explains most of"), (0.3, "explains part of"),
                                         (0.05, "does not explain"), (-0.2, "widens"),
                                         (float("nan"), "cannot be judged on")])
def test_explains_wording(share, words):
    assert h.explains(share) == words


def exp2(fair_t: float, fair_v: float, ci: float, ns=(1, 3, 5, 8, 25)) -> pd.DataFrame:
    """Experiment 2 points: Tahoe and Vegas with the given Jain indexes (1 at n = 1)."""
    rows = []
    for n in ns:
        for v, f in (("tahoe", fair_t), ("vegas", fair_v)):
            rows.append({"flows": n, "variant": v, "fairness": 1.0 if n == 1 else f, "fairness_ci": ci,
                         "goodput_bps": 1.3e6 if v == "tahoe" else 1.25e6, "eee_system": 0.12 if v == "tahoe" else 0.10,
                         "energy_gain_pct": -1.0})
    return pd.DataFrame(rows)


def hyp_table(main: pd.DataFrame, alt: pd.DataFrame) -> pd.DataFrame:
    b = {c.id: c for c in claims.experiment2_claims(main, 1.0)}
    return pd.DataFrame([{"hypothesis": "senders", "option": "x", "claim": c.id, "main": b[c.id].verdict,
                          "alternative": c.verdict, "evidence": c.evidence} for c in claims.experiment2_claims(alt, 1.0)])


def test_senders_sentence_says_whether_the_papers_fairness_difference_appears():
    main = exp2(0.99, 0.99, 0.01)
    unfair = exp2(0.70, 0.95, 0.02)
    s = h.senders_sentence(CFG, main, unfair, hyp_table(main, unfair))
    assert "reproduce the paper's fairness difference: Vegas is fairer than Tahoe beyond the 95 % intervals at " \
           "4 of the paper's 4 n (shared: 0; the paper: all)" in s
    assert "Tahoe 0.700–0.700, Vegas 0.950–0.950" in s and "n=3 +0.250" in s
    assert "largest difference +0.250 at n=3 (shared: 0 of 4, largest +0.000 at n=3)" in s
    part = exp2(0.90, 0.95, 0.02, ns=(1, 3, 5)).pipe(lambda d: pd.concat([d, exp2(0.99, 0.95, 0.01, ns=(8, 25))]))
    s = h.senders_sentence(CFG, main, part, hyp_table(main, part))
    assert "reproduce part of the paper's fairness difference" in s and "at 2 of the paper's 4 n" in s
    reversed_ = exp2(0.98, 0.90, 0.02)
    s = h.senders_sentence(CFG, main, reversed_, hyp_table(main, reversed_))
    assert "do not reproduce the paper's fairness difference" in s and "Vegas the fairer at 0" in s
    within = exp2(0.98, 0.99, 0.02)
    s = h.senders_sentence(CFG, main, within, hyp_table(main, within))
    assert "do not reproduce" in s and "(within the intervals)" in s


def exp1(goodput: dict[str, float], timeouts: dict[str, float], pers=(0.03, 0.07)) -> pd.DataFrame:
    return pd.DataFrame([{"model": m, "variant": v, "per": p, "timeouts": timeouts[v], "goodput_bps": g, "eee": 0.2}
                         for m in ("random", "burst") for v, g in goodput.items() for p in pers])


MAIN_GOODPUT = {"tahoe": 1e6, "vegas": 2.5e5, "sack": 1e6}
TIMEOUTS = {"tahoe": 1.0, "vegas": 10.0, "sack": 1.0}


@pytest.mark.parametrize("vegas,words", [(8e5, "explains most of"), (4e5, "explains part of"),
                                         (2.6e5, "does not explain"), (2e5, "widens")])
def test_timer_sentence_measures_the_share_of_vegas_goodput_deficit(vegas, words):
    main = exp1(MAIN_GOODPUT, TIMEOUTS)
    t = h.TIMERS[1]
    alt = exp1({**MAIN_GOODPUT, "vegas": vegas}, TIMEOUTS).assign(timer=t.name)
    table = pd.DataFrame([{"hypothesis": "timer ns-2.28", "claim": "R1.4", "main": "disagrees",
                           "alternative": "partly", "evidence": ""}])
    s = h.timer_sentence(CFG, t, main, alt, table)
    assert s.split("): ", 1)[1].startswith(words), s
    assert f"0.25 → {vegas / 1e6:.2f}" in s and "R1.4: R1.4 disagrees → partly" in s
    # equal timeouts are named as such; 1 MiB quick flows are scaled to the paper's 10 MiB
    assert "Vegas 100.0 → 100.0, Tahoe 10.0 → 10.0: the same losses still end in a timeout" in s and "scaled" in s


def test_timer_sentence_with_vegas_ahead_has_nothing_to_explain():
    main = exp1({**MAIN_GOODPUT, "vegas": 1.2e6}, TIMEOUTS)
    alt = exp1(MAIN_GOODPUT, {**TIMEOUTS, "vegas": 5.0}).assign(timer="ns-2.28")
    s = h.timer_sentence(CFG, h.TIMERS[1], main, alt, pd.DataFrame(columns=["hypothesis", "claim"]))
    assert "has no deficit to explain" in s and "Vegas 100.0 → 50.0" in s and "same losses" not in s


def test_reading_sentence_lists_the_claims_under_each_reading():
    rows = [("R1.2", "agrees", "partly"), ("R1.3", "partly", "agrees"), ("R1.8", "agrees", "agrees"),
            ("R1.4", "disagrees", "disagrees")]
    table = pd.DataFrame([{"hypothesis": "reading", "claim": c, "main": m, "alternative": a, "evidence": ""}
                          for c, m, a in rows])
    s = h.reading_sentence(CFG, table)
    assert "R1.2 agrees / partly, R1.3 partly / agrees under `bad-state` / `average`" in s
    assert "agree under both: R1.8" in s and "agree under one reading only: R1.2, R1.3" in s
    assert "R1.2 agrees → partly, R1.3 partly → agrees" in s


def test_vegas_retransmit_reaches_only_the_vegas_flows_and_defaults_to_rfc():
    ns2 = dataclasses.replace(CFG, vegas_retransmit="ns2")
    eff = scenario.BASE.effective(scenario.tcp_overrides("vegas", 2, 1000, "random", 0.0, ns2, seed=1))
    assert {f["tcp"]["vegas_retransmit"] for f in eff["flow"]} == {"ns2"}
    tahoe = scenario.BASE.effective(scenario.tcp_overrides("tahoe", 1, 1000, "random", 0.0, ns2, seed=1))
    assert "vegas_retransmit" not in tahoe["flow"][0]["tcp"], "written with another cc it is an error"
    off = scenario.BASE.effective(scenario.tcp_overrides("vegas", 1, 1000, "random", 0.0, CFG, seed=1))
    assert "vegas_retransmit" not in off["flow"][0]["tcp"]


def test_vegas_retransmit_bad_or_live_values_are_refused(tmp_path):
    r = CliRunner().invoke(app, ["reproduce", "kontogiannis2005", "--quick", "--vegas-retransmit", "bsd",
                                 "--out", str(tmp_path)])
    assert r.exit_code == 2 and "'bsd' is not one of" in r.output
    with pytest.raises(ValueError, match="unknown Vegas retransmission rules 'bsd'"):
        dataclasses.replace(CFG, vegas_retransmit="bsd").check()
    with pytest.raises(ValueError, match="Linux's Vegas, which keeps Linux's loss recovery"):
        dataclasses.replace(CFG, vegas_retransmit="ns2", live=True).check()


def test_vegas_settings_are_the_other_rules_alone_and_with_ns228s_timer():
    s = h.vegas_settings(CFG)
    assert [(x.name, x.retransmit, x.timer and x.timer.name) for x in s] == [("ns2", "ns2", None),
                                                                           ("ns2 + ns-2.28", "ns2", "ns-2.28")]
    assert s[1].option == "--vegas-retransmit ns2 --timer-tick 10 --min-rto 200"
    c = s[1].of(CFG)
    assert (c.vegas_retransmit, c.timer_tick_ms, c.min_rto_ms) == ("ns2", 10.0, 200.0)
    # a main run on ns-2.28's timer with ns-2's rules: the alternative is `rfc`, alone only
    b = h.vegas_settings(dataclasses.replace(CFG, vegas_retransmit="ns2", timer_tick_ms=10.0, min_rto_ms=200.0))
    assert [(x.name, x.timer) for x in b] == [("rfc", None)]


@pytest.mark.parametrize("vegas,words", [(8e5, "explains most of"), (4e5, "explains part of"),
                                         (2.6e5, "does not explain"), (2e5, "widens")])
def test_vegas_sentence_measures_the_share_of_vegas_goodput_deficit(vegas, words):
    main = exp1(MAIN_GOODPUT, TIMEOUTS)
    s_alone, s_both = h.vegas_settings(CFG)
    pts = exp1({**MAIN_GOODPUT, "vegas": vegas}, {**TIMEOUTS, "vegas": 4.0}).assign(setting=s_alone.name)
    table = pd.DataFrame([{"hypothesis": "vegas ns2", "claim": "R1.4", "main": "disagrees",
                           "alternative": "partly", "evidence": ""}])
    s = h.vegas_sentence(CFG, s_alone, main, pts, pd.DataFrame(columns=["timer"]), table)
    assert s.split("): ", 1)[1].startswith(words), s
    assert f"0.25 → {vegas / 1e6:.2f}" in s and "R1.4: R1.4 disagrees → partly" in s
    assert "Vegas 100.0 → 40.0, Tahoe 10.0 → 10.0" in s and "scaled" in s
    # combined with ns-2.28's timer: the timer's own share is named beside it
    timer = exp1({**MAIN_GOODPUT, "vegas": 5e5}, TIMEOUTS).assign(timer="ns-2.28")
    both = pts.assign(setting=s_both.name)
    s = h.vegas_sentence(CFG, s_both, main, both, timer, table)
    assert s.split("): ", 1)[1].startswith(words), s
    assert "with ns-2.28's timer" in s and "ns-2.28's timer alone: +50%" in s


def test_vegas_sentence_not_run_and_nothing_to_explain():
    s_alone = h.vegas_settings(CFG)[0]
    s = h.vegas_sentence(CFG, s_alone, exp1(MAIN_GOODPUT, TIMEOUTS), pd.DataFrame(columns=["setting"]),
                         pd.DataFrame(columns=["timer"]), pd.DataFrame(columns=["hypothesis", "claim"]))
    assert "not run" in s
    main = exp1({**MAIN_GOODPUT, "vegas": 1.2e6}, TIMEOUTS)
    s = h.vegas_sentence(CFG, s_alone, main, exp1(MAIN_GOODPUT, TIMEOUTS).assign(setting="ns2"),
                         pd.DataFrame(columns=["timer"]), pd.DataFrame(columns=["hypothesis", "claim"]))
    assert "has no deficit to explain" in s
