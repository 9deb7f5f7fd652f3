"""lab.line: heavy runs take turns server-wide, first come first served, positions told."""

from __future__ import annotations

import threading
import time

import pytest

from lab.line import Line


def test_one_slot_runs_one_at_a_time_in_arrival_order_and_tells_positions() -> None:
    line = Line(1)
    order: list[str] = []
    seen: dict[str, set[int]] = {"b": set(), "c": set()}
    release = threading.Event()

    def first() -> None:
        with line.turn(lambda p: None):
            order.append("a")
            release.wait(5)

    def later(name: str) -> None:
        with line.turn(seen[name].add):
            order.append(name)

    threads = [threading.Thread(target=first)]
    threads[0].start()
    time.sleep(0.1)
    for name in ("b", "c"):
        threads.append(threading.Thread(target=later, args=(name,)))
        threads[-1].start()
        time.sleep(0.1)
    time.sleep(0.6)
    assert line.busy == 3 and order == ["a"]
    release.set()
    for thread in threads:
        thread.join(5)
    assert order == ["a", "b", "c"]
    assert seen["b"] == {1} and seen["c"] >= {2}
    assert line.busy == 0


def test_a_waiter_that_leaves_gives_up_its_place() -> None:
    line = Line(1)
    holding = threading.Event()
    done = threading.Event()

    def hold() -> None:
        with line.turn(lambda p: None):
            holding.set()
            done.wait(5)

    thread = threading.Thread(target=hold)
    thread.start()
    holding.wait(5)

    def leave(position: int) -> None:
        raise KeyboardInterrupt  # what a Streamlit rerun does to a waiting script

    with pytest.raises(KeyboardInterrupt), line.turn(leave):
        pass
    assert line.busy == 1
    done.set()
    thread.join(5)
    with line.turn(lambda p: None):
        assert line.busy == 1
