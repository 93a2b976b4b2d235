"""What a live run checks before it starts anything: the scenario path, the options, the
output directory, and whether the download can finish within the run's time bound.

Every check raises :class:`LiveInputError` (exit 2, nothing ran) with a message naming the
option or file and the accepted range; none needs root.
"""

from __future__ import annotations

import math
import os
import re
import stat
from numbers import Real
from pathlib import Path
from typing import Iterable

from wattlab.live.netns import LiveInputError

POLICIES = ("always-on", "cc", "psm", "adaptive-psm", "psna")
"""Radio policies of a live run by their plain names (``adaptive-psm``: a 100 ms timeout)."""

PARAMETERISED = ("adaptive-psm", "twt")
"""Policies that also take the simulator's ``power_save`` parameters
(``adaptive-psm:timeout=Tms``, ``twt:interval=Ims,duration=Dus[,offset=Ous]``)."""

REPLAYED = ("cc", "psm", "adaptive-psm", "twt", "psna")
"""Policies whose radio schedule (``transitions.csv``) is replayed over the capture."""

MAX_TIME_LIMIT_S = 3600.0
"""Largest ``--time-limit``: one hour of download."""

DEFAULT_TIME_LIMIT_S = 600.0
"""The bound without ``--time-limit``: the scenario's stop time, at most this."""

MAX_SCENARIO_BYTES = 1 << 20
"""Largest scenario file of a live run (as ``wattlab-live plan`` enforces)."""

OUTPUTS = (
    "plan.json", "client.pcap", "fetch.json", "server.json", "emulator.json", "agent.json", "agent_events.csv",
    "transitions.csv", "summary.json", "energy", "emulator.out", "emulator.log", "agent.out", "agent.log",
    "tcpdump.log", "server.out", "server.log", "fetch.log", "tcp_settings.json", "client_window.pcap", "energy_window",
    "wwp_sender.json", "wwp_receiver.json", "wwp_sender.out", "wwp_sender.log", "wwp_receiver.out", "wwp_receiver.log",
)
"""Every file or directory a live run writes in its output directory."""

TESTBED_SYSCTLS = {
    "net.ipv4.tcp_sack": "the scenario's tcp.sack",
    "net.ipv4.tcp_timestamps": "the scenario's tcp.timestamps",
    "net.ipv4.tcp_window_scaling": "the scenario's tcp.window_scale",
    "net.ipv4.tcp_slow_start_after_idle": "the scenario's tcp.slow_start_after_idle",
    "net.ipv4.tcp_no_metrics_save": "the testbed (no cached metrics between runs)",
    "net.ipv4.tcp_invalid_ratelimit": "the testbed (answers to every agent probe, as the simulator's TCP)",
}
"""Sysctls the testbed sets itself, and why; a ``--sysctl`` of one is applied with a warning."""

_SYSCTL_KEY = re.compile(r"net(\.[A-Za-z0-9_-]+)+")


def scenario_path(scenario: object) -> Path:
    """``scenario`` as a path to a regular file of at most :data:`MAX_SCENARIO_BYTES`."""
    if not isinstance(scenario, (str, os.PathLike)) or isinstance(scenario, bool):
        raise LiveInputError(f"the scenario must be a path to a .toml file, not {type(scenario).__name__}")
    path = Path(scenario)
    try:
        st = path.stat()
    except FileNotFoundError:
        raise LiveInputError(f"{path}: no such file") from None
    except OSError as e:
        raise LiveInputError(f"{path}: {e.strerror}") from None
    if stat.S_ISDIR(st.st_mode):
        raise LiveInputError(f"{path} is a directory, not a scenario file")
    if not stat.S_ISREG(st.st_mode):
        raise LiveInputError(f"{path} is not a regular file (a device, FIFO or socket); give a scenario .toml file")
    if st.st_size > MAX_SCENARIO_BYTES:
        raise LiveInputError(f"{path} is {st.st_size:,} bytes; a live scenario is at most {MAX_SCENARIO_BYTES:,} bytes")
    return path


