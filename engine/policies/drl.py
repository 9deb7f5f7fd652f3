"""The deep-RL scheduler: picks which waiting job starts next and on how many GPUs.

It builds the training environment's observation from the SchedulerView (same code,
:func:`engine.env.features.observe`), takes the most probable unmasked action and
repeats until the network prefers to wait or nothing more fits. Each start's ``info``
carries the top action probabilities so the app can show why it chose. By default it
runs the shipped weights in ``pretrained/`` (verified and loaded once, on first use); an
in-memory model (e.g. one just trained in the app) can be passed instead.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from engine.drl.actor import NumpyActor
from engine.drl.pretrained import shipped_policy
from engine.env import planning  # a module: planning imports the registry
from engine.env.features import DecisionPoint
from engine.env.spec import LEVELS, WAIT
from engine.protocol import Allocation, Policy, SchedulerView

if TYPE_CHECKING:
    from engine.drl.network import ActorCritic

TOP = 5
"""Probabilities kept in ``Allocation.info`` per decision."""


class DrlPolicy(Policy):
    name = "drl"
    uses_runtimes = True

    def __init__(
        self, model: ActorCritic | NumpyActor | Mapping[str, Any] | None = None
    ) -> None:
        if hasattr(model, "state_dict"):  # a torch ActorCritic, e.g. trained in the app
            model = model.state_dict()
        self._actor = model if model is None or isinstance(model, NumpyActor) else NumpyActor(model)

    @property
    def actor(self) -> NumpyActor:
        if self._actor is None:
            self._actor = shipped_policy().actor
        return self._actor

    def schedule(self, view: SchedulerView) -> Sequence[Allocation]:
        return planning.plan_starts(view, self.choose)

    def choose(self, point: DecisionPoint) -> tuple[int, dict[str, Any]]:
        """Greedy action at ``point`` and the top probabilities behind it."""
        probs = self.actor.probabilities(point.obs, point.mask)
        action = int(probs.argmax())
        candidates = np.argpartition(probs[:WAIT], -TOP)[-TOP:]
        # as Python numbers at once: per-element numpy scalars cost more than the rest
        actions = candidates.tolist()
        p = dict(zip(actions, probs[candidates].tolist(), strict=True))
        gpus = dict(zip(actions, point.gpus.reshape(-1)[candidates].tolist(), strict=True))
        top = [
            (point.jobs[a // LEVELS].job_id, gpus[a], round(p[a], 4))
            for a in sorted(p, key=p.__getitem__, reverse=True)
            if p[a] > 0
        ]
        return action, {"probabilities": top, "wait": round(float(probs[WAIT]), 4)}
