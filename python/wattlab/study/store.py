"""The run store's guarantees, whatever a run's tables are encoded as: each finished run is one
file ``DIR/runs/KEY.run`` that is written whole or not at all, verified whenever it is read,
and written by one session at a time.

- **Verified on read.** A run file is ``wattlab-run 1`` (a magic line), then the SHA-256 and
  length of the rest, then a JSON line (the run's key, what the caller stored about it, and the
  name and length of each blob) and the blobs. Reading opens it without blocking (a FIFO, a
  device), checks it is a regular file of at most :data:`MAX_RUN_BYTES`, reads exactly its
  size, and checks the checksum and that the key inside is the file's name: a truncated, empty,
  garbage, bit-flipped, copied-over or foreign file raises :class:`Damaged` naming the path.
- **Written whole.** Every file (a run, a combined table, the manifest) is written under a
  temporary name of this session (``.tmp-SESSION-NAME``) and renamed into place, so a kill
  leaves the old file or the new one, never a truncated one.
- **One session per directory.** :func:`lock` takes an exclusive ``flock`` on
  ``DIR/.wattlab-lock`` (released by the kernel when the process dies); a second session is
  refused with :class:`Busy`, one line naming the holder's pid.

The blobs' encoding (Arrow IPC for a study's tables, the raw result for a reproduction's runs)
belongs to the callers (``engine``, ``points``); this module never looks inside them.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import socket
import stat
import sys
import time
import uuid
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

MAGIC = b"wattlab-run 1\n"
"""First line of every run file: what it is and the version of this framing."""
MAX_RUN_BYTES = 1 << 30
"""The largest run file read or written (1 GiB): a bigger one is refused, not read into memory."""
LOCK_NAME = ".wattlab-lock"
SESSION = f"{os.getpid()}-{uuid.uuid4().hex[:8]}"
"""This process's session id, part of every temporary name it writes (refreshed after a fork)."""


class Damaged(Exception):
    """A stored run that cannot be trusted: ``path`` and ``reason`` (one line)."""

    def __init__(self, path: Path, reason: str):
        super().__init__(f"{path}: {reason}")
        self.path, self.reason = path, reason


class Busy(RuntimeError):
    """Another session holds the directory's lock (the message names its pid and command)."""


class TooLarge(ValueError):
    """A run's data exceed :data:`MAX_RUN_BYTES`: it cannot be stored."""


# ---------------------------------------------------------------------------------------------
# Writing whole files


def atomic_write(path: Path, data: bytes | Callable[[Path], Any]) -> None:
    """Write ``path`` under a temporary name of this session in the same directory, then rename
    it into place: a reader (or a kill) sees the old file or the new one, never a part.
    ``data`` is the bytes, or a function that writes the file whose path it is given (e.g.
    ``lambda p: pq.write_table(t, p)``). The temporary file is removed if anything fails."""
    path = Path(path)
    tmp = path.with_name(f".tmp-{SESSION}-{path.name}")
    try:
        if callable(data):
            data(tmp)
        else:
            with open(tmp, "wb") as f:
                f.write(data)
        _before_rename(tmp, path)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _before_rename(tmp: Path, path: Path) -> None:
    """Called between writing ``tmp`` and renaming it to ``path`` (a hook for tests that kill
    a session at that moment)."""


def _refresh_session() -> None:
    global SESSION
    SESSION = f"{os.getpid()}-{uuid.uuid4().hex[:8]}"


os.register_at_fork(after_in_child=_refresh_session)


# ---------------------------------------------------------------------------------------------
# Run files


def encode(key: str, meta: Mapping[str, Any], blobs: Iterable[tuple[str, bytes]]) -> bytes:
    """A run file's bytes: the magic line, the checksum line, then the JSON line (``key``,
    ``meta``, the blobs' names and lengths) and the blobs end to end."""
    blobs = list(blobs)
    head = {"key": key, "meta": meta, "blobs": [[name, len(data)] for name, data in blobs]}
    body = json.dumps(head, sort_keys=True, separators=(",", ":"), default=_json_default).encode() + b"\n"
    size = len(body) + sum(len(d) for _, d in blobs)
    if size > MAX_RUN_BYTES:
        raise TooLarge(f"the run's tables hold {size / 1e6:.0f} MB, more than a stored run may ({MAX_RUN_BYTES >> 20} MiB)")
    h = hashlib.sha256(body)
    for _, d in blobs:
        h.update(d)
    return b"".join([MAGIC, f"{h.hexdigest()} {size}\n".encode(), body, *(d for _, d in blobs)])