def policy_forms() -> str:
    """The accepted ``--policy`` names, with the parameters' ranges from the core's registry
    (as ``wattlab-live`` writes them in its errors)."""
    from wattlab import _core

    modes = {m["family"]: m for m in _core.power_modes()}

    def ranges(family: str) -> str:
        return ", ".join(f"{q['letter']} = {q['min']}..={q['max']}" for q in modes[family]["parameters"])

    return (f"always-on, cc, psm, adaptive-psm (timeout 100 ms), adaptive-psm:timeout=Tms ({ranges('adaptive-psm')}), "
            f"twt:interval=Ims,duration=Dus[,offset=Ous] ({ranges('twt')}; D and O below the interval), psna")


def family(name: str) -> str:
    """A policy's name without its parameters (``twt`` for ``twt:interval=...``)."""
    return name.split(":", 1)[0]


def policy(name: object) -> str:
    """``name`` if it is a live policy: a plain name (:data:`POLICIES`), or an
    ``adaptive-psm:`` / ``twt:`` name as the simulator's ``power_save`` writes it, parsed by
    the core's registry (the same parser, so the same spellings and ranges). A TWT agreement's
    ``trigger=true`` / ``announced=true`` are refused: they change nothing on the emulated hop,
    which has no frames of its own (as on the simulator's ``[[wireless]]`` hop), and so is
    ``broadcast=ID`` (no AP beacons to announce a schedule)."""
    from wattlab import _core

    if not isinstance(name, str):
        raise LiveInputError(f"the policy must be a name, not {type(name).__name__}")
    if name in POLICIES:
        return name
    try:
        mode = _core.parse_power_mode(name)
    except _core.UnknownNameError:
        mode = None
    if mode is None or mode["family"] not in PARAMETERISED:
        raise LiveInputError(f"unknown live policy `{name}`; expected {policy_forms()}")
    if mode["family"] == "twt" and (",trigger=" in name or ",announced=" in name):
        raise LiveInputError(f"--policy {name}: trigger=true and announced=true change nothing on the emulated hop (it has no "
                             "frames of its own: no trigger, no announcement; as on the simulator's [[wireless]] hop); leave them out")
    if mode["family"] == "twt" and ",broadcast=" in name:
        raise LiveInputError(f"--policy {name}: broadcast TWT needs an AP announcing its schedules in beacons, which the "
                             "emulated hop does not have (as the simulator's [[wireless]] hop refuses it); give the agreement "
                             "without `,broadcast=`")
    return name


def time_limit(value: object) -> float | None:
    """``--time-limit``: None, or seconds with 0 < S <= :data:`MAX_TIME_LIMIT_S`."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, Real):
        raise LiveInputError(f"--time-limit must be a number of seconds, not {type(value).__name__}")
    s = float(value)
    if not math.isfinite(s) or not 0 < s <= MAX_TIME_LIMIT_S:
        raise LiveInputError(f"--time-limit {s:g}: expected seconds with 0 < S <= {MAX_TIME_LIMIT_S:g} (one hour)")
    return s


def _strings(values: object, option: str) -> list[str]:
    """``values`` as a list of strings (a lone string is refused, not split into characters)."""
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise LiveInputError(f"{option} takes a list of strings, not {type(values).__name__}")
    out = list(values)
    bad = [v for v in out if not isinstance(v, str)]
    if bad:
        raise LiveInputError(f"{option} takes strings, not {type(bad[0]).__name__} ({bad[0]!r})")
    return out


def overrides(values: object) -> list[str]:
    """``--set`` overrides: KEY=VALUE strings, none of them the hop's ``power_save``."""
    out = _strings(values, "--set")
    for o in out:
        key = o.split("=", 1)[0].strip()
        if "=" not in o or not key:
            raise LiveInputError(f"--set {o}: expected KEY=VALUE (e.g. wireless.hop.down.loss.p=0.01)")
        if key.startswith("wireless.") and key.endswith(".power_save"):
            raise LiveInputError(f"--set {o}: the hop's power_save is set by --policy ({policy_forms()}), not --set")
    return out


