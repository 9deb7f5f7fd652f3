"""The native CSV format: reading it, writing it, and a template to start from."""

from __future__ import annotations

import io
import math
import os
from typing import IO

import pandas as pd

from engine.cluster import Cluster
from engine.workload.schema import COLUMN_NAMES, COLUMNS
from engine.workload.table import RowLimit, header_problems, read_table
from engine.workload.validate import build_workload
from engine.workload.workload import Workload

_TEMPLATE_ROWS: tuple[tuple[object, ...], ...] = (
    # submit, runtime_1gpu, model, requested, min, max, job_id, mode, serial, A, sigma, batch
    (0, 3600, "bert", 4, 1, 16, "bert-finetune", "moldable", *[math.nan] * 3, 384),
    (120, 7200, "amdahl", 8, 2, 32, "amdahl-job", "rigid", 0.02, math.nan, math.nan, math.nan),
    (300, 1800, "downey", 2, 1, 8, "downey-job", "malleable", math.nan, 16.0, 0.5, math.nan),
    (900, 14400, "linear", 16, 4, 64, "ideal-job", "moldable", *[math.nan] * 4),
)


_NUMERIC = tuple(c.name for c in COLUMNS if c.dtype is not str)


def parse_native(text: str, cluster: Cluster, limit: RowLimit, name: str) -> Workload:
    """A native CSV's text as a Workload; unknown, unrelated columns are kept and ignored."""
    table = read_table(text, limit, _NUMERIC)
    problems, ignored = header_problems(
        table.header, COLUMN_NAMES, [c.name for c in COLUMNS if c.required]
    )
    return build_workload(
        {column: cells for column, cells in table.columns.items() if column in COLUMN_NAMES},
        table.rows,
        cluster,
        name,
        numbers=table.numbers,
        extra={column: table.columns[column] for column in ignored},
        problems=[*table.problems, *problems],
    )


def save_csv(workload: Workload, path_or_buffer: str | os.PathLike | IO[str]) -> None:
    """Write the workload as native CSV (NaN as an empty cell, floats exact).

    An all-moldable workload is written without the ``mode`` column, byte for byte as
    before modes existed (and as fast to read back).
    """
    frame = workload.frame
    if (frame["mode"].to_numpy() == "moldable").all():
        frame = frame.drop(columns="mode")
    frame = frame.assign(batch_size=frame["batch_size"].astype("Int64"))  # 384, not 384.0
    frame.to_csv(path_or_buffer, index=False, na_rep="")


def to_csv_bytes(workload: Workload) -> bytes:
    """The native CSV as UTF-8 bytes, e.g. for a download button."""
    buffer = io.StringIO()
    save_csv(workload, buffer)
    return buffer.getvalue().encode("utf-8")


def template_csv() -> str:
    """A small valid CSV using every column, for users to copy and edit."""
    frame = pd.DataFrame(_TEMPLATE_ROWS, columns=list(COLUMN_NAMES))
    return frame.assign(batch_size=frame["batch_size"].astype("Int64")).to_csv(
        index=False, na_rep="")
