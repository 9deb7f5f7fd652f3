"""Synthetic workloads: random jobs at a chosen offered load, reproducible from a seed.

Offered load is ``arrival_rate x E[requested_gpus x runtime(requested_gpus, packed)]
/ cluster.total_gpus``: the fraction of the cluster the users' own requests would keep
busy. The jobs are drawn first, then the arrival rate is solved from their sample
mean, so each realised workload sits on its target rather than only its expected value
doing so (``models.offered_load`` measures it back). Arrivals are Poisson, or bursty:
gaps with the same mean but a coefficient of variation of ``BURSTY_CV`` (Gamma
distributed), as real clusters see jobs come in waves and lulls.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from functools import cache
from pathlib import Path
from types import MappingProxyType

import numpy as np
import pandas as pd

from engine.cluster import Cluster
from engine.speedup import MEASURED_MODELS, MODEL_NAMES, SpeedupModel, get_model
from engine.speedup.measured import default_batch, workload_batches
from engine.workload.models import PARAMETERS, packed_speedups, requested_work
from engine.workload.validate import build_workload
from engine.workload.workload import Workload

SIZE_DISTRIBUTIONS = ("log-uniform", "philly")
BATCH_RULES = ("pollux", "default")
REQUEST_RULES = ("pollux", "power-of-two", "one", "any")
ARRIVALS = ("poisson", "bursty")
BURSTY_CV = 3.0
"""Coefficient of variation of bursty inter-arrival gaps (Poisson's is 1)."""
POLLUX_BAND = (0.5, 0.8)
"""Scaling efficiencies Pollux's users picked their GPU counts in (OSDI'21, sec. 5.1)."""
PHILLY_SIZES = Path(__file__).with_name("philly_sizes.json")
MAX_OFFERED_LOAD = 5.0
"""The most a generated workload may offer: beyond it the queue only grows and every
policy's JCT is the arrival span. Files are never refused for their load
(``load.load_note`` says what it means)."""
MAX_GENERATED_JOBS = 1_000_000
"""Most jobs one config may ask for: a million already take about 750 MB as a frame
plus Jobs and about half a minute to simulate; ten million would be a typo that fills
memory, so it is refused up front."""


def _equal_measured_mix() -> Mapping[str, float]:
    return MappingProxyType(dict.fromkeys(MEASURED_MODELS, 1.0))


@dataclass(frozen=True)
class GeneratorConfig:
    """What to generate; every field has a default, so ``GeneratorConfig()`` works."""

    jobs: int = 200
    """Number of jobs, 1 to ``MAX_GENERATED_JOBS``."""
    load: float = 0.85
    """Target offered load, as defined in the module docstring (may exceed 1)."""
    seed: int = 0
    """Seed of ``numpy.random.default_rng``; the same seed gives the same workload."""
    size_distribution: str = "log-uniform"
    """One-GPU run times: log-uniform on the bounds, or Philly's GPU times within them."""
    min_runtime: float = 600.0
    """Shortest one-GPU run time, seconds."""
    max_runtime: float = 8 * 3600.0
    """Longest one-GPU run time, seconds."""
    model_mix: Mapping[str, float] = field(default_factory=_equal_measured_mix)
    """Relative weight of each speedup model (any of ``MODEL_NAMES``)."""
    request_rule: str = "pollux"
    """How users choose requested_gpus: ``pollux``, ``power-of-two``, ``one``, or ``any``
    count the job can use (users who over- and under-ask)."""
    max_request: int = 16
    """Largest request a user makes (also capped by the cluster)."""
    arrivals: str = "poisson"
    """Inter-arrival gaps: ``poisson`` (exponential) or ``bursty`` (CV ``BURSTY_CV``)."""
    batch_rule: str = "pollux"
    """A measured job's global batch: drawn as often as the Pollux workloads use it
    (``pollux``), or always the model's ``default``."""

    def __reduce__(self) -> tuple:
        """Pickle it (executors ship configs to their workers) although the default mix is
        a read-only mapping, which pickle cannot copy."""
        state = {f.name: getattr(self, f.name) for f in fields(self)}
        state["model_mix"] = dict(self.model_mix)
        return _unpickled_config, (state, isinstance(self.model_mix, MappingProxyType))

    def __post_init__(self) -> None:
        wrong = []
        if self.jobs < 1:
            wrong.append(f"jobs must be at least 1, got {self.jobs}")
        if self.jobs > MAX_GENERATED_JOBS:
            wrong.append(
                f"jobs must be at most {MAX_GENERATED_JOBS:,} (the generator's limit), "
                f"got {self.jobs:,}"
            )
        if not (math.isfinite(self.load) and 0 < self.load <= MAX_OFFERED_LOAD):
            wrong.append(f"load must be a number in (0, {MAX_OFFERED_LOAD:g}], got {self.load}")
        if self.size_distribution not in SIZE_DISTRIBUTIONS:
            wrong.append(
                f"size_distribution must be one of {SIZE_DISTRIBUTIONS}, "
                f"got {self.size_distribution!r}"
            )
        if not 0 < self.min_runtime <= self.max_runtime < math.inf:
            wrong.append(
                f"need 0 < min_runtime <= max_runtime, got {self.min_runtime} "
                f"and {self.max_runtime}"
            )
        unknown = sorted(set(self.model_mix) - set(MODEL_NAMES))
        if unknown:
            wrong.append(f"model_mix has unknown models {unknown}; known: {MODEL_NAMES}")
        weights = list(self.model_mix.values())
        if not all(math.isfinite(w) and w >= 0 for w in weights) or sum(weights) <= 0:
            wrong.append(f"model_mix weights must be >= 0 with a positive sum, got {weights}")
        if self.arrivals not in ARRIVALS:
            wrong.append(f"arrivals must be one of {ARRIVALS}, got {self.arrivals!r}")
        if self.request_rule not in REQUEST_RULES:
            wrong.append(f"request_rule must be one of {REQUEST_RULES}, got {self.request_rule!r}")
        if self.batch_rule not in BATCH_RULES:
            wrong.append(f"batch_rule must be one of {BATCH_RULES}, got {self.batch_rule!r}")
        if self.max_request < 1:
            wrong.append(f"max_request must be at least 1, got {self.max_request}")
        if wrong:
            raise ValueError("; ".join(wrong))


def _unpickled_config(state: dict, read_only_mix: bool) -> GeneratorConfig:
    if read_only_mix:
        state["model_mix"] = MappingProxyType(state["model_mix"])
    return GeneratorConfig(**state)


def generate(config: GeneratorConfig, cluster: Cluster) -> Workload:
    """A random workload for ``cluster`` following ``config``.

    Times are rounded to milliseconds so that last-bit differences between CPUs'
    maths libraries cannot change the result: the same seed gives the same workload
    on every machine (with the same numpy).
    """
    rng = np.random.default_rng(config.seed)
    n = config.jobs
    names = list(config.model_mix)
    weights = np.array([config.model_mix[name] for name in names], dtype=float)
    picks = rng.choice(len(names), size=n, p=weights / weights.sum())
    model = np.array(names, dtype=object)[picks]
    runtime = _runtimes(config, rng.random(n))
    u_request = rng.random(n)
    batch = _batches(config.batch_rule, model, rng.random(n))
    requested = _requests(config, cluster, model, batch, u_request)
    frame = pd.DataFrame({"model": model, "runtime_1gpu": runtime, "requested_gpus": requested})
    for name in PARAMETERS:  # the models' own defaults
        frame[name] = np.nan
    frame["batch_size"] = batch
    rate = config.load * cluster.total_gpus / requested_work(frame, cluster).mean()
    if config.arrivals == "poisson":
        gaps = rng.exponential(1.0 / rate, size=n - 1)
    else:
        shape = BURSTY_CV**-2
        gaps = rng.gamma(shape, 1.0 / (rate * shape), size=n - 1)
    submit = np.round(np.concatenate([[0.0], np.cumsum(gaps)]), 3)
    return build_workload(
        {
            "submit_time": submit,
            "runtime_1gpu": runtime,
            "model": model,
            "requested_gpus": requested,
            "batch_size": batch,
            "job_id": [f"{m}-{i}" for i, m in enumerate(model)],
        },
        np.arange(1, n + 1),
        cluster,
        f"generated-{config.size_distribution}-{config.load:g}-seed{config.seed}",
    )


def _runtimes(config: GeneratorConfig, u: np.ndarray) -> np.ndarray:
    """One-GPU run times by inverse CDF of ``u``, always within the configured bounds.

    Philly's distribution is truncated (not clipped) to the bounds: ``u`` is mapped
    into the CDF's range between them, so the bounds hold no spike of clipped jobs.
    """
    low, high = math.log(config.min_runtime), math.log(config.max_runtime)
    if config.size_distribution == "log-uniform":
        log_runtime = low + (high - low) * u
    else:
        probabilities, log_sizes = _philly_log_quantiles()
        u_low, u_high = np.interp([low, high], log_sizes, probabilities)
        log_runtime = np.interp(u_low + (u_high - u_low) * u, probabilities, log_sizes)
    runtime = np.round(np.exp(log_runtime), 3)
    return np.clip(runtime, config.min_runtime, config.max_runtime)


@cache
def _philly_log_quantiles() -> tuple[np.ndarray, np.ndarray]:
    fit = json.loads(PHILLY_SIZES.read_text())
    return np.array(fit["probabilities"]), np.log(np.array(fit["gpu_time_s"]))


def _batches(rule: str, model: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Each measured job's global batch, by inverse CDF of ``u``; NaN for analytic ones."""
    batch = np.full(len(model), np.nan)
    table = workload_batches()
    for name in np.unique(model).tolist():
        if name not in MEASURED_MODELS:
            continue
        rows = model == name
        counts = table.get(name) if rule == "pollux" else None
        if not counts:
            batch[rows] = default_batch(name)
            continue
        sizes = np.array(sorted(counts), dtype=float)
        cdf = np.cumsum([counts[int(b)] for b in sizes]) / sum(counts.values())
        batch[rows] = sizes[np.searchsorted(cdf, u[rows], side="right").clip(0, len(sizes) - 1)]
    return batch


def _requests(
    config: GeneratorConfig, cluster: Cluster, model: np.ndarray, batch: np.ndarray,
    u: np.ndarray,
) -> np.ndarray:
    """Each job's requested GPUs: uniform (by ``u``) over its model's candidates."""
    requested = np.empty(len(model), dtype=np.int64)
    cap = min(config.max_request, cluster.total_gpus)
    keys = pd.MultiIndex.from_arrays([model, np.nan_to_num(batch, nan=0.0)])
    for name, size in keys.unique():
        rows = (model == name) & (np.nan_to_num(batch, nan=0.0) == size)
        speedup = get_model(name, batch_size=size or None)
        choices = _request_choices(config.request_rule, speedup, cap, cluster)
        requested[rows] = choices[(u[rows] * len(choices)).astype(np.int64)]
    return requested


def _request_choices(rule: str, model: SpeedupModel, cap: int, cluster: Cluster) -> np.ndarray:
    """The GPU counts a user of ``model`` picks among, under ``rule``, up to ``cap`` and to
    what the job can use.

    ``pollux``: the counts whose packed scaling efficiency (speedup / GPUs) lies in
    ``POLLUX_BAND``, or failing any, those closest to the band (for a linear model that
    is every count).
    """
    if rule == "one":
        return np.array([1])
    if rule == "power-of-two":
        return 2 ** np.arange(int(math.log2(min(cap, getattr(model, "max_gpus", cap)))) + 1)
    cap = min(cap, getattr(model, "max_gpus", cap))
    if rule == "any":
        return np.arange(1, cap + 1)
    gpus = np.arange(1, cap + 1)
    speedup = packed_speedups([model], np.zeros(cap, dtype=np.intp), gpus, cluster)
    efficiency = speedup / gpus
    low, high = POLLUX_BAND
    distance = np.maximum.reduce([low - efficiency, efficiency - high, np.zeros(cap)])
    return gpus[distance <= distance.min() + 1e-12]
