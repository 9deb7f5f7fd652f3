"""Reading a comma-separated table with a header, remembering each record's line.

The native format and the Philly and Pollux traces are all such tables; reading them
one way gives every format the same row numbers and the same header diagnostics.
"""

from __future__ import annotations

import csv
import difflib
import io
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from engine.workload.errors import Problem, WorkloadError

_TYPO_CUTOFF = 0.8
"""How alike an unknown column must be to a known one to be called a misspelling.

Lower than this, extra columns (``user``, ``notes``, ``num_gpus``) are common and are
ignored instead; 0.8 still catches ``submit_tim``, ``jobid`` or ``max_gpu``.
"""
_RENAME_CUTOFF = 0.6
"""How alike an unknown column must be to a missing required one to suggest a rename."""


@dataclass(frozen=True)
class Table:
    """The header, the well-formed records by column, and what was wrong while reading.

    ``rows[i]`` is the file line record ``i`` starts on (the header is line 1 when it is
    the first line), which is the row number a spreadsheet shows.
    """

    header: tuple[str, ...]
    columns: dict[str, tuple[str, ...]]
    rows: np.ndarray
    problems: tuple[Problem, ...]


def read_table(text: str, max_rows: int) -> Table:
    """Parse CSV text; an empty file raises, everything else is collected as problems."""
    reader = csv.reader(io.StringIO(text), skipinitialspace=True)
    header = next((record for record in reader if not _blank(record)), None)
    if header is None:
        raise WorkloadError(
            [
                Problem(
                    None,
                    None,
                    "the file is empty",
                    "a header line naming the columns, then one line per job",
                )
            ]
        )
    names = tuple(name.strip() for name in header)
    problems = _header_shape(names, reader.line_num)
    records: list[list[str]] = []
    rows: list[int] = []
    any_rows = False
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
        any_rows = True
        if len(records) == max_rows:
            problems.append(too_many_rows(max_rows))
            break
        if len(record) != len(names):
            problems.append(
                Problem(
                    line, None, f"got {len(record)} fields", f"{len(names)}, one per header column"
                )
            )
            continue
        records.append(record)
        rows.append(line)
    if not any_rows:
        problems.append(
            Problem(
                None,
                None,
                "the file has a header but no job rows",
                "at least one line per job after the header",
            )
        )
    cells = list(zip(*records, strict=True)) or [()] * len(names)
    columns = dict(zip(names, cells, strict=True))
    return Table(names, columns, np.array(rows, dtype=np.int64), tuple(problems))


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
        match = difflib.get_close_matches(name.lower(), lowered, n=1, cutoff=_TYPO_CUTOFF)
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


def too_many_rows(max_rows: int) -> Problem:
    """The limit exists so a huge upload cannot stall the app; say how to lift it."""
    return Problem(
        None,
        None,
        f"the file has more than {max_rows} job rows",
        f"at most max_rows={max_rows} (raise the limit to load more)",
    )


def _blank(record: list[str]) -> bool:
    """Empty lines, and spreadsheet rows of empty cells (``,,,``), hold no job."""
    return all(not cell.strip() for cell in record)


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
