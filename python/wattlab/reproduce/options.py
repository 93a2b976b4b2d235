"""The light parts of the reproduction contract, imported by every ``config.py`` and by the CLI
before any reproduction runs (nothing here imports pandas): a reproduction's own command-line
options, its command's help, and what every ``Config`` shares."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Callable


@dataclass(frozen=True)
class Option:
    """One of a reproduction's own command-line options: it sets ``field`` of the ``Config``
    (through ``convert`` if given) when the user gives it; otherwise the preset's value stays."""

    flags: tuple[str, ...]
    """The option's names (``("--variant",)``; ``("--simulate/--no-simulate",)`` for a switch)."""
    field: str | None
    """The ``Config`` field it sets (None: only ``Reproduction.configure`` reads it)."""
    help: str
    type: Any = None
    """A click type (``click.IntRange(1, 100)``, ``click.Choice([...])``) or a Python type."""
    multiple: bool = False
    """Repeatable: the field gets the list of values (left alone when none is given)."""
    metavar: str | None = None
    default: Any = None
    """A default shown in ``--help``, set even when the option is not given (None: the preset's)."""
    convert: Callable[[Any], Any] | None = None
    """Turns the option's value into the field's (``str.lower`` for names)."""
    dest: str | None = None
    """The parameter's name when it is not the first flag's (``--variant`` → ``variants``)."""


@dataclass(frozen=True)
class Command:
    """How ``wattlab reproduce NAME`` presents a reproduction: its help and its own options
    (the CLI adds --out, --quick, --seed, --jobs, --scheduler, --max-runs, --overwrite, --json)."""

    help: str
    """The command's help (its first sentence names the paper)."""
    quick: str
    """What ``--quick`` runs."""
    out: str = "Directory for the CSV files, figures and summary.md."
    seed: str = "First seed."
    """``--seed``'s help."""
    seed_field: str = "base_seed"
    """The ``Config`` field ``--seed`` sets."""
    options: tuple[Option, ...] = ()
    """Its own options, in the order of the help."""
    written: str = "summary.md, figures, CSV"
    """What the closing note says it wrote."""


class ConfigBase:
    """What every reproduction's ``Config`` dataclass shares (each adds its fields, ``full()``,
    ``quick_preset()`` and ``check()``)."""

    def as_dict(self) -> dict:
        """Every field as a plain dict (config.json)."""
        return asdict(self)

    def seed_list(self) -> list[int]:
        """Seeds ``base_seed`` … ``base_seed + seeds − 1``."""
        return list(range(self.base_seed, self.base_seed + self.seeds))
