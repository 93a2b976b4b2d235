"""A live run of a tunnel scenario (paper 002 Ch. 4; docs/tunnel.md, "Live"): the client's real
Linux TCP flows are routed into a TUN device, carried by the SCTP tunnel (``wattlab-live
tunnel``, the core's endpoint) over UDP port 9899 to the AP's end, which writes them to its own
TUN device and on to the server. The emulator (``wattlab-live emulate-tunnel``) puts the
tunnel's UDP packets on the wireless hop, where the AP holds the dozing client's frames until
an uplink frame triggers them (U-APSD), and the inner packets on the wired link. Every flow's
bytes are hashed at both ends and checked against the payload; the client's radio schedule is
replayed over the capture for its energy.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pandas as pd

from wattlab.live import netns
from wattlab.live.session import EMU_QUEUE, built_testbed
from wattlab.live.netns import LiveError, LiveTimeLimit, Testbed

TUN = "wlt0"
"""The TUN device's name in the client and AP namespaces."""
PORT = 9899
"""UDP port of both tunnel ends (RFC 6951's SCTP over UDP, docs/tunnel.md)."""
HOP_MTU = 2304
"""MTU of the client ⇄ AP veths: 802.11's largest MSDU, so a 1500-byte inner packet in SCTP
and UDP (1572 bytes with a SACK) is one frame, as on the WLAN."""
ROUTE_TABLE = "100"
"""The AP's table for packets from the server: the client's prefix through the tunnel."""
OUTPUTS = (
    "tunnel_plan.json", "client.pcap", "emulator.json", "transitions.csv", "summary.json", "energy",
    "emulator.out", "emulator.log", "tcpdump.log", "tunnel_client.json", "tunnel_ap.json",
    "tunnel_client.out", "tunnel_client.log", "tunnel_ap.out", "tunnel_ap.log", "flows.csv",
    "client_window.pcap", "energy_window",
)
"""Files a tunnel run writes besides the per-flow ``flow_<name>_{send,recv}.{json,out,log}``."""


def outputs(plan: dict) -> tuple[str, ...]:
    """Every file a run of ``plan`` writes in its output directory (``--overwrite`` replaces these)."""
    per_flow = tuple(f"flow_{f['name']}_{end}.{ext}" for f in plan["flows"] for end in ("send", "recv") for ext in ("json", "out", "log"))
    return OUTPUTS + per_flow


TCP = {"sack": True, "timestamps": True, "window_scale": None, "initial_cwnd": 10, "min_rto_ms": 200, "slow_start_after_idle": True}
"""Linux TCP settings of the flows (the testbed's; the tunnel scenario sets no [tcp] keys)."""


@dataclass
class TunnelLiveResult:
    """Everything a live tunnel run produced (files in ``out_dir``)."""

    plan: dict
    """``wattlab-live plan`` of the tunnel scenario (``kind`` tunnel): path, tunnel settings, flows."""
    flows: pd.DataFrame
    """One row per flow: bytes sent and received, both SHA-256, the payload's, verified."""
    tunnels: dict
    """The two tunnel ends' reports (``client``, ``ap``): the endpoint's counters and the host's."""
    emulator: dict
    """The emulator's report (per-channel counters, U-APSD counters, verdict lateness)."""
    energy: object
    """:class:`wattlab.trace.TraceEnergy` of the client's whole capture (set-up and tear-down
    included), with ``replay`` of the schedule."""
    window_energy: object
    """The same costing over the flows' window only (``client_window.pcap``)."""
    window_ns: tuple[int, int]
    """The flows' sending window (Unix ns): from the first sender's start for the scenario's duration."""
    awake_s: float
    """Time the client's radio was awake within the window (from ``transitions.csv``)."""
    wakes: int
    """Doze → awake transitions within the window."""
    out_dir: Path
    wall_time_s: float = 0.0
    warnings: list[str] = field(default_factory=list)

    @property
    def verified(self) -> bool:
        """Every flow intact: the receiver got exactly what the sender wrote, and that is the payload."""
        return bool(len(self.flows)) and bool(self.flows.verified.all())

    @property
    def window_s(self) -> float:
        """Length of the window, seconds."""
        return (self.window_ns[1] - self.window_ns[0]) / 1e9

    @property
    def host_late_max_ms(self) -> float:
        """Worst lateness of the emulator's verdicts and the tunnel ends' timers (ms)."""
        late = [self.emulator["host"]["late_max_us"]] + [t["timer_late_max_us"] for t in self.tunnels.values()]
        return max(late) / 1e3

    def radios(self) -> pd.DataFrame:
        """The energy over the flows' window under always-on, oracle and the replayed U-APSD
        schedule (named after the run's ``u-apsd``); :attr:`energy` has the whole capture."""
        from wattlab.live.radio_table import radio_table

        return radio_table(self.window_energy, self.plan["client"], self.plan["power_save"])

    def summary(self) -> dict:
        """The run as one JSON-able dict (``summary.json``)."""
        return {
            "mode": "live", "kind": "tunnel", "plan": self.plan, "verified": self.verified,
            "flows": self.flows.to_dict(orient="records"), "tunnels": self.tunnels, "emulator": self.emulator,
            "window_ns": list(self.window_ns), "window_s": self.window_s,
            "window_energy": self.window_energy.summary(), "awake_s": self.awake_s, "awake_fraction": self.awake_s / self.window_s,
            "wakes": self.wakes, "energy": self.energy.summary(), "host_late_max_ms": self.host_late_max_ms,
            "wall_time_s": self.wall_time_s, "warnings": self.warnings,
        }


