"""The evaluation matrix: its cells file, trace windows, margins and the bar."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

import pytest

from engine.cli import main
from engine.cluster import Cluster
from engine.evaluation import (
    CEILING,
    CELLS_PATH,
    FLOOR,
    REFERENCE,
    Cell,
    CellResult,
    CellsError,
    evaluate,
    read_cells,
    window,
    window_starts,
)
from engine.heatmap import margin_heatmap
from engine.workload import GeneratorConfig, generate, to_jobs

TINY = """
[[group]]
name = "tiny"
source = "generated"
clusters = ["1x8"]
loads = [0.9]
seeds = [0, 1, 2]
jobs = 25
[group.workload]
request_rule = "one"
"""


def test_the_committed_matrix_covers_every_source_and_size():
    cells, _ = read_cells()
    assert {c.source for c in cells} <= {"generated", "philly", "swf", "pollux"}
    generated = [c for c in cells if c.source == "generated"]
    sizes = {c.cluster.total_gpus for c in generated}
    assert min(sizes) == 8 and max(sizes) == 256
    assert Cluster(1, 8) in {c.cluster for c in generated}
    assert {c.config.request_rule for c in generated} >= {"one", "any", "pollux"}
    assert {c.config.arrivals for c in generated} == {"poisson", "bursty"}
    assert max(c.config.load for c in generated) >= 2.0
    assert all(s < 1_000_000 for c in generated for s in c.seeds)  # never a training seed
    assert any(c.source == "pollux" for c in cells)
    assert len(cells) >= 40


def test_quick_keeps_one_cell_per_group_and_small_workloads():
    full, _ = read_cells()
    quick, _ = read_cells(quick=True)
    assert len({c.group for c in quick}) == len(quick) <= len(full)
    assert all(len(c.seeds) == 2 and c.config.jobs == 100 for c in quick if c.config)


@pytest.mark.parametrize("text, words", [
    ("[[group]]\nname='x'\nsource='nope'\nclusters=['1x8']", "source must be one of"),
    ("[[group]]\nname='x'\nsource='pollux'\nclusters=['8 nodes']", "NODESxGPUS_PER_NODE"),
    ("[[group]]\nname='x'\nsource='generated'\nclusters=['1x8']", "loads"),
    ("[[group]\n", "not valid TOML"),
    ("", "no cells"),
])
def test_a_bad_cells_file_names_the_group_and_the_problem(tmp_path: Path, text, words):
    path = tmp_path / "cells.toml"
    path.write_text(text)
    with pytest.raises(CellsError, match=words):
        read_cells(path)


def test_a_missing_trace_skips_its_group_with_a_note(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("MOLDABLE_LAB_DATA", str(tmp_path))
    cells, skipped = read_cells(quick=True)
    assert not any(c.source in ("philly", "swf") for c in cells)
    assert any("philly.csv is absent" in note for note in skipped)


def test_a_window_is_consecutive_jobs_on_a_clock_from_zero():
    workload = generate(GeneratorConfig(jobs=50, seed=3), Cluster(2, 4))
    part = window(workload, 10, 15)
    assert len(part) == 15
    assert part.frame["submit_time"].iloc[0] == 0.0
    original = workload.frame["submit_time"].iloc[10:25].to_numpy()
    assert part.frame["submit_time"].to_numpy() == pytest.approx(original - original[0])
    assert list(part.frame["job_id"]) == list(workload.frame["job_id"].iloc[10:25])
    assert list(part.frame.index) == list(range(15))


def test_window_starts_spread_evenly_and_stay_inside():
    assert window_starts(1000, 5, 200) == [0, 200, 400, 600, 800]
    assert window_starts(100, 3, 200) == [0]
    assert window_starts(1000, 1, 100) == [0]


def _result(best: tuple[float, float], floor: float) -> CellResult:
    cell = Cell("g", Cluster(1, 8), "generated")
    return CellResult(cell, 5, 1.0, {}, "sjf-knee",
                      {"best": best, FLOOR: (floor, 0.01), REFERENCE: (0.2, 0.01)})


def test_the_bar_allows_three_percent_but_never_slurm_fifo():
    assert _result((-0.02, 0.01), 0.1).holds
    assert not _result((-0.06, 0.01), 0.1).holds
    assert not _result((-0.06, 0.5), 0.1).holds  # a wide CI does not excuse the mean
    assert not _result((0.05, 0.01), -0.01).holds


def test_clearly_behind_means_the_whole_interval_is_below_zero():
    assert _result((-0.02, 0.01), 0.1).clearly_behind
    assert not _result((-0.02, 0.03), 0.1).clearly_behind
    assert not _result((-0.02, math.nan), 0.1).clearly_behind


def test_a_tiny_matrix_compares_drl_with_every_baseline(tmp_path: Path):
    path = tmp_path / "cells.toml"
    path.write_text(TINY)
    cells, _ = read_cells(path)
    (result,) = evaluate(cells).cells
    assert result.workloads == 3 and result.offered_load == pytest.approx(0.9)
    assert {"drl", REFERENCE, FLOOR, "sjf-knee"} <= set(result.policies)
    assert result.best_baseline not in ("drl", REFERENCE)
    best = min(m for p, (m, _) in result.policies.items() if p not in ("drl", REFERENCE))
    assert result.policies[result.best_baseline][0] == best
    drl = result.policies["drl"][0]
    assert result.margins["best"][0] == pytest.approx(1 - drl / best)
    assert result.margins[FLOOR][0] == pytest.approx(1 - drl / result.policies[FLOOR][0])


def test_the_ceiling_is_the_best_teacher_in_hindsight_and_never_a_baseline(tmp_path: Path):
    from engine.drl.expert import SHARPNESS, ExpertPolicy
    from engine.simulator import simulate

    path = tmp_path / "cells.toml"
    path.write_text(TINY)
    cells, _ = read_cells(path)
    (result,) = evaluate(cells, ceiling=True).cells
    assert result.best_baseline != CEILING
    cell = cells[0]
    best_teacher = []
    for seed in cell.seeds:
        jobs = to_jobs(generate(replace(cell.config, seed=seed), cell.cluster), cell.cluster)
        best_teacher.append(min(simulate(jobs, cell.cluster, ExpertPolicy(s)).summary.avg_jct
                                for s in SHARPNESS))
    assert result.policies[CEILING][0] == pytest.approx(sum(best_teacher) / len(best_teacher))
    assert result.ceiling == pytest.approx(
        1 - result.policies[CEILING][0] / result.policies[result.best_baseline][0])
    (plain,) = evaluate(cells).cells
    assert plain.ceiling is None and CEILING not in plain.policies


def test_the_command_prints_the_matrix_and_writes_the_heatmap(tmp_path: Path, capsys):
    path, svg = tmp_path / "cells.toml", tmp_path / "m.svg"
    path.write_text(TINY)
    md = tmp_path / "m.md"
    assert main(["evaluate", "--cells", str(path), "--heatmap", str(svg), "--markdown", str(md),
                 "--backend", "serial"]) == 0
    out = capsys.readouterr().out
    assert "tiny: 1x8, load 0.9" in out and "mean margin vs threshold-optimal" in out
    assert "ceiling vs best" not in out
    assert main(["evaluate", "--cells", str(path), "--ceiling", "--backend", "serial",
                 "--markdown", str(md)]) == 0
    out = capsys.readouterr().out
    assert "ceiling vs best" in out and f"cells where even {CEILING} is more than 3%" in out
    assert md.read_text().splitlines()[0].endswith(f"| `{CEILING}` vs best |")
    table = md.read_text().splitlines()
    assert table[0].startswith("| cell | load | `drl` (s)") and len(table) == 3
    assert table[2].startswith("| tiny: 1x8, load 0.9")
    root = ET.fromstring(svg.read_text())
    assert "tiny: 1x8, load 0.9 (0.9), best: " in "".join(root.itertext())


def test_a_bad_cells_file_is_one_line_and_exit_2(tmp_path: Path, capsys):
    path = tmp_path / "cells.toml"
    path.write_text("[[group]]\nname='x'\nsource='nope'\nclusters=['1x8']")
    assert main(["evaluate", "--cells", str(path)]) == 2
    assert "source must be one of" in capsys.readouterr().err


def test_the_heatmap_prints_every_value_and_escapes_labels():
    svg = margin_heatmap(["<b>cell</b>"], ["a", "b"], [[0.4, -0.5]], "t", [True])
    root = ET.fromstring(svg)
    text = "".join(root.itertext())
    assert "+40.0%" in text and "-50.0%" in text and "! <b>cell</b>" in text
    fills = [r.get("fill") for r in root.iter("{http://www.w3.org/2000/svg}rect")]
    assert "#1a9641" in fills and "#d73027" in fills  # full green, full red


def test_the_committed_cells_file_ships_with_the_package():
    assert CELLS_PATH.is_file()
    assert "data/*.toml" in (Path(__file__).parents[1] / "pyproject.toml").read_text()
