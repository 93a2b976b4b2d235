"""Studies: many runs of one scenario under varied parameters and seeds (``wattlab sweep``).

``spec`` reads study files and expands them into run points; ``engine`` runs the points on a
local process pool or a Dask cluster, stores each run as it finishes (resumable) and writes
one tidy Parquet file per table; ``bench`` measures the engine's throughput and overhead.
"""

from wattlab.study.engine import SweepSummary, run_study, sweep
from wattlab.study.spec import Point, Study, StudyError, load

__all__ = ["Point", "Study", "StudyError", "SweepSummary", "load", "run_study", "sweep"]