def awake_in(transitions: Path, start_ns: int, end_ns: int) -> tuple[float, int]:
    """Seconds awake and wake-ups within [start_ns, end_ns] of a ``time_ns,state`` schedule
    (the state before the first line is awake: the emulator logs the first doze). Vectorised:
    one pass of numpy over the schedule, no loop per line."""
    import numpy as np

    rows = pd.read_csv(transitions)
    t = rows.time_ns.to_numpy(dtype=np.int64)
    up = (rows.state == "awake").to_numpy()
    order = np.argsort(t, kind="stable")
    t, up = t[order], up[order]
    before = np.flatnonzero(t <= start_ns)
    state0 = bool(up[before[-1]]) if len(before) else True
    inside = (t > start_ns) & (t < end_ns)
    ti, ui = t[inside], up[inside]
    states = np.concatenate([[state0], ui])  # the state over each span between the edges
    edges = np.concatenate([[start_ns], ti, [end_ns]])
    awake_ns = int(np.diff(edges)[states].sum())
    wakes = int((ui & ~states[:-1]).sum())
    return awake_ns / 1e9, wakes


def trim_pcap(src: Path, dst: Path, start_ns: int, end_ns: int) -> int:
    """Copy the records of the classic pcap ``src`` (tcpdump's µs or ns timestamps) that fall in
    [start_ns, end_ns) to ``dst``; returns how many. The flows' window of a capture that also
    spans the set-up, so its energy compares with the simulator's run of the same length.
    Done by the trace analyzer's crate (``wattlab_trace::trim``), not record by record here."""
    from wattlab import _core

    try:
        return int(_core.trace_trim_pcap(str(src), str(dst), int(start_ns), int(end_ns)))
    except _core.TraceError as e:
        raise LiveError(str(e)) from None


