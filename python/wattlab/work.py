"""Equal work before a saving: what a run delivered against another run of the same scenario
and seed (its baseline), flow by flow.

A saving compares energy only where both runs did the same work: every flow delivered exactly
the same application bytes (and, for datagram flows, the same datagrams) and completed in one
run exactly when it completed in the other. Anything else is lost (or extra) work, reported as
such, and no saving is computed (docs/scenario.md, "Savings need the same work")."""

from __future__ import annotations

MB = 1_000_000
"""The MB of ``energy_j_per_mb``: 10^6 bytes of application payload delivered."""


def compare_work(run: dict, base: dict) -> dict:
    """How the work of summary ``run`` differs from that of summary ``base`` (every flow of
    the runs): ``same_work`` (bool), ``lost_bytes`` (application bytes the baseline delivered
    and the run did not; negative if the run delivered more), ``lost_datagrams`` (the same for
    datagrams received by udp-cbr and ping flows; None without such flows) and
    ``flows_not_completed`` (names of flows the baseline completed and the run did not, comma
    separated; "" if none)."""
    base_flows = {f["name"]: f for f in base["flows"]}
    run_names = {f["name"] for f in run["flows"]}
    same = run_names == set(base_flows)
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
        if b["completed"] and not f["completed"]:
            not_done.append(f["name"])
        same &= (f["bytes_delivered"] == b["bytes_delivered"] and d_run == d_base
                 and bool(f["completed"]) == bool(b["completed"]))
    return {
        "same_work": bool(same),
        "lost_bytes": lost_bytes,
        "lost_datagrams": lost_dgrams if have_dgrams else None,
        "flows_not_completed": ", ".join(not_done),
    }


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
