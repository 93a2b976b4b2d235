"""The study's five workloads as the phone's flows (typed dicts for the base's ``flow`` array)
and how each one's delay is read from a run: completion time for the transfers, page-load time
for the web, one-way datagram delay for the streams."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from wattlab.scenario_units import Duration, Rate

from .config import Config

PHONE, SERVER = "phone", "server"
"""The phone (the measured station) and the server every workload talks to."""

DELAY_METRIC = {
    "bulk": "download completion time",
    "web": "page-load time (HTML requested to last object in)",
    "video": "one-way datagram delay",
    "voip": "one-way datagram delay, worse direction",
    "sync": "time per sync download (request to last byte)",
}
"""What a workload's delay columns (``delay_p50_ms``, ``delay_p99_ms``) measure."""

ENERGY_METRIC = {"bulk": "j_per_mb", "web": "energy_per_hour_j", "video": "energy_per_hour_j",
                 "voip": "energy_per_hour_j", "sync": "energy_per_hour_j"}
"""The energy a workload is judged by: per delivered MB for the bulk download (its work is its
size), per hour of use for the others (their work is set by their own schedule)."""


def flows(workload: str, cfg: Config) -> list[dict[str, Any]]:
    """The workload's flows, TCP or UDP as a phone runs them (schemes.py may replace the TCP
    downloads by PSNA's or WWP's transfer of the same bytes)."""
    if workload == "bulk":
        return [download("download", cfg.bulk_bytes, 0.0)]
    if workload == "sync":
        return [download(f"sync{k}", cfg.sync_bytes, k * cfg.sync_period_s) for k in range(cfg.sync_transfers)]
    if workload == "web":
        return [{"kind": "web", "name": "web", "client": PHONE, "servers": [SERVER], "pages": cfg.web_pages}]
    if workload == "video":
        return [stream("video", SERVER, PHONE, Rate.kbps(cfg.video_rate_kbps), cfg.video_packet_bytes, cfg.stream_s)]
    if workload == "voip":
        rate = Rate(round(cfg.voip_packet_bytes * 8 * 1000 / cfg.voip_interval_ms))
        return [stream("voice-down", SERVER, PHONE, rate, cfg.voip_packet_bytes, cfg.stream_s),
                stream("voice-up", PHONE, SERVER, rate, cfg.voip_packet_bytes, cfg.stream_s)]
    raise ValueError(f"unknown workload {workload!r}")


def download(name: str, size: int, start_s: float) -> dict[str, Any]:
    """A TCP download of ``size`` bytes by the phone, requested at ``start_s``."""
    return {"kind": "bulk-download", "name": name, "client": PHONE, "server": SERVER, "bytes": size,
            "start": Duration.s(start_s)}


def stream(name: str, src: str, dst: str, rate: Rate, size: int, seconds: float) -> dict[str, Any]:
    """A UDP CBR stream of ``size``-byte datagrams for ``seconds`` (it completes when every
    datagram is in)."""
    return {"kind": "udp-cbr", "name": name, "from": src, "to": dst, "rate": rate, "packet_size": size,
            "duration": Duration.s(seconds)}


def nearest_rank(values, q: float) -> float:
    """The ``q`` quantile (0–1) by nearest rank, as the flows' delay percentiles are (NaN if none)."""
    v = np.sort(np.asarray([x for x in values if not math.isnan(x)], dtype=float))
    if len(v) == 0:
        return math.nan
    return float(v[max(0, math.ceil(q * len(v)) - 1)])


def delays(workload: str, res) -> dict[str, float]:
    """The workload's delay in ms (``delay_p50_ms``, ``delay_p99_ms``; NaN where nothing
    finished) and when its last flow completed (``completion_s``, from the run's start; NaN if
    one did not)."""
    f = res.flows.set_index("name")
    done = f.completed.astype(bool)
    # A flow's completion_time_s counts from its own start.
    last = float((f.start_s + f.completion_time_s).max()) if done.all() else math.nan
    return {"completion_s": last, **_delays(workload, f, res)}


def _delays(workload: str, f, res) -> dict[str, float]:
    if workload in ("bulk", "sync"):
        d = [r.completion_time_s * 1e3 if r.completed else math.nan for _, r in f.iterrows()]
        return {"delay_p50_ms": nearest_rank(d, 0.5), "delay_p99_ms": nearest_rank(d, 0.99)}
    if workload == "web":
        p = res.pages
        d = ((p.end_s - p.start_s) * 1e3).tolist()
        return {"delay_p50_ms": nearest_rank(d, 0.5), "delay_p99_ms": nearest_rank(d, 0.99)}
    cols = [c for c in ("delay_p50_ms", "delay_p99_ms") if c in f.columns]
    if len(cols) < 2:
        return {"delay_p50_ms": math.nan, "delay_p99_ms": math.nan}
    # The worse direction: a call is as good as its worse half.
    return {c: float(f[c].max()) for c in cols}
