"""One entry point that loads any supported workload file."""

from __future__ import annotations

from engine.cluster import Cluster
from engine.workload.importers import (
    TRACE_SERIAL_FRACTION,
    parse_philly,
    parse_pollux,
    parse_swf,
)
from engine.workload.native import parse_native
from engine.workload.sniff import FORMATS, sniff
from engine.workload.source import Source, read_source
from engine.workload.workload import Workload

DEFAULT_MAX_ROWS = 100_000
DEFAULT_CLUSTER = Cluster()
"""The Pollux testbed, 16 nodes x 4 GPUs (``Cluster`` is frozen, so sharing it is safe)."""


def load_workload(
    source: Source,
    fmt: str = "auto",
    cluster: Cluster = DEFAULT_CLUSTER,
    max_rows: int = DEFAULT_MAX_ROWS,
    name: str | None = None,
    trace_serial_fraction: float = TRACE_SERIAL_FRACTION,
) -> Workload:
    """Load and validate a workload, or raise one WorkloadError listing every problem.

    ``source`` is a path, the bytes of an upload, text, or an open file (see
    ``source.Source``). ``fmt`` is one of ``FORMATS`` or ``"auto"`` to sniff it.
    ``cluster`` is the one the workload must fit; ``max_rows`` caps how many jobs a
    file may hold, so an accidental huge upload fails fast. ``trace_serial_fraction``
    is the Amdahl serial fraction given to SWF and Philly jobs.
    """
    if fmt != "auto" and fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; use 'auto' or one of {', '.join(FORMATS)}")
    text, source_name = read_source(source)
    name = source_name if name is None else name
    fmt = sniff(text) if fmt == "auto" else fmt
    if fmt == "swf":
        return parse_swf(text, cluster, max_rows, name, trace_serial_fraction)
    if fmt == "philly":
        return parse_philly(text, cluster, max_rows, name, trace_serial_fraction)
    if fmt == "pollux":
        return parse_pollux(text, cluster, max_rows, name)
    return parse_native(text, cluster, max_rows, name)
