"""One live run, end to end: plan, testbed, emulator, agent, server, client, capture,
verification, energy. And ``compare``: the same scenario simulated and live, side by side."""

from __future__ import annotations

import hashlib
import json
import os
import random
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Sequence

import pandas as pd

from wattlab.live import netns
from wattlab.live.netns import LiveError, Testbed

POLICIES = ("always-on", "cc", "psm")
"""Radio policies of a live run."""

EMU_QUEUE, AGENT_QUEUE = 1, 2
AGENT_MARK = 0x574C
REPO = Path(__file__).resolve().parents[3]


def binary() -> Path:
    """The ``wattlab-live`` executable: ``$WATTLAB_LIVE_BIN``, else the repository's release build."""
    env = os.environ.get("WATTLAB_LIVE_BIN")
    path = Path(env) if env else REPO / "target" / "release" / "wattlab-live"
    if not path.is_file():
        raise LiveError(f"{path} not found: build it with `make setup` (or set WATTLAB_LIVE_BIN)")
    return path


def load_plan(scenario: str | Path, policy: str, overrides: Iterable[str] = ()) -> dict:
    """What a live run of ``scenario`` under ``policy`` does (``wattlab-live plan``); raises
    :class:`LiveError` with the loader's message (file, line, key) for a scenario it cannot run."""
    if policy not in POLICIES:
        raise LiveError(f"unknown live policy `{policy}` (known: {', '.join(POLICIES)})")
    argv = [str(binary()), "plan", "--scenario", str(scenario), "--policy", policy]
    for o in overrides:
        argv += ["--set", o]
    p = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        raise LiveError(p.stderr.strip().removeprefix("wattlab-live: error: "))
    return json.loads(p.stdout)


@dataclass
class LiveResult:
    """Everything one live run produced (files are in ``out_dir``)."""

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
    energy: object
    """:class:`wattlab.trace.TraceEnergy` of the client's capture."""
    expected_bytes: int
    """Length of the file served."""
    expected_sha256: str
    """SHA-256 of the file served."""
    out_dir: Path
    """Where the capture, logs and tables are."""
    wall_time_s: float = 0.0
    """Wall-clock time of the whole run (setup, transfer, analysis)."""
    notes: list[str] = field(default_factory=list)
    """Remarks: what Linux does differently from the scenario's TCP model."""

    @property
    def verified(self) -> bool:
        """The download is intact: same length and SHA-256 as the file served."""
        return self.fetch["bytes"] == self.expected_bytes and self.fetch["sha256"] == self.expected_sha256

    @property
    def transfer_time_s(self) -> float:
        """From ``connect`` to the server's FIN (the simulator's flow completion time)."""
        return (self.fetch["done_ns"] - self.fetch["connect_ns"]) / 1e9

    @property
    def goodput_bps(self) -> float:
        """Bytes delivered × 8 / transfer time."""
        return self.fetch["bytes"] * 8 / self.transfer_time_s if self.transfer_time_s > 0 else 0.0

    @property
    def policy_label(self) -> str:
        """Label of the run's own policy in ``energy``: ``replay`` for cc and psm."""
        return "always-on" if self.plan["policy"] == "always-on" else "replay"

    @property
    def energy_j(self) -> float:
        """Energy of the client's radio under the run's own policy (J)."""
        e = self.energy.energy
        return float(e[e.policy == self.policy_label].energy_j.iloc[0])

    @property
    def host_late_max_ms(self) -> float:
        """The testbed's worst timing error (ms): the latest emulator verdict or agent timer
        behind the model's time. Milliseconds here mean the run was disturbed (the machine was
        busy or the VM stalled) and its packets met delays the scenario does not have."""
        late = self.emulator["host"]["late_max_us"]
        if self.agent:
            late = max(late, self.agent["host"]["timer_late_max_us"])
        return late / 1e3

    def radios(self) -> pd.DataFrame:
        """The energy table in the layout of ``wattlab run``'s radios (node, profile, policy...),
        the replayed schedule named after the run's policy."""
        df = self.energy.energy.copy()
        # The replayed schedule is what the radio did in this run (its power mode); the other
        # rows cost the same capture under accounting policies.
        df.insert(3, "basis", ["mode" if n == "replay" else "accounting" for n in df.name])
        df["policy"] = df.policy.replace({"replay": self.plan["policy"]})
        df.insert(0, "node", self.plan["client"])
        df.insert(1, "profile", self.energy.profile.get("name", ""))
        return df

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
            "fetch": self.fetch,
            "server": self.server,
            "emulator": self.emulator,
            "agent": self.agent,
            "energy": self.energy.summary(),
            "wall_time_s": self.wall_time_s,
            "notes": self.notes,
        }