def decode(data: bytes, key: str, path: Path) -> tuple[dict, dict[str, bytes]]:
    """The ``meta`` and blobs of a run file's bytes, verified (magic, length, checksum, the key
    inside against ``key``); raises :class:`Damaged`."""
    if not data:
        raise Damaged(path, "empty")
    if not data.startswith(MAGIC):
        raise Damaged(path, "not a wattlab run file (no wattlab-run header: garbage, or written by an older wattlab)")
    nl = data.find(b"\n", len(MAGIC), len(MAGIC) + 100)
    try:
        digest, size = data[len(MAGIC):nl].decode("ascii").split(" ")
        size = int(size)
    except (ValueError, UnicodeDecodeError):
        raise Damaged(path, "its checksum line is damaged") from None
    body = memoryview(data)[nl + 1:]
    if len(body) != size:
        raise Damaged(path, f"truncated or extended: {len(body)} bytes after the header, {size} expected")
    if hashlib.sha256(body).hexdigest() != digest:
        raise Damaged(path, "checksum mismatch (its content changed after it was written)")
    end = data.find(b"\n", nl + 1)
    try:
        head = json.loads(data[nl + 1:end])
        blob_list = [(str(n), int(k)) for n, k in head["blobs"]]
        stored_key, meta = head["key"], head["meta"]
    except (ValueError, KeyError, TypeError):
        raise Damaged(path, "its header is not valid JSON of a run") from None
    if stored_key != key:
        raise Damaged(path, f"holds run {stored_key}, not {key} (a run file copied or renamed over another)")
    blobs, pos = {}, end + 1
    for name, n in blob_list:
        blobs[name] = data[pos:pos + n]
        pos += n
    if pos != len(data):
        raise Damaged(path, "its blobs do not add up to its length")
    return meta, blobs


def read_bounded(path: Path, limit: int = MAX_RUN_BYTES) -> bytes:
    """The bytes of ``path`` if it is a regular file of at most ``limit`` bytes; raises
    :class:`Damaged` otherwise. Opened non-blocking, so a FIFO or a device never hangs the
    reader, and never read past the size ``fstat`` gave."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise Damaged(path, "vanished while being read") from None
    except OSError as e:
        raise Damaged(path, f"cannot be opened: {e.strerror or e}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise Damaged(path, f"is {_kind(st.st_mode)}, not a regular file")
        if st.st_size > limit:
            raise Damaged(path, f"is {st.st_size} bytes, more than a run file may be ({limit >> 20} MiB)")
        chunks, left = [], st.st_size
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 24))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    except OSError as e:
        raise Damaged(path, f"cannot be read: {e.strerror or e}") from None
    finally:
        os.close(fd)


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"


def _json_default(o):
    if hasattr(o, "item"):  # a numpy scalar
        return o.item()
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")


class Store:
    """Finished runs of a directory: one verified file per run, ``DIR/runs/KEY.run``. Holds
    the directory's :func:`lock` from creation to :meth:`close` (use it as a context manager)."""

    SUFFIX = ".run"

    def __init__(self, out: Path):
        self.out = Path(out)
        self.runs = self.out / "runs"
        self.runs.mkdir(parents=True, exist_ok=True)
        self._lock = lock(self.out)
        # Only the lock's holder writes here: a temporary file left is from a killed session.
        for stale in self.runs.glob(".tmp-*"):
            try:
                stale.unlink()
            except OSError:
                pass

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Release the directory's lock (the files stay)."""
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def path(self, key: str) -> Path:
        """Where run ``key`` is stored."""
        return self.runs / f"{key}{self.SUFFIX}"

    def present(self) -> set[str]:
        """Keys that have an entry in the store (not yet verified: see :meth:`get`)."""
        return {n[: -len(self.SUFFIX)] for n in os.listdir(self.runs) if n.endswith(self.SUFFIX) and not n.startswith(".")}

    def put(self, key: str, meta: Mapping[str, Any], blobs: Mapping[str, bytes]) -> None:
        """Store run ``key`` (raises :class:`TooLarge` if it exceeds :data:`MAX_RUN_BYTES`)."""
        atomic_write(self.path(key), encode(key, meta, blobs.items()))

    def get(self, key: str) -> tuple[dict, dict[str, bytes]]:
        """Run ``key``'s meta and blobs, verified; raises :class:`Damaged` (or
        FileNotFoundError if there is no such run)."""
        p = self.path(key)
        if not os.path.lexists(p):
            raise FileNotFoundError(f"{p}: no such stored run")
        return decode(read_bounded(p), key, p)

    def set_aside(self, key: str) -> Path | None:
        """Move a damaged run's entry to ``runs/damaged/`` (kept for inspection, out of the way
        of its recomputation); returns where it went (None if it was gone already)."""
        src = self.path(key)
        dest_dir = self.runs / "damaged"
        dest_dir.mkdir(exist_ok=True)
        dest = dest_dir / f"{key}{self.SUFFIX}.{time.strftime('%Y%m%dT%H%M%S')}-{SESSION}"
        try:
            os.rename(src, dest)
        except FileNotFoundError:
            return None
        return dest


