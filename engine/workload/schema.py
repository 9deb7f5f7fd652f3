"""The native workload format, written down once.

The README's column table, the template CSV and the validation all read ``COLUMNS``,
so the documentation cannot drift from what the loader accepts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum

import numpy as np

from engine.job import LATEST_SUBMIT, MODES
from engine.speedup import MEASURED_MODELS, MODEL_NAMES
from engine.speedup.measured import default_batch


class Derived(Enum):
    """A default that depends on the cluster or the row, not a fixed value."""

    CLUSTER_SIZE = "the cluster's GPU count"
    ROW_NUMBER = "the row number"


@dataclass(frozen=True)
class Interval:
    """The range a numeric column accepts; ``None`` leaves that side open-ended."""

    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False

    def contains(self, values: np.ndarray) -> np.ndarray:
        """Element-wise membership; NaN is never inside."""
        inside = np.isfinite(values)
        if self.low is not None:
            inside &= values > self.low if self.low_open else values >= self.low
        if self.high is not None:
            inside &= values < self.high if self.high_open else values <= self.high
        return inside

    def __str__(self) -> str:
        if self.low is not None and self.high is not None:
            left, right = "(" if self.low_open else "[", ")" if self.high_open else "]"
            return f"in {left}{_number(self.low)}, {_number(self.high)}{right}"
        if self.low is not None:
            return f"{'>' if self.low_open else '>='} {_number(self.low)}"
        if self.high is not None:
            return f"{'<' if self.high_open else '<='} {_number(self.high)}"
        return "of any size"


def _number(value: float) -> str:
    """``31,536,000`` rather than ``3.1536e+07``; fractions as they are."""
    return f"{int(value):,}" if float(value).is_integer() else f"{value:g}"


YEAR = 365 * 24 * 3600
"""The longest one-GPU run time accepted: beyond it a value is a unit mistake, not a job."""
SHORTEST = 0.001
"""The shortest one-GPU run time accepted, a millisecond: far below it a run time on many
GPUs underflows to 0 s and the job would vanish from the run."""
PARALLELISM = 1e6
"""The largest Downey parameter accepted: above it ``A x n`` can overflow to infinity."""


@dataclass(frozen=True)
class Column:
    """One column of the native format.

    ``default`` fills an absent column or an empty cell of an optional one; NaN means
    "not applicable" (the speedup model then uses its own default). ``applies_to``
    names the models a parameter column belongs to.
    """

    name: str
    dtype: type
    required: bool
    default: object
    unit: str
    description: str
    interval: Interval | None = None
    choices: tuple[str, ...] = ()
    applies_to: tuple[str, ...] = ()

    @property
    def expected(self) -> str:
        """What a valid cell looks like, in the words an error message uses."""
        if self.choices:
            return f"one of {', '.join(self.choices)}"
        if self.dtype is str:
            return "a label"
        noun = "a whole number" if self.dtype is int else "a number"
        unit = f" of {self.unit}" if self.unit else ""
        return f"{noun}{unit} {self.interval}"

    @property
    def default_text(self) -> str:
        if self.required:
            return "-"
        if isinstance(self.default, Derived):
            return self.default.value
        if isinstance(self.default, float) and math.isnan(self.default):
            return "empty: the model's own default"
        return f"`{self.default}`"


_GPUS = Interval(low=1)

COLUMNS: tuple[Column, ...] = (
    Column(
        "submit_time",
        float,
        True,
        None,
        "seconds",
        "When the job is submitted.",
        Interval(low=0, high=LATEST_SUBMIT),
    ),
    Column(
        "runtime_1gpu",
        float,
        True,
        None,
        "seconds",
        "How long the job runs on one GPU (at most a year); other sizes follow from its "
        "speedup model.",
        Interval(low=SHORTEST, high=YEAR),
    ),
    Column(
        "model",
        str,
        False,
        "amdahl",
        "",
        "Speedup model: a measured DL job or an analytic law.",
        choices=MODEL_NAMES,
    ),
    Column(
        "requested_gpus",
        int,
        False,
        1,
        "GPUs",
        "What the user would ask Slurm or Kubernetes for; rigid baselines run this.",
        _GPUS,
    ),
    Column(
        "min_gpus",
        int,
        False,
        1,
        "GPUs",
        "Fewest GPUs the job can run on (e.g. for memory).",
        _GPUS,
    ),
    Column(
        "max_gpus",
        int,
        False,
        Derived.CLUSTER_SIZE,
        "GPUs",
        "Most GPUs the job may be given; clipped to the cluster.",
        _GPUS,
    ),
    Column(
        "job_id", str, False, Derived.ROW_NUMBER, "", "The job's label, unique within the workload."
    ),
    Column(
        "mode",
        str,
        False,
        "moldable",
        "",
        "rigid: runs exactly its request; moldable: its GPU count is fixed when it starts; "
        "malleable: elastic policies may resize it while it runs.",
        choices=MODES,
    ),
    Column(
        "serial_fraction",
        float,
        False,
        math.nan,
        "",
        "Amdahl's non-parallelisable fraction of the work.",
        Interval(low=0, high=1, high_open=True),
        applies_to=("amdahl",),
    ),
    Column(
        "downey_A",
        float,
        False,
        math.nan,
        "",
        "Downey's average parallelism.",
        Interval(low=1, high=PARALLELISM),
        applies_to=("downey",),
    ),
    Column(
        "downey_sigma",
        float,
        False,
        math.nan,
        "",
        "Downey's variance of parallelism.",
        Interval(low=0, high=PARALLELISM),
        applies_to=("downey",),
    ),
)

BATCH_COLUMN = Column(
    "batch_size",
    float,
    False,
    math.nan,
    "samples",
    "Global batch, split over the job's GPUs: sets how it scales and its most GPUs. "
    "Defaults (the Pollux workloads' commonest): "
    + ", ".join(f"{m} {default_batch(m):,}" for m in MEASURED_MODELS) + ".",
    Interval(low=1),
    applies_to=MEASURED_MODELS,
)
"""Whole numbers only, up to the model's largest validated batch (checked per row)."""
COLUMNS = (*COLUMNS, BATCH_COLUMN)

COLUMN_NAMES: tuple[str, ...] = tuple(c.name for c in COLUMNS)
COLUMNS_BY_NAME: dict[str, Column] = {c.name: c for c in COLUMNS}


def applies_to_text(column: Column, quote: str = "`") -> str:
    """``model `amdahl``` or ``the measured models``: whom a column is for."""
    if len(column.applies_to) == 1:
        return f"model {quote}{column.applies_to[0]}{quote}"
    return "the measured models"


def schema_markdown() -> str:
    """The column table of the README, for the docs and the upload page alike."""
    lines = [
        "| column | required | default | accepts | meaning |",
        "|---|---|---|---|---|",
    ]
    for c in COLUMNS:
        accepts = c.expected + (f" (only for {applies_to_text(c)})" if c.applies_to else "")
        lines.append(
            f"| `{c.name}` | {'yes' if c.required else 'no'} | {c.default_text} "
            f"| {accepts} | {c.description} |"
        )
    return "\n".join(lines) + "\n"
