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
    """Where a named policy lives and the arguments it is made with."""

    module: str
    cls: str
    args: tuple[Any, ...] = ()

    def load(self) -> type[Policy]:
        """The policy class, importing its module on first use."""
        return getattr(import_module(f"engine.policies.{self.module}"), self.cls)

    def __call__(self) -> Policy:
        return self.load()(*self.args)


POLICIES: dict[str, PolicyEntry] = {
    "fifo-request": PolicyEntry("fifo_request", "FifoRequest"),
    "fifo-backfill": PolicyEntry("fifo_backfill", "FifoBackfill"),
    "mesos-offer": PolicyEntry("mesos_offer", "MesosOffer"),
    "elastic-fifo": PolicyEntry("elastic_fifo", "ElasticFifo"),
    "knee": PolicyEntry("knee", "Knee"),
    "sjf-knee": PolicyEntry("sjf_knee", "SjfKnee"),
    "optimus": PolicyEntry("optimus", "Optimus"),
    "afs-l": PolicyEntry("afs_l", "AfsL"),
    "threshold-free": PolicyEntry("threshold", "Threshold", ("free", 0.5)),
    "threshold-queue": PolicyEntry("threshold", "Threshold", ("queue", 4)),
    "threshold-optimal": PolicyEntry("threshold_optimal", "ThresholdOptimal"),
    "drl": PolicyEntry("drl", "DrlPolicy"),
}


def make_policy(name: str) -> Policy:
    """A fresh policy called ``name``; an unknown name raises ``UnknownName`` listing them."""
    try:
        entry = POLICIES[name]
    except KeyError:
        raise UnknownName(f"unknown policy {name!r}; known: {', '.join(POLICIES)}") from None
    return entry()


__all__ = [
    "POLICIES",
    "Allocation",
    "FreeGpus",
    "Policy",
    "PolicyEntry",
    "RunningJob",
    "SchedulerView",
    "make_policy",
]
