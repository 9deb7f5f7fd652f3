"""Importers for published traces: SWF, Microsoft Philly and the Pollux workloads.

Each maps its trace onto the native columns and hands them to the same validation as
the native CSV, which names the trace's own columns in its messages. Records an
importer itself cannot read are reported and left out of that validation, so one bad
cell gives one message, not a cascade.

Traces of rigid jobs (SWF, Philly) record only a run time at one size, so two
assumptions turn them into moldable jobs:

* the job follows Amdahl's law with ``serial_fraction`` (default
  ``TRACE_SERIAL_FRACTION``, Amdahl's own default), the one-parameter law that needs no
  data the trace lacks;
* its work is whatever makes that law reproduce the trace at the size it runs at here:
  ``runtime_1gpu = run time x speedup(size, packed nodes)``, so replaying the request
  gives back the recorded run time.

All three formats treat a request bigger than the cluster the same way: it is clipped
to the cluster's GPUs (a trace from a bigger machine would otherwise never fit) and the
clipping is counted in ``Workload.clipped_jobs`` and told in ``Workload.notes``. For
SWF and Philly "the size it runs at" is the clipped size, so a clipped job still runs
for its recorded time rather than faster than it ever did.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from engine.cluster import Cluster, packed_nodes
from engine.speedup import MEASURED_MODELS, Amdahl
from engine.speedup.measured import pollux_runtime_1gpu
from engine.workload.bulk import stripped, to_numbers
from engine.workload.errors import Problem, WorkloadError
from engine.workload.table import RowLimit, Table, header_problems, read_table
from engine.workload.validate import build_workload
from engine.workload.workload import Workload

TRACE_SERIAL_FRACTION: float = Amdahl().serial_fraction
"""Amdahl serial fraction given to SWF and Philly jobs, which carry no scaling data."""

SWF_FIELDS = 18
PHILLY_COLUMNS = ("timestamp", "duration", "num_gpus", "gpu_time", "cluster")
POLLUX_COLUMNS = ("name", "time", "application", "num_replicas", "batch_size")
_SWF_USED = {  # field number (1-based, as the SWF standard counts) -> what it holds
    2: "submit time",
    4: "run time",
    5: "allocated processors",
    8: "requested processors",
}
_SWF_WHOLE = (5, 8)
_SWF_LABELS = {
    "job_id": "field 1 (job number)",
    "submit_time": "field 2 (submit time)",
    "runtime_1gpu": "field 4 (run time)",
    "requested_gpus": "field 5 (allocated processors)",
}
_PHILLY_LABELS = {
    "submit_time": "timestamp",
    "runtime_1gpu": "duration",
    "requested_gpus": "num_gpus",
}
_POLLUX_LABELS = {
    "job_id": "name",
    "submit_time": "time",
    "model": "application",
    "requested_gpus": "num_replicas",
    "runtime_1gpu": "batch_size",
}


def parse_swf(
    text: str,
    cluster: Cluster,
    limit: RowLimit,
    name: str,
    serial_fraction: float = TRACE_SERIAL_FRACTION,
) -> Workload:
    """A Standard Workload Format log, processors taken as GPUs.

    A job's size is its allocated processors (field 5), or its requested ones (field
    8) when that is unknown (-1); jobs with no known run time (field 4) or size, or a
    zero one, are skipped and counted in the notes. A size must be a whole number.
    """
    lines = [
        (line_number, fields)
        for line_number, fields in enumerate((line.split() for line in text.splitlines()), 1)
        if fields and not fields[0].startswith(";")
    ]
    limit.check(len(lines))
    problems = [
        Problem(
            line_number,
            None,
            f"got {len(fields)} fields",
            f"{SWF_FIELDS} whitespace-separated SWF fields",
        )
        for line_number, fields in lines
        if len(fields) != SWF_FIELDS
    ]
    records = [fields for _, fields in lines if len(fields) == SWF_FIELDS]
    row_numbers = np.array(
        [line_number for line_number, fields in lines if len(fields) == SWF_FIELDS],
        dtype=np.int64,
    )
    cells = list(zip(*records, strict=True)) or [()] * SWF_FIELDS
    number = {}
    readable = np.ones(len(records), dtype=bool)
    for field, meaning in _SWF_USED.items():
        number[field], ok = _numbers(
            cells[field - 1],
            f"field {field} ({meaning})",
            row_numbers,
            problems,
            "a whole number" if field in _SWF_WHOLE else "a number",
            whole=field in _SWF_WHOLE,
        )
        readable &= ok
    gpus = np.where(number[5] > 0, number[5], number[8])
    usable = (number[4] > 0) & (gpus > 0)
    skipped = int(np.count_nonzero(readable & ~usable))
    keep = readable & usable
    columns, clipped, note = _rigid(
        number[2][keep], number[4][keep], gpus[keep], cluster, serial_fraction
    )
    return build_workload(
        {"job_id": np.array(cells[0], dtype=object)[keep], **columns},
        row_numbers[keep],
        cluster,
        name,
        labels=_SWF_LABELS,
        problems=problems,
        notes=(
            *_skipped_note(skipped, len(records), "unknown or zero run time or processors"),
            *note,
        ),
        clipped_jobs=clipped,
    )


def parse_philly(
    text: str,
    cluster: Cluster,
    limit: RowLimit,
    name: str,
    serial_fraction: float = TRACE_SERIAL_FRACTION,
) -> Workload:
    """The Philly trace (``timestamp,duration,num_gpus,...``) as Pollux processed it.

    Submit times count from the earliest job's timestamp; jobs that never ran
    (``duration <= 0``) are skipped and counted in the notes; ``num_gpus`` must be a
    whole number >= 1 (a job on no GPU has no run time to scale).
    """
    table = _read_trace(text, limit, PHILLY_COLUMNS, PHILLY_COLUMNS[:3], ("duration", "num_gpus"))
    problems = list(table.problems)
    stamps = pd.to_datetime(
        pd.Series(table.columns["timestamp"], dtype=str).str.strip(),
        format="ISO8601",
        errors="coerce",
        utc=True,
    )
    stamped = stamps.notna().to_numpy()
    problems += [
        Problem(
            int(table.rows[i]),
            "timestamp",
            f"got {table.columns['timestamp'][i]!r}",
            "a date and time like 2017-10-09 07:01:55",
        )
        for i in np.flatnonzero(~stamped)
    ]
    stamped = stamped & ~_mixed_zones(table, stamped, problems)
    duration, timed = _checked(table, "duration", problems, "a number")
    gpus, counted = _checked(table, "num_gpus", problems, "a whole number >= 1", whole=True, low=1)
    readable = stamped & timed & counted
    ran = duration > 0
    keep = readable & ran
    kept_stamps = stamps[keep]
    submit = (kept_stamps - kept_stamps.min()).dt.total_seconds().to_numpy()
    columns, clipped, note = _rigid(submit, duration[keep], gpus[keep], cluster, serial_fraction)
    return build_workload(
        columns,
        table.rows[keep],
        cluster,
        name,
        labels=_PHILLY_LABELS,
        problems=problems,
        notes=(
            *_skipped_note(
                int(np.count_nonzero(readable & ~ran)), len(table.rows), "duration <= 0"
            ),
            *note,
        ),
        clipped_jobs=clipped,
    )


def parse_pollux(text: str, cluster: Cluster, limit: RowLimit, name: str) -> Workload:
    """A Pollux evaluation workload (``name,time,application,num_replicas,batch_size``).

    The one-GPU run time comes from the measured profile of ``application`` at the
    job's global ``batch_size``; the user's request is ``num_replicas``, clipped to the
    cluster like every importer's (it does not change the job's work).
    """
    table = _read_trace(
        text, limit, POLLUX_COLUMNS, POLLUX_COLUMNS, ("time", "num_replicas", "batch_size")
    )
    problems = list(table.problems)
    application = pd.Series(table.columns["application"], dtype=str).str.strip().str.lower()
    known = application.isin(MEASURED_MODELS).to_numpy()
    problems += [
        Problem(
            int(table.rows[i]),
            "application",
            f"got {table.columns['application'][i]!r}",
            f"one of the measured models {', '.join(MEASURED_MODELS)}",
        )
        for i in np.flatnonzero(~known)
    ]
    batch, sized = _checked(table, "batch_size", problems, "a whole number >= 1", whole=True, low=1)
    runtime = np.full(len(table.rows), np.nan)
    timed = known & sized
    for app, size in set(zip(application[timed], batch[timed], strict=True)):
        same = timed & (application.to_numpy() == app) & (batch == size)
        try:
            runtime[same] = pollux_runtime_1gpu(app, int(size))
        except (KeyError, ValueError) as err:
            problems += [
                Problem(
                    int(row),
                    "batch_size",
                    f"no run time for {app} at batch size {int(size)} ({err})",
                    "a batch size the profile covers",
                )
                for row in table.rows[same]
            ]
    keep = np.isfinite(runtime)
    replicas = table.numbers["num_replicas"][keep]
    # clipped: the whole, finite requests past the cluster (inf is refused as a request)
    over = np.isfinite(replicas) & (replicas > cluster.total_gpus) & (
        replicas == np.round(replicas))
    return build_workload(
        {
            "job_id": np.array(table.columns["name"], dtype=object)[keep],
            "submit_time": np.array(table.columns["time"], dtype=object)[keep],
            "model": application.to_numpy()[keep],
            "requested_gpus": np.array(table.columns["num_replicas"], dtype=object)[keep],
            "runtime_1gpu": runtime[keep],
            "batch_size": batch[keep],
        },
        table.rows[keep],
        cluster,
        name,
        numbers={
            "submit_time": table.numbers["time"][keep],
            "requested_gpus": np.where(over, cluster.total_gpus, replicas),
        },
        labels=_POLLUX_LABELS,
        problems=problems,
        notes=_clipped_note(replicas[over], len(replicas), cluster, "asked for"),
        clipped_jobs=int(np.count_nonzero(over)),
    )


def _rigid(
    submit: np.ndarray,
    run_time: np.ndarray,
    gpus: np.ndarray,
    cluster: Cluster,
    serial_fraction: float,
) -> tuple[dict[str, np.ndarray], int, tuple[str, ...]]:
    """Native columns for jobs a trace saw run at one size (assumptions: module docstring).

    Also the number of jobs clipped to the cluster, and the note saying so.
    """
    law = Amdahl(serial_fraction=serial_fraction)
    size = np.minimum(gpus, cluster.total_gpus).astype(np.int64)
    speedup = {
        k: law.speedup(k, packed_nodes(k, cluster.gpus_per_node)) for k in np.unique(size).tolist()
    }
    over = gpus > cluster.total_gpus
    columns = {
        "submit_time": submit,
        "runtime_1gpu": run_time * np.array([speedup[k] for k in size.tolist()], dtype=float),
        "requested_gpus": size,
        "model": np.full(len(gpus), "amdahl", dtype=object),
        "serial_fraction": np.full(len(gpus), serial_fraction),
    }
    note = _clipped_note(gpus[over], len(gpus), cluster, "ran on")
    if note:
        note = (f"{note[0]}; each keeps its recorded run time on {cluster.total_gpus}",)
    return columns, int(np.count_nonzero(over)), note


def _read_trace(
    text: str,
    limit: RowLimit,
    known: Sequence[str],
    required: Sequence[str],
    numeric: Sequence[str],
) -> Table:
    """The trace's table; a missing column stops the import there, nothing can map."""
    table = read_table(text, limit, numeric)
    missing, _ = header_problems(table.header, known, required)
    if missing:
        raise WorkloadError([*table.problems, *missing])
    return table


