"""The evaluation matrix: ``drl`` against every baseline, cell by cell.

A cell is a cluster shape x a workload source x (for generated workloads) an offered
load; the cells are defined in one committed file (:data:`CELLS_PATH`), so the matrix
cannot quietly shrink to the cells a policy wins. Each cell runs every runnable policy
on several workloads (seeds, or windows of a trace) through one executor map, and
reports per policy the mean average JCT with its 95% CI; which non-oracle baseline is
best there; and ``drl``'s margin over it, over ``fifo-request`` (what Slurm does) and
over ``threshold-optimal`` (the research's reference), each margin with the 95% CI of
its per-workload values (paired: the same workloads for both policies).

Oracles are left out of "best baseline": ``threshold-optimal`` picks its setting on the
very workload it is scored on (a :class:`~engine.policies.tuned.TunedPolicy`), which no
online scheduler can do. With ``ceiling`` each cell also runs :data:`CEILING`, drl's
teachers with the best one picked in hindsight: where even that is behind the best
baseline, the bar is beyond what the student's family of rules reaches there.
"""

from __future__ import annotations

import math
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from engine.cluster import Cluster
from engine.compare import Comparison, compare_all, mean_ci, resolve_all, runnable_policies
from engine.errors import LabError
from engine.job import Job
from engine.parallel import Executor, Progress
from engine.paths import pollux_workloads, shared_data
from engine.policies import make_policy
from engine.policies.tuned import TunedPolicy
from engine.workload import GeneratorConfig, Workload, load_workload, to_jobs
from engine.workload.models import offered_load

CELLS_PATH = Path(__file__).with_name("data") / "evaluation_cells.toml"
TARGET, REFERENCE, FLOOR = "drl", "threshold-optimal", "fifo-request"
CEILING = "teachers-optimal"
TOLERANCE = 0.03
"""How far ``drl`` may be behind a cell's best non-oracle baseline (the issue's bar)."""
SOURCES = ("generated", "philly", "swf", "pollux")
QUICK_WORKLOADS, QUICK_JOBS = 2, 100


class CellsError(LabError, ValueError):
    """The cells file is not what :func:`read_cells` expects; the message says where."""


@dataclass(frozen=True)
class Cell:
    """One cell: where (``cluster``), what (``source``, a generated ``config``, or a trace
    ``path`` cut into windows), and on which workloads."""

    group: str
    cluster: Cluster
    source: str
    config: GeneratorConfig | None = None
    seeds: tuple[int, ...] = ()
    path: str | None = None
    windows: int = 0
    window_jobs: int = 0

    @property
    def name(self) -> str:
        where = f"{self.cluster.nodes}x{self.cluster.gpus_per_node}"
        return f"{self.group}: {where}" + (f", load {self.config.load:g}" if self.config else "")


@dataclass(frozen=True)
class CellResult:
    """One cell's figures (JCTs in seconds; margins as fractions, > 0 when drl is faster)."""

    cell: Cell
    workloads: int
    offered_load: float
    policies: Mapping[str, tuple[float, float]]
    """policy -> (mean average JCT, 95% CI half-width) over the cell's workloads."""
    best_baseline: str
    margins: Mapping[str, tuple[float, float]]
    """Versus ``best_baseline``, ``FLOOR`` and ``REFERENCE``: (1 - drl mean / its mean,
    95% CI half-width of the per-workload margins)."""
    ceiling: float | None = None
    """1 - :data:`CEILING`'s mean / the best baseline's, when it ran: how far ahead of (or,
    < 0, behind) the best baseline the teachers get with hindsight."""

    @property
    def holds(self) -> bool:
        """drl is at most ``TOLERANCE`` behind the best baseline (on the mean) and never
        behind ``fifo-request``."""
        return bool(self.margins["best"][0] >= -TOLERANCE and self.margins[FLOOR][0] >= 0.0)

    @property
    def clearly_behind(self) -> bool:
        """drl is behind the best baseline beyond noise: the whole 95% CI of its
        per-workload margins is below 0."""
        mean, half = self.margins["best"]
        return bool(math.isfinite(half) and mean + half < 0.0)

    def as_dict(self) -> dict[str, Any]:
        return {
            "group": self.cell.group, "cell": self.cell.name, "source": self.cell.source,
            "cluster": str(self.cell.cluster), "workloads": self.workloads,
            "offered_load": self.offered_load,
            "policies": {p: {"mean": m, "ci95": h} for p, (m, h) in self.policies.items()},
            "best_baseline": self.best_baseline,
            "margins": {k: {"mean": m, "ci95": h} for k, (m, h) in self.margins.items()},
            "holds": self.holds,
            "clearly_behind": self.clearly_behind,
            "ceiling_vs_best_baseline": self.ceiling,
        }


