"""Reading a comma-separated table with a header, remembering each record's line.

The native format and the Philly and Pollux traces are all such tables; reading them
one way gives every format the same row numbers and the same header diagnostics.

Most files hold no quote characters, so each line is one record and a split on commas
is exact: that path reads 200,000 rows about five times faster than the ``csv``
module, and ``pd.read_csv`` turns its numeric columns into numbers with the converter
``pd.to_numeric`` uses. Files with quotes go through the ``csv`` module instead.
"""

from __future__ import annotations

import csv
import difflib
import io
import itertools
from collections.abc import Collection, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from engine.workload.bulk import collector_paused, stripped, to_numbers
from engine.workload.errors import Problem, WorkloadError

_TYPO_CUTOFF = 0.8
"""How alike an unknown column must be to a known one to be called a misspelling.

Lower than this, extra columns (``user``, ``notes``, ``num_gpus``) are common and are
ignored instead; 0.8 still catches ``submit_tim``, ``jobid`` or ``max_gpu``.
"""
_RENAME_CUTOFF = 0.6
"""How alike an unknown column must be to a missing required one to suggest a rename."""
_OTHER_DELIMITERS = {";": "';'", "\t": "tab"}
"""Separators spreadsheets export instead of commas, as a message names them."""


@dataclass(frozen=True)
class RowLimit:
    """At most ``rows`` job rows in a file (``None``: no limit but memory).

    ``hint`` is appended to the refusal in parentheses: how the caller's user lifts
    the limit (a command-line option, another tool), which only the caller knows.
    """

    rows: int | None = None
    hint: str = ""

    def __post_init__(self) -> None:
        if self.rows is not None and self.rows < 1:
            raise ValueError(f"max_rows must be at least 1, or None for no limit; got {self.rows}")

    def check(self, count: int) -> None:
        """Refuse a file of ``count`` job rows above the limit, before any validation."""
        if self.rows is None or count <= self.rows:
            return
        hint = f" ({self.hint})" if self.hint else ""
        raise WorkloadError(
            [
                Problem(
                    None,
                    None,
                    f"the file has {count:,} job rows, more than the limit of {self.rows:,}{hint}",
                )
            ]
        )


@dataclass(frozen=True)
class Table:
    """The header, the well-formed records by column, and what was wrong while reading.

    ``rows[i]`` is the file line record ``i`` starts on (the header is line 1 when it is
    the first line), which is the row number a spreadsheet shows. ``numbers`` holds the
    columns asked for as numeric, parsed as ``bulk.to_numbers`` would parse them (NaN
    for an empty or unreadable cell).
    """

    header: tuple[str, ...]
    columns: dict[str, tuple[str, ...]]
    rows: np.ndarray
    problems: tuple[Problem, ...]
    numbers: dict[str, np.ndarray]


@dataclass(frozen=True)
class _Records:
    """What either reader found: the header and its line, and the well-formed records."""

    header_line: int
    names: tuple[str, ...]
    cells: list[list[str]]
    """Each well-formed record's cells, column by column."""
    rows: list[int]
    problems: list[Problem]
    job_rows: int
    """Non-blank records after the header, well-formed or not."""
    plain_text: str | None
    """The well-formed records as comma-separated lines, when no quoting was involved."""


def read_table(text: str, limit: RowLimit = RowLimit(), numeric: Collection[str] = ()) -> Table:
    """Parse CSV text, and parse the ``numeric`` columns as numbers.

    An empty file, a file separated by something other than commas, or one with more
    job rows than ``limit`` raises at once; everything else is collected as problems.
    """
    found = _plain_records(text, limit) or _quoted_records(text, limit)
    names = found.names
    problems = [*_header_shape(names, found.header_line), *found.problems]
    if not found.job_rows:
        problems.append(
            Problem(
                None,
                None,
                "the file has a header but no job rows",
                "at least one line per job after the header",
            )
        )
    position = {name: j for j, name in enumerate(names)}  # a repeated name: its last column
    columns = {name: tuple(found.cells[j]) for name, j in position.items()}
    wanted = {name: position[name] for name in numeric if name in position}
    return Table(
        names,
        columns,
        np.array(found.rows, dtype=np.int64),
        tuple(problems),
        _numbers(found, wanted),
    )


