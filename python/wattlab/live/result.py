"""What every live run's result shares: the costed capture, where the files are, how long the
run took, and how it differs from the simulator and the scenario (:class:`LiveRunInfo`); and
what a run with the cc agent or none shares (:class:`AgentRunMixin`: the download's and the
web session's). The kind's own result (:class:`wattlab.live.runner.LiveResult`, ``WebLiveResult``,
``PsnaLiveResult``, ``WwpLiveResult``) adds its processes' reports and its summary."""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from wattlab.live.radio_table import radio_table


@dataclass(kw_only=True)
class LiveRunInfo(ABC):
    """The fields every live run's result ends with (keyword-only, after the kind's own)."""

    energy: object | None
    """:class:`wattlab.trace.TraceEnergy` of the client's capture (None where it could not be
    costed: a WWP or PSNA run keeps its reports then; a download or web run fails instead)."""
    out_dir: Path
    """Where the capture, reports, logs and tables are."""
    wall_time_s: float = 0.0
    """Wall-clock time of the whole run (setup, transfer, analysis)."""
    notes: list[str] = field(default_factory=list)
    """What the live run does differently from the simulator."""
    warnings: list[str] = field(default_factory=list)
    """What makes this run differ from the scenario (e.g. a ``--sysctl`` replacing a testbed setting)."""

    @abstractmethod
    def summary(self) -> dict:
        """The run as one JSON-able dict (written as ``summary.json``); each kind defines it."""

    def summary_tail(self, **between) -> dict:
        """The last keys of :meth:`summary`, in this order: ``energy`` (the costing's summary, or
        None), then ``between`` (e.g. ``host_late_max_ms``), ``wall_time_s``, ``notes``, ``warnings``."""
        return {
            "energy": self.energy.summary() if self.energy is not None else None,
            **between,
            "wall_time_s": self.wall_time_s,
            "notes": self.notes,
            "warnings": self.warnings,
        }

    def write_summary(self) -> None:
        """Write :meth:`summary` to ``out_dir/summary.json``."""
        (self.out_dir / "summary.json").write_text(json.dumps(self.summary(), indent=2, default=str) + "\n")


class AgentRunMixin:
    """Properties of a run whose client's radio is always on or follows the cc agent (a download,
    a web session): it has ``plan`` (with ``policy`` and ``client``), ``emulator``, ``agent``
    (the agent host's report, None without the agent) and ``energy``."""

    plan: dict
    emulator: dict
    agent: dict | None
    energy: object
    window_energy: object
    """:class:`wattlab.trace.TraceEnergy` of the capture cut to the kind's ``window_ns`` (the
    span the simulator meters), or None where no window was costed."""

    @property
    def policy_label(self) -> str:
        """Label of the run's own policy in ``energy``: ``replay`` for cc and psm."""
        return "always-on" if self.plan["policy"] == "always-on" else "replay"

    def _own(self, energy) -> pd.Series:
        """The row of the run's own policy in ``energy``'s table."""
        e = energy.energy
        return e[e.policy == self.policy_label].iloc[0]

    @property
    def energy_j(self) -> float:
        """Energy of the client's radio under the run's own policy over the window (J; the
        whole capture's when no window was costed): what a comparison with the simulator judges."""
        return float(self._own(self.window_energy or self.energy).energy_j)

    @property
    def sleep_s(self) -> float:
        """Time asleep under the run's own policy over the window (s; the whole capture's when
        no window was costed)."""
        return float(self._own(self.window_energy or self.energy).time_sleep_s)

    @property
    def capture_energy_j(self) -> float:
        """Energy under the run's own policy over the whole capture (J): the window plus what
        the capture holds around it (the close after the last byte, its resent FINs)."""
        return float(self._own(self.energy).energy_j)

    @property
    def host_late_max_ms(self) -> float:
        """The testbed's worst timing error (ms): the latest emulator verdict or agent timer
        behind the model's time. Milliseconds here mean the run was disturbed (the machine was
        busy or the VM stalled) and its packets met delays the scenario does not have."""
        late = self.emulator["host"]["late_max_us"]
        if self.agent:
            late = max(late, self.agent["host"]["timer_late_max_us"])
        return late / 1e3

    def radios(self) -> pd.DataFrame:
        """The energy table in the layout of ``wattlab run``'s radios (node, profile, policy...),
        the replayed schedule named after the run's policy."""
        return radio_table(self.energy, self.plan["client"], self.plan["policy"])
