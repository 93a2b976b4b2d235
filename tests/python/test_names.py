"""Names a user reads (issue 27): every `wattlab reproduce` name is listed by its --help, a paper
is "paper 000" (never "seed 000", beside --seed, the random seed), and each PHY has one printed
spelling (`802.11a`), the undotted one of earlier versions (`80211a`) still accepted."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner
from conftest import SCENARIOS, assert_paper_not_called_seed, wired_path

import wattlab
import wattlab.trace
from wattlab.cli import app
from wattlab.cli_reproduce import reproduce_app
from wattlab.reproduce import REPRODUCTIONS


def _help(*args: str) -> str:
    r = CliRunner().invoke(app, [*args, "--help"], terminal_width=100)
    assert r.exit_code == 0, r.output
    return r.output


def test_reproduce_help_lists_every_accepted_name_aliases_included():
    text = _help("reproduce")
    listed = set(re.findall(r"^  (\S+)  ", text.split("Commands:")[1], flags=re.M))
    names = set(reproduce_app.list_commands(None))
    assert listed == names == set(REPRODUCTIONS), listed ^ names
    assert "wwp" in listed and "Alias of tsaoussidis1999-wwp" in text
    # Each accepted name runs (its own --help), and none of them is hidden.
    for name in names:
        assert not reproduce_app.get_command(None, name).hidden, name
        assert "--seed" in _help("reproduce", name)


def test_a_paper_is_never_called_seed_in_the_reproductions_help():
    assert_paper_not_called_seed(_help("reproduce"))
    for name in reproduce_app.list_commands(None):
        assert_paper_not_called_seed(_help("reproduce", name))
    words = lambda text: " ".join(text.split())  # noqa: E731
    assert '"paper 000"' in words(_help("reproduce")) and "Paper 000 (Yan et al.)" in words(_help("reproduce", "yan-cc"))


def _bss(phy: str) -> str:
    return (wired_path("wavelan-dsss", "100Mbps", "5ms")
            + f'[[wlan]]\nap = "ap"\nstations = ["client"]\nphy = "{phy}"\nrate = "11Mbps"\n'
            + '[[flow]]\nkind = "bulk-download"\nclient = "client"\nserver = "server"\nbytes = "20kB"\n')


def test_each_phy_is_printed_one_way_and_both_spellings_are_accepted():
    dotted = wattlab.run(text=_bss("802.11b"))
    undotted = wattlab.run(text=_bss("80211b"))
    assert dotted.summary["wlans"][0]["phy"] == undotted.summary["wlans"][0]["phy"] == "802.11b"
    assert dotted.summary["flows"] == undotted.summary["flows"]
    # An unknown PHY is refused listing the printed names, in a scenario and for a capture alike.
    with pytest.raises(wattlab.ScenarioError) as e:
        wattlab.run(text=_bss("80211be"))
    assert "802.11a" in str(e.value) and "80211a" not in str(e.value)
    with pytest.raises(wattlab.trace.TraceError) as e:
        wattlab.trace.energy(SCENARIOS.parent / "examples/web-5-pages.pcap", phy="802.11be@54")
    assert "802.11a" in str(e.value) and "80211a" not in str(e.value)
    # HT/VHT/HE PPDUs are not a capture's airtime model: refused, naming the legacy PHYs.
    with pytest.raises(wattlab.trace.TraceError) as e:
        wattlab.trace.energy(SCENARIOS.parent / "examples/web-5-pages.pcap", phy="802.11ax")
    assert "legacy PHYs only" in str(e.value) and "802.11g" in str(e.value)
    # A rate the PHY lacks names it as printed.
    with pytest.raises(wattlab.ScenarioError, match=r"802\.11b has no rate 54Mbps"):
        wattlab.run(text=_bss("80211b").replace('rate = "11Mbps"', 'rate = "54Mbps"'))
    t = wattlab.trace.energy(SCENARIOS.parent / "examples/web-5-pages.pcap", phy="80211a@24")
    assert t.capture["airtime"] == "802.11a@24"