def _wait_line(proc: subprocess.Popen, path: Path, needle: str, what: str, timeout: float = 20.0) -> None:
    """Wait until ``needle`` appears in ``path`` (a process's output), or fail naming ``what``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and needle in path.read_text(errors="replace"):
            return
        if proc.poll() is not None:
            raise LiveError(f"{what} exited ({proc.returncode}) before it was ready: {_tail(path)}")
        time.sleep(0.02)
    raise LiveError(f"{what} was not ready after {timeout:.0f} s")


def _tail(*paths: Path) -> str:
    text = " ".join(p.read_text(errors="replace").strip() for p in paths if p.exists())
    return text[-600:] or "(no output)"


def _payload(path: Path, n: int, seed: int) -> str:
    """Write ``n`` pseudo-random bytes of ``seed`` to ``path``; return their SHA-256."""
    rng = random.Random(seed)
    h = hashlib.sha256()
    with open(path, "wb") as f:
        left = n
        while left:
            chunk = rng.randbytes(min(left, 1 << 20))
            f.write(chunk)
            h.update(chunk)
            left -= len(chunk)
    return h.hexdigest()


def _notes(plan: dict) -> list[str]:
    notes = []
    if plan["cc"] in ("reno", "newreno"):
        notes.append(
            "Linux's `reno` module is AIMD with NewReno-style recovery (RFC 6582), plus PRR, RACK-TLP and "
            "F-RTO, which the simulator's Reno lacks"
        )
    notes.append("Linux ACKs quickly at the start of a connection (quick-ACK mode), then delays ACKs up to 40 ms")
    return notes


def parse_sysctls(specs: Iterable[str]) -> dict[str, list[str]]:
    """``ROLE:KEY=VALUE`` strings by role; :class:`LiveError` names a malformed one."""
    out: dict[str, list[str]] = {}
    for spec in specs:
        role, _, kv = spec.partition(":")
        if role not in ("client", "server") or "=" not in kv or not kv.split("=", 1)[0].startswith("net."):
            raise LiveError(f"--sysctl {spec}: expected ROLE:KEY=VALUE with ROLE client or server and a net.* key")
        out.setdefault(role, []).append(kv)
    return out


class _Interrupted(Exception):
    pass


def _raise_interrupted(signum, frame):  # pragma: no cover - exercised by the interruption test
    raise _Interrupted(f"signal {signum}")


def run(
    scenario: str | Path,
    policy: str = "always-on",
    out_dir: str | Path | None = None,
    overrides: Sequence[str] = (),
    time_limit: float | None = None,
    overwrite: bool = False,
    on_step: Callable[[str], None] | None = None,
    sysctls: Sequence[str] = (),
) -> LiveResult:
    """Run ``scenario``'s download live under ``policy`` (always-on, cc or psm) and cost it.

    Needs root. The namespaces are removed on return, on error and on SIGINT/SIGTERM. The run
    is bounded by ``time_limit`` seconds (default: the scenario's stop time, at most 600 s).
    Results go to ``out_dir`` (a new temporary directory if None): ``client.pcap``, the
    processes' JSON reports and logs, ``transitions.csv`` (cc, psm), the energy tables and
    ``summary.json``; existing results are kept unless ``overwrite``. ``sysctls`` are extra
    ``ROLE:KEY=VALUE`` settings (ROLE client or server) applied after the scenario's, e.g.
    ``server:net.ipv4.tcp_invalid_ratelimit=500`` for stock Linux's probe-answer rate limit.
    """
    from wattlab import trace

    started = time.monotonic()
    step = on_step or (lambda _msg: None)
    netns.require_root()
    plan = load_plan(scenario, policy, overrides)
    limit = float(time_limit if time_limit is not None else min(plan["horizon_s"], 600.0))
    out = Path(out_dir) if out_dir is not None else Path(tempfile.mkdtemp(prefix="wattlab-live-"))
    if (out / "summary.json").exists() and not overwrite:
        raise LiveError(f"{out} already holds a run (summary.json); choose another --out or pass --overwrite")
    out.mkdir(parents=True, exist_ok=True)
    (out / "plan.json").write_text(json.dumps(plan, indent=2) + "\n")
    exe = str(binary())
    sets = [a for o in overrides for a in ("--set", o)]
    scn = ["--scenario", str(Path(scenario).resolve()), "--policy", policy, *sets]
    pcap = out / "client.pcap"
    transitions = out / "transitions.csv"
    for stale in (out / "agent.json", out / "emulator.json", transitions):
        stale.unlink(missing_ok=True)

    old = {s: signal.signal(s, _raise_interrupted) for s in (signal.SIGTERM,)}
    tb = Testbed(sysctls=parse_sysctls(sysctls))
    with tempfile.TemporaryDirectory(prefix="wattlab-live-payload-") as tmp:
        payload = Path(tmp) / "payload.bin"
        sha = _payload(payload, int(plan["bytes"]), int(plan["seed"]))
        try:
            step("building namespaces")
            tb.build(plan)
            step("starting the emulator")
            tb.sh("ap", "iptables", "-A", "FORWARD", "-j", "NFQUEUE", "--queue-num", str(EMU_QUEUE))
            emu_argv = [exe, "emulate", *scn, "--queue", str(EMU_QUEUE), "--client-iface", netns.AP_CLIENT_IF, "--report", str(out / "emulator.json")]
            if policy == "psm":
                emu_argv += ["--transitions", str(transitions)]
            emu = tb.start("ap", emu_argv, stdout=out / "emulator.out", stderr=out / "emulator.log")
            _wait_line(emu, out / "emulator.out", "ready", "the emulator")
            if policy == "cc":
                step("starting the agent")
                mark = str(AGENT_MARK)
                tb.sh("client", "iptables", "-A", "OUTPUT", "-o", netns.CLIENT_IF, "-p", "tcp", "-m", "mark", "!", "--mark", mark, "-j", "NFQUEUE", "--queue-num", str(AGENT_QUEUE))
                tb.sh("client", "iptables", "-A", "INPUT", "-i", netns.CLIENT_IF, "-p", "tcp", "-j", "NFQUEUE", "--queue-num", str(AGENT_QUEUE))
                agent = tb.start(
                    "client",
                    [exe, "agent", *scn, "--queue", str(AGENT_QUEUE), "--client-addr", netns.CLIENT_ADDR, "--mark", mark,
                     "--transitions", str(transitions), "--events", str(out / "agent_events.csv"), "--report", str(out / "agent.json")],
                    stdout=out / "agent.out", stderr=out / "agent.log",
                )
                _wait_line(agent, out / "agent.out", "ready", "the agent")
            step("starting the capture")
            dump = tb.start("client", ["tcpdump", "-i", netns.CLIENT_IF, "-w", str(pcap), "-s", "128", "-n", "-U", "--immediate-mode"], stderr=out / "tcpdump.log")
            _wait_line(dump, out / "tcpdump.log", "listening on", "tcpdump")
            tcp_args = ["--cc", plan["linux_cc"], "--idle-timeout", str(min(limit, 60.0))]
            server = tb.start(
                "server",
                [exe, "serve", "--listen", f"{netns.SERVER_ADDR}:{plan['port']}", "--file", str(payload), "--request", str(plan["request"]),
                 *tcp_args, "--report", str(out / "server.json")],
                stdout=out / "server.out", stderr=out / "server.log",
            )
            _wait_line(server, out / "server.out", "ready", "the server")
            time.sleep(plan["start_s"])
            step("downloading")
            rb = int(plan["recv_buffer"])
            clamp = rb if plan["window_scale"] is not None else min(rb, 65535)
            fetch = tb.start(
                "client",
                [exe, "fetch", "--connect", f"{netns.SERVER_ADDR}:{plan['port']}", "--request", str(plan["request"]),
                 "--window-clamp", str(clamp), "--buffer", str(rb), *tcp_args, "--report", str(out / "fetch.json")],
                stderr=out / "fetch.log",
            )
            try:
                fetch.wait(timeout=max(1.0, limit - (time.monotonic() - started)))
            except subprocess.TimeoutExpired:
                raise LiveError(f"the download did not finish within the run's time bound ({limit:.0f} s); logs in {out}") from None
            if fetch.returncode != 0:
                raise LiveError(f"the client failed: {_tail(out / 'fetch.log')}")
            # Let the last FIN/ACK exchange reach the capture before stopping everything.
            time.sleep(2 * plan["base_rtt_s"] + 0.3)
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                raise LiveError(f"the server did not finish 10 s after the client: {_tail(out / 'server.log')}") from None
            if server.returncode != 0:
                raise LiveError(f"the server failed: {_tail(out / 'server.log')}")
            tb.stop_all()
        except _Interrupted:
            raise KeyboardInterrupt from None
        finally:
            tb.teardown()
            for s, h in old.items():
                signal.signal(s, h)
    step("costing the capture")
    reports = {}
    for name in ("fetch", "server", "emulator", "agent"):
        p = out / f"{name}.json"
        if name == "agent" and policy != "cc":
            reports[name] = None
            continue
        if not p.exists():
            raise LiveError(f"{p} is missing: the {name} process did not finish cleanly ({_tail(out / (name + '.log'))})")
        reports[name] = json.loads(p.read_text())
    rate_mbps = plan["hop_rate_bps"] / 1e6
    policies = ["always-on", "oracle"] + (["replay"] if policy in ("cc", "psm") else [])
    energy = trace.energy(
        pcap,
        client=netns.CLIENT_ADDR,
        profile=plan["profile"],
        policies=policies,
        phy=f"link@{rate_mbps:g}",
        transitions=transitions if policy in ("cc", "psm") else None,
        timeline=False,
    )
    energy.write(out / "energy", formats=("csv",))
    res = LiveResult(
        plan=plan, fetch=reports["fetch"], server=reports["server"], emulator=reports["emulator"], agent=reports["agent"],
        energy=energy, expected_bytes=int(plan["bytes"]), expected_sha256=sha, out_dir=out, notes=_notes(plan),
    )
    res.wall_time_s = time.monotonic() - started
    (out / "summary.json").write_text(json.dumps(res.summary(), indent=2, default=str) + "\n")
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
    netns.require_root()
    load_plan(scenario, "cc", overrides)  # refuse a scenario with no live equivalent before simulating
    root = Path(out_dir) if out_dir is not None else Path(tempfile.mkdtemp(prefix="wattlab-compare-"))
    rows = []
    for policy in ("always-on", "cc"):
        step(f"simulating {policy}")
        sim = api.run(scenario, overrides=load_plan(scenario, policy, overrides)["overrides"])
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
        res = run(scenario, policy, out_dir=root / f"live-{policy}", overrides=overrides, time_limit=time_limit, overwrite=overwrite, on_step=lambda s, p=policy: step(f"live {p}: {s}"), sysctls=sysctls)
        e = res.energy.energy
        own = e[e.policy == res.policy_label].iloc[0]
        a = (res.agent or {}).get("agent")
        rows.append({
            "mode": "live", "policy": policy, "transfer_time_s": res.transfer_time_s, "goodput_mbps": res.goodput_bps / 1e6,
            "energy_j": float(own.energy_j), "sleep_s": float(own.time_sleep_s),
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
