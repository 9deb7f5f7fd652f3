"""One entry point that loads any supported workload file."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from engine.cluster import Cluster
from engine.workload.errors import Problem, WorkloadError
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
    check_units(workload)
    return workload


MILLISECONDS_MEDIAN = 30 * 24 * 3600.0
"""A median one-GPU run time above 30 days means the column is in milliseconds: a typical
job of an hour reads as 41 days then, while the longest real jobs here (ImageNet's 90
epochs on one GPU, about 8.6 days) stay far below it."""


def load_task(options: Mapping[str, Any], source: Source) -> Workload:
    """:func:`load_workload` (``source``, with keyword ``options``) as an executor task
    (``engine.parallel``): a server reads an upload in a worker process, so the seconds and
    hundreds of MB that a big file takes to parse are not its own."""
    return load_workload(source, **options)


def check_units(workload: Workload) -> None:
    """Refuse run times that are evidently in milliseconds (see ``MILLISECONDS_MEDIAN``).

    Judged on the jobs' own sizes, never on the load they offer: an overloaded cluster is
    a legitimate thing to study, and real traces are often overloaded.
    """
    median = float(np.median(workload.frame["runtime_1gpu"].to_numpy()))
    if median > MILLISECONDS_MEDIAN:
        raise WorkloadError([Problem(
            None, "runtime_1gpu",
            f"the median one-GPU run time is {median / 86400:,.0f} days: the column looks like "
            "milliseconds",
            "run times in seconds (divide the column by 1,000)",
        )])


def load_note(workload: Workload, cluster: Cluster) -> str | None:
    """A note on an overloaded workload (offered load above 1) on ``cluster``, or None.

    Not one of ``Workload.notes``: those tell what loading did to the file, while the load
    belongs to the file and a cluster, and the cluster can change after loading.
    """
    load = offered_load(workload, cluster)
    if not load > 1:
        return None
    return (f"offered load {load:,.2f} on {cluster}: the jobs ask for more GPU time than the "
            "cluster has, so the queue grows while they arrive and waiting dominates JCT")
