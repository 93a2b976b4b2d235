"""Closed-form models that wattlab's simulations are validated against."""

from wattlab.models.tcp_throughput import mathis_throughput, padhye_throughput

__all__ = ["mathis_throughput", "padhye_throughput"]
