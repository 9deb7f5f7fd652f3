"""lab.line: heavy runs take turns server-wide, first come first served, positions told;
a press past its turn while others wait gives way and goes on after them."""

from __future__ import annotations

import os
import threading
import time

import pytest

from engine.budget import RunBudget, Yielded
from lab.line import WINDOW_S, Line, Turn


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


class Clock:
    """The line's clock, moved by the test: turns end when the test says, not by timing."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def until(condition, seconds: float = 10.0) -> bool:
    end = time.monotonic() + seconds
    while not condition() and time.monotonic() < end:
        time.sleep(0.02)
    return condition()


def test_a_turn_past_its_length_is_asked_to_give_way_only_while_someone_waits() -> None:
    clock = Clock()
    line = Line(1, turn_s=1.0, clock=clock)
    polls: list[int] = []

    def wait_behind() -> None:
        with line.turn(polls.append):
            pass

    with line.turn(lambda p: None) as turn:
        clock.now = 5.0  # far past its turn, but nobody waits
        assert not os.path.exists(turn.give_way)
        waiter = threading.Thread(target=wait_behind)
        waiter.start()
        assert until(lambda: len(polls) >= 2)
        assert os.path.exists(turn.give_way)
    waiter.join(5)
    assert not os.path.exists(turn.give_way)  # removed with its turn


def test_a_turn_within_its_length_is_left_alone_by_waiters() -> None:
    clock = Clock()
    line = Line(1, turn_s=1.0, clock=clock)
    polls: list[int] = []
    done = threading.Event()

    def wait_behind() -> None:
        with line.turn(polls.append):
            done.set()

    with line.turn(lambda p: None) as turn:
        clock.now = 0.9
        waiter = threading.Thread(target=wait_behind)
        waiter.start()
        assert until(lambda: len(polls) >= 3)
        assert not os.path.exists(turn.give_way)
    assert done.wait(5)
    waiter.join(5)


def test_a_press_that_gives_way_goes_on_after_those_waiting_with_a_longer_turn() -> None:
    """The fairness rule by its order: the heavy press gives way to the one waiting behind
    it, rejoins at the back, and its next turn is twice as long and counts the time used."""
    clock = Clock()
    line = Line(1, turn_s=1.0, clock=clock)
    order: list[str] = []
    turns: list[Turn] = []
    told: list[tuple[int, bool]] = []
    waiting_behind = threading.Event()

    def heavy(turn: Turn) -> str:
        turns.append(turn)
        order.append(f"heavy {len(turns)}")
        if len(turns) == 1:
            assert waiting_behind.wait(5)
            clock.now += 1.5  # its turn is over while the other waits
            assert until(lambda: os.path.exists(turn.give_way))
            raise Yielded("the run of drl gave way")
        return "heavy done"

    def light() -> None:
        def waiting(position: int) -> None:
            waiting_behind.set()

        with line.turn(waiting):
            order.append("light")

    results: list[str] = []
    presser = threading.Thread(
        target=lambda: results.append(line.run(heavy, lambda *a: told.append(a))))
    presser.start()
    assert until(lambda: len(turns) == 1)
    other = threading.Thread(target=light)
    other.start()
    presser.join(10)
    other.join(5)
    assert order == ["heavy 1", "light", "heavy 2"]
    assert results == ["heavy done"]
    assert [t.turn_s for t in turns] == [1.0, 2.0]
    assert turns[1].used == 1.5
    assert all(resumed for _, resumed in told)  # told it gave way, if it waited at all
    assert turns[1].budget(RunBudget(wall_s=10)).started == pytest.approx(
        time.time() - 1.5, abs=1)
    assert turns[1].budget(RunBudget()).give_way == turns[1].give_way
    assert line.busy == 0


def test_sessions_that_share_the_line_evenly_do_not_interrupt_each_other() -> None:
    """The rule is by session: a press gives way to a session it is a turn ahead of over
    the window, not to one that has had its share; older line time no longer counts."""
    clock = Clock()
    line = Line(1, turn_s=1.0, clock=clock)
    with line.turn(lambda p: None, who="a"):
        clock.now = 4.0  # a's earlier press: 4 s
    polls: list[str] = []

    def wait_behind(who: str) -> None:
        with line.turn(lambda p: polls.append(who), who=who):
            pass

    with line.turn(lambda p: None, who="b") as turn:
        clock.now = 8.5  # b has held 4.5 s, a 4 s: within a turn of each other
        waiter = threading.Thread(target=wait_behind, args=("a",))
        waiter.start()
        assert until(lambda: polls.count("a") >= 3)
        assert not os.path.exists(turn.give_way)
        clock.now = 4.0 + WINDOW_S + 0.5  # a's 4 s are out of the window, b's turn is not
        assert until(lambda: os.path.exists(turn.give_way))
    waiter.join(5)


def test_a_free_slot_goes_to_the_session_that_has_held_the_line_least() -> None:
    """Whatever the order they came in: the heavy session waits behind the light one."""
    clock = Clock()
    line = Line(1, turn_s=100.0, clock=clock)
    with line.turn(lambda p: None, who="heavy"):
        clock.now = 10.0
    order: list[str] = []
    polls: dict[str, list[int]] = {"heavy": [], "light": []}

    def wait_behind(who: str) -> None:
        with line.turn(polls[who].append, who=who):
            order.append(who)

    with line.turn(lambda p: None, who="other"):
        waiters = []
        for who in ("heavy", "light"):
            waiters.append(threading.Thread(target=wait_behind, args=(who,)))
            waiters[-1].start()
            assert until(lambda w=who: len(polls[w]) >= 1)
        assert until(lambda: polls["light"][-1] == 1 and polls["heavy"][-1] == 2)
    for waiter in waiters:
        waiter.join(5)
    assert order == ["light", "heavy"]
