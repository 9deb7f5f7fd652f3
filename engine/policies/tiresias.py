"""Tiresias: discretised two-dimensional least-attained-service (Gu et al., NSDI'19).

Jobs run on exactly their requested GPUs (rigid) and are ordered by attained service,
the GPU-time they have had (requested GPUs x time held), in two priority queues: new
jobs enter the first, and a job moves to the second once its service passes 16
GPU-hours. Every round, in queue order (first queue first, each in entry order), a
job is granted its GPUs if they are left over; a running job that is not granted any
more is preempted, and resumes (possibly on other nodes) when it is granted again. A
job's GPUs go on the nodes with the most free GPUs first.

Reference behaviour: the Pollux artifact's ``TiresiasPolicy`` (petuum/adaptdl,
osdi21-artifact, ``simulator/tiresias.py``): the same two queues and threshold,
starvation handling off, decisions every 60 s round only. It needs no run times.
"""

from __future__ import annotations

from engine.cluster import Cluster
from engine.policies.emptiest import emptiest_first
from engine.policies.sizing import request
from engine.protocol import Allocation, Policy, SchedulerView

THRESHOLD = 16 * 3600.0
"""GPU-seconds of attained service after which a job drops to the low-priority queue."""


class Tiresias(Policy):
    name = "tiresias"
    preemptive = True
    interval = 60.0
    on_events = False

    def reset(self, cluster: Cluster, seed: int) -> None:
        self._queues: tuple[list[int], list[int]] = ([], [])
        self._service: dict[int, float] = {}  # seconds held since it first ran
        self._checked = 0.0

    def schedule(self, view: SchedulerView) -> list[Allocation]:
        total = view.cluster.total_gpus
        running = {run.job.index: run for run in view.running}
        live = {job.index: job for job in view.waiting} | {i: r.job for i, r in running.items()}
        high, low = (list(filter(live.__contains__, q)) for q in self._queues)
        elapsed, self._checked = view.time - self._checked, view.time
        for i in sorted(live):
            if i not in self._service:
                self._service[i] = 0.0
                high.append(i)
            elif i in running:  # granted last round: it held its GPUs since
                self._service[i] += elapsed
                gpus = request(live[i], total)
                if self._service[i] * gpus >= THRESHOLD and i in high:
                    high.remove(i)
                    low.append(i)
        self._queues = (high, low)
        left, granted = total, set()
        for i in (*high, *low):
            gpus = request(live[i], total)
            if gpus <= left:
                granted.add(i)
                left -= gpus
        free = list(view.free_per_node)
        out: list[Allocation] = []
        for i in sorted(running.keys() - granted):
            for node, count in running[i].placement:
                free[node] += count
            out.append(Allocation(live[i], 0, {"rule": "tiresias: preempted"}))
        for i in (*high, *low):
            if i in granted and i not in running:
                job = live[i]
                queue = "Q0" if i in high else "Q1"
                out.append(Allocation(job, request(job, total), {"rule": f"tiresias {queue}"},
                                      emptiest_first(free, request(job, total))))
        return out
