"""The one protocol every speedup model follows.

A moldable job's run time on ``gpus`` GPUs spread over ``nodes`` nodes is its one-GPU
run time divided by ``speedup(gpus, nodes)``. Keeping the protocol this small lets
measured profiles, analytic laws and users' own models be swapped freely. A model may
also offer ``speedup_on(spread)`` for an exact placement (measured models do: two
placements of one shape can differ by a third); the simulator uses it where it exists.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable


@runtime_checkable
class SpeedupModel(Protocol):
    """How fast a job runs on a placement, relative to one GPU."""

    name: str

    def speedup(self, gpus: int, nodes: int) -> float:
        """Speed relative to 1 GPU when using ``gpus`` GPUs spread over ``nodes`` nodes."""
        ...


