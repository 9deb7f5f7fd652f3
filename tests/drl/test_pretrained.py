"""The pretrained loader refuses missing, corrupt, tampered-with or outdated files clearly."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
import torch

from engine.drl.actor import NumpyActor, parameter_shapes
from engine.drl.network import ActorCritic
from engine.drl.pretrained import (
    CARD_FILE,
    NUMPY_WEIGHTS_FILE,
    WEIGHTS_FILE,
    PretrainedError,
    load_pretrained,
    load_state_dict,
    save_pretrained,
)
from engine.paths import PRETRAINED_ENV

HIDDEN = 8
BOTH = [WEIGHTS_FILE, NUMPY_WEIGHTS_FILE]


def load(directory, name):
    """The loader that reads weights file ``name``."""
    return (load_state_dict if name == WEIGHTS_FILE else load_pretrained)(directory)


@pytest.fixture
def shipped(tmp_path):
    save_pretrained(ActorCritic(HIDDEN).state_dict(), HIDDEN, {"note": "test"}, tmp_path)
    return tmp_path


def test_round_trip(shipped):
    loaded = load_pretrained(shipped)
    assert loaded.card["note"] == "test" and loaded.card["hidden"] == HIDDEN
    assert set(load_state_dict(shipped)) == set(ActorCritic(HIDDEN).state_dict())


def test_numpy_and_torch_weights_act_identically(shipped):
    obs = np.random.default_rng(0).normal(size=load_pretrained(shipped).card["spec"]["obs_size"])
    mask = np.ones(load_pretrained(shipped).card["spec"]["n_actions"], dtype=bool)
    from_npz = load_pretrained(shipped).actor.probabilities(obs.astype(np.float32), mask)
    from_pt = NumpyActor(load_state_dict(shipped)).probabilities(obs.astype(np.float32), mask)
    assert np.array_equal(from_npz, from_pt)


def test_export_is_reproducible_byte_for_byte(shipped, tmp_path_factory):
    again = tmp_path_factory.mktemp("again")
    save_pretrained(load_state_dict(shipped), HIDDEN, {"note": "test"}, again)
    assert (again / NUMPY_WEIGHTS_FILE).read_bytes() == (shipped / NUMPY_WEIGHTS_FILE).read_bytes()


def test_parameter_shapes_match_the_torch_network():
    for hidden in (8, 64):
        state = ActorCritic(hidden).state_dict()
        assert {k: tuple(v.shape) for k, v in state.items()} == parameter_shapes(hidden)


def test_missing_card_names_the_file(tmp_path):
    with pytest.raises(PretrainedError, match=f"{CARD_FILE}: model card missing"):
        load_pretrained(tmp_path)


@pytest.mark.parametrize("name", BOTH)
def test_missing_weights_names_the_file(shipped, name):
    (shipped / name).unlink()
    with pytest.raises(PretrainedError, match=rf"{name}: the weights file .* is missing"):
        load(shipped, name)


def test_corrupt_card(shipped):
    (shipped / CARD_FILE).write_text("{not json")
    with pytest.raises(PretrainedError, match="not valid JSON"):
        load_pretrained(shipped)


def test_card_without_numpy_weights_asks_for_a_re_export(shipped):
    card = json.loads((shipped / CARD_FILE).read_text())
    del card["numpy_weights_sha256"]
    (shipped / CARD_FILE).write_text(json.dumps(card))
    with pytest.raises(PretrainedError, match="re-export"):
        load_pretrained(shipped)


@pytest.mark.parametrize("name", BOTH)
def test_tampered_weights_fail_the_sha256_check(shipped, name):
    path = shipped / name
    path.write_bytes(path.read_bytes()[:-10] + b"0123456789")
    with pytest.raises(PretrainedError, match=rf"{name}: sha256 .* does not match"):
        load(shipped, name)


def test_weights_of_another_network_are_refused(shipped):
    save_pretrained(ActorCritic(HIDDEN * 2).state_dict(), HIDDEN, {}, shipped)
    with pytest.raises(PretrainedError, match="not the weights of this network with width 8"):
        load_pretrained(shipped)
    with pytest.raises(PretrainedError, match="not a state_dict of this network"):
        load_state_dict(shipped)


def test_outdated_spec_is_refused(shipped):
    card = json.loads((shipped / CARD_FILE).read_text())
    card["spec"]["spec_version"] = -1
    (shipped / CARD_FILE).write_text(json.dumps(card))
    with pytest.raises(PretrainedError, match="observation/action spec"):
        load_pretrained(shipped)


def test_weights_load_without_pickled_code(shipped):
    state = torch.load(shipped / WEIGHTS_FILE, weights_only=True)
    assert all(isinstance(v, torch.Tensor) for v in state.values())
    with np.load(shipped / NUMPY_WEIGHTS_FILE, allow_pickle=False) as archive:
        assert set(archive.files) == set(state)


def test_the_environment_variable_moves_the_folder(shipped, monkeypatch):
    monkeypatch.setenv(PRETRAINED_ENV, str(shipped))
    assert load_pretrained().card["note"] == "test"


def test_inference_never_imports_torch():
    code = (
        "import sys; from engine.drl.pretrained import shipped_policy; shipped_policy(); "
        "print('torch' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_the_card_stays_strict_json_when_a_figure_is_nan(shipped):
    from engine.drl.pretrained import update_card

    update_card({"evaluation": {"ci95": float("nan")}}, shipped)
    card = json.loads((shipped / CARD_FILE).read_text(), parse_constant=pytest.fail)
    assert card["evaluation"]["ci95"] is None


def test_the_shipped_card_is_strict_json():
    from engine.paths import pretrained_dir

    json.loads((pretrained_dir() / CARD_FILE).read_text(), parse_constant=pytest.fail)
