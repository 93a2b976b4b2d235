"""One live run, end to end: checks, plan, testbed, emulator, agent, server, client, capture,
verification, energy. And ``compare``: the same scenario simulated and live, side by side.

The payload is a keyed pseudo-random stream (``wattlab-live payload``): the server generates it
as it sends, nothing is written to disk, and the run is verified against its SHA-256."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import pandas as pd

from wattlab.live import checks, netns, psna, tcp_settings, tunnel, web, wwp
from wattlab.live.checks import POLICIES
from wattlab.live.netns import LiveError, LiveInputError, LiveTimeLimit
from wattlab.live.result import AgentRunMixin, LiveRunInfo
from wattlab.live.session import Session, binary, built_testbed, prepare_out, report, tool

__all__ = ["POLICIES", "LiveResult", "binary", "compare", "load_plan", "payload_digest", "run"]


def load_plan(scenario: str | Path, policy: str | None, overrides: Sequence[str] = ()) -> dict:
    """What a live run of ``scenario`` under ``policy`` does (``wattlab-live plan``; None: the
    flow's own, ``psna`` for a PSNA flow and ``always-on`` otherwise); raises
    :class:`LiveInputError` with the loader's message (file, line, key) for a scenario it cannot run."""
    path = checks.scenario_path(scenario)
    argv = [str(binary()), "plan", "--scenario", str(path)]
    if policy is not None:
        argv += ["--policy", checks.policy(policy)]
    for o in checks.overrides(overrides):
        argv += ["--set", o]
    return json.loads(tool(argv, f"reading {path}", timeout=60))


def payload_digest(n: int, key: int) -> str:
    """SHA-256 of the ``n``-byte payload of ``key``, streamed by ``wattlab-live payload``
    (about 1 GB/s; bounded at 60 s plus 20 ms per MB)."""
    argv = [str(binary()), "payload", "--bytes", str(n), "--payload-key", str(key)]
    return json.loads(tool(argv, "the payload's SHA-256", timeout=60 + n / 50e6))["sha256"]


@dataclass
class LiveResult(AgentRunMixin, LiveRunInfo):
    """Everything one live run produced (files are in ``out_dir``); the shared tail (energy,
    out_dir, wall time, notes, warnings) is :class:`~wattlab.live.result.LiveRunInfo`'s."""

    plan: dict
    """What ran: scenario, policy, TCP settings, path (``wattlab-live plan``)."""
    fetch: dict
    """The client's report: bytes, SHA-256, connect/first-byte/done times (Unix ns)."""
    server: dict
    """The server's report: bytes sent, congestion control, retransmissions, SRTT."""
    emulator: dict
    """The emulator's report: per-channel counters and verdict lateness."""
    agent: dict | None
    """The agent host's report (policy ``cc``): the agent's counters and the host's."""
    expected_bytes: int
    """Length of the payload served."""
    expected_sha256: str
    """SHA-256 of the payload (``wattlab-live payload``: the generator's stream, hashed as it is made)."""
    window_energy: object = None
    """:class:`wattlab.trace.TraceEnergy` of the capture cut to :attr:`window_ns` (the span the
    simulator meters); :attr:`energy` has the whole capture."""

    @property
    def window_ns(self) -> tuple[int, int]:
        """The download's window (Unix ns): from the client's ``connect`` (its SYN) to the end
        of the response (``done_ns``: the read that returns the server's FIN, which follows the
        last byte). It is the span the simulator meters: its radio meters start at time zero,
        where the flow (``start_s`` 0) sends its SYN, and the run ends (``done_at``, the meters'
        end) when the client's application has read the last byte (``Bulk::read`` →
        ``finish_flow``). The capture goes on past it: the close (the client's FIN and the
        server's ACK, one round trip) and, under the cc agent, the client's FIN resent after a
        timeout because the server's ACK of it arrives while the agent sleeps."""
        return int(self.fetch["connect_ns"]), int(self.fetch["done_ns"])

    @property
    def verified(self) -> bool:
        """The download is intact: same length and SHA-256 as the payload."""
        return self.fetch["bytes"] == self.expected_bytes and self.fetch["sha256"] == self.expected_sha256

    @property
    def transfer_time_s(self) -> float:
        """From ``connect`` to the server's FIN (the simulator's flow completion time)."""
        return (self.fetch["done_ns"] - self.fetch["connect_ns"]) / 1e9

    @property
    def goodput_bps(self) -> float:
        """Bytes delivered × 8 / transfer time."""
        return self.fetch["bytes"] * 8 / self.transfer_time_s if self.transfer_time_s > 0 else 0.0

    def summary(self) -> dict:
        """The run as one JSON-able dict (written as ``summary.json``)."""
        return {
            "mode": "live",
            "plan": self.plan,
            "verified": self.verified,
            "expected": {"bytes": self.expected_bytes, "sha256": self.expected_sha256},
            "transfer_time_s": self.transfer_time_s,
            "goodput_bps": self.goodput_bps,
            "energy_j": self.energy_j,
            "capture_energy_j": self.capture_energy_j,
            "window_ns": list(self.window_ns),
            "fetch": self.fetch,
            "server": self.server,
            "emulator": self.emulator,
            "agent": self.agent,
            **self.summary_tail(),
        }


def _notes(plan: dict) -> list[str]:
    notes = []
    if plan["cc"] in ("reno", "newreno"):
        notes.append(
            "Linux's `reno` module is AIMD with NewReno-style recovery (RFC 6582), plus PRR, RACK-TLP and "
            "F-RTO, which the simulator's Reno lacks"
        )
    notes.append("Linux ACKs quickly at the start of a connection (quick-ACK mode), then delays ACKs up to 40 ms")
    return notes


def _check_inputs(scenario, policy, overrides, time_limit, sysctls) -> tuple[Path, list[str], float | None, dict[str, list[str]]]:
    """Every option of a run, checked before anything starts (no root needed)."""
    if policy is not None:
        checks.policy(policy)
    return checks.scenario_path(scenario), checks.overrides(overrides), checks.time_limit(time_limit), checks.sysctls(sysctls)


def _live(plan: dict, scn: list[str], policy: str, out: Path, by_role: dict, limit: float, step: Callable[[str], None]) -> None:
    """Build the testbed, run the download in it, and remove it whatever happens."""
    with built_testbed(plan, step, by_role) as tb:
        tcp_settings.record(tb, out)  # the kernel's TCP as this run has it (tcp_settings.json)
        s = Session(plan, scn, out, tb, limit, step)
        s.emulator(policy)
        if policy == "cc":
            s.agent()
        s.capture()
        server = s.server()
        s.download()
        s.finish(server)


def _profile_warnings(plan: dict) -> list[str]:
    """A warning when the scenario changes its radio profile's transition costs, which the live
    costing of the capture (by profile name) does not apply."""
    if not plan.get("profile_overridden"):
        return []
    return [f"the scenario's radio.transitions are not applied to the live energy: the capture is costed with the "
            f"built-in profile {plan['profile']} as it is"]


def _cost(plan: dict, out: Path, policy: str, capture: str = "client.pcap", into: str = "energy", src: Path | None = None):
    """The trace analyzer's energy of the client's capture (``out/capture``), written to
    ``out/into``; the radio schedule replayed is ``src/transitions.csv`` (``src``: the run's
    directory, ``out`` unless given)."""
    from wattlab import trace

    replay = checks.family(policy) in checks.REPLAYED
    policies = ["always-on", "oracle"] + (["replay"] if replay else [])
    transitions = (src or out) / "transitions.csv" if replay else None
    try:
        energy = trace.energy(out / capture, client=netns.CLIENT_ADDR, profile=plan["profile"], policies=policies,
                              phy=f"link@{plan['hop_rate_bps'] / 1e6:g}", transitions=transitions, timeline=False)
    except Exception as e:  # the analyzer's errors name the capture and the offset
        raise LiveError(f"costing {out / capture} failed: {e}") from None
    energy.write(out / into, formats=("csv",))
    return energy


def cost_window(plan: dict, run_dir: Path, policy: str, window_ns: tuple[int, int], dest: Path | None = None):
    """The energy of the run's capture (``run_dir/client.pcap``) cut to ``window_ns`` (both
    ends included), costed as the whole capture is (the same replayed schedule): the cut
    capture goes to ``dest/client_window.pcap`` and its tables to ``dest/energy_window``
    (``dest``: ``run_dir`` unless given; a stored run is re-costed into another directory)."""
    from wattlab.live.tunnel import trim_pcap

    run_dir = Path(run_dir)
    dest = Path(dest) if dest is not None else run_dir
    dest.mkdir(parents=True, exist_ok=True)
    trim_pcap(run_dir / "client.pcap", dest / "client_window.pcap", window_ns[0], window_ns[1] + 1)
    return _cost(plan, dest, policy, capture="client_window.pcap", into="energy_window", src=run_dir)


def run(
    scenario: str | Path,
    policy: str | None = None,
    out_dir: str | Path | None = None,
    overrides: Sequence[str] = (),
    time_limit: float | None = None,
    overwrite: bool = False,
    on_step: Callable[[str], None] | None = None,
    sysctls: Sequence[str] = (),
) -> LiveResult | wwp.WwpLiveResult | psna.PsnaLiveResult | web.WebLiveResult:
    """Run ``scenario``'s download (or its ``wwp-bulk`` flow, see :mod:`wattlab.live.wwp`, its
    ``web`` flow, see :mod:`wattlab.live.web`, or its ``psna-read``/``psna-send`` flow, see
    :mod:`wattlab.live.psna`) live under ``policy``
    (always-on, cc, psm, adaptive-psm[:timeout=Tms], twt:interval=Ims,duration=Dus[,offset=Ous];
    psna for a PSNA flow; None: psna for a PSNA flow, always-on otherwise) and cost it.

    Every option is checked first (:class:`LiveInputError`, nothing runs): the scenario is a
    regular file, ``time_limit`` is in (0, 3600] s and the download can finish within it,
    ``out_dir`` is empty unless ``overwrite``. Needs root. The namespaces are removed on
    return, on error and on SIGINT/SIGTERM. ``time_limit`` bounds the download on the
    scenario's clock (default: the scenario's stop time, at most 600 s); the run ends with
    :class:`LiveTimeLimit` past it. Results go to ``out_dir`` (a new temporary directory if
    None): ``client.pcap``, the processes' JSON reports and logs, ``transitions.csv`` (every policy but always-on),
    the energy tables and ``summary.json``. ``plan["policy"]`` is the policy's canonical name
    (``adaptive-psm`` is written ``adaptive-psm:timeout=100ms``). ``sysctls`` are extra ``ROLE:KEY=VALUE`` settings
    (ROLE client or server) applied after the scenario's, e.g.
    ``server:net.ipv4.tcp_invalid_ratelimit=500`` for stock Linux's probe-answer rate limit.
    """
    started = time.monotonic()
    step = on_step or (lambda _msg: None)
    path, ov, limit_opt, by_role = _check_inputs(scenario, policy, overrides, time_limit, sysctls)
    out = checks.out_dir(out_dir, overwrite, path)
    plan = load_plan(path, policy, ov)  # the core says what the scenario needs (its kind)
    if plan.get("kind") == "tunnel":
        return _run_tunnel(plan, path, ov, out, overwrite, limit_opt, by_role, step)
    policy = plan["policy"]
    if plan.get("kind") == "wwp-bulk":
        return _run_wwp(plan, path, policy, ov, out, overwrite, limit_opt, by_role, step, started)
    if str(plan.get("kind")).startswith("psna-"):
        return _run_psna(plan, path, ov, out, overwrite, limit_opt, by_role, step, started)
    if plan.get("kind") == "web":
        limit = web.time_bound(plan, limit_opt)
        netns.require_root()
        out = prepare_out(out, overwrite, ours=checks.OUTPUTS + web.OUTPUTS)
        warnings = checks.sysctl_warnings(by_role) + _profile_warnings(plan)
        return web.run(plan, path, policy, ov, out, by_role, limit, step, started, _cost, warnings)
    limit = checks.time_bound(plan, limit_opt)
    netns.require_root()
    out = prepare_out(out, overwrite)
    (out / "plan.json").write_text(json.dumps(plan, indent=2) + "\n")
    scn = ["--scenario", str(path.resolve()), "--policy", policy, *[a for o in ov for a in ("--set", o)]]
    _live(plan, scn, policy, out, by_role, limit, step)
    step("verifying and costing the capture")
    reports = {name: report(out, name) for name in ("fetch", "server", "emulator")}
    res = LiveResult(
        plan=plan, fetch=reports["fetch"], server=reports["server"], emulator=reports["emulator"],
        agent=report(out, "agent") if policy == "cc" else None, energy=_cost(plan, out, policy),
        expected_bytes=int(plan["bytes"]), expected_sha256=payload_digest(int(plan["bytes"]), int(plan["seed"])),
        out_dir=out, notes=_notes(plan), warnings=checks.sysctl_warnings(by_role) + _profile_warnings(plan),
    )
    # The judged energy is the window's (the span the simulator meters), the whole capture's is kept.
    res.window_energy = cost_window(plan, out, policy, res.window_ns)
    res.wall_time_s = time.monotonic() - started
    res.write_summary()
    return res


def _run_tunnel(plan: dict, path: Path, ov: list[str], out: Path | None, overwrite: bool, limit_opt: float | None,
                by_role: dict, step: Callable[[str], None]) -> tunnel.TunnelLiveResult:
    """A scenario with a ``[[tunnel]]``: the live SCTP tunnel (:mod:`wattlab.live.tunnel`). The
    client's power saving is the scenario's own ``[[wlan]] power_save``, so ``--policy`` must
    be left out (or always-on: the core's plan refuses any other); the flows run for the
    scenario's duration (``--time-limit`` and ``--sysctl`` do not apply)."""
    if limit_opt is not None or any(by_role.values()):
        raise LiveInputError("--time-limit and --sysctl do not apply to a tunnel run (its flows run for the scenario's duration)")
    if plan["duration_s"] > 600:
        raise LiveInputError(f"{path}: a live tunnel run lasts the scenario's duration, {plan['duration_s']:g} s; at most 600 s")
    netns.require_root()
    out = prepare_out(out, overwrite, ours=tunnel.outputs(plan))
    return tunnel.run(path, ov, out, plan, str(binary()), payload_digest, step)


def _run_wwp(plan: dict, path: Path, policy: str, ov: list[str], out: Path | None, overwrite: bool, limit_opt: float | None,
             by_role: dict, step: Callable[[str], None], started: float) -> wwp.WwpLiveResult:
    """The ``wwp-bulk`` branch of :func:`run`: the WWP sender and receiver through the emulator."""
    if policy != "always-on":
        raise LiveInputError(f"--policy {policy}: a WWP flow runs with the radio always on (the agent and PSM shape TCP downloads)")
    limit = wwp.time_bound(plan, limit_opt)
    netns.require_root()
    out = prepare_out(out, overwrite)
    (out / "plan.json").write_text(json.dumps(plan, indent=2) + "\n")
    scn = ["--scenario", str(path.resolve()), "--policy", policy, *[a for o in ov for a in ("--set", o)]]
    origin = wwp.live(plan, scn, out, by_role, limit, step)
    step("verifying and costing the capture")
    sender, receiver = wwp.report(out, "wwp_sender"), wwp.report(out, "wwp_receiver")
    try:
        energy = _cost(plan, out, "always-on")
    except LiveError as e:
        energy, costed = None, [f"the capture was not costed: {e}"]
    else:
        costed = []
    res = wwp.WwpLiveResult(
        plan=plan, sender=sender, receiver=receiver, emulator=report(out, "emulator"), origin_ns=origin,
        expected_sha256=payload_digest(int(receiver["delivered_bytes"]), int(plan["seed"])), energy=energy, out_dir=out,
        notes=wwp.notes(plan) + costed, warnings=checks.sysctl_warnings(by_role) + _profile_warnings(plan),
    )
    res.wall_time_s = time.monotonic() - started
    res.write_summary()
    want = res.flow.get("bytes")
    if want is not None and res.delivered_bytes < int(want) and res.receiver["delivered_sha256"] == res.expected_sha256:
        raise LiveTimeLimit(f"the WWP flow delivered {res.delivered_bytes:,} of {int(want):,} bytes (intact) within the run's bound "
                            f"({limit:g} s + {wwp.CLOSE_GRACE_S:g} s to close); results in {out}")
    return res


def _run_psna(plan: dict, path: Path, ov: list[str], out: Path | None, overwrite: bool, limit_opt: float | None,
              by_role: dict, step: Callable[[str], None], started: float) -> psna.PsnaLiveResult:
    """The PSNA branch of :func:`run`: daemon, mobile and fixed host through the emulator."""
    limit = checks.time_bound(plan, limit_opt)
    netns.require_root()
    out = prepare_out(out, overwrite)
    (out / "plan.json").write_text(json.dumps(plan, indent=2) + "\n")
    scn = ["--scenario", str(path.resolve()), "--policy", "psna", *[a for o in ov for a in ("--set", o)]]
    psna.live(plan, scn, out, by_role, limit, step)
    step("verifying and costing the capture")
    try:
        energy, costed = _cost(plan, out, "psna"), []
    except LiveError as e:
        energy, costed = None, [f"the capture was not costed: {e}"]
    res = psna.PsnaLiveResult(
        plan=plan, mobile=report(out, "psna_mobile"), daemon=report(out, "psna_daemon"), fh=psna.optional_report(out, "fh"),
        emulator=report(out, "emulator"), expected_sha256=payload_digest(int(plan["bytes"]), int(plan["seed"])), energy=energy,
        out_dir=out, notes=psna.notes(plan) + costed, warnings=checks.sysctl_warnings(by_role) + _profile_warnings(plan),
    )
    res.wall_time_s = time.monotonic() - started
    res.write_summary()
    psna.check_outcome(res, limit)
    return res


def compare(
    scenario: str | Path,
    overrides: Sequence[str] = (),
    out_dir: str | Path | None = None,
    time_limit: float | None = None,
    overwrite: bool = False,
    on_step: Callable[[str], None] | None = None,
    sysctls: Sequence[str] = (),
) -> pd.DataFrame:
    """Simulate and run live ``scenario`` always-on and with the cc agent; one row per
    (mode, policy): transfer time, goodput, energy, saving vs always-on of the same mode, closed
    ACKs, open ACKs, probes, sleep time, packets lost asleep, retransmissions, whether the data
    was intact, and the live host's worst timing error (``host_late_max_ms``)."""
    from wattlab import api

    step = on_step or (lambda _msg: None)
    path, ov, limit_opt, _ = _check_inputs(scenario, "cc", overrides, time_limit, sysctls)
    root = checks.out_dir(out_dir, overwrite, path)
    kind = str(load_plan(path, None, ov).get("kind"))
    if kind == "tunnel":
        raise LiveInputError(f"{path}: `live compare` compares TCP downloads with and without the agent; run a [[tunnel]] scenario with "
                             "`wattlab live run` (and `wattlab run` for the simulator)")
    if kind.startswith("psna-"):
        raise LiveInputError(f"{path}: `live compare` compares TCP downloads with and without the agent; run a PSNA flow with "
                             "`wattlab live run` (tests/python/test_live_psna.py compares it with the simulator)")
    for policy in ("always-on", "cc"):  # refuse what cannot run live before simulating
        plan = load_plan(path, policy, ov)
        if plan.get("kind") == "wwp-bulk":
            raise LiveInputError(f"{path}: `live compare` compares TCP downloads with and without the agent; run a WWP flow with `wattlab live run`")
        web.time_bound(plan, limit_opt) if kind == "web" else checks.time_bound(plan, limit_opt)
    netns.require_root()
    root = prepare_out(root, overwrite, ours=("compare.csv", "live-always-on", "live-cc", "gaps.csv", "page_loads.json"), prefix="wattlab-compare-")
    if kind == "web":
        return web.compare(path, ov, root, time_limit, overwrite, step, sysctls, run, load_plan)
    rows = []
    for policy in ("always-on", "cc"):
        step(f"simulating {policy}")
        sim = api.run(path, overrides=load_plan(path, policy, ov)["overrides"])
        flow = sim.summary["flows"][0]
        radios = sim.radios
        if policy == "cc":
            meter = radios[radios.policy == "cc"]
            agent = sim.agents.iloc[0] if len(sim.agents) else None
        else:
            meter = radios[radios.policy == "always-on"]
            agent = None
        m = meter.iloc[0]
        rows.append({
            "mode": "sim", "policy": policy, "transfer_time_s": flow["completion_time_s"], "goodput_mbps": flow["goodput_bps"] / 1e6,
            "energy_j": float(m.energy_j), "sleep_s": float(m.get("time_sleep_s", 0.0)),
            "closed_acks": None if agent is None else int(agent.closed_acks), "open_acks": None if agent is None else int(agent.open_acks),
            "probes": None if agent is None else int(agent.probes), "lost_asleep": None if agent is None else int(agent.dropped_asleep),
            "retransmitted": int(flow["retransmitted_segments"]), "verified": True, "host_late_max_ms": 0.0,
        })
        res = run(path, policy, out_dir=root / f"live-{policy}", overrides=ov, time_limit=time_limit, overwrite=overwrite, on_step=lambda s, p=policy: step(f"live {p}: {s}"), sysctls=sysctls)
        a = (res.agent or {}).get("agent")
        # Judged over the download's window (SYN to last byte), the span the simulator meters.
        rows.append({
            "mode": "live", "policy": policy, "transfer_time_s": res.transfer_time_s, "goodput_mbps": res.goodput_bps / 1e6,
            "energy_j": res.energy_j, "sleep_s": res.sleep_s,
            "closed_acks": None if a is None else int(a["closed_acks"]), "open_acks": None if a is None else int(a["open_acks"]),
            "probes": None if a is None else int(a["probes"]), "lost_asleep": None if a is None else int(a["dropped_asleep"]),
            "retransmitted": int(res.server["retransmitted_segments"]), "verified": res.verified,
            "host_late_max_ms": res.host_late_max_ms,
        })
    df = pd.DataFrame(rows)
    base = df[df.policy == "always-on"].set_index("mode").energy_j
    df.insert(5, "saving", 1.0 - df.energy_j / df["mode"].map(base))
    df.to_csv(root / "compare.csv", index=False)
    return df
