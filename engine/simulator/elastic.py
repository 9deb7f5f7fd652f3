"""The elastic simulator: preemption, resizing of malleable jobs, periodic ticks.

A subclass of the moldable :class:`Simulator`, used only for policies that ask for it
(``preemptive``, ``resizes`` or ``interval``), so moldable runs keep their exact code
path and results. Work is tracked as remaining 1-GPU seconds: on ``gpus`` GPUs over
``nodes`` nodes a job does ``speedup(gpus, nodes)`` of them per second. Each run of a
job on one allocation is a *segment*; every resize and every resume after a preemption
starts a new one that holds its GPUs for ``restart_delay`` seconds without progress
(30 s by default, as in the Pollux simulator), and a first start waits
``start_delay`` (0 by default; the Pollux simulator charges its 30 s there too).
A superseded completion event stays in the heap and is skipped when it comes up: a
job's live end is the one its running segment holds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from engine.budget import RunBudget
from engine.cluster import Cluster, Placement
from engine.job import Job
from engine.protocol import Allocation, Policy, RunningJob
from engine.simulator.core import PolicyError, SimulationStalled, Simulator
from engine.simulator.events import EventKind
from engine.simulator.results import Decision, SimulationResult, build_result

RESTART_DELAY = 30.0
"""Seconds a resized or resumed job holds its GPUs before it progresses again: the
Pollux simulator's checkpoint-restart cost (OSDI'21 artifact, ``Job.reallocate``)."""

SEGMENT_COLUMNS = ("job_id", "gpus", "nodes", "start", "ready", "end", "work")


class ElasticSimulator(Simulator):
    """A :class:`Simulator` whose policy may suspend, resume and resize running jobs."""

    def __init__(
        self,
        jobs: Sequence[Job],
        cluster: Cluster,
        policy: Policy | None = None,
        seed: int = 0,
        budget: RunBudget | None = None,
        restart_delay: float = RESTART_DELAY,
        start_delay: float = 0.0,
    ) -> None:
        if restart_delay < 0 or start_delay < 0:
            raise ValueError(f"delays must be >= 0, got {restart_delay}, {start_delay}")
        super().__init__(jobs, cluster, policy, seed, budget)
        self.restart_delay = restart_delay
        self.start_delay = start_delay
        self.interval = policy.interval if policy is not None else None
        self._left: dict[int, float] = {}  # 1-GPU work left at the segment's ready time
        self._ready: dict[int, float] = {}  # when the running segment starts progressing
        self._first: dict[int, float] = {}  # first start
        self._held = np.zeros(len(self.jobs))  # GPU-seconds held, restarts included
        self._resizes = np.zeros(len(self.jobs), dtype=np.int64)
        self._preemptions = np.zeros(len(self.jobs), dtype=np.int64)
        self._arrivals_left = len(self.jobs)
        self._tick_armed = False
        self._ticked = False
        self._changed = False
        self.segments: list[tuple[Job, int, int, float, float, float, float]] = []
        self._view.remaining_work = self.remaining_work

    # -- state -------------------------------------------------------------------------
    def remaining_work(self, job: Job) -> float:
        """1-GPU seconds ``job`` still has to do at the current time."""
        i = job.index
        left = self._left.get(i, job.runtime_1gpu)
        run = self.running.get(i)
        if run is None:
            return left
        return max(0.0, left - self._progress(run, self.now))

    def _progress(self, run: RunningJob, until: float) -> float:
        job = run.job
        busy = max(0.0, until - self._ready[job.index])
        return busy * job.runtime_1gpu / job.runtime_on(run.gpus, run.placement)

    # -- moves -------------------------------------------------------------------------
    def advance(self) -> bool:
        """Apply the next instant's events, skipping superseded completions."""
        if not self._events:
            return False
        self.now, due = self._events.pop_due()
        self._ticked = self._changed = False
        for kind, index in due:
            if kind is EventKind.ARRIVAL:
                self.waiting[index] = self.jobs[index]
                self._arrivals_left -= 1
                self._changed = True
                if self.interval is not None and self.now % self.interval == 0:
                    self._ticked = True  # arriving on a tick's instant: this is its round
            elif kind is EventKind.COMPLETION:
                run = self.running.get(index)
                if run is not None and run.end == self.now:
                    self._close(run)
                    self.finished.append(run._replace(start=self._first[index]))
                    self._changed = True
            else:
                self._tick_armed = False
                self._ticked = True
        return True

    def start(
        self,
        job: Job,
        gpus: int,
        info: Mapping[str, Any] | None = None,
        placement: Placement | None = None,
    ) -> RunningJob:
        """Start or resume waiting ``job``; its segment ends when its work is done."""
        i = job.index
        resumed = i in self._first
        if resumed and not (info and "action" in info):
            info = {"action": "resume", **(info or {})}
        run = super().start(job, gpus, info, placement)  # its completion is superseded
        delay = self.restart_delay if resumed else self.start_delay
        self._first.setdefault(i, self.now)
        left = self._left.setdefault(i, job.runtime_1gpu)
        ready = self.now + delay
        seconds = left * job.runtime_on(gpus, run.placement) / job.runtime_1gpu
        run = run._replace(end=ready + seconds)
        self.running[i] = run
        self._ready[i] = ready
        self._events.push(run.end, EventKind.COMPLETION, i)
        return run

    def suspend(self, job: Job, info: Mapping[str, Any] | None = None) -> None:
        """Preempt running ``job``: it frees its GPUs and waits again, its work kept.

        It rejoins the end of ``waiting`` (policies that preempt keep their own order).
        """
        self._close(self._running(job))
        self._preemptions[job.index] += 1
        self.waiting[job.index] = job
        self.decisions.append(self._decision(job, 0, 0, info, "preempt"))

    def release(self, job: Job) -> None:
        """Take malleable ``job``'s GPUs back ahead of a resize; it waits to be restarted."""
        run = self._running(job)
        if job.mode != "malleable":
            raise PolicyError(f"job {job.job_id} is {job.mode}; only malleable jobs resize")
        self._close(run)
        self._resizes[job.index] += 1
        self.waiting[job.index] = job

    def apply(self, allocations: Sequence[Allocation]) -> None:
        """Apply a policy's answer: every release first, then starts and resizes in order.

        Suspensions and resizes free their GPUs before anything is placed, so a policy
        can plan a whole new layout at once, as round-based schedulers do.
        """
        resized: set[int] = set()
        for a in allocations:
            run = self.running.get(a.job.index)
            if run is None and a.job.index not in self.waiting:
                raise PolicyError(f"job {a.job.job_id} is neither waiting nor running")
            if a.gpus == 0:
                if self.policy is None or not self.policy.preemptive:
                    raise PolicyError(f"policy may not preempt (job {a.job.job_id})")
                self.suspend(a.job, a.info)
            elif run is not None and (
                a.gpus != run.gpus or a.placement not in (None, run.placement)
            ):
                self.release(a.job)
                resized.add(a.job.index)
        for a in allocations:
            if a.gpus and a.job.index in self.waiting:
                info = a.info
                if a.job.index in resized:
                    info = {"action": "resize", **(a.info or {})}
                self.start(a.job, a.gpus, info, a.placement)

    def _running(self, job: Job) -> RunningJob:
        run = self.running.get(job.index)
        if run is None:
            raise PolicyError(f"job {job.job_id} is not running at t={self.now:g}")
        return run

    def _close(self, run: RunningJob) -> None:
        """End ``run``'s segment now: free its GPUs and bank its progress."""
        i = run.job.index
        done = min(self._left[i], self._progress(run, self.now))
        self._left[i] -= done
        del self.running[i]
        for node, count in run.placement:
            self.free_per_node[node] += count
        self._busy -= run.gpus
        self._held[i] += run.gpus * (self.now - run.start)
        self.segments.append(
            (run.job, run.gpus, run.nodes, run.start, self._ready[i], self.now, done)
        )

    def _decision(self, job: Job, gpus: int, nodes: int, info: Any, action: str) -> Decision:
        free = self.cluster.total_gpus - self._busy
        return Decision(self.now, job, gpus, nodes, free, {"action": action, **(info or {})})

    # -- policy-driven stepping -------------------------------------------------------
    def step(self) -> bool:
        """Advance to the next instant; call the policy at ticks and (if it asks) events."""
        if self.policy is None:
            raise PolicyError("this simulator has no policy; drive it with advance()/start()")
        if not self.advance():
            return False
        policy = self.policy
        if self._ticked or (policy.on_events and self._changed):
            self.apply(policy.schedule(self.view()))
            if not self.running and self.waiting and not self._arrivals_left:
                raise SimulationStalled(
                    f"policy {policy.name!r} left {len(self.waiting)} jobs waiting on "
                    f"an idle cluster at t={self.now:g}"
                )
        self._arm_tick()
        self.record()
        self._countdown -= 1
        if not self._countdown:
            self._charge()
        return True

    def _arm_tick(self) -> None:
        if self.interval is None or self._tick_armed or not (self.running or self.waiting):
            return
        tick = (self.now // self.interval + 1) * self.interval
        if tick <= self.now:  # the clock is too coarse here: ticking would never end
            raise SimulationStalled(
                f"at t={self.now:g} s the clock cannot step by policy "
                f"{self.policy.name!r}'s {self.interval:g} s round"
            )
        self._tick_armed = True
        self._events.push(tick, EventKind.TICK, -1)

    def result(self) -> SimulationResult:
        """The result so far; per job also its resizes, preemptions and GPU-seconds."""
        held = self._held.copy()
        for i, run in self.running.items():
            held[i] += run.gpus * (self.now - run.start)
        segments = pd.DataFrame(
            [(job.job_id, *rest) for job, *rest in self.segments], columns=SEGMENT_COLUMNS
        )
        return build_result(
            policy=self.policy.name if self.policy is not None else "manual",
            cluster=self.cluster,
            jobs=self.jobs,
            finished=self.finished,
            running=[r._replace(start=self._first[i]) for i, r in self.running.items()],
            decisions=self.decisions,
            timeline=self.timeline,
            columns={
                "resizes": self._resizes.copy(),
                "preemptions": self._preemptions.copy(),
                "gpu_seconds": held,
            },
            extras={"segments": segments},
        )
