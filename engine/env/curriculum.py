"""The randomized workloads the agent trains on.

Each episode draws a cluster (one 8-GPU node to 256 GPUs in 4- or 8-GPU nodes), a load
(quiet to overloaded), a size distribution, a request rule (including users who ask for
one GPU, or for any count), Poisson or bursty arrivals and a model mix, then generates a
workload with the project's generator: a policy meets all of these where it is used, so
it trains on all of them. Training workload seeds come from ``TRAIN_SEEDS``, disjoint
from the small seeds (0, 1, 2, ...) that evaluation, ``reproduce`` and the tests use, and
no trace file is ever trained on, so no evaluated workload was trained on.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from engine.cluster import Cluster
from engine.job import Job
from engine.speedup import MEASURED_MODELS
from engine.workload import GeneratorConfig, generate, to_jobs

TRAIN_SEEDS = range(1_000_000, 2_000_000)
"""Workload seeds training may use; evaluation uses seeds below 1,000,000."""


@dataclass(frozen=True)
class Curriculum:
    """The distribution training episodes are drawn from (ranges are inclusive)."""

    cluster_gpus: tuple[int, ...] = (8, 16, 32, 64, 128, 256)
    gpus_per_node: tuple[int, ...] = (4, 8)
    loads: tuple[float, float] = (0.3, 5.0)
    """Offered load, drawn log-uniformly: as many quiet as overloaded episodes."""
    jobs: tuple[int, int] = (80, 640)
    """Jobs per episode: long enough for an overloaded queue to build up."""
    runtimes: tuple[tuple[float, float], ...] = ((600.0, 8 * 3600.0), (60.0, 3 * 86400.0))
    """One-GPU run-time bounds, one pair drawn per episode: the generator's default hours,
    or a minute to three days (a real trace's heavy tail)."""
    size_distributions: tuple[str, ...] = ("log-uniform", "philly")
    request_rules: tuple[str, ...] = ("pollux", "power-of-two", "one", "any")
    arrivals: tuple[str, ...] = ("poisson", "bursty")
    models: tuple[str, ...] = (*MEASURED_MODELS, "amdahl")
    """Speedup models in the mix: the measured DL jobs, and Amdahl's law, which is what
    jobs imported from a trace of rigid runs (SWF, Philly) follow."""
    mix_concentration: float = 0.3
    """Dirichlet concentration of the model mix (small = a few models dominate). 0.3 makes
    episodes of mostly one model common, an all-Amdahl queue (a trace of rigid runs)
    among them; at 1.0 almost every episode was an even blend, unlike any real cluster."""
    trace_shaped: float = 0.25
    """Share of episodes shaped like an imported trace of rigid runs (:meth:`trace_like`).
    Drawn independently, the settings above line up that way (every job Amdahl, a heavy
    tail, bursty, busy) in under 1% of episodes."""

    def trace_like(self) -> Curriculum:
        """This curriculum narrowed to what an SWF or Philly import looks like: every job
        Amdahl's, run times from a minute to three days, bursty arrivals, one-GPU,
        power-of-two or any-count requests, and loads from 1 up (a trace's window is
        rarely quiet)."""
        low, high = self.loads
        return replace(self, loads=(min(max(low, 1.0), high), high),
                       runtimes=((60.0, 3 * 86400.0),), request_rules=("one", "power-of-two",
                                                                        "any"),
                       arrivals=("bursty",), models=("amdahl",), trace_shaped=0.0)

    def sample(self, rng: np.random.Generator) -> tuple[GeneratorConfig, Cluster]:
        """One episode's generator config and cluster, drawn with ``rng``."""
        if self.trace_shaped > 0 and rng.random() < self.trace_shaped:
            return self.trace_like().sample(rng)
        total = int(rng.choice(self.cluster_gpus))
        per_node = int(rng.choice([g for g in self.gpus_per_node if g <= total]))
        weights = rng.dirichlet(np.full(len(self.models), self.mix_concentration))
        low, high = self.runtimes[int(rng.integers(len(self.runtimes)))]
        config = GeneratorConfig(
            jobs=int(rng.integers(self.jobs[0], self.jobs[1] + 1)),
            load=float(math.exp(rng.uniform(*map(math.log, self.loads)))),
            seed=int(rng.integers(TRAIN_SEEDS.start, TRAIN_SEEDS.stop)),
            size_distribution=str(rng.choice(self.size_distributions)),
            model_mix=dict(zip(self.models, map(float, weights), strict=True)),
            request_rule=str(rng.choice(self.request_rules)),
            arrivals=str(rng.choice(self.arrivals)),
            min_runtime=float(low),
            max_runtime=float(high),
        )
        return config, Cluster(nodes=total // per_node, gpus_per_node=per_node)

    def workload(self, rng: np.random.Generator) -> tuple[list[Job], Cluster]:
        """The jobs and cluster of one training episode."""
        config, cluster = self.sample(rng)
        return to_jobs(generate(config, cluster), cluster), cluster


CURRICULA: dict[str, Curriculum] = {
    "broad": Curriculum(),
    "moderate": Curriculum(loads=(0.5, 1.0), jobs=(80, 160), runtimes=((600.0, 8 * 3600.0),),
                           request_rules=("pollux", "power-of-two", "one"),
                           arrivals=("poisson",), models=MEASURED_MODELS, trace_shaped=0.0),
    "small clusters": Curriculum(cluster_gpus=(8, 16, 32)),
    "one node": Curriculum(cluster_gpus=(8,), gpus_per_node=(8,)),
    "trace-shaped": Curriculum().trace_like(),
}
"""Named training distributions (the Train page's presets): ``broad`` is what the shipped
policy trains on; ``moderate`` the earlier curriculum (loads 0.5-1, Poisson arrivals);
``trace-shaped`` only what an imported trace of rigid runs looks like."""
