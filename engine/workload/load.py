"""One entry point that loads any supported workload file."""

from __future__ import annotations

from engine.cluster import Cluster
from engine.workload.errors import Problem, WorkloadError
from engine.workload.generator import MAX_OFFERED_LOAD
from engine.workload.importers import (
    TRACE_SERIAL_FRACTION,
    parse_philly,
    parse_pollux,
    parse_swf,
)
from engine.workload.models import offered_load
from engine.workload.native import parse_native
from engine.workload.sniff import FORMATS, sniff
from engine.workload.source import Source, read_source
from engine.workload.table import RowLimit
from engine.workload.workload import Workload

DEFAULT_CLUSTER = Cluster()
"""The Pollux testbed, 16 nodes x 4 GPUs (``Cluster`` is frozen, so sharing it is safe)."""


def load_workload(
    source: Source,
    fmt: str = "auto",
    cluster: Cluster = DEFAULT_CLUSTER,
    max_rows: int | None = None,
    name: str | None = None,
    trace_serial_fraction: float = TRACE_SERIAL_FRACTION,
    *,
    row_limit_hint: str = "",
) -> Workload:
    """Load and validate a workload, or raise one WorkloadError listing every problem.

    ``source`` is a path, the bytes of an upload, text, or an open file (see
    ``source.Source``); a missing or unreadable path raises the ``OSError`` itself
    (``FileNotFoundError`` with ``.filename``). ``fmt`` is one of ``FORMATS`` or
    ``"auto"`` to sniff it. ``cluster`` is the one the workload must fit.

    ``max_rows`` caps how many jobs a file may hold (``None``: no cap but memory), so
    an app can refuse a huge upload before validating it. The refusal reads "the file
    has 200,000 job rows, more than the limit of 100,000", followed by
    ``row_limit_hint`` in parentheses when given: how the caller's user raises the
    limit (e.g. ``"use --max-rows N"``), which only the caller knows.
    ``trace_serial_fraction`` is the Amdahl serial fraction given to SWF and Philly jobs.
    """
    if fmt != "auto" and fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; use 'auto' or one of {', '.join(FORMATS)}")
    limit = RowLimit(max_rows, row_limit_hint)
    text, source_name = read_source(source)
    name = source_name if name is None else name
    fmt = sniff(text) if fmt == "auto" else fmt
    if fmt == "swf":
        workload = parse_swf(text, cluster, limit, name, trace_serial_fraction)
    elif fmt == "philly":
        workload = parse_philly(text, cluster, limit, name, trace_serial_fraction)
    elif fmt == "pollux":
        workload = parse_pollux(text, cluster, limit, name)
    else:
        workload = parse_native(text, cluster, limit, name)
    check_offered_load(workload, cluster)
    return workload


def check_offered_load(workload: Workload, cluster: Cluster) -> None:
    """Refuse a workload whose jobs ask for more than ``MAX_OFFERED_LOAD`` x the cluster.

    Such a load is almost always a typo (a run time in milliseconds, a cluster far too
    small): the queue then only grows, and every policy's JCT is the arrival span.
    """
    load = offered_load(workload, cluster)
    if load > MAX_OFFERED_LOAD:
        raise WorkloadError([Problem(
            None, None,
            f"the jobs ask for {load:,.1f} times what the cluster, {cluster}, can serve "
            f"(offered load {load:,.1f})",
            f"an offered load of at most {MAX_OFFERED_LOAD:g}: check the run-time unit "
            "(seconds), or use a bigger cluster or fewer jobs",
        )])
