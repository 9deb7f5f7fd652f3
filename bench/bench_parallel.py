"""Scale-out figures: each heavy command on 1 worker against every core, in one run.

The bar (issue 16): ``reproduce --seeds 10`` at least 1.7x faster on all workers of a
2-core machine than on one, ``headroom --search list`` and expert iteration likewise,
and a one-workload ``compare`` no slower with the default backend than in-process. The
``train`` row times a short PPO run (no warm start, 2 environments): its rollouts go to
the workers, its gradient steps stay in the driver, so it has no bar (about half of an
iteration is learning: docs/scaling.md, Training).
Every pair must print the same bytes (results never depend on the backend). Each figure
is the wall time of a cold ``python -m engine`` process, start-up included, run from an
empty folder. With ``--ray`` it also runs ``reproduce`` on a two-node Ray cluster started
on this machine (one CPU per node; needs the ray extra).

Run: ``python bench/bench_parallel.py [--ray] [--seeds 10] [--repeat 3]``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence

from engine.parallel import cores

BAR = 1.7
HEADROOM = ["headroom", "--search", "list", "--trials", "3000", "--jobs", "100", "--seeds", "2",
            "--json"]
IMPROVE = ["improve", "--quick", "--rounds", "1", "--episodes", "60", "--passes", "3",
           "--epochs", "1"]
COMPARE = ["compare", "--jobs", "200", "--seeds", "1", "--policies", "all", "--json"]
TRAIN = ["train", "--iterations", "6", "--envs", "2", "--steps", "1024", "--bc-episodes", "0",
         "--val-episodes", "2"]


def timed(argv: Sequence[str], folder: str, env: dict[str, str] | None = None) -> tuple[float, str]:
    """Wall seconds of one cold ``python -m engine`` process, and what it printed."""
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "engine", *argv], cwd=folder, env=env,
                          capture_output=True, text=True, check=True)
    return time.perf_counter() - started, done.stdout


def pair(name: str, argv: Sequence[str], folder: str, base: Sequence[str],
         other: Sequence[str], repeat: int, output_matters: bool = True) -> None:
    """One table row: ``argv`` with ``base`` flags against ``other`` flags, each the best
    of ``repeat`` runs taken in turns (so both sides see the same neighbours on a shared
    machine)."""
    runs = [(timed([*argv, *base], folder), timed([*argv, *other], folder))
            for _ in range(repeat)]
    (one, out_one), (many, out_many) = (min(side) for side in zip(*runs, strict=True))
    same = "same output" if out_one == out_many else "OUTPUT DIFFERS"
    if not output_matters:
        same = "(timings printed; the output holds them)"
    print(f"  {name:<34} {one:7.1f} s {many:7.1f} s   {one / many:5.2f}x   {same}")


def on_two_ray_nodes(argv: Sequence[str], folder: str) -> None:
    """``argv`` on a two-node local Ray cluster (one CPU each) against the serial backend."""
    from ray.cluster_utils import Cluster

    env = {**os.environ, "RAY_AUTH_MODE": "disabled"}  # loopback only, for this run
    os.environ.update(RAY_AUTH_MODE="disabled")
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    try:
        cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
        serial, out_serial = timed([*argv, "--backend", "serial"], folder, env)
        on_ray, out_ray = timed(argv, folder, {**env, "RAY_ADDRESS": cluster.address})
    finally:
        cluster.shutdown()
    same = "same output" if out_serial == out_ray else "OUTPUT DIFFERS"
    print(f"  {'reproduce, 2 Ray nodes x 1 CPU':<34} {serial:7.1f} s {on_ray:7.1f} s   "
          f"{serial / on_ray:5.2f}x   {same}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10, help="reproduce's seeds (default 10)")
    parser.add_argument("--ray", action="store_true", help="also on a two-node local Ray")
    parser.add_argument("--repeat", type=int, default=1,
                        help="runs per side, the best kept (default 1; 3 on a busy machine)")
    args = parser.parse_args()
    reproduce = ["reproduce", "--seeds", str(args.seeds), "--json"]
    with tempfile.TemporaryDirectory() as folder:
        print(f"{cores()} cores; cold processes, wall time (the machine may be shared):")
        print(f"  {'command':<34} {'1 worker':>9} {'all':>9}   speed-up (bar {BAR}x)")
        one = ["--workers", "1"]
        pair(f"reproduce --seeds {args.seeds}", reproduce, folder, one, [], args.repeat)
        pair("headroom --search list, 2 seeds", HEADROOM, folder, one, [], args.repeat)
        pair("improve --quick, 60 searches", [*IMPROVE, "--out", folder], folder, one, [],
             args.repeat, output_matters=False)
        pair("train, 6 PPO iterations x 2 envs", [*TRAIN, "--out", folder], folder, one, [],
             args.repeat, output_matters=False)
        print(f"  {'command':<34} {'serial':>9} {'default':>9}   (should be about 1x)")
        pair("compare, 1 workload (overhead)", COMPARE, folder, ["--backend", "serial"], [],
             args.repeat)
        if args.ray:
            print(f"  {'command':<34} {'serial':>9} {'ray':>9}")
            on_two_ray_nodes(reproduce, folder)


if __name__ == "__main__":
    main()
