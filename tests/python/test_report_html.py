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
from conftest import SCENARIOS
from test_live import needs_live

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
    assert "<title>Seed X</title>" in page and page.count("Seed X") == 2  # the summary's heading titles the page, once
    assert "<b>claim</b>" in page and "<code>code</code>" in page and "&lt;b&gt;" in page
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
    ({"x": "a", "y": "b", "where": []}, "figure[0].where", "or a list of such tables"),
    ({"x": "a", "y": "b", "where": [{"node": "client"}, 3]}, "figure[0].where", "or a list of such tables"),
    ({"x": "a", "y": "b", "where": [{"node": "client"}, {}]}, "figure[0].where", "or a list of such tables"),
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


def test_where_alternatives_in_a_study_file(tmp_path):
    from wattlab.study import load

    f = tmp_path / "s.toml"
    f.write_text(f'scenario = "{DEMO}"\n[grid]\n"wireless.wlan.power_save" = ["cam", "psm"]\n\n'
                 '[[figure]]\nx = "wireless.wlan.power_save"\ny = "energy_j"\n'
                 'where = [{ node = "client", basis = "mode" },\n'
                 '         { node = "client", "wireless.wlan.power_save" = ["cam"], policy = "always-on" }]\n\n'
                 '[[figure]]\nx = "wireless.wlan.power_save"\ny = "energy_j"\n'
                 '[[figure.where]]\nbasis = "mode"\n[[figure.where]]\npolicy = "always-on"\n')
    figs = load(f).figures
    assert figs[0]["where"] == [{"node": "client", "basis": "mode"},
                                {"node": "client", "wireless.wlan.power_save": ["cam"], "policy": "always-on"}]
    assert figs[1]["where"] == [{"basis": "mode"}, {"policy": "always-on"}]


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


# ---------------------------------------------------------------------------------------------
# Figures a paper could print (issue 27, items 2 and 3): labels from the units table, durations
# on a numeric axis, one colour per category, savings in percent, `where` with in-lists and
# alternatives, the page titled by the study; and `wattlab report` on every folder wattlab writes.

MODES_FIGURES = [
    # the energy each mode spent: the `mode` rows of psm and cc, and cam's always-on row
    {"title": "Energy each mode spent", "x": "link.wired.delay", "y": "energy_j", "hue": "wireless.wlan.power_save",
     "where": [{"node": "client", "basis": "mode", "wireless.wlan.down.loss.p": 0.0},
               {"node": "client", "wireless.wlan.power_save": "cam", "policy": "always-on", "wireless.wlan.down.loss.p": 0.0}]},
    {"x": "link.wired.delay", "y": "energy_j", "hue": "wireless.wlan.power_save", "facet": "wireless.wlan.down.loss.p",
     "where": {"node": "client", "basis": "mode", "wireless.wlan.power_save": ["psm", "cc"]}},
    {"table": "savings", "x": "link.wired.delay", "y": "saving", "hue": "mode", "where": {"wireless.wlan.down.loss.p": 0.0}},
]


@pytest.fixture(scope="module")
def modes_dir(tmp_path_factory) -> Path:
    """A finished 36-run study of cam, psm and cc over an uneven delay grid (5, 20, 100 ms),
    with savings and three figures."""
    out = tmp_path_factory.mktemp("modes") / "s"
    wattlab.sweep({"scenario": str(DEMO), "name": "energy-by-mode", "seeds": [1, 2], "set": {"flow.0.bytes": 20_000},
                   "outputs": ["flows", "radios", "savings"], "figure": MODES_FIGURES,
                   "grid": {"wireless.wlan.power_save": ["cam", "psm", "cc"], "link.wired.delay": ["5ms", "20ms", "100ms"],
                            "wireless.wlan.down.loss.p": [0.0, 0.01]}}, out, jobs=2)
    return out


@pytest.fixture(scope="module")
def modes_page(modes_dir):
    from wattlab import html_report

    return html_report.render(modes_dir)


