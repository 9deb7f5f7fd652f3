"""Scheduling policies, looked up by name.

Each policy is one short module; add a new one by writing it and listing it here.
"""

from __future__ import annotations

from collections.abc import Callable

from engine.policies.base import Allocation, FreeGpus, Policy, RunningJob, SchedulerView
from engine.policies.fifo_request import FifoRequest

POLICIES: dict[str, Callable[[], Policy]] = {
    FifoRequest.name: FifoRequest,
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
    "make_policy",
]
