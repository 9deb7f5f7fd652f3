"""The shipped policy: its weights plus a JSON model card that vouches for them.

The card records the observation/action spec the weights were trained for, the
hyper-parameters, the training workloads and time, the evaluation table and the sha256
of each weights file. The weights come twice, with the same float32 values: a numpy
archive (``.npz``) that inference loads without torch, so ``drl`` starts in well under a
second, and torch's ``state_dict`` (``.pt``) for code that loads weights in torch.
Loading checks all of it, so a missing, corrupt, tampered-with or outdated file fails
with a :class:`PretrainedError` naming the file and the problem rather than with a
scheduler that silently misbehaves.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from engine import json_safe
from engine.drl.actor import NumpyActor, parameter_shapes
from engine.env.spec import spec_dict
from engine.errors import LabError
from engine.paths import PRETRAINED_ENV, pretrained_dir

if TYPE_CHECKING:
    import torch

WEIGHTS_FILE = "drl_policy.pt"
NUMPY_WEIGHTS_FILE = "drl_policy.npz"
CARD_FILE = "drl_policy.json"
CARD_VERSION = 2
"""2: the card names a numpy archive of the weights beside torch's file."""


class PretrainedError(LabError):
    """The pretrained policy's files are missing, unreadable or do not match the code."""


@dataclass(frozen=True, eq=False)
class PretrainedPolicy:
    """Verified weights, ready to run, and the card that describes them."""

    actor: NumpyActor
    card: dict[str, Any]
    directory: Path
    weights: dict[str, np.ndarray]
    """The numpy archive's arrays: what fine-tuning starts from without waiting for torch."""

    @property
    def state_dict(self) -> dict[str, torch.Tensor]:
        """The same weights as torch tensors, to train from (imports torch)."""
        return load_state_dict(self.directory)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def save_pretrained(
    state_dict: Mapping[str, torch.Tensor],
    hidden: int,
    card: Mapping[str, Any],
    directory: str | os.PathLike | None = None,
) -> Path:
    """Write both weights files and the card (spec, width, sha256s filled in); the card path."""
    import torch  # only here and in load_state_dict: inference runs in numpy

    directory = _folder(directory)
    directory.mkdir(parents=True, exist_ok=True)
    state = {k: v.detach().cpu().clone() for k, v in state_dict.items()}
    weights = directory / WEIGHTS_FILE
    torch.save(state, weights)
    arrays = directory / NUMPY_WEIGHTS_FILE
    _write_npz(arrays, {k: v.numpy() for k, v in state.items()})
    full = {
        **card,
        "card_version": CARD_VERSION,
        "spec": spec_dict(),
        "hidden": hidden,
        "weights_file": WEIGHTS_FILE,
        "weights_sha256": sha256(weights),
        "numpy_weights_file": NUMPY_WEIGHTS_FILE,
        "numpy_weights_sha256": sha256(arrays),
    }
    path = directory / CARD_FILE
    path.write_text(json_safe.dumps(full, indent=2) + "\n")
    return path


