"""Shortest job first by one-GPU run time, each job on its knee.

SJF minimises average completion time of jobs queued on one machine; here the queue is
ordered by each job's one-GPU run time (its work), and every job gets its knee as in
``knee``. The first job in that order that does not fit blocks the rest, so wide short
jobs are not passed over forever. Reads run times.
"""

from __future__ import annotations

from engine.job import Job
from engine.policies.knee import Knee
from engine.protocol import SchedulerView


class SjfKnee(Knee):
    name = "sjf-knee"
    uses_runtimes = True

    def order(self, view: SchedulerView) -> list[Job]:
        return sorted(view.waiting, key=_work)


def _work(job: Job) -> tuple[float, int]:
    return job.runtime_1gpu, job.index
