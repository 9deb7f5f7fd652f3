"""Speedup models: measured profiles of real DL jobs and analytic laws for custom ones."""

from __future__ import annotations

from engine.errors import UnknownName
from engine.speedup.analytic import Amdahl, Downey, Linear
from engine.speedup.base import SpeedupModel
from engine.speedup.measured import MEASURED_MODELS, measured_job

ANALYTIC_MODELS: tuple[str, ...] = ("amdahl", "downey", "linear")
MODEL_NAMES: tuple[str, ...] = MEASURED_MODELS + ANALYTIC_MODELS


def get_model(
    name: str,
    serial_fraction: float | None = None,
    downey_A: float | None = None,
    downey_sigma: float | None = None,
    batch_size: float | None = None,
) -> SpeedupModel:
    """The speedup model called ``name``; analytic laws take their parameters here, a
    measured DL job its global batch (``None``: the model's default)."""
    if name in MEASURED_MODELS:
        return measured_job(name, None if batch_size is None else int(batch_size))
    if name == "amdahl":
        return Amdahl() if serial_fraction is None else Amdahl(serial_fraction=serial_fraction)
    if name == "downey":
        defaults = Downey()
        return Downey(
            A=defaults.A if downey_A is None else downey_A,
            sigma=defaults.sigma if downey_sigma is None else downey_sigma,
        )
    if name == "linear":
        return Linear()
    raise UnknownName(f"unknown speedup model {name!r}; known: {', '.join(MODEL_NAMES)}")


__all__ = [
    "ANALYTIC_MODELS",
    "MEASURED_MODELS",
    "MODEL_NAMES",
    "Amdahl",
    "Downey",
    "Linear",
    "SpeedupModel",
    "get_model",
]
