"""Equal work before a saving: what a run delivered against another run of the same scenario
and seed (its baseline), flow by flow.

A saving compares energy only where both runs did the same work (docs/scenario.md, "Savings
need the same work"):

- a flow that completed in the baseline (its work is its size: a download, a finite stream)
  must complete in the run with exactly the same application bytes and, for datagram flows,
  the same datagrams received;
- a flow the baseline did not complete (its work is set by the run's stop time: background
  flows, open-ended streams, a run cut by its time limit) must deliver the baseline's bytes and
  datagrams within :data:`TIME_BOUNDED_TOLERANCE`: a mode that holds data (a PSM buffer, a
  tunnel's inlet) moves what it holds at the stop past it.

Anything else is lost (or extra) work, reported as such, and no saving is computed."""

from __future__ import annotations

MB = 1_000_000
"""The MB of ``energy_j_per_mb``: 10^6 bytes of application payload delivered."""

TIME_BOUNDED_TOLERANCE = 1e-2
"""Relative difference of bytes and datagrams allowed for a flow that its baseline run did not
complete (1 %). A mode that holds data (a PSM or U-APSD buffer, a tunnel's inlet, BSD's sleep of
at most 0.9 s) moves what it holds at the stop time past it: a fixed amount, not a share of the
run (the shipped tunnel scenario: 0.05 % of each flow in 20 s, 0.1 % in 3 s). A loss the mode
causes all along (a full AP buffer, a radio asleep) is a share of the run and far larger; a
difference within 1 % changes a saving by less than 1 % of the energy those bytes cost."""


def compare_work(run: dict, base: dict) -> dict:
    """How the work of summary ``run`` differs from that of summary ``base`` (every flow of
    the runs): ``same_work`` (bool, by the rules above), ``lost_bytes`` (application bytes the
    baseline delivered and the run did not, summed over flows; negative if the run delivered
    more), ``lost_datagrams`` (the same for datagrams received by udp-cbr and ping flows; None
    without such flows) and ``flows_not_completed`` (names of flows the baseline completed and
    the run did not, comma separated; "" if none)."""
    base_flows = {f["name"]: f for f in base["flows"]}
    same = {f["name"] for f in run["flows"]} == set(base_flows)
    lost_bytes, lost_dgrams, have_dgrams, not_done = 0, 0, False, []
    for f in run["flows"]:
        b = base_flows.get(f["name"])
        if b is None:
            continue
        lost_bytes += int(b["bytes_delivered"]) - int(f["bytes_delivered"])
        d_run, d_base = f.get("datagrams_received"), b.get("datagrams_received")
        if d_run is not None or d_base is not None:
            have_dgrams = True
            lost_dgrams += int(d_base or 0) - int(d_run or 0)
        if b["completed"]:
            if not f["completed"]:
                not_done.append(f["name"])
            same &= bool(f["completed"]) and f["bytes_delivered"] == b["bytes_delivered"] and d_run == d_base
        else:
            same &= _close(f["bytes_delivered"], b["bytes_delivered"]) and _close(d_run or 0, d_base or 0)
    return {
        "same_work": bool(same),
        "lost_bytes": lost_bytes,
        "lost_datagrams": lost_dgrams if have_dgrams else None,
        "flows_not_completed": ", ".join(not_done),
    }


def _close(got: int, want: int) -> bool:
    """``got`` within :data:`TIME_BOUNDED_TOLERANCE` of ``want``."""
    return abs(int(got) - int(want)) <= TIME_BOUNDED_TOLERANCE * int(want)


def delivered_bytes(summary: dict, node: str) -> int:
    """Application bytes delivered by the flows with an end (sender or receiver) at ``node``:
    the work its radio carried."""
    return sum(int(f["bytes_delivered"]) for f in summary["flows"] if node in (f.get("sender"), f.get("receiver")))


def joules_per_mb(energy_j: float, delivered: int) -> float | None:
    """Energy per MB (10^6 bytes) delivered; None when nothing was."""
    return energy_j / (delivered / MB) if delivered > 0 else None


def describe_loss(diff: dict) -> str:
    """What differs, in words: "lost 2.79 MB; lost 2,723 datagrams; not completed: stream"."""
    parts = []
    b, d = diff["lost_bytes"], diff.get("lost_datagrams") or 0
    if b:
        parts.append(f"lost {b / MB:.6g} MB" if b > 0 else f"{-b / MB:.6g} MB more delivered")
    if d:
        parts.append(f"lost {d:,} datagrams" if d > 0 else f"{-d:,} datagrams more")
    if diff["flows_not_completed"]:
        parts.append(f"not completed: {diff['flows_not_completed']}")
    return "; ".join(parts) or "flows completed differently"
