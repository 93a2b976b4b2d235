"""Which of paper 003's TCP variants this kernel can run live, and the kernel's provenance.

Linux has one congestion-control module per algorithm (``net.ipv4.tcp_congestion_control``,
set per socket with ``TCP_CONGESTION``); its loss recovery (NewReno's without SACK, RFC 6675's
and RACK-TLP's with it, PRR, F-RTO) is the stack's, shared by every module. So a paper variant
is a (module, SACK) pair here, and Tahoe and ns-2's Reno have none (:data:`NOT_LIVE`).

:func:`availability` tries what a kernel allows: the module in
``tcp_available_congestion_control``; else ``TCP_CONGESTION`` on a throwaway socket (the kernel
loads a module on demand for a process with ``CAP_NET_ADMIN`` when it can); else ``modprobe
tcp_<module>`` if there is a modprobe and a module tree; and otherwise it says exactly why not.
"""

from __future__ import annotations

import os
import platform
import shutil
import socket
import subprocess
from dataclasses import dataclass
from pathlib import Path

PROC = Path("/proc/sys/net/ipv4")
"""Where the kernel's TCP sysctls are (a test points it elsewhere)."""


@dataclass(frozen=True)
class LiveVariant:
    """A paper variant as Linux runs it."""

    module: str
    """Linux congestion-control module (``TCP_CONGESTION``)."""
    sack: bool
    """SACK negotiated (``net.ipv4.tcp_sack`` in both namespaces; the scenario's ``tcp.sack``)."""
    linux: str
    """What Linux does with it, against ns-2's agent of that name."""


LIVE_VARIANTS: dict[str, LiveVariant] = {
    "newreno": LiveVariant("reno", False, "Linux `reno` without SACK: AIMD, NewReno recovery (RFC 6582, partial ACKs keep it in "
                           "recovery), PRR (RFC 6937) sets the window during recovery, F-RTO (RFC 5682) after timeouts"),
    "sack": LiveVariant("reno", True, "Linux `reno` with SACK: the same AIMD, recovery from the SACK scoreboard (RFC 6675-like), "
                        "RACK-TLP loss detection (RFC 8985) and tail-loss probes, PRR, D-SACK undo"),
    "vegas": LiveVariant("vegas", False, "Linux `vegas` (tcp_vegas.c): Vegas's α/β/γ delay rule over Reno's loss response; "
                         "no fine-grained retransmission timer of its own (ns-2's Vegas checks the head on every dup ACK)"),
    "westwood": LiveVariant("westwood", False, "Linux `westwood` (Westwood+, tcp_westwood.c): bandwidth estimate per RTT, "
                            "ssthresh = BWE·RTTmin after a loss; ns-2's Westwood filters per ACK"),
    "cubic": LiveVariant("cubic", False, "Linux `cubic` (RFC 9438, with HyStart): Linux's default since 2.6.19, not in the paper; "
                         "run because it is what a phone's kernel uses"),
}
"""The variants a live run can ask for, in order: the paper's four with a Linux counterpart, and CUBIC."""

NOT_LIVE: dict[str, str] = {
    "tahoe": "Linux has no Tahoe module (no congestion control returns to a window of 1 on a triple duplicate ACK)",
    "reno": "ns-2's Reno (leaves recovery on the first new ACK, so several losses in a window end in a timeout) has no "
            "Linux counterpart: Linux's `reno` module without SACK recovers as NewReno, which is the live `newreno` row",
}
"""The paper's variants that cannot run live on any Linux, with the reason."""


def sysctl(name: str) -> str | None:
    """``net.ipv4.NAME`` as the kernel reports it, or None where it does not exist."""
    try:
        return (PROC / name).read_text().strip()
    except OSError:
        return None


def available_modules() -> list[str]:
    """``net.ipv4.tcp_available_congestion_control``."""
    return (sysctl("tcp_available_congestion_control") or "").split()


def _try_socket(module: str) -> str | None:
    """``TCP_CONGESTION`` = ``module`` on an unbound socket (no traffic): None if the kernel took
    it, else its error."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, module.encode())
    except OSError as e:
        return f"setsockopt(TCP_CONGESTION, {module}) failed: {os.strerror(e.errno) if e.errno else e}"
    return None


def _try_modprobe(module: str) -> str | None:
    """``modprobe tcp_<module>``: None if it loaded, else why not."""
    exe = shutil.which("modprobe")
    tree = Path("/lib/modules") / platform.release()
    if exe is None:
        return "no modprobe on this system"
    if not tree.is_dir():
        return f"{tree} does not exist (a kernel without loadable modules, e.g. a VM's built-in kernel)"
    try:
        r = subprocess.run([exe, f"tcp_{module}"], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"modprobe tcp_{module}: {e}"
    if r.returncode != 0:
        return f"modprobe tcp_{module} failed: {(r.stderr or r.stdout).strip() or f'exit {r.returncode}'}"
    return None


def availability(variant: str, load: bool = True) -> str | None:
    """None when ``variant`` can run live on this kernel, else the exact reason it cannot.
    With ``load`` it tries to get the module (per socket, then modprobe) when it is not
    listed as available."""
    if variant in NOT_LIVE:
        return NOT_LIVE[variant]
    if variant not in LIVE_VARIANTS:
        raise ValueError(f"unknown live variant {variant!r} (valid: {', '.join(LIVE_VARIANTS)})")
    module = LIVE_VARIANTS[variant].module
    have = available_modules()
    if module in have:
        return None
    if not load:
        return f"`{module}` is not in this kernel's tcp_available_congestion_control ({' '.join(have) or 'empty'})"
    sock = _try_socket(module)
    if sock is None and module in available_modules():
        return None
    probe = _try_modprobe(module)
    if probe is None and module in available_modules():
        return None
    return (f"`{module}` is not in this kernel's tcp_available_congestion_control ({' '.join(have) or 'empty'}); "
            f"{sock or 'TCP_CONGESTION took it but the module is still not listed'}; "
            f"{probe or 'modprobe ran but the module is still not listed'}")


PROVENANCE_SYSCTLS = ("tcp_available_congestion_control", "tcp_allowed_congestion_control", "tcp_congestion_control",
                      "tcp_sack", "tcp_dsack", "tcp_recovery", "tcp_early_retrans", "tcp_frto", "tcp_timestamps",
                      "tcp_window_scaling", "tcp_no_metrics_save", "tcp_min_rtt_wlen", "tcp_thin_linear_timeouts")
"""The host's TCP settings recorded with a live run (the namespaces get the run's own; a new
namespace starts from the kernel's defaults for the per-namespace ones)."""


def provenance() -> dict:
    """Kernel release and version, the host's TCP sysctls, CPUs and the load average now."""
    return {
        "kernel_release": platform.release(),
        "kernel_version": platform.version(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "loadavg_1_5_15": list(os.getloadavg()),
        "sysctls": {f"net.ipv4.{k}": sysctl(k) for k in PROVENANCE_SYSCTLS},
    }
