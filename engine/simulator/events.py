"""The event heap at the core of the simulator, after SimPy's.

Events are ``(time, seq, kind, payload)``; ``seq`` is a running counter, so events at
the same time come out in the order they were scheduled and a run is deterministic.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from enum import IntEnum


class EventKind(IntEnum):
    ARRIVAL = 0
    COMPLETION = 1
    TICK = 2  # a periodic scheduling round (elastic runs only)


class EventQueue:
    """A min-heap of timed events with an insertion-order tie-breaker.

    Arrivals, all known before the run, wait in a sorted stream beside the heap rather
    than in it: the heap then holds only what is running (a few hundred events, not the
    200,000 arrivals of a large trace), and each push and pop walks a short tree. They
    count as scheduled first, so at equal times they come out before any later event,
    in the order given, exactly as if they had been pushed one by one.
    """

    __slots__ = ("_heap", "_next", "_payloads", "_seq", "_times")

    def __init__(self, times: Sequence[float] = (), payloads: Sequence[int] = ()) -> None:
        """Arrivals at ``times`` carrying ``payloads``; plain lists, not a tuple each,
        so that building them does not wake the garbage collector 200,000 times."""
        order = sorted(range(len(times)), key=times.__getitem__)  # stable: ties keep order
        self._times = [times[i] for i in order]
        self._payloads = [payloads[i] for i in order]
        self._next = 0
        self._heap: list[tuple[float, int, EventKind, int]] = []
        self._seq = 0

    def push(self, time: float, kind: EventKind, payload: int) -> None:
        heapq.heappush(self._heap, (time, self._seq, kind, payload))
        self._seq += 1

    def pop_due(self) -> tuple[float, list[tuple[EventKind, int]]]:
        """Every event at the earliest time, in the order they were scheduled."""
        heap, times = self._heap, self._times
        time = self.peek_time()
        if time is None:
            raise IndexError("pop from an empty event queue")
        due = []
        i = self._next
        while i < len(times) and times[i] == time:
            due.append((EventKind.ARRIVAL, self._payloads[i]))
            i += 1
        self._next = i
        while heap and heap[0][0] == time:
            _, _, kind, payload = heapq.heappop(heap)
            due.append((kind, payload))
        return time, due

    def peek_time(self) -> float | None:
        """Time of the next event, or ``None`` when none is left."""
        heap, times, i = self._heap, self._times, self._next
        if i < len(times):
            return times[i] if not heap or times[i] <= heap[0][0] else heap[0][0]
        return heap[0][0] if heap else None

    def __len__(self) -> int:
        return len(self._times) - self._next + len(self._heap)
