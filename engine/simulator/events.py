"""The event heap at the core of the simulator, after SimPy's.

Events are ``(time, seq, kind, payload)``; ``seq`` is a running counter, so events at
the same time come out in the order they were scheduled and a run is deterministic.
"""

from __future__ import annotations

import heapq
from enum import IntEnum


class EventKind(IntEnum):
    ARRIVAL = 0
    COMPLETION = 1
    TICK = 2  # a periodic scheduling round (elastic runs only)


class EventQueue:
    """A min-heap of timed events with an insertion-order tie-breaker."""

    __slots__ = ("_heap", "_seq")

    def __init__(self) -> None:
        self._heap: list[tuple[float, int, EventKind, int]] = []
        self._seq = 0

    def push(self, time: float, kind: EventKind, payload: int) -> None:
        heapq.heappush(self._heap, (time, self._seq, kind, payload))
        self._seq += 1

    def pop(self) -> tuple[float, EventKind, int]:
        time, _, kind, payload = heapq.heappop(self._heap)
        return time, kind, payload

    def pop_due(self) -> tuple[float, list[tuple[EventKind, int]]]:
        """Every event at the earliest time, in the order they were scheduled."""
        heap = self._heap
        time, _, kind, payload = heapq.heappop(heap)
        due = [(kind, payload)]
        while heap and heap[0][0] == time:
            _, _, kind, payload = heapq.heappop(heap)
            due.append((kind, payload))
        return time, due

    def peek_time(self) -> float | None:
        """Time of the next event, or ``None`` when the heap is empty."""
        return self._heap[0][0] if self._heap else None

    def __len__(self) -> int:
        return len(self._heap)
