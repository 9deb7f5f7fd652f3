"""The server's store of uploaded workloads, so that a shared link reopens one.

Every session of a class shares it, and anyone can open a link with any ``upload=``
value, so the store is built to be abused: it is bounded by the memory its workloads
take (not by a count), keyed by their content, a look-up of a key it does not hold
changes nothing (made-up links cannot evict uploads), and the first label a content
was stored under stays (re-uploading the same rows under another file name cannot
relabel everyone's link). Pure Python, thread-safe; ``lab.state`` holds the one store.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections import OrderedDict

import pandas as pd

from engine.workload import Workload

KEY = re.compile(r"[0-9a-f]{16}")
"""What a key looks like: 16 hex digits of the content's SHA-256."""


def content_key(workload: Workload) -> str:
    """The workload's key: a hash of its rows, the same whoever uploads them."""
    rows = pd.util.hash_pandas_object(workload.frame, index=False).to_numpy()
    return hashlib.sha256(rows.tobytes()).hexdigest()[:16]


def footprint(workload: Workload) -> int:
    """Bytes the workload's table takes in memory (its text cells included)."""
    return int(workload.frame.memory_usage(deep=True).sum())


class UploadStore:
    """Workloads by content key, least recently stored or opened dropped first once they
    take more than ``max_bytes``; a workload bigger than that alone is not kept."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._lock = threading.Lock()
        self._kept: OrderedDict[str, tuple[str, Workload, int]] = OrderedDict()
        self._bytes = 0

    def keep(self, workload: Workload, label: str) -> str:
        """Store ``workload`` (if not already there) and return its key."""
        key = content_key(workload)
        size = footprint(workload)
        with self._lock:
            if key in self._kept:
                self._kept.move_to_end(key)
                return key
            if size > self.max_bytes:
                return key
            self._kept[key] = (label, workload, size)
            self._bytes += size
            while self._bytes > self.max_bytes:
                _, (_, _, dropped) = self._kept.popitem(last=False)
                self._bytes -= dropped
        return key

    def get(self, key: str) -> tuple[str, Workload] | None:
        """The label and workload stored under ``key``, or None (and nothing changes)."""
        with self._lock:
            found = self._kept.get(key)
            if found is None:
                return None
            self._kept.move_to_end(key)
            return found[0], found[1]

    @property
    def stored_bytes(self) -> int:
        with self._lock:
            return self._bytes

    def __len__(self) -> int:
        with self._lock:
            return len(self._kept)
