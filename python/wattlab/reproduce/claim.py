"""The record of one claim of a seed paper and wattlab's verdict on it, shared by the
reproductions whose claims are judged against a paper's text (``claims.Claim`` in each)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Claim:
    """One claim of the paper (or of the issue's target) and wattlab's verdict on it."""

    id: str
    paper: str
    test: str
    verdict: str
    evidence: str
