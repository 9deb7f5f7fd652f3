"""The event-driven simulator of a moldable-job GPU cluster.

Arrivals and completions are events on an :class:`EventQueue`; after each batch of
events at one instant the policy is asked what to start. Jobs keep their GPUs until they
end (no preemption; policies that preempt, resize or tick run on the subclass in
``engine.simulator.elastic``, so this hot path carries none of it). Nothing here is
random, so a run is a pure function of the workload, the policy and the seed handed to
the policy.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from engine.budget import RunBudget
from engine.cluster import Cluster, Placement, pack
from engine.errors import LabError
from engine.job import LATEST_SUBMIT, Job
from engine.protocol import Policy, RunningJob, SchedulerView
from engine.simulator.events import EventKind, EventQueue
from engine.simulator.results import Decision, SimulationResult, build_result


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector for a whole run.

    A run allocates a few small tuples per event and the simulator makes no reference
    cycles, yet the collector keeps re-scanning every live job and record; pausing it
    makes long runs about a quarter faster. Cycles a policy makes are collected after.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


class PolicyError(LabError):
    """A policy asked for something impossible (a job not waiting, too many GPUs, ...)."""


class SimulationStalled(LabError):
    """Jobs are waiting on an idle cluster and the policy starts none of them."""


class Simulator:
    """Step through one run; ``step``/``run_until`` let a UI animate it incrementally.

    With a ``budget`` (``engine.budget``), :meth:`step` raises ``BudgetExceeded`` once the
    run is past it; it is checked every few thousand event times, not on each.
    """

    def __init__(
        self,
        jobs: Sequence[Job],
        cluster: Cluster,
        policy: Policy | None = None,
        seed: int = 0,
        budget: RunBudget | None = None,
    ) -> None:
        self.jobs = list(jobs)
        self.cluster = cluster
        self.policy = policy
        self.now = 0.0
        self.free_per_node = [cluster.gpus_per_node] * cluster.nodes
        self.waiting: dict[int, Job] = {}
        self.running: dict[int, RunningJob] = {}
        self.finished: list[RunningJob] = []
        self.decisions: list[Decision] = []
        self.timeline: list[tuple[float, int, int, int]] = []
        self._busy = 0
        self._view = SchedulerView(
            time=0.0,
            cluster=cluster,
            waiting=self.waiting.values(),
            running=self.running.values(),
            free_per_node=self.free_per_node,
            free_gpus=cluster.total_gpus,
        )
        for job in self.jobs:
            if not 0 <= job.submit_time <= LATEST_SUBMIT:
                raise PolicyError(
                    f"job {job.job_id} is submitted at t={job.submit_time:g} s, outside "
                    f"[0, {LATEST_SUBMIT:g}] s, where the simulator's clock is exact enough"
                )
            if job.min_gpus > cluster.total_gpus:
                raise PolicyError(
                    f"job {job.job_id} needs at least {job.min_gpus} GPUs but the cluster "
                    f"{cluster} has only {cluster.total_gpus}"
                )
        self._events = EventQueue([job.submit_time for job in self.jobs],
                                  [job.index for job in self.jobs])
        if policy is not None:
            policy.reset(cluster, seed)
        self._meter = None if budget is None else budget.meter(
            policy.name if policy is not None else "manual")
        # event times to the next budget check: never 0 without a budget
        self._countdown = -1 if self._meter is None else self._meter.every
        self._stepped = 0

    # -- state -------------------------------------------------------------------------
    @property
    def done(self) -> bool:
        return not self._events and not self.waiting

    @property
    def busy_gpus(self) -> int:
        return self._busy

    def view(self) -> SchedulerView:
        """The policy's window on the state: one live object, refreshed, not rebuilt."""
        view = self._view
        view.time = self.now
        view.free_gpus = self.cluster.total_gpus - self._busy
        return view

    # -- low-level moves (the RL environment drives these directly) ---------------------
    def advance(self) -> bool:
        """Apply every event at the next event time; ``False`` when none is left."""
        if not self._events:
            return False
        self.now, due = self._events.pop_due()
        for kind, index in due:
            if kind is EventKind.ARRIVAL:
                self.waiting[index] = self.jobs[index]
            else:
                run = self.running.pop(index)
                for node, count in run.placement:
                    self.free_per_node[node] += count
                self._busy -= run.gpus
                self.finished.append(run)
        return True

    def start(
        self,
        job: Job,
        gpus: int,
        info: Mapping[str, Any] | None = None,
        placement: Placement | None = None,
    ) -> RunningJob:
        """Start waiting ``job`` now on ``gpus`` GPUs, packed unless ``placement`` is given."""
        if job.index not in self.waiting:
            raise PolicyError(f"job {job.job_id} is not waiting at t={self.now:g}")
        if not job.min_gpus <= gpus <= job.max_gpus:
            raise PolicyError(
                f"job {job.job_id} accepts {job.min_gpus}..{job.max_gpus} GPUs, "
                f"the policy gave {gpus}"
            )
        free_before = self.cluster.total_gpus - self._busy
        if placement is None:
            placement = pack(self.free_per_node, gpus) if gpus <= free_before else None
            if placement is None:
                raise PolicyError(
                    f"job {job.job_id} was given {gpus} GPUs but only {free_before} are free"
                )
            for node, count in placement:
                self.free_per_node[node] -= count
        else:
            self._claim(job, gpus, placement)
        self._busy += gpus
        end = self.now + job.runtime_on(gpus, placement)
        run = RunningJob(job, gpus, placement, self.now, end)
        del self.waiting[job.index]
        self.running[job.index] = run
        self._events.push(end, EventKind.COMPLETION, job.index)
        self.decisions.append(Decision(self.now, job, gpus, len(placement), free_before, info))
        return run

    def _claim(self, job: Job, gpus: int, placement: Placement) -> None:
        """Take a policy-pinned placement, refusing one that is not free or not ``gpus``."""
        free = self.free_per_node
        shares = dict(placement)  # built-in calls only: this runs once per start
        valid = (
            len(shares) == len(placement)
            and sum(shares.values()) == gpus
            and min(shares.values()) > 0
            and min(shares) >= 0
            and max(shares) < len(free)
        )
        if valid and all(free[node] >= count for node, count in placement):
            for node, count in placement:
                free[node] -= count
            return
        raise PolicyError(
            f"job {job.job_id} was placed on {placement}, which is not {gpus} free GPUs "
            f"of {free}"
        )

    def _charge(self) -> None:
        """Check the budget, :attr:`Meter.every` event times after the last check."""
        meter = self._meter
        self._stepped += meter.every
        if not self.done:
            meter.check(self._stepped, self.now)  # and sets when to check next
        self._countdown = meter.every

    def record(self) -> None:
        """Append the current state to the timeline (once per decision point)."""
        self.timeline.append((self.now, self._busy, len(self.waiting), len(self.running)))

    # -- policy-driven stepping -------------------------------------------------------
    def step(self) -> bool:
        """Advance to the next event time and let the policy start jobs there."""
        if self.policy is None:
            raise PolicyError("this simulator has no policy; drive it with advance()/start()")
        if not self.advance():
            return False
        if self.waiting:
            for allocation in self.policy.schedule(self.view()):
                self.start(allocation.job, allocation.gpus, allocation.info, allocation.placement)
            if not self.running and not self._events and self.waiting:
                raise SimulationStalled(
                    f"policy {self.policy.name!r} left {len(self.waiting)} jobs waiting on "
                    f"an idle cluster at t={self.now:g}"
                )
        self.record()
        self._countdown -= 1
        if not self._countdown:
            self._charge()
        return True

    def run_until(self, time: float) -> None:
        """Process every event up to and including ``time``."""
        while (t := self._events.peek_time()) is not None and t <= time:
            self.step()

    def run(self) -> SimulationResult:
        """Run to the end and return the result."""
        with _gc_paused():
            while self.step():
                pass
            return self.result()

    def result(self) -> SimulationResult:
        """The result so far (complete once :attr:`done`)."""
        return build_result(
            policy=self.policy.name if self.policy is not None else "manual",
            cluster=self.cluster,
            jobs=self.jobs,
            finished=self.finished,
            running=self.running.values(),
            decisions=self.decisions,
            timeline=self.timeline,
        )


def make_simulator(
    jobs: Sequence[Job],
    cluster: Cluster,
    policy: Policy,
    seed: int = 0,
    budget: RunBudget | None = None,
    **delays: float,
) -> Simulator:
    """The simulator ``policy`` needs: the elastic one if it preempts, resizes or ticks.

    ``delays`` (``restart_delay``, ``start_delay``) are the elastic simulator's; a
    ``budget`` bounds the run (none: it runs to its end, however long).
    """
    if policy.preemptive or policy.resizes or policy.interval is not None:
        from engine.simulator.elastic import ElasticSimulator

        return ElasticSimulator(jobs, cluster, policy, seed, budget, **delays)
    return Simulator(jobs, cluster, policy, seed, budget)


def simulate(
    jobs: Sequence[Job],
    cluster: Cluster,
    policy: Policy,
    seed: int = 0,
    budget: RunBudget | None = None,
    **delays: float,
) -> SimulationResult:
    """Run ``policy`` on ``jobs`` from start to finish (see :func:`make_simulator`)."""
    return make_simulator(jobs, cluster, policy, seed, budget, **delays).run()