def _plain_records(text: str, limit: RowLimit) -> _Records | None:
    """The records of a file without quotes (one per line), or None when it has some.

    Exactly what ``csv.reader(..., skipinitialspace=True)`` returns for such a file; a
    quote, a lone carriage return or a cell above the csv module's size limit leave
    the file to ``_quoted_records``, which reads (or reports) them as before.
    """
    if '"' in text:
        return None
    if "\r" in text:
        text = text.replace("\r\n", "\n")
        if "\r" in text:
            return None
    lines = text.split("\n")
    if max(map(len, lines)) > csv.field_size_limit():
        return None
    blank = [not line.replace(",", "").strip() for line in lines]
    start = next((i for i, empty in enumerate(blank) if not empty), None)
    if start is None:
        raise _empty_file()
    names = _header(lines[start].split(","), start + 1)
    body = lines[start + 1 :]
    jobs = list(itertools.compress(range(len(body)), [not empty for empty in blank[start + 1 :]]))
    limit.check(len(jobs))
    width = len(names)
    fields = [body[i].count(",") + 1 for i in jobs]
    good = [i for i, count in zip(jobs, fields, strict=True) if count == width]
    problems = [
        _field_count(start + 2 + i, count, width)
        for i, count in zip(jobs, fields, strict=True)
        if count != width
    ]
    kept = [body[i] for i in good]
    joined = ",".join(kept)
    flat = joined.split(",") if kept else []
    if joined.startswith(" ") or ", " in joined:  # skipinitialspace
        flat = [cell.lstrip(" ") for cell in flat]
    return _Records(
        header_line=start + 1,
        names=names,
        cells=[flat[j::width] for j in range(width)],
        rows=[start + 2 + i for i in good],
        problems=problems,
        job_rows=len(jobs),
        plain_text="\n".join(kept),
    )


def _quoted_records(text: str, limit: RowLimit) -> _Records:
    """The records as the ``csv`` module reads them; past the limit they are only counted."""
    reader = csv.reader(io.StringIO(text), skipinitialspace=True)
    with collector_paused():
        try:
            header = next((record for record in reader if not _blank(record)), None)
        except csv.Error as err:  # e.g. a cell over the csv module's 131,072 characters
            raise WorkloadError(
                [Problem(reader.line_num, None, f"unreadable header ({err})", "a CSV header line")]
            ) from None
        if header is None:
            raise _empty_file()
        names = _header(header, reader.line_num)
        header_line = reader.line_num
        records: list[list[str]] = []
        rows: list[int] = []
        problems: list[Problem] = []
        job_rows = 0
        while True:
            line = reader.line_num + 1
            try:
                record = next(reader, None)
            except csv.Error as err:
                problems.append(Problem(line, None, f"unreadable CSV ({err})", "a CSV line"))
                if reader.line_num < line:  # the reader could not move past it
                    break
                continue
            if record is None:
                break
            if _blank(record):
                continue
            job_rows += 1
            if len(record) != len(names):
                problems.append(_field_count(line, len(record), len(names)))
            elif limit.rows is None or job_rows <= limit.rows:
                records.append(record)
                rows.append(line)
        limit.check(job_rows)
        cells = [list(column) for column in zip(*records, strict=True)] or [[] for _ in names]
    return _Records(header_line, names, cells, rows, problems, job_rows, plain_text=None)


