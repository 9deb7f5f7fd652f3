"""A job as the simulator and the policies see it, and its mode (Feitelson's taxonomy)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from engine.cluster import Placement, spread
from engine.errors import LabError
from engine.speedup.base import SpeedupModel

MODES: tuple[str, ...] = ("rigid", "moldable", "malleable")
"""Feitelson and Rudolph's job kinds (JSSPP 1996): *rigid* runs exactly its request,
*moldable* (the default) gets a GPU count fixed at start, *malleable* may be resized
while it runs. Any of them may be preempted by a policy that asks for it."""
LATEST_SUBMIT = 1e10
"""The latest submit time a job may have, about 317 years: the simulator's clock is a
float, and up to here it still resolves microseconds. Far beyond it (a Unix time in
nanoseconds) a 60 s scheduling round or a 100 s job vanishes into rounding, so a run
would never end, or report a 100 s job as done in 0 s."""


@dataclass(frozen=True, slots=True, eq=False)
class Job:
    """One job: it may run on any GPU count in [min_gpus, max_gpus].

    ``index`` is the job's position in its workload (0..n-1) and is what the simulator
    keys on; ``job_id`` is the user's label, kept for display. ``mode`` is one of
    :data:`MODES`; build non-moldable jobs with :func:`with_mode`, which narrows a rigid
    job's range to its request so the simulator's range check enforces it for free.
    """

    index: int
    job_id: str
    submit_time: float
    runtime_1gpu: float
    model: str
    speedup_model: SpeedupModel
    requested_gpus: int = 1
    min_gpus: int = 1
    max_gpus: int = 1
    mode: str = "moldable"
    _cache: dict[tuple, float] = field(default_factory=dict, repr=False)

    def runtime(self, gpus: int, nodes: int) -> float:
        """Seconds this job runs on ``gpus`` GPUs spread over ``nodes`` nodes: what a
        policy estimates before it knows the exact placement."""
        key = (gpus, nodes)
        cached = self._cache.get(key)
        if cached is None:
            cached = self._checked(self.speedup_model.speedup(gpus, nodes), gpus)
            self._cache[key] = cached
        return cached

    def runtime_on(self, gpus: int, placement: Placement) -> float:
        """Seconds this job runs on exactly ``placement``: what the simulator charges.
        Differs from :meth:`runtime` only for models that measured that placement."""
        on = getattr(self.speedup_model, "speedup_on", None)
        if on is None or len(placement) == 1:
            return self.runtime(gpus, len(placement))
        return self._checked(on(spread(placement)), gpus)  # the model memoises spreads

    def _checked(self, speedup: float, gpus: int) -> float:
        runtime = self.runtime_1gpu / speedup
        if not 0.0 < runtime < math.inf:  # overflow or underflow: the job would vanish
            raise LabError(
                f"job {self.job_id}: its {self.model} speedup model gives a run time of "
                f"{runtime:g} s on {gpus} GPUs; check its run time and model parameters"
            )
        return runtime

    def allowed_gpus(self, total_gpus: int) -> range:
        """GPU counts this job accepts on a cluster of ``total_gpus``."""
        return range(self.min_gpus, min(self.max_gpus, total_gpus) + 1)


def with_mode(job: Job, mode: str) -> Job:
    """``job`` as a ``mode`` job; a rigid one accepts exactly its (clipped) request."""
    if mode not in MODES:
        raise ValueError(f"unknown job mode {mode!r}; known: {', '.join(MODES)}")
    if mode == "rigid":
        gpus = max(job.min_gpus, min(job.requested_gpus, job.max_gpus))
        return replace(job, mode=mode, min_gpus=gpus, max_gpus=gpus)
    return replace(job, mode=mode)
