"""Training in a child process, so the page stays live and Stop works at any moment.

A Streamlit script run blocks its session, so ``engine.drl.ppo.train`` cannot run in the
script. It runs in a spawned process, on the default executor (every local core, or the
Ray cluster at ``RAY_ADDRESS``): the warm start's steps, the learning-curve rows and the
result come back over a queue, which a thread of this process drains into
:class:`TrainingRun`. Stop sets an event the training polls (between batches of
episodes and before every cloning or PPO minibatch: well under a second apart, a big
rollout aside), so the run ends cleanly with the best weights so far; only a process
that has not ended ``STOP_GRACE_S`` after Stop is ended from outside, and then nothing
is kept. The process
and the thread never touch Streamlit.
"""

from __future__ import annotations

import io
import math
import multiprocessing
import queue
import signal
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import torch

from engine.drl.ppo import (
    TrainResult,
    WarmStart,
    greedy_score,
    train,
    validation_workloads,
)
from engine.drl.ppo_config import PPOConfig
from engine.parallel import Executor
from lab.line import Line

_SPAWN = multiprocessing.get_context("spawn")
"""A fresh interpreter: forking a server with live threads (and torch) can deadlock."""
STOP_GRACE_S = 10.0
"""How long after Stop the child may take to end by itself before it is ended: it polls
Stop at least once per rollout (a few seconds for the largest the page offers)."""


def _end(signum: int, _frame: Any) -> None:
    raise SystemExit(128 + signum)


def _train_in_child(config: PPOConfig, out: Any, stop: Any) -> None:
    """The child's whole life: train, score the shipped ``drl`` alike, send everything."""
    # the executor starts worker processes, which a daemonic process may not; the flag
    # only tells this process's own multiprocessing, the server still ends it on exit
    multiprocessing.current_process().daemon = False
    # ended from outside (the server exits): unwind, so the executor stops its workers
    signal.signal(signal.SIGTERM, _end)
    try:
        with Executor() as executor:
            result = train(config, progress=lambda row: out.put(("row", row)),
                           should_stop=stop.is_set, executor=executor,
                           warm_progress=lambda step: out.put(("warm", step)))
            from engine.drl.pretrained import shipped_policy

            drl = greedy_score(shipped_policy().actor, validation_workloads(config), executor)
            # as bytes: a queue would pass tensors as shared-memory handles, which die with
            # us; sent before the workers are stopped, which takes a while
            buffer = io.BytesIO()
            torch.save((result, drl), buffer)
            out.put(("result", buffer.getvalue()))
    except Exception as error:  # shown on the page; a bare message always pickles
        out.put(("error", RuntimeError(f"{type(error).__name__}: {error}")))


class _Cancelled(Exception):
    """Stop pressed while the run still waited in the line."""


