"""Reading allocations off a job's speedup curve: its request, useful sizes and knee.

Policies size a job before the simulator places it, so they cost an allocation at its
packed placement (``ceil(gpus / gpus_per_node)`` nodes), the one the cluster gives it
whenever the free GPUs allow. A policy sees the same waiting job at many events, so the
sizes are read off a curve worked out once per speedup model and run (``Sizing`` lives
for one run).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from engine.cluster import Cluster, packed_nodes
from engine.job import Job
from engine.speedup.base import SpeedupModel

EFFICIENT = 0.5
"""Scaling efficiency (speedup / GPUs) below which a GPU is counted as mostly wasted: the
low end of the 0.5-0.8 band Pollux's users picked their GPU counts in (OSDI'21, 5.1)."""


def request(job: Job, total_gpus: int) -> int:
    """The user's request, clipped to what the job and the cluster accept."""
    return max(job.min_gpus, min(job.requested_gpus, job.max_gpus, total_gpus))


@dataclass(frozen=True, slots=True)
class _Curve:
    """Per cap ``c`` (index ``c - low``): the size in ``[low, c]`` each rule picks."""

    low: int
    useful: tuple[int, ...]
    efficient: tuple[int, ...]
    knee: tuple[int, ...]


def _prefix_argmax(sizes: range, score: Callable[[int], float]) -> tuple[int, ...]:
    """For each prefix of ``sizes``, its smallest size with the highest score."""
    best, best_score, out = sizes[0], -1.0, []
    for k in sizes:
        value = score(k)
        if value > best_score:
            best, best_score = k, value
        out.append(best)
    return tuple(out)


def _prefix_last(sizes: range, holds: Callable[[int], bool]) -> tuple[int, ...]:
    """For each prefix of ``sizes``, its largest size where ``holds`` (else the first)."""
    last, out = sizes[0], []
    for k in sizes:
        if holds(k):
            last = k
        out.append(last)
    return tuple(out)


class Sizing:
    """Run times at packed placements and the sizes policies pick, memoised per model."""

    __slots__ = ("_curves", "cluster")

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self._curves: dict[tuple[int, int, int], tuple[SpeedupModel, _Curve]] = {}

    def runtime(self, job: Job, gpus: int) -> float:
        """Seconds ``job`` runs on ``gpus`` packed GPUs."""
        return job.runtime(gpus, packed_nodes(gpus, self.cluster.gpus_per_node))

    def useful(self, job: Job, cap: int) -> int | None:
        """Max useful allocation within ``cap``: fewest GPUs reaching the top speedup.

        Past it more GPUs only slow the job (cross-node sync) or leave it as fast;
        ``None`` when ``cap`` is below the job's minimum.
        """
        curve = self._curve(job)
        return _read(curve.useful, curve.low, cap)

    def efficient(self, job: Job, cap: int) -> int | None:
        """The most GPUs within ``cap`` still used at ``EFFICIENT`` scaling efficiency.

        Never past the max useful size; the job's minimum when no size is that efficient;
        ``None`` when ``cap`` is below the minimum.
        """
        curve = self._curve(job)
        return _read(curve.efficient, curve.low, cap)

    def knee(self, job: Job, cap: int) -> int | None:
        """The knee within ``cap``: the size maximizing speedup x efficiency.

        Eager, Zahorjan and Lazowska (IEEE TC 1989) show this point of the
        execution-time/efficiency profile balances a job's speed against the GPUs it
        takes from others; ``None`` when ``cap`` is below the job's minimum.
        """
        curve = self._curve(job)
        return _read(curve.knee, curve.low, cap)

    def _curve(self, job: Job) -> _Curve:
        # Jobs of one model share a curve; the entry keeps its model, so a recycled id
        # can never match a different one.
        model = job.speedup_model
        key = (id(model), job.min_gpus, job.max_gpus)
        entry = self._curves.get(key)
        if entry is not None and entry[0] is model:
            return entry[1]
        sizes = job.allowed_gpus(self.cluster.total_gpus)
        per_node = self.cluster.gpus_per_node
        speedups = {k: model.speedup(k, packed_nodes(k, per_node)) for k in sizes}
        useful = _prefix_argmax(sizes, speedups.__getitem__)
        # 1e-9: a size exactly at the floor must not fall below it by float rounding
        efficient = _prefix_last(sizes, lambda k: speedups[k] >= EFFICIENT * k - 1e-9)
        curve = _Curve(
            low=sizes[0],
            useful=useful,
            efficient=tuple(map(min, useful, efficient)),
            knee=_prefix_argmax(sizes, lambda k: speedups[k] ** 2 / k),
        )
        self._curves[key] = (model, curve)
        return curve


def _read(best: tuple[int, ...], low: int, cap: int) -> int | None:
    return None if cap < low else best[min(cap - low, len(best) - 1)]
