"""Paper 004's Table 1 ("TCP and WWP test results") as published, its derived columns, and the
table's own inconsistencies (notes/004.md §14), so that a reproduction can sit beside it and
report, rather than hide, what in the paper does not add up."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TestSet:
    """One of Table 1's seven impairment settings."""

    number: int
    """Set number (1–7), the integer part of the paper's test numbers."""
    vdelay_ms: int
    """VDELAY bound D: each segment delayed by U[0, D] ms."""
    vdrop_every: int
    """VDROP drops every n-th segment while on (20 % = 5, 33.33 % = 3, 5 % = 20)."""
    phase_s: float | None
    """Length of VDROP's equal on and off phases; None = on throughout ("Always")."""

    @property
    def label(self) -> str:
        """The paper's conditions in words, e.g. "50 ms, 20 %, 10 s on/off"."""
        rate = {5: "20 %", 3: "33.33 %", 20: "5 %"}[self.vdrop_every]
        phase = "always" if self.phase_s is None else f"{self.phase_s:g} s on/off"
        return f"{self.vdelay_ms} ms, {rate}, {phase}"


SETS = (
    TestSet(1, 50, 5, 10.0),
    TestSet(2, 50, 5, 2.0),
    TestSet(3, 50, 5, None),
    TestSet(4, 50, 3, 10.0),
    TestSet(5, 50, 3, 2.0),
    TestSet(6, 0, 20, None),
    TestSet(7, 0, 20, 2.0),
)
"""Table 1's settings, in its order."""


@dataclass(frozen=True)
class Row:
    """One published row of Table 1 (bytes in a one-minute snapshot)."""

    test: str
    """Test number as printed ("1.1" … "7.2")."""
    protocol: str
    """"tcp" (Tahoe) or "wwp"."""
    original_data: int
    """Bytes delivered to the receiving application."""
    receiver_overhead: int
    """Bytes the receiver's transport sent (ACKs, N-S_ACKs, probes' answers, handshake)."""
    sender_bytes: int
    """Bytes the sender's transport sent, headers and retransmissions included."""
    effort_overhead: float
    """Effort overhead as printed (its Total column is blank in the paper)."""

    @property
    def set(self) -> TestSet:
        """The row's impairment setting."""
        return SETS[int(self.test.split(".")[0]) - 1]

    @property
    def total(self) -> int:
        """Total = sender bytes + receiver overhead (the paper's blank column, derived)."""
        return self.sender_bytes + self.receiver_overhead

    @property
    def effort_overhead_recomputed(self) -> float:
        """(Total − Original data) / Original data, from the printed columns."""
        return effort_overhead(self.original_data, self.sender_bytes, self.receiver_overhead)


def effort_overhead(original_data: float, sender_bytes: float, receiver_overhead: float) -> float:
    """Paper 004's effort overhead: bytes both transports sent beyond the data delivered, per
    byte delivered."""
    return (sender_bytes + receiver_overhead - original_data) / original_data


TABLE_1 = (
    Row("1.1", "tcp", 881_996, 15_928, 936_202, 0.08),
    Row("1.2", "wwp", 6_387_712, 1_617, 6_507_656, 0.019),
    Row("2.1", "tcp", 811_096, 14_828, 861_428, 0.08),
    Row("2.2", "wwp", 5_551_104, 1_662, 5_803_805, 0.046),
    Row("3.1", "tcp", 333_230, 6_068, 425_712, 0.296),
    Row("3.2", "wwp", 143_360, 590, 185_645, 0.299),
    Row("4.1", "tcp", 506_226, 9_128, 530_686, 0.066),
    Row("4.2", "wwp", 5_408_768, 1_459, 5_556_645, 0.028),
    Row("5.1", "tcp", 479_284, 8_628, 530_686, 0.125),
    Row("5.2", "wwp", 5_581_824, 1_789, 5_816_213, 0.042),
    Row("6.1", "tcp", 1_024_200, 14_908, 1_093_168, 0.081),
    Row("6.2", "wwp", 1_119_232, 763, 1_185_978, 0.060),
    Row("7.1", "tcp", 1_024_000, 14_628, 1_044_276, 0.034),
    Row("7.2", "wwp", 23_012_352, 4_694, 23_189_859, 0.007),
)
"""Table 1 verbatim (notes/004.md §14)."""


def row(set_number: int, protocol: str) -> Row:
    """The published row of a set and protocol."""
    return next(r for r in TABLE_1 if r.set.number == set_number and r.protocol == protocol)


def ratios(set_number: int) -> dict[str, float]:
    """The paper's WWP/TCP ratios of one set (original data, sender bytes, receiver overhead)
    and TCP/WWP of effort overhead (recomputed from the columns)."""
    t, w = row(set_number, "tcp"), row(set_number, "wwp")
    return {
        "original_data": w.original_data / t.original_data,
        "sender_bytes": w.sender_bytes / t.sender_bytes,
        "receiver_overhead": w.receiver_overhead / t.receiver_overhead,
        "effort_overhead_tcp_over_wwp": t.effort_overhead_recomputed / w.effort_overhead_recomputed,
    }


def inconsistencies() -> list[str]:
    """What in the published table does not add up, each computed from its numbers."""
    out = []
    t41, t51 = row(4, "tcp"), row(5, "tcp")
    if t41.sender_bytes == t51.sender_bytes:
        out.append(
            f"TCP sender bytes are identical in 4.1 and 5.1 ({t41.sender_bytes:,}) although their "
            f"original data differ ({t41.original_data:,} vs {t51.original_data:,}): probably a copying error."
        )
    for n in (6, 7):
        t = row(n, "tcp")
        if abs(t.original_data - 1_024_000) > 0.001 * 1_024_000:
            continue
        out.append(
            f"TCP in set {n} delivers {t.original_data:,} B in one minute, within 0.02 % of 1,024,000 "
            f"(= 1000 × 1024 B): it looks capped by a 1000-message test rather than by the network."
        )
    ratio_max = max(ratios(n)["original_data"] for n in (1, 2, 4, 5, 7))
    out.append(
        f"the text says WWP delivers \"up to 5 times\" and elsewhere \"6–10 times\" TCP's data; the table's "
        f"ratios reach {ratio_max:.1f}× (set 7)."
    )
    worst = max(TABLE_1, key=lambda r: abs(r.effort_overhead_recomputed - r.effort_overhead))
    out.append(
        f"printed effort overheads are rounded inconsistently (largest gap: {worst.test} prints "
        f"{worst.effort_overhead} for {worst.effort_overhead_recomputed:.4f})."
    )
    return out