@dataclass(frozen=True)
class Matrix:
    """Every cell's result, the headline figures, and what could not run."""

    cells: tuple[CellResult, ...]
    skipped: tuple[str, ...] = ()
    """Groups left out and why (a trace file absent)."""
    skipped_policies: Mapping[str, str] = field(default_factory=dict)

    @property
    def mean_margin_vs_reference(self) -> float:
        return float(np.mean([c.margins[REFERENCE][0] for c in self.cells]))

    def as_dict(self) -> dict[str, Any]:
        return {
            "cells": [c.as_dict() for c in self.cells],
            "mean_margin_vs_threshold_optimal": self.mean_margin_vs_reference,
            "cells_holding": int(sum(c.holds for c in self.cells)),
            "cells_behind_best_baseline": [c.cell.name for c in self.cells if not c.holds],
            "cells_clearly_behind": [c.cell.name for c in self.cells if c.clearly_behind],
            "skipped": list(self.skipped),
            "skipped_policies": dict(self.skipped_policies),
        }


def read_cells(path: Path = CELLS_PATH, quick: bool = False) -> tuple[list[Cell], list[str]]:
    """The cells ``path`` defines, and a note per group whose trace file is absent.

    ``quick`` keeps each group's first cluster and load, ``QUICK_WORKLOADS`` seeds or
    windows and ``QUICK_JOBS`` jobs per workload.
    """
    try:
        document = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as error:
        raise CellsError(f"{path}: not valid TOML: {error}") from None
    cells: list[Cell] = []
    skipped: list[str] = []
    for number, group in enumerate(document.get("group", []), 1):
        where = f"{path.name}, group {number}"
        try:
            made, note = _group_cells(group, quick)
        except (KeyError, TypeError, ValueError) as error:
            raise CellsError(f"{where} ({group.get('name', '?')}): {error}") from None
        cells += made
        skipped += [f"{group['name']}: {note}"] if note else []
    if not cells:
        raise CellsError(f"{path}: no cells (need at least one [[group]])")
    return cells, skipped


def _group_cells(group: Mapping[str, Any], quick: bool) -> tuple[list[Cell], str | None]:
    source, name = group["source"], str(group["name"])
    if source not in SOURCES:
        raise ValueError(f"source must be one of {', '.join(SOURCES)}, got {source!r}")
    clusters = [_cluster(text) for text in group["clusters"]][: 1 if quick else None]
    if source == "generated":
        loads = list(group["loads"])[: 1 if quick else None]
        seeds = tuple(int(s) for s in group["seeds"])[: QUICK_WORKLOADS if quick else None]
        jobs = QUICK_JOBS if quick else int(group["jobs"])
        base = GeneratorConfig(jobs=jobs, **group.get("workload", {}))
        return [Cell(name, c, source, replace(base, load=float(load)), seeds)
                for c in clusters for load in loads], None
    if source == "pollux":
        return [Cell(name, c, source) for c in clusters], None
    path = str(group["path"])
    if not shared_data(path).is_file():
        return [], f"{shared_data(path)} is absent"
    windows = QUICK_WORKLOADS if quick else int(group["windows"])
    jobs = QUICK_JOBS if quick else int(group["window_jobs"])
    return [Cell(name, c, source, path=path, windows=windows, window_jobs=jobs)
            for c in clusters], None


def _cluster(text: str) -> Cluster:
    match = re.fullmatch(r"(\d+)x(\d+)", str(text))
    if not match:
        raise ValueError(f"a cluster is 'NODESxGPUS_PER_NODE' (like '16x4'), got {text!r}")
    return Cluster(int(match[1]), int(match[2]))