def _checked(
    table: Table,
    column: str,
    problems: list[Problem],
    expected: str,
    whole: bool = False,
    low: float | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """A numeric column of the table and which cells are readable (and whole, and >= low).

    Each unreadable cell is added to ``problems``.
    """
    values = table.numbers[column]
    readable = _acceptable(values, whole, low)
    problems += _unreadable(table.columns[column], readable, column, table.rows, expected)
    return values, readable


def _numbers(
    cells: Sequence[str],
    label: str,
    rows: np.ndarray,
    problems: list[Problem],
    expected: str,
    whole: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """Cells as floats and which are readable; unreadable ones are added to ``problems``."""
    values = to_numbers(stripped(cells))
    readable = _acceptable(values, whole, None)
    problems += _unreadable(cells, readable, label, rows, expected)
    return values, readable


def _acceptable(values: np.ndarray, whole: bool, low: float | None) -> np.ndarray:
    readable = np.isfinite(values)
    if whole:
        readable &= values == np.round(values)
    if low is not None:
        readable &= values >= low
    return readable


def _unreadable(
    cells: Sequence[str], readable: np.ndarray, label: str, rows: np.ndarray, expected: str
) -> list[Problem]:
    return [
        Problem(int(rows[i]), label, f"got {cells[i]!r}", expected)
        for i in np.flatnonzero(~readable)
    ]


def _skipped_note(skipped: int, total: int, why: str) -> tuple[str, ...]:
    return (f"skipped {skipped} of {total} jobs with {why}",) if skipped else ()


def _clipped_note(sizes: np.ndarray, total: int, cluster: Cluster, verb: str) -> tuple[str, ...]:
    """What the user is told about requests cut to the cluster (nothing if none were)."""
    if len(sizes) == 0:
        return ()
    return (
        f"clipped {len(sizes):,} of {total:,} jobs to the cluster's {cluster.total_gpus} GPUs "
        f"(they {verb} up to {int(sizes.max()):,})",
    )


_ZONED = r"\d:\d\d(?::\d\d(?:\.\d*)?)?\s*(?:[zZ]|[+-]\d\d(?::?\d\d)?)$"
"""A time of day followed by a UTC offset (``07:01:55+00:00``, ``07:01:55Z``)."""


def _mixed_zones(table: Table, stamped: np.ndarray, problems: list[Problem]) -> np.ndarray:
    """The readable timestamps whose UTC offset, given or not, differs from the first's.

    Times with an offset and times without one cannot be put on one clock, so each
    such row is a problem (pandas alone says "Mixed timezones detected", no row).
    """
    text = pd.Series(table.columns["timestamp"], dtype=str).str.strip()
    zoned = text.str.contains(_ZONED).to_numpy() & stamped
    if not zoned.any() or zoned[stamped].all():
        return np.zeros(len(stamped), dtype=bool)
    first = int(np.flatnonzero(stamped)[0])
    odd = stamped & (zoned != zoned[first])
    has = "has a" if zoned[first] else "has no"
    problems += [
        Problem(
            int(table.rows[i]),
            "timestamp",
            f"got {table.columns['timestamp'][i]!r}, but row {table.rows[first]} {has} "
            "UTC offset",
            "every timestamp with a UTC offset (like +00:00), or none",
        )
        for i in np.flatnonzero(odd)
    ]
    return odd
