"""The testbed's own TCP settings as the kernel reports them inside a run's namespaces: the
sysctls that shape a Linux TCP transfer, the routes (initial window, minimum RTO), CUBIC's
module parameters and the kernel's version. Written to ``tcp_settings.json`` of every live
download, so a result carries the TCP it was measured on (issue 33: "the testbed's own TCP
settings recorded with the results")."""

from __future__ import annotations

import json
import os
import platform
from pathlib import Path

SYSCTLS = (
    "net.ipv4.tcp_congestion_control", "net.ipv4.tcp_available_congestion_control", "net.ipv4.tcp_sack",
    "net.ipv4.tcp_dsack", "net.ipv4.tcp_ecn", "net.ipv4.tcp_timestamps", "net.ipv4.tcp_window_scaling",
    "net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem", "net.ipv4.tcp_moderate_rcvbuf", "net.ipv4.tcp_adv_win_scale",
    "net.ipv4.tcp_early_retrans", "net.ipv4.tcp_recovery", "net.ipv4.tcp_frto", "net.ipv4.tcp_reordering",
    "net.ipv4.tcp_slow_start_after_idle", "net.ipv4.tcp_no_metrics_save", "net.ipv4.tcp_invalid_ratelimit",
    "net.ipv4.tcp_autocorking", "net.ipv4.tcp_pacing_ss_ratio", "net.ipv4.tcp_pacing_ca_ratio",
    "net.ipv4.tcp_notsent_lowat", "net.ipv4.tcp_mtu_probing", "net.ipv4.tcp_rto_min_us", "net.ipv4.tcp_comp_sack_nr",
    "net.core.rmem_max", "net.core.wmem_max", "net.core.rmem_default", "net.core.wmem_default",
)
"""The sysctls recorded (a key the kernel lacks is left out)."""

CUBIC_PARAMETERS = Path("/sys/module/tcp_cubic/parameters")


def kernel() -> dict:
    """The running kernel: release and build string (``uname -r``, ``uname -v``)."""
    u = platform.uname()
    return {"release": u.release, "version": u.version, "machine": u.machine}


def cubic() -> dict:
    """CUBIC's module parameters (HyStart and friends), global to the kernel; {} when the
    module is not loaded."""
    try:
        return {p.name: p.read_text().strip() for p in sorted(CUBIC_PARAMETERS.iterdir())}
    except OSError:
        return {}


def parse_sysctl(text: str) -> dict[str, str]:
    """``sysctl`` output (``key = value`` lines) as a dict, whitespace in values as one space."""
    out = {}
    for line in text.splitlines():
        key, sep, value = line.partition(" = ")
        if sep:
            out[key.strip()] = " ".join(value.split())
    return out


def of_namespace(tb, role: str) -> dict:
    """The sysctls and IPv4 routes of ``role``'s namespace in testbed ``tb``."""
    p = tb.sh(role, "sysctl", "-e", *SYSCTLS, check=False)
    routes = tb.sh(role, "ip", "-4", "route", "show", check=False)
    return {"sysctls": parse_sysctl(p.stdout), "routes": [r for r in routes.stdout.splitlines() if r.strip()]}


def record(tb, out: Path) -> dict:
    """Read the client's and server's settings once the testbed is built and write
    ``out/tcp_settings.json``; returns what it wrote."""
    doc = {"kernel": kernel(), "cubic": cubic(), "client": of_namespace(tb, "client"), "server": of_namespace(tb, "server"),
           "loadavg": list(os.getloadavg())}
    (out / "tcp_settings.json").write_text(json.dumps(doc, indent=2) + "\n")
    return doc
