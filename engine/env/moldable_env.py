"""A Gymnasium environment over the simulator: pick which job starts, on how many GPUs.

Decision points are the simulator's events. At one point the agent may start several
jobs, one action per step (as in DeepRM), until it picks ``WAIT``; the simulator then
advances to the next event at which something could start. Points where nothing fits
are skipped, so every observation offers at least one start.

Reward: minus the number of jobs in the system (waiting or running) times the time that
elapsed, divided by ``scale`` = the sum over jobs of their no-contention run time. The
undiscounted return is therefore exactly ``-total JCT / scale`` = ``-avg JCT / ideal avg
JCT`` (the summary's ``jct_over_bound``), comparable across clusters and loads.

Invalid (masked) actions are refused: nothing happens, the reward is 0 and
``info["refused"]`` is True. Masks follow sb3-contrib: :meth:`action_masks` and
``info["action_mask"]``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from engine.cluster import Cluster
from engine.env.curriculum import Curriculum
from engine.env.features import DecisionPoint, observe
from engine.env.spec import N_ACTIONS, OBS_BOUND, OBS_SIZE, WAIT, decode
from engine.job import Job
from engine.simulator import Simulator
from engine.simulator.results import SimulationResult, best_alone_runtime


def reward_scale(jobs: Sequence[Job], cluster: Cluster) -> float:
    """Sum of the jobs' no-contention run times: the return is -total JCT / this."""
    cache: dict = {}
    return float(sum(best_alone_runtime(j, cluster, cache) for j in jobs))


class MoldableEnv(gym.Env[np.ndarray, np.int64]):
    """One episode = one workload; fixed (``jobs``/``cluster``) or drawn from ``curriculum``.

    ``reset(options={"jobs": ..., "cluster": ...})`` runs a given workload once.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": []}

    def __init__(
        self,
        curriculum: Curriculum | None = None,
        jobs: Sequence[Job] | None = None,
        cluster: Cluster | None = None,
    ) -> None:
        if (jobs is None) != (cluster is None):
            raise ValueError("give both jobs and cluster for a fixed workload, or neither")
        self.observation_space = spaces.Box(-OBS_BOUND, OBS_BOUND, (OBS_SIZE,), np.float32)
        self.action_space = spaces.Discrete(N_ACTIONS)
        self.curriculum = curriculum or Curriculum()
        self._fixed = None if jobs is None else (list(jobs), cluster)
        self.sim: Simulator | None = None
        self.scale = 1.0
        self._point: DecisionPoint | None = None

    # -- gymnasium API -----------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        options = options or {}
        if "jobs" in options:
            jobs, cluster = list(options["jobs"]), options["cluster"]
        elif self._fixed is not None:
            jobs, cluster = self._fixed
        else:
            jobs, cluster = self.curriculum.workload(self.np_random)
        self.sim = Simulator(jobs, cluster)
        self.scale = reward_scale(jobs, cluster)
        # nobody is in the system before the first arrival, so this costs no reward
        self._advance()
        return self._point.obs.copy(), self._info(refused=False)

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        point = self._point
        action = int(action)
        if not point.mask[action]:
            return point.obs.copy(), 0.0, False, False, self._info(refused=True)
        reward = 0.0
        if action == WAIT:
            reward = self._advance()
        else:
            slot, level = decode(action)
            self.sim.start(point.jobs[slot], int(point.gpus[slot, level]))
            self._point = self._observe()
            if not self._point.mask[:WAIT].any():
                reward = self._advance()
        return self._point.obs.copy(), reward, self.sim.done, False, self._info(refused=False)

    def action_masks(self) -> np.ndarray:
        """Valid actions now (sb3-contrib's MaskablePPO convention)."""
        return self._point.mask.copy()

    # -- helpers -----------------------------------------------------------------------
    @property
    def decision(self) -> DecisionPoint:
        """The current decision point (window jobs, what each action means, the mask)."""
        return self._point

    def result(self) -> SimulationResult:
        """The simulator's result so far (complete once the episode terminated)."""
        return self.sim.result()

    def _observe(self) -> DecisionPoint:
        sim = self.sim
        return observe(
            sim.now, sim.cluster, sim.waiting.values(), sim.running.values(), sim.free_per_node
        )

    def _advance(self) -> float:
        """Run to the next point where a job could start (or the end); its reward."""
        sim = self.sim
        reward = 0.0
        while True:
            sim.record()
            before, in_system = sim.now, len(sim.waiting) + len(sim.running)
            if not sim.advance():
                break
            reward -= in_system * (sim.now - before) / self.scale
            if sim.waiting and sim.busy_gpus < sim.cluster.total_gpus:
                self._point = self._observe()
                if self._point.mask[:WAIT].any():
                    return reward
        self._point = self._observe()
        return reward

    def _info(self, refused: bool) -> dict[str, Any]:
        return {"action_mask": self._point.mask.copy(), "time": self.sim.now, "refused": refused}
