"""Scheduling policies, looked up by name.

Each policy is one short module; add a new one by writing it and listing it here.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from engine.policies.afs_l import AfsL
from engine.policies.base import Allocation, FreeGpus, Policy, RunningJob, SchedulerView
from engine.policies.drl import DrlPolicy
from engine.policies.elastic_fifo import ElasticFifo
from engine.policies.fifo_backfill import FifoBackfill
from engine.policies.fifo_request import FifoRequest
from engine.policies.knee import Knee
from engine.policies.mesos_offer import MesosOffer
from engine.policies.optimus import Optimus
from engine.policies.sjf_knee import SjfKnee
from engine.policies.threshold import Threshold
from engine.policies.threshold_optimal import ThresholdOptimal
from engine.policies.tuned import TunedPolicy

POLICIES: dict[str, Callable[[], Policy]] = {
    FifoRequest.name: FifoRequest,
    FifoBackfill.name: FifoBackfill,
    MesosOffer.name: MesosOffer,
    ElasticFifo.name: ElasticFifo,
    Knee.name: Knee,
    SjfKnee.name: SjfKnee,
    Optimus.name: Optimus,
    AfsL.name: AfsL,
    "threshold-free": partial(Threshold, "free", 0.5),
    "threshold-queue": partial(Threshold, "queue", 4),
    ThresholdOptimal.name: ThresholdOptimal,
    DrlPolicy.name: DrlPolicy,
}


def make_policy(name: str) -> Policy:
    """A fresh policy called ``name``; raises ``KeyError`` listing the known names."""
    try:
        factory = POLICIES[name]
    except KeyError:
        raise KeyError(f"unknown policy {name!r}; known: {', '.join(POLICIES)}") from None
    return factory()


__all__ = [
    "POLICIES",
    "Allocation",
    "FreeGpus",
    "Policy",
    "RunningJob",
    "SchedulerView",
    "TunedPolicy",
    "make_policy",
]
