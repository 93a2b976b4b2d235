"""Markdown tables of the reproductions' summaries (issue 27): a cell's own `|` is escaped when
written and stays one cell when `wattlab report` reads the table back."""

from wattlab import markdown as md
from wattlab.html_report import markdown

from conftest import assert_markdown_tables_whole


def test_a_cell_with_pipes_stays_one_cell_written_and_read_back():
    lines = md.table(["claim", "our numbers"], [["k-1", "max |energy − 1| 0.004, |time − 1| 0.002"], ["k-2", "a\nb"]])
    text = "\n".join(lines)
    assert assert_markdown_tables_whole(text) == 1
    assert lines[2] == "| k-1 | max \\|energy − 1\\| 0.004, \\|time − 1\\| 0.002 |" and lines[3] == "| k-2 | a b |"
    assert md.split_row(lines[2]) == ["k-1", "max |energy − 1| 0.004, |time − 1| 0.002"]
    assert md.cell(md.cell("|x|")) == md.cell("|x|") == "\\|x\\|"  # escaping twice changes nothing
    html = markdown(text)
    rows = html.split("<tr>")[1:]
    assert [r.count("<td>") + r.count("<th>") for r in rows] == [2, 2, 2]
    assert "|energy − 1|" in rows[1] and "\\|" not in html


def test_a_rule_line_is_not_a_row():
    assert md.is_rule("|---|:--:|") and not md.is_rule("| a | b |")
    assert md.header("a", "b") == ["| a | b |", "|---|---|"]
