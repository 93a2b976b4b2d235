"""What every ``wattlab`` subcommand shares: the consoles, progress, the error exit, the exit
codes and the output-directory rule.

stdout carries the result only (tables, or JSON with ``--json``), so ``> file`` and pipes
work; progress, notes, warnings and errors go to stderr.
"""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path
from typing import Iterable, Iterator

import click
from rich.console import Console
from rich.markup import escape



def piped_width() -> int | None:
    """The width of stdout's tables: the terminal's (None: rich asks it), else ``COLUMNS`` if
    set, else 80, so piped output is stable and reads in any terminal."""
    if sys.stdout.isatty():
        return None
    columns = os.environ.get("COLUMNS", "")
    return int(columns) if columns.isdigit() and int(columns) > 0 else 80


console = Console(width=piped_width())
"""Tables and results (80 columns or ``COLUMNS`` when piped; tables fit it, wattlab.tables)."""

err_console = Console(stderr=True)
"""Progress, notes, warnings and errors."""

EXIT_OK = 0
"""Success."""
EXIT_FAILED = 1
"""The run started but failed (a file could not be written, a live transfer was corrupt)."""
EXIT_USAGE = 2
"""Bad input: options, scenario, capture or configuration files (nothing ran)."""
EXIT_INCOMPLETE = 3
"""Incomplete: the run ended at its time limit before every flow completed, or a power mode did
not do its baseline's work (so no saving is shown); see ``--allow-incomplete``."""
EXIT_INTERRUPTED = 130
"""Interrupted (Ctrl-C)."""

PATH = click.Path(path_type=Path)
"""A path argument or option, given to the command as a ``pathlib.Path``."""


class _OutDir(click.ParamType):
    """An output directory: a path, but not an empty string (which pathlib reads as `.`)."""

    name = "directory"

    def convert(self, value, param, ctx):
        """The value as a Path; an empty name is a usage error."""
        if isinstance(value, Path):
            return value
        if not str(value).strip():
            self.fail("an empty directory name (use . for the current directory)", param, ctx)
        return Path(value)


OUT_DIR = _OutDir()
"""The type of every ``--out`` option."""

EXIT_CODES_HELP = (
    "Exit codes: 0 success; 1 the run failed; 2 bad input (nothing ran); "
    "3 incomplete: the run hit its time limit before every flow completed, or a power mode did not do its baseline's "
    "work (no saving shown) (unless --allow-incomplete); 130 interrupted."
)


def fail(message: str, code: int = EXIT_USAGE) -> None:
    """Print an error the way compilers do (file:line:col: ...) and exit non-zero. The message
    is plain text: brackets in paths or values are printed as they are."""
    err_console.print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)
    raise click.exceptions.Exit(code)


def note(message: str, quiet: bool = False, style: str = "dim") -> None:
    """A remark on stderr (plain text), unless ``quiet``."""
    if not quiet:
        err_console.print(f"[{style}]{escape(message)}[/]", highlight=False, soft_wrap=True)


def warn(message: str) -> None:
    """A warning on stderr (plain text); printed even with ``--quiet``."""
    err_console.print(f"[yellow]warning:[/] {escape(message)}", highlight=False, soft_wrap=True)


@contextlib.contextmanager
def progress(message: str, quiet: bool = False) -> Iterator[object]:
    """A spinner on stderr while the block runs (nothing if ``quiet`` or stderr is not a terminal)."""
    if quiet or not err_console.is_terminal:
        yield _NoStatus()
        return
    with err_console.status(escape(message), spinner="dots") as status:
        yield status


class _NoStatus:
    """Stands in for a rich status when there is none to show."""

    def update(self, *args, **kwargs) -> None:
        """Ignore a progress update."""


def prepare_out_dir(out: Path, overwrite: bool, ours: Iterable[str], keep: Iterable[Path] = ()) -> None:
    """Make ``out`` ready for a result set: refuse a file, or a non-empty directory without
    ``overwrite``; with it, remove the earlier results (entries of ``ours``: file names,
    stems of tables written as .csv/.parquet, ``*.pcap``, sub-directories) and leave every
    other file alone. ``keep`` (the user's inputs) is never removed or overwritten."""
    if out.exists() and not out.is_dir():
        fail(f"--out {out} exists and is not a directory")
    if not out.exists():
        try:
            out.mkdir(parents=True)
        except OSError as e:
            fail(f"--out {out}: cannot create the directory: {e.strerror or e}")
        return
    try:
        entries = sorted(p.name for p in out.iterdir())
    except OSError as e:
        fail(f"--out {out}: cannot read the directory: {e.strerror}")
    if not entries:
        return
    if not overwrite:
        shown = ", ".join(entries[:4]) + (" ..." if len(entries) > 4 else "")
        fail(f"--out {out} is not empty ({shown}); pass --overwrite to replace earlier results, or choose another directory")
    other = results_of_many_runs(out)
    if other:
        fail(f"--out {out} holds {other}: --overwrite would delete its tables; choose another directory")
    ours = set(ours)
    inputs = {p.resolve() for p in keep}
    for p in out.iterdir():
        mine = p.name in ours or p.stem in ours and p.suffix in (".csv", ".parquet") or p.suffix == ".pcap"
        if not mine or p.resolve() in inputs:
            continue
        if p.is_dir() and not p.is_symlink():
            import shutil

            shutil.rmtree(p)
        else:
            p.unlink()


def results_of_many_runs(out: Path) -> str | None:
    """What ``out`` holds if it is a sweep's or a reproduction's result (``"a sweep's results
    (study.json)"``), else None: such a folder is never a single run's to overwrite."""
    if (out / "study.json").is_file():
        return "a sweep's results (study.json)"
    runs = out / "runs"
    if (out / ".wattlab-lock").exists() or (runs.is_dir() and any(p.suffix == ".run" for p in runs.iterdir())):
        return "a sweep's or a reproduction's stored runs (runs/)"
    if (out / "config.json").is_file() and ((out / "summary.md").is_file() or (out / "claims.csv").is_file()):
        return "a reproduction's results (config.json, summary.md)"
    return None


def check_input_file(path: Path, what: str) -> None:
    """Refuse a missing file, a directory or a non-regular file (a device, a FIFO) as an input,
    with a clear message instead of an OSError."""
    if not path.exists():
        fail(f"{path}: {what} file not found")
    if path.is_dir():
        fail(f"{path}: is a directory, not a {what} file")
    if not path.is_file():
        fail(f"{path}: not a regular file (a {what} must be a file)")


def check_inputs_outside(out: Path, inputs: Iterable[Path], outputs: Iterable[str]) -> None:
    """Refuse an ``out`` where writing ``outputs`` would replace one of the user's ``inputs``."""
    targets = {(out / name).resolve() for name in outputs}
    for p in inputs:
        if p.resolve() in targets:
            fail(f"--out {out} would overwrite the input {p}; choose another directory")
