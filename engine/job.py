"""A moldable job as the simulator and the policies see it."""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.speedup.base import SpeedupModel


@dataclass(frozen=True, slots=True, eq=False)
class Job:
    """One moldable job: it may run on any GPU count in [min_gpus, max_gpus], fixed at start.

    ``index`` is the job's position in its workload (0..n-1) and is what the simulator
    keys on; ``job_id`` is the user's label, kept for display.
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
    _cache: dict[tuple[int, int], float] = field(default_factory=dict, repr=False)

    def runtime(self, gpus: int, nodes: int) -> float:
        """Seconds this job runs on ``gpus`` GPUs spread over ``nodes`` nodes."""
        key = (gpus, nodes)
        cached = self._cache.get(key)
        if cached is None:
            cached = self.runtime_1gpu / self.speedup_model.speedup(gpus, nodes)
            self._cache[key] = cached
        return cached

    def allowed_gpus(self, total_gpus: int) -> range:
        """GPU counts this job accepts on a cluster of ``total_gpus``."""
        return range(self.min_gpus, min(self.max_gpus, total_gpus) + 1)
