"""FIFO on the user's request with EASY backfilling, as Slurm's ``sched/backfill`` does.

Jobs start in arrival order on their requested GPUs. When the head does not fit it gets a
reservation at the *shadow time*: the earliest moment enough GPUs are free, from the
running jobs' end times. A later job may jump ahead now if it fits and either ends by the
shadow time or only uses *extra* GPUs, the ones still spare at the shadow time once the
head has its share (Lifka's EASY rule, counted in GPUs instead of nodes). So the head is
never delayed, and small jobs fill the holes it leaves.

Reads run times: Slurm uses users' time limits as estimates; here the estimates are the
true run times (a running job's end; a candidate's run time on the GPUs it would get,
which are pinned in its ``Allocation`` so the estimate holds).
"""

from __future__ import annotations

from engine.policies.sizing import request
from engine.protocol import Allocation, FreeGpus, Policy, SchedulerView


class FifoBackfill(Policy):
    name = "fifo-backfill"
    uses_runtimes = True

    def schedule(self, view: SchedulerView) -> list[Allocation]:
        total = view.cluster.total_gpus
        free = FreeGpus(view.free_per_node, view.free_gpus)
        starts: list[Allocation] = []
        ends: list[tuple[float, int]] = [(run.end, run.gpus) for run in view.running]
        queue = iter(view.waiting)
        for head in queue:
            need = request(head, total)
            placement = free.take(need)
            if placement is None:
                break
            ends.append((view.time + head.runtime_on(need, placement), need))
            starts.append(Allocation(head, need, {"rule": "fifo"}, placement))
        else:
            return starts
        shadow, extra = _reservation(ends, free.total, need)
        for later in queue:
            if free.total == 0:
                break
            gpus = request(later, total)
            placement = free.place(gpus)
            if placement is None:
                continue
            ends_in_time = view.time + later.runtime_on(gpus, placement) <= shadow
            if not ends_in_time:
                if gpus > extra:
                    continue
                extra -= gpus
            free.take(gpus)
            rule = "backfill: ends by the reservation" if ends_in_time else "backfill: extra GPUs"
            starts.append(Allocation(later, gpus, {"rule": rule, "shadow": shadow}, placement))
        return starts


def _reservation(ends: list[tuple[float, int]], free: int, need: int) -> tuple[float, int]:
    """Shadow time (when ``need`` GPUs are free) and the GPUs spare beyond them then."""
    for end, gpus in sorted(ends):
        free += gpus
        if free >= need:
            return end, free - need
    raise AssertionError("a request never exceeds the cluster, so it always fits at the end")
