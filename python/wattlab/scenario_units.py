"""Typed scenario quantities: a duration, a rate and a size held as the integers the scenario
loader stores (nanoseconds, bit/s, bytes), so that Python code that sets a scenario value
(``Job`` overrides, study points) passes a number with its unit instead of building a string.

``str(q)`` is the quantity as a scenario file writes it, exactly (``Duration.ms(2.5)`` →
``"2500us"``): :func:`wattlab.study.spec.toml_value`, the one function that turns Python values
into scenario TOML, renders it as that string.
"""

from __future__ import annotations

from dataclasses import dataclass


def _whole(x: float, scale: float) -> int:
    """``x`` × ``scale`` rounded to an integer, as the scenario loader rounds a quantity it reads
    (``"0.1234567s"`` is 123,456,700 ns)."""
    v = x * scale
    if v != v or v < 0:
        raise ValueError(f"a scenario quantity must be a finite number ≥ 0, not {x!r}")
    return round(v)


def _text(n: int, units: tuple[tuple[int, str], ...]) -> str:
    """``n`` in the largest of ``units`` (factor, name) that divides it exactly."""
    for factor, name in units:
        if n % factor == 0:
            return f"{n // factor}{name}"
    raise AssertionError("the last unit has factor 1")


@dataclass(frozen=True, order=True)
class Duration:
    """A duration in integer nanoseconds (the loader's resolution)."""

    ns: int

    @classmethod
    def s(cls, x: float) -> "Duration":
        """``x`` seconds."""
        return cls(_whole(x, 1e9))

    @classmethod
    def ms(cls, x: float) -> "Duration":
        """``x`` milliseconds."""
        return cls(_whole(x, 1e6))

    @classmethod
    def us(cls, x: float) -> "Duration":
        """``x`` microseconds."""
        return cls(_whole(x, 1e3))

    def __str__(self) -> str:
        return _text(self.ns, ((1_000_000_000, "s"), (1_000_000, "ms"), (1_000, "us"), (1, "ns")))


@dataclass(frozen=True, order=True)
class Rate:
    """A bit rate in integer bits per second."""

    bps: int

    @classmethod
    def kbps(cls, x: float) -> "Rate":
        """``x`` kbit/s."""
        return cls(_whole(x, 1e3))

    @classmethod
    def mbps(cls, x: float) -> "Rate":
        """``x`` Mbit/s."""
        return cls(_whole(x, 1e6))

    def __str__(self) -> str:
        return _text(self.bps, ((1_000_000_000, "Gbps"), (1_000_000, "Mbps"), (1_000, "kbps"), (1, "bps")))


@dataclass(frozen=True, order=True)
class Size:
    """A size in integer bytes."""

    bytes: int

    @classmethod
    def kb(cls, x: float) -> "Size":
        """``x`` kB (10^3 bytes)."""
        return cls(_whole(x, 1e3))

    @classmethod
    def mb(cls, x: float) -> "Size":
        """``x`` MB (10^6 bytes)."""
        return cls(_whole(x, 1e6))

    def __str__(self) -> str:
        return _text(self.bytes, ((1_000_000_000, "GB"), (1_000_000, "MB"), (1_000, "kB"), (1, "B")))


QUANTITIES = (Duration, Rate, Size)
"""The typed quantities :func:`wattlab.study.spec.toml_value` renders."""
