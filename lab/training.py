"""Training in a background thread, so the page stays live and Stop works at any time.

A Streamlit script run blocks its session, so a Stop button pressed during a training
loop in the script would only take effect after it. Here ``engine.drl.ppo.train`` runs
in a thread; the page polls the rows it emits and ``should_stop`` reads an Event the
Stop button sets. The thread never touches Streamlit.
"""

from __future__ import annotations

import io
import threading
from dataclasses import dataclass, field
from typing import Any

import torch

from engine.drl.ppo import PPOConfig, TrainResult, train


@dataclass
class TrainingRun:
    """One training run: its config, the learning-curve rows so far, and how it ended."""

    config: PPOConfig
    rows: list[dict[str, Any]] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)
    result: TrainResult | None = None
    error: BaseException | None = None
    thread: threading.Thread | None = None

    def start(self) -> TrainingRun:
        self.thread = threading.Thread(target=self._work, name="moldable-lab-train",
                                       daemon=True)
        self.thread.start()
        return self

    def _work(self) -> None:
        try:
            self.result = train(self.config, progress=self.rows.append,
                                should_stop=self.stop.is_set)
        except Exception as error:  # shown on the page; the thread must not die silently
            self.error = error

    @property
    def running(self) -> bool:
        return self.thread is not None and self.thread.is_alive()

    @property
    def fraction(self) -> float:
        """Share of the PPO iterations done (behaviour cloning counts as iteration 0)."""
        done = max((int(r.get("iteration", 0)) for r in self.rows), default=0)
        return min(done / max(self.config.iterations, 1), 1.0)


def weights_bytes(state: dict[str, torch.Tensor]) -> bytes:
    """A ``state_dict`` as the ``.pt`` bytes ``torch.load(weights_only=True)`` reads."""
    buffer = io.BytesIO()
    torch.save({k: v.detach().cpu() for k, v in state.items()}, buffer)
    return buffer.getvalue()
