"""Training checkpoints: everything needed to resume, loadable with ``weights_only=True``.

A checkpoint holds only tensors and plain containers (no pickled classes), so loading
one never runs code from the file.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from engine.env.spec import spec_dict


@dataclass(frozen=True)
class Checkpoint:
    """A training state: weights, optimizer, where it stopped and the curve so far."""

    model: dict[str, torch.Tensor]
    optimizer: dict[str, Any]
    iteration: int
    history: list[dict[str, Any]]
    config: dict[str, Any]
    best_model: dict[str, torch.Tensor]
    best_score: float


def save_checkpoint(path: str | os.PathLike, checkpoint: Checkpoint) -> None:
    """Write atomically (a crash mid-write leaves the previous checkpoint intact)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    torch.save({**checkpoint.__dict__, "spec": spec_dict()}, tmp)
    tmp.replace(path)


def load_checkpoint(path: str | os.PathLike) -> Checkpoint:
    """Read a checkpoint; refuses one written for another observation/action spec."""
    data = torch.load(path, map_location="cpu", weights_only=True)
    if data.get("spec") != spec_dict():
        raise ValueError(
            f"checkpoint {path} was written for spec {data.get('spec')}, "
            f"this code uses {spec_dict()}"
        )
    del data["spec"]
    return Checkpoint(**data)
