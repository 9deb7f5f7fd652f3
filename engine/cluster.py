"""The GPU cluster: ``nodes x gpus_per_node`` GPUs, and how an allocation is placed on it.

Placement packs an allocation onto as few nodes as possible, as Slurm's and Kubernetes'
default topology-aware placement tries to, because crossing nodes slows training down.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

Placement = tuple[tuple[int, int], ...]
"""An allocation's placement: ``((node, gpus_on_that_node), ...)``."""


@dataclass(frozen=True)
class Cluster:
    """A homogeneous cluster; the default is the Pollux testbed (16 nodes x 4 GPUs)."""

    nodes: int = 16
    gpus_per_node: int = 4

    def __post_init__(self) -> None:
        if self.nodes < 1 or self.gpus_per_node < 1:
            raise ValueError(
                f"a cluster needs at least 1 node and 1 GPU per node, got "
                f"{self.nodes} x {self.gpus_per_node}"
            )

    @property
    def total_gpus(self) -> int:
        return self.nodes * self.gpus_per_node

    def __str__(self) -> str:
        return f"{self.nodes}x{self.gpus_per_node} ({self.total_gpus} GPUs)"


def pack(free_per_node: Sequence[int], gpus: int) -> Placement | None:
    """Place ``gpus`` GPUs on the fewest nodes, or ``None`` when they do not fit.

    One node is used when one can hold the whole allocation (the fullest such node, to
    keep large holes for large jobs); otherwise the emptiest nodes are filled first,
    which is the fewest-nodes choice. Ties go to the lower node index, so placement is
    deterministic.
    """
    if gpus <= 0:
        return None
    largest = max(free_per_node)
    if gpus <= largest:
        # Best fit: the smallest free count that still holds the job (C-speed scans).
        for free in range(gpus, largest + 1):
            if free in free_per_node:
                return ((free_per_node.index(free), gpus),)
    if sum(free_per_node) < gpus:
        return None
    # Emptiest nodes first, lower indices first among equally free ones: free counts are
    # few (0 .. GPUs per node), so a C-speed index scan per count beats sorting the nodes.
    placement: list[tuple[int, int]] = []
    left = gpus
    for free in range(largest, 0, -1):
        node = -1
        for _ in range(min(free_per_node.count(free), -(-left // free))):
            node = free_per_node.index(free, node + 1)
            take = min(free, left)
            placement.append((node, take))
            left -= take
        if not left:
            break
    return tuple(placement)


def spread(placement: Placement) -> tuple[int, ...]:
    """GPUs per node in node order, as the Pollux artifact keys a placement's measured
    speed: nodes without the job dropped, the smallest rotation (``((5, 2), (2, 4))`` and
    ``((0, 4), (9, 2))`` are both ``(2, 4)``)."""
    if len(placement) == 2:  # the common case: any order of two is a rotation
        (_, a), (_, b) = placement
        return (a, b) if a <= b else (b, a)
    counts = tuple([gpus for _, gpus in placement])
    if counts.count(counts[0]) == len(counts):  # even spreads need no node order
        return counts
    return _smallest_rotation(tuple([gpus for _, gpus in sorted(placement)]))


@lru_cache(maxsize=4096)
def _smallest_rotation(counts: tuple[int, ...]) -> tuple[int, ...]:
    """Memoised: a large trace starts jobs on the same few shapes again and again."""
    return min(counts[i:] + counts[:i] for i in range(len(counts)))


def packed_nodes(gpus: int, gpus_per_node: int) -> int:
    """Nodes an allocation spans on an empty cluster (its best placement)."""
    return -(-gpus // gpus_per_node)
