"""Independent simulation tasks over one of three backends, with the same results on each.

Every heavy command here (``compare``, ``reproduce``, ``headroom``, expert iteration's
searches, behaviour cloning's episodes) is a list of tasks that share nothing but their
inputs, so one mapper serves them all:

* ``serial``: in this process, in order (tests, tiny jobs);
* ``local`` (the default): a pool of worker processes, one per core, started on
  the first map that is worth it and reused for the executor's later maps; a map too
  small to repay starting workers (``PARALLEL_MIN_WORK``) runs in-process instead;
* ``ray``: Ray tasks, on the cluster at ``RAY_ADDRESS`` when it is set, else on a
  local Ray started for the executor. Ray is an optional extra, imported only here.

A map takes ``fn(shared, task)``, a module-level function (workers import it by name),
the tasks, and ``shared``: the inputs every task reads (workloads, weights), written once
per map to a file each local worker reads once, not shipped with every task. Tasks go in
strided chunks (many per worker, so unequal tasks even out, no worker idles long at the
end and progress moves as chunks finish); results come back in task order, and each
task is computed by the same code on every backend, so the results are bit-identical
whatever ran them. Workers are forked when that is safe (one thread, no
torch loaded: a command-line run), which saves each worker its imports; otherwise
(under the app's threads, after torch has run) they are spawned.
"""

from __future__ import annotations

import gc
import importlib
import itertools
import multiprocessing
import os
import pickle
import socket
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import Any, TypeVar

from engine.errors import USER_ERRORS, LabError

BACKENDS: tuple[str, ...] = ("serial", "local", "ray")
RAY_ADDRESS = "RAY_ADDRESS"
"""The environment variable Ray itself reads; set, it makes ``ray`` the default backend."""
PARALLEL_MIN_WORK = 100_000
"""Simulated jobs (runs x jobs per run) below which ``local`` with no worker count stays
in-process: about 5 s of simulation, the point where starting workers (about a second
on a busy 2-core machine) starts to pay."""
RAY_CONNECT_S = 5.0
"""Seconds to wait for ``RAY_ADDRESS`` to answer before saying it cannot be reached
(``ray.init`` alone retries for minutes)."""
CHUNKS_PER_WORKER = 32
"""Chunks per worker in a map: enough that the last chunk leaves little tail and progress
moves, few enough that the per-chunk round trip (a few milliseconds) stays negligible."""

STOP_GRACE_S = 0.5
"""Seconds a map stopped early waits for the chunks a worker already holds before stopping
that worker: their budgeted runs end within one budget check (``engine.budget.CHECK_S``)
when the press gave way or its shared clock is spent, and a kept worker spares the next
map a fresh one's start (a second or more on a busy machine)."""

T = TypeVar("T")
R = TypeVar("R")
Task = Callable[[Any, T], R]
Progress = Callable[[int, int], None]


class BackendUnavailable(LabError):
    """The backend asked for cannot run here (Ray not installed, its cluster unreachable)."""


class WorkerDied(LabError):
    """A worker process died (killed, out of memory) again after the map was retried."""


def default_backend() -> str:
    """``ray`` when ``RAY_ADDRESS`` names a cluster, else ``local``."""
    return "ray" if os.environ.get(RAY_ADDRESS) else "local"


