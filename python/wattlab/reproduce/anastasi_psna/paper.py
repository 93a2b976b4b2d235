"""The paper's Tables 1–2 (notes/001.md §4.4–4.5), exactly as printed."""

from __future__ import annotations

TABLE = {
    # (transfer, arch): lifetime s, battery consumption s, delivered KB, Kbps, transfer length s
    ("A", "legacy"): (10005, 1515, 25446, 19.87, 10005),
    ("A", "psna"): (11501, 19, 25446, 1525.48, 130),
    ("B", "legacy"): (10153, 1367, 2519, 1.82, 10153),
    ("B", "psna"): (11512, 8, 2519, 1525.48, 13),
}
GAIN = {"A": 79.74, "B": 170.88}
"""Index ratios PSNA / legacy (the paper: "about 80 and 171 times")."""
REDUCTION = {"A": 98.75, "B": 99.41}
"""Card battery consumption cut, % (the paper: "more than 98 %")."""


def row(transfer: str, arch: str) -> dict | None:
    v = TABLE.get((transfer, arch))
    if v is None:
        return None
    life, bs, kb, kbps, length = v
    return {"lifetime_s": life, "battery_s": bs, "kb": kb, "kbps": kbps, "transfer_length_s": length, "power_saving_index": kb / bs}
