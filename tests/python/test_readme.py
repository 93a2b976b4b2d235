"""Every example in the README runs as written: the shell commands of its "Use" section (outputs
redirected into a temporary directory; the `sudo ... live` lines are covered by test_live.py) and
its Python block."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _use_section() -> str:
    return README[README.index("## Use"):]


def _blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", _use_section(), flags=re.S)


def readme_commands() -> list[str]:
    """The `.venv/bin/wattlab ...` commands of the Use section's shell block, continuation lines
    joined and comments removed."""
    text = _blocks("sh")[0].replace("\\\n", " ")
    cmds = []
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith(".venv/bin/wattlab"):
            continue
        cmds.append(re.sub(r"\s+#.*$", "", line))
    return cmds


def test_the_readme_starts_with_the_two_commands():
    head = README.split("## ", 1)[0]
    assert "make demo" in head and "make test" in head


def test_the_readme_shows_examples_that_exist():
    cmds = readme_commands()
    assert len(cmds) >= 10
    # Every file a command names is in the repository.
    for c in cmds:
        for tok in c.split():
            if re.match(r"^(scenarios|examples|tests/data)/[^*]+$", tok):
                assert (ROOT / tok).exists(), f"{tok} (in: {c})"


@pytest.mark.parametrize("cmd", readme_commands())
def test_readme_command_runs(cmd, tmp_path):
    """Each command exits 0; outputs go under tmp_path instead of results/ and the cwd."""
    shell = cmd.replace(".venv/bin/wattlab", f"{sys.executable} -m wattlab.cli")
    shell = shell.replace(" results/", f" {tmp_path}/results/").replace("> demo.json", f"> {tmp_path}/demo.json")
    r = subprocess.run(["bash", "-c", shell], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, f"{cmd}\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}"
    assert "Traceback" not in r.stderr
    if "--json" in cmd:
        doc = json.loads((tmp_path / "demo.json").read_text())
        assert doc["provenance"]["scenario"] == "scenarios/demo.toml"


def test_readme_python_block_runs(tmp_path):
    code = _blocks("python")[0]
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