def _numbers(found: _Records, wanted: dict[str, int]) -> dict[str, np.ndarray]:
    """The ``wanted`` columns (name: position) as floats, NaN where empty or unreadable.

    From comma-separated text ``pd.read_csv`` parses them in C with the converter
    ``pd.to_numeric`` uses; a column it cannot read as numbers throughout (a bad cell)
    is parsed cell by cell by ``bulk.to_numbers`` instead, so both give the same bits.
    """
    parsed: dict[str, np.ndarray] = {}
    if found.plain_text and wanted:
        frame = pd.read_csv(
            io.StringIO(found.plain_text),
            header=None,
            usecols=sorted(set(wanted.values())),
            skipinitialspace=True,
            quoting=csv.QUOTE_NONE,
            skip_blank_lines=False,
            low_memory=False,
        )
        for name, j in wanted.items():
            column = frame[j].to_numpy()
            if column.dtype.kind in "iuf":
                parsed[name] = column.astype(float)
    for name, j in wanted.items():
        if name not in parsed:
            parsed[name] = to_numbers(stripped(found.cells[j]))
    return parsed


def header_problems(
    header: Sequence[str], known: Sequence[str], required: Sequence[str]
) -> tuple[list[Problem], tuple[str, ...]]:
    """Misspelt and missing columns as problems, and the unknown columns to ignore.

    Names compare case-insensitively, so ``Submit_Time`` is caught as a misspelling.
    """
    lowered = {name.lower(): name for name in known if name not in header}
    problems: list[Problem] = []
    unknown: list[str] = []
    suggested: set[str] = set()
    for name in header:
        if name in known or not name:
            continue
        match = _closest(name.lower(), lowered)
        if match:
            suggested.add(lowered[match[0]])
            problems.append(
                Problem(None, name, f"not a known column; did you mean {lowered[match[0]]!r}?")
            )
        else:
            unknown.append(name)
    for name in required:
        if name in header or name in suggested:
            continue
        match = difflib.get_close_matches(name, unknown, n=1, cutoff=_RENAME_CUTOFF)
        hint = f"; is {match[0]!r} it? Rename it to {name!r}" if match else ""
        problems.append(Problem(None, name, f"required column is missing{hint}"))
    return problems, tuple(unknown)


def _closest(name: str, known: Sequence[str]) -> list[str]:
    """The known name ``name`` most likely misspells: swapped letters first (``modle`` is
    ``model``, not ``mode``), else the closest by ``difflib``."""
    swapped = [k for k in known if len(k) == len(name) and sorted(k) == sorted(name)]
    return swapped[:1] or difflib.get_close_matches(name, known, n=1, cutoff=_TYPO_CUTOFF)


def _header(cells: list[str], line: int) -> tuple[str, ...]:
    """The column names; a lone name holding ``;`` or a tab means another separator."""
    names = tuple(name.strip() for name in cells)
    if len(names) == 1:
        for delimiter, called in _OTHER_DELIMITERS.items():
            if delimiter in names[0]:
                raise WorkloadError(
                    [
                        Problem(
                            line,
                            None,
                            f"the header is one column, {names[0]!r}: "
                            f"the file looks {called}-separated",
                            "columns separated by commas (',')",
                        )
                    ]
                )
    return names


def _empty_file() -> WorkloadError:
    return WorkloadError(
        [
            Problem(
                None,
                None,
                "the file is empty",
                "a header line naming the columns, then one line per job",
            )
        ]
    )


def _field_count(line: int, count: int, width: int) -> Problem:
    return Problem(line, None, f"got {count} fields", f"{width}, one per header column")


def _blank(record: list[str]) -> bool:
    """Empty lines, and spreadsheet rows of empty cells (``,,,``), hold no job."""
    return not "".join(record).strip()


def _header_shape(names: tuple[str, ...], line: int) -> list[Problem]:
    problems = [
        Problem(line, None, f"header column {i} has no name", "a column name")
        for i, name in enumerate(names, start=1)
        if not name
    ]
    seen: dict[str, int] = {}
    for i, name in enumerate(names, start=1):
        if name and name in seen:
            problems.append(
                Problem(
                    line,
                    name,
                    f"appears twice (header columns {seen[name]} and {i})",
                    "each column once",
                )
            )
        seen.setdefault(name, i)
    return problems