@dataclass
class TrainingRun:
    """One training run: its config, the learning-curve rows so far, and how it ended."""

    line: Line
    """The server-wide line training runs wait in: one trains at a time."""
    config: PPOConfig
    position: int = 0
    """Place in the line while waiting (1: next); 0 once training."""
    rows: list[dict[str, Any]] = field(default_factory=list)
    result: TrainResult | None = None
    drl_score: float = math.nan
    """The shipped ``drl``'s score on the same validation workloads (lower is better)."""
    warm: WarmStart | None = None
    """The warm start's latest step (None before the first)."""
    error: BaseException | None = None
    halted: str = ""
    """Why the run ended without a result, in words (empty: it did not)."""
    started: float = field(default_factory=time.monotonic)
    ended: float | None = None
    thread: threading.Thread | None = None
    stop: Any = field(default_factory=_SPAWN.Event)
    stop_asked: float | None = None
    _process: Any = None

    def start(self) -> TrainingRun:
        self.thread = threading.Thread(target=self._work, name="moldable-lab-train-rows",
                                       daemon=True)
        self.thread.start()
        return self

    def _wait(self, position: int) -> None:
        if self.stop.is_set():
            raise _Cancelled
        self.position = position

    def _work(self) -> None:
        """Wait for a turn in the line, then train in a child process and collect."""
        try:
            with self.line.turn(self._wait):
                self.position, self.started = 0, time.monotonic()
                out = _SPAWN.Queue()
                self._process = _SPAWN.Process(
                    target=_train_in_child, args=(self.config, out, self.stop),
                    name="moldable-lab-train", daemon=True)
                self._process.start()
                self._collect(out)
        except _Cancelled:
            self.halted = "Stopped while waiting in the line: nothing was trained."
            self.ended = time.monotonic()

    def _collect(self, out: Any) -> None:
        """Drain the child's queue until it sends its result, fails, or is ended."""
        while True:
            if (self.stop_asked is not None and not self.halted
                    and time.monotonic() - self.stop_asked > STOP_GRACE_S):
                self.halted = (f"The training process had not stopped {STOP_GRACE_S:.0f} s "
                               "after Stop, so it was ended: nothing was kept.")
                self._process.terminate()
            try:
                kind, value = out.get(timeout=0.2)
            except queue.Empty:
                if self._process.is_alive():
                    continue
                if not self.halted:
                    self.error = RuntimeError("the training process ended unexpectedly")
                break
            if kind == "row":
                self.rows.append(value)
            elif kind == "warm":
                self.warm = value
            elif kind == "result":
                self.result, self.drl_score = torch.load(io.BytesIO(value), weights_only=False)
                break
            else:
                self.error = value
                break
        self.ended = time.monotonic()
        if self.result is None:  # with its result sent, the child ends by itself (its
            self._process.join(timeout=5)  # workers take a second): no need to wait

    def request_stop(self) -> None:
        """Stop soon, keeping what was learnt: in the line, the warm start or PPO."""
        if self.stop_asked is None:
            self.stop_asked = time.monotonic()
        self.stop.set()

    @property
    def running(self) -> bool:
        return self.thread is not None and self.thread.is_alive()

    @property
    def warming_up(self) -> bool:
        """No PPO iteration has been reported yet."""
        return self.config.bc_episodes > 0 and not any(
            int(r.get("iteration", 0)) > 0 for r in self.rows)

    @property
    def seconds(self) -> float:
        """Wall time of the run so far (or until it ended)."""
        return (self.ended or time.monotonic()) - self.started

    @property
    def fraction(self) -> float:
        """Share of the warm start done while it runs, then of the PPO iterations."""
        if self.warming_up:
            return self.warm.fraction if self.warm is not None else 0.0
        done = max((int(r.get("iteration", 0)) for r in self.rows), default=0)
        return min(done / max(self.config.iterations, 1), 1.0)

    def status(self) -> str:
        """What the run is doing, in words, for the progress bar."""
        if self.position:
            return (f"Waiting for the shared trainer: number {self.position} in line (one "
                    "class member trains at a time).")
        if self.stop_asked is not None:
            return f"Stopping: keeping the best weights so far ({self.seconds:.0f} s)."
        if not self.warming_up:
            done = max(int(r.get("iteration", 0)) for r in self.rows) if self.rows else 0
            return f"PPO iteration {done} of {self.config.iterations} ({self.seconds:.0f} s)"
        step = self.warm.describe() if self.warm is not None else "warm start: starting up"
        return (f"{step[0].upper()}{step[1:]}; {self.seconds:.0f} s so far. Stop keeps the "
                "weights learnt so far.")


def ending(run: TrainingRun) -> str:
    """How the run ended and which weights were kept, in words."""
    result = run.result
    assert result is not None
    took = f"in {result.seconds:.0f} s"
    if not result.stopped:
        return f"Finished after {result.iterations} PPO iterations {took}."
    if result.iterations or run.config.bc_episodes == 0:
        return f"Stopped after {result.iterations} PPO iterations {took}."
    rounds = run.config.dagger_rounds + 1
    cloned = sum(row["phase"] == "bc" for row in result.history)
    if cloned:
        return (f"Stopped during the warm start {took}, after {cloned} of {rounds} cloning "
                "rounds: kept the best cloned weights so far.")
    return (f"Stopped during the warm start {took}, before the first cloning round ended: "
            "kept the network as it was then (partly cloned, or not yet trained).")


def verdict(run: TrainingRun) -> tuple[bool, str]:
    """Whether the new policy beat its teacher and ``drl``, and that said plainly."""
    result = run.result
    assert result is not None
    score = result.best_score

    def against(name: str, other: float) -> str:
        if not math.isfinite(other):
            return f"{name}: not measured"
        change = score / other - 1.0
        if abs(change) < 0.01:
            return f"as good as {name} ({other:.2f})"
        word = "better" if change < 0 else "worse"
        return f"{abs(change):.0%} {word} than {name} ({other:.2f})"

    better = score < result.teacher_score and not score > run.drl_score
    return better, (
        f"Average JCT / lower bound on the validation workloads: **{score:.2f}** (lower is "
        f"better): {against('its teacher', result.teacher_score)}, and "
        f"{against('the shipped deep-RL scheduler `drl`', run.drl_score)}."
    )


def weights_bytes(state: dict[str, torch.Tensor]) -> bytes:
    """A ``state_dict`` as the ``.pt`` bytes ``torch.load(weights_only=True)`` reads."""
    buffer = io.BytesIO()
    torch.save({k: v.detach().cpu() for k, v in state.items()}, buffer)
    return buffer.getvalue()
