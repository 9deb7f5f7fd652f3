"""Pinned CPU kernels (train --portable-kernels): set before torch's first kernel, recorded
in the card, and a user's own setting wins."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys

import pytest

from engine.drl.kernels import PINNED

PROBE = ("import json; from engine.drl.kernels import kernels_in_effect, pin_kernels; "
         "pin_kernels(); print(json.dumps(kernels_in_effect()))")


def _unpinned() -> dict[str, str]:
    """This environment without the pinned settings (a developer may have set them)."""
    return {k: v for k, v in os.environ.items() if k not in PINNED}


def _probe(**env: str) -> dict[str, str]:
    out = subprocess.run([sys.executable, "-c", PROBE], env={**_unpinned(), **env},
                         capture_output=True, text=True, check=True, timeout=120)
    return json.loads(out.stdout)


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="x86-64 kernels")
def test_pin_kernels_sets_avx2_kernels_and_mkls_portable_branch():
    kernels = _probe()
    assert kernels["ATEN_CPU_CAPABILITY"] == "avx2" and kernels["MKL_CBWR"] == "COMPATIBLE"
    # torch runs the AVX2 kernels (or fewer, on a CPU without them), never AVX-512
    assert kernels["torch_cpu_capability"] in ("AVX2", "DEFAULT")


def test_a_setting_already_in_the_environment_is_kept():
    kernels = _probe(ATEN_CPU_CAPABILITY="default")
    assert kernels["ATEN_CPU_CAPABILITY"] == "default"
    assert kernels["torch_cpu_capability"] == "DEFAULT"


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="x86-64 kernels")
def test_train_portable_kernels_pins_them_and_the_card_says_so(tmp_path):
    subprocess.run([sys.executable, "-m", "engine", "train", "--portable-kernels",
                    "--iterations", "1", "--envs", "1", "--steps", "16", "--bc-episodes", "0",
                    "--val-episodes", "1", "--workers", "1", "--out", str(tmp_path / "run"),
                    "--export", str(tmp_path / "pre")],
                   env=_unpinned(), capture_output=True, check=True, timeout=300)
    card = json.loads((tmp_path / "pre" / "drl_policy.json").read_text())
    kernels = card["training"]["kernels"]
    assert {k: kernels[k] for k in PINNED} == PINNED
    assert kernels["torch_cpu_capability"] in ("AVX2", "DEFAULT")
