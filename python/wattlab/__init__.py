"""wattlab: the energy a mobile client's wireless NIC spends on transport protocols.

Quick start::

    import wattlab
    res = wattlab.run("scenarios/demo.toml", seed=1)   # a path (str or PathLike)
    res.flows        # one row per flow: completion time, goodput, retransmissions...
    res.radios       # one row per (radio, power policy): joules, time per state...
    res = wattlab.run(text=toml_text)                  # TOML text, explicitly

Errors are ``wattlab.WattlabError`` subclasses (``ScenarioError``, ``SimulationError``,
``InternalError`` for a bug), ``TypeError``/``ValueError`` for arguments of the wrong kind, and
``FileNotFoundError``; Ctrl-C during a run raises ``RunInterrupted`` with the partial results.

The simulator, the TCP model and the radio energy model live in the Rust core
(``wattlab._core``); this package turns their output into DataFrames, tables and files.
"""

from wattlab._core import InternalError, ScenarioError, SimulationError, WattlabError, __version__
from wattlab.api import CostWarning, Progress, RunInterrupted, RunResult, Scenario, profiles, run, validate



def sweep(study, out=None, **kwargs):
    """Run a study (a study file, or a dict of the same shape) and return its ``flows`` table
    (or ``table=...``) as a tidy DataFrame: see :func:`wattlab.study.engine.sweep`."""
    from wattlab.study.engine import sweep as _sweep

    return _sweep(study, out, **kwargs)


__all__ = [
    "CostWarning",
    "InternalError",
    "Progress",
    "RunInterrupted",
    "RunResult",
    "Scenario",
    "ScenarioError",
    "SimulationError",
    "WattlabError",
    "__version__",
    "profiles",
    "run",
    "sweep",
    "validate",
]
