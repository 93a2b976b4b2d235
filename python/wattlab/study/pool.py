"""Local worker processes for a study's runs that die with their parent and report, for each
task, either its result or how its worker died.

``concurrent.futures.ProcessPoolExecutor`` does neither: a worker killed by the kernel (out of
memory) breaks the whole pool without saying which task it held, and a ``kill -9`` of the parent
leaves its workers running. Here each worker holds one task at a time, so a dead worker costs
exactly its task (reported as :class:`Lost`, the others go on in a fresh worker), and each
worker asks the kernel to kill it when its parent dies (``PR_SET_PDEATHSIG``) and, where that
does not exist, watches its parent's pid.
"""

from __future__ import annotations

import os
import signal
from dataclasses import dataclass
from typing import Any, Callable, Iterator

PARENT_WATCH_S = 1.0
"""How often a worker checks that its parent is alive where the kernel cannot tell it."""


class WorkerDied(RuntimeError):
    """A run could not be computed because its worker process died (the message says how)."""


@dataclass
class Lost:
    """A task whose worker died before returning (killed by the out-of-memory killer, aborted
    by ``std::bad_alloc``, ...): the task and why."""

    task: Any
    reason: str


def die_with_parent(parent_pid: int) -> None:
    """Make this (worker) process die when ``parent_pid`` does: ``prctl(PR_SET_PDEATHSIG,
    SIGKILL)`` on Linux, and a thread that polls the parent pid every :data:`PARENT_WATCH_S`
    as a fallback (other systems, or a kernel that refuses the prctl)."""
    import threading

    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        PR_SET_PDEATHSIG = 1
        libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent_pid:  # the parent died before the prctl took effect
        os._exit(1)

    def watch() -> None:
        import time

        while True:
            time.sleep(PARENT_WATCH_S)
            if os.getppid() != parent_pid:
                os._exit(1)

    threading.Thread(target=watch, name="wattlab-parent-watch", daemon=True).start()


def _worker(conn, fn: Callable[[Any], Any], parent_pid: int) -> None:
    """A worker's loop: receive a task, send back ``("ok", result)`` or ``("raise", exc)``;
    ``None`` (or the parent's end closing) stops it."""
    die_with_parent(parent_pid)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle (it stops us)
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        try:
            reply = ("ok", fn(task))
        except BaseException as e:  # a bug in fn: the parent re-raises it
            reply = ("raise", e)
        try:
            conn.send(reply)
        except Exception as e:  # the result or the exception does not pickle
            conn.send(("raise", RuntimeError(f"{type(e).__name__}: {e}")))


def describe_exit(exitcode: int | None) -> str:
    """Why a worker process ended, in words (a signal's name, with the usual cause)."""
    if exitcode is None:
        return "its worker process vanished"
    if exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = f"signal {-exitcode}"
        cause = {"SIGKILL": " (the out-of-memory killer, or kill -9)", "SIGABRT": " (an abort: out of memory in the simulator?)",
                 "SIGSEGV": " (a crash)"}.get(name, "")
        return f"its worker process was killed by {name}{cause}"
    return f"its worker process exited with status {exitcode}"


class _Slot:
    """One worker process, its pipe, and the task it holds."""

    def __init__(self, ctx, fn):
        parent_end, child_end = ctx.Pipe()
        self.proc = ctx.Process(target=_worker, args=(child_end, fn, os.getpid()), daemon=True)
        self.proc.start()
        child_end.close()
        self.conn = parent_end
        self.task: Any = None
        self.busy = False

    def give(self, task) -> None:
        self.task, self.busy = task, True
        self.conn.send(task)

    def stop(self, force: bool) -> None:
        """End the worker: ask it to (``force`` False) or terminate it, then kill if it lingers."""
        try:
            if force:
                self.proc.terminate()
            else:
                self.conn.send(None)
        except (OSError, ValueError):
            pass
        self.proc.join(0.5 if force else 5)
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join(1)
        self.conn.close()


def run_local(tasks: list, jobs: int, fn: Callable[[Any], Any]) -> Iterator[Any]:
    """``fn(task)`` of every task as they finish, on ``jobs`` forked worker processes, or
    :class:`Lost` for a task whose worker died. The workers are forked here, before the caller
    starts any thread (a progress bar), so they start in milliseconds with what the parent has
    imported. Closing the iterator (Ctrl-C, an error) terminates them at once."""
    import multiprocessing as mp
    from multiprocessing.connection import wait

    ctx = mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")
    it = iter(tasks)
    slots = [_Slot(ctx, fn) for _ in range(min(jobs, len(tasks)))]

    def feed(i: int) -> None:
        """Give slot ``i`` the next task (to a fresh worker if its own died meanwhile)."""
        nxt = next(it, _END)
        if nxt is _END:
            slots[i].busy = False
            return
        try:
            slots[i].give(nxt)
        except OSError:  # the worker died after its last reply: the task goes to a new one
            slots[i].stop(force=True)
            slots[i] = _Slot(ctx, fn)
            slots[i].give(nxt)

    def finished() -> Iterator[Any]:
        ok = False
        try:
            for i in range(len(slots)):
                feed(i)
            while any(s.busy for s in slots):
                busy = [s for s in slots if s.busy]
                ready = set(wait([*(s.conn for s in busy), *(s.proc.sentinel for s in busy)]))
                for i, s in enumerate(slots):
                    if not s.busy or not ({s.conn, s.proc.sentinel} & ready):
                        continue
                    reply = None
                    try:
                        if s.conn.poll():
                            reply = s.conn.recv()
                    except (EOFError, OSError):
                        reply = None
                    if reply is None:  # the worker died holding its task
                        s.proc.join(1)
                        lost = Lost(s.task, describe_exit(s.proc.exitcode))
                        s.busy = False
                        s.conn.close()
                        slots[i] = _Slot(ctx, fn)
                        feed(i)
                        yield lost
                        continue
                    kind, value = reply
                    if kind == "raise":
                        raise value
                    feed(i)
                    yield value
            ok = True
        finally:
            for s in slots:
                s.stop(force=not ok)

    return finished()


_END = object()
