"""Pin torch's CPU kernels, so that one seed can train the same weights on other x86-64 CPUs.

torch picks its vector kernels (ATen) and MKL its BLAS code path from the CPU it finds,
and each path rounds differently; training amplifies the last bit into different weights.
Measured (2026-12-07): the same command and seed, on the previous session's machine and
on an AMD EPYC with AVX2, gave validation 2.651 and 2.637 and held 41 and 37 of the 46
evaluation cells; on one machine a tiny run's weights change with ``ATEN_CPU_CAPABILITY``
(default or avx2) and with ``MKL_CBWR`` (unset, AVX2, COMPATIBLE). AVX2 is in every
x86-64 server of the past decade; MKL's only branch reproducible on Intel *and* AMD is
COMPATIBLE (its documentation: the others hold on Intel CPUs only). Both settings are
read when torch first runs a kernel, so :func:`pin_kernels` must come before that; a
setting already in the environment is kept. It is opt-in (``train --portable-kernels``):
MKL's portable branch takes about 60% more CPU per cloning epoch (4.4-5.1 s against
2.7-3.3 s in a micro-benchmark), likely enough to take training on a slow 2-core CPU
past an hour.
"""

from __future__ import annotations

import os

PINNED = {"ATEN_CPU_CAPABILITY": "avx2", "MKL_CBWR": "COMPATIBLE"}


def pin_kernels() -> None:
    """Put :data:`PINNED` in the environment where the user has not set them."""
    for name, value in PINNED.items():
        os.environ.setdefault(name, value)


def kernels_in_effect() -> dict[str, str]:
    """What the model card records: the two settings and the ATen capability torch uses
    (which differs from the setting where torch ran a kernel before the pin, or where the
    CPU lacks it)."""
    import torch

    return {**{name: os.environ.get(name, "(unset)") for name in PINNED},
            "torch_cpu_capability": torch.backends.cpu.get_cpu_capability()}
