"""Seed 002 (Hashimoto, PhD thesis, Osaka University, 2013): the simulator counterparts of its
Ch. 2 (fairness) and Ch. 3 (energy model) experiments. `wattlab reproduce hashimoto2013` is
not built yet; see docs/status.md."""
