"""Pinned CPU kernels: set before torch's first kernel, and a user's own setting wins."""

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


def _probe(**env: str) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if k not in PINNED}
    out = subprocess.run([sys.executable, "-c", PROBE], env={**clean, **env},
                         capture_output=True, text=True, check=True, timeout=120)
    return json.loads(out.stdout)


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="x86-64 kernels")
def test_training_pins_avx2_kernels_and_mkls_portable_branch():
    kernels = _probe()
    assert kernels["ATEN_CPU_CAPABILITY"] == "avx2" and kernels["MKL_CBWR"] == "COMPATIBLE"
    # torch runs the AVX2 kernels (or fewer, on a CPU without them), never AVX-512
    assert kernels["torch_cpu_capability"] in ("AVX2", "DEFAULT")


def test_a_setting_already_in_the_environment_is_kept():
    kernels = _probe(ATEN_CPU_CAPABILITY="default")
    assert kernels["ATEN_CPU_CAPABILITY"] == "default"
    assert kernels["torch_cpu_capability"] == "DEFAULT"
