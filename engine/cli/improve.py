"""``improve``: expert iteration on trained weights (clairvoyant search, then cloning).

Starts from the weights in ``--weights`` (default ``pretrained/``), runs
:func:`engine.drl.expert_iteration.improve` with a progress bar, writes the per-epoch
history to ``--out``/improve_curve.csv, and with ``--export`` writes the best weights
with their model card (the starting card's training record kept, this run added).
"""

from __future__ import annotations

import argparse
import os
import platform
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

import pandas as pd
from tqdm import tqdm

from engine.cli.common import add_executor_options, executor_from, positive_int
from engine.drl.expert_iteration import REFERENCE, ImproveConfig, ImproveResult, improve
from engine.drl.pretrained import load_pretrained, save_pretrained
from engine.env.curriculum import Curriculum
from engine.parallel import Executor
from engine.paths import pretrained_dir

QUICK = Curriculum(cluster_gpus=(8, 16), jobs=(10, 20))
"""What ``--quick`` searches: small clusters and workloads, seconds per round."""
SEARCHED: dict[str, Curriculum] = {
    "cells": ImproveConfig().curriculum,
    "full": Curriculum(),
}
"""What ``--search`` may name."""


def register(parser: argparse.ArgumentParser) -> None:
    defaults = ImproveConfig()
    parser.add_argument("--weights", default=str(pretrained_dir()), metavar="DIR",
                        help="folder with the starting weights and card (default: the shipped "
                             "ones)")
    parser.add_argument("--rounds", type=positive_int, default=defaults.rounds,
                        help=f"search-then-clone rounds (default {defaults.rounds})")
    parser.add_argument("--episodes", type=positive_int, default=defaults.episodes,
                        help=f"workloads searched per round (default {defaults.episodes})")
    parser.add_argument("--passes", type=positive_int, default=defaults.passes,
                        help=f"local-search sweeps per workload (default {defaults.passes})")
    parser.add_argument("--epochs", type=positive_int, default=defaults.epochs,
                        help=f"cloning epochs per round (default {defaults.epochs})")
    parser.add_argument("--lr", type=float, default=defaults.learning_rate,
                        help=f"cloning step size (default {defaults.learning_rate:g})")
    add_executor_options(parser)
    parser.add_argument("--seed", type=int, default=defaults.seed, help="seed of the run")
    parser.add_argument("--search", choices=tuple(SEARCHED), default="cells",
                        help="workloads to search: like the evaluation cells (16-128 GPUs, "
                             "100-200 jobs, load 0.6-1) or the full training curriculum "
                             "(default cells)")
    parser.add_argument("--quick", action="store_true",
                        help="a smoke run: 10-20-job workloads, one small validation workload "
                             "per cell")
    parser.add_argument("--out", default=os.path.join("runs", "improve"),
                        help="folder for improve_curve.csv (default runs/improve)")
    parser.add_argument("--export", nargs="?", const=str(pretrained_dir()), metavar="DIR",
                        help="write the best weights and model card (default pretrained/)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    with executor_from(args) as executor:
        return _run(args, executor)


def _run(args: argparse.Namespace, executor: Executor) -> int:
    # the workers start before the progress bar's thread, so they are forked (a fraction
    # of a second), not spawned (a second or more each, re-importing the engine)
    executor.start()
    start = load_pretrained(args.weights)
    config = replace(ImproveConfig(), rounds=args.rounds, episodes=args.episodes,
                     passes=args.passes, epochs=args.epochs, learning_rate=args.lr,
                     workers=executor.workers, seed=args.seed, curriculum=SEARCHED[args.search])
    if args.quick:
        config = replace(config, val_per_cell=1, val_jobs=20, curriculum=QUICK)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows: list[dict[str, Any]] = []
    steps = config.rounds * (config.episodes + config.epochs)
    with tqdm(total=steps, desc="improve", unit="step") as bar:

        def progress(row: dict[str, Any]) -> None:
            if row["phase"] == "search":
                bar.n = (row["round"] - 1) * (config.episodes + config.epochs) + row["samples"]
                bar.set_postfix(round=row["round"], headroom=f"{row['headroom']:.3f}")
            else:  # the start's score and each cloning epoch's: the curve
                if row["phase"] == "clone":
                    bar.n = row["round"] * (config.episodes + config.epochs) - (
                        config.epochs - row["epoch"])
                rows.append(row)
                pd.DataFrame(rows).to_csv(out / "improve_curve.csv", index=False)
                bar.set_postfix(val=f"{row['val_score']:.4f}")
            bar.refresh()

        result = improve(start.weights, int(start.card["hidden"]), config, progress, executor)
    print(f"expert iteration: validation avg JCT / {REFERENCE} {result.start_score:.4f} -> "
          f"{result.best_score:.4f} in {result.seconds:.0f} s; curve {out / 'improve_curve.csv'}")
    if args.export:
        card = model_card(start.card, config, result)
        card["improvements"][-1]["command"] = (
            f"python -m engine improve --weights {args.weights} --rounds {config.rounds} "
            f"--episodes {config.episodes} --passes {config.passes} --epochs {config.epochs} "
            f"--lr {config.learning_rate:g} --seed {config.seed} --search {args.search} "
            "--export")
        path = save_pretrained(result.best_state, int(start.card["hidden"]), card, args.export)
        print(f"wrote {path}")
    return 0


def model_card(start: dict[str, Any], config: ImproveConfig, result: ImproveResult) -> dict:
    """The starting card's training record with this run appended; stale entries dropped."""
    kept = {k: v for k, v in start.items() if k not in ("evaluation", "weights_sha256")}
    return {
        **kept,
        "improvements": [*start.get("improvements", []), {
            "method": "expert iteration (engine.drl.expert_iteration): clairvoyant local "
            "search of per-job GPU-count shifts around the policy's schedules, then "
            "behaviour cloning onto the searched actions; best validation weights kept",
            "hyperparameters": asdict(config),
            "validation": {
                "metric": f"mean avg JCT / {REFERENCE}'s over eval-like workloads drawn "
                "from the training seeds",
                "start": result.start_score,
                "best": result.best_score,
            },
            "history": list(result.history),
            "seconds": round(result.seconds, 1),
            "hardware": f"{platform.machine()} CPU, {os.cpu_count()} cores (shared), "
            f"{config.workers} searches at once, torch threads {config.threads}",
        }],
    }