def _html_table_after(page: str, heading: str) -> list[list[str]]:
    """The cells of the first table after ``<h2>heading</h2>`` (header row first, column names
    under the headers dropped)."""
    block = page.split(f"<h2>{heading}</h2>", 1)[1].split("</table>", 1)[0]
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", block, re.S)
    return [[re.sub(r"<br><code.*?</code>", "", c) for c in re.findall(r"<t[hd]>(.*?)</t[hd]>", r, re.S)] for r in rows]


def test_axis_labels_come_from_the_units_table(modes_page):
    figs = modes_page.figures
    assert [f.xlabel for f in figs] == ["wired link delay (ms)"] * 3
    assert figs[0].ylabel in ("energy (J)", "energy (mJ)") and figs[1].ylabel in ("energy (J)", "energy (mJ)")
    assert figs[2].ylabel == "saving (%)"
    assert figs[1].panels == ["wlan downlink loss probability = 0", "wlan downlink loss probability = 0.01"]
    assert figs[1].title == "Energy against wired link delay"  # the default title, in words


def test_a_duration_grid_is_drawn_on_a_numeric_axis(modes_page):
    first = modes_page.figures[0]
    assert first.numeric_x
    for mode in ("cam", "psm", "cc"):
        assert first.x[mode] == [5.0, 20.0, 100.0]  # to scale, in ms: not the categories 0, 1, 2


def test_each_category_keeps_its_colour_on_the_whole_page(modes_page):
    figs = modes_page.figures
    assert len({figs[0].colours[m] for m in ("cam", "psm", "cc")}) == 3
    # psm and cc keep their colours in the figure without cam, and as the savings' `mode`
    for m in ("psm", "cc"):
        assert figs[1].colours[m] == figs[0].colours[m] == figs[2].colours[m]


def test_where_takes_in_lists_and_alternatives(modes_page):
    first, second = modes_page.figures[:2]
    # cam's row comes from the second table of `where`, psm's and cc's from the first:
    # exactly one row per run, so the caption needs no "more rows than the seeds" warning
    assert set(first.x) == {"cam", "psm", "cc"}
    assert "(the 2 seeds)" in first.caption and "more rows" not in first.caption
    assert " or (" in first.caption
    assert set(second.x) == {"psm", "cc"} and "wireless.wlan.power_save in (psm, cc)" in second.caption


def test_savings_are_shown_in_percent(modes_dir, modes_page):
    import pandas as pd

    sav = pd.read_parquet(modes_dir / "savings.parquet")
    means = sav.groupby(["wireless.wlan.power_save", "link.wired.delay", "wireless.wlan.down.loss.p"], sort=False)["saving"].mean()
    rows = _html_table_after(modes_page.html(), "Savings")
    head = rows[0]
    col = head.index("saving (%)")
    keys = [head.index(h) for h in ("wlan power-save mode", "wired link delay", "wlan downlink loss probability")]
    assert len(rows) - 1 == len(means) == 12
    for r in rows[1:]:
        want = means[(r[keys[0]], r[keys[1]], float(r[keys[2]]))]
        assert r[col] == f"{100 * want:+.1f}"
    # the figure of savings is in percent too
    fig = modes_page.figures[2]
    at0 = sav[sav["wireless.wlan.down.loss.p"] == 0.0].groupby(["mode", "link.wired.delay_s"])["saving"].mean()
    assert fig.y["psm"] == pytest.approx([100 * at0[("psm", d)] for d in (0.005, 0.02, 0.1)])


def test_a_missing_saving_is_a_dash_with_its_reason():
    import pandas as pd

    from wattlab.report_format import table

    df = pd.DataFrame({"mode": ["psm", "cc"], "saving": [0.46, float("nan")],
                       "saving_reason": [None, "delivered 1.2 kB of 4.99 MB"]})
    page = table(df)
    assert "<td>+46.0</td>" in page and "<td>— (delivered 1.2 kB of 4.99 MB)</td>" in page