# ---------------------------------------------------------------------------------------------
# One session per directory


class _Held:
    """A lock this process holds on a directory (re-entrant: counted)."""

    def __init__(self, key: str, fd: int):
        self.key, self.fd, self.count = key, fd, 1

    def release(self) -> None:
        """Release one hold; the last one closes the lock file (and so releases the lock)."""
        self.count -= 1
        if self.count == 0:
            _HELD.pop(self.key, None)
            os.close(self.fd)


_HELD: dict[str, _Held] = {}


def lock(out: Path) -> _Held:
    """Take ``out``'s lock for this process (re-entrant), or raise :class:`Busy` naming the
    session that holds it. The lock file records the holder's pid, host, command and start."""
    import fcntl

    out = Path(out)
    key = os.path.realpath(out)
    held = _HELD.get(key)
    if held is not None:
        held.count += 1
        return held
    path = out / LOCK_NAME
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0), 0o644)
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise IsADirectoryError(errno.EISDIR, "not a regular file")
    except OSError as e:
        raise Busy(f"{out}: cannot take the folder's lock {path}: {e.strerror or e}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as e:
        os.close(fd)
        if e.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            raise
        raise Busy(f"{out} is in use by another wattlab session ({_holder(path)}): wait for it to finish, "
                   "or choose another --out") from None
    info = {"pid": os.getpid(), "host": socket.gethostname(), "command": " ".join(sys.argv)[:300],
            "started": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
    os.ftruncate(fd, 0)
    os.pwrite(fd, (json.dumps(info) + "\n").encode(), 0)
    held = _HELD[key] = _Held(key, fd)
    return held


def _holder(path: Path) -> str:
    """Who holds the lock, from its file (the holder writes it just after locking: retried
    briefly)."""
    for _ in range(20):
        try:
            info = json.loads(path.read_text() or "null")
        except (OSError, ValueError):
            info = None
        if isinstance(info, dict) and "pid" in info:
            cmd = f", {info['command']}" if info.get("command") else ""
            return f"pid {info['pid']} on {info.get('host', '?')}{cmd}, since {info.get('started', '?')}"
        time.sleep(0.01)
    return "pid unknown"


def _drop_inherited_locks() -> None:
    """In a forked child (a pool worker): close its copies of the parent's lock files, so that
    the lock dies with the parent (a worker left behind must not keep a directory locked)."""
    for held in list(_HELD.values()):
        try:
            os.close(held.fd)
        except OSError:
            pass
    _HELD.clear()


os.register_at_fork(after_in_child=_drop_inherited_locks)
