"""Paper 003's Vegas hypotheses at full size (10 MiB, 5 seeds) in 0 < PER <= 7 % only:
the main run's Tahoe/SACK/Vegas, ns-2.28's timer, and ns-2's Vegas loss rules alone and with
that timer -- the same functions `wattlab reproduce kontogiannis2005` runs, on its low-PER part.
Usage: .venv/bin/python examples/kontogiannis2005_vegas_low_per.py OUT_DIR [--quick]"""
import dataclasses, sys, time
from pathlib import Path
import pandas as pd
from wattlab.reproduce.framework import Context
from wattlab.reproduce.kontogiannis2005 import claims, experiments, hypotheses as h
from wattlab.reproduce.kontogiannis2005.config import Config

out = Path(sys.argv[1]); out.mkdir(parents=True, exist_ok=True)
cfg = Config.quick_preset() if "--quick" in sys.argv else Config.full()
t0 = time.time()
ctx = Context(workers=2, console=None, out=out)
pers = h.low_pers(cfg)
v3 = ["tahoe", "sack", "vegas"]
_, main, thr1 = experiments.experiment1(dataclasses.replace(cfg, variants=v3), ctx, pers=pers)
ns228 = next(t for t in h.TIMERS if t.name == "ns-2.28")
timer = experiments.experiment1(dataclasses.replace(ns228.of(cfg), variants=v3), ctx, pers=pers, thr=thr1)[1].assign(timer=ns228.name)
vegas = h.vegas_points(cfg, ctx, {"exp1_points.csv": main}, timer, thr1)
rows = []
base = {c.id: c for c in claims.experiment1_claims(main)}
for name, d in [(f"timer {ns228.name}", timer.drop(columns="timer"))] + [
        (f"vegas {s.name}", vegas[vegas.setting == s.name].drop(columns="setting")) for s in h.vegas_settings(cfg)]:
    c = {x.id: x for x in claims.experiment1_claims(d)}["R1.4"]
    rows.append({"hypothesis": name, "claim": "R1.4", "main": base["R1.4"].verdict, "alternative": c.verdict, "evidence": c.evidence})
hyp = pd.DataFrame(rows)
for n, d in [("low_main_points.csv", main), ("hyp_timer_points.csv", timer), ("hyp_vegas_points.csv", vegas), ("hypotheses.csv", hyp)]:
    d.to_csv(out / n, index=False)
lines = [h.timer_sentence(cfg, ns228, main, timer, hyp)] + [h.vegas_sentence(cfg, s, main, vegas, timer, hyp) for s in h.vegas_settings(cfg)]
per_point = []
for s in ["main"] + [s.name for s in h.vegas_settings(cfg)]:
    d = main if s == "main" else vegas[vegas.setting == s]
    for m in ("random", "burst"):
        r = [d[(d.model == m) & (d.per == p) & (d.variant == "vegas")].goodput_bps.mean() /
             d[(d.model == m) & (d.per == p) & (d.variant == "tahoe")].goodput_bps.mean() for p in pers]
        to = [d[(d.model == m) & (d.per == p) & (d.variant == "vegas")].timeouts.mean() * h.MIB10 / cfg.exp1_bytes for p in pers]
        per_point.append(f"{s} {m}: Vegas/Tahoe goodput " + " ".join(f"{x:.2f}" for x in r) + " ; Vegas timeouts/10MiB " + " ".join(f"{x:.1f}" for x in to))
text = "\n\n".join(lines) + "\n\n" + "\n".join(per_point) + f"\n\n{ctx.simulations} simulations, {time.time() - t0:.0f} s wall\n"
(out / "sentences.md").write_text(text)
print(text)