def test_tables_are_formatted_per_column(modes_page):
    rows = _html_table_after(modes_page.html(), "Radio energy")
    head, body = rows[0], rows[1:]
    assert "energy (J)" in head or "energy (mJ)" in head
    for j, h in enumerate(head):
        cells = [r[j] for r in body]
        if not all(re.fullmatch(r"[-+]?[\d,]+(\.\d+)?", c) for c in cells):
            continue  # a text column
        assert not any("e-" in c or "e+" in c for c in cells)
        decimals = {len(c.split(".")[1]) if "." in c else 0 for c in cells}
        assert len(decimals) == 1, (h, cells)  # one number of decimals per column


def test_provenance_is_a_readable_table_and_the_title_the_studys_name(modes_page):
    page = modes_page.html()
    assert "<title>wattlab sweep: energy-by-mode</title>" in page and "<h1>wattlab sweep: energy-by-mode</h1>" in page
    prov = page.split("<h2>Provenance</h2>", 1)[1].split("</table>", 1)[0]
    assert "{" not in prov and "[" not in prov and "&quot;" not in prov
    assert "<th>fixed overrides</th><td>flow.0.bytes = 20000</td>" in prov
    assert "<th>seeds</th><td>1, 2</td>" in prov


def test_no_figure_title_overlaps_a_panel_or_legend(modes_page, figures_dir):
    from wattlab import html_report

    figs = modes_page.figures + html_report.render(figures_dir).figures
    assert any(len(f.panels) == 2 for f in figs)
    assert not [f.title for f in figs if f.overlaps]


def _joules(label: str) -> float:
    """The factor from an energy axis' unit to joules."""
    return {"energy (J)": 1.0, "energy (mJ)": 1e-3, "energy (µJ)": 1e-6}[label]


def test_run_report_energy_bars_include_transition_energy(tmp_path):
    from wattlab import html_report

    res = wattlab.run(DEMO, overrides=["flow.0.bytes=20000", "wireless.wlan.power_save=psm"], baseline=True)
    res.write(tmp_path / "run")
    page = html_report.render(tmp_path / "run")
    assert page.title == "wattlab run: demo (seed 1)"
    bars = page.figures[0]
    assert "transitions" in bars.colours
    radios = res.radios
    assert (radios["transition_energy_j"] > 0).any()
    for r in radios.itertuples():
        assert bars.x[f"{r.node} {r.policy}"][0] * _joules(bars.xlabel) == pytest.approx(r.energy_j, rel=1e-6)
    assert "<h2>Savings</h2>" in page.html()


def _trace_dir(tmp_path: Path) -> Path:
    out = tmp_path / "trace"
    cap = ROOT / "tests" / "data" / "energybox" / "demo_200KB.pcap"
    r = subprocess.run([*WATTLAB, "trace", "energy", str(cap), "--policy", "always-on", "--policy", "psm", "--out", str(out), "-q"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return out


def test_report_on_a_trace_folder(tmp_path):
    import json

    from wattlab import html_report

    out = _trace_dir(tmp_path)
    r = subprocess.run([*WATTLAB, "report", str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    page = (out / "report.html").read_text()
    _self_contained(page)
    assert "<title>wattlab trace energy: demo_200KB.pcap</title>" in page
    assert "Energy per policy" in page and "Energy per connection" in page and len(_images(page)) == 2  # bars, timeline
    bars = html_report.render(out).figures[0]
    for p in json.loads((out / "summary.json").read_text())["policies"]:
        assert bars.x[p["policy"]][0] * _joules(bars.xlabel) == pytest.approx(p["energy_j"], rel=1e-6)


@pytest.mark.parametrize("files, message", [
    ({"notes.txt": "hello"}, "not a folder wattlab writes"),
    ({"summary.json": '{"name": "something else"}'}, "summary.json: not a summary of wattlab run, trace energy or live run"),
    ({"summary.json": '{"flows": [], "radios": '}, "summary.json:1:"),
    ({"config.json": '{"seeds": 3}'}, "config.json: not a reproduction's configuration"),
    ({"study.json": "[1, 2]"}, "study.json: a JSON object was expected"),
])
def test_a_foreign_folder_is_refused_in_one_line(tmp_path, files, message):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    r = subprocess.run([*WATTLAB, "report", str(tmp_path)], capture_output=True, text=True)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], r.stderr
    assert not (tmp_path / "report.html").exists()


def _screenshot(page: Path, tmp_path: Path, height: int) -> "Image.Image":
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.skip("chromium is not installed (make setup installs it from Debian's packages when run as root)")
    shot = tmp_path / f"{page.parent.name}.png"
    r = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                        f"--window-size=1100,{height}", "--enable-logging=stderr", "--v=0", f"--screenshot={shot}",
                        page.as_uri()], capture_output=True, text=True, timeout=120)
    assert shot.is_file() and shot.stat().st_size > 10_000, r.stderr[-2000:]
    assert not re.search(r"CONSOLE\(\d+\)|Uncaught|Failed to load resource|net::ERR_", r.stderr), r.stderr[-2000:]
    return Image.open(shot).convert("RGB")


def _pixels(im, hex_colour: str) -> int:
    rgb = tuple(int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))
    return sum(n for n, c in im.getcolors(1 << 22) if all(abs(a - b) < 12 for a, b in zip(c, rgb)))


