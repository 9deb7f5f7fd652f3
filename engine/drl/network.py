"""The actor-critic network, in torch for training and in numpy for deployment.

One MLP is shared by every window slot: it reads a job's features (its own and those of
its GPU-count levels) with the cluster's, and scores each of the job's levels, so what it
learns about one slot holds for all of them. Mean- and max-pooling the slots' hidden
states with the cluster features gives the wait logit and the value. The deployed
policy runs the same actor in numpy (:class:`engine.drl.actor.NumpyActor`).
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from engine.env.spec import CLUSTER_FEATURES, LEVELS, PER_JOB, WINDOW

MASKED = -1e9
"""Logit of an invalid action: exp() of it is exactly 0 in float32."""


def _layer(n_in: int, n_out: int, gain: float = float(np.sqrt(2))) -> nn.Linear:
    layer = nn.Linear(n_in, n_out)
    nn.init.orthogonal_(layer.weight, gain)
    nn.init.zeros_(layer.bias)
    return layer


class ActorCritic(nn.Module):
    """Masked-categorical actor over (slot x level) + wait, and a state-value critic."""

    def __init__(self, hidden: int = 64) -> None:
        super().__init__()
        self.hidden = hidden
        self.encoder = nn.Sequential(
            _layer(PER_JOB + CLUSTER_FEATURES, hidden), nn.Tanh(), _layer(hidden, hidden), nn.Tanh()
        )
        self.levels = _layer(hidden, LEVELS, gain=0.01)
        self.trunk = nn.Sequential(_layer(2 * hidden + CLUSTER_FEATURES, hidden), nn.Tanh())
        self.wait = _layer(hidden, 1, gain=0.01)
        self.value = _layer(hidden, 1, gain=1.0)

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Masked logits (B, N_ACTIONS) and values (B,)."""
        batch = obs.shape[0]
        jobs = obs[:, : WINDOW * PER_JOB].reshape(batch, WINDOW, PER_JOB)
        cluster = obs[:, WINDOW * PER_JOB :]
        x = torch.cat([jobs, cluster.unsqueeze(1).expand(batch, WINDOW, CLUSTER_FEATURES)], -1)
        h = self.encoder(x)
        present = jobs[:, :, :1]
        count = present.sum(1).clamp(min=1.0)
        pooled_mean = (h * present).sum(1) / count
        pooled_max = (h * present - 2.0 * (1.0 - present)).amax(1)  # tanh >= -1 > -2
        z = self.trunk(torch.cat([pooled_mean, pooled_max, cluster], -1))
        logits = torch.cat([self.levels(h).reshape(batch, WINDOW * LEVELS), self.wait(z)], -1)
        logits = torch.where(mask, logits, torch.full_like(logits, MASKED))
        return logits, self.value(z).squeeze(-1)


def copy_state(model: nn.Module) -> dict[str, torch.Tensor]:
    """A snapshot of the weights that later training steps do not change."""
    return {k: v.detach().clone() for k, v in model.state_dict().items()}
