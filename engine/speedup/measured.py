"""Speedup profiles of six real DL jobs, fitted to Pollux's measurements (OSDI'21).

The fitted figures live in ``pollux_profiles.json`` beside this module (written by
``python -m engine.speedup.fit``); the measurements themselves stay outside the project.
A profile is Pollux's throughput model with two refinements:

* a lone GPU has its own compute line ``alpha_1 + beta_1 * b``, because a data-parallel
  replica computes at a different rate than a GPU running alone (bucketed all-reduce
  hooks and NCCL kernels share the GPU); with one shared line the speedups of cifar10
  and deepspeech2 were about 13 % off, against 4-6 % now;
* cross-node sync grows with the mean GPUs per node ``K/N`` (``zeta_n``), since they
  share a NIC: the data show ``44`` syncing far slower than ``1111`` for bert and
  yolov3. The mean keeps the protocol's ``(gpus, nodes)`` enough to place a job.

Speedup is weak scaling at the profile's reference local batch ``local_bsz``.
"""

from __future__ import annotations

import json
import math
from dataclasses import astuple, dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.errors import UnknownName

MEASURED_MODELS: tuple[str, ...] = ("bert", "cifar10", "deepspeech2", "imagenet", "ncf", "yolov3")
PROFILES_PATH = Path(__file__).with_name("pollux_profiles.json")

PARAM_NAMES: tuple[str, ...] = (
    "alpha_1",  # lone-GPU compute: constant (s)
    "beta_1",  # lone-GPU compute: per sample (s)
    "alpha_c",  # replica compute: constant (s)
    "beta_c",  # replica compute: per sample (s)
    "alpha_r",  # intra-node sync: constant (s)
    "beta_r",  # intra-node sync: per replica beyond 2 (s)
    "alpha_n",  # cross-node sync: constant (s)
    "beta_n",  # cross-node sync: per replica beyond 2 (s)
    "zeta_n",  # cross-node sync: per extra GPU sharing a node (s)
    "gamma",  # compute/sync overlap: 1 = none, 10 ~ full
)

Num = float | npt.NDArray[np.float64]


@dataclass(frozen=True)
class MeasuredProfile:
    """One job's fitted step-time model; ``speedup`` is its throughput relative to 1 GPU."""

    name: str
    local_bsz: float
    alpha_1: float
    beta_1: float
    alpha_c: float
    beta_c: float
    alpha_r: float
    beta_r: float
    alpha_n: float
    beta_n: float
    zeta_n: float
    gamma: float

    def step_time(self, gpus: Num, nodes: Num, local_bsz: Num) -> Num:
        """Seconds per iteration; scalars or arrays, so the fit and the lookups share it."""
        k = np.asarray(gpus, dtype=float)
        n = np.asarray(nodes, dtype=float)
        b = np.asarray(local_bsz, dtype=float)
        extra = np.maximum(k - 2.0, 0.0)
        sync = np.where(
            n > 1,
            self.alpha_n + self.beta_n * extra + self.zeta_n * (k / n - 1.0),
            self.alpha_r + self.beta_r * extra,
        )
        grad = self.alpha_c + self.beta_c * b
        together = (grad**self.gamma + sync**self.gamma) ** (1.0 / self.gamma)
        result = np.where(k == 1, self.alpha_1 + self.beta_1 * b, together)
        return float(result) if result.ndim == 0 else result

    def speedup(self, gpus: int, nodes: int) -> float:
        """Throughput on ``gpus`` GPUs over ``nodes`` nodes over 1 GPU's, at ``local_bsz``."""
        if gpus < 1 or not 1 <= nodes <= gpus:
            raise ValueError(f"need 1 <= nodes <= gpus, got gpus={gpus}, nodes={nodes}")
        return _speedup(self, gpus, nodes)


@lru_cache(maxsize=65536)
def _speedup(profile: MeasuredProfile, gpus: int, nodes: int) -> float:
    one = profile.alpha_1 + profile.beta_1 * profile.local_bsz
    return gpus * one / float(profile.step_time(gpus, nodes, profile.local_bsz))


@lru_cache(maxsize=1)
def _document() -> dict[str, Any]:
    return json.loads(PROFILES_PATH.read_text())


@cache
def load_profile(name: str) -> MeasuredProfile:
    """The fitted profile called ``name`` (one of ``MEASURED_MODELS``), read once."""
    profiles = _document()["profiles"]
    if name not in profiles:
        raise UnknownName(f"no measured profile {name!r}; known: {', '.join(MEASURED_MODELS)}")
    entry = profiles[name]
    params = entry["params"]
    return MeasuredProfile(name, entry["local_bsz"], *(params[p] for p in PARAM_NAMES))


def profile_params(profile: MeasuredProfile) -> dict[str, float]:
    """The fitted parameters by name, as the JSON stores them."""
    return dict(zip(PARAM_NAMES, astuple(profile)[2:], strict=True))


def pollux_runtime_1gpu(application: str, batch_size: int) -> float:
    """Seconds a Pollux workload job (``application`` at global ``batch_size``) runs on 1 GPU.

    Faithful to Pollux's simulator (``applications.py``): a job trains for the model's
    ``max_epochs`` (no metric target is set for any of the six), which at global batch
    ``B`` takes the iteration count its validation trace records after that last epoch;
    between validated batch sizes the count is linearly interpolated, as Pollux's
    ``get_iteration`` does, and below the smallest the job needs the same samples as
    there (small batches are statistically efficient). Larger-than-validated batches are
    refused, as Pollux asserts. On one GPU a batch above the model's largest measured
    local batch is split into gradient-accumulation micro-batches, as Pollux does, and
    each micro-batch takes the profile's lone-GPU compute time.

    This is the 1-GPU end of Pollux's own ``get_configurations`` JCT estimate, so large
    batches pay their statistical inefficiency. It gives minutes (ncf) to hours (bert,
    cifar10, deepspeech2, yolov3) and days only for ImageNet's 90 epochs, which Pollux's
    workloads run on 24-48 GPUs.
    """
    works = _document()["applications"]
    if application not in works:
        raise UnknownName(f"no Pollux application {application!r}; known: {', '.join(works)}")
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    work = works[application]
    micro_batches = math.ceil(batch_size / work["max_local_bsz"])
    atomic_bsz = math.ceil(batch_size / micro_batches)
    profile = load_profile(application)
    micro_step = profile.alpha_1 + profile.beta_1 * atomic_bsz
    return _iterations(work["iterations"], batch_size) * micro_batches * micro_step


def _iterations(table: dict[str, float], batch_size: int) -> float:
    sizes = sorted(int(b) for b in table)
    if batch_size > sizes[-1]:
        raise ValueError(
            f"batch_size {batch_size} is above the largest validated batch {sizes[-1]}"
        )
    if batch_size <= sizes[0]:
        return table[str(sizes[0])] * sizes[0] / batch_size
    counts = [table[str(b)] for b in sizes]
    return float(np.interp(batch_size, sizes, counts))