def sysctls(values: object) -> dict[str, list[str]]:
    """``--sysctl ROLE:KEY=VALUE`` settings by role; the key must exist under ``/proc/sys/net``."""
    out: dict[str, list[str]] = {}
    for spec in _strings(values, "--sysctl"):
        role, _, kv = spec.partition(":")
        key, eq, value = kv.partition("=")
        key = key.strip()
        if role not in ("client", "server") or not eq or not _SYSCTL_KEY.fullmatch(key):
            raise LiveInputError(f"--sysctl {spec}: expected ROLE:KEY=VALUE with ROLE client or server and a net.* key")
        if not value.strip() or any(ord(c) < 32 for c in value):
            raise LiveInputError(f"--sysctl {spec}: the value is empty or has control characters")
        if not Path("/proc/sys", *key.split(".")).exists():
            raise LiveInputError(f"--sysctl {spec}: no such sysctl ({key} is not under /proc/sys)")
        out.setdefault(role, []).append(f"{key}={value.strip()}")
    return out


def sysctl_warnings(by_role: dict[str, list[str]]) -> list[str]:
    """A warning for each ``--sysctl`` that replaces a setting the testbed makes itself."""
    out = []
    for role, kvs in by_role.items():
        for kv in kvs:
            key = kv.split("=", 1)[0]
            if key in TESTBED_SYSCTLS:
                out.append(f"--sysctl {role}:{kv} replaces {TESTBED_SYSCTLS[key]}: the live run no longer matches the simulator")
    return out


def out_dir(out: object, overwrite: bool, scenario: Path) -> Path | None:
    """The output directory, checked without changing anything: not a file, empty unless
    ``overwrite``, and never where the run would overwrite the scenario."""
    if out is None:
        return None
    if not isinstance(out, (str, os.PathLike)) or isinstance(out, bool):
        raise LiveInputError(f"--out must be a path, not {type(out).__name__}")
    path = Path(out)
    if str(out) == "":
        raise LiveInputError("--out is empty; give a directory")
    if path.exists() and not path.is_dir():
        raise LiveInputError(f"--out {path} is not a directory")
    if any((path / name).resolve() == scenario.resolve() for name in OUTPUTS):
        raise LiveInputError(f"--out {path} would overwrite the scenario {scenario}; choose another directory")
    if path.is_dir() and not overwrite:
        try:
            entries = sorted(p.name for p in path.iterdir())
        except OSError as e:
            raise LiveInputError(f"--out {path}: cannot read the directory: {e.strerror}") from None
        if entries:
            shown = ", ".join(entries[:4]) + (" ..." if len(entries) > 4 else "")
            raise LiveInputError(f"--out {path} is not empty ({shown}); pass --overwrite to replace earlier results, or choose another directory")
    return path


def least_time_s(plan: dict) -> float:
    """The least time the download can take (s): its start, the handshake and request's round
    trips, the request up and the data down at the path's slowest rates."""
    up = plan["request"] * 8 / plan["up_rate_bps"] if plan["up_rate_bps"] else 0.0
    down = plan["bytes"] * 8 / plan["down_rate_bps"] if plan["down_rate_bps"] else 0.0
    return plan["start_s"] + 2 * plan["base_rtt_s"] + up + down


def time_bound(plan: dict, limit: float | None) -> float:
    """The run's time bound (s of the scenario's clock): ``limit``, or the scenario's stop time
    (at most :data:`DEFAULT_TIME_LIMIT_S`). A download that cannot finish within it is refused
    before anything runs, so a huge ``bytes`` never starts."""
    bound = limit if limit is not None else min(plan["horizon_s"], DEFAULT_TIME_LIMIT_S)
    need = least_time_s(plan)
    if need <= bound:
        return bound
    size = f"{plan['bytes']:,} B at {plan['down_rate_bps'] / 1e6:g} Mbit/s"
    if need > MAX_TIME_LIMIT_S:
        raise LiveInputError(
            f"the download ({size}) needs at least {need:,.1f} s, more than a live run may take "
            f"({MAX_TIME_LIMIT_S:g} s): lower the flow's bytes or raise the path's rate")
    given = f"--time-limit {limit:g} s" if limit is not None else f"the default bound of {bound:g} s (the scenario's duration, at most {DEFAULT_TIME_LIMIT_S:g} s)"
    raise LiveInputError(
        f"the download ({size}, starting at {plan['start_s']:g} s) needs at least {need:,.1f} s, more than {given}: "
        f"raise --time-limit (at most {MAX_TIME_LIMIT_S:g} s) or lower the flow's bytes")
