"""Reproduction of seed 004 (Tsaoussidis, Badr & Verma, ICNP 1999): the Wave & Wait Protocol
against TCP Tahoe under VDROP and VDELAY, Table 1."""
