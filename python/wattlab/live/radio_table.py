"""The client's energy table of a live run in the layout of ``wattlab run``'s radios."""

from __future__ import annotations

import pandas as pd


def radio_table(energy, client: str, replay_as: str | None = None) -> pd.DataFrame:
    """``energy`` (a :class:`wattlab.trace.TraceEnergy` of the client's capture) as ``wattlab
    run``'s radio table: node, profile, and ``basis`` (``accounting`` for a policy costing the
    capture as it happened, ``mode`` for the power mode the run used); the replayed schedule,
    which is what the radio did in this run, is named ``replay_as`` (e.g. ``cc``, ``psna``)."""
    from wattlab import _core

    df = energy.energy.copy()
    accounting = set(_core.accounting_policies())
    df.insert(3, "basis", ["accounting" if n in accounting else "mode" for n in df.name])
    if replay_as is not None:
        df["policy"] = df.policy.replace({"replay": replay_as})
    df.insert(0, "node", client)
    df.insert(1, "profile", energy.profile.get("name", ""))
    return df
