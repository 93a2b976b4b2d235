"""Reproductions of the seed papers' experiments, one module per paper.

Each module exposes ``Config`` (with ``full()`` and ``quick_preset()``), ``run(cfg, out, ...)``
returning a result with the claims verdicts, and ``OUTPUT_FILES``. The CLI front is
``wattlab reproduce <name>``.
"""

REPRODUCTIONS = {
    "kontogiannis2005": "paper 003: energy potential of six TCP variants under wireless errors (3E index)",
    "yan-cc": "paper 000: client-centered energy saving for large downloads (CC vs TCP, PSM, BSD; module yan_cc)",
}
"""Name → one-line description of every reproduction."""
