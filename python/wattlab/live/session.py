"""The machinery of a live run's session: the ``wattlab-live`` binary and its JSON jobs, the
processes of a run in its testbed (started in order, watched, each failure in its own words),
SIGTERM as Ctrl-C, the output directory and the processes' reports. The dispatcher
(:mod:`wattlab.live.runner`) and the protocol modules (:mod:`wattlab.live.wwp`,
:mod:`wattlab.live.psna`, :mod:`wattlab.live.tunnel`) build on it; it imports none of them."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, Sequence

from wattlab.live import checks, netns
from wattlab.live.netns import LiveError, LiveInputError, LiveTimeLimit, Testbed

EMU_QUEUE, AGENT_QUEUE = 1, 2
AGENT_MARK = 0x574C
REPO = Path(__file__).resolve().parents[3]
RUST_PANIC = 101
"""Exit status of a Rust process that panicked."""


def binary() -> Path:
    """The ``wattlab-live`` executable: ``$WATTLAB_LIVE_BIN``, else the repository's release build."""
    env = os.environ.get("WATTLAB_LIVE_BIN")
    path = Path(env) if env else REPO / "target" / "release" / "wattlab-live"
    if not path.is_file():
        raise LiveInputError(f"{path} not found: build it with `make setup` (or set WATTLAB_LIVE_BIN)")
    return path


def tool(argv: list[str], what: str, timeout: float) -> str:
    """Run a ``wattlab-live`` job that prints JSON; its own error line becomes the message."""
    try:
        p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise LiveError(f"{what} took over {timeout:.0f} s") from None
    if p.returncode == RUST_PANIC:
        raise LiveError(f"{what} panicked (a wattlab bug): {panic_text(p.stderr) or last(p.stderr)}")
    if p.returncode != 0:
        raise LiveInputError(p.stderr.strip().removeprefix("wattlab-live: error: ") or f"{what} failed ({p.returncode})")
    return p.stdout


def last(text: str, n: int = 600) -> str:
    """The last ``n`` characters of a process's output, or "(no output)" when it printed nothing."""
    return text.strip()[-n:] or "(no output)"


def panic_text(text: str) -> str | None:
    """The message and place of a Rust panic in a process's stderr, if there is one."""
    m = re.search(r"panicked at (\S+?):\n(.+)", text)
    return f"{m.group(2).strip()} (at {m.group(1)})" if m else None


@dataclass
class Proc:
    """A process of the run, and the files its output goes to."""

    what: str
    popen: subprocess.Popen
    logs: tuple[Path, ...]

    def exit_text(self, when: str = "") -> str:
        """How the process ended (``when``: e.g. " during the download"), with its panic
        message or the end of its output."""
        rc = self.popen.returncode
        text = " ".join(p.read_text(errors="replace") for p in self.logs if p.exists())
        if rc is not None and rc < 0:
            try:
                name = signal.Signals(-rc).name
            except ValueError:
                name = f"signal {-rc}"
            return f"{self.what} was killed by {name}{when}: {last(text)}"
        if rc == RUST_PANIC:
            return f"{self.what} panicked{when} (a wattlab bug): {panic_text(text) or last(text)}"
        return f"{self.what} exited with status {rc}{when}: {last(text)}"


