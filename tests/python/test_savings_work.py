"""Equal work before a saving (issue 27 item 1): a power mode that delivers less than its
baseline shows what it lost and no saving, in `wattlab run` (exit 3, a warning), `--compare`,
`RunResult.savings` and a sweep's `savings` table; a mode that does the same work shows its
saving; energy per delivered MB beside each. The cc + UDP case of the issue, both ways, and
ICMP under cc."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

import wattlab
from wattlab import work

WATTLAB = [sys.executable, "-m", "wattlab.cli"]


def stream_scenario(power_save: str, *, up: bool = False, extra: str = "") -> str:
    """A 2 Mb/s udp-cbr stream for 2 s between a server 10 ms behind an AP and a BSS station
    (the issue's case, shortened from 20 s)."""
    ends = 'from = "client"\nto = "server"' if up else 'from = "server"\nto = "client"'
    return f"""name = "stream-{power_save}"
[simulation]
seed = 1
[[node]]
name = "server"
kind = "host"
[[node]]
name = "ap"
kind = "ap"
[[node]]
name = "client"
kind = "host"
radio = {{ profile = "wavelan-dsss", policies = ["always-on"] }}
[[link]]
name = "wired"
a = "server"
b = "ap"
rate = "100Mbps"
delay = "10ms"
[[wlan]]
name = "bss"
ap = "ap"
stations = ["client"]
phy = "80211g"
rate = "54Mbps"
power_save = "{power_save}"
{extra}
[[flow]]
kind = "udp-cbr"
name = "stream"
{ends}
rate = "2Mbps"
duration = "2s"
"""


LOSSY_PSM = dict(power_save="psm", extra="ap_queue = 10")
"""PSM with a 10-frame AP buffer: the AP drops what a beacon interval of the stream brings."""


@pytest.fixture
def lossy(tmp_path):
    path = tmp_path / "lossy.toml"
    path.write_text(stream_scenario(**LOSSY_PSM))
    return path


def test_the_issues_cc_stream_is_delivered_and_its_saving_is_against_the_same_work(tmp_path):
    # Before: the agent slept (no TCP connection open), 1 datagram of 4,167 arrived, and
    # `wattlab run` printed an 86.6 % saving with exit 0.
    for up in (False, True):
        res = wattlab.run(text=stream_scenario("cc", up=up), baseline=True)
        f = res.flows.iloc[0]
        assert (f.datagrams_sent, f.datagrams_lost, f.completed) == (489, 0, True), f
        row = res.savings.iloc[0]
        assert bool(row.same_work) and row.lost_bytes == 0 and row.lost_datagrams == 0
        assert row.delivered_bytes == row.baseline_delivered_bytes == f.bytes_delivered
        # Awake throughout, as the baseline: no saving to speak of, but a number.
        assert abs(row.saving) < 1e-3, row
        assert row.energy_j_per_mb == pytest.approx(row.energy_j / (f.bytes_delivered / 1e6))
    path = tmp_path / "cc.toml"
    path.write_text(stream_scenario("cc"))
    r = subprocess.run([*WATTLAB, "run", str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "J/MB" in r.stdout and "warning" not in r.stderr


def test_a_mode_that_loses_data_shows_no_saving_in_run_and_exits_3(lossy):
    r = subprocess.run([*WATTLAB, "run", str(lossy)], capture_output=True, text=True)
    assert r.returncode == 3, (r.stdout, r.stderr)
    assert "psm did not do the baseline's work (lost" in r.stderr and "datagrams" in r.stderr
    assert "not completed: stream" in r.stderr and "--allow-incomplete" in r.stderr
    savings = r.stdout[r.stdout.index("Power mode vs"):]  # (the radio table has a client psm row too)
    row = next(line for line in savings.splitlines() if line.split()[:2] == ["client", "psm"])
    assert "none" in row and "%" not in row, row
    r = subprocess.run([*WATTLAB, "run", str(lossy), "--allow-incomplete"], capture_output=True, text=True)
    assert r.returncode == 0 and "note: psm did not do the baseline's work" in r.stderr
    r = subprocess.run([*WATTLAB, "run", str(lossy), "--json", "--allow-incomplete"], capture_output=True, text=True)
    s = json.loads(r.stdout)["savings"][0]
    assert s["saving"] is None and s["slowdown"] is None and s["same_work"] is False
    assert s["lost_bytes"] > 100_000 and s["lost_datagrams"] > 100 and s["flows_not_completed"] == "stream"
    assert s["lost_bytes"] == s["baseline_delivered_bytes"] - s["delivered_bytes"]
    assert s["saving_note"].startswith("no saving: lost ") and "not completed: stream" in s["saving_note"]


def test_the_run_report_names_the_flow_that_did_not_complete_and_why_no_saving(lossy, tmp_path):
    # The run ends by itself (no time limit), but its stream lost datagrams: the page must not
    # say "every flow completed", and the savings table gives the reason beside the "—".
    out = tmp_path / "o"
    r = subprocess.run([*WATTLAB, "run", str(lossy), "--out", str(out), "--allow-incomplete"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([*WATTLAB, "report", str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    page = (out / "report.html").read_text()
    assert "Every flow completed" not in page
    assert "not every flow completed: stream" in page
    assert "no saving: lost " in page


def test_run_result_savings_has_nan_for_lost_work_and_j_per_mb(lossy):
    res = wattlab.run(lossy, baseline=True)
    row = res.savings.iloc[0]
    assert math.isnan(row.saving) and math.isnan(row.slowdown) and not row.same_work
    flows, base = res.flows.iloc[0], res.baseline.flows.iloc[0]
    assert row.lost_bytes == base.bytes_delivered - flows.bytes_delivered > 0
    assert row.lost_datagrams == base.datagrams_received - flows.datagrams_received
    assert (flows.completed, base.completed) == (False, True)
    assert row.energy_j_per_mb == pytest.approx(row.energy_j / flows.bytes_delivered * 1e6)
    assert row.baseline_energy_j_per_mb == pytest.approx(row.baseline_energy_j / base.bytes_delivered * 1e6)
    assert api_lost(res).startswith("lost ")


def api_lost(res) -> str:
    from wattlab import api

    return api.lost_work(res)


def test_compare_shows_no_saving_for_the_value_that_lost_data(lossy):
    r = subprocess.run([*WATTLAB, "run", str(lossy), "--compare", "wlan.bss.power_save=cam,psm,cc", "--json"],
                       capture_output=True, text=True)
    assert r.returncode == 3, r.stderr
    assert "with wlan.bss.power_save = psm the run did not do the work of wlan.bss.power_save = cam" in r.stderr
    rows = {row["value"]: row for row in json.loads(r.stdout)}
    assert rows["psm"]["saving[client]"] is None and rows["psm"]["slowdown"] is None
    assert rows["psm"]["lost_datagrams"] > 100 and not rows["psm"]["same_work"]
    assert rows["cc"]["same_work"] and rows["cc"]["saving[client]"] is not None
    assert rows["psm"]["energy_j_per_mb[client]"] > 0
    r = subprocess.run([*WATTLAB, "run", str(lossy), "--compare", "wlan.bss.power_save=cam,psm"], capture_output=True, text=True)
    psm = next(line for line in r.stdout.splitlines() if line.startswith(" psm") or line.startswith("psm"))
    assert "none" in psm and "J/MB" in r.stdout and "psm: no saving" in r.stdout


def test_the_sweep_savings_table_shows_no_saving_where_work_was_lost(lossy, tmp_path):
    df = wattlab.sweep({"scenario": str(lossy), "seeds": [1], "outputs": ["savings"],
                        "grid": {"wlan.bss.ap_queue": [10, 1000]}}, tmp_path / "sweep", jobs=1, table="savings")
    by = df.set_index("wlan.bss.ap_queue")
    assert not by.loc[10, "same_work"] and math.isnan(by.loc[10, "saving"]) and by.loc[10, "lost_bytes"] > 0
    # With room for a beacon interval of the stream PSM delivers everything: a real saving.
    assert by.loc[1000, "same_work"] and by.loc[1000, "saving"] > 0.3, by.loc[1000]
    assert by.loc[1000, "lost_bytes"] == 0 and by.loc[1000, "flows_not_completed"] == ""
    assert by.loc[1000, "energy_j_per_mb"] < by.loc[1000, "baseline_energy_j_per_mb"]


def test_compare_work_by_hand():
    def summ(*flows):
        return {"flows": [{"name": n, "bytes_delivered": b, "completed": c, **({"datagrams_received": d} if d is not None else {})}
                          for n, b, c, d in flows]}

    base = summ(("a", 1000, True, None), ("s", 500, True, 5))
    assert work.compare_work(base, base) == {"same_work": True, "lost_bytes": 0, "lost_datagrams": 0, "flows_not_completed": ""}
    d = work.compare_work(summ(("a", 1000, True, None), ("s", 400, False, 4)), base)
    assert d == {"same_work": False, "lost_bytes": 100, "lost_datagrams": 1, "flows_not_completed": "s"}
    assert work.describe_loss(d) == "lost 0.0001 MB; lost 1 datagrams; not completed: s"
    # More delivered than the baseline: different work, said so.
    d = work.compare_work(summ(("a", 1200, True, None)), summ(("a", 1000, True, None)))
    assert not d["same_work"] and d["lost_bytes"] == -200 and work.describe_loss(d) == "0.0002 MB more delivered"
    # A flow the baseline did not complete either (cut by the stop time): within 1 %.
    cut = summ(("bg", 2_000_000, False, None), ("s", 100_000, False, 10_000))
    assert work.compare_work(summ(("bg", 1_980_000, False, None), ("s", 100_000, False, 9_900)), cut)["same_work"]
    assert not work.compare_work(summ(("bg", 1_979_999, False, None), ("s", 100_000, False, 10_000)), cut)["same_work"]
    assert not work.compare_work(summ(("bg", 2_000_000, False, None), ("s", 100_000, False, 9_899)), cut)["same_work"]
    # A flow the baseline completed: exact, one byte is one too many.
    d = work.compare_work(summ(("a", 999, True, None)), summ(("a", 1000, True, None)))
    assert not d["same_work"] and d["lost_bytes"] == 1
    assert work.joules_per_mb(2.0, 0) is None and work.joules_per_mb(2.0, 500_000) == 4.0


def test_reproductions_compute_no_ratio_where_the_work_differs():
    import pandas as pd

    from wattlab.reproduce.anastasi_psna.experiments import table
    from wattlab.reproduce.yan_cc.web import normalize_web, same_work

    web = pd.DataFrame({"policy": ["tcp", "cc", "tcp", "cc"], "seed": [1, 1, 2, 2], "completed": [True, True, True, False],
                        "bytes": [100, 100, 100, 60], "energy_j": [10.0, 5.0, 10.0, 1.0], "download_s": [1.0, 1.2, 1.0, 9.0],
                        "oracle_j": [4.0, 4.0, 4.0, 4.0]})
    assert same_work(web).tolist() == [True, True, True, False]
    cc = normalize_web(web).set_index("policy").loc["cc"]
    assert cc.energy_norm == 0.5, "seed 2's cc run lost data: its 0.1 is not a ratio"
    from wattlab.reproduce.yan_cc.web import rtt_cache_by_concurrency

    three = pd.DataFrame({"policy": ["tcp", "cc", "cc-nocache"] * 2, "seed": [1, 1, 1, 2, 2, 2],
                          "completed": [True] * 5 + [False], "bytes": [100] * 5 + [50],
                          "energy_k1_j": [9.0, 4.0, 8.0, 9.0, 4.0, 1.0]})
    k1 = rtt_cache_by_concurrency(three).iloc[0]
    assert (k1.cache_saving, k1.seeds) == (0.5, 1), "seed 2's cc-nocache lost data: left out"
    cols = {c: [1.0, 1.0] for c in ("battery_s", "lifetime_s", "goodput_bps", "transfer_length_s", "kbps_paper",
                                    "power_saving_index", "polls", "sleeps", "radio_on_switches", "radio_on_s", "signalling_on_s",
                                    "burst_s", "first_residual_s", "residual_error_mean_s", "residual_error_max_s",
                                    "estimator_samples")}
    runs = pd.DataFrame({"transfer": ["A", "A"], "arch": ["legacy", "psm"], "seed": [1, 1], "completed": [True, False],
                         "bytes": [1000, 400], "card_j": [10.0, 2.0], "completion_s": [5.0, 50.0], **cols})
    t = table(runs).set_index("arch")
    assert t.loc["legacy", "same_work"] and t.loc["legacy", "gain_factor"] == 1.0
    assert not t.loc["psm", "same_work"] and math.isnan(t.loc["psm", "gain_factor"]) and math.isnan(t.loc["psm", "reduction_percent"])


def test_completion_and_slowdown_count_from_the_runs_start_not_each_flows():
    """Two downloads, the second starting at 10 s: the run's work is done when the late one
    ends (its start plus its own completion time), not after the longest flow's own duration.
    By hand first, then a real run's savings row."""
    def summ(*flows):
        return {"completed": True, "end_time_s": 20.0, "radios": [],
                "flows": [{"name": n, "bytes_delivered": 1, "completed": True, "start_s": s, "completion_time_s": t}
                          for n, s, t in flows]}

    base = summ(("early", 0.0, 2.0), ("late", 10.0, 1.0))
    slow = summ(("early", 0.0, 2.0), ("late", 10.0, 3.0))
    c = work.compare_runs(slow, base)
    assert c["completion_s"] == 13.0, c  # was 3.0: the late flow's own duration
    assert c["slowdown"] == pytest.approx(13.0 / 11.0 - 1.0), c  # was 3 / 2 − 1 = 50 %
    demo = (Path(__file__).resolve().parents[2] / "scenarios" / "demo.toml").read_text().replace('bytes = "5MB"', 'bytes = "200kB"')
    late = demo.split("[[flow]]")[1].replace('name = "download"', 'name = "late"\nstart = "3s"')
    text = demo.replace('down = { loss', 'power_save = "psm"\ndown = { loss') + "\n[[flow]]" + late
    res = wattlab.run(text=text, baseline=True)
    f = res.flows.set_index("name")
    assert f.completed.all(), f
    want = float((f.start_s + f.completion_time_s).max())
    assert want > 3.0 and want > float(f.completion_time_s.max()) + 1.0
    [row] = res.savings.to_dict("records")
    assert row["completion_s"] == pytest.approx(want, abs=1e-9), (row, f)
    b = res.baseline.flows
    assert row["baseline_completion_s"] == pytest.approx(float((b.start_s + b.completion_time_s).max()), abs=1e-9)
