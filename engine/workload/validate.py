"""Turning raw columns into a Workload, or into the full list of what is wrong with them.

Every way in (the native CSV, the trace importers, the generator) ends here, so a
Workload is consistent whatever its origin. The checks are vectorised; only the cells
that fail cost Python time, which keeps 200,000-row files fast.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from engine.cluster import Cluster
from engine.speedup.measured import MEASURED_MODELS, load_application
from engine.workload.bulk import stripped, to_numbers
from engine.workload.errors import Problem, WorkloadError
from engine.workload.schema import COLUMNS, Column, Derived, applies_to_text
from engine.workload.workload import Workload

_GPU_COLUMNS = ("requested_gpus", "min_gpus", "max_gpus")
_EXACT = 2.0**53

Cells = Sequence[str] | np.ndarray
"""A column as the file's text cells, or (from the generator and importers) as numbers."""
NAMED_COLUMNS = 10
"""Ignored columns a note names; a file of thousands would make the note a page long."""


def build_workload(
    columns: Mapping[str, Cells],
    rows: np.ndarray,
    cluster: Cluster,
    name: str,
    *,
    numbers: Mapping[str, np.ndarray] | None = None,
    labels: Mapping[str, str] | None = None,
    extra: Mapping[str, Sequence[str]] | None = None,
    problems: Sequence[Problem] = (),
    notes: tuple[str, ...] = (),
    clipped_jobs: int = 0,
) -> Workload:
    """Validate ``columns`` (native names; text cells or numbers) and build the Workload.

    ``rows`` gives each record's file line, for messages. ``numbers`` holds text
    columns already parsed (``table.Table.numbers``, possibly clipped by an importer);
    the text is then only read for empty cells and messages. ``labels`` maps a native
    column to the column of the user's file it came from, so messages name the latter.
    ``problems`` found earlier (while reading the file) are raised together with the
    ones found here, in one WorkloadError, so nothing is ever half-loaded.
    """
    numbers = numbers or {}
    labels = labels or {}
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
        if column.dtype is str:
            cells = stripped(raw)
            blank = cells == ""
            values[column.name], bad[column.name] = _text(column, cells, blank, rows, cluster)
        else:
            cells, parsed, blank = _numeric_cells(raw, numbers.get(column.name))
            values[column.name], bad[column.name] = _number(column, parsed, blank, rows, cluster)
        given[column.name] = ~blank
        found += _cell_problems(column, labels, cells, blank, bad[column.name], rows)

    found += _parameter_problems(values, given, bad, rows, labels)
    found += _batch_problems(values, given, bad, rows, labels)
    found += _duplicate_ids(values["job_id"], rows, labels)
    found += _gpu_problems(values, bad, given, rows, cluster, labels)
    if n == 0 and not found:
        found.append(Problem(None, None, "the workload has no jobs", "at least one job"))
    if found:
        raise WorkloadError(found)

    frame = pd.DataFrame({c.name: pd.Series(values[c.name], dtype=c.dtype) for c in COLUMNS})
    if extra:  # one block of text: a Series per column took a second for 8,000 columns
        cells = np.empty((len(frame), len(extra)), dtype=object)
        for j, column in enumerate(extra.values()):
            cells[:, j] = [str(cell) for cell in column]
        frame = pd.concat([frame, pd.DataFrame(cells, columns=list(extra))], axis=1)
    submit = frame["submit_time"].to_numpy()
    if (np.diff(submit) < 0).any():  # sorting a sorted frame would change nothing
        order = np.argsort(submit, kind="stable")
        frame = frame.iloc[order].reset_index(drop=True)
    ignored = tuple(extra or ())
    if ignored:
        listed = ", ".join(repr(column_name) for column_name in ignored[:NAMED_COLUMNS])
        more = len(ignored) - NAMED_COLUMNS
        notes = (*notes, f"ignored columns that are not workload columns: {listed}"
                 + (f" and {more:,} more" if more > 0 else ""))
    return Workload(
        frame=frame, name=name, ignored_columns=ignored, notes=notes, clipped_jobs=clipped_jobs
    )


