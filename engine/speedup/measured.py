"""Six real DL jobs at a fixed global batch, as Pollux measured them (OSDI'21).

A real job trains at a fixed *global* batch ``B`` (the Pollux workloads' ``batch_size``):
on ``k`` GPUs each GPU computes a local batch of ``ceil(B / k)`` samples per step, and
the job needs the same number of steps whatever ``k`` (strong scaling). So speedup
stops growing once synchronisation dominates, and a job cannot use more GPUs than
leave each at least the smallest measured local batch.

Everything here reads ``pollux_profiles.json`` beside this module, derived from the
artifact's traces by ``python -m engine.speedup.fit`` (which records its source and
command); nothing reads the traces at run time. Per model it holds:

* ``placements``: the step and sync time measured on each multi-node placement (GPUs
  per node, ``1442``) at each local batch, linear in the local batch between
  measurements, as the artifact interpolates; the simulator passes a job's placement;
* ``configs``: the same per ``(gpus, nodes)`` shape (the mean over the placements of
  that shape): for placements never measured by themselves and for policies, which
  estimate a run time before they know the placement;
* ``efficiency``: per epoch of the model's ``max_epochs``, the training progress and
  the gradient statistics measured at each validated global batch, from which the
  steps to finish at any batch follow as the artifact computes them (``epoch_steps``);
* a fitted throughput model (:class:`MeasuredProfile`, Pollux's with two refinements)
  for placements never measured: more than 64 GPUs or 16 nodes, more than 4 GPUs per
  node, or node counts in between. It is scaled by the measured-over-fitted ratio of
  the nearest measured shapes (interpolated in GPUs, then nodes), so it meets the
  measurements where they end.

A step on ``k`` GPUs follows the artifact's ``Job.step``: a local batch above the
largest measured one is split into gradient-accumulation micro-batches (each costs
the step's compute part again), a lone GPU accumulates at least once when ``B`` is
above the smallest validated batch, and the batch trained never exceeds the largest
validated one. Speedup is ``duration(1 GPU) / duration(k, n)``, capped at ``k``.
"""

from __future__ import annotations

import json
import math
from dataclasses import astuple, dataclass, field
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
    """One model's fitted step-time model, for placements the measurements do not cover.

    A lone GPU has its own compute line ``alpha_1 + beta_1 * b`` (a replica computes
    slower: all-reduce hooks and NCCL kernels share the GPU); cross-node sync grows with
    the mean GPUs per node ``K/N`` (``zeta_n``), since they share a NIC.
    """

    name: str
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

    def sync_time(self, gpus: Num, nodes: Num) -> Num:
        """Seconds of gradient all-reduce per step (0 on one GPU)."""
        k, n = gpus, nodes
        extra = (k - 2.0 + abs(k - 2.0)) / 2.0  # max(k - 2, 0)
        across = self.alpha_n + self.beta_n * extra + self.zeta_n * (k / n - 1.0)
        within = self.alpha_r + self.beta_r * extra
        return _pick(k != 1, _pick(n > 1, across, within), 0.0)

    def step_time(self, gpus: Num, nodes: Num, local_bsz: Num) -> Num:
        """Seconds per step; scalars or arrays, so the fit and the lookups share it."""
        sync = self.sync_time(gpus, nodes)
        grad = self.alpha_c + self.beta_c * local_bsz
        together = (grad**self.gamma + sync**self.gamma) ** (1.0 / self.gamma)
        return _pick(gpus == 1, self.alpha_1 + self.beta_1 * local_bsz, together)


def _pick(condition: Any, yes: Num, no: Num) -> Num:
    """``yes`` where ``condition`` holds, else ``no``: ``np.where`` written as arithmetic
    so that plain floats stay plain floats (a job start asks with scalars, and numpy
    costs ten times the formula there); both sides are finite (the fit bounds every
    parameter at >= 0)."""
    return condition * yes + (1 - condition) * no


def profile_params(profile: MeasuredProfile) -> dict[str, float]:
    """The fitted parameters by name, as the JSON stores them."""
    return dict(zip(PARAM_NAMES, astuple(profile)[1:], strict=True))


