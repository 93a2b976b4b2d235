//! The sans-IO path model (rate, queue, loss, delay and jitter, half-duplex hop, idealised PSM).
