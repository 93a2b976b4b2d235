"""The reproduction contract: what every ``wattlab reproduce`` paper provides, and the one
pipeline that runs it.

A reproduction is a :class:`Reproduction` subclass in its package's ``reproduction.py`` (its
``REPRODUCTION`` instance is what the registry in ``wattlab.reproduce`` loads) with

- ``config``: its ``Config`` dataclass (``full()``, ``quick_preset()``, ``check()``; its
  ``config.py`` also declares the command's help and own options, ``options.Command``);
- ``tables(cfg, ctx)``: the measurements. Its experiments build :class:`runner.Job` lists from
  a base scenario and typed overrides (``reproduce.scenarios``), and ``ctx.run(jobs, measure,
  description)`` runs them on the study engine and returns one row per job; the result is the
  CSV tables, by file name, in the order they are written;
- ``claims(cfg, tables)``: :class:`verdict.Claim` records judged by the named rules of
  ``reproduce.verdict``; ``quick_changes(cfg)`` names the claims whose quantity the ``--quick``
  preset changes (marked "quick: not comparable");
- ``figures(cfg, tables, out)``: the PNG files it wrote;
- ``summary(cfg, tables, claims, info)``: summary.md's sections, rendered from the tables with
  ``wattlab.markdown`` (the framework adds the title, provenance and the claims table).

:meth:`Reproduction.run` does the rest the same way for every paper: check the
configuration, refuse to overwrite, time the run, write config.json, the CSVs, claims.csv,
the figures and summary.md, and return a :class:`Result`.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, ClassVar, Sequence

import pandas as pd
from rich.console import Console

from .. import markdown as md
from . import runner, verdict
from .options import ConfigBase, Option  # noqa: F401  (the contract's parts, for its users)


@dataclass
class Context:
    """What a reproduction's ``tables`` runs its jobs with."""

    workers: int
    """Local worker processes (an active ``runner.engine`` may override)."""
    console: Console | None
    """Where progress goes (stderr in the CLI), or None for none."""
    out: Path
    """The output directory."""
    inputs: dict[str, Any] = field(default_factory=dict)
    """What the caller of :meth:`Reproduction.run` passed besides the configuration (results
    computed elsewhere, e.g. the tunnel's ``sim_points``)."""
    simulations: int = 0
    """Rows returned by :meth:`run` so far (one per job)."""

    def run(self, jobs: Sequence[runner.Job], measure: Callable[[runner.Job, Any], dict], description: str) -> pd.DataFrame:
        """Run ``jobs`` on the study engine and turn each result into a row with ``measure``
        (labels and seed first); rows in job order."""
        df = runner.run_jobs(jobs, measure, description, self.workers, self.console)
        self.simulations += len(df)
        return df


@dataclass
class Info:
    """How a run went, for its summary."""

    wall_time_s: float
    """Wall-clock time of the measurements and the claims."""
    simulations: int
    """Jobs run through the context (a job stored before counts too)."""
    workers: int


@dataclass
class Result:
    """What one reproduction produced."""

    tables: dict[str, pd.DataFrame]
    """Every CSV written, by file name (claims.csv included)."""
    claims: list[verdict.Claim]
    summary_md: str
    wall_time_s: float
    simulations: int
    files: list[Path]
    """Every file written, config.json first."""

    def __getitem__(self, name: str) -> pd.DataFrame:
        """A table by file name (``res["runs.csv"]``) or by its stem (``res["runs"]``)."""
        return self.tables[name if name in self.tables else f"{name}.csv"]


