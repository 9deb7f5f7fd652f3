"""The Pollux artifact's raw traces, read as its simulator reads them.

Only for deriving the shipped tables (``python -m engine.speedup.fit``) and for tests
that check the shipped job model against the artifact's own reading
(petuum/adaptdl, osdi21-artifact, ``simulator/applications.py`` and ``Job.step`` in
``simulator.py``): the engine never reads the traces at run time.

A placement the artifact never measured is interpolated linearly over (nodes, GPUs,
local batch) across ``placements.csv`` and ``scalability.csv`` (scipy's
``LinearNDInterpolator``, as the artifact does).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import numpy as np
import pandas as pd

from engine.paths import shared_data

MAX_EPOCHS: dict[str, int] = {
    "bert": 2, "cifar10": 100, "ncf": 10, "imagenet": 90, "deepspeech2": 80, "yolov3": 50,
}
"""Epochs each application trains for (the artifact's ``APPLICATIONS``; no target metric)."""
MAX_LOCAL_BSZ: dict[str, int] = {"yolov3": 8}
"""The artifact's overrides of the largest measured local batch."""


def traces_dir() -> Path:
    """The measured traces (``MOLDABLE_LAB_DATA``/pollux/traces)."""
    return shared_data("pollux", "traces")


@dataclass(frozen=True, eq=False)
class Application:
    """One application's measured throughput and validation traces, as the artifact reads them."""

    name: str
    placements: pd.DataFrame
    scalability: pd.DataFrame
    validation: dict[int, pd.DataFrame]
    max_local_bsz: int
    max_epochs: int
    _memo: dict = field(default_factory=dict, repr=False)

    @property
    def init_batch_size(self) -> int:
        return min(self.validation)

    @property
    def max_batch_size(self) -> int:
        return max(self.validation)

    @property
    def min_local_bsz(self) -> int:
        return int(self.placements["local_bsz"].min())

    def throughput(self, placement: tuple[int, ...], local_bsz: float) -> tuple[float, float]:
        """(step time, sync time) on ``placement`` (GPUs per node) at ``local_bsz``."""
        key = min(placement[i:] + placement[:i] for i in range(len(placement)))
        measured = self._measured().get(int("".join(map(str, key))))
        if measured is not None:
            x, step, sync = measured
            if not x[0] <= local_bsz <= x[-1]:
                raise ValueError(f"{self.name}: local batch {local_bsz} outside {x[0]}..{x[-1]}")
            return float(np.interp(local_bsz, x, step)), float(np.interp(local_bsz, x, sync))
        value = self._interpolator()([min(len(placement), 16), sum(placement), local_bsz])[0]
        if np.isnan(value).any():
            raise ValueError(f"{self.name}: {placement} at local batch {local_bsz} is "
                             "outside the measurements")
        return float(value[0]), float(value[1])

    def _measured(self) -> dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]]:
        if "measured" not in self._memo:
            self._memo["measured"] = {
                int(ident): (rows["local_bsz"].to_numpy(float), rows["step_time"].to_numpy(float),
                             rows["sync_time"].to_numpy(float))
                for ident, rows in self.placements.sort_values("local_bsz").groupby("placement")
            }
        return self._memo["measured"]

    def _interpolator(self):
        if "nd" not in self._memo:
            from scipy.interpolate import LinearNDInterpolator

            xs, ys = ["num_nodes", "num_replicas", "local_bsz"], ["step_time", "sync_time"]
            table = self.placements.assign(
                num_nodes=self.placements["placement"].astype(str).str.len(),
                num_replicas=self.placements["placement"].astype(str).map(
                    lambda p: sum(map(int, p))),
            )
            means = table.groupby(xs)[ys].mean().reset_index()
            points = pd.concat([means, self.scalability[xs + ys]], ignore_index=True)
            self._memo["nd"] = LinearNDInterpolator(points[xs].to_numpy(float),
                                                    points[ys].to_numpy(float))
        return self._memo["nd"]

    def steps(self, batch_size: float) -> float:
        """Steps at ``batch_size`` to finish: each epoch's progress over its gain."""
        return float(np.sum(self.epoch_steps(batch_size)))

    def epoch_steps(self, batch_size: float) -> np.ndarray:
        """Steps at ``batch_size`` in each epoch: its progress over its gain.

        Progress per epoch is the least over the validated batches (the artifact's
        ``get_progress``); gradient statistics are linear between validated batches.
        """
        memo = self._memo.setdefault("steps", {})
        if batch_size not in memo:
            sizes = sorted(self.validation)
            if not sizes[0] <= batch_size <= sizes[-1]:
                raise ValueError(f"{self.name}: batch {batch_size} outside "
                                 f"{sizes[0]}..{sizes[-1]}")
            epochs = self.max_epochs
            ends = np.min([v["progress"].to_numpy(float)[:epochs]
                           for v in self.validation.values()], axis=0)
            progress = np.diff(ends, prepend=0.0)
            hi = int(np.searchsorted(sizes, batch_size))
            lo = hi if sizes[hi] == batch_size else hi - 1
            w = 0.0 if lo == hi else (batch_size - sizes[lo]) / (sizes[hi] - sizes[lo])

            def stat(column: str) -> np.ndarray:
                low = self.validation[sizes[lo]][column].to_numpy(float)[:epochs]
                high = self.validation[sizes[hi]][column].to_numpy(float)[:epochs]
                return (1 - w) * low + w * high

            sqr, var = stat("grad_sqr"), stat("grad_var")
            scale = batch_size / self.init_batch_size
            gain = (var + sqr) / (var / scale + sqr)
            memo[batch_size] = progress / gain
        return memo[batch_size]

    def step_time(self, batch_size: int, gpus: int, nodes: int,
                  placement: tuple[int, ...] | None = None) -> tuple[float, int]:
        """Seconds per step at global ``batch_size`` on ``gpus`` GPUs over ``nodes`` (on
        ``placement``, default the fullest-first one), and the batch actually trained
        (the artifact caps the local batch)."""
        local = math.ceil(batch_size / gpus - 1e-8)
        accum = math.ceil(local / self.max_local_bsz - 1e-8) - 1
        if gpus == 1 and batch_size > self.init_batch_size:
            accum = max(1, accum)
        atomic = math.ceil(local / (accum + 1) - 1e-8)
        atomic = min(atomic, int(self.max_batch_size / (gpus * (accum + 1))))
        step, sync = self.throughput(placement or fullest_first(gpus, nodes), atomic)
        return step + (step - sync) * accum, gpus * atomic * (accum + 1)

    def duration(self, batch_size: int, gpus: int, nodes: int,
                 placement: tuple[int, ...] | None = None) -> float:
        """Seconds a job at global ``batch_size`` trains on ``gpus`` GPUs over ``nodes``."""
        seconds, trained = self.step_time(batch_size, gpus, nodes, placement)
        return seconds * self.steps(trained)


def fullest_first(gpus: int, nodes: int, per_node: int = 4) -> tuple[int, ...]:
    """``gpus`` over exactly ``nodes`` nodes, each as full as the others allow."""
    if not 1 <= nodes <= gpus <= nodes * per_node:
        raise ValueError(f"{gpus} GPUs do not fit on {nodes} nodes of {per_node}")
    out = []
    for i in range(nodes):
        take = min(per_node, gpus - sum(out) - (nodes - 1 - i))
        out.append(take)
    return tuple(out)


@cache
def load_application(name: str, root: Path | None = None) -> Application:
    """The application ``name`` from ``root`` (default :func:`traces_dir`), read once."""
    folder = (root or traces_dir()) / name
    validation = {int(p.stem.split("-")[1]): pd.read_csv(p)
                  for p in sorted(folder.glob("validation-*.csv"))}
    placements = pd.read_csv(folder / "placements.csv")
    return Application(
        name=name,
        placements=placements,
        scalability=pd.read_csv(folder / "scalability.csv"),
        validation=dict(sorted(validation.items())),
        max_local_bsz=MAX_LOCAL_BSZ.get(name, int(placements["local_bsz"].max())),
        max_epochs=MAX_EPOCHS[name],
    )
