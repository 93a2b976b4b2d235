"""A study's runs on a Dask distributed cluster, with every problem of the cluster turned into
one line within a bounded time (:class:`SchedulerError`), never a Dask traceback or a silence:

- an address that is not ``[tcp://]HOST:PORT``: refused at once;
- nothing listening there, or a host that does not resolve: refused at once; no answer:
  after ``timeout`` seconds;
- a scheduler with no worker, or whose workers all leave: after ``timeout`` seconds without one;
- the scheduler lost mid-sweep: after ``timeout`` seconds without it (the runs already back
  are stored: running the same command again resumes);
- a worker that dies on a run (Dask gives up on it as ``KilledWorker``): that run is reported
  as :class:`~wattlab.study.pool.Lost`, the others go on.
"""

from __future__ import annotations

import gc
import logging
import re
import socket
import sys
import time
from contextlib import contextmanager
from typing import Any, Callable, Iterator

from wattlab.study.pool import Lost

TIMEOUT_S = 20.0
"""Default bound on each wait for the cluster (``--scheduler-timeout``)."""
POLL_S = 0.5
"""How often the cluster's health is checked while no run comes back."""
IDLE_S = 0.01
"""The wait between looks for finished runs when none has come back."""
OTHER_SCHEMES = ("inproc://", "ucx://")
"""Address schemes passed to Dask as they are (no host:port to check)."""
ADDRESS = re.compile(r"^(?:(?P<scheme>tcp|tls|ws|wss)://)?(?P<host>\[[0-9A-Fa-f:.]+\]|[^\s/:\[\]]+):(?P<port>\d{1,5})/?$")


class SchedulerError(RuntimeError):
    """A problem with the Dask cluster, in one line (the address and what went wrong)."""


def _missing_dask() -> SchedulerError:
    return SchedulerError("--scheduler needs Dask's distributed scheduler, which is not installed: "
                          "pip install 'wattlab[dask]' (or pip install 'dask[distributed]')")


def check_address(address: str) -> tuple[str, str, int]:
    """``(scheme, host, port)`` of a scheduler address, or :class:`SchedulerError`."""
    m = ADDRESS.match(address.strip()) if isinstance(address, str) else None
    port = int(m.group("port")) if m else 0
    if not m or not 0 < port < 65536:
        raise SchedulerError(f"--scheduler {address!r}: not a Dask scheduler address (expected tcp://HOST:PORT, "
                             "e.g. tcp://10.0.0.5:8786, as `dask scheduler` prints it)")
    return m.group("scheme") or "tcp", m.group("host").strip("[]"), port


def probe(address: str, timeout: float) -> None:
    """Refuse at once an address where nothing listens or whose host does not resolve, and
    within ``timeout`` one that does not answer (before Dask retries it for its own timeout)."""
    _, host, port = check_address(address)
    try:
        with socket.create_connection((host, port), timeout=timeout):
            pass
    except socket.gaierror as e:
        raise SchedulerError(f"--scheduler {address}: cannot resolve host {host!r} ({e.strerror})") from None
    except ConnectionRefusedError:
        raise SchedulerError(f"--scheduler {address}: nothing listens there (connection refused); "
                             "is `dask scheduler` running?") from None
    except (socket.timeout, TimeoutError):
        raise SchedulerError(f"--scheduler {address}: no answer in {timeout:g} s") from None
    except OSError as e:
        raise SchedulerError(f"--scheduler {address}: cannot connect ({e.strerror or e})") from None


@contextmanager
def _quiet_dask() -> Iterator[None]:
    """Silence Dask's own logging of the failures this module reports in one line."""
    loggers = [logging.getLogger(n) for n in ("distributed", "distributed.client", "distributed.comm", "tornado")]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        for lg, level in zip(loggers, levels):
            lg.setLevel(level)


