"""Closed-form models that wattlab's simulations are validated against.

- :mod:`wattlab.models.tcp_throughput`: Mathis and Padhye steady-state TCP throughput;
- :mod:`wattlab.models.wlan`: Bianchi's DCF saturation model and the 802.11 TCP capacity;
- :mod:`wattlab.models.tcp_energy`: paper 002 Ch. 3, the energy of one TCP transfer over
  802.11a with and without sleep and burst transmission (docs/models.md);
- :mod:`wattlab.models.sctp_tunnel`: paper 002 Ch. 4, the WNI power of a client whose TCP flows
  share one SCTP tunnel to the AP, with bursts of m (docs/models.md);
- :mod:`wattlab.models.twt`: 802.11ax Target Wake Time, a station's energy and doze fraction
  against its wake interval and duration (docs/models.md, docs/validation.md).
"""

from wattlab.models.tcp_throughput import mathis_throughput, padhye_throughput

__all__ = ["mathis_throughput", "padhye_throughput"]