def cores() -> int:
    """CPUs this process may use (its affinity, not the machine's count)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def describe_backend(backend: str | None = None, workers: int | None = None) -> str:
    """One line saying where tasks would run, for a sidebar or a log; connects to nothing."""
    name = backend or default_backend()
    if name == "serial":
        return "serial: one process"
    if name == "ray":
        address = os.environ.get(RAY_ADDRESS)
        if address:
            return f"ray: the cluster at {address} ({RAY_ADDRESS})"
        return f"ray: a local Ray on {workers or cores()} CPUs"
    count = workers or cores()
    return f"local: up to {count} worker process{'es' if count != 1 else ''} on {cores()} CPUs"


class Executor:
    """Maps tasks on one backend; use it as a context manager so its workers are stopped.

    ``workers`` caps the processes (``local``) or the CPUs of a local Ray (``ray``);
    ``None`` takes every core, and lets ``local`` keep small maps in-process. With
    ``workers=1``, ``local`` runs in-process too, unless ``offload``: then every map of
    ``local`` goes to its worker processes, however small (a server keeps its own process,
    and its pages, free of the simulations).
    """

    def __init__(
        self, backend: str | None = None, workers: int | None = None, offload: bool = False
    ) -> None:
        self.backend = backend or default_backend()
        if self.backend not in BACKENDS:
            raise ValueError(f"unknown backend {self.backend!r}; expected one of "
                             f"{', '.join(BACKENDS)}")
        if workers is not None and workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        self._asked = workers
        self.offload = offload
        self._pool: ProcessPoolExecutor | None = None
        self._modules: tuple[str, ...] = ()
        self._ray: Any = None
        self._owns_ray = False
        self._calls = itertools.count()
        if self.backend == "ray":
            self._ray, self._owns_ray = _start_ray(workers)

    @property
    def workers(self) -> int:
        """How many tasks run at once (at most)."""
        if self.backend == "serial":
            return 1
        if self.backend == "ray":
            return max(1, int(self._ray.cluster_resources().get("CPU", 1)))
        return self._asked or cores()

    def describe(self) -> str:
        if self.backend == "ray":
            where = os.environ.get(RAY_ADDRESS) or "a local Ray"
            return f"ray: {where}, {self.workers} CPUs"
        return describe_backend(self.backend, self._asked)

    def in_process(self, tasks: int, work: float | None = None) -> bool:
        """Whether a map of ``tasks`` tasks (``work`` simulated jobs in all) runs here."""
        if self.backend == "serial" or (tasks < 2 and not self.offload):
            return True
        if self.backend == "ray" or self.offload:
            return False
        if self.workers < 2:
            return True
        return self._asked is None and self._pool is None and (
            work is not None and work < PARALLEL_MIN_WORK)

    def start(self, *modules: str) -> Executor:
        """Start ``local``'s workers now, importing ``modules`` in each, so their start-up
        overlaps the caller's own preparation; only for maps known to be big. Workers
        started to replace stopped ones import the same modules."""
        self._modules = modules or self._modules
        if self.backend == "local" and self._pool is None and (self.workers > 1 or self.offload):
            context = _start_method()
            self._pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=context)
            with _frozen(context):  # the first submit starts the workers
                for _ in range(self.workers):
                    self._pool.submit(_import, modules)
        return self

    def map(
        self,
        fn: Task,
        tasks: Sequence[T],
        *,
        shared: Any = None,
        work: float | None = None,
        progress: Progress | None = None,
        give_way: str | None = None,
    ) -> list[R]:
        """``[fn(shared, task) for task in tasks]``, computed on this backend.

        ``work`` (simulated jobs) lets ``local`` keep a small map in-process;
        ``progress(done, total)`` is called as tasks finish. ``give_way`` is the file the
        tasks' run budgets give way to (``engine.budget.RunBudget.give_way``): a map that
        ends early creates it, so the chunks its workers already hold end within a budget
        check and the workers are kept.
        """
        total = len(tasks)
        results: list[Any] = [None] * total
        if progress is not None:
            progress(0, total)
        for done, (index, value) in enumerate(self.completed(
                fn, tasks, shared=shared, work=work, give_way=give_way), 1):
            results[index] = value
            if progress is not None:
                progress(done, total)
        return results

    def completed(
        self, fn: Task, tasks: Sequence[T], *, shared: Any = None, work: float | None = None,
        give_way: str | None = None,
    ) -> Iterator[tuple[int, R]]:
        """``(index, fn(shared, tasks[index]))`` for every task, as tasks finish (``work``
        and ``give_way`` as in :meth:`map`)."""
        if self.in_process(len(tasks), work):
            for index, task in enumerate(tasks):
                yield index, fn(shared, task)
            return
        chunks = _strided(len(tasks), min(len(tasks), self.workers * CHUNKS_PER_WORKER))
        for indices, values in self._chunks(fn, tasks, shared, chunks, give_way):
            yield from zip(indices, values, strict=True)

    def _chunks(
        self, fn: Task, tasks: Sequence[Any], shared: Any, chunks: list[list[int]],
        give_way: str | None,
    ) -> Iterator[tuple[list[int], list[Any]]]:
        """Each chunk's task indices and results, as chunks finish."""
        if self.backend == "ray":
            ray = self._ray
            remote = ray.remote(_run_ray_chunk)
            # in a list, so that Ray hands the worker the reference, not a fresh copy of
            # the inputs for every chunk (see _run_ray_chunk)
            shared_ref = [ray.put(shared)]
            pending = {remote.remote(fn, shared_ref, [tasks[i] for i in chunk]): chunk
                       for chunk in chunks}
            try:
                while pending:
                    (ready,), _ = ray.wait(list(pending), num_returns=1)
                    yield pending.pop(ready), _ray_result(ray, ready)
            finally:  # stopped early (an error, a budget, the caller gone): free the cluster
                for ref in pending:
                    ray.cancel(ref)
            return
        remaining = list(chunks)
        for retried in (False, True):
            try:
                for indices, values in self._local_chunks(fn, tasks, shared, remaining,
                                                          give_way):
                    remaining.remove(indices)
                    yield indices, values
                return
            except BrokenProcessPool:
                # a dead worker broke the whole pool (_local_chunks let it go): a fresh one
                # runs what is left, once; a second death is likely the tasks' own doing
                if retried:
                    raise WorkerDied(
                        "a worker process died twice while running this (killed, or out of "
                        "memory); try fewer or smaller workloads"
                    ) from None

    def _local_chunks(
        self, fn: Task, tasks: Sequence[Any], shared: Any, chunks: list[list[int]],
        give_way: str | None,
    ) -> Iterator[tuple[list[int], list[Any]]]:
        """``_chunks`` on this executor's worker processes (started if need be).

        A map stopped early (an error, a budget stop, the caller gone) cancels its queued
        chunks, creates ``give_way``, and stops the workers still running its others after
        :data:`STOP_GRACE_S`, so they are free at once.
        """
        if self._pool is None:
            self.start()
        pool = self._pool
        prefix = f"moldable-lab-{os.getpid()}-{id(self)}-{next(self._calls)}-"
        try:
            with tempfile.NamedTemporaryFile(prefix=prefix, dir=_SCRATCH) as file:
                pickle.dump(shared, file, protocol=pickle.HIGHEST_PROTOCOL)
                file.flush()
                futures: dict[Future, list[int]] = {
                    pool.submit(_run_local_chunk, fn, file.name, [tasks[i] for i in chunk]):
                    chunk for chunk in chunks
                }
                try:
                    for future in as_completed(futures):
                        yield futures[future], future.result()
                finally:
                    for future in futures:
                        future.cancel()  # those still queued
                    held = [f for f in futures if not f.done()]
                    if held and give_way is not None:  # ask their runs to end at a check
                        open(give_way, "a").close()
                    # runs that check a budget end within a check (given way, or their shared
                    # clock spent); only stopping a worker frees it from the others (the
                    # rest fail with it)
                    if held and wait(held, timeout=STOP_GRACE_S).not_done:
                        self._discard(pool)
        except BrokenProcessPool:
            self._discard(pool)
            raise

    def _discard(self, pool: ProcessPoolExecutor) -> None:
        """Stop ``pool``'s workers now, whatever they are running, and start fresh ones, so
        that their start-up (seconds on a busy machine) overlaps what comes before the
        next map rather than delaying it."""
        for process in list((pool._processes or {}).values()):  # public only from 3.14
            process.kill()
        pool.shutdown(wait=False, cancel_futures=True)
        if self._pool is pool:
            self._pool = None
            self.start()

    def close(self) -> None:
        """Stop the workers, and the Ray connection this executor opened (not one it found)."""
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None
        if self._owns_ray:
            self._ray.shutdown()
        self._ray = None

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def borrowed(
    executor: Executor | None, backend: str | None = None, workers: int | None = None
) -> AbstractContextManager[Executor]:
    """``executor`` as it is (whoever made it closes it), or a new one, closed on exit."""
    return nullcontext(executor) if executor is not None else Executor(backend, workers)


