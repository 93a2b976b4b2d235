"""``wattlab reproduce``: one sub-command per reproduced paper."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer
from rich.console import Console
from rich.table import Table

from wattlab.cli_common import fail

reproduce_app = typer.Typer(
    no_args_is_help=True,
    rich_markup_mode="rich",
    help="Reproduce a seed paper's experiments: figures, CSV and a summary checking its claims.",
)

VERDICT_STYLE = {"agrees": "green", "partly": "yellow", "disagrees": "red", "not tested": "dim"}



@reproduce_app.command("kontogiannis2005")
def kontogiannis2005(
    out: Path = typer.Option(Path("results/kontogiannis2005"), "--out", help="Directory for the CSV files, figures and summary.md."),
    quick: bool = typer.Option(False, "--quick", help="Reduced sweep (6 error rates, 1 MiB flows, n = 1, 3, 5, 8, 2 seeds): under a minute."),
    seeds: Optional[int] = typer.Option(None, "--seeds", min=1, max=100, help="Repetitions per point (default 5, or 2 with --quick)."),
    variants: List[str] = typer.Option([], "--variant", help="Experiment 1 variants (repeatable; default all six: tahoe reno newreno sack vegas westwood)."),
    per_reading: str = typer.Option("bad-state", "--per-reading", help="How the error rate maps onto the Gilbert chain (burst errors): 'bad-state' (default: the bad state loses PER, mean loss PER/3) or 'average' (the bad state loses 3·PER, mean loss PER)."),
    error_layer: str = typer.Option("packet", "--error-layer", help="'packet' (default): the error rate is the loss of packets the 802.11 hop delivered, as TCP sees it; 'frame': every data-frame attempt errs and the MAC retransmits (7 attempts), so TCP sees only what survives."),
    alpha: float = typer.Option(1.0, "--alpha", help="3E weight of effort without return (transmit power; paper: 1)."),
    b: float = typer.Option(0.45, "--b", help="3E weight of unused capacity (idle power; paper: 0.45, Table 1 gives 0.532)."),
    seed: int = typer.Option(1, "--seed", help="First seed; point k uses seeds seed … seed+N−1 for every variant."),
    jobs: Optional[int] = typer.Option(None, "--jobs", min=1, max=64, help="Simulations run in parallel (default: one per core)."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace the output files of an earlier run in --out."),
) -> None:
    """Seed 003: goodput and 3E of Tahoe, Reno, NewReno, SACK, Vegas and Westwood under random and
    burst errors (Exp. 1), n Tahoe vs n Vegas flows (Exp. 2), and a verdict on each claim R1.1–R2.7."""
    from wattlab.reproduce import kontogiannis2005 as k

    console = Console()
    cfg = k.Config.quick_preset() if quick else k.Config.full()
    if seeds is not None:
        cfg.seeds = seeds
    if variants:
        cfg.variants = [v.lower() for v in variants]
    cfg.per_reading, cfg.error_layer, cfg.alpha, cfg.b, cfg.base_seed = per_reading, error_layer, alpha, b, seed
    try:
        cfg.check()
        res = k.run(cfg, out, workers=jobs, console=console, overwrite=overwrite)
    except ValueError as e:
        fail(str(e))
    table = Table(title=f"Seed 003 claims: wattlab's verdicts ({res.wall_time_s:.1f} s)", show_lines=True)
    for col in ("claim", "verdict", "our test", "our numbers"):
        table.add_column(col, overflow="fold")
    for c in res.claims:
        table.add_row(c.id, f"[{VERDICT_STYLE.get(c.verdict, '')}]{c.verdict}[/]", c.test, c.evidence)
    console.print(table)
    console.print(f"[dim]wrote {len(res.files)} files to {out} (summary.md, figures, CSV)[/]")


@reproduce_app.command("yan-cc")
def yan_cc(
    out: Path = typer.Option(Path("results/yan-cc"), "--out", help="Directory for the CSV files, PNG figures, claims.csv and summary.md."),
    quick: bool = typer.Option(False, "--quick", help="A small slice of every experiment (2 RTTs, 0.1 % loss, 1 MB files, 1 seed, 10 web pages, fairness with 1–2 flows): a few seconds. Used by the test suite."),
    seeds: Optional[int] = typer.Option(None, "--seeds", min=1, max=100, help="Repetitions per point, seeds --seed … --seed+N−1, shared by every policy (default 3, or 1 with --quick); tables report the median."),
    seed: int = typer.Option(1, "--seed", help="First seed."),
    jobs: Optional[int] = typer.Option(None, "--jobs", min=1, max=64, help="Simulations run in parallel (default: one per core)."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace the output files of an earlier run in --out (otherwise the run refuses to start)."),
) -> None:
    """Seed 000 (Yan et al.): client-centered energy saving. Runs the large downloads' RTT × loss grid
    (Figs. 14/15, Table I), RTT variation (Fig. 16), competing clients (Fig. 17), AP bandwidth (Fig. 18), the
    Internet sites as scenarios (Figs. 12/13) and a CC-vs-PSM crossover sweep, then a web-browsing session under
    every policy (Figs. 9–11) and the fairness and friendliness mixes (Figs. 6–8); writes CSVs, figures,
    claims.csv and summary.md with the seed's numbers beside wattlab's."""
    import time

    from wattlab.reproduce import yan_cc as y

    console = Console()
    t0 = time.perf_counter()
    cfg = y.Config.quick_preset() if quick else y.Config.full()
    if seeds is not None:
        cfg.seeds = seeds
    cfg.base_seed = seed
    try:
        cfg.check()
        res = y.run(cfg, out, workers=jobs, console=console, overwrite=overwrite)
    except ValueError as e:
        fail(str(e))
    table = Table(title=f"Seed 000 claims: wattlab's verdicts ({res.simulations} simulations)", show_lines=True)
    for col in ("claim", "seed", "wattlab", "verdict"):
        table.add_column(col, overflow="fold")
    for c in res.claims:
        table.add_row(c.id, c.seed, c.wattlab, f"[{VERDICT_STYLE.get(c.verdict, '')}]{c.verdict}[/]")
    console.print(table)
    console.print(f"[dim]wrote {len(res.files)} files to {out} (summary.md has the reasons)[/]")
    console.print(f"total wall time: {time.perf_counter() - t0:.1f} s")