class _TunnelSession:
    """The processes of one tunnel run, started in order; every wait bounded."""

    def __init__(self, plan: dict, out: Path, tb: Testbed, exe: str, step: Callable[[str], None]):
        self.plan, self.out, self.tb, self.exe, self.step = plan, out, tb, exe, step
        self.procs: list[tuple[str, object]] = []

    def _start(self, name: str, role: str, argv: list[str]):
        p = self.tb.start(role, argv, stdout=self.out / f"{name}.out", stderr=self.out / f"{name}.log")
        self.procs.append((name, p))
        return p

    def _ready(self, name: str, proc, needle: str = "ready", log: str | None = None, timeout: float = 20.0) -> None:
        path = self.out / (log or f"{name}.out")
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if path.exists() and needle in path.read_text(errors="replace"):
                return
            if proc.poll() is not None:
                raise LiveError(f"{name} exited with status {proc.returncode} before it was ready: {_tail(self.out / f'{name}.log')}")
            time.sleep(0.02)
        raise LiveError(f"{name} was not ready after {timeout:.0f} s; logs in {self.out}")

    def network(self) -> None:
        """TUN devices, the client's route into its tunnel, the AP's route from the server into
        its tunnel (its own UDP keeps the veth), the hop's MTU, the emulator's queue rules."""
        sh = self.tb.sh
        for role, dev in (("client", netns.CLIENT_IF), ("ap", netns.AP_CLIENT_IF)):
            sh(role, "ip", "link", "set", dev, "mtu", str(HOP_MTU))
            sh(role, "ip", "tuntap", "add", TUN, "mode", "tun")
            sh(role, "ip", "link", "set", TUN, "mtu", "1500", "up")
            # Inner packets arrive from the TUN device with addresses routed elsewhere.
            sh(role, "sysctl", "-qw", "net.ipv4.conf.all.rp_filter=0", "net.ipv4.conf.default.rp_filter=0", f"net.ipv4.conf.{TUN}.rp_filter=0")
        sh("client", "ip", "route", "replace", "10.201.2.0/24", "dev", TUN, "src", netns.CLIENT_ADDR,
           "initcwnd", str(TCP["initial_cwnd"]), "rto_min", f"{TCP['min_rto_ms']}ms")
        sh("ap", "ip", "route", "add", "10.201.1.0/24", "dev", TUN, "table", ROUTE_TABLE)
        sh("ap", "ip", "rule", "add", "iif", netns.AP_SERVER_IF, "lookup", ROUTE_TABLE)
        q = ["-j", "NFQUEUE", "--queue-num", str(EMU_QUEUE)]
        sh("ap", "iptables", "-A", "FORWARD", *q)
        sh("ap", "iptables", "-A", "INPUT", "-i", netns.AP_CLIENT_IF, "-p", "udp", "--dport", str(PORT), *q)
        sh("ap", "iptables", "-A", "OUTPUT", "-o", netns.AP_CLIENT_IF, "-p", "udp", "--sport", str(PORT), *q)

    def emulator(self) -> None:
        p = self.plan
        self.step("starting the emulator")
        argv = [self.exe, "emulate-tunnel", "--queue", str(EMU_QUEUE), "--client-iface", netns.AP_CLIENT_IF, "--tun-iface", TUN,
                "--wired-rate", str(p["wired_rate_bps"]), "--wired-delay-us", str(p["wired_delay_us"]),
                "--hop-rate", str(p["hop_rate_bps"]), "--hop-overhead-us", str(p["hop_overhead_us"]),
                "--beacon-us", str(p["beacon_us"]), "--seed", str(p["seed"]),
                "--transitions", str(self.out / "transitions.csv"), "--report", str(self.out / "emulator.json")]
        if p["power_save"] == "cam":
            argv.append("--cam")
        self._ready("emulator", self._start("emulator", "ap", argv))

    def capture(self) -> None:
        self.step("starting the capture")
        argv = ["tcpdump", "-i", netns.CLIENT_IF, "-w", str(self.out / "client.pcap"), "-s", "128", "-n", "-U", "--immediate-mode"]
        self._ready("tcpdump", self._start("tcpdump", "client", argv), needle="listening on", log="tcpdump.log")

    def tunnels(self, limit: float) -> None:
        p = self.plan
        self.step("starting the tunnel ends")
        common = ["--tun", TUN, "--burst", str(p["burst"]), "--inlet-timeout-ms", str(p["inlet_timeout_ms"]), "--time-limit", f"{limit:.3f}"]
        for role, me, peer in (("ap", netns.AP_CLIENT_ADDR, netns.CLIENT_ADDR), ("client", netns.CLIENT_ADDR, netns.AP_CLIENT_ADDR)):
            argv = [self.exe, "tunnel", "--role", role, "--bind", f"{me}:{PORT}", "--peer", f"{peer}:{PORT}", *common,
                    "--report", str(self.out / f"tunnel_{role}.json")]
            if role == "client" and p["trigger_ms"]:
                argv += ["--trigger-min-ms", str(p["trigger_ms"][0]), "--trigger-max-ms", str(p["trigger_ms"][1])]
            self._ready(f"tunnel_{role}", self._start(f"tunnel_{role}", role, argv))

    def flows(self, limit: float) -> tuple[list[dict], tuple[int, int]]:
        """Start every receiver, then every sender at its start; wait for all (bounded)."""
        p = self.plan
        self.step("running the flows")
        runs = []
        for i, f in enumerate(p["flows"]):
            recv_role, send_role = ("server", "client") if f["up"] else ("client", "server")
            addr = f"{netns.SERVER_ADDR if f['up'] else netns.CLIENT_ADDR}:{f['port']}"
            name = f"flow_{f['name']}"
            key = int(p["seed"]) + i  # one payload stream per flow
            rargv = [self.exe, "flow", "--role", "recv", "--addr", addr, "--rate", str(f["read_rate_bytes_s"]), "--bytes", "0",
                     "--payload-key", str(key), "--time-limit", f"{limit:.3f}", "--report", str(self.out / f"{name}_recv.json")]
            self._ready(f"{name}_recv", self._start(f"{name}_recv", recv_role, rargv))
            runs.append((f, name, key, send_role, addr))
        t0 = time.time_ns()
        start_mono = time.monotonic()
        senders = []
        for f, name, key, send_role, addr in sorted(runs, key=lambda r: r[0]["start_s"]):
            time.sleep(max(0.0, f["start_s"] - (time.monotonic() - start_mono)))
            duration = p["duration_s"] - f["start_s"]
            argv = [self.exe, "flow", "--role", "send", "--addr", addr, "--duration", f"{duration:.6f}", "--bytes", str(10**12),
                    "--payload-key", str(key), "--time-limit", f"{limit:.3f}", "--report", str(self.out / f"{name}_send.json")]
            senders.append(self._start(f"{name}_send", send_role, argv))
        deadline = time.monotonic() + limit
        ends = [proc for name, proc in self.procs if name.startswith("flow_")]
        while any(proc.poll() is None for proc in ends):
            for name, proc in self.procs:
                if proc.poll() not in (None, 0):
                    raise LiveError(f"{name} exited with status {proc.returncode}: {_tail(self.out / f'{name}.log')}")
            if time.monotonic() > deadline:
                raise LiveTimeLimit(f"the flows did not end within {limit:g} s; logs in {self.out}")
            time.sleep(0.05)
        window = (t0, t0 + int(p["duration_s"] * 1e9))
        return [dict(flow=f, name=name, key=key) for f, name, key, _, _ in runs], window


