"""Workloads: the jobs a simulation replays, loaded from files or generated.

``load_workload`` reads the native CSV (see ``schema.COLUMNS`` and README.md) or a
published trace (SWF, Philly, Pollux), validates everything and raises one
``WorkloadError`` listing every problem; ``generate`` draws synthetic workloads at a
target offered load; ``to_jobs`` hands a workload to the simulator.
"""

from engine.workload.errors import Problem, WorkloadError
from engine.workload.generator import MAX_GENERATED_JOBS, GeneratorConfig, generate
from engine.workload.importers import TRACE_SERIAL_FRACTION
from engine.workload.jobs import to_jobs
from engine.workload.load import load_note, load_workload
from engine.workload.models import offered_load
from engine.workload.native import save_csv, template_csv, to_csv_bytes
from engine.workload.schema import COLUMN_NAMES, COLUMNS, Column, schema_markdown
from engine.workload.sniff import FORMATS, sniff
from engine.workload.workload import Workload

__all__ = [
    "COLUMNS",
    "COLUMN_NAMES",
    "FORMATS",
    "MAX_GENERATED_JOBS",
    "TRACE_SERIAL_FRACTION",
    "Column",
    "GeneratorConfig",
    "Problem",
    "Workload",
    "WorkloadError",
    "generate",
    "load_note",
    "load_workload",
    "offered_load",
    "save_csv",
    "schema_markdown",
    "sniff",
    "template_csv",
    "to_csv_bytes",
    "to_jobs",
]