@contextlib.contextmanager
def sigterm_interrupts() -> Iterator[None]:
    """SIGTERM raises KeyboardInterrupt in the block, so the clean-up of Ctrl-C runs for it too
    (only in the main thread, where Python handles signals)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum, frame):  # pragma: no cover - exercised by the interruption tests
        raise KeyboardInterrupt(f"signal {signum}")

    old = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


@contextlib.contextmanager
def built_testbed(tcp: dict, step: Callable[[str], None], sysctls: dict | None = None,
                  remove: Callable[[Testbed], Path] | None = None) -> Iterator[Testbed]:
    """A testbed claimed and built with ``tcp``'s settings (``sysctls``: the extra ``--sysctl``
    ones by role), removed when the block ends whatever happens (an error, Ctrl-C, SIGTERM);
    then the file ``remove(tb)`` names (e.g. a Unix socket of the run), if any."""
    tb = Testbed() if sysctls is None else Testbed(sysctls=sysctls)
    with sigterm_interrupts():
        try:
            tb.claim()
            step("building namespaces")
            tb.build(tcp)
            yield tb
        finally:
            tb.teardown()
            if remove is not None:
                remove(tb).unlink(missing_ok=True)


class Session:
    """The processes of one run in its testbed, started in order, watched until the download
    ends; every wait is bounded, and a process that dies ends the run with its own message."""

    def __init__(self, plan: dict, scn: list[str], out: Path, tb: Testbed, limit: float, step: Callable[[str], None]):
        self.plan, self.scn, self.out, self.tb, self.limit, self.step = plan, scn, out, tb, limit, step
        self.exe = str(binary())
        self.procs: list[Proc] = []
        self.deadline = float("inf")

    def start(self, what: str, role: str, argv: list[str], stdout: str | None, stderr: str) -> Proc:
        out = self.out / stdout if stdout else None
        err = self.out / stderr
        proc = Proc(what, self.tb.start(role, argv, stdout=out, stderr=err), tuple(p for p in (err, out) if p))
        self.procs.append(proc)
        return proc

    def failure(self, proc: Proc, when: str = "") -> LiveError:
        gone = self.tb.missing()
        if gone:
            return LiveError(
                f"the run's namespaces ({', '.join(gone)}) were removed while it ran, from outside it "
                f"(`ip netns delete`, or `wattlab live cleanup` of a version without run locks); "
                f"{proc.exit_text(when)}; logs in {self.out}")
        return LiveError(f"{proc.exit_text(when)}; logs in {self.out}")

    def ready(self, proc: Proc, log: str, needle: str, timeout: float = 20.0) -> None:
        """Wait until ``needle`` appears in the process's ``log``, or fail naming it."""
        path = self.out / log
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if path.exists() and needle in path.read_text(errors="replace"):
                return
            if proc.popen.poll() is not None:
                raise self.failure(proc, " before it was ready")
            self.check_others(proc, " while " + proc.what + " started")
            time.sleep(0.02)
        raise LiveError(f"{proc.what} was not ready after {timeout:.0f} s; logs in {self.out}")

    def check_others(self, current: Proc, when: str) -> None:
        """Fail as soon as a process other than ``current`` has died (the server may finish)."""
        for proc in self.procs:
            if proc is current or proc.popen.poll() is None:
                continue
            if proc.what == "the server" and proc.popen.returncode == 0:
                continue
            raise self.failure(proc, when)

    def emulator(self, policy: str, extra: Sequence[str] = ()) -> None:
        """The path emulator on the AP's FORWARD chain (NFQUEUE 1); ``extra`` arguments."""
        self.step("starting the emulator")
        self.tb.sh("ap", "iptables", "-A", "FORWARD", "-j", "NFQUEUE", "--queue-num", str(EMU_QUEUE))
        argv = [self.exe, "emulate", *self.scn, "--queue", str(EMU_QUEUE), "--client-iface", netns.AP_CLIENT_IF, "--report", str(self.out / "emulator.json"), *extra]
        if checks.family(policy) in ("psm", "adaptive-psm", "twt"):
            argv += ["--transitions", str(self.out / "transitions.csv")]
        self.ready(self.start("the emulator", "ap", argv, "emulator.out", "emulator.log"), "emulator.out", "ready")

    def agent(self, extra: Sequence[str] = ()) -> None:
        """The client-centered agent on the client's NFQUEUE 2; ``extra`` arguments (a web
        run's ``--hints SOCKET``)."""
        self.step("starting the agent")
        mark, q = str(AGENT_MARK), str(AGENT_QUEUE)
        self.tb.sh("client", "iptables", "-A", "OUTPUT", "-o", netns.CLIENT_IF, "-p", "tcp", "-m", "mark", "!", "--mark", mark, "-j", "NFQUEUE", "--queue-num", q)
        self.tb.sh("client", "iptables", "-A", "INPUT", "-i", netns.CLIENT_IF, "-p", "tcp", "-j", "NFQUEUE", "--queue-num", q)
        argv = [self.exe, "agent", *self.scn, "--queue", q, "--client-addr", netns.CLIENT_ADDR, "--mark", mark,
                "--transitions", str(self.out / "transitions.csv"), "--events", str(self.out / "agent_events.csv"),
                "--report", str(self.out / "agent.json"), *extra]
        self.ready(self.start("the agent", "client", argv, "agent.out", "agent.log"), "agent.out", "ready")

    def capture(self) -> None:
        """tcpdump on the client's interface."""
        self.step("starting the capture")
        argv = ["tcpdump", "-i", netns.CLIENT_IF, "-w", str(self.out / "client.pcap"), "-s", "128", "-n", "-U", "--immediate-mode"]
        self.ready(self.start("tcpdump", "client", argv, None, "tcpdump.log"), "tcpdump.log", "listening on")

    def _idle_s(self) -> float:
        """How long the client and server wait without progress before giving up."""
        return max(10.0, min(self.limit, 60.0))

    def server(self) -> Proc:
        """The server, streaming the payload; the run's clock (and its bound) starts when it is ready."""
        p = self.plan
        argv = [self.exe, "serve", "--listen", f"{netns.SERVER_ADDR}:{p['port']}", "--bytes", str(p["bytes"]),
                "--payload-key", str(p["seed"]), "--request", str(p["request"]), "--cc", p["linux_cc"],
                "--idle-timeout", f"{self._idle_s() + p['start_s']:.3f}", "--report", str(self.out / "server.json")]
        proc = self.start("the server", "server", argv, "server.out", "server.log")
        self.ready(proc, "server.out", "ready")
        self.deadline = time.monotonic() + self.limit
        return proc

    def download(self) -> None:
        """Start the client at the flow's start and wait for it within the run's bound."""
        p = self.plan
        time.sleep(p["start_s"])  # at most the bound (checks.time_bound)
        self.step("downloading")
        rb = int(p["recv_buffer"])
        clamp = rb if p["window_scale"] is not None else min(rb, 65535)
        # tcp.autotune: no SO_RCVBUF (which would lock the buffer) and no clamp: Linux tunes.
        sizing = [] if p.get("autotune") else ["--window-clamp", str(clamp), "--buffer", str(rb)]
        argv = [self.exe, "fetch", "--connect", f"{netns.SERVER_ADDR}:{p['port']}", "--request", str(p["request"]),
                *sizing, "--cc", p["linux_cc"],
                "--idle-timeout", f"{self._idle_s():.3f}", "--report", str(self.out / "fetch.json")]
        fetch = self.start("the client", "client", argv, None, "fetch.log")
        while fetch.popen.poll() is None:
            self.check_others(fetch, " during the download")
            if time.monotonic() > self.deadline:
                raise LiveTimeLimit(f"the download did not finish within the run's time bound ({self.limit:g} s); logs in {self.out}")
            time.sleep(0.05)
        if fetch.popen.returncode != 0:
            raise self.failure(fetch)

    def finish(self, server: Proc) -> None:
        """Let the last FIN/ACK reach the capture, wait for the server, stop the rest."""
        time.sleep(min(2 * self.plan["base_rtt_s"] + 0.3, 5.0))
        try:
            server.popen.wait(timeout=10)
        except subprocess.TimeoutExpired:
            raise LiveError(f"the server did not finish 10 s after the client: {last(server.logs[0].read_text(errors='replace'))}") from None
        if server.popen.returncode != 0:
            raise self.failure(server)
        self.tb.stop_all()


def prepare_out(out: Path | None, overwrite: bool, ours: Sequence[str] = checks.OUTPUTS, prefix: str = "wattlab-live-") -> Path:
    """Create the output directory (a new temporary one if None); with ``overwrite``, remove
    the earlier results in it (``ours`` only: other files are left alone)."""
    if out is None:
        return Path(tempfile.mkdtemp(prefix=prefix))
    try:
        out.mkdir(parents=True, exist_ok=True)
        for name in ours if overwrite else ():
            p = out / name
            if p.is_dir() and not p.is_symlink():
                shutil.rmtree(p)
            elif p.exists() or p.is_symlink():
                p.unlink()
    except OSError as e:
        raise LiveInputError(f"--out {out}: {e.strerror or e}") from None
    return out


def report(out: Path, name: str) -> dict:
    """A process's JSON report, or a :class:`LiveError` saying it did not finish cleanly."""
    p = out / f"{name}.json"
    try:
        return json.loads(p.read_text())
    except (OSError, ValueError):
        log = out / f"{name}.log"
        tail = last(log.read_text(errors="replace")) if log.exists() else "(no log)"
        raise LiveError(f"{p} is missing or unreadable: the {name} process did not finish cleanly ({tail})") from None