def _start_method() -> multiprocessing.context.BaseContext:
    """``fork`` where it is safe and available, else ``spawn``.

    Forking copies a process whose other threads (Streamlit's, tqdm's monitor) may hold
    locks, and torch's thread pools do not survive it; a single-threaded process without
    torch forks cleanly, and its workers then start without re-importing the engine.
    """
    safe = threading.active_count() == 1 and "torch" not in sys.modules
    if safe and "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


@contextmanager
def _frozen(context: multiprocessing.context.BaseContext) -> Iterator[None]:
    """Around forking workers: the objects the workers inherit are moved out of the
    collector's reach (``gc.freeze``), since a worker's collector walking them would copy
    them page by page; that made every task a few percent slower than in-process."""
    if context.get_start_method() != "fork":
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def _strided(total: int, count: int) -> list[list[int]]:
    """``count`` chunks of task indices, task ``i`` in chunk ``i % count``."""
    return [list(range(start, total, count)) for start in range(count)]


def _import(modules: Sequence[str]) -> None:
    for module in modules:
        importlib.import_module(module)


def _run_chunk(fn: Task, shared: Any, tasks: list[Any]) -> list[Any]:
    return [fn(shared, task) for task in tasks]


_SCRATCH = "/dev/shm" if os.path.isdir("/dev/shm") else None
"""Where a map's shared inputs are written: memory on Linux, the temporary folder elsewhere."""
_shared_cache: tuple[str, Any] | None = None
"""A worker's last map: the file (local) or object id (Ray) of its shared inputs, and
those inputs."""


