"""``wattlab report DIR``: a self-contained HTML page on a run, a sweep, a reproduction, a trace
analysis or a live run."""

from __future__ import annotations

from pathlib import Path

import click

from wattlab.cli_common import PATH, fail, note


@click.command(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.argument("directory", type=PATH, metavar="DIR")
@click.option("--out", type=PATH, metavar="FILE", help="Where to write the page (default: DIR/report.html).")
@click.option("--quiet", "-q", is_flag=True, help="No note on stderr.")
def report(directory: Path, out: Path | None, quiet: bool) -> None:
    """Write a self-contained HTML report (embedded figures, tables, provenance, incomplete runs
    flagged) on DIR: the --out of wattlab run, wattlab sweep, wattlab reproduce, wattlab trace
    energy, wattlab live run or wattlab live compare. It opens offline: no script and no link outside the file. A
    study's [[figure]] tables say what its figures show (docs/studies.md). Any other folder is
    refused (exit 2)."""
    from wattlab import html_report

    if not directory.is_dir():
        fail(f"{directory}: not a directory")
    try:
        path = html_report.write(directory, out)
    except html_report.ReportError as e:
        fail(str(e))
    except OSError as e:
        fail(f"{out or directory / 'report.html'}: cannot write the report: {e.strerror or e}")
    note(f"wrote {path}", quiet)
