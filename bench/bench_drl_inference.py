"""Inference cost of the ``drl`` policy: milliseconds per decision on one core.

A decision is one chosen action (a start, or the final wait) at a decision point:
building the observation from the SchedulerView plus the numpy forward pass; the time
per decision is all the time the policy spends (``schedule``) over the decisions made,
as CPU time of this thread (other processes sharing the core do not count) and the best
of a few runs. Columns: the whole decision, the observation alone (``observe()``) and the
forward pass with the choice (``choose()``). The bar (DRL issue): at most 0.2 ms per
decision. Run: ``python bench/bench_drl_inference.py`` (it times this checkout's
``engine``, whatever else is installed).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core, before numpy loads BLAS
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's engine

import time

from engine.cluster import Cluster
from engine.env import planning
from engine.env.features import DecisionPoint
from engine.policies.drl import DrlPolicy
from engine.protocol import SchedulerView
from engine.simulator import simulate
from engine.workload import GeneratorConfig, generate, to_jobs

BAR_MS = 0.2
REPEATS = 13
SETUPS = ((Cluster(8, 4), 0.85), (Cluster(16, 4), 1.0), (Cluster(64, 4), 0.85))


class TimedDrl(DrlPolicy):
    """The drl policy with a stopwatch on its decisions."""

    def __init__(self) -> None:
        super().__init__()
        self.seconds = 0.0
        self.decisions = 0
        self.forward = 0.0

    def schedule(self, view: SchedulerView):
        started = time.thread_time()
        starts = super().schedule(view)
        self.seconds += time.thread_time() - started
        return starts

    def choose(self, point: DecisionPoint):
        started = time.thread_time()
        action = super().choose(point)
        self.forward += time.thread_time() - started
        self.decisions += 1
        return action


class TimedObserve:
    """``planning.observe`` with a stopwatch (installed only while timing)."""

    def __init__(self, observe) -> None:
        self.observe = observe
        self.seconds = 0.0

    def __call__(self, *args):
        started = time.thread_time()
        point = self.observe(*args)
        self.seconds += time.thread_time() - started
        return point


def main() -> None:
    DrlPolicy().actor  # load the shipped weights outside the stopwatch  # noqa: B018
    print(f"{'cluster':>18} {'load':>5} {'decisions':>9} {'ms/decision':>11} "
          f"{'observe':>8} {'choose':>7}")
    worst = 0.0
    observe = planning.observe
    for cluster, load in SETUPS:
        jobs = to_jobs(generate(GeneratorConfig(jobs=400, load=load, seed=11), cluster), cluster)
        runs, observing = [], []
        for repeat in range(REPEATS):
            policy = TimedDrl()
            timed = TimedObserve(observe) if repeat % 2 else None  # odd runs: observe() too
            planning.observe = timed or observe
            try:
                simulate(jobs, cluster, policy)
            finally:
                planning.observe = observe
            if timed is None:
                runs.append((policy.seconds, policy.forward, policy.decisions))
            else:
                observing.append(timed.seconds / policy.decisions)
        seconds, forward, decisions = min(runs)
        per = 1e3 * seconds / decisions
        net = 1e3 * forward / decisions
        worst = max(worst, per)
        print(f"{cluster!s:>18} {load:>5g} {decisions:>9} {per:>11.3f} "
              f"{1e3 * min(observing):>8.3f} {net:>7.3f}")
    verdict = "meets" if worst <= BAR_MS else "MISSES"
    print(f"worst {worst:.3f} ms per decision (CPU time, best of {len(runs)} runs): "
          f"{verdict} the {BAR_MS} ms bar")


if __name__ == "__main__":
    main()
