"""A validated workload: the jobs a simulation replays, as one table."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd


@dataclass(frozen=True, eq=False)
class Workload:
    """Jobs in the native columns (``schema.COLUMNS``), one row per job.

    Rows are sorted by ``submit_time`` (ties keep file order) and indexed 0..n-1, so a
    row's index is the simulator's job index. Only the loader and the generator build
    one, and they validate first, so every Workload is consistent; treat ``frame`` as
    read-only. ``ignored_columns`` are extra columns kept in the frame but not used.
    ``notes`` are sentences for the user about what loading changed, dropped or
    ignored (skipped jobs, clipped requests, ignored columns), ready to print;
    ``clipped_jobs`` counts the jobs whose request an importer cut to the cluster.
    """

    frame: pd.DataFrame
    name: str
    ignored_columns: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    clipped_jobs: int = 0

    def __len__(self) -> int:
        return len(self.frame)
