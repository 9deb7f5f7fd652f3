"""AFS-L (Hwang et al., NSDI'21, "Elastic Resource Sharing for Distributed Deep Learning").

AFS-L is the paper's Apathetic Future Share for known job lengths. It hands out GPUs one
at a time; each GPU goes to the winner of a tournament over the jobs in which, of two
jobs, ``l`` is the one with the shorter remaining time at its current share and ``h``
the other, and ``l`` wins iff its throughput gain from one more GPU, relative to its
current throughput, beats ``h``'s gain relative to ``h``'s *new* throughput:

    (W_l(x_l + 1) - W_l(x_l)) / W_l(x_l)  >  (W_h(x_h + 1) - W_h(x_h)) / W_h(x_h + 1)

This trades short-job priority (``l``) against resource efficiency (the gains), the
paper's two findings, while not counting on GPUs a job may get later ("apathetic").
A job without GPUs has ``W = 0``: between two such jobs the one faster on its first share
wins, and a job with GPUs beats one without only if one more GPU would more than double
its throughput.

Applied at start time (nothing is preempted here): the contenders are the waiting jobs,
all starting from zero, and the jobs holding GPUs when they run out start on them. A
job's first share is its minimum, later ones one GPU each, up to its max useful
allocation (more would slow it; see ``sizing``). Among jobs still without GPUs the rule
above always prefers the shortest on its minimum, so only that one enters each
tournament: a decision costs O(free GPUs x jobs starting), not O(queue). ``W`` is 1 / run
time at a packed placement. Reads run times.
"""

from __future__ import annotations

from engine.cluster import Cluster
from engine.job import Job
from engine.policies.growth import allocations
from engine.policies.sizing import Sizing
from engine.protocol import Allocation, Policy, SchedulerView


class AfsL(Policy):
    name = "afs-l"
    uses_runtimes = True

    def reset(self, cluster: Cluster, seed: int) -> None:
        self._sizing = Sizing(cluster)

    def schedule(self, view: SchedulerView) -> list[Allocation]:
        runtime = self._sizing.runtime
        by_length = sorted(view.waiting, key=lambda job: (runtime(job, job.min_gpus), job.index))
        return allocations(self._share(by_length, view.free_gpus, view.cluster.total_gpus),
                           "AFS-L")

    def _share(self, by_length: list[Job], spare: int, total: int) -> dict[Job, int]:
        """Deal ``spare`` GPUs to jobs (shortest first on their minimum) by the duel."""
        useful = self._sizing.useful
        waiting = iter(by_length)
        newcomer = next(waiting, None)
        sizes: dict[Job, int] = {}
        while spare:
            while newcomer is not None and newcomer.min_gpus > spare:
                newcomer = next(waiting, None)
            contenders = [job for job, gpus in sizes.items() if gpus < useful(job, total)]
            if newcomer is not None:
                contenders.append(newcomer)
            if not contenders:
                break
            winner = contenders[0]
            for other in contenders[1:]:
                winner = self._duel(winner, other, sizes)
            step = 1 if winner in sizes else winner.min_gpus
            sizes[winner] = sizes.get(winner, 0) + step
            spare -= step
            if winner is newcomer:
                newcomer = next(waiting, None)
        return sizes

    def _duel(self, first: Job, second: Job, sizes: dict[Job, int]) -> Job:
        """The one of two jobs AFS-L gives the next GPU to."""
        now = {job: self._throughput(job, sizes.get(job, 0)) for job in (first, second)}
        shorter, longer = (second, first) if now[second] > now[first] else (first, second)
        l0, h0 = now[shorter], now[longer]
        l1 = self._throughput(shorter, _next(shorter, sizes))
        h1 = self._throughput(longer, _next(longer, sizes))
        if l0 == 0:
            return shorter if l1 > h1 else longer
        return shorter if (l1 - l0) / l0 > (h1 - h0) / h1 else longer

    def _throughput(self, job: Job, gpus: int) -> float:
        """``W``: 1 / run time on ``gpus`` GPUs (0 without GPUs)."""
        if gpus == 0:
            return 0.0
        return 1.0 / self._sizing.runtime(job, gpus)


def _next(job: Job, sizes: dict[Job, int]) -> int:
    gpus = sizes.get(job, 0)
    return gpus + 1 if gpus else job.min_gpus
