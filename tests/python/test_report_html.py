"""`wattlab report DIR`: a self-contained HTML page for a sweep and a run, incomplete runs
flagged, figures embedded as PNG; in headless Chromium (when installed) it renders with its
figures and no console error."""

from __future__ import annotations

import base64
import io
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

import wattlab

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "scenarios" / "demo.toml"
WATTLAB = [sys.executable, "-m", "wattlab.cli"]


@pytest.fixture(scope="module")
def sweep_dir(tmp_path_factory) -> Path:
    """A finished 6-run study, 2 of whose runs hit their time limit."""
    out = tmp_path_factory.mktemp("sweep") / "s"
    wattlab.sweep({"scenario": str(DEMO), "seeds": [1, 2], "set": {"flow.0.bytes": 20_000},
                   "grid": {"simulation.duration": ["50ms", "60s"], "wireless.wlan.power_save": ["cam", "psm", "cc"]}},
                  out, jobs=1)
    return out


def _images(page: str) -> list[Image.Image]:
    return [Image.open(io.BytesIO(base64.b64decode(b))) for b in re.findall(r'src="data:image/png;base64,([^"]+)"', page)]


def _self_contained(page: str) -> None:
    assert "<script" not in page
    assert not re.search(r'(src|href)="(https?:)?//', page)


def test_sweep_report_flags_incomplete_runs_and_embeds_figures(sweep_dir):
    r = subprocess.run([*WATTLAB, "report", str(sweep_dir)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    page = (sweep_dir / "report.html").read_text()
    _self_contained(page)
    assert "6 of 12 runs completed every flow; 6 time-limit." in page
    assert page.count('<tr class="bad">') == 6
    imgs = _images(page)
    assert imgs and all(im.width > 200 and im.height > 100 for im in imgs)
    assert all(len(im.convert("RGB").getcolors(1 << 20) or []) > 10 for im in imgs)  # not blank
    assert "study hash" in page and wattlab._core.__commit__ in page


def test_run_report(tmp_path):
    out = tmp_path / "run"
    wattlab.run(DEMO, overrides=["flow.0.bytes=20000"]).write(out)
    page = (subprocess.run([*WATTLAB, "report", str(out), "--out", str(tmp_path / "r.html")], capture_output=True, text=True),
            (tmp_path / "r.html").read_text())[1]
    _self_contained(page)
    assert "Every flow completed" in page and "scenario_sha256" in page and len(_images(page)) == 1
    r = subprocess.run([*WATTLAB, "report", str(tmp_path)], capture_output=True, text=True)
    assert r.returncode == 2 and "nothing to report on" in r.stderr


def test_report_renders_in_headless_chromium(sweep_dir, tmp_path):
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.skip("chromium is not installed (make setup installs it from Debian's packages when run as root)")
    from wattlab import html_report

    page = html_report.write(sweep_dir, tmp_path / "report.html")
    shot = tmp_path / "shot.png"
    r = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                        "--window-size=1100,1600", "--enable-logging=stderr", "--v=0", f"--screenshot={shot}",
                        page.as_uri()], capture_output=True, text=True, timeout=120)
    assert shot.is_file() and shot.stat().st_size > 10_000, r.stderr[-2000:]
    assert not re.search(r"CONSOLE\(\d+\)|Uncaught|Failed to load resource|net::ERR_", r.stderr), r.stderr[-2000:]
    im = Image.open(shot).convert("RGB")
    # The energy figure rendered: matplotlib's first line colour (#1f77b4) is on the screen.
    blue = sum(n for n, (red, g, b) in im.getcolors(1 << 22) if abs(red - 31) < 20 and abs(g - 119) < 20 and abs(b - 180) < 20)
    assert blue > 50, "no figure pixels in the screenshot"


