"""Turning raw columns into a Workload, or into the full list of what is wrong with them.

Every way in (the native CSV, the trace importers, the generator) ends here, so a
Workload is consistent whatever its origin. The checks are vectorised; only the cells
that fail cost Python time, which keeps 100,000-row files fast.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from engine.cluster import Cluster
from engine.workload.errors import Problem, WorkloadError
from engine.workload.schema import COLUMNS, Column, Derived
from engine.workload.workload import Workload

_GPU_COLUMNS = ("requested_gpus", "min_gpus", "max_gpus")
_EXACT = 2.0**53


def build_workload(
    columns: Mapping[str, Sequence | pd.Series],
    rows: np.ndarray,
    cluster: Cluster,
    name: str,
    *,
    extra: Mapping[str, Sequence[str]] | None = None,
    problems: Sequence[Problem] = (),
    notes: tuple[str, ...] = (),
) -> Workload:
    """Validate ``columns`` (native names; raw text or numbers) and build the Workload.

    ``rows`` gives each record's file line, for messages. ``problems`` found earlier
    (while reading the file) are raised together with the ones found here, in one
    WorkloadError, so nothing is ever half-loaded.
    """
    found = list(problems)
    n = len(rows)
    values: dict[str, np.ndarray] = {}
    bad: dict[str, np.ndarray] = {}
    given: dict[str, np.ndarray] = {}
    for column in COLUMNS:
        raw = columns.get(column.name)
        if raw is None:
            values[column.name] = _default(column, rows, cluster)
            bad[column.name] = given[column.name] = np.zeros(n, dtype=bool)
            continue
        cells, blank = _cells(raw, as_text=column.dtype is str)
        given[column.name] = ~blank
        convert = _text if column.dtype is str else _number
        values[column.name], bad[column.name] = convert(column, cells, blank, rows, cluster)
        found += _cell_problems(column, cells, blank, bad[column.name], rows)

    found += _parameter_problems(values, given, bad, rows)
    found += _duplicate_ids(values["job_id"], rows)
    found += _gpu_problems(values, bad, rows, cluster)
    if n == 0 and not found:
        found.append(Problem(None, None, "the workload has no jobs", "at least one job"))
    if found:
        raise WorkloadError(found)

    frame = pd.DataFrame({c.name: pd.Series(values[c.name], dtype=c.dtype) for c in COLUMNS})
    for column_name, cells in (extra or {}).items():
        frame[column_name] = pd.Series(cells, dtype=str)
    order = np.argsort(frame["submit_time"].to_numpy(), kind="stable")
    frame = frame.iloc[order].reset_index(drop=True)
    return Workload(frame=frame, name=name, ignored_columns=tuple(extra or ()), notes=notes)


def cluster_problems(
    frame: pd.DataFrame, cluster: Cluster, rows: np.ndarray | None = None
) -> list[Problem]:
    """Jobs that cannot run on ``cluster`` at all: a minimum or a request too big for it.

    With ``rows`` the problems point at file rows; without (a loaded workload moved to
    a smaller cluster) they name the job instead.
    """
    total = cluster.total_gpus
    found = []
    for name in ("min_gpus", "requested_gpus"):
        gpus = frame[name].to_numpy()
        for i in np.flatnonzero(gpus > total):
            found.append(
                Problem(
                    row=None if rows is None else int(rows[i]),
                    column=name,
                    message=(
                        f"got {gpus[i]}"
                        if rows is not None
                        else f"job {frame['job_id'].iat[i]!r} has {gpus[i]}"
                    ),
                    expected=f"at most the {total} GPUs of the "
                    f"{cluster.nodes}x{cluster.gpus_per_node} cluster",
                )
            )
    return found


def _cells(raw: Sequence | pd.Series, as_text: bool) -> tuple[pd.Series, np.ndarray]:
    """The cells as a Series (text stripped) and which of them are empty."""
    series = pd.Series(raw).reset_index(drop=True)
    if pd.api.types.is_numeric_dtype(series) and not as_text:
        return series, series.isna().to_numpy()
    text = series.astype(str).str.strip()
    return text, (text.isna() | (text == "")).to_numpy()


def _default(column: Column, rows: np.ndarray, cluster: Cluster) -> np.ndarray:
    if column.default is Derived.CLUSTER_SIZE:
        return np.full(len(rows), cluster.total_gpus, dtype=np.int64)
    if column.default is Derived.ROW_NUMBER:
        return rows.astype(str).astype(object)
    dtype = object if column.dtype is str else column.dtype
    return np.full(len(rows), column.default, dtype=dtype)


def _number(
    column: Column, cells: pd.Series, blank: np.ndarray, rows: np.ndarray, cluster: Cluster
) -> tuple[np.ndarray, np.ndarray]:
    numbers = pd.to_numeric(cells, errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    ok = column.interval.contains(numbers)
    if column.dtype is int:  # whole, and small enough to be exact (and not overflow)
        ok &= (numbers == np.round(numbers)) & (np.abs(numbers) < _EXACT)
    bad = ~ok & (~blank | column.required)
    empty = blank | bad
    if empty.any():  # bad cells get the default too, only to keep the dtype
        fill = np.zeros(len(rows)) if column.required else _default(column, rows, cluster)
        numbers = np.where(empty, fill, numbers)
    return numbers.astype(column.dtype), bad


def _text(
    column: Column, cells: pd.Series, blank: np.ndarray, rows: np.ndarray, cluster: Cluster
) -> tuple[np.ndarray, np.ndarray]:
    if column.choices:
        cells = cells.str.lower()
    text = cells.to_numpy(dtype=object, na_value="")
    if blank.any():
        text = np.where(blank, _default(column, rows, cluster), text)
    bad = ~np.isin(text, column.choices) if column.choices else np.zeros(len(text), bool)
    return text, bad


def _show(cell: object) -> str:
    if isinstance(cell, str):
        return repr(cell)
    number = float(cell)
    return str(int(number)) if number.is_integer() else repr(number)


def _cell_problems(
    column: Column, cells: pd.Series, blank: np.ndarray, bad: np.ndarray, rows: np.ndarray
) -> list[Problem]:
    return [
        Problem(
            row=int(rows[i]),
            column=column.name,
            message="got an empty cell" if blank[i] else f"got {_show(cells.iat[i])}",
            expected=column.expected,
        )
        for i in np.flatnonzero(bad)
    ]


def _parameter_problems(
    values: dict[str, np.ndarray],
    given: dict[str, np.ndarray],
    bad: dict[str, np.ndarray],
    rows: np.ndarray,
) -> list[Problem]:
    """A parameter given for another model is flagged: the user meant it to matter."""
    found = []
    model = values["model"]
    for column in COLUMNS:
        if column.applies_to is None:
            continue
        stray = given[column.name] & ~bad[column.name] & ~bad["model"]
        stray &= model != column.applies_to
        found += [
            Problem(
                row=int(rows[i]),
                column=column.name,
                message=f"got {_show(values[column.name][i])} for model {model[i]!r}",
                expected=f"an empty cell ({column.name} only applies to model "
                f"{column.applies_to!r})",
            )
            for i in np.flatnonzero(stray)
        ]
    return found


def _duplicate_ids(job_ids: np.ndarray, rows: np.ndarray) -> list[Problem]:
    ids = pd.Series(job_ids)
    repeats = np.flatnonzero(ids.duplicated().to_numpy())
    if len(repeats) == 0:
        return []
    first_row = dict(zip(ids[::-1], rows[::-1], strict=True))
    return [
        Problem(
            row=int(rows[i]),
            column="job_id",
            message=f"got {job_ids[i]!r}, already used on row {first_row[job_ids[i]]}",
            expected="a job id no other row uses",
        )
        for i in repeats
    ]


def _gpu_problems(
    values: dict[str, np.ndarray],
    bad: dict[str, np.ndarray],
    rows: np.ndarray,
    cluster: Cluster,
) -> list[Problem]:
    """Checks between the GPU columns, on the rows whose GPU cells are each valid."""
    checked = ~np.logical_or.reduce([bad[name] for name in _GPU_COLUMNS])
    low, high, want = (values[name] for name in ("min_gpus", "max_gpus", "requested_gpus"))
    found = [
        Problem(
            row=int(rows[i]),
            column="min_gpus",
            message=f"min_gpus {low[i]} is more than max_gpus {high[i]}",
            expected="min_gpus <= max_gpus",
        )
        for i in np.flatnonzero(checked & (low > high))
    ]
    checked &= low <= high
    found += [
        Problem(
            row=int(rows[i]),
            column="requested_gpus",
            message=f"got {want[i]}",
            expected=f"between min_gpus {low[i]} and max_gpus {high[i]}",
        )
        for i in np.flatnonzero(checked & ((want < low) | (want > high)))
    ]
    checked &= (low <= want) & (want <= high)
    fits = pd.DataFrame({name: values[name][checked] for name in _GPU_COLUMNS})
    return found + cluster_problems(fits, cluster, rows[checked])
