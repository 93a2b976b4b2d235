"""The energy a live download is judged by is its window, from the SYN to the last byte (the
span the simulator meters), not the whole capture, which also holds the close and, under the
cc agent, the client's FIN resent after a timeout. Runs without root: the captures here are
built by the test (raw-IP pcaps with known times), the "live" records are a stored grid's as
an older build left them (``energy_j`` the whole capture's, no ``capture_energy_j``)."""

from __future__ import annotations

import json
import struct

import pandas as pd
import pytest
from click.testing import CliRunner
from test_live_grid_rejudge import SHAPE, _digest, _stored

from wattlab import trace
from wattlab.cli_live import live_app
from wattlab.live import grid_rejudge, netns, runner, tunnel

T0 = 1_800_000_000 * 10**9
"""The SYN's time (Unix ns)."""
DONE = T0 + 240_100_000
"""``fetch.json``'s ``done_ns``: the last byte (the server's FIN) read, 240.1 ms after the SYN."""


def _ip(src: str, dst: str, total_len: int) -> bytes:
    a, b = (bytes(int(x) for x in ip.split(".")) for ip in (src, dst))
    hdr = struct.pack("!BBHHHBBH4s4s", 0x45, 0, total_len, 0, 0, 64, 6, 0, a, b)
    tcp = struct.pack("!HHIIBBHHH", 40000, 80, 0, 0, 5 << 4, 0x10, 65535, 0, 0)
    return hdr + tcp + bytes(total_len - 40)