def cluster_problems(
    frame: pd.DataFrame | Mapping[str, np.ndarray],
    cluster: Cluster,
    rows: np.ndarray | None = None,
    labels: Mapping[str, str] | None = None,
) -> list[Problem]:
    """Jobs that cannot run on ``cluster`` at all: a minimum or a request too big for it.

    With ``rows`` the problems point at file rows; without (a loaded workload moved to
    a smaller cluster) they name the job instead.
    """
    total = cluster.total_gpus
    labels = labels or {}
    found = []
    for name in ("min_gpus", "requested_gpus"):
        gpus = np.asarray(frame[name])
        for i in np.flatnonzero(gpus > total):
            who = "got" if rows is not None else f"job {frame['job_id'].iat[i]!r} has"
            found.append(
                Problem(
                    row=None if rows is None else int(rows[i]),
                    column=labels.get(name, name),
                    message=f"{who} {gpus[i]}, more than the {total} GPUs of the "
                    f"{cluster.nodes}x{cluster.gpus_per_node} cluster",
                )
            )
    return found


def _numeric_cells(raw: Cells, parsed: np.ndarray | None) -> tuple[Cells, np.ndarray, np.ndarray]:
    """The cells to show in messages, their values (NaN: empty or unreadable), and blanks.

    Only cells that parsed to NaN can be empty, so only those are looked at as text.
    """
    if isinstance(raw, np.ndarray) and raw.dtype.kind in "iuf":
        values = raw.astype(float)
        return raw, values, np.isnan(values)
    values = to_numbers(stripped(raw)) if parsed is None else parsed
    blank = np.isnan(values)
    unparsed = np.flatnonzero(blank)
    blank[unparsed] = stripped([raw[i] for i in unparsed.tolist()]) == ""
    return raw, values, blank


def _default(column: Column, rows: np.ndarray, cluster: Cluster) -> np.ndarray:
    if column.default is Derived.CLUSTER_SIZE:
        return np.full(len(rows), cluster.total_gpus, dtype=np.int64)
    if column.default is Derived.ROW_NUMBER:
        return rows.astype(str).astype(object)
    dtype = object if column.dtype is str else column.dtype
    return np.full(len(rows), column.default, dtype=dtype)


def _number(
    column: Column, numbers: np.ndarray, blank: np.ndarray, rows: np.ndarray, cluster: Cluster
) -> tuple[np.ndarray, np.ndarray]:
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
    column: Column, cells: np.ndarray, blank: np.ndarray, rows: np.ndarray, cluster: Cluster
) -> tuple[np.ndarray, np.ndarray]:
    """Labels as given; a column of choices is judged on its few distinct values."""
    text = np.where(blank, _default(column, rows, cluster), cells) if blank.any() else cells
    if not column.choices:
        return text, np.zeros(len(text), dtype=bool)
    codes, distinct = pd.factorize(text)
    lowered = np.array([value.lower() for value in distinct], dtype=object)
    return lowered[codes], ~np.isin(lowered, column.choices)[codes]


def _show(cell: object) -> str:
    if isinstance(cell, str):
        return repr(cell.strip())
    number = float(cell)
    return str(int(number)) if number.is_integer() else repr(number)


def _cell_problems(
    column: Column,
    labels: Mapping[str, str],
    cells: Cells,
    blank: np.ndarray,
    bad: np.ndarray,
    rows: np.ndarray,
) -> list[Problem]:
    return [
        Problem(
            row=int(rows[i]),
            column=labels.get(column.name, column.name),
            message="got an empty cell" if blank[i] else f"got {_show(cells[i])}",
            expected=column.expected,
        )
        for i in np.flatnonzero(bad)
    ]


def _parameter_problems(
    values: dict[str, np.ndarray],
    given: dict[str, np.ndarray],
    bad: dict[str, np.ndarray],
    rows: np.ndarray,
    labels: Mapping[str, str],
) -> list[Problem]:
    """A parameter given for another model is flagged: the user meant it to matter."""
    found = []
    model = values["model"]
    for column in COLUMNS:
        if not column.applies_to:
            continue
        stray = given[column.name] & ~bad[column.name] & ~bad["model"]
        stray &= ~np.isin(model, column.applies_to)
        whom = applies_to_text(column, quote="'")
        found += [
            Problem(
                row=int(rows[i]),
                column=labels.get(column.name, column.name),
                message=f"got {_show(values[column.name][i])} for model {model[i]!r}",
                expected=f"an empty cell ({column.name} only applies to {whom})",
            )
            for i in np.flatnonzero(stray)
        ]
    return found


