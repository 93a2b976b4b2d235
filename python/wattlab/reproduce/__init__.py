"""Reproductions of the seed papers' experiments, one package per paper, each a
``framework.Reproduction`` (``REPRODUCTION`` in its ``reproduction`` module; its ``config``
module holds the ``Config`` presets and the command's options).

:data:`REGISTRY` lists them: the ``wattlab reproduce`` command, its help, every name and alias
and every option are generated from it (``wattlab.cli_reproduce``). Adding a reproduction is a
package with its ``Reproduction`` and one :class:`Entry` here (docs/reproductions.md, "Adding a
reproduction").
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module


@dataclass(frozen=True)
class Entry:
    """One reproduction as the CLI lists it (no import of its package until it is run)."""

    name: str
    """The command's name: first author and year, or the scheme (docs/reproductions.md)."""
    module: str
    """Its package under ``wattlab.reproduce``."""
    summary: str
    """One line for ``wattlab reproduce --help``."""
    aliases: tuple[str, ...] = ()
    """Other names of the same command, each listed in the help."""

    def load(self):
        """The package's ``Reproduction`` (its ``reproduction`` module imports the pipeline)."""
        return import_module(f"{__name__}.{self.module}.reproduction").REPRODUCTION

    def config(self):
        """The package's ``config`` module: ``Config`` and ``COMMAND`` (light: for the CLI)."""
        return import_module(f"{__name__}.{self.module}.config")


REGISTRY = (
    Entry("hashimoto2013", "hashimoto2013", "Paper 002 Ch. 2–3 (Hashimoto 2013): fairness, ACK timing, energy model."),
    Entry("hashimoto2013-tunnel", "hashimoto2013_tunnel",
          "Paper 002 Ch. 4 (Hashimoto 2013): the SCTP tunnel, model and simulator."),
    Entry("kontogiannis2005", "kontogiannis2005", "Paper 003 (Kontogiannis et al. 2005): TCP variants' 3E under errors."),
    Entry("modern-phone", "modern_phone",
          "Issue 30: the seeds' schemes against adaptive PSM and TWT on a phone, 5 workloads, 802.11a/ax."),
    Entry("psna", "anastasi_psna", "Paper 001 (Anastasi et al.): PSNA vs legacy TCP, PSM and the CC agent."),
    Entry("tsaoussidis1999-wwp", "tsaoussidis1999_wwp", "Paper 004 (Tsaoussidis et al. 1999): WWP vs TCP Tahoe, Table 1.",
          aliases=("wwp",)),
    Entry("yan-cc", "yan_cc", "Paper 000 (Yan et al.): client-centered energy saving vs TCP, PSM, BSD."),
)
"""Every reproduction."""

BY_NAME = {n: e for e in REGISTRY for n in (e.name, *e.aliases)}
"""Every accepted name (aliases included) → its entry."""

REPRODUCTIONS = {n: (e.summary if n == e.name else f"Alias of {e.name}.") for n, e in BY_NAME.items()}
"""Every accepted name → its one-line description."""
