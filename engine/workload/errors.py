"""Load errors that tell a user everything wrong with their file at once.

Fixing a file one complaint per upload is miserable, so the loader collects every
problem it finds and raises them together.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from engine.errors import LabError

MAX_LISTED = 50
"""Problems ``str(WorkloadError)`` spells out; the rest are counted."""


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a workload file.

    ``row`` is the 1-based line of the file, which for a CSV is exactly the row number a
    spreadsheet shows (the header is row 1, the first job row 2); ``None`` when the
    problem is not about one row. ``column`` is the column (or field) concerned.
    """

    row: int | None
    column: str | None
    message: str
    expected: str = ""

    def __str__(self) -> str:
        where = ", ".join(
            part
            for part in (
                None if self.row is None else f"row {self.row}",
                None if self.column is None else f"column {self.column!r}",
            )
            if part
        )
        text = f"{where}: {self.message}" if where else self.message
        return f"{text}, expected {self.expected}" if self.expected else text


class WorkloadError(LabError, ValueError):
    """A workload could not be loaded; ``problems`` holds every reason, in file order."""

    def __init__(self, problems: Iterable[Problem]) -> None:
        self.problems: tuple[Problem, ...] = tuple(
            sorted(problems, key=lambda p: (p.row is not None, p.row or 0))
        )
        super().__init__(self._listing())

    def __reduce__(self) -> tuple[type[WorkloadError], tuple[tuple[Problem, ...]]]:
        """Pickled by its problems, not its message, so that it crosses from a worker
        process (a server reads uploads in one) as itself."""
        return type(self), (self.problems,)

    def _listing(self) -> str:
        lines = [str(p) for p in self.problems[:MAX_LISTED]]
        hidden = len(self.problems) - MAX_LISTED
        if hidden > 0:
            lines.append(f"... and {hidden} more problems")
        return "\n".join(lines)
