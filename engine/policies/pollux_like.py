"""Pollux's allocation rule (Qiao et al., OSDI'21) without its batch-size adaptation.

Every 60 s round, every job, running or waiting, gets a GPU count that maximises the
power mean (p = -1) of the jobs' speedups: with p = -1 the mean is dominated by the
slowest jobs, so every job gets a GPU before any job gets a second, and further GPUs go
where they shorten the most-starved jobs most. A job whose allocation would change
counts its speedup at ``(age - restarts x 30 s) / (age + 30 s)`` of its value, as
Pollux does, so a young job or one restarted often is not reshuffled for a small gain.
A malleable job may hold at most twice the most GPUs it has run on (Pollux's
profiling: it explores larger sizes gradually), and the sizes changed are placed on the emptiest
nodes, smallest first. Running jobs that are not malleable keep their GPUs.

Reference behaviour: the Pollux artifact's ``PolluxPolicy`` (petuum/adaptdl,
osdi21-artifact, ``simulator/pollux.py``), with the same objective, restart penalty
and growth limit. What it leaves out: Pollux searches allocations with a genetic
algorithm over per-node placements; this one searches job sizes by single-GPU moves
from the current allocation (deterministic, milliseconds a round). And Pollux's *job*
side (choosing each job's batch size for its allocation, "goodput") belongs to the job
model, not the scheduler: with the lab's fixed-batch jobs this policy is Pollux's
scheduler on jobs that cannot adapt; ``python -m engine fidelity`` pairs it with the
artifact's batch-adaptive job model. Reads run times (Pollux learns them online).
"""

from __future__ import annotations

import numpy as np

from engine.cluster import Cluster, packed_nodes
from engine.job import Job
from engine.policies.emptiest import relayout
from engine.policies.growth import largest
from engine.protocol import Allocation, Policy, SchedulerView

POWER = -1.0
"""The power mean's exponent (the artifact's ``p``): more negative is fairer."""
SMALL = 1e-3
"""Added to every speedup before the power, as in the artifact, so 0 GPUs stays finite."""
RESTART = 30.0
"""Seconds a restart costs, in the restart penalty (the artifact's ``delay``)."""


class PolluxLike(Policy):
    name = "pollux-like"
    uses_runtimes = True
    preemptive = True
    resizes = True
    interval = 60.0
    on_events = False

    def reset(self, cluster: Cluster, seed: int) -> None:
        self._cluster = cluster
        self._profiled: dict[int, int] = {}  # most GPUs each job has run on
        self._restarts: dict[int, int] = {}  # reallocations after its first start

    def schedule(self, view: SchedulerView) -> list[Allocation]:
        total = view.cluster.total_gpus
        held = {run.job.index: run.gpus for run in view.running}
        jobs = sorted([*view.waiting, *(run.job for run in view.running)],
                      key=lambda j: (j.submit_time, j.index))
        if not jobs:
            return []
        now = [held.get(job.index, 0) for job in jobs]
        fair = -(-total // len(jobs))  # the artifact's fair share: ceil(GPUs / jobs)
        costs = [self._costs(job, now[k], view.time, fair) for k, job in enumerate(jobs)]
        sizes = _improve(now, costs, total)
        for job, before, after in zip(jobs, now, sizes, strict=True):
            if after and after != before:
                if job.index in self._profiled:  # a resize or a resume: a restart
                    self._restarts[job.index] = self._restarts.get(job.index, 0) + 1
                self._profiled[job.index] = max(self._profiled.get(job.index, 0), after)
        return relayout(view, dict(zip(jobs, sizes, strict=True)), "pollux: power mean")

    def _costs(self, job: Job, held: int, time: float, fair: int) -> np.ndarray:
        """``(scaled speedup + SMALL) ** POWER`` of ``job`` on 0 .. its limit GPUs: the
        term whose sum the round minimises (maximising the power mean).

        Speedups are relative to the job's fair share of the cluster and scaled so a
        node's worth of GPUs counts 1, as the artifact scales them.
        """
        cluster = self._cluster
        limit = largest(job, cluster.total_gpus)
        if job.mode == "malleable":  # it can grow later: explore sizes gradually, as Pollux
            limit = min(limit, max(2 * self._profiled.get(job.index, 0), 1, job.min_gpus))
        limit = max(limit, held)  # the limit alone never takes GPUs away

        def speed(gpus: int) -> float:
            if gpus < job.min_gpus:
                return 0.0
            return 1.0 / job.runtime(gpus, packed_nodes(gpus, cluster.gpus_per_node))

        share = min(max(fair, job.min_gpus), largest(job, cluster.total_gpus))
        scale = cluster.nodes / cluster.total_gpus / speed(share)
        speedups = np.array([speed(g) * scale for g in range(limit + 1)])
        age = max(time - job.submit_time, 0.0)
        lost = max(age - self._restarts.get(job.index, 0) * RESTART, 0.0) / (age + RESTART)
        factor = max(lost, SMALL)  # never 0: a job arriving on an idle GPU still takes it
        penalised = speedups * factor
        penalised[held] = speedups[held]  # keeping its GPUs costs no restart
        cost = (penalised + SMALL) ** POWER
        if held and job.mode != "malleable":  # a running rigid or moldable job keeps its size
            cost[np.arange(len(cost)) != held] = np.inf
        return cost


def _improve(start: list[int], costs: list[np.ndarray], total: int) -> list[int]:
    """Sizes from ``start`` by the best move while one lowers the summed cost:
    spare GPUs to the job that gains most per GPU (jumps too: a restart's penalty can
    make one more GPU worse and two better), else one GPU from a job to another.
    Deterministic: ties go to the earlier job."""
    sizes = list(start)
    spare = total - sum(sizes)
    for _ in range(4 * total + len(sizes)):
        if spare and (grow := _best_growth(sizes, costs, spare)) is not None:
            job, gpus = grow
            spare -= gpus - sizes[job]
            sizes[job] = gpus
            continue
        up = np.array([c[s + 1] - c[s] if s + 1 < len(c) else np.inf
                       for s, c in zip(sizes, costs, strict=True)])
        down = np.array([c[s - 1] - c[s] if s > 0 else np.inf
                         for s, c in zip(sizes, costs, strict=True)])
        if len(sizes) < 2:
            break
        taker = int(np.argmin(up))
        order = np.argsort(down, kind="stable")
        giver = int(order[0] if order[0] != taker else order[1])
        if not up[taker] + down[giver] < -1e-12:
            break
        sizes[giver] -= 1
        sizes[taker] += 1
    return sizes


def _best_growth(sizes: list[int], costs: list[np.ndarray], spare: int) -> tuple[int, int] | None:
    """``(job, new size)`` lowering the cost most per added GPU, within ``spare``; None
    when no growth lowers it."""
    best, best_rate = None, -1e-12
    for job, (size, cost) in enumerate(zip(sizes, costs, strict=True)):
        reach = min(len(cost) - 1, size + spare)
        if reach <= size:
            continue
        rates = (cost[size + 1 : reach + 1] - cost[size]) / np.arange(1, reach - size + 1)
        step = int(np.argmin(rates))
        if rates[step] < best_rate:
            best, best_rate = (job, size + 1 + step), float(rates[step])
    return best
