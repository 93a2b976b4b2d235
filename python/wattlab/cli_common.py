"""What every ``wattlab`` subcommand shares: the consoles and the error exit."""

from __future__ import annotations

import sys

import typer
from rich.console import Console

console = Console(width=None if sys.stdout.isatty() else 120)
"""Tables and results (a fixed width when piped, so output is stable)."""

err_console = Console(stderr=True)
"""Errors and warnings."""


def fail(message: str, code: int = 2) -> None:
    """Print an error the way compilers do (file:line:col: ...) and exit non-zero."""
    err_console.print(f"[bold red]error:[/] {message}", highlight=False, markup=True, soft_wrap=True)
    raise typer.Exit(code)
