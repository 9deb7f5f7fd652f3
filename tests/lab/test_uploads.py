"""The server's upload store: bounded by bytes, keyed by content, deaf to made-up keys."""

from __future__ import annotations

import secrets

from engine.workload import load_workload
from lab.uploads import KEY, UploadStore, content_key, footprint


def _workload(jobs: int, name: str = "w"):
    rows = "".join(f"{60 * i},{100 + i}\n" for i in range(jobs))
    return load_workload(f"submit_time,runtime_1gpu\n{rows}", name=name)


def test_made_up_keys_find_nothing_and_evict_nothing() -> None:
    store = UploadStore(max_bytes=10**9)
    key = store.keep(_workload(5), "uploaded mine.csv")
    for _ in range(1000):
        assert store.get(secrets.token_hex(8)) is None
    assert len(store) == 1 and store.get(key)[0] == "uploaded mine.csv"


def test_the_same_rows_under_another_name_keep_their_first_label() -> None:
    store = UploadStore(max_bytes=10**9)
    first = store.keep(_workload(5, "mine"), "uploaded mine.csv")
    again = store.keep(_workload(5, "theirs"), "uploaded [log in](http://evil).csv")
    assert first == again and KEY.fullmatch(first)
    assert store.get(first)[0] == "uploaded mine.csv"


def test_the_store_is_bounded_by_bytes_dropping_the_least_recently_used() -> None:
    workloads = [_workload(50 + i) for i in range(6)]
    size = max(map(footprint, workloads))
    store = UploadStore(max_bytes=3 * size)
    keys = [store.keep(w, f"w{i}") for i, w in enumerate(workloads[:3])]
    assert store.get(keys[0]) is not None  # opened: the most recently used now
    store.keep(workloads[3], "w3")
    assert store.get(keys[1]) is None and store.get(keys[0]) is not None
    for w in workloads[4:]:
        store.keep(w, "more")
    assert store.stored_bytes <= 3 * size


def test_a_workload_bigger_than_the_whole_store_is_not_kept() -> None:
    store = UploadStore(max_bytes=100)
    big = _workload(500)
    assert store.get(store.keep(big, "big")) is None
    assert store.stored_bytes == 0 and content_key(big) == content_key(_workload(500))
