"""Mesos's two-level resource offers (Hindman et al., NSDI'11), one framework per model.

In Mesos the master's allocator offers each agent's free resources to frameworks in DRF
order (lowest dominant share first). A framework's scheduler launches tasks on the
offers it holds and declines the rest; a declined agent is filtered for that framework
for ``refuse_seconds`` (default 5 s), so the allocator offers it to other frameworks.
Users choose their jobs' parallelism, so every job takes exactly its requested GPUs.

The rules implemented, and how they differ from the paper:

* Agent = node, resources = GPUs only, so a framework's dominant share is the GPUs its
  running jobs hold over the cluster's.
* Framework = one per model (a team training one kind of network), each scheduling its
  own jobs FIFO. DRF ties go to the framework whose next job arrived first.
* At each event, frameworks take turns in DRF order. A framework is offered every free
  agent it has not filtered, all at once, since a distributed job gangs its workers over
  several agents. It launches its jobs in order while the next one fits on the offered
  agents, placing each on the fewest of them (``cluster.pack`` over the offers only; the
  placement is pinned in the ``Allocation``). When its next job does not fit, it
  declines what is left of its offers, and those agents are filtered for it for
  ``refuse_seconds``. (Mesos also filters the unused part of an accepted offer; here a
  framework with nothing left to launch just returns it.)
* No deadlock from filters: Mesos leaves a filtered agent idle until the filter expires
  and the allocator runs again (every second). This simulator only wakes up at arrivals
  and completions, which may be hours apart, and an idle cluster has no next event at
  all (the run would stall). So after every framework has had its turn, a second round
  offers what is still free to every framework again, filters waived. Filters keep their
  effect (other frameworks get a filtered agent first) but never idle a GPU a waiting
  job could take, so on an idle cluster the first framework's next job always starts.

Per-run state: the filters, cleared in ``reset``. Reads no run times.
"""

from __future__ import annotations

from collections import deque

from engine.cluster import Cluster, pack
from engine.job import Job
from engine.policies.sizing import request
from engine.protocol import Allocation, Policy, SchedulerView

REFUSE_SECONDS = 5.0
"""Mesos's default ``Filters.refuse_seconds``."""


class MesosOffer(Policy):
    name = "mesos-offer"

    def __init__(self, refuse_seconds: float = REFUSE_SECONDS) -> None:
        self.refuse_seconds = refuse_seconds
        self._filters: dict[str, dict[int, float]] = {}

    def reset(self, cluster: Cluster, seed: int) -> None:
        self._filters = {}

    def schedule(self, view: SchedulerView) -> list[Allocation]:
        queues: dict[str, deque[Job]] = {}
        for job in view.waiting:
            queues.setdefault(job.model, deque()).append(job)
        held = dict.fromkeys(queues, 0)
        for run in view.running:
            if run.job.model in held:
                held[run.job.model] += run.gpus
        free = list(view.free_per_node)
        starts: list[Allocation] = []
        for honour_filters in (True, False):
            waiting = [framework for framework, queue in queues.items() if queue]
            # DRF: lowest share first (shares only move at a framework's own turn).
            waiting.sort(key=lambda fw: (held[fw], queues[fw][0].submit_time, queues[fw][0].index))
            for framework in waiting:
                if not any(free):
                    return starts
                launched = self._turn(framework, queues[framework], free, view, honour_filters)
                held[framework] += sum(allocation.gpus for allocation in launched)
                starts.extend(launched)
        return starts

    def _turn(
        self,
        framework: str,
        queue: deque[Job],
        free: list[int],
        view: SchedulerView,
        honour_filters: bool,
    ) -> list[Allocation]:
        """Offer ``framework`` its agents (taken from ``free``); it launches what fits."""
        filters = self._filters.setdefault(framework, {})
        now = view.time
        offer = [
            0 if honour_filters and filters.get(node, now) > now else gpus
            for node, gpus in enumerate(free)
        ]
        rule = "accepted offer" if honour_filters else "accepted offer, filters waived"
        launched: list[Allocation] = []
        while queue:
            gpus = request(queue[0], view.cluster.total_gpus)
            placement = pack(offer, gpus)
            if placement is None:
                break
            for node, count in placement:
                offer[node] -= count
                free[node] -= count
            info = {"rule": rule, "framework": framework}
            launched.append(Allocation(queue.popleft(), gpus, info, placement))
        if queue:  # its next job cannot use what is left: decline and filter it
            until = now + self.refuse_seconds
            for node, gpus in enumerate(offer):
                if gpus:
                    filters[node] = until
        return launched
