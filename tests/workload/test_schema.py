"""The schema is the single source of the README table, the template and the checks."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from engine.speedup import MODEL_NAMES
from engine.workload import COLUMN_NAMES, COLUMNS, load_workload, schema_markdown, template_csv
from engine.workload.schema import COLUMNS_BY_NAME, Interval

README = Path(__file__).resolve().parents[2] / "engine" / "workload" / "README.md"


def test_readme_holds_the_generated_column_table() -> None:
    assert schema_markdown() in README.read_text()


def test_schema_lists_the_native_columns_in_order() -> None:
    assert COLUMN_NAMES == (
        "submit_time",
        "runtime_1gpu",
        "model",
        "requested_gpus",
        "min_gpus",
        "max_gpus",
        "job_id",
        "mode",
        "serial_fraction",
        "downey_A",
        "downey_sigma",
        "batch_size",
    )
    assert [c.name for c in COLUMNS if c.required] == ["submit_time", "runtime_1gpu"]


def test_template_uses_every_column_and_loads() -> None:
    text = template_csv()
    assert text.splitlines()[0] == ",".join(COLUMN_NAMES)
    workload = load_workload(text)
    assert len(workload) >= 3
    assert workload.ignored_columns == ()
    assert set(workload.frame["model"]) >= {"amdahl", "downey"}


def test_expected_texts_come_from_the_column_specs() -> None:
    assert COLUMNS_BY_NAME["runtime_1gpu"].expected == "a number of seconds in [0.001, 31,536,000]"
    assert COLUMNS_BY_NAME["min_gpus"].expected == "a whole number of GPUs >= 1"
    assert COLUMNS_BY_NAME["serial_fraction"].expected == "a number in [0, 1)"
    assert COLUMNS_BY_NAME["model"].expected == "one of " + ", ".join(MODEL_NAMES)


def test_interval_membership_matches_its_description() -> None:
    values = np.array([-1.0, 0.0, 0.5, 1.0, np.nan, np.inf])
    half_open = Interval(low=0, high=1, high_open=True)
    assert str(half_open) == "in [0, 1)"
    assert half_open.contains(values).tolist() == [False, True, True, False, False, False]
    assert str(Interval(low=0, low_open=True)) == "> 0"
    assert Interval(low=0, low_open=True).contains(values).tolist() == [
        False,
        False,
        True,
        True,
        False,
        False,
    ]
