"""Network namespaces of one live run: creation, commands inside them, and removal.

Every name starts with ``wl`` followed by the run's id, so ``cleanup()`` finds the leftovers of
crashed runs and nothing else. The namespaces are joined only to each other: no interface
reaches the host's own namespace, so traffic never leaves them.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Collection, Iterator

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


RUN_DIR = Path("/run/wattlab-live") if Path("/run").is_dir() else Path(tempfile.gettempdir()) / "wattlab-live"
"""Where each run holds ``wl<id>.lock`` (an exclusive ``flock``) while its namespaces exist."""

PAYLOAD_DIR_PREFIX = "wattlab-live-payload-"
"""Temporary directories in which versions before 0.1's streamed payload wrote the served file."""


class LiveError(Exception):
    """A live run cannot start or did not finish; the message says why and what to do."""

    code = 1
    """Exit code of the CLI: the run started and failed."""


class LiveInputError(LiveError):
    """Bad input (scenario, option) or environment (root, tools): nothing ran."""

    code = 2
    """Exit code of the CLI: bad input, nothing ran."""


class LiveTimeLimit(LiveError):
    """The download did not finish within the run's time bound."""

    code = 3
    """Exit code of the CLI: the run ended at its time limit before the flow completed."""


def require_root() -> None:
    """Raise :class:`LiveInputError` unless we are root and the tools of the live mode are there."""
    if os.geteuid() != 0:
        raise LiveInputError(
            "the live testbed needs root (it creates network namespaces, veth pairs and iptables "
            "rules): run it as root, e.g. `sudo .venv/bin/wattlab live run ...`"
        )
    missing = [f"{tool} (Debian package {pkg})" for tool, pkg in TOOLS.items() if shutil.which(tool) is None]
    if missing:
        raise LiveInputError("the live testbed needs " + ", ".join(missing) + "; `make setup` installs them as root")


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


def _run_id(name: str) -> str | None:
    """The run id of a namespace named ``wl<8 hex>-<role>``, else None."""
    head, _, role = name.rpartition("-")
    run_id = head[len(PREFIX):]
    ours = role in ROLES and head.startswith(PREFIX) and len(run_id) == 8 and all(c in "0123456789abcdef" for c in run_id)
    return run_id if ours else None


def _is_ours(name: str) -> bool:
    return _run_id(name) is not None


def lock_path(run_id: str) -> Path:
    """The lock file a run holds while its namespaces exist."""
    return RUN_DIR / f"{PREFIX}{run_id}.lock"


def radio_socket_path(run_id: str) -> Path:
    """The Unix socket on which a PSNA run's emulator takes the mobile's radio switches (in
    :data:`RUN_DIR`: socket paths are limited to 108 bytes)."""
    return RUN_DIR / f"{PREFIX}{run_id}-radio.sock"