def connect(scheduler: Any, timeout: float):
    """A ``dask.distributed.Client`` for ``scheduler`` (an address, or a Client given back as
    is) and whether it is ours to close; :class:`SchedulerError` if it cannot be reached in
    ``timeout`` seconds."""
    try:
        from dask.distributed import Client
    except ImportError:
        raise _missing_dask() from None
    if isinstance(scheduler, Client):
        return scheduler, False
    if not isinstance(scheduler, str):
        raise SchedulerError(f"scheduler must be an address such as 'tcp://10.0.0.5:8786' or a dask.distributed.Client, "
                             f"not {type(scheduler).__name__}")
    if scheduler.startswith(OTHER_SCHEMES):  # an in-process or UCX scheduler: Dask checks it
        address = scheduler
    else:
        scheme, host, port = check_address(scheduler)
        address = f"{scheme}://{host if ':' not in host else f'[{host}]'}:{port}"
        if scheme == "tcp":
            probe(address, timeout)
    failed = None
    hook = sys.unraisablehook
    sys.unraisablehook = lambda *_: None  # the half-made Client's __del__ complains on the way out
    try:
        try:
            client = Client(address, timeout=f"{timeout}s", set_as_default=False)
        except Exception as e:  # OSError/TimeoutError from Dask's retries, or a handshake that is not Dask's
            failed = _first_line(e)
        gc.collect()
    finally:
        sys.unraisablehook = hook
    if failed is not None:
        raise SchedulerError(f"--scheduler {address}: cannot connect in {timeout:g} s ({failed})")
    return client, True


def _first_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0]}" if text else type(e).__name__


def run_dask(tasks: list, scheduler: Any, fn: Callable[[Any], Any], timeout: float = TIMEOUT_S) -> Iterator[Any]:
    """``fn(task)`` of every task as they finish on the Dask cluster, or :class:`Lost` for a
    task whose worker died; :class:`SchedulerError` if the cluster fails (see the module)."""
    try:
        import dask.distributed  # noqa: F401
    except ImportError:
        raise _missing_dask() from None
    with _quiet_dask():
        client, own = connect(scheduler, timeout)
    return _results(client, own, tasks, fn, timeout)


def _results(client, own: bool, tasks: list, fn, timeout: float) -> Iterator[Any]:
    from dask.distributed import as_completed
    from distributed.client import FutureCancelledError

    try:
        from distributed.scheduler import KilledWorker
    except ImportError:  # older Dask
        from distributed import KilledWorker  # type: ignore[attr-defined,no-redef]
    address = getattr(client, "scheduler", None)
    address = getattr(address, "address", None) or str(address)
    with _quiet_dask():
        try:
            futures = client.map(fn, tasks, pure=False)
            task_of = {f.key: t for f, t in zip(futures, tasks)}
            finished = as_completed(futures, loop=client.loop)
            no_worker_since = lost_since = None
            next_check = time.monotonic() + POLL_S
            while not finished.is_empty():
                done = finished.next_batch(block=False)
                for f in done:
                    try:
                        value = f.result()
                    except KilledWorker as e:
                        value = Lost(task_of[f.key], f"its Dask worker died running it ({_first_line(e)})")
                    except (FutureCancelledError, TimeoutError, OSError) as e:
                        why = getattr(e, "reason", None) or _first_line(e)
                        raise SchedulerError(f"lost the Dask scheduler at {address} mid-sweep ({why}); "
                                             "the runs back are stored: run the same command again to resume") from None
                    f.release()
                    no_worker_since = None
                    yield value
                now = time.monotonic()
                if done or now < next_check:
                    if not done:
                        time.sleep(IDLE_S)
                    continue
                next_check = now + POLL_S
                if client.status != "running":
                    lost_since = lost_since or now
                    if now - lost_since > timeout:
                        raise SchedulerError(f"lost the Dask scheduler at {address} ({timeout:g} s without it); "
                                             "the runs back are stored: run the same command again to resume")
                    continue
                lost_since = None
                if not client.scheduler_info().get("workers"):
                    no_worker_since = no_worker_since or now
                    if now - no_worker_since > timeout:
                        raise SchedulerError(f"the Dask scheduler at {address} has no worker ({timeout:g} s without one): "
                                             f"start some with `dask worker {address}`")
                else:
                    no_worker_since = None
        finally:
            if own:
                try:
                    client.close(timeout=2)
                except Exception:
                    pass
