"""Network namespaces of one live run: creation, commands inside them, and removal.

Every name starts with ``wl`` followed by the run's id, so ``cleanup()`` finds the leftovers of
crashed runs and nothing else. The namespaces are joined only to each other: no interface
reaches the host's own namespace, so traffic never leaves them.
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

PREFIX = "wl"
"""Every namespace of a live run is named ``wl<id>-<role>``."""

ROLES = ("client", "ap", "server")
CLIENT_ADDR = "10.201.1.2"
AP_CLIENT_ADDR = "10.201.1.1"
AP_SERVER_ADDR = "10.201.2.1"
SERVER_ADDR = "10.201.2.2"
CLIENT_IF, AP_CLIENT_IF, AP_SERVER_IF, SERVER_IF = "wl-c", "wl-ap-c", "wl-ap-s", "wl-s"
TOOLS = {
    "ip": "iproute2",
    "iptables": "iptables",
    "tcpdump": "tcpdump",
    "ethtool": "ethtool",
}


class LiveError(Exception):
    """A live run cannot start or did not finish; the message says why and what to do."""


def require_root() -> None:
    """Raise :class:`LiveError` unless we are root and the tools of the live mode are there."""
    if os.geteuid() != 0:
        raise LiveError(
            "the live testbed needs root (it creates network namespaces, veth pairs and iptables "
            "rules): run it as root, e.g. `sudo .venv/bin/wattlab live run ...`"
        )
    missing = [f"{tool} (Debian package {pkg})" for tool, pkg in TOOLS.items() if shutil.which(tool) is None]
    if missing:
        raise LiveError("the live testbed needs " + ", ".join(missing) + "; `make setup` installs them as root")


def _run(argv: list[str], check: bool = True, timeout: float = 20.0) -> subprocess.CompletedProcess:
    try:
        p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        raise LiveError(f"`{' '.join(argv)}` did not finish in {timeout:.0f} s") from e
    if check and p.returncode != 0:
        raise LiveError(f"`{' '.join(argv)}` failed: {p.stderr.strip() or p.stdout.strip()}")
    return p


def list_namespaces() -> list[str]:
    """Names of every network namespace (``ip netns list``)."""
    out = _run(["ip", "netns", "list"], check=False).stdout
    return [line.split()[0] for line in out.splitlines() if line.strip()]


def _is_ours(name: str) -> bool:
    head, _, role = name.rpartition("-")
    run_id = head[len(PREFIX):]
    return role in ROLES and head.startswith(PREFIX) and len(run_id) == 8 and all(c in "0123456789abcdef" for c in run_id)


def _kill_namespace(name: str) -> None:
    pids = _run(["ip", "netns", "pids", name], check=False).stdout.split()
    for pid in pids:
        try:
            os.kill(int(pid), signal.SIGKILL)
        except (ProcessLookupError, ValueError):
            pass
    _run(["ip", "netns", "delete", name], check=False)


def cleanup() -> list[str]:
    """Remove every namespace left by live runs (ours only, by name), killing what runs in
    them; their veths and rules go with them. Returns the names removed."""
    gone = [n for n in list_namespaces() if _is_ours(n)]
    for n in gone:
        _kill_namespace(n)
    return gone


@dataclass
class Testbed:
    """The three namespaces of one run and the processes started in them."""

    run_id: str = field(default_factory=lambda: secrets.token_hex(4))
    procs: list[subprocess.Popen] = field(default_factory=list)
    created: list[str] = field(default_factory=list)
    sysctls: dict[str, list[str]] = field(default_factory=dict)
    """Extra ``KEY=VALUE`` sysctls per role (client, server), applied after the scenario's."""

    def ns(self, role: str) -> str:
        """Namespace name of ``role`` (client, ap, server)."""
        return f"{PREFIX}{self.run_id}-{role}"

    def sh(self, role: str, *argv: str, check: bool = True) -> subprocess.CompletedProcess:
        """Run a command inside ``role``'s namespace and wait for it."""
        return _run(["ip", "netns", "exec", self.ns(role), *argv], check=check)

    def start(self, role: str, argv: list[str], stdout: Path | None = None, stderr: Path | None = None) -> subprocess.Popen:
        """Start a long-running process inside ``role``'s namespace."""
        out = open(stdout, "wb") if stdout else subprocess.DEVNULL
        err = open(stderr, "wb") if stderr else subprocess.DEVNULL
        try:
            p = subprocess.Popen(["ip", "netns", "exec", self.ns(role), *argv], stdout=out, stderr=err, stdin=subprocess.DEVNULL)
        finally:
            for f in (out, err):
                if f is not subprocess.DEVNULL:
                    f.close()  # the child has its own copy
        self.procs.append(p)
        return p

    def build(self, tcp: dict) -> None:
        """Create the namespaces, veth pairs, addresses, routes and TCP settings of ``tcp``
        (the plan's ``sack``, ``timestamps``, ``window_scale``, ``initial_cwnd``, ``min_rto_ms``,
        ``linux_cc``)."""
        for role in ROLES:
            _run(["ip", "netns", "add", self.ns(role)])
            self.created.append(self.ns(role))
        for role in ROLES:
            # No IPv6: router solicitations and DAD would add packets the scenario has not.
            self.sh(role, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1")
            self.sh(role, "ip", "link", "set", "lo", "up")
        c, a, s = (self.ns(r) for r in ROLES)
        _run(["ip", "link", "add", CLIENT_IF, "netns", c, "type", "veth", "peer", "name", AP_CLIENT_IF, "netns", a])
        _run(["ip", "link", "add", SERVER_IF, "netns", s, "type", "veth", "peer", "name", AP_SERVER_IF, "netns", a])
        for role, dev, addr in (
            ("client", CLIENT_IF, CLIENT_ADDR),
            ("ap", AP_CLIENT_IF, AP_CLIENT_ADDR),
            ("ap", AP_SERVER_IF, AP_SERVER_ADDR),
            ("server", SERVER_IF, SERVER_ADDR),
        ):
            # Segmentation and receive offloads off: every packet is one wire-sized frame
            # for the emulator, the agent and the capture.
            self.sh(role, "ethtool", "-K", dev, "tso", "off", "gso", "off", "gro", "off")
            self.sh(role, "ip", "addr", "add", f"{addr}/24", "dev", dev)
            self.sh(role, "ip", "link", "set", dev, "up")
        self.sh("ap", "sysctl", "-qw", "net.ipv4.ip_forward=1")
        sysctls = [
            f"net.ipv4.tcp_sack={int(tcp['sack'])}",
            f"net.ipv4.tcp_timestamps={int(tcp['timestamps'])}",
            f"net.ipv4.tcp_window_scaling={int(tcp['window_scale'] is not None)}",
            "net.ipv4.tcp_no_metrics_save=1",
        ]
        route = ["initcwnd", str(tcp["initial_cwnd"]), "rto_min", f"{tcp['min_rto_ms']}ms"]
        for role, net, via, dev in (
            ("client", "10.201.2.0/24", AP_CLIENT_ADDR, CLIENT_IF),
            ("server", "10.201.1.0/24", AP_SERVER_ADDR, SERVER_IF),
        ):
            # The simulator's TCP answers every out-of-window segment (the agent's window probes);
            # Linux rate-limits those answers to one per 500 ms by default (RFC 5961 hardening).
            extra = ["net.ipv4.tcp_invalid_ratelimit=0"] if role == "server" else []
            self.sh(role, "sysctl", "-qw", *sysctls, *extra, *self.sysctls.get(role, []))
            self.sh(role, "ip", "route", "add", net, "via", via, "dev", dev, *route)

    def stop_all(self, grace_s: float = 3.0) -> None:
        """SIGTERM every process still running, then SIGKILL those that outlive ``grace_s``."""
        live = [p for p in self.procs if p.poll() is None]
        for p in live:
            p.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + grace_s
        for p in live:
            try:
                p.wait(timeout=max(0.05, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(timeout=5)

    def teardown(self) -> None:
        """Stop the processes and delete the namespaces (their veths and rules go with them)."""
        try:
            self.stop_all()
        finally:
            for name in self.created:
                _kill_namespace(name)
            self.created.clear()
