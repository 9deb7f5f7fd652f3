"""Scheduling policies, looked up by name.

Each policy is one short module; add a new one by writing it and listing it here. The
registry names modules rather than importing them, so importing the simulator (which
needs only :mod:`engine.protocol`) never loads the DRL code or the weights: a policy's
module is imported the first time a policy of that name is made.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module
from typing import Any

from engine.errors import UnknownName
from engine.protocol import Allocation, FreeGpus, Policy, RunningJob, SchedulerView


@dataclass(frozen=True)
class PolicyEntry:
    """Where a named policy lives, how it is made, and how people are told about it.

    ``title`` is the name a room reads (the code name is for commands); ``about`` is
    one short paragraph for students: what the rule does and what it may know.
    """

    module: str
    cls: str
    title: str
    about: str
    args: tuple[Any, ...] = ()

    def load(self) -> type[Policy]:
        """The policy class, importing its module on first use."""
        return getattr(import_module(f"engine.policies.{self.module}"), self.cls)

    def __call__(self) -> Policy:
        return self.load()(*self.args)


POLICIES: dict[str, PolicyEntry] = {
    "fifo-request": PolicyEntry(
        "fifo_request", "FifoRequest", "Slurm FIFO",
        "What Slurm and Kubernetes do by default: jobs start in arrival order, each on "
        "exactly the GPUs its user asked for. A big request at the head of the queue "
        "blocks everyone behind it until it fits.",
    ),
    "fifo-backfill": PolicyEntry(
        "fifo_backfill", "FifoBackfill", "Slurm FIFO + backfill",
        "Slurm's backfill scheduler: arrival order on the requested GPUs, but a later job "
        "may jump ahead into idle GPUs if it cannot delay the job at the head. It needs "
        "run-time estimates (users' time limits).",
    ),
    "mesos-offer": PolicyEntry(
        "mesos_offer", "MesosOffer", "Mesos offers",
        "Apache Mesos's two-level scheduling: each node's free GPUs are offered to one "
        "team at a time, fairest share first; a team starts its next job on the requested "
        "GPUs if the offer is big enough, or declines it.",
    ),
    "elastic-fifo": PolicyEntry(
        "elastic_fifo", "ElasticFifo", "Elastic FIFO",
        "Arrival order; every starting job first gets its minimum, then spare GPUs are "
        "dealt out one by one to the starting jobs up to each one's maximum.",
    ),
    "knee": PolicyEntry(
        "knee", "Knee", "FIFO at the knee",
        "Arrival order; each job gets the GPU count where speedup times efficiency peaks "
        "(the 'knee' of Eager et al., 1989): past it, extra GPUs mostly go to waste.",
    ),
    "sjf-knee": PolicyEntry(
        "sjf_knee", "SjfKnee", "Shortest job first",
        "The job with the least work starts first, at its knee. Short jobs stop waiting "
        "behind long ones, which lowers the average completion time; it needs run-time "
        "estimates.",
    ),
    "optimus": PolicyEntry(
        "optimus", "Optimus", "Greedy Optimus",
        "Optimus (EuroSys'18): GPUs are handed out one at a time to the starting job whose "
        "remaining time drops the most from one more GPU. It needs run-time estimates.",
    ),
    "afs-l": PolicyEntry(
        "afs_l", "AfsL", "AFS-L",
        "AFS-L (NSDI'21): GPUs go one at a time to the job that gains most, weighing short "
        "jobs first against how well each job uses one more GPU. It needs run-time "
        "estimates.",
    ),
    "threshold-free": PolicyEntry(
        "threshold", "Threshold", "Threshold on free GPUs",
        "When at least half the cluster is free, a job gets a large allocation; otherwise "
        "exactly its request. A fixed rule of thumb.",
        ("free", 0.5),
    ),
    "threshold-queue": PolicyEntry(
        "threshold", "Threshold", "Threshold on the queue",
        "When at most 4 jobs are waiting, a job gets a large allocation; otherwise exactly "
        "its request. A fixed rule of thumb.",
        ("queue", 4),
    ),
    "threshold-optimal": PolicyEntry(
        "threshold_optimal", "ThresholdOptimal", "Hindsight-tuned threshold",
        "The threshold rule with its setting picked after the fact: every threshold is "
        "tried on this very workload and the best one is kept. No real scheduler knows "
        "the future, so this is the best any threshold rule could do.",
    ),
    "drl": PolicyEntry(
        "drl", "DrlPolicy", "Deep-RL scheduler",
        "A small neural network trained by reinforcement learning on thousands of "
        "simulated workloads. At each decision it looks at the waiting jobs and the free "
        "GPUs and picks which job starts next and on how many GPUs.",
    ),
}

ELASTIC_POLICIES: dict[str, PolicyEntry] = {
    "tiresias": PolicyEntry(
        "tiresias", "Tiresias", "Preemptive Tiresias",
        "Tiresias (NSDI'19): jobs run on exactly the GPUs they asked for, and the ones that "
        "have had the least GPU time go first. Every minute the cluster is re-dealt: a "
        "job that has had over 16 GPU-hours drops to a lower-priority queue and may be "
        "paused (preempted) for newcomers, then resumed later. It needs no run times.",
    ),
    "optimus-elastic": PolicyEntry(
        "optimus_elastic", "OptimusElastic", "Elastic Optimus",
        "Optimus (EuroSys'18) as published: every minute all jobs, running or waiting, are "
        "re-sized. Each gets one GPU, then GPUs go one at a time to the job whose remaining "
        "time drops most. Running jobs grow and shrink, each change costing a restart. "
        "It needs run-time estimates.",
    ),
    "afs-elastic": PolicyEntry(
        "afs_elastic", "AfsElastic", "Elastic AFS-L",
        "AFS-L (NSDI'21) as published: whenever a job arrives or ends, the whole cluster is "
        "re-shared, running jobs included. GPUs go one at a time to the job that gains "
        "most, weighing the shortest remaining time against how well each job uses one "
        "more GPU; running jobs grow and shrink, each change costing a restart. It needs "
        "run-time estimates.",
    ),
    "pollux-like": PolicyEntry(
        "pollux_like", "PolluxLike", "Elastic Pollux-like",
        "Pollux's scheduler (OSDI'21): every minute all jobs are re-sized so that the "
        "slowest jobs are helped most. Every job gets a GPU before any gets a second, a "
        "job grows at most to twice its largest size so far, and a change that would "
        "restart a young job must pay for its 30 s restart. Pollux also tunes each job's "
        "batch size to its GPUs; the lab's jobs have fixed batch sizes, so that part is "
        "left out. It needs run-time estimates.",
    ),
}
"""Policies that preempt or resize running jobs; they run on the elastic simulator.