class Reproduction(ABC):
    """The contract of one reproduced paper (see the module's docstring)."""

    name: ClassVar[str]
    """The command's name (``wattlab reproduce NAME``); the registry's entry gives the aliases."""
    title: ClassVar[str]
    """summary.md's title: "Paper 004 (Tsaoussidis, Badr & Verma 1999, WWP) Table 1"."""
    config: ClassVar[type]
    """The ``Config`` dataclass."""
    files: ClassVar[tuple[str, ...]]
    """Every file it may write (it refuses to replace any of them unless told to)."""
    claim_columns: ClassVar[tuple[tuple[str, str], ...]] = verdict.COLUMNS
    """claims.csv's columns (name, Claim field)."""
    rule: ClassVar[str] = ""
    """The verdict rule in one sentence, for summary.md."""
    claims_heading: ClassVar[str] = "Claims"
    paper_heading: ClassVar[str] = "the paper says"
    """The claims table's heading of ``Claim.paper`` (a study with no paper: where the
    expectation comes from)."""

    # --- the parts a paper provides ---------------------------------------------------------

    @abstractmethod
    def tables(self, cfg, ctx: Context) -> dict[str, pd.DataFrame]:
        """The CSV tables by file name, in the order they are written (claims.csv excepted)."""

    @abstractmethod
    def claims(self, cfg, tables: dict[str, pd.DataFrame]) -> list[verdict.Claim]:
        """The verdict on every claim."""

    def figures(self, cfg, tables: dict[str, pd.DataFrame], out: Path) -> list[Path]:
        """Write the figures into ``out``; return their paths."""
        return []

    def summary(self, cfg, tables: dict[str, pd.DataFrame], claims: list[verdict.Claim], info: Info) -> list[str]:
        """summary.md's lines after the title and provenance: the setup and the tables."""
        return []

    def quick_changes(self, cfg) -> dict[str, str]:
        """Under the ``--quick`` preset: the claims (by id) whose compared quantity the preset
        changes, each with what it changes ("1 MB files, the paper's 10 MB"); the pipeline marks
        them ``verdict.NOT_COMPARABLE``. None by default (a preset that only runs fewer seeds
        changes no quantity)."""
        return {}

    def closing(self, cfg, tables: dict[str, pd.DataFrame]) -> list[str]:
        """summary.md's lines after the claims (what is not reproduced), if any."""
        return []

    def check_inputs(self, cfg, inputs: dict[str, Any]) -> None:
        """Check (and complete) what the caller passed besides the configuration before any file
        is written; ValueError names what is wrong."""
        if inputs:
            raise TypeError(f"{self.name} takes no {', '.join(inputs)}")

    def heading(self, cfg, tables: dict[str, pd.DataFrame]) -> str:
        """summary.md's title."""
        return f"{self.title} reproduced by wattlab"

    def configure(self, cfg, options: dict[str, Any]) -> None:
        """Apply options that need more than setting a field (the CLI calls it after
        setting the declared ones; ``options`` holds every value given)."""

    # --- the pipeline ------------------------------------------------------------------------

    def run(self, cfg, out: Path, workers: int | None = None, console: Console | None = None,
            overwrite: bool = False, **inputs: Any) -> Result:
        """Run the whole reproduction and write its files into ``out`` (``inputs``: see
        :attr:`Context.inputs`)."""
        out = Path(out)
        cfg.check()
        self.check_inputs(cfg, inputs)
        runner.prepare_out_dir(out, self.files, overwrite)
        workers = workers or runner.default_jobs()
        ctx = Context(workers, console, out, inputs)
        t0 = time.perf_counter()
        tables = dict(self.tables(cfg, ctx))
        verdicts = self.claims(cfg, tables)
        if getattr(cfg, "quick", False):
            verdicts = verdict.mark_quick(verdicts, self.quick_changes(cfg))
        tables["claims.csv"] = verdict.frame(verdicts, self.claim_columns)
        files = [runner.write_config(out, cfg)]
        for name, df in tables.items():
            df.to_csv(out / name, index=False)
            files.append(out / name)
        files += self.figures(cfg, tables, out)
        info = Info(time.perf_counter() - t0, ctx.simulations, workers)
        text = self.render_summary(cfg, tables, verdicts, info)
        (out / "summary.md").write_text(text, encoding="utf-8")
        files.append(out / "summary.md")
        return Result(tables, verdicts, text, info.wall_time_s, info.simulations, files)

    def render_summary(self, cfg, tables: dict[str, pd.DataFrame], claims: list[verdict.Claim], info: Info) -> str:
        """summary.md: title, provenance, the paper's sections, the claims, the closing notes."""
        rule = f" Rule: {self.rule}." if self.rule else ""
        lines = [f"# {self.heading(cfg, tables)}", "", runner.provenance_line(), "",
                 *self.summary(cfg, tables, claims, info), "",
                 f"## {self.claims_heading}", "", f"{verdict.tally(claims)}.{rule}", "",
                 *claims_table(claims, self.paper_heading), ""]
        closing = self.closing(cfg, tables)
        return "\n".join(lines + closing + ([""] if closing else []))


def claims_table(claims: Sequence[verdict.Claim], paper_heading: str = "the paper says") -> list[str]:
    """The claims as a Markdown table: id (and what is claimed), verdict, the paper, our test,
    our numbers, and the likely reason for a gap where any claim gives one."""
    reasons = any(c.reason for c in claims)
    tests = any(c.test for c in claims)
    head = ["claim", "verdict", paper_heading, *(["our test"] if tests else []), "our numbers",
            *(["likely reason for the gap"] if reasons else [])]
    rows = []
    for c in claims:
        rows.append([f"**{c.id}**: {c.claim}" if c.claim else c.id, f"**{c.verdict}**", c.paper,
                     *([c.test] if tests else []), c.evidence, *([c.reason] if reasons else [])])
    return md.table(head, rows)


def run_heading(cfg, info: Info, what: str = "simulations") -> str:
    """"Quick preset: 84 simulations in 12.3 s wall time" (or "Full run: ...")."""
    return f"{'Quick preset' if cfg.quick else 'Full run'}: {info.simulations} {what} in {info.wall_time_s:.1f} s wall time"

