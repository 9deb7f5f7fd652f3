"""Slow imports on a thread, so they overlap the workers' simulations instead of adding
to the driver's own time.

Torch, with the compiler hooks (``torch._dynamo``) its first optimizer pulls in, takes
2-3 s of one core to import, scipy's special functions (the confidence intervals) a few
tenths. A driver that dispatches tasks and waits would otherwise pay them before any
work started, or after the work, with the workers idle. Start the thread only after the
workers are started: a process with two threads is spawned, not forked
(:func:`engine.parallel.Executor.start`).
"""

from __future__ import annotations

import importlib
import sys
import threading

TRAINING: tuple[str, ...] = ("torch", "torch._dynamo")
"""What training code touches first: torch, and the hooks ``torch.optim.Adam`` imports."""
TABLES: tuple[str, ...] = ("scipy.special",)
"""What the comparison tables need once the runs are back (Student-t quantiles)."""


def import_in_background(modules: tuple[str, ...]) -> threading.Thread | None:
    """Start importing those of ``modules`` not yet imported, on a daemon thread.

    A later ``import`` of the same module simply waits for this one (Python's per-module
    import lock); a failure here resurfaces there, where the caller can see it. ``None``
    when everything is imported already.
    """
    missing = tuple(name for name in modules if name not in sys.modules)
    if not missing:
        return None
    thread = threading.Thread(target=_import_all, args=(missing,), name="preload",
                              daemon=True)
    thread.start()
    return thread


def _import_all(modules: tuple[str, ...]) -> None:
    for name in modules:
        try:
            importlib.import_module(name)
        except ImportError:  # the caller's own import reports it
            return
