"""The event queue: arrivals in a sorted stream beside the heap, as if pushed first."""

from __future__ import annotations

import heapq

from hypothesis import given
from hypothesis import strategies as st

from engine.simulator.events import EventKind, EventQueue


def drain(queue: EventQueue) -> list[tuple[float, list[tuple[EventKind, int]]]]:
    out = []
    while len(queue):
        out.append(queue.pop_due())
    return out


def test_equal_times_keep_the_order_they_were_scheduled_in() -> None:
    queue = EventQueue([5.0, 1.0, 5.0, 1.0], [0, 1, 2, 3])
    queue.push(5.0, EventKind.COMPLETION, 9)
    queue.push(1.0, EventKind.TICK, -1)
    assert queue.peek_time() == 1.0
    assert drain(queue) == [
        (1.0, [(EventKind.ARRIVAL, 1), (EventKind.ARRIVAL, 3), (EventKind.TICK, -1)]),
        (5.0, [(EventKind.ARRIVAL, 0), (EventKind.ARRIVAL, 2), (EventKind.COMPLETION, 9)]),
    ]
    assert queue.peek_time() is None


times = st.lists(st.integers(0, 5).map(float), max_size=30)


@given(arrivals=times, later=times)
def test_same_events_as_one_heap_with_arrivals_pushed_first(
    arrivals: list[float], later: list[float]
) -> None:
    """The reference is SimPy's plain heap of (time, seq, event), every arrival pushed
    before anything else."""
    queue = EventQueue(arrivals, list(range(len(arrivals))))
    for i, t in enumerate(later):
        queue.push(t, EventKind.COMPLETION, 100 + i)
    heap = [(t, i, EventKind.ARRIVAL, i) for i, t in enumerate(arrivals)]
    heap += [(t, len(arrivals) + i, EventKind.COMPLETION, 100 + i) for i, t in enumerate(later)]
    heapq.heapify(heap)
    expected: list[tuple[float, list[tuple[EventKind, int]]]] = []
    while heap:
        t, _, kind, payload = heapq.heappop(heap)
        if expected and expected[-1][0] == t:
            expected[-1][1].append((kind, payload))
        else:
            expected.append((t, [(kind, payload)]))
    assert drain(queue) == expected