def _held(run_id: str) -> bool:
    """True while the run ``run_id`` is in progress (its process holds its lock)."""
    try:
        fd = os.open(lock_path(run_id), os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # also releases our shared lock
    return False


def in_progress() -> dict[str, int]:
    """Runs in progress, by run id: the process id of each (from its lock file)."""
    out = {}
    for p in RUN_DIR.glob(f"{PREFIX}*.lock") if RUN_DIR.is_dir() else ():
        rid = p.stem[len(PREFIX):]
        if _held(rid):
            text = p.read_text(errors="replace").strip()
            out[rid] = int(text) if text.isdigit() else 0
    return out


def _kill_namespace(name: str) -> None:
    pids = _run(["ip", "netns", "pids", name], check=False).stdout.split()
    for pid in pids:
        try:
            os.kill(int(pid), signal.SIGKILL)
        except (ProcessLookupError, ValueError):
            pass
    _run(["ip", "netns", "delete", name], check=False)


def cleanup(run_ids: Collection[str] | None = None) -> list[str]:
    """Remove the namespaces left by crashed live runs (ours only, by name: ``wl<8 hex>-<role>``),
    killing what runs in them; their veths and rules go with them. A run in progress (it holds
    its lock) is left alone. ``run_ids`` limits the clean-up to those runs. Returns the names
    removed."""
    gone = []
    for n in list_namespaces():
        rid = _run_id(n)
        if rid is None or (run_ids is not None and rid not in run_ids) or _held(rid):
            continue
        _kill_namespace(n)
        gone.append(n)
    for p in RUN_DIR.glob(f"{PREFIX}*.lock") if RUN_DIR.is_dir() else ():
        rid = p.stem[len(PREFIX):]
        if (run_ids is None or rid in run_ids) and not _held(rid):
            p.unlink(missing_ok=True)
    for p in RUN_DIR.glob(f"{PREFIX}*-radio.sock") if RUN_DIR.is_dir() else ():
        rid = p.name[len(PREFIX):].removesuffix("-radio.sock")
        if _run_id(f"{PREFIX}{rid}-ap") is not None and (run_ids is None or rid in run_ids) and not _held(rid):
            p.unlink(missing_ok=True)
    return gone


def _open_paths() -> set[str]:
    """Every path some process has open (``/proc/*/fd``), as far as we may read them."""
    paths = set()
    for fd_dir in Path("/proc").glob("[0-9]*/fd"):
        try:
            paths.update(os.readlink(fd) for fd in fd_dir.iterdir())
        except OSError:
            continue
    return paths


def remove_payload_dirs(tmp: str | Path | None = None, min_age_s: float = 30.0) -> list[Path]:
    """Remove the payload directories (``wattlab-live-payload-*``) that earlier versions wrote
    to the temporary directory and left behind when killed. One a process has a file of open,
    or that changed in the last ``min_age_s`` seconds (a run of such a version starting), is
    kept. Returns the directories removed."""
    root = Path(tmp) if tmp is not None else Path(tempfile.gettempdir())
    candidates = [d for d in root.glob(PAYLOAD_DIR_PREFIX + "*") if d.is_dir() and not d.is_symlink()]
    if not candidates:
        return []
    busy = _open_paths()
    gone = []
    for d in candidates:
        newest = max([d.stat().st_mtime] + [f.lstat().st_mtime for f in d.iterdir()])
        if time.time() - newest < min_age_s or any(p.startswith(f"{d}/") for p in busy):
            continue
        shutil.rmtree(d, ignore_errors=True)
        gone.append(d)
    return gone


@contextlib.contextmanager
def signals_deferred() -> Iterator[None]:
    """Hold SIGINT and SIGTERM until the block ends (they are delivered then): a second
    Ctrl-C cannot cut a clean-up short."""
    blocked = {signal.SIGINT, signal.SIGTERM}
    old = signal.pthread_sigmask(signal.SIG_BLOCK, blocked)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


@dataclass
class Testbed:
    """The three namespaces of one run and the processes started in them."""

    run_id: str = field(default_factory=lambda: secrets.token_hex(4))
    procs: list[subprocess.Popen] = field(default_factory=list)
    created: list[str] = field(default_factory=list)
    sysctls: dict[str, list[str]] = field(default_factory=dict)
    """Extra ``KEY=VALUE`` sysctls per role (client, server), applied after the scenario's."""
    lock_fd: int | None = None
    """The run's lock (see :func:`claim`), held from before the namespaces exist until they are gone."""

    def claim(self) -> None:
        """Take the run's lock, so ``cleanup`` leaves this run alone while it is in progress."""
        try:
            RUN_DIR.mkdir(parents=True, exist_ok=True)
            fd = os.open(lock_path(self.run_id), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        except OSError as e:
            raise LiveError(f"cannot create the run's lock in {RUN_DIR}: {e.strerror}") from None
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.write(fd, f"{os.getpid()}\n".encode())
        self.lock_fd = fd

    def release(self) -> None:
        """Drop the run's lock and its file."""
        if self.lock_fd is not None:
            lock_path(self.run_id).unlink(missing_ok=True)
            os.close(self.lock_fd)
            self.lock_fd = None

    def missing(self) -> list[str]:
        """This run's namespaces that no longer exist (removed from outside the run)."""
        names = set(list_namespaces())
        return [n for n in self.created if n not in names]

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
        (the plan's ``sack``, ``timestamps``, ``window_scale``, ``slow_start_after_idle``,
        ``initial_cwnd``, ``min_rto_ms``, ``mss`` as the routes' ``advmss``, ``linux_cc``)."""
        for role in ROLES:
            self.created.append(self.ns(role))  # first: an interruption here still removes it
            _run(["ip", "netns", "add", self.ns(role)])
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
            f"net.ipv4.tcp_slow_start_after_idle={int(tcp['slow_start_after_idle'])}",
            "net.ipv4.tcp_no_metrics_save=1",
        ]
        # advmss: the scenario's tcp.mss on the SYN (Linux's own default on a 1500-byte MTU is 1460, the scenario default).
        route = ["initcwnd", str(tcp["initial_cwnd"]), "rto_min", f"{tcp['min_rto_ms']}ms", "advmss", str(tcp.get("mss", 1460))]
        for role, net, via, dev in (
            ("client", "10.201.2.0/24", AP_CLIENT_ADDR, CLIENT_IF),
            ("server", "10.201.1.0/24", AP_SERVER_ADDR, SERVER_IF),
        ):
            # The simulator's TCP answers every out-of-window segment (the agent's window probes);
            # Linux rate-limits those answers to one per 500 ms by default (RFC 5961 hardening).
            extra = ["net.ipv4.tcp_invalid_ratelimit=0"] if role == "server" else []
            self.sh(role, "sysctl", "-qw", *sysctls, *extra)
            self._user_sysctls(role)
            self.sh(role, "ip", "route", "add", net, "via", via, "dev", dev, *route)
        if str(tcp.get("kind", "")).startswith("psna-"):
            # A PSNA daemon on the AP is the fixed host's TCP peer: the AP gets the scenario's TCP
            # settings, and both ends get its route options (initial window, minimum RTO) on the
            # subnet they share, whose connected route would otherwise carry Linux's defaults.
            self.sh("ap", "sysctl", "-qw", *sysctls)
            for role, dev, src in (("ap", AP_SERVER_IF, AP_SERVER_ADDR), ("server", SERVER_IF, SERVER_ADDR)):
                self.sh(role, "ip", "route", "replace", "10.201.2.0/24", "dev", dev, "proto", "kernel", "scope", "link", "src", src, *route)

    def _user_sysctls(self, role: str) -> None:
        """Apply the user's ``--sysctl`` settings of ``role`` one by one; the kernel's refusal
        of one is bad input (:class:`LiveInputError`) naming it."""
        for kv in self.sysctls.get(role, []):
            p = self.sh(role, "sysctl", "-qw", kv, check=False)
            if p.returncode != 0:
                why = (p.stderr.strip() or p.stdout.strip()).removeprefix("sysctl: ")
                raise LiveInputError(f"--sysctl {role}:{kv}: the kernel refused it ({why})")

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
                with contextlib.suppress(subprocess.TimeoutExpired):
                    p.wait(timeout=5)  # a process stuck in the kernel goes with its namespace

    def teardown(self) -> None:
        """Stop the processes, delete the namespaces (their veths and rules go with them) and
        release the run's lock; SIGINT and SIGTERM wait until it is done."""
        with signals_deferred():
            try:
                self.stop_all()
            finally:
                for name in self.created:
                    _kill_namespace(name)
                self.created.clear()
                self.release()