Kept apart from :data:`POLICIES` (the moldable lab's list, which ``compare --policies
all``, ``reproduce`` and the headline table iterate) so adding them changes no moldable
result; :func:`make_policy` finds both.
"""


CEILINGS: dict[str, PolicyEntry] = {
    "teachers-optimal": PolicyEntry(
        "teachers_optimal", "TeachersOptimal", "drl's teachers, tuned in hindsight",
        "The shortest-job-first rules drl learns from, each sizing jobs a little wider or "
        "leaner, every one tried on this very workload and the best kept: the most drl "
        "could reach by always imitating the right one. An oracle, like the tuned threshold.",
    ),
}
"""Oracles that measure a ceiling (``evaluate --ceiling``), kept out of the lab's lists so
that no page, ``compare --policies all`` or headline table changes with them."""


def policy_entry(name: str) -> PolicyEntry | None:
    """The entry of a policy of any registry, or None for an unregistered name."""
    return POLICIES.get(name) or ELASTIC_POLICIES.get(name) or CEILINGS.get(name)


def display_name(name: str) -> str:
    """``Title (code-name)`` for a registered policy, else the name itself."""
    entry = policy_entry(name)
    return f"{entry.title} ({name})" if entry else name


def make_policy(name: str) -> Policy:
    """A fresh policy called ``name``; an unknown name raises ``UnknownName`` listing them."""
    entry = policy_entry(name)
    if entry is None:
        known = ", ".join([*POLICIES, *ELASTIC_POLICIES, *CEILINGS])
        raise UnknownName(f"unknown policy {name!r}; known: {known}")
    return entry()


__all__ = [
    "CEILINGS",
    "ELASTIC_POLICIES",
    "POLICIES",
    "Allocation",
    "FreeGpus",
    "Policy",
    "PolicyEntry",
    "RunningJob",
    "SchedulerView",
    "display_name",
    "make_policy",
    "policy_entry",
]
