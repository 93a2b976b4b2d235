"""Seed 002 Ch. 2's ns-2 fairness runs in the simulator (Sect. 2.5, Fig. 2.5/2.7): 5 upstream
and 5 downstream TCP flows, one per client, 802.11a 54 Mb/s, AP with a 100-packet DropTail
buffer, wired 100 Mb/s / 100 ms, starts U[0, 10] s, no delayed ACK; Reno, ACK-loss-aware Reno
(``cc = "ackloss"``) and Reno with the prioritised AP (``ap_priority = "fukuda-oie"``).

Throughput is averaged over [warmup, duration] (the thesis: 50–200 s) as the bytes delivered
in a run of ``duration`` minus those of the same run (same seed, so the same events) stopped at
``warmup``. The RTT is each flow's mean over the whole run.

    python -m wattlab.reproduce.hashimoto2013.fairness            # 200 s × 10 seeds
    python -m wattlab.reproduce.hashimoto2013.fairness --quick    # 60 s (from 20 s) × 3 seeds
"""

from __future__ import annotations

import argparse
import random

import pandas as pd

from wattlab.metrics import fairness_utilization_index as fairness_index, jain_index

C_BPS = 29.60e6  # the thesis's C: 802.11a's MAC maximum for 1460-byte MTU (Jun et al.)
SCHEMES = {"reno": ("reno", None), "ackloss": ("ackloss", None), "prioritised-ap": ("reno", "fukuda-oie")}


def scenario(scheme: str, seed: int, duration_s: float, n_up: int = 5, n_down: int = 5) -> str:
    """The scenario TOML: starts U[0, 10] s drawn from ``seed``."""
    cc, prio = SCHEMES[scheme]
    rng = random.Random(seed)
    ups = [f"u{i}" for i in range(n_up)]
    downs = [f"d{i}" for i in range(n_down)]
    nodes = "".join(f'[[node]]\nname = "{n}"\nkind = "host"\n' for n in ups + downs)
    tcp = f'tcp = {{ cc = "{cc}", delayed_ack = false, recv_buffer = "4MB", window_scale = 7 }}'
    flows = "".join(
        f'[[flow]]\nname = "up-{n}"\nkind = "bulk-upload"\nclient = "{n}"\nserver = "server"\nbytes = "100GB"\n'
        f'port = {5001 + i}\nstart = "{rng.uniform(0, 10):.6f}s"\n{tcp}\n'
        for i, n in enumerate(ups)
    ) + "".join(
        f'[[flow]]\nname = "down-{n}"\nkind = "bulk-download"\nclient = "{n}"\nserver = "server"\nbytes = "100GB"\n'
        f'port = {8001 + i}\nstart = "{rng.uniform(0, 10):.6f}s"\n{tcp}\n'
        for i, n in enumerate(downs)
    )
    stations = ", ".join(f'"{n}"' for n in ups + downs)
    prio_line = f'ap_priority = "{prio}"' if prio else ""
    return f"""
name = "hashimoto2013-fairness-{scheme}"
[simulation]
duration = "{duration_s}s"
seed = {seed}
[[node]]
name = "server"
kind = "host"
[[node]]
name = "ap"
kind = "ap"
{nodes}
[[link]]
a = "server"
b = "ap"
rate = "100Mbps"
delay = "100ms"
queue = {{ packets = 10000 }}
[[wlan]]
ap = "ap"
stations = [{stations}]
phy = "80211a"
rate = "54Mbps"
ap_queue = 100
station_queue = 10000
{prio_line}
{flows}
"""


def run(scheme: str, seed: int, duration_s: float = 200.0, warmup_s: float = 50.0) -> dict:
    """One run: per-flow throughput over [warmup, duration] and the summary metrics."""
    import wattlab

    full = wattlab.run(text=scenario(scheme, seed, duration_s)).flows.set_index("name")
    early = wattlab.run(text=scenario(scheme, seed, warmup_s)).flows.set_index("name")
    bps = (full["bytes_delivered"].astype(float) - early["bytes_delivered"].astype(float)) * 8 / (duration_s - warmup_s)
    up = bps[[n for n in bps.index if n.startswith("up-")]]
    down = bps[[n for n in bps.index if n.startswith("down-")]]
    x = list(up) + list(down)
    rtt = full["mean_rtt_ms"].astype(float)
    return {
        "scheme": scheme, "seed": seed, "total_mbps": sum(x) / 1e6, "up_mbps": up.sum() / 1e6,
        "down_mbps": down.sum() / 1e6, "down_share": down.sum() / sum(x), "jain": jain_index(x),
        "F": fairness_index(x, C_BPS),
        "up_rtt_ms": rtt[[n for n in rtt.index if n.startswith("up-")]].mean(),
        "down_rtt_ms": rtt[[n for n in rtt.index if n.startswith("down-")]].mean(),
        **{f"x_{n}": v / 1e6 for n, v in bps.items()},
    }


def measure(seeds, duration_s: float = 200.0, warmup_s: float = 50.0) -> pd.DataFrame:
    """Every scheme over ``seeds``: one row per run."""
    from concurrent.futures import ThreadPoolExecutor

    jobs = [(s, k) for k in seeds for s in SCHEMES]
    with ThreadPoolExecutor() as ex:
        rows = list(ex.map(lambda j: run(j[0], j[1], duration_s, warmup_s), jobs))
    return pd.DataFrame(rows)


def summary(df: pd.DataFrame) -> pd.DataFrame:
    """Mean (and standard deviation over seeds) per scheme, with the total against Reno's."""
    cols = ["total_mbps", "down_share", "jain", "F", "up_rtt_ms", "down_rtt_ms"]
    s = df.groupby("scheme", sort=False)[cols].agg(["mean", "std"])
    reno_total = s.loc["reno", ("total_mbps", "mean")]
    s[("total_vs_reno_pct", "mean")] = 100 * (s[("total_mbps", "mean")] / reno_total - 1)
    return s


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="60 s runs averaged from 20 s, 3 seeds")
    ap.add_argument("--seeds", type=int, default=None)
    ap.add_argument("--out", default=None, help="CSV of every run")
    a = ap.parse_args()
    dur, warm, n = (60.0, 20.0, 3) if a.quick else (200.0, 50.0, 10)
    df = measure(range(1, (a.seeds or n) + 1), dur, warm)
    if a.out:
        df.to_csv(a.out, index=False)
    pd.set_option("display.width", 200)
    print(summary(df).round(3).to_string())


if __name__ == "__main__":
    main()