def _batch_problems(
    values: dict[str, np.ndarray],
    given: dict[str, np.ndarray],
    bad: dict[str, np.ndarray],
    rows: np.ndarray,
    labels: Mapping[str, str],
) -> list[Problem]:
    """A measured job's batch must be whole and validated, and its GPU counts within what
    that batch can use (each GPU needs at least the smallest measured local batch)."""
    found = []
    model, batch = values["model"], values["batch_size"]
    measured = np.isin(model, MEASURED_MODELS) & ~bad["model"] & ~bad["batch_size"]
    column = labels.get("batch_size", "batch_size")
    for name in np.unique(model[measured]).tolist():
        app = load_application(name)
        mine = measured & (model == name)
        sizes = np.where(given["batch_size"], batch, app.default_batch)
        wrong = mine & given["batch_size"] & (
            (sizes != np.round(sizes)) | (sizes > app.max_batch))
        found += [
            Problem(int(rows[i]), column, f"got {_show(batch[i])} for model {name!r}",
                    f"a whole number of samples in [1, {app.max_batch:,}] (the largest batch "
                    f"{name} was validated at)")
            for i in np.flatnonzero(wrong)
        ]
        for gpus in ("min_gpus", "requested_gpus"):
            checked = mine & ~wrong & ~bad[gpus]
            most = np.maximum(1, sizes[checked] // app.min_local_bsz)  # app.max_gpus, at once
            over = np.flatnonzero(checked)[values[gpus][checked] > most]
            found += [
                Problem(int(rows[i]), labels.get(gpus, gpus),
                        f"got {values[gpus][i]}, more GPUs than {name} at batch "
                        f"{int(sizes[i]):,} can use",
                        f"at most {app.max_gpus(int(sizes[i]))} (each GPU computes at least "
                        f"{app.min_local_bsz} samples per step)")
                for i in over
            ]
    return found


def _duplicate_ids(
    job_ids: np.ndarray, rows: np.ndarray, labels: Mapping[str, str]
) -> list[Problem]:
    if len(set(job_ids.tolist())) == len(job_ids):
        return []
    ids = pd.Series(job_ids, dtype=object)
    repeats = np.flatnonzero(ids.duplicated().to_numpy())
    first_row = dict(zip(ids[::-1], rows[::-1], strict=True))
    return [
        Problem(
            row=int(rows[i]),
            column=labels.get("job_id", "job_id"),
            message=f"got {job_ids[i]!r}, already used on row {first_row[job_ids[i]]}",
            expected="a job id no other row uses",
        )
        for i in repeats
    ]


def _gpu_problems(
    values: dict[str, np.ndarray],
    bad: dict[str, np.ndarray],
    given: dict[str, np.ndarray],
    rows: np.ndarray,
    cluster: Cluster,
    labels: Mapping[str, str],
) -> list[Problem]:
    """Checks between the GPU columns, on the rows whose GPU cells are each valid.

    A ``max_gpus`` the file leaves out is the cluster's size, so a bigger minimum or
    request is reported against the cluster, never against a column the user never set.
    A minimum too big for the cluster is that row's problem: its request is then only
    judged against the cluster.
    """
    checked = ~np.logical_or.reduce([bad[name] for name in _GPU_COLUMNS])
    low, high, want = (values[name] for name in ("min_gpus", "max_gpus", "requested_gpus"))
    capped = given["max_gpus"]
    found = [
        Problem(
            row=int(rows[i]),
            column=labels.get("min_gpus", "min_gpus"),
            message=f"min_gpus {low[i]} is more than max_gpus {high[i]}",
            expected="min_gpus <= max_gpus",
        )
        for i in np.flatnonzero(checked & capped & (low > high))
    ]
    checked &= ~capped | (low <= high)
    fits = low <= cluster.total_gpus
    outside = checked & fits & ((want < low) | (capped & (want > high)))
    found += [
        Problem(
            row=int(rows[i]),
            column=labels.get("requested_gpus", "requested_gpus"),
            message=f"got {want[i]}",
            expected=f"between min_gpus {low[i]} and max_gpus {high[i]}"
            if capped[i]
            else f"at least min_gpus {low[i]}",
        )
        for i in np.flatnonzero(outside)
    ]
    checked &= ~outside
    fitting = {name: values[name][checked] for name in ("min_gpus", "requested_gpus")}
    return found + cluster_problems(fitting, cluster, rows[checked], labels)
