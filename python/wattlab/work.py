"""Equal work before a saving: what a run delivered against another run of the same scenario
and seed (its baseline), flow by flow. The rules and the arithmetic are the core's
(``wattlab_sim::savings``, docs/scenario.md, "Savings need the same work"); this module hands
summaries (dicts as in summary.json) to it:

- a flow that completed in the baseline (its work is its size: a download, a finite stream)
  must complete in the run with exactly the same application bytes and, for datagram flows,
  the same datagrams received;
- a flow the baseline did not complete (its work is set by the run's stop time: background
  flows, open-ended streams, a run cut by its time limit) must deliver the baseline's bytes and
  datagrams within :data:`TIME_BOUNDED_TOLERANCE`: a mode that holds data (a PSM buffer, a
  tunnel's inlet) moves what it holds at the stop past it.

Anything else is lost (or extra) work, reported as such, and no saving is computed."""

from __future__ import annotations

from wattlab import _core

MB = 1_000_000
"""The MB of ``energy_j_per_mb``: 10^6 bytes of application payload delivered."""

TIME_BOUNDED_TOLERANCE: float = _core.TIME_BOUNDED_TOLERANCE
"""Relative difference of bytes and datagrams allowed for a flow that its baseline run did not
complete (1 %; why: ``wattlab_sim::savings::TIME_BOUNDED_TOLERANCE``)."""


def compare_work(run: dict, base: dict) -> dict:
    """How the work of summary ``run`` differs from that of summary ``base`` (every flow of
    the runs): ``same_work`` (bool, by the rules above), ``lost_bytes`` (application bytes the
    baseline delivered and the run did not, summed over flows; negative if the run delivered
    more), ``lost_datagrams`` (the same for datagrams received by udp-cbr and ping flows; None
    without such flows) and ``flows_not_completed`` (names of flows the baseline completed and
    the run did not, comma separated; "" if none)."""
    return _core.compare_work(run, base)


def delivered_bytes(summary: dict, node: str) -> int:
    """Application bytes delivered by the flows with an end (sender or receiver) at ``node``:
    the work its radio carried."""
    return _core.delivered_bytes(summary, node)


def joules_per_mb(energy_j: float, delivered: int) -> float | None:
    """Energy per MB (10^6 bytes) delivered; None when nothing was."""
    return _core.joules_per_mb(energy_j, delivered)


def describe_loss(diff: dict) -> str:
    """What differs, in words: "lost 2.79 MB; lost 2,723 datagrams; not completed: stream"."""
    return _core.describe_loss(diff)


def compare_runs(run: dict, first: dict) -> dict:
    """Summary ``run`` against summary ``first`` (``run --compare``'s rule): ``diff`` (as
    :func:`compare_work`), ``nodes`` (per radio node: node, energy_j (its power mode's meter, or
    always-on's), energy_j_per_mb, saving against ``first``'s, None unless the same work was
    done), ``completion_s`` and ``slowdown``."""
    return _core.compare_runs(run, first)
