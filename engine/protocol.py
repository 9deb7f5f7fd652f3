"""The policy protocol: what a scheduler sees at a decision point and what it returns.

At every event (an arrival or a completion) the simulator shows the policy a
:class:`SchedulerView` and starts the :class:`Allocation` s it returns. By default
allocations are moldable: the GPU count is chosen at start and kept until the job ends.
A policy that sets ``preemptive`` may also suspend running jobs, one that sets
``resizes`` may resize running malleable jobs, and one that sets ``interval`` is called
at periodic ticks; such policies run on the elastic simulator
(``engine.simulator.elastic``), where every restart costs a delay.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from engine.cluster import Cluster, Placement, pack
from engine.job import Job


class RunningJob(NamedTuple):
    """A job holding ``gpus`` GPUs on ``placement`` from ``start`` until ``end``.

    A named tuple rather than a dataclass: one is made per start, and tuples are the
    cheapest immutable record Python has.
    """

    job: Job
    gpus: int
    placement: Placement
    start: float
    end: float

    @property
    def nodes(self) -> int:
        return len(self.placement)


@dataclass(slots=True)
class SchedulerView:
    """Everything a policy may look at. ``waiting`` is in arrival (FIFO) order.

    The collections are live read-only views of the simulator's state (copying them at
    every event would make long runs quadratic), and the simulator refreshes one view
    object per run rather than building one per event: a policy must not mutate or keep
    it past the call.
    """

    time: float
    cluster: Cluster
    waiting: Collection[Job]
    running: Collection[RunningJob]
    free_per_node: Sequence[int]
    free_gpus: int
    remaining_work: Callable[[Job], float] | None = None
    """Elastic runs only: a job's 1-GPU seconds of work still to do, now."""


@dataclass(frozen=True, slots=True)
class Allocation:
    """Start ``job`` now on ``gpus`` GPUs; ``info`` explains the choice (shown in the app).

    For a job already running (elastic runs), ``gpus`` is its new size: ``0`` suspends
    it (preemption), another count resizes it (malleable jobs only). ``placement`` pins
    the GPUs to nodes (as a Mesos framework accepting one agent's
    offer does, or a policy that already packed them with :class:`FreeGpus`); without
    it the simulator packs the allocation itself.
    """

    job: Job
    gpus: int
    info: Mapping[str, Any] | None = field(default=None, compare=False)
    placement: Placement | None = None


class FreeGpus:
    """A scratch copy of the free GPUs, so a policy can plan several starts at once.

    It places with the same packing rule as the simulator, so the placements a policy
    plans are exactly the ones the jobs get.
    """

    __slots__ = ("per_node", "total")

    def __init__(self, free_per_node: Sequence[int], total: int | None = None) -> None:
        self.per_node = list(free_per_node)
        self.total = sum(self.per_node) if total is None else total

    def place(self, gpus: int) -> Placement | None:
        """Where ``gpus`` GPUs would go now, without taking them."""
        if gpus > self.total:
            return None
        return pack(self.per_node, gpus)

    def take(self, gpus: int) -> Placement | None:
        """Take ``gpus`` GPUs if they fit; returns their placement, else ``None``."""
        placement = self.place(gpus)
        if placement is not None:
            for node, count in placement:
                self.per_node[node] -= count
            self.total -= gpus
        return placement


class Policy:
    """Base class of every scheduling policy; subclasses override :meth:`schedule`.

    ``uses_runtimes`` says whether the policy reads jobs' run times (an oracle-ish
    advantage that real schedulers only have through users' estimates). The next four
    ask for the elastic simulator: ``preemptive`` (it may suspend running jobs),
    ``resizes`` (it may resize running malleable jobs), ``interval`` (seconds between
    scheduling ticks, on multiples of it) and ``on_events`` (``False``: called at ticks
    only, as round-based schedulers and the Pollux simulator are).
    """

    name: str = "policy"
    uses_runtimes: bool = False
    preemptive: bool = False
    resizes: bool = False
    interval: float | None = None
    on_events: bool = True

    def reset(self, cluster: Cluster, seed: int) -> None:
        """Called once before a run; policies with per-run state clear it here."""

    def schedule(self, view: SchedulerView) -> Sequence[Allocation]:
        raise NotImplementedError