@dataclass(frozen=True, eq=False)
class Application:
    """One model's shipped measurements: what a fixed-batch job of it needs."""

    name: str
    profile: MeasuredProfile
    min_local_bsz: int
    max_local_bsz: int
    validated_batches: tuple[int, ...]
    default_batch: int
    configs: dict[tuple[int, int], tuple[np.ndarray, np.ndarray, np.ndarray]]
    """(gpus, nodes) -> (local batches, step times, sync times), local batch ascending."""
    placements: dict[tuple[int, ...], tuple[np.ndarray, np.ndarray, np.ndarray]]
    """Multi-node spread (smallest rotation) -> the same, measured on that placement."""
    progress: np.ndarray
    """Progress made by the end of each epoch (the least over the validated batches)."""
    grad_sqr: dict[int, np.ndarray]
    """Validated batch -> squared gradient norm per epoch."""
    grad_var: dict[int, np.ndarray]
    """Validated batch -> gradient variance per epoch."""
    _memo: dict[float, np.ndarray] = field(default_factory=dict, repr=False)
    _by_nodes: dict[int, list[tuple[int, int]]] = field(default_factory=dict, repr=False)
    _ratio_memo: dict[tuple[int, float], tuple[list[int], np.ndarray]] = field(
        default_factory=dict, repr=False)
    """(nodes, local batch) -> measured shapes' GPUs and measured/fitted ratios: a job
    start at an unmeasured shape asks for them, and local batches recur across jobs."""

    @property
    def min_batch(self) -> int:
        return self.validated_batches[0]

    @property
    def max_batch(self) -> int:
        return self.validated_batches[-1]

    def max_gpus(self, batch_size: int) -> int:
        """Most GPUs a job at ``batch_size`` can use: each keeps a measured local batch."""
        return max(1, batch_size // self.min_local_bsz)

    def steps(self, batch_size: float) -> float:
        """Steps a job at global ``batch_size`` needs to finish; below the smallest
        validated batch it needs the same samples as there (small batches are
        statistically efficient)."""
        if batch_size < self.min_batch:
            return self.steps(self.min_batch) * self.min_batch / batch_size
        return float(np.sum(self.epoch_steps(batch_size)))

    def epoch_steps(self, batch_size: float) -> np.ndarray:
        """Steps at ``batch_size`` in each epoch: its progress over the batch's gain.

        As the artifact (``get_progress``, ``Job.step``): the gain of a batch ``B``
        ``(var + sqr) / (var / (B / B0) + sqr)`` over the smallest validated ``B0``, the
        gradient statistics linear between validated batches.
        """
        if batch_size not in self._memo:
            sizes = self.validated_batches
            if not sizes[0] <= batch_size <= sizes[-1]:
                raise ValueError(f"{self.name}: batch {batch_size} outside "
                                 f"{sizes[0]}..{sizes[-1]}")
            hi = int(np.searchsorted(sizes, batch_size))
            lo = hi if sizes[hi] == batch_size else hi - 1
            w = 0.0 if lo == hi else (batch_size - sizes[lo]) / (sizes[hi] - sizes[lo])

            def stat(table: dict[int, np.ndarray]) -> np.ndarray:
                return (1 - w) * table[sizes[lo]] + w * table[sizes[hi]]

            sqr, var = stat(self.grad_sqr), stat(self.grad_var)
            gain = (var + sqr) / (var * sizes[0] / batch_size + sqr)
            self._memo[batch_size] = np.diff(self.progress, prepend=0.0) / gain
        return self._memo[batch_size]

    def throughput(self, gpus: int, nodes: int, local_bsz: float,
                   spread: tuple[int, ...] | None = None) -> tuple[float, float]:
        """(step time, sync time) in seconds on ``gpus`` GPUs over ``nodes`` nodes: on
        ``spread`` (see :func:`engine.cluster.spread`) where that placement was measured,
        else the shape's mean, else the fitted model scaled to the nearest shapes."""
        if spread is not None and spread in self.placements:
            return self._interpolated(self.placements[spread], (gpus, nodes), local_bsz)
        if (gpus, nodes) in self.configs:
            return self._measured((gpus, nodes), local_bsz)
        step_ratio, sync_ratio = self._ratios(gpus, nodes, local_bsz)
        step = float(self.profile.step_time(gpus, nodes, local_bsz)) * step_ratio
        return step, min(step, float(self.profile.sync_time(gpus, nodes)) * sync_ratio)

    def _measured(self, shape: tuple[int, int], local_bsz: float) -> tuple[float, float]:
        return self._interpolated(self.configs[shape], shape, local_bsz)

    def _interpolated(self, table: tuple[np.ndarray, np.ndarray, np.ndarray],
                      shape: tuple[int, int], local_bsz: float) -> tuple[float, float]:
        """Measured times, linear between measured local batches; beyond them the step
        follows the fitted model of ``shape`` from the nearest measured batch."""
        local, step, sync = table
        b = float(np.clip(local_bsz, local[0], local[-1]))
        at_b = float(np.interp(b, local, step))
        if b != local_bsz:
            at_b *= float(self.profile.step_time(*shape, local_bsz) /
                          self.profile.step_time(*shape, b))
        return at_b, min(at_b, float(np.interp(b, local, sync)))

    def _ratios(self, gpus: int, nodes: int, local_bsz: float) -> tuple[float, float]:
        """Measured over fitted (step, sync) at this shape: exact where measured, else
        interpolated in GPUs between measured shapes of the same node count, then in
        nodes between the nearest measured node counts (clamped beyond them)."""
        if not self._by_nodes:
            for shape in sorted(self.configs):
                self._by_nodes.setdefault(shape[1], []).append(shape)
        counts = sorted(self._by_nodes)
        if nodes in self._by_nodes:
            return self._along_gpus(nodes, gpus, local_bsz)
        hi = int(np.searchsorted(counts, nodes))
        if hi == 0 or hi == len(counts):
            return self._along_gpus(counts[min(hi, len(counts) - 1)], gpus, local_bsz)
        lo_n, hi_n = counts[hi - 1], counts[hi]
        w = (nodes - lo_n) / (hi_n - lo_n)
        low, high = self._along_gpus(lo_n, gpus, local_bsz), self._along_gpus(hi_n, gpus, local_bsz)
        return (1 - w) * low[0] + w * high[0], (1 - w) * low[1] + w * high[1]

    def _along_gpus(self, nodes: int, gpus: int, local_bsz: float) -> tuple[float, float]:
        key = (nodes, local_bsz)
        if key not in self._ratio_memo:
            shapes = self._by_nodes[nodes]
            self._ratio_memo[key] = ([k for k, _ in shapes], np.array(
                [self._measured_ratio(shape, local_bsz) for shape in shapes]))
        ks, ratios = self._ratio_memo[key]
        return float(np.interp(gpus, ks, ratios[:, 0])), float(np.interp(gpus, ks, ratios[:, 1]))

    def _measured_ratio(self, shape: tuple[int, int], local_bsz: float) -> tuple[float, float]:
        step, sync = self._measured(shape, local_bsz)
        fitted_sync = float(self.profile.sync_time(*shape))
        return (step / float(self.profile.step_time(*shape, local_bsz)),
                sync / fitted_sync if fitted_sync > 0 else 1.0)


@lru_cache(maxsize=1)
def _document() -> dict[str, Any]:
    return json.loads(PROFILES_PATH.read_text())


@cache
def load_application(name: str) -> Application:
    """The shipped measurements of ``name`` (one of ``MEASURED_MODELS``), read once."""
    applications = _document()["applications"]
    if name not in applications:
        raise UnknownName(f"no measured model {name!r}; known: {', '.join(MEASURED_MODELS)}")
    entry = applications[name]
    params = _document()["profiles"][name]["params"]

    def columns(c: dict[str, list[float]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return tuple(np.array(c[k], dtype=float)  # type: ignore[return-value]
                     for k in ("local_bsz", "step_time", "sync_time"))

    configs = {(c["gpus"], c["nodes"]): columns(c) for c in entry["configs"]}
    placements = {tuple(int(d) for d in key): columns(c)
                  for key, c in entry["placements"].items()}
    return Application(
        name=name,
        profile=MeasuredProfile(name, *(params[p] for p in PARAM_NAMES)),
        min_local_bsz=entry["min_local_bsz"],
        max_local_bsz=entry["max_local_bsz"],
        validated_batches=tuple(entry["validated_batches"]),
        default_batch=entry["default_batch"],
        configs=configs,
        placements=placements,
        progress=np.array(entry["efficiency"]["progress"], dtype=float),
        grad_sqr={int(b): np.array(v, dtype=float)
                  for b, v in entry["efficiency"]["grad_sqr"].items()},
        grad_var={int(b): np.array(v, dtype=float)
                  for b, v in entry["efficiency"]["grad_var"].items()},
    )


def load_profile(name: str) -> MeasuredProfile:
    """The fitted throughput model of ``name``."""
    return load_application(name).profile


def default_batch(name: str) -> int:
    """The global batch a ``name`` job trains at when its row gives none: the one the
    Pollux workloads use most for that model."""
    return load_application(name).default_batch


def workload_batches() -> dict[str, dict[int, int]]:
    """How often each (model, global batch) occurs in the eight Pollux workloads: what the
    generator samples a job's batch from."""
    table = _document()["workload_batches"]
    return {model: {int(b): n for b, n in counts.items()} for model, counts in table.items()}


@dataclass(frozen=True)
class FixedBatchJob:
    """The speed of a ``name`` job training at global batch ``batch_size``.

    ``duration`` is seconds on a placement (the artifact's job length); ``speedup`` is
    what the simulator uses, relative to one GPU and never above the GPU count.
    """

    name: str
    batch_size: int
    _on: dict[tuple[int, ...], float] = field(default_factory=dict, compare=False, repr=False)
    """Speedup per exact spread, memoised: the simulator asks once per job start."""

    def __post_init__(self) -> None:
        app = load_application(self.name)
        if not 1 <= self.batch_size <= app.max_batch:
            raise ValueError(f"{self.name}: batch_size must be a whole number in "
                             f"[1, {app.max_batch}], got {self.batch_size}")

    @property
    def max_gpus(self) -> int:
        return load_application(self.name).max_gpus(self.batch_size)

    def step(self, gpus: int, nodes: int,
             spread: tuple[int, ...] | None = None) -> tuple[float, int]:
        """Seconds per step on ``gpus`` GPUs over ``nodes`` (on ``spread`` where known),
        and the global batch trained."""
        app = load_application(self.name)
        local = math.ceil(self.batch_size / gpus - 1e-8)
        accum = math.ceil(local / app.max_local_bsz - 1e-8) - 1
        if gpus == 1 and self.batch_size > app.min_batch:
            accum = max(1, accum)
        atomic = math.ceil(local / (accum + 1) - 1e-8)
        atomic = max(1, min(atomic, app.max_batch // (gpus * (accum + 1))))
        step, sync = app.throughput(gpus, nodes, atomic, spread)
        return step + (step - sync) * accum, gpus * atomic * (accum + 1)

    def duration(self, gpus: int, nodes: int, spread: tuple[int, ...] | None = None) -> float:
        """Seconds the job trains on ``gpus`` GPUs over ``nodes`` nodes (on ``spread``)."""
        return _duration(self, gpus, nodes, spread)

    def speedup(self, gpus: int, nodes: int) -> float:
        """Throughput on ``gpus`` GPUs over ``nodes`` nodes over one GPU's, at most ``gpus``."""
        if gpus < 1 or not 1 <= nodes <= gpus:
            raise ValueError(f"need 1 <= nodes <= gpus, got gpus={gpus}, nodes={nodes}")
        return _speedup(self, gpus, nodes, None)

    def speedup_on(self, spread: tuple[int, ...]) -> float:
        """The speedup on this exact placement (GPUs per node, smallest rotation); its
        shape's where that placement was never measured."""
        found = self._on.get(spread)
        if found is None:
            gpus, nodes = sum(spread), len(spread)
            measured = spread in load_application(self.name).placements
            found = _speedup(self, gpus, nodes, spread) if measured else self.speedup(gpus, nodes)
            self._on[spread] = found
        return found


@lru_cache(maxsize=65536)
def _duration(job: FixedBatchJob, gpus: int, nodes: int,
              spread: tuple[int, ...] | None) -> float:
    seconds, trained = job.step(gpus, nodes, spread)
    return seconds * load_application(job.name).steps(trained)


@lru_cache(maxsize=65536)
def _speedup(job: FixedBatchJob, gpus: int, nodes: int,
             spread: tuple[int, ...] | None) -> float:
    return min(float(gpus), _duration(job, 1, 1, None) / _duration(job, gpus, nodes, spread))


def measured_job(name: str, batch_size: int | None = None) -> FixedBatchJob:
    """The fixed-batch job model of ``name`` at ``batch_size`` (default: the model's own)."""
    if name not in MEASURED_MODELS:
        raise UnknownName(f"no measured model {name!r}; known: {', '.join(MEASURED_MODELS)}")
    return _job(name, default_batch(name) if batch_size is None else int(batch_size))


@cache
def _job(name: str, batch_size: int) -> FixedBatchJob:
    return FixedBatchJob(name, batch_size)


def pollux_runtime_1gpu(application: str, batch_size: int) -> float:
    """Seconds a Pollux workload job (``application`` at global ``batch_size``) trains on
    one GPU: the artifact's job length, ``max_epochs`` of its model."""
    return measured_job(application, batch_size).duration(1, 1)


BATCH_CHOICES = 24
"""Global batches an adaptive job considers, evenly spaced in log between the model's
smallest and largest validated batch."""


@dataclass(frozen=True)
class AdaptiveBatchJob:
    """A Pollux job: in every epoch it trains at the global batch that gets through that
    epoch soonest on its allocation (Pollux's goodput), among the validated range.

    Its own, named kind of job, paired with ``pollux-like`` (which tunes the batch
    with the allocation); never what a workload row builds by default.
    """

    name: str

    @property
    def max_gpus(self) -> int:
        app = load_application(self.name)
        return app.max_gpus(app.max_batch)

    def duration(self, gpus: int, nodes: int, spread: tuple[int, ...] | None = None) -> float:
        """Seconds the job trains on ``gpus`` GPUs over ``nodes`` nodes (on ``spread``),
        best batch per epoch."""
        return _adaptive_duration(self.name, gpus, nodes, spread)

    def speedup(self, gpus: int, nodes: int) -> float:
        if gpus < 1 or not 1 <= nodes <= gpus:
            raise ValueError(f"need 1 <= nodes <= gpus, got gpus={gpus}, nodes={nodes}")
        return min(float(gpus), self.duration(1, 1) / self.duration(gpus, nodes))

    def speedup_on(self, spread: tuple[int, ...]) -> float:
        """The speedup on this exact placement (GPUs per node, smallest rotation); its
        shape's where that placement was never measured."""
        if spread not in load_application(self.name).placements:
            return self.speedup(sum(spread), len(spread))
        gpus = sum(spread)
        return min(float(gpus), self.duration(1, 1) / self.duration(gpus, len(spread), spread))


@lru_cache(maxsize=65536)
def _adaptive_duration(name: str, gpus: int, nodes: int,
                       spread: tuple[int, ...] | None) -> float:
    app = load_application(name)
    sizes = np.unique(np.geomspace(app.min_batch, app.max_batch, BATCH_CHOICES).round())
    per_batch = []
    for size in sizes.astype(int).tolist():
        if gpus > app.max_gpus(size):
            continue
        seconds, trained = FixedBatchJob(name, size).step(gpus, nodes, spread)
        per_batch.append(seconds * app.epoch_steps(trained))
    if not per_batch:
        raise ValueError(f"{name}: no validated batch runs on {gpus} GPUs")
    return float(np.min(per_batch, axis=0).sum())
