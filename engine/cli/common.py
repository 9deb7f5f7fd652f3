"""Options shared by the sub-commands: the cluster and where the workload comes from."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO, Any

from engine import json_safe
from engine.cluster import Cluster
from engine.parallel import BACKENDS, RAY_ADDRESS, Executor
from engine.simulator.results import METRIC_DEFINITIONS
from engine.workload import (
    FORMATS,
    MAX_GENERATED_JOBS,
    GeneratorConfig,
    Workload,
    generate,
    load_note,
)
from engine.workload import load_workload as load_workload_file
from engine.workload.generator import ARRIVALS, BATCH_RULES, BURSTY_CV, REQUEST_RULES


def positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text}")
    return value


def share(text: str) -> float:
    """A fraction from 0 to 1, as argparse's ``type``."""
    value = float(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"expected a share from 0 to 1, got {text}")
    return value


def add_cluster_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--nodes", type=positive_int, default=16, help="nodes (default 16)")
    parser.add_argument(
        "--gpus-per-node", type=positive_int, default=4, help="GPUs per node (default 4)"
    )


def add_workload_options(parser: argparse.ArgumentParser) -> None:
    source = parser.add_argument_group("workload (a file, or generated)")
    source.add_argument("--workload", metavar="PATH", help="workload file to load")
    source.add_argument(
        "--format", choices=("auto", *FORMATS), default="auto", help="file format (default: sniff)"
    )
    source.add_argument(
        "--max-rows", type=positive_int, metavar="N",
        help="refuse a file with more than N job rows (default: no limit beyond memory)",
    )
    source.add_argument(
        "--jobs", type=positive_int, default=200,
        help=f"jobs to generate (default 200, at most {MAX_GENERATED_JOBS:,})",
    )
    source.add_argument("--load", type=float, default=0.85, help="offered load to generate")
    source.add_argument("--seed", type=int, default=0, help="seed of the generated workload")
    source.add_argument(
        "--sizes",
        choices=("log-uniform", "philly"),
        default="log-uniform",
        help="job size distribution of the generated workload",
    )
    source.add_argument(
        "--request-rule",
        choices=REQUEST_RULES,
        default="pollux",
        help="how generated users pick requested_gpus (any: any count the job can use)",
    )
    source.add_argument(
        "--arrivals", choices=ARRIVALS, default="poisson",
        help=f"generated arrival gaps: poisson, or bursty (same mean, CV {BURSTY_CV:g})",
    )
    source.add_argument(
        "--batch-rule",
        choices=BATCH_RULES,
        default="pollux",
        help="generated DL jobs' global batch: as often as the Pollux workloads use each "
        "(pollux), or each model's default",
    )


def add_executor_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--workers", type=positive_int, metavar="N",
        help="tasks at once (default: every core; small jobs stay in this process); 1 runs "
             "everything in this process",
    )
    parser.add_argument(
        "--backend", choices=BACKENDS,
        help=f"serial: this process; local: worker processes on this machine (default); ray: "
             f"the Ray cluster at ${RAY_ADDRESS} (the default when it is set), else a local "
             "Ray (pip install -e \".[ray]\")",
    )


def executor_from(args: argparse.Namespace) -> Executor:
    """The executor ``--backend`` and ``--workers`` describe (close it, or use ``with``)."""
    return Executor(args.backend, args.workers)


def cluster_from(args: argparse.Namespace) -> Cluster:
    return Cluster(nodes=args.nodes, gpus_per_node=args.gpus_per_node)


def generator_config(args: argparse.Namespace, seed: int | None = None) -> GeneratorConfig:
    return GeneratorConfig(
        jobs=args.jobs,
        load=args.load,
        seed=args.seed if seed is None else seed,
        size_distribution=args.sizes,
        request_rule=args.request_rule,
        arrivals=args.arrivals,
        batch_rule=args.batch_rule,
    )


def workload_from(args: argparse.Namespace, cluster: Cluster, seed: int | None = None) -> Workload:
    """The workload the options describe: the file if given, else a generated one."""
    if args.workload:
        workload = load_workload_file(
            args.workload, fmt=args.format, cluster=cluster, max_rows=args.max_rows,
            row_limit_hint="raise it with --max-rows N, or leave --max-rows out for no limit",
        )
        for note in (*workload.notes, load_note(workload, cluster)):
            if note:
                print(f"note: {args.workload}: {note}", file=sys.stderr)
        return workload
    return generate(generator_config(args, seed), cluster)


_document: IO[str] | None = None
"""While :func:`json_stdout` holds it, the real stdout, which only the JSON document uses."""


def print_json(data: Any) -> None:
    """One JSON document on stdout; NaN/inf become null so any parser reads it."""
    (_document or sys.stdout).write(json_safe.dumps(data) + "\n")


@contextlib.contextmanager
def json_stdout() -> Iterator[None]:
    """Keep stdout for :func:`print_json`'s document alone while a ``--json`` command runs.

    Whatever else writes to the process's stdout, a library's thread or a child process
    (Ray's "worker died" lines) included, goes to stderr instead, so the output always
    parses. Only when stdout is the process's own descriptor 1 (not a test's capture).
    """
    global _document
    try:
        ours = sys.stdout.fileno() == 1
    except (AttributeError, OSError, ValueError):
        ours = False
    if not ours:
        yield
        return
    sys.stdout.flush()
    _document = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    try:
        yield
    finally:
        sys.stdout.flush()
        _document.flush()
        os.dup2(_document.fileno(), 1)
        _document.close()
        _document = None


def metrics_epilog(names: Sequence[str]) -> str:
    """A ``--help`` epilog defining ``names`` (for ``RawDescriptionHelpFormatter``)."""
    width = max(map(len, names)) + 2
    indent = "\n" + " " * (width + 2)
    lines = [f"  {name:<{width}}{METRIC_DEFINITIONS[name].replace(chr(10), indent)}"
             for name in names]
    return "metrics, over the completed jobs (times in seconds):\n" + "\n".join(lines)


@contextlib.contextmanager
def output_file(path: str | os.PathLike) -> Iterator[IO[str]]:
    """A text file that becomes ``path`` only once the block has written all of it.

    It is written beside ``path`` and renamed over it (atomic within one folder), so a
    full disk or an error leaves an existing ``path`` exactly as it was, rather than
    cut off mid-line. Any ``OSError`` is re-raised naming ``path`` for the message.
    """
    path = Path(path)
    temp: str | None = None
    try:
        fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as file:
            yield file
        os.chmod(temp, 0o666 & ~_umask())
        os.replace(temp, path)
        temp = None
    except OSError as error:
        reason = error.strerror or str(error)
        raise OSError(error.errno, f"not written ({reason}); it is as it was before", str(path)) \
            from None
    finally:
        if temp is not None:
            with contextlib.suppress(OSError):
                os.unlink(temp)


def _umask() -> int:
    """The process's umask (only readable by setting it), for the mode a new file gets."""
    mask = os.umask(0)
    os.umask(mask)
    return mask
