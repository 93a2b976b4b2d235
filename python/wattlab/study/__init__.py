"""Studies: many runs of one scenario under varied parameters and seeds (``wattlab sweep``).

``spec`` reads study files and expands them into run points; ``cost`` checks a study's size and
estimates its cost before it runs; ``engine`` runs the points on local workers (``pool``) or a
Dask cluster (``cluster``), keeps each finished run in a verified, locked store (``store``:
resumable) and writes one tidy Parquet and CSV file per table; ``points`` runs the
reproductions' points on the same machinery; ``bench`` measures the engine's throughput.
"""

from wattlab.study.cluster import SchedulerError
from wattlab.study.engine import StoreWarning, SweepSummary, run_study, sweep
from wattlab.study.spec import Point, Study, StudyError, load
from wattlab.study.store import Busy

__all__ = ["Busy", "Point", "SchedulerError", "Study", "StudyError", "StoreWarning", "SweepSummary", "load", "run_study",
           "sweep"]
