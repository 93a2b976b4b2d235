"""wattlab: the energy a mobile client's wireless NIC spends on transport protocols.

Quick start::

    import wattlab
    res = wattlab.run("scenarios/demo.toml", seed=1)
    res.flows        # one row per flow: completion time, goodput, retransmissions...
    res.radios       # one row per (radio, power policy): joules, time per state...

The simulator, the TCP model and the radio energy model live in the Rust core
(``wattlab._core``); this package turns their output into DataFrames, tables and files.
"""

from wattlab._core import ScenarioError, SimulationError, __version__
from wattlab.api import RunResult, profiles, run, validate

__all__ = [
    "RunResult",
    "ScenarioError",
    "SimulationError",
    "__version__",
    "profiles",
    "run",
    "validate",
]
