"""Small builders for hand-made jobs, shared by the tests."""

from __future__ import annotations

from engine.job import Job
from engine.speedup import Linear, SpeedupModel


def make_job(
    index: int,
    submit: float,
    runtime: float,
    requested: int = 1,
    min_gpus: int = 1,
    max_gpus: int = 64,
    model: SpeedupModel | None = None,
) -> Job:
    """A job whose speedup is linear unless ``model`` says otherwise."""
    speedup_model = Linear() if model is None else model
    return Job(
        index=index,
        job_id=f"j{index}",
        submit_time=submit,
        runtime_1gpu=runtime,
        model=speedup_model.name,
        speedup_model=speedup_model,
        requested_gpus=requested,
        min_gpus=min_gpus,
        max_gpus=max_gpus,
    )