def _write_npz(path: Path, arrays: Mapping[str, np.ndarray]) -> None:
    """An ``.npz`` whose bytes depend only on the arrays (no timestamps), so its sha256
    is the same every time the same weights are exported."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in sorted(arrays):
            buffer = io.BytesIO()
            np.save(buffer, np.ascontiguousarray(arrays[name], dtype=np.float32))
            entry = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            entry.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(entry, buffer.getvalue())


def update_card(updates: Mapping[str, Any], directory: str | os.PathLike | None = None) -> None:
    """Add or replace card entries (e.g. the evaluation table) without touching the weights."""
    path = (_folder(directory)) / CARD_FILE
    card = _read_card(path)
    card.update(updates)
    path.write_text(json_safe.dumps(card, indent=2) + "\n")


def load_pretrained(directory: str | os.PathLike | None = None) -> PretrainedPolicy:
    """The verified numpy actor and its card; raises :class:`PretrainedError`. No torch."""
    directory = _folder(directory)
    card = _verified_card(directory)
    arrays = _verified_file(directory, card, "numpy_weights_file", "numpy_weights_sha256")
    try:
        with np.load(arrays, allow_pickle=False) as archive:
            state = {name: archive[name] for name in archive.files}
    except (OSError, ValueError, zipfile.BadZipFile) as error:
        raise PretrainedError(f"{arrays}: not a numpy weights archive ({error})") from None
    _check_shapes(arrays, state, int(card["hidden"]))
    return PretrainedPolicy(NumpyActor(state), card, directory, state)


def load_state_dict(directory: str | os.PathLike | None = None) -> dict[str, torch.Tensor]:
    """The verified torch ``state_dict`` (to train on from these weights); needs torch."""
    import torch

    from engine.drl.network import ActorCritic

    directory = _folder(directory)
    card = _verified_card(directory)
    weights = _verified_file(directory, card, "weights_file", "weights_sha256")
    try:
        state = torch.load(weights, map_location="cpu", weights_only=True)
        ActorCritic(int(card["hidden"])).load_state_dict(state)
    except Exception as error:  # torch raises many types for a bad file
        raise PretrainedError(f"{weights}: not a state_dict of this network ({error})") from None
    return state


@cache
def shipped_policy() -> PretrainedPolicy:
    """The policy in the pretrained folder, loaded and verified once per process."""
    return load_pretrained()


def _folder(directory: str | os.PathLike | None) -> Path:
    """``directory``, or the shipped weights' folder when none is given."""
    return pretrained_dir() if directory is None else Path(directory)


def _verified_card(directory: Path) -> dict[str, Any]:
    card_path = directory / CARD_FILE
    card = _read_card(card_path)
    if card.get("spec") != spec_dict():
        raise PretrainedError(
            f"{card_path}: the weights were trained for observation/action spec "
            f"{card.get('spec')}, this code uses {spec_dict()}; retrain with "
            f"`python -m engine train`"
        )
    if not isinstance(card.get("hidden"), int):
        raise PretrainedError(f"{card_path}: 'hidden' (the network width) is missing")
    return card


def _verified_file(directory: Path, card: Mapping[str, Any], name_key: str, sha_key: str) -> Path:
    """The weights file ``card[name_key]``, present and matching ``card[sha_key]``."""
    card_path = directory / CARD_FILE
    if name_key not in card or sha_key not in card:
        raise PretrainedError(
            f"{card_path}: names no {name_key!r} with its sha256; re-export the weights with "
            f"`python -m engine train --export` (or `improve --export`)"
        )
    path = directory / str(card[name_key])
    if not path.is_file():
        raise PretrainedError(f"{path}: the weights file named by {card_path} is missing")
    digest = sha256(path)
    if digest != card[sha_key]:
        raise PretrainedError(
            f"{path}: sha256 {digest} does not match {card[sha_key]} in {card_path}; "
            f"the file is corrupt or was replaced"
        )
    return path


def _check_shapes(path: Path, state: Mapping[str, np.ndarray], hidden: int) -> None:
    expected = parameter_shapes(hidden)
    shapes = {name: tuple(array.shape) for name, array in state.items()}
    if shapes != expected:
        wrong = sorted(set(shapes.items()) ^ set(expected.items()))[:3]
        raise PretrainedError(
            f"{path}: not the weights of this network with width {hidden} "
            f"(first differences: {wrong})"
        )


def _read_card(path: Path) -> dict[str, Any]:
    if not path.is_file():
        raise PretrainedError(
            f"{path}: model card missing; train one with `python -m engine train --export`, "
            f"or point {PRETRAINED_ENV} at a folder that has one"
        )
    try:
        card = json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise PretrainedError(f"{path}: not valid JSON ({error})") from None
    if not isinstance(card, dict):
        raise PretrainedError(f"{path}: expected a JSON object, got {type(card).__name__}")
    return card
