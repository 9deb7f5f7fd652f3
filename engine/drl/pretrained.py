"""The shipped policy: a small ``state_dict`` plus a JSON model card that vouches for it.

The card records the observation/action spec the weights were trained for, the
hyper-parameters, the training workloads and time, the evaluation table and the
weights' sha256. Loading checks all of it, so a missing, corrupt, tampered-with or
outdated file fails with a :class:`PretrainedError` naming the file and the problem
rather than with a scheduler that silently misbehaves.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.drl.actor import NumpyActor
from engine.env.spec import spec_dict
from engine.errors import LabError

if TYPE_CHECKING:
    import torch

PRETRAINED_DIR = Path(__file__).resolve().parents[2] / "pretrained"
WEIGHTS_FILE = "drl_policy.pt"
CARD_FILE = "drl_policy.json"
CARD_VERSION = 1


class PretrainedError(LabError):
    """The pretrained policy's files are missing, unreadable or do not match the code."""


@dataclass(frozen=True, eq=False)
class PretrainedPolicy:
    """Verified weights, ready to run, and the card that describes them."""

    actor: NumpyActor
    state_dict: dict[str, torch.Tensor]
    card: dict[str, Any]


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def save_pretrained(
    state_dict: Mapping[str, torch.Tensor],
    hidden: int,
    card: Mapping[str, Any],
    directory: str | os.PathLike = PRETRAINED_DIR,
) -> Path:
    """Write weights and card (with spec, hidden width and sha256 filled in); the card path."""
    import torch  # only here and in loading: the policy itself runs in numpy

    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    weights = directory / WEIGHTS_FILE
    torch.save({k: v.detach().cpu().clone() for k, v in state_dict.items()}, weights)
    full = {
        **card,
        "card_version": CARD_VERSION,
        "spec": spec_dict(),
        "hidden": hidden,
        "weights_file": WEIGHTS_FILE,
        "weights_sha256": sha256(weights),
    }
    path = directory / CARD_FILE
    path.write_text(json.dumps(full, indent=2, default=str) + "\n")
    return path


def update_card(updates: Mapping[str, Any], directory: str | os.PathLike = PRETRAINED_DIR) -> None:
    """Add or replace card entries (e.g. the evaluation table) without touching the weights."""
    path = Path(directory) / CARD_FILE
    card = _read_card(path)
    card.update(updates)
    path.write_text(json.dumps(card, indent=2, default=str) + "\n")


def load_pretrained(directory: str | os.PathLike = PRETRAINED_DIR) -> PretrainedPolicy:
    """Read and verify the card and the weights it names; raises :class:`PretrainedError`."""
    directory = Path(directory)
    card_path = directory / CARD_FILE
    card = _read_card(card_path)
    if card.get("spec") != spec_dict():
        raise PretrainedError(
            f"{card_path}: the weights were trained for observation/action spec "
            f"{card.get('spec')}, this code uses {spec_dict()}; retrain with "
            f"`python -m engine train`"
        )
    weights = directory / str(card.get("weights_file", WEIGHTS_FILE))
    if not weights.is_file():
        raise PretrainedError(f"{weights}: the weights file named by {card_path} is missing")
    digest = sha256(weights)
    if digest != card.get("weights_sha256"):
        raise PretrainedError(
            f"{weights}: sha256 {digest} does not match {card.get('weights_sha256')} in "
            f"{card_path}; the file is corrupt or was replaced"
        )
    import torch

    from engine.drl.network import ActorCritic

    try:
        state = torch.load(weights, map_location="cpu", weights_only=True)
        model = ActorCritic(int(card["hidden"]))
        model.load_state_dict(state)
    except Exception as error:  # torch raises many types for a bad file
        raise PretrainedError(f"{weights}: not a state_dict of this network ({error})") from None
    return PretrainedPolicy(NumpyActor(state), state, card)


@cache
def shipped_policy() -> PretrainedPolicy:
    """The policy in ``pretrained/``, loaded and verified once per process."""
    return load_pretrained(PRETRAINED_DIR)


def _read_card(path: Path) -> dict[str, Any]:
    if not path.is_file():
        raise PretrainedError(
            f"{path}: model card missing; train one with `python -m engine train --export`"
        )
    try:
        card = json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise PretrainedError(f"{path}: not valid JSON ({error})") from None
    if not isinstance(card, dict):
        raise PretrainedError(f"{path}: expected a JSON object, got {type(card).__name__}")
    return card