def window(workload: Workload, start: int, jobs: int) -> Workload:
    """``jobs`` consecutive jobs of ``workload`` from row ``start``, the clock starting at
    the first one's submission (a trace's window as a workload of its own)."""
    frame = workload.frame.iloc[start:start + jobs].reset_index(drop=True)
    frame = frame.assign(submit_time=frame["submit_time"] - frame["submit_time"].iloc[0])
    return Workload(frame, f"{workload.name}[{start}:{start + len(frame)}]")


def window_starts(total: int, windows: int, jobs: int) -> list[int]:
    """Starts of ``windows`` windows of ``jobs`` spread evenly over ``total`` rows."""
    last = max(total - jobs, 0)
    return sorted({round(last * i / max(windows - 1, 1)) for i in range(windows)})


def cell_workloads(cell: Cell) -> tuple[Mapping[int, list[Job]] | list[int], float]:
    """The cell's workloads (seeds to generate, or jobs per trace window or Pollux
    workload) and their mean offered load on the cell's cluster."""
    if cell.source == "generated":
        assert cell.config is not None
        return list(cell.seeds), cell.config.load
    if cell.source == "pollux":
        files = sorted(pollux_workloads().glob("workload-*.csv"))
        found = {i: load_workload(f, fmt="pollux", cluster=cell.cluster)
                 for i, f in enumerate(files, 1)}
    else:
        assert cell.path is not None
        trace = load_workload(shared_data(cell.path), fmt=cell.source, cluster=cell.cluster)
        found = {start: window(trace, start, cell.window_jobs)
                 for start in window_starts(len(trace), cell.windows, cell.window_jobs)}
    load = float(np.nanmean([offered_load(w, cell.cluster) for w in found.values()]))
    return {key: to_jobs(w, cell.cluster) for key, w in found.items()}, load


def evaluate(
    cells: Sequence[Cell],
    executor: Executor | None = None,
    progress: Progress | None = None,
    skipped: Sequence[str] = (),
    ceiling: bool = False,
) -> Matrix:
    """Run every runnable policy (and, with ``ceiling``, :data:`CEILING`) on every cell,
    all runs in one executor map."""
    runnable: dict[Cluster, tuple[list[str], dict[str, str]]] = {}
    skipped_policies: dict[str, str] = {}
    for cell in cells:
        if cell.cluster not in runnable:
            runnable[cell.cluster] = runnable_policies(cell.cluster)
        names, why = runnable[cell.cluster]
        skipped_policies.update(why)
        if not {TARGET, REFERENCE, FLOOR} <= set(names):
            raise LabError(f"cannot evaluate without {TARGET}, {REFERENCE} and {FLOOR}: {why}")
    found = [cell_workloads(c) for c in cells]
    resolved = resolve_all([(w, c.cluster, c.config) for c, (w, _) in zip(cells, found,
                                                                          strict=True)], executor)
    extra = (CEILING,) if ceiling else ()
    comparisons = [Comparison((*runnable[c.cluster][0], *extra), w, c.cluster)
                   for c, w in zip(cells, resolved, strict=True)]
    tables = compare_all(comparisons, executor, progress)
    names = {name for c in comparisons for name in c.policies}
    oracles = {name for name in names if isinstance(make_policy(name), TunedPolicy)}
    results = tuple(_cell_result(cell, load, table, oracles)
                    for cell, (_, load), table in zip(cells, found, tables, strict=True))
    return Matrix(results, tuple(skipped), skipped_policies)


def _cell_result(cell: Cell, load: float, table: Any, oracles: set[str]) -> CellResult:
    jct = table.pivot(index="seed", columns="policy", values="avg_jct")
    policies = {p: mean_ci(jct[p].to_numpy(float)) for p in jct.columns}
    baselines = [p for p in jct.columns if p != TARGET and p not in oracles]
    best = min(baselines, key=lambda p: policies[p][0])
    ours = jct[TARGET].to_numpy(float)

    def margin(other: str) -> tuple[float, float]:
        theirs = jct[other].to_numpy(float)
        return 1.0 - ours.mean() / theirs.mean(), mean_ci(1.0 - ours / theirs)[1]

    return CellResult(
        cell=cell,
        workloads=len(jct),
        offered_load=load,
        policies=policies,
        best_baseline=best,
        margins={"best": margin(best), FLOOR: margin(FLOOR), REFERENCE: margin(REFERENCE)},
        ceiling=1.0 - policies[CEILING][0] / policies[best][0] if CEILING in policies else None,
    )