def _capture(path) -> None:
    """SYN, 200 data segments at 1 ms with an ACK per two, the last at 240 ms; then the close:
    the client's FIN 1 ms after the last byte, resent at 700 ms, and the server's ACK of it."""
    c, s = netns.CLIENT_ADDR, netns.SERVER_ADDR
    pkts = [(T0, _ip(c, s, 60)), (T0 + 20_000_000, _ip(s, c, 60)), (T0 + 20_100_000, _ip(c, s, 52))]
    for i in range(200):
        t = T0 + 41_000_000 + i * 1_000_000
        pkts.append((t, _ip(s, c, 1500)))
        if i % 2:
            pkts.append((t + 50_000, _ip(c, s, 52)))
    pkts += [(DONE + 1_000_000, _ip(c, s, 52)), (T0 + 700_000_000, _ip(c, s, 52)), (T0 + 720_000_000, _ip(s, c, 52))]
    with path.open("wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, 65535, 101))  # ns timestamps, raw IP
        for t, data in pkts:
            f.write(struct.pack("<IIII", t // 10**9, t % 10**9, len(data), len(data)) + data)


def _older_grid(tmp_path):
    """A stored grid whose live records (one per mode) are as an older build wrote them, each
    run directory with its capture, plan, fetch report and (cc) the agent's schedule."""
    stored = _stored(tmp_path)
    for path in sorted((stored / "records").glob("live-*.json")):
        rec = json.loads(path.read_text())
        mode = rec["mode"]
        rundir = stored / "live" / SHAPE.key / f"{mode}-1"
        plan = {"policy": mode, "profile": "wavelan-dsss", "hop_rate_bps": 20_000_000}
        (rundir / "plan.json").write_text(json.dumps(plan))
        (rundir / "fetch.json").write_text(json.dumps({"connect_ns": T0, "done_ns": DONE, "bytes": 5_000_000}))
        _capture(rundir / "client.pcap")
        if mode == "cc":  # awake for the download, asleep from 245 ms, awake around the resent FIN
            (rundir / "transitions.csv").write_text(
                f"time_ns,state\n{T0 - 10_000_000},awake\n{T0 + 245_000_000},doze\n{T0 + 695_000_000},awake\n{T0 + 725_000_000},doze\n")
        whole = runner._cost(plan, rundir, mode)  # what the older build judged: the whole capture
        rec.pop("capture_energy_j")
        rec["energy_j"] = float(whole.energy[whole.energy.policy == ("replay" if mode == "cc" else "always-on")].energy_j.iloc[0])
        path.write_text(json.dumps(rec))
    return stored


def _own(energy, mode: str) -> pd.Series:
    e = energy.energy
    return e[e.policy == ("replay" if mode == "cc" else "always-on")].iloc[0]


def test_rejudge_recosts_an_older_grids_live_runs_over_the_syn_to_the_last_byte(tmp_path):
    stored = _older_grid(tmp_path)
    whole = {r["mode"]: r["energy_j"] for r in (json.loads(p.read_text()) for p in (stored / "records").glob("live-*.json"))}
    before = _digest(stored)
    out = tmp_path / "re"
    r = CliRunner().invoke(live_app, ["grid", "--out", str(out), "--rejudge", str(stored), "--profiles", "linux"], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    assert "2 stored live run(s) had their whole capture's energy" in r.output and "re-costed" in r.output
    assert _digest(stored) == before  # nothing written into the stored grid
    runs = pd.read_csv(out / "runs.csv")
    live = runs[runs.side == "live"].set_index("mode")
    for mode in ("always-on", "cc"):
        # The window, cut and costed here on its own: the same capture from the SYN to done_ns.
        cut = tmp_path / f"cut-{mode}.pcap"
        assert tunnel.trim_pcap(stored / "live" / SHAPE.key / f"{mode}-1" / "client.pcap", cut, T0, DONE + 1) == 303  # of 306: the close is left out
        rundir = stored / "live" / SHAPE.key / f"{mode}-1"
        want = trace.energy(cut, client=netns.CLIENT_ADDR, profile="wavelan-dsss", policies=["always-on", "oracle"] + (["replay"] if mode == "cc" else []),
                            phy="link@20", transitions=rundir / "transitions.csv" if mode == "cc" else None, timeline=False)
        w = _own(want, mode)
        assert w.duration_s <= (DONE - T0) / 1e9 + 1e-9
        assert live.loc[mode, "energy_j"] == pytest.approx(float(w.energy_j), rel=1e-12)
        assert live.loc[mode, "capture_energy_j"] == pytest.approx(whole[mode], rel=1e-12)
        assert live.loc[mode, "energy_j"] < whole[mode]
        assert (out / grid_rejudge.WINDOW_DIR / SHAPE.key / f"{mode}-1" / "energy_window").is_dir()
    # The close costs always-on its whole tail (480 ms awake) but cc only its wake-up around the
    # resent FIN, so judging the window lowers live's saving: the grid's saving is the window's.
    t = pd.read_csv(out / "grid.csv").iloc[0]
    on, cc = live.loc["always-on", "energy_j"], live.loc["cc", "energy_j"]
    assert t["live_saving_pct"] == pytest.approx(100 * (1 - cc / on), rel=1e-9)
    assert 1 - cc / on < 1 - whole["cc"] / whole["always-on"]
    prov = json.loads((out / "provenance.json").read_text())
    assert prov["rejudged"]["recosted_window"] == 2 and prov["rejudged"]["not_recosted"] == []


def test_a_record_of_the_windowed_energy_is_not_recosted_and_a_missing_capture_is_named(tmp_path):
    stored = _older_grid(tmp_path)
    rec = {"dir": str(tmp_path / "nowhere"), "energy_j": 3.0, "mode": "cc"}
    same, why = grid_rejudge.recost_window(rec, tmp_path / "w")
    assert same is rec and "nowhere" in why
    (stored / "live" / SHAPE.key / "cc-1" / "client.pcap").unlink()
    path = next((stored / "records").glob("live-*-cc-*.json"))
    cc_whole = json.loads(path.read_text())["energy_j"]
    on = next((stored / "records").glob("live-*-always-on-*.json"))
    on_rec = json.loads(on.read_text())
    on.write_text(json.dumps({**on_rec, "capture_energy_j": on_rec["energy_j"] + 1.0}))  # a newer record: judged as stored
    r = CliRunner().invoke(live_app, ["grid", "--out", str(tmp_path / "re"), "--rejudge", str(stored), "--profiles", "linux"],
                           catch_exceptions=False)
    assert r.exit_code == 0, r.output
    assert "1 stored live run(s) could not be re-costed" in r.output and "client.pcap is missing" in r.output
    assert "had their whole capture's energy" not in r.output
    live = pd.read_csv(tmp_path / "re" / "runs.csv").query("side == 'live'").set_index("mode")
    assert live.loc["cc", "energy_j"] == pytest.approx(cc_whole) and live.loc["always-on", "energy_j"] == pytest.approx(on_rec["energy_j"])
    assert live.loc["always-on", "capture_energy_j"] == pytest.approx(on_rec["energy_j"] + 1.0)


def test_a_live_downloads_judged_energy_is_its_window_and_the_whole_capture_is_kept(tmp_path):
    """``LiveResult``: ``energy_j`` (what compare and the grid judge) is the capture cut to
    ``window_ns`` (connect to done), ``capture_energy_j`` the whole capture's; without a
    costed window the whole capture's is used; ``summary.json`` keeps both and the window."""
    plan = {"policy": "cc", "profile": "wavelan-dsss", "hop_rate_bps": 20_000_000}
    _capture(tmp_path / "client.pcap")
    (tmp_path / "transitions.csv").write_text(
        f"time_ns,state\n{T0 - 10_000_000},awake\n{T0 + 245_000_000},doze\n{T0 + 695_000_000},awake\n{T0 + 725_000_000},doze\n")
    fetch = {"connect_ns": T0, "done_ns": DONE, "bytes": 5, "sha256": "ab"}
    res = runner.LiveResult(plan=plan, fetch=fetch, server={"retransmitted_segments": 0}, emulator={"host": {"late_max_us": 0}},
                            agent=None, expected_bytes=5, expected_sha256="ab", energy=runner._cost(plan, tmp_path, "cc"), out_dir=tmp_path)
    assert res.window_ns == (T0, DONE)
    whole = float(_own(res.energy, "cc").energy_j)
    assert res.energy_j == res.capture_energy_j == whole, "no window costed: the whole capture"
    res.window_energy = runner.cost_window(plan, tmp_path, "cc", res.window_ns)
    assert (tmp_path / "client_window.pcap").is_file() and (tmp_path / "energy_window").is_dir()
    w = _own(res.window_energy, "cc")
    assert res.energy_j == float(w.energy_j) < whole and res.capture_energy_j == whole
    assert res.sleep_s == float(w.time_sleep_s)
    s = res.summary()
    assert (s["energy_j"], s["capture_energy_j"], s["window_ns"]) == (res.energy_j, whole, [T0, DONE])