def test_reproduction_report_renders_its_summary_and_figures(tmp_path):
    """A reproduction's --out (made up here: config.json, summary.md, a figure)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from wattlab import html_report

    (tmp_path / "config.json").write_text('{"provenance": {"wattlab_version": "0.1.0", "commit": "abc"}, "seeds": 3}')
    (tmp_path / "summary.md").write_text("# Seed X\n\nSome **claim** with `code` <b>.\n\n| claim | verdict |\n|---|---|\n| a | agrees |\n")
    fig, ax = plt.subplots()
    ax.plot([1, 2, 3], [3, 1, 2])
    fig.savefig(tmp_path / "fig01.png")
    page = html_report.build(tmp_path)
    _self_contained(page)
    assert "<h2>Seed X</h2>" in page and "<b>claim</b>" in page and "<code>code</code>" in page and "&lt;b&gt;" in page
    assert "<td>agrees</td>" in page and "fig01.png" in page and len(_images(page)) == 1


FIGURES = [
    {"title": "Energy by mode", "x": "link.wired.delay", "y": "energy_j", "hue": "wireless.wlan.power_save",
     "facet": "flow.0.bytes", "where": {"node": "client", "policy": "always-on"}},
    {"table": "flows", "kind": "bar", "x": "link.wired.delay", "y": "completion_time_s", "hue": "wireless.wlan.power_save"},
    {"table": "flows", "kind": "scatter", "x": "flow.0.bytes", "y": "goodput_bps"},
    {"title": "Every policy at once", "x": "link.wired.delay", "y": "energy_j"},
    {"title": "A typo", "x": "link.wired.dealy", "y": "energy_j"},
]


@pytest.fixture(scope="module")
def figures_dir(tmp_path_factory) -> Path:
    """A finished 16-run study whose file names five figures (one with a column typo)."""
    out = tmp_path_factory.mktemp("figs") / "s"
    wattlab.sweep({"scenario": str(DEMO), "seeds": [1, 2], "figure": FIGURES,
                   "grid": {"wireless.wlan.power_save": ["cam", "psm"], "link.wired.delay": ["10ms", "40ms"],
                            "flow.0.bytes": [20_000, 60_000]}}, out, jobs=2)
    return out


def test_study_figures_are_drawn_as_named(figures_dir):
    from wattlab import html_report

    page = html_report.build(figures_dir)
    _self_contained(page)
    caps = re.findall(r"<figcaption>(.*?)</figcaption>", page)
    assert len(caps) == 4 and len(_images(page)) == 4, caps  # the study's figures replace the generic one
    assert caps[0].startswith("Energy by mode: mean ± std over up to 2 rows per point (the 2 seeds)")
    assert "where node = client, policy = always-on" in caps[0]
    assert caps[1].startswith("Completion time against wired link delay: mean ± std")
    assert caps[2].startswith("Goodput against flow 0 size: one point per row")
    # without a `where`, a run has one radios row per policy: the caption says so
    assert "more rows than the 2 seeds" in caps[3]
    assert "Figure “A typo”: radios has no column &#x27;link.wired.dealy&#x27;" in page
    for im in _images(page):
        assert im.width > 300 and len(im.convert("RGB").getcolors(1 << 20) or []) > 10


@pytest.mark.parametrize("figure, where, message", [
    ({"x": "a"}, "figure[0]", "no `y`"),
    ({"x": "a", "y": "b", "kind": "pie"}, "figure[0].kind", "unknown kind 'pie'"),
    ({"x": "a", "y": "b", "table": "sockets"}, "figure[0].table", "not kept by this study"),
    ({"x": "a", "y": "b", "colour": "red"}, "figure[0].colour", "unknown key"),
    ({"x": "a", "y": "b", "where": {"node": {"a": 1}}}, "figure[0].where", "column = value"),
])
def test_bad_figures_are_refused_naming_the_key(figure, where, message):
    from wattlab.study import StudyError, load

    with pytest.raises(StudyError, match=re.escape(message)) as e:
        load({"scenario": str(DEMO), "figure": [figure]})
    assert e.value.key == where


def test_figure_errors_in_a_file_name_the_line(tmp_path):
    from wattlab.study import StudyError, load

    f = tmp_path / "s.toml"
    f.write_text(f'scenario = "{DEMO}"\n[grid]\n"link.wired.delay" = ["5ms"]\n\n[[figure]]\nx = "a"\ny = "b"\n\n'
                 '[[figure]]\nx = "a"\ny = "b"\nkind = "pie"\n')
    with pytest.raises(StudyError) as e:
        load(f)
    assert str(e.value).startswith(f"{f}:12:1: key `figure[1].kind`: unknown kind 'pie'")


def test_study_figures_render_in_headless_chromium(figures_dir, tmp_path):
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.skip("chromium is not installed (make setup installs it from Debian's packages when run as root)")
    from wattlab import html_report

    page = html_report.write(figures_dir, tmp_path / "report.html")
    shot = tmp_path / "shot.png"
    r = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                        "--window-size=1100,2400", "--enable-logging=stderr", "--v=0", f"--screenshot={shot}",
                        page.as_uri()], capture_output=True, text=True, timeout=120)
    assert shot.is_file() and shot.stat().st_size > 10_000, r.stderr[-2000:]
    assert not re.search(r"CONSOLE\(\d+\)|Uncaught|Failed to load resource|net::ERR_", r.stderr), r.stderr[-2000:]
    im = Image.open(shot).convert("RGB")

    def pixels(rgb) -> int:
        return sum(n for n, c in im.getcolors(1 << 22) if all(abs(a - b) < 20 for a, b in zip(c, rgb)))

    # Two hues drawn: matplotlib's first two colours (#1f77b4 blue, #ff7f0e orange) are on the screen.
    assert pixels((31, 119, 180)) > 50 and pixels((255, 127, 14)) > 50, "no figure pixels of both hues"
