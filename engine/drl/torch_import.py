"""Torch's import on a thread, so it overlaps the workers' first simulations.

Importing torch, and the compiler hooks (``torch._dynamo``) its first optimizer pulls
in, takes 2-3 s of one core. A driver that only dispatches numpy-only tasks for its
first seconds (expert iteration's searches, PPO's first validation) would otherwise
pay it before any work started, or between the work and the first gradient step, with
the workers idle. Start the thread only after the workers are started: a process with
two threads is spawned, not forked (:func:`engine.parallel.Executor.start`).
"""

from __future__ import annotations

import importlib
import threading

TRAINING_MODULES: tuple[str, ...] = ("torch", "torch._dynamo")
"""What training code touches first: torch, and the hooks ``torch.optim.Adam`` imports."""


def import_in_background(modules: tuple[str, ...] = TRAINING_MODULES) -> threading.Thread:
    """Start importing ``modules`` on a daemon thread; join it before timing-critical use.

    A later ``import`` of the same module simply waits for this one (Python's per-module
    import lock); a failure here resurfaces there, where the caller can see it.
    """
    thread = threading.Thread(target=_import_all, args=(modules,), name="import torch",
                              daemon=True)
    thread.start()
    return thread


def _import_all(modules: tuple[str, ...]) -> None:
    for name in modules:
        try:
            importlib.import_module(name)
        except ImportError:  # the caller's own import reports it
            return