def _run_local_chunk(fn: Task, path: str, tasks: list[Any]) -> list[Any]:
    """Run a chunk in a pool worker, reading the map's shared inputs once per worker (each
    map's file is named by process, executor and map number, so a name seen before is
    the same map's)."""
    global _shared_cache
    if _shared_cache is None or _shared_cache[0] != path:
        with open(path, "rb") as file:
            _shared_cache = (path, pickle.load(file))
    return _run_chunk(fn, _shared_cache[1], tasks)


def _run_ray_chunk(fn: Task, shared_ref: list[Any], tasks: list[Any]) -> list[Any]:
    """Run a chunk in a Ray worker, fetching the map's shared inputs once per worker.

    Ray would resolve a reference passed as an argument afresh for every task: a new copy
    of the inputs per chunk costs their unpickling, and the simulator's caches, keyed by
    the workloads' objects, would start cold each time (which made a two-node run slower
    than one process).
    """
    import ray

    global _shared_cache
    (ref,) = shared_ref
    if _shared_cache is None or _shared_cache[0] != ref.hex():
        _shared_cache = (ref.hex(), ray.get(ref))
    return _run_chunk(fn, _shared_cache[1], tasks)


def _ray_result(ray: Any, ref: Any) -> Any:
    """``ray.get(ref)``, with a task's user error raised as itself (one message, not Ray's
    traceback; a bug keeps Ray's) and a worker that died even after Ray's
    retries as :class:`WorkerDied`."""
    try:
        return ray.get(ref)
    except ray.exceptions.RayTaskError as error:
        if isinstance(error.cause, USER_ERRORS):
            raise error.cause from None
        raise
    except (ray.exceptions.WorkerCrashedError, ray.exceptions.NodeDiedError):
        raise WorkerDied(
            "a Ray worker died while running this, again after Ray's retries (killed, or out "
            "of memory); try fewer or smaller workloads"
        ) from None


def _start_ray(workers: int | None) -> tuple[Any, bool]:
    """Ray, connected, and whether this call connected it: to an existing connection, to
    ``RAY_ADDRESS``'s cluster if set, else to a new local Ray."""
    try:
        import ray
    except ImportError as missing:
        raise BackendUnavailable(
            "the ray backend needs Ray: pip install -e \".[ray]\" (or pip install ray), "
            "or use --backend local") from missing
    if ray.is_initialized():
        return ray, False
    if os.environ.get(RAY_ADDRESS):
        _check_reachable(os.environ[RAY_ADDRESS])
        ray.init(log_to_driver=False)
    else:
        ray.init(address="local",  # a new one, whatever an earlier `ray start` left behind
                 num_cpus=workers or cores(), include_dashboard=False, log_to_driver=False)
    return ray, True


def _check_reachable(address: str) -> None:
    """Refuse in seconds a ``host:port`` (or ``ray://host:port``) nothing listens on.

    Other forms (``auto``) are left to Ray.
    """
    host, colon, port = address.split("://", 1)[-1].rpartition(":")
    if not colon or not port.isdigit():
        return
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=RAY_CONNECT_S).close()
    except OSError as error:
        raise BackendUnavailable(
            f"cannot reach the Ray cluster at {address} (${RAY_ADDRESS}): "
            f"{error.strerror or error}; start it, or unset {RAY_ADDRESS} to run on this "
            "machine"
        ) from None
