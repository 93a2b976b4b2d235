"""The SCTP tunnel through the Python API: its endpoints' table, the baseline without the
tunnel, and the written result set (docs/tunnel.md)."""

from pathlib import Path

import wattlab

SCENARIO = Path(__file__).resolve().parents[2] / "scenarios" / "tunnel-4flows.toml"


def test_tunnel_table_savings_and_files(tmp_path):
    res = wattlab.run(str(SCENARIO), overrides=["simulation.duration=3s"], baseline=True)
    t = res.tunnels.set_index("side")
    assert list(t.index) == ["client", "ap"]
    # What one end sent as inner packets the other delivered (nothing is lost on this path
    # except what is still in flight at the end).
    assert t.loc["client", "inner_in"] > 500
    assert abs(int(t.loc["client", "inner_in"]) - int(t.loc["ap", "inner_delivered"])) < 50
    assert int(t.loc["client", "dropped_malformed"]) == 0
    s = res.savings.iloc[0]
    assert s["mode"] == "u-apsd" and "without the [[tunnel]]" in s["baseline"]
    assert 0.3 < s["saving"] < 1.0
    assert res.baseline.summary.get("tunnels", []) == []
    written = res.write(tmp_path)
    assert any(Path(p).name.startswith("tunnels.") for p in written)
