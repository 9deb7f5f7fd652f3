"""Analytic speedup laws for custom jobs that have no measured profile.

Each law gives the speedup of a perfectly packed allocation; spanning more nodes than
needed costs ``cross_node_penalty`` of speed per extra node crossed, standing in for the
slower inter-node links real clusters have (the measured profiles show the same effect).
"""

from __future__ import annotations

from dataclasses import dataclass

CROSS_NODE_PENALTY = 0.03


def _node_factor(nodes: int, penalty: float) -> float:
    return (1.0 - penalty) ** max(nodes - 1, 0)


@dataclass(frozen=True)
class Amdahl:
    """Amdahl's law: a fixed ``serial_fraction`` of the work cannot be parallelised."""

    serial_fraction: float = 0.05
    cross_node_penalty: float = CROSS_NODE_PENALTY
    name: str = "amdahl"

    def speedup(self, gpus: int, nodes: int) -> float:
        s = self.serial_fraction
        return _node_factor(nodes, self.cross_node_penalty) / (s + (1.0 - s) / gpus)


@dataclass(frozen=True)
class Downey:
    """Downey's model (1997): average parallelism ``A`` and its variance ``sigma``."""

    A: float = 32.0
    sigma: float = 1.0
    cross_node_penalty: float = CROSS_NODE_PENALTY
    name: str = "downey"

    def speedup(self, gpus: int, nodes: int) -> float:
        return _node_factor(nodes, self.cross_node_penalty) * self._ideal(float(gpus))

    def _ideal(self, n: float) -> float:
        A, sigma = self.A, self.sigma
        if sigma <= 1.0:
            if n <= A:
                return A * n / (A + sigma / 2.0 * (n - 1.0))
            if n <= 2.0 * A - 1.0:
                return A * n / (sigma * (A - 0.5) + n * (1.0 - sigma / 2.0))
            return A
        if n <= A + A * sigma - sigma:
            return n * A * (sigma + 1.0) / (sigma * (n + A - 1.0) + A)
        return A


@dataclass(frozen=True)
class Linear:
    """Perfect scaling: the upper bound no real job reaches."""

    cross_node_penalty: float = 0.0
    name: str = "linear"

    def speedup(self, gpus: int, nodes: int) -> float:
        return _node_factor(nodes, self.cross_node_penalty) * gpus
