"""The live testbed: a scenario's download on real Linux TCP between network namespaces.

``client ⇄ [veth] ⇄ ap ⇄ [veth] ⇄ server``: the ``ap`` namespace forwards through wattlab's
userspace link/AP emulator (NFQUEUE), the server and client are real Linux TCP sockets, the
client-centered agent (``policy="cc"``) shapes them from the client's NFQUEUE, and the client's
interface is captured and costed by the trace analyzer. A scenario whose flow is ``wwp-bulk``
runs paper 004's Wave & Wait Protocol instead, on UDP sockets (:mod:`wattlab.live.wwp`); one whose
flow is ``psna-read``/``psna-send`` runs paper 001's PSNA daemon and mobile (:mod:`wattlab.live.psna`). See
``docs/live.md``.
"""

from wattlab.live.netns import LiveError, LiveInputError, LiveTimeLimit, cleanup, in_progress, remove_payload_dirs, require_root
from wattlab.live.runner import LiveResult, compare, run
from wattlab.live.psna import PsnaLiveResult
from wattlab.live.wwp import WwpLiveResult

__all__ = [
    "LiveError", "LiveInputError", "LiveResult", "LiveTimeLimit", "cleanup", "compare", "in_progress",
    "remove_payload_dirs", "require_root", "run", "PsnaLiveResult", "WwpLiveResult",
]
