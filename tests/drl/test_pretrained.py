"""The pretrained loader refuses missing, corrupt, tampered-with or outdated files clearly."""

from __future__ import annotations

import json

import pytest
import torch

from engine.drl.network import ActorCritic
from engine.drl.pretrained import (
    CARD_FILE,
    WEIGHTS_FILE,
    PretrainedError,
    load_pretrained,
    save_pretrained,
)

HIDDEN = 8


@pytest.fixture
def shipped(tmp_path):
    save_pretrained(ActorCritic(HIDDEN).state_dict(), HIDDEN, {"note": "test"}, tmp_path)
    return tmp_path


def test_round_trip(shipped):
    loaded = load_pretrained(shipped)
    assert loaded.card["note"] == "test" and loaded.card["hidden"] == HIDDEN
    assert set(loaded.state_dict) == set(ActorCritic(HIDDEN).state_dict())


def test_missing_card_names_the_file(tmp_path):
    with pytest.raises(PretrainedError, match=f"{CARD_FILE}: model card missing"):
        load_pretrained(tmp_path)


def test_missing_weights_names_the_file(shipped):
    (shipped / WEIGHTS_FILE).unlink()
    with pytest.raises(PretrainedError, match=rf"{WEIGHTS_FILE}: the weights file .* is missing"):
        load_pretrained(shipped)


def test_corrupt_card(shipped):
    (shipped / CARD_FILE).write_text("{not json")
    with pytest.raises(PretrainedError, match="not valid JSON"):
        load_pretrained(shipped)


def test_tampered_weights_fail_the_sha256_check(shipped):
    path = shipped / WEIGHTS_FILE
    path.write_bytes(path.read_bytes()[:-10] + b"0123456789")
    with pytest.raises(PretrainedError, match=r"sha256 .* does not match"):
        load_pretrained(shipped)


def test_weights_of_another_network_are_refused(shipped):
    save_pretrained(ActorCritic(HIDDEN * 2).state_dict(), HIDDEN, {}, shipped)
    with pytest.raises(PretrainedError, match="not a state_dict of this network"):
        load_pretrained(shipped)


def test_outdated_spec_is_refused(shipped):
    card = json.loads((shipped / CARD_FILE).read_text())
    card["spec"]["spec_version"] = -1
    (shipped / CARD_FILE).write_text(json.dumps(card))
    with pytest.raises(PretrainedError, match="observation/action spec"):
        load_pretrained(shipped)


def test_weights_load_without_pickled_code(shipped):
    state = torch.load(shipped / WEIGHTS_FILE, weights_only=True)
    assert all(isinstance(v, torch.Tensor) for v in state.values())
