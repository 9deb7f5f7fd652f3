"""Importers for published traces: SWF, Microsoft Philly and the Pollux workloads.

Each maps its trace onto the native columns and hands them to the same validation as
the native CSV. Records an importer itself cannot read are reported and left out of
that validation, so one bad cell gives one message, not a cascade.

Traces of rigid jobs (SWF, Philly) record only a run time at one size, so two
assumptions turn them into moldable jobs:

* the job follows Amdahl's law with ``serial_fraction`` (default
  ``TRACE_SERIAL_FRACTION``, Amdahl's own default), the one-parameter law that needs no
  data the trace lacks;
* its work is whatever makes that law reproduce the trace at the size it ran at:
  ``runtime_1gpu = run time x speedup(GPUs, packed nodes)``, so replaying the user's own
  request gives back the recorded run time.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from engine.cluster import Cluster, packed_nodes
from engine.speedup import MEASURED_MODELS, Amdahl
from engine.speedup.measured import pollux_runtime_1gpu
from engine.workload.errors import Problem, WorkloadError
from engine.workload.table import Table, header_problems, read_table, too_many_rows
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


def parse_swf(
    text: str,
    cluster: Cluster,
    max_rows: int,
    name: str,
    serial_fraction: float = TRACE_SERIAL_FRACTION,
) -> Workload:
    """A Standard Workload Format log, processors taken as GPUs.

    A job's size is its allocated processors (field 5), or its requested ones (field
    8) when that is unknown (-1); jobs with no known run time (field 4) or size, or a
    zero one, are skipped and counted in the notes. The request is clipped to the
    cluster, since a trace from a bigger machine would otherwise never fit.
    """
    problems: list[Problem] = []
    records: list[list[str]] = []
    rows: list[int] = []
    for line_number, line in enumerate(text.splitlines(), start=1):
        fields = line.split()
        if not fields or fields[0].startswith(";"):
            continue
        if len(records) == max_rows:
            problems.append(too_many_rows(max_rows))
            break
        if len(fields) != SWF_FIELDS:
            problems.append(
                Problem(
                    line_number,
                    None,
                    f"got {len(fields)} fields",
                    f"{SWF_FIELDS} whitespace-separated SWF fields",
                )
            )
            continue
        records.append(fields)
        rows.append(line_number)
    row_numbers = np.array(rows, dtype=np.int64)
    cells = list(zip(*records, strict=True)) or [()] * SWF_FIELDS
    number = {}
    readable = np.ones(len(records), dtype=bool)
    for field, meaning in _SWF_USED.items():
        number[field], ok = _numbers(
            cells[field - 1], f"field {field} ({meaning})", row_numbers, problems
        )
        readable &= ok
    gpus = np.where(number[5] > 0, number[5], number[8])
    usable = (number[4] > 0) & (gpus > 0)
    skipped = int(np.count_nonzero(readable & ~usable))
    keep = readable & usable
    return build_workload(
        {
            "job_id": np.array(cells[0], dtype=object)[keep],
            **_rigid(number[2][keep], number[4][keep], gpus[keep], cluster, serial_fraction),
        },
        row_numbers[keep],
        cluster,
        name,
        problems=problems,
        notes=_skipped_note(skipped, len(records), "unknown or zero run time or processors"),
    )


def parse_philly(
    text: str,
    cluster: Cluster,
    max_rows: int,
    name: str,
    serial_fraction: float = TRACE_SERIAL_FRACTION,
) -> Workload:
    """The Philly trace (``timestamp,duration,num_gpus,...``) as Pollux processed it.

    Submit times count from the earliest job's timestamp; jobs that never ran
    (``duration <= 0``) are skipped and counted in the notes; the request is clipped
    to the cluster.
    """
    table = _read_trace(text, max_rows, PHILLY_COLUMNS, PHILLY_COLUMNS[:3])
    problems = list(table.problems)
    stamps = pd.to_datetime(
        pd.Series(table.columns["timestamp"], dtype=str).str.strip(),
        format="ISO8601",
        errors="coerce",
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
    duration, timed = _numbers(table.columns["duration"], "duration", table.rows, problems)
    gpus, counted = _numbers(table.columns["num_gpus"], "num_gpus", table.rows, problems)
    readable = stamped & timed & counted
    ran = duration > 0
    keep = readable & ran
    kept_stamps = stamps[keep]
    submit = (kept_stamps - kept_stamps.min()).dt.total_seconds().to_numpy()
    return build_workload(
        _rigid(submit, duration[keep], gpus[keep], cluster, serial_fraction),
        table.rows[keep],
        cluster,
        name,
        problems=problems,
        notes=_skipped_note(
            int(np.count_nonzero(readable & ~ran)), len(table.rows), "duration <= 0"
        ),
    )


def parse_pollux(text: str, cluster: Cluster, max_rows: int, name: str) -> Workload:
    """A Pollux evaluation workload (``name,time,application,num_replicas,batch_size``).

    The one-GPU run time comes from the measured profile of ``application`` at the
    job's global ``batch_size``; the user's request is ``num_replicas``.
    """
    table = _read_trace(text, max_rows, POLLUX_COLUMNS, POLLUX_COLUMNS)
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
    batch, sized = _numbers(
        table.columns["batch_size"], "batch_size", table.rows, problems, whole=True
    )
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
    return build_workload(
        {
            "job_id": np.array(table.columns["name"], dtype=object)[keep],
            "submit_time": np.array(table.columns["time"], dtype=object)[keep],
            "model": application.to_numpy()[keep],
            "requested_gpus": np.array(table.columns["num_replicas"], dtype=object)[keep],
            "runtime_1gpu": runtime[keep],
        },
        table.rows[keep],
        cluster,
        name,
        problems=problems,
    )


def _rigid(
    submit: np.ndarray,
    run_time: np.ndarray,
    gpus: np.ndarray,
    cluster: Cluster,
    serial_fraction: float,
) -> dict[str, np.ndarray]:
    """Native columns for jobs a trace saw run at one size (assumptions: module docstring)."""
    law = Amdahl(serial_fraction=serial_fraction)
    speedup = {
        int(k): law.speedup(int(k), packed_nodes(int(k), cluster.gpus_per_node))
        for k in np.unique(gpus)
    }
    return {
        "submit_time": submit,
        "runtime_1gpu": run_time * np.array([speedup[int(k)] for k in gpus], dtype=float),
        "requested_gpus": np.minimum(gpus, cluster.total_gpus),
        "model": np.full(len(gpus), "amdahl", dtype=object),
        "serial_fraction": np.full(len(gpus), serial_fraction),
    }


def _read_trace(text: str, max_rows: int, known: Sequence[str], required: Sequence[str]) -> Table:
    """The trace's table; a missing column stops the import there, nothing can map."""
    table = read_table(text, max_rows)
    missing, _ = header_problems(table.header, known, required)
    if missing:
        raise WorkloadError([*table.problems, *missing])
    return table


def _numbers(
    cells: Sequence[str],
    label: str,
    rows: np.ndarray,
    problems: list[Problem],
    whole: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """Cells as floats and which are readable; unreadable ones are added to ``problems``."""
    numbers = pd.to_numeric(pd.Series(cells, dtype=str).str.strip(), errors="coerce")
    values = numbers.to_numpy(dtype=float, na_value=np.nan)
    readable = np.isfinite(values)
    if whole:
        readable &= values == np.round(values)
    problems += [
        Problem(int(rows[i]), label, f"got {cells[i]!r}", "a whole number" if whole else "a number")
        for i in np.flatnonzero(~readable)
    ]
    return values, readable


def _skipped_note(skipped: int, total: int, why: str) -> tuple[str, ...]:
    return (f"skipped {skipped} of {total} jobs with {why}",) if skipped else ()