def test_modes_and_trace_reports_render_in_headless_chromium(modes_dir, modes_page, tmp_path):
    from wattlab import html_report
    from wattlab.trace_plot import STATE_COLOR

    (tmp_path / "modes").mkdir()
    im = _screenshot(html_report.write(modes_dir, tmp_path / "modes" / "report.html"), tmp_path, 3000)
    for m in ("cam", "psm", "cc"):  # each mode's colour (the same in every figure) is on the screen
        assert _pixels(im, modes_page.figures[0].colours[m]) > 50, m
    trace = _trace_dir(tmp_path)
    im = _screenshot(html_report.write(trace), tmp_path, 2400)
    # the energy bars use the timeline's state colours: idle and rx are drawn in both
    assert _pixels(im, STATE_COLOR["idle"]) > 500 and _pixels(im, STATE_COLOR["rx"]) > 200


@needs_live
def test_report_on_a_live_folder(tmp_path):
    """A real live run (root, network namespaces): its folder, and the trace folder inside it."""
    from wattlab import html_report, live

    out = tmp_path / "live"
    res = live.run(SCENARIOS / "live-download.toml", "psm", out_dir=out, overrides=["flow.download.bytes=300KB"], time_limit=60)
    r = subprocess.run([*WATTLAB, "report", str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    page = (out / "report.html").read_text()
    _self_contained(page)
    assert "<title>wattlab live run: live-download (psm)</title>" in page
    assert "Energy per policy" in page and ("every byte, intact" in page) == res.verified
    bars = html_report.render(out).figures[0]
    for row in res.energy.energy.itertuples():
        assert bars.x[row.policy][0] * _joules(bars.xlabel) == pytest.approx(row.energy_j, rel=1e-6)
    assert html_report.render(out / "energy").kind == "trace"


@needs_live
def test_report_on_a_live_compare_folder(tmp_path):
    """`wattlab live compare --out`: the comparison table, then each live run's section."""
    from wattlab import html_report, live

    out = tmp_path / "cmp"
    df = live.compare(SCENARIOS / "yan-cc-download.toml", overrides=["flow.ftp.bytes=500KB"], out_dir=out, time_limit=60)
    r = subprocess.run([*WATTLAB, "report", str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    page = (out / "report.html").read_text()
    _self_contained(page)
    assert "<title>wattlab live compare: yan-cc-download</title>" in page
    assert "<h2>live-always-on: wattlab live run: yan-cc-download (always-on)</h2>" in page
    assert "<h2>live-cc: wattlab live run: yan-cc-download (cc)</h2>" in page
    rows = _html_table_after(page, "Simulated and live")
    col = rows[0].index("saving (%)")
    assert [r[col] for r in rows[1:]] == [f"{100 * v:+.1f}" for v in df["saving"]]
    assert len(html_report.render(out).figures) == 2  # each run's energy per state
