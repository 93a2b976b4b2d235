"""What a run depends on beyond its scenario's text, overrides and seed: the device-profile
files its radios name by path (``radio.profile = "phone.toml"``). Run keys hash their contents,
so that a run stored before a profile file was edited is run again, never reused."""

from __future__ import annotations

import hashlib
import os
from functools import lru_cache
from pathlib import Path
from typing import Iterable

from wattlab import _core


def profile_hashes(text: str, origin: str, overrides: Iterable[str] = ()) -> list[str]:
    """The SHA-256 of each profile file the radios of the scenario (``text`` from ``origin``,
    with ``overrides`` as ``key=value`` strings) name by path, in node order, each file once;
    read now, so an edited file gives another hash. Relative paths are resolved as a run
    resolves them (the scenario file's directory, else the current one). [] when no radio
    names a file, or when the scenario does not parse (its run reports that)."""
    # Only node overrides can change a radio's profile: the others do not change the files.
    node = tuple(o for o in overrides if o.split("=", 1)[0].strip().strip("\"'").startswith("node"))
    return [_sha256(p) for p in _paths(text, origin, node, os.getcwd())]


@lru_cache(maxsize=64)
def _paths(text: str, origin: str, overrides: tuple[str, ...], _cwd: str) -> tuple[str, ...]:
    """The profile files' paths (one parse per distinct scenario, origin, node overrides and
    current directory)."""
    try:
        files = _core.profile_files(text, origin, overrides=list(overrides))
    except Exception:  # a bad scenario or override: the run itself fails and says why
        return ()
    return tuple(f.rsplit(" sha256:", 1)[0] for f in files)


def _sha256(path: str) -> str:
    """SHA-256 of the file's bytes (of nothing if it cannot be read, as the run's provenance)."""
    try:
        data = Path(path).read_bytes()
    except OSError:
        data = b""
    return hashlib.sha256(data).hexdigest()
