"""A reproduction's scenarios: a base TOML file in its package (``yan_cc/download.toml``) read
once, and typed overrides (``("flow.0.bytes", 1_000_000)``, ``("link.internet.delay",
Duration.ms(30))``) that the study engine renders with ``wattlab.study.spec.toml_value`` and
hands to ``wattlab.run`` — no scenario text is built from f-strings.

An override replaces one value at a dotted path (an array element by index or by ``name``). A
list that grows with the configuration (n competing clients, n flows) is set whole: the base's
entries first (:meth:`Base.extended`), then the new ones as dicts.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cached_property
from importlib import resources
from typing import Any, Iterable, Mapping

from .runner import Job

Overrides = tuple[tuple[str, Any], ...]
"""Typed overrides in the order they apply."""


@dataclass(frozen=True)
class Base:
    """A base scenario: the TOML file ``name`` of the package ``package`` (``__package__`` of a
    reproduction's module)."""

    package: str
    name: str

    @cached_property
    def text(self) -> str:
        """The file's text, as every job of this base runs it (with its overrides)."""
        return resources.files(self.package).joinpath(self.name).read_text(encoding="utf-8")

    @cached_property
    def table(self) -> dict:
        """The file parsed (for :meth:`extended`; never written back)."""
        return tomllib.loads(self.text)

    def extended(self, key: str, items: Iterable[Mapping[str, Any]]) -> tuple[str, list]:
        """The override that sets the array ``key`` to the base's entries followed by ``items``."""
        return key, [*self.table.get(key, []), *items]

    def job(self, seed: int, labels: Mapping[str, Any], overrides: Iterable[tuple[str, Any]] = (),
            timeseries: bool = False) -> Job:
        """One run of this base with ``overrides``."""
        return Job(self.text, seed, dict(labels), timeseries, tuple(overrides))

    def run(self, seed: int | None = None, overrides: Iterable[tuple[str, Any]] = (), **kw):
        """``wattlab.run`` of this base with ``overrides``, here (for a single point)."""
        import wattlab

        return wattlab.run(text=self.text, seed=seed, overrides=strings(overrides), **kw)

    def effective(self, overrides: Iterable[tuple[str, Any]] = ()) -> dict:
        """The scenario as it runs with ``overrides``, parsed (what a test inspects)."""
        from wattlab import _core

        return tomllib.loads(_core.effective_scenario(self.text, self.name, overrides=strings(overrides)))


def strings(overrides: Iterable[tuple[str, Any]]) -> list[str]:
    """Typed overrides as ``key=value`` strings, as the study engine passes them to ``wattlab.run``."""
    from wattlab.study.points import RunPoint

    return RunPoint("", 0, tuple(overrides)).override_strings()


def base(package: str, name: str) -> Base:
    """The base scenario ``name`` of ``package``, read once per process."""
    return _bases.setdefault((package, name), Base(package, name))


_bases: dict[tuple[str, str], Base] = {}
