"""Threshold-based scaling: large allocations when the cluster is quiet, small when busy.

The rule-based family that learned schedulers are compared with: one load signal against
one threshold ``T`` decides each job's size. Jobs start in arrival order, and before each
start the signal is read afresh:

* ``free``: the fraction of the cluster's GPUs free now; quiet when it is ``>= T``;
* ``queue``: the jobs still waiting, this one included; quiet when there are ``<= T``.

Quiet gives the job a *large* allocation: within the free GPUs, the most it still uses at
50% scaling efficiency or better, and never past its top speedup (``Sizing.efficient``).
Busy gives a *small* one: the user's own request. (Large is not simply "up to the top
speedup": the measured profiles keep speeding up to 64 GPUs, so every large job would
take the whole free cluster, every start would then find the cluster idle, and the
threshold would never matter.) The head blocks the queue when its size does not fit, so busy jobs
wait for their request as under ``fifo-request`` (``queue`` with ``T = 0`` is exactly
that policy). Reads no run times, only the speedup curve.
"""

from __future__ import annotations

from engine.cluster import Cluster
from engine.policies.sizing import Sizing, request
from engine.protocol import Allocation, Policy, SchedulerView

SIGNALS: tuple[str, ...] = ("free", "queue")


class Threshold(Policy):
    """Size each FIFO job large or small by ``signal`` against ``threshold``."""

    def __init__(self, signal: str = "free", threshold: float = 0.5, name: str = "") -> None:
        if signal not in SIGNALS:
            raise ValueError(f"unknown threshold signal {signal!r}; known: {', '.join(SIGNALS)}")
        self.signal = signal
        self.threshold = threshold
        self.name = name or f"threshold-{signal}"

    def __repr__(self) -> str:
        return f"Threshold({self.signal!r}, {self.threshold!r})"

    def reset(self, cluster: Cluster, seed: int) -> None:
        self._sizing = Sizing(cluster)

    def schedule(self, view: SchedulerView) -> list[Allocation]:
        total = view.cluster.total_gpus
        free = view.free_gpus
        queue = len(view.waiting)
        by_free = self.signal == "free"
        starts: list[Allocation] = []
        for job in view.waiting:
            level = free / total if by_free else queue
            quiet = level >= self.threshold if by_free else level <= self.threshold
            gpus = self._sizing.efficient(job, free) if quiet else request(job, total)
            if gpus is None or gpus > free:
                break
            info = {"rule": "large" if quiet else "small", self.signal: level, "T": self.threshold}
            starts.append(Allocation(job, gpus, info))
            free -= gpus
            queue -= 1
        return starts
