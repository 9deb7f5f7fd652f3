"""The deployed actor: the policy half of the actor-critic as a numpy forward pass.

It needs no torch, so the scheduler (and everything that imports the policy registry)
starts without paying torch's import; a decision costs a few small matrix products,
well under 0.2 ms on one core.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from engine.env.spec import CLUSTER_FEATURES, LEVELS, PER_JOB, WINDOW


def parameter_shapes(hidden: int) -> dict[str, tuple[int, ...]]:
    """The actor-critic's parameters and their shapes, without building it in torch.

    Loading weights for inference checks them against this, so a file of another
    network is refused by name rather than failing inside a matrix product.
    """
    return {
        "encoder.0.weight": (hidden, PER_JOB + CLUSTER_FEATURES),
        "encoder.0.bias": (hidden,),
        "encoder.2.weight": (hidden, hidden),
        "encoder.2.bias": (hidden,),
        "levels.weight": (LEVELS, hidden),
        "levels.bias": (LEVELS,),
        "trunk.0.weight": (hidden, 2 * hidden + CLUSTER_FEATURES),
        "trunk.0.bias": (hidden,),
        "wait.weight": (1, hidden),
        "wait.bias": (1,),
        "value.weight": (1, hidden),
        "value.bias": (1,),
    }


def as_array(value: Any) -> np.ndarray:
    """A weight as float32 numpy, whether it is a torch tensor or already an array."""
    if hasattr(value, "detach"):
        value = value.detach().cpu().numpy()
    return np.asarray(value, dtype=np.float32)


class NumpyActor:
    """The actor half of :class:`~engine.drl.network.ActorCritic`, one observation at a time.

    The first layer is split into its job and cluster parts, so the cluster features are
    multiplied once rather than once per slot.
    """

    def __init__(self, state_dict: Mapping[str, Any]) -> None:
        p = {k: as_array(v) for k, v in state_dict.items()}
        first = p["encoder.0.weight"].T
        # the split halves as contiguous (column-major, like the other transposed weights)
        # arrays: a strided slice costs matmul a copy at every call
        self._job_in = np.asfortranarray(first[:PER_JOB])
        self._cluster_in = np.asfortranarray(first[PER_JOB:])
        self._bias_in = p["encoder.0.bias"]
        self._hidden = (p["encoder.2.weight"].T, p["encoder.2.bias"])
        self._levels = (p["levels.weight"].T, p["levels.bias"])
        self._trunk = (p["trunk.0.weight"].T, p["trunk.0.bias"])
        self._wait = (p["wait.weight"].T, p["wait.bias"])

    def probabilities(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Action probabilities (zero where masked) for one observation."""
        jobs = obs[: WINDOW * PER_JOB].reshape(WINDOW, PER_JOB)
        cluster = obs[WINDOW * PER_JOB :]
        h = np.tanh(jobs @ self._job_in + (cluster @ self._cluster_in + self._bias_in))
        h = np.tanh(h @ self._hidden[0] + self._hidden[1])
        present = jobs[:, :1]
        kept = h * present
        pooled_mean = kept.sum(0) / max(float(present.sum()), 1.0)
        pooled_max = (kept - 2.0 * (1.0 - present)).max(0)
        z = np.tanh(np.concatenate([pooled_mean, pooled_max, cluster]) @ self._trunk[0]
                    + self._trunk[1])
        logits = np.concatenate([(h @ self._levels[0] + self._levels[1]).reshape(-1),
                                 z @ self._wait[0] + self._wait[1]])
        logits = np.where(mask, logits, -np.inf)
        e = np.exp(logits - logits.max())
        return e / e.sum()
