"""Power-mode and accounting-policy names come from one registry in the core
(``wattlab_core::power``): the bindings expose it and the reproductions use it."""

from __future__ import annotations

import re

import pytest

import wattlab
from wattlab import _core
from wattlab.reproduce.yan_cc import config

ACCEPTED = ["cam", "psm", "ideal-psm", "u-apsd", "cc", "psna", "external", "bsd-1", "bsd-50", "bsd-999", "bsd-1000",
            "adaptive-psm:timeout=1ms", "adaptive-psm:timeout=200ms", "adaptive-psm:timeout=10000ms",
            "twt:interval=100ms,duration=8192us", "twt:interval=1ms,duration=999us,announced=true",
            "twt:interval=65535ms,duration=261120us", "twt:interval=100ms,duration=4000us,offset=50000us",
            "twt:interval=65535ms,duration=1us,offset=65534999us,announced=true",
            "twt:interval=100ms,duration=4000us,trigger=true", "twt:interval=50ms,duration=10us,offset=7us,trigger=true,announced=true",
            "twt:interval=100ms,duration=4000us,broadcast=1", "twt:interval=50ms,duration=10us,offset=7us,trigger=true,announced=true,broadcast=31",
            "twt:interval=100ms,duration=4000us,broadcast=19"]
REFUSED = ["", "CAM", "bsd", "bsd-", "bsd-0", "bsd-050", "bsd-+5", "bsd-1001", "bsd-P", "uapsd", "always-on", " cam",
           "adaptive-psm", "adaptive-psm:timeout=0ms", "adaptive-psm:timeout=200", "adaptive-psm:timeout=010ms",
           "adaptive-psm:timeout=10001ms", "adaptive-psm:timeout=0.2s",
           "twt", "twt:interval=100ms", "twt:interval=0100ms,duration=10us", "twt:interval=100ms,duration=0us",
           "twt:interval=100ms,duration=8192us,announced=false", "twt:interval=100ms,duration=8ms",
           "twt:interval=100ms,duration=10us,offset=0us", "twt:interval=100ms,duration=10us,offset=05us",
           "twt:interval=100ms,duration=10us,announced=true,offset=5us", "twt:interval=100ms,duration=10us,trigger=false",
           "twt:interval=100ms,duration=10us,announced=true,trigger=true",
           "twt:interval=100ms,duration=10us,broadcast=0", "twt:interval=100ms,duration=10us,broadcast=32",
           "twt:interval=100ms,duration=10us,broadcast=01", "twt:interval=100ms,duration=10us,broadcast=1,announced=true"]


def test_each_kind_is_described_and_its_regex_is_the_parser():
    modes = _core.power_modes()
    patterns = [m["pattern"] for m in modes]
    # The registry may grow (a new mode is a module and a registry entry in the core, nothing
    # here): the modes the reproductions name are there, in help order, and only cam leaves
    # the traffic alone.
    named = ["cam", "psm", "ideal-psm", "bsd-P", "u-apsd", "cc", "psna", "external"]
    assert [p for p in patterns if p in named] == named and len(set(patterns)) == len(patterns)
    assert [m["changes_traffic"] for m in modes] == [m["family"] != "cam" for m in modes]
    known = ", ".join(
        m["pattern"] + "".join(f" ({q['letter']} = {q['min']}..={q['max']})" for q in m["parameters"]) for m in modes
    )
    assert "bsd-P (P = 1..=1000)" in known and "adaptive-psm:timeout=Tms (T = 1..=10000)" in known
    assert {m["basis"] for m in modes if m["changes_traffic"]} == {"mode"}
    bsd = next(m for m in modes if m["family"] == "bsd")
    assert bsd["parameters"] == [{"name": "percent", "letter": "P", "min": 1, "max": 1000,
                                  "doc": "tolerated slowdown, in percent of the idle time"}]
    for name in ACCEPTED + REFUSED + [f"bsd-{p}" for p in range(0, 1002, 7)]:
        by_regex = [m["family"] for m in modes if re.fullmatch(m["regex"], name)]
        try:
            parsed = _core.parse_power_mode(name)
        except _core.UnknownNameError as e:
            assert by_regex == [], name
            assert isinstance(e, wattlab.WattlabError)
            assert f"known: {known})" in str(e)
            assert name not in ACCEPTED
            continue
        assert by_regex == [parsed["family"]] and parsed["name"] == name, name
        assert name not in REFUSED


def test_parse_gives_the_parameters():
    m = _core.parse_power_mode("bsd-20")
    assert (m["name"], m["family"], m["parameters"], m["basis"]) == ("bsd-20", "bsd", {"percent": 20}, "mode")
    assert _core.parse_power_mode("cam")["basis"] == "accounting"
    assert _core.accounting_policies() == ["always-on", "oracle", "ideal-sleep", "psm", "adaptive-psm"]


def test_the_reproduction_accepts_what_the_registry_accepts():
    for name in ACCEPTED + REFUSED:
        if name in config.CC_VARIANTS:
            continue
        try:
            mode = _core.parse_power_mode(name)
        except _core.UnknownNameError:
            mode = None
        if mode is None or mode["family"] == "external":
            with pytest.raises(ValueError, match="unknown policy"):
                config.policy_settings(name)
        else:
            power_save, agent, meter = config.policy_settings(name)
            assert power_save == name and agent is None
            assert meter == (name if mode["changes_traffic"] else "always-on")
    assert config.policy_settings("cc-dynamic")[:2] == ("cc", {"detection": "dynamic"})
    assert {"cam", "psm", "ideal-psm", "bsd-P", "cc", "cc-dynamic", "cc-norevert"} <= set(config.POLICY_NAMES)
    assert config.WEB_POLICY_NAMES == tuple(config.WEB_POLICIES)