def _tail(path: Path, n: int = 400) -> str:
    try:
        return path.read_text(errors="replace").strip()[-n:] or "(no output)"
    except OSError:
        return "(no log)"


def _flow_rows(out: Path, runs: list[dict], digest: Callable[[int, int], str]) -> pd.DataFrame:
    rows = []
    for r in runs:
        send = json.loads((out / f"{r['name']}_send.json").read_text())
        recv = json.loads((out / f"{r['name']}_recv.json").read_text())
        expected = digest(send["bytes"], r["key"])
        rows.append({
            "flow": r["flow"]["name"], "direction": "up" if r["flow"]["up"] else "down",
            "bytes_sent": send["bytes"], "bytes_received": recv["bytes"],
            "goodput_Bps": recv["bytes"] / recv["elapsed_s"] if recv["elapsed_s"] > 0 else 0.0,
            "sha256_sent": send["sha256"], "sha256_received": recv["sha256"], "sha256_payload": expected,
            "closed": recv["closed"],
            "verified": send["bytes"] == recv["bytes"] and send["sha256"] == recv["sha256"] == expected and recv["closed"] and recv["bytes"] > 0,
        })
    return pd.DataFrame(rows)


def run(path: Path, overrides: list[str], out: Path, plan: dict, exe: str, digest: Callable[[int, int], str],
        step: Callable[[str], None]) -> TunnelLiveResult:
    """Run the tunnel scenario of ``plan`` in a new testbed (removed whatever happens) and cost it."""
    from wattlab import trace

    started = time.monotonic()
    netns.require_root()
    (out / "tunnel_plan.json").write_text(json.dumps(plan, indent=2) + "\n")
    limit = float(plan["duration_s"]) + 20.0  # the flows end at the duration, the receivers drain
    with built_testbed(TCP, step) as tb:
        s = _TunnelSession(plan, out, tb, exe, step)
        s.network()
        s.emulator()
        s.capture()
        s.tunnels(limit + 10.0)
        runs, window = s.flows(limit)
        time.sleep(0.3)  # the last FIN/ACKs reach the capture
        tb.stop_all()
    step("verifying and costing the capture")
    flows = _flow_rows(out, runs, digest)
    flows.to_csv(out / "flows.csv", index=False)
    reports = {}
    for name in ("emulator", "tunnel_client", "tunnel_ap"):
        try:
            reports[name] = json.loads((out / f"{name}.json").read_text())
        except (OSError, ValueError):
            raise LiveError(f"{out / (name + '.json')} is missing: {name} did not finish cleanly ({_tail(out / (name + '.log'))})") from None
    # An always-on (cam) client has no schedule: the emulator holds nothing and logs no transitions.
    saving = plan["power_save"] != "cam"
    transitions = out / "transitions.csv" if saving else None
    policies = ["always-on", "oracle"] + (["replay"] if saving else [])

    def cost(capture: Path, into: str):
        try:
            e = trace.energy(capture, client=netns.CLIENT_ADDR, profile=plan["profile"], policies=policies,
                             phy=f"link@{plan['hop_rate_bps'] / 1e6:g}", transitions=transitions, timeline=False)
        except Exception as err:  # the analyzer's errors name the capture and the offset
            raise LiveError(f"costing {capture} failed: {err}") from None
        e.write(out / into, formats=("csv",))
        return e

    energy = cost(out / "client.pcap", "energy")
    # The same costing over the flows' window only (the simulator's run has the window's length).
    trim_pcap(out / "client.pcap", out / "client_window.pcap", *window)
    window_energy = cost(out / "client_window.pcap", "energy_window")
    awake, wakes = awake_in(transitions, *window) if transitions else ((window[1] - window[0]) / 1e9, 0)
    res = TunnelLiveResult(plan=plan, flows=flows, tunnels={"client": reports["tunnel_client"], "ap": reports["tunnel_ap"]},
                           emulator=reports["emulator"], energy=energy, window_energy=window_energy, window_ns=window, awake_s=awake, wakes=wakes, out_dir=out)
    res.wall_time_s = time.monotonic() - started
    (out / "summary.json").write_text(json.dumps(res.summary(), indent=2, default=str) + "\n")
    return res
