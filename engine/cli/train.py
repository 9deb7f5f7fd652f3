"""``train``: train the DRL scheduler (behaviour-cloning warm start, then PPO).

Writes ``learning_curve.csv`` and ``checkpoint.pt`` to ``--out``; ``--resume`` continues
from a checkpoint; ``--export`` writes the best weights and their model card to
``pretrained/`` (or the folder given), where the ``drl`` policy finds them.
``--workers``/``--backend`` choose where the rollouts, warm-start and validation
episodes run (the learning stays in this process).
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import sys
from dataclasses import asdict, replace
from typing import TYPE_CHECKING, Any

from tqdm import tqdm

from engine.cli import program_name
from engine.cli.common import add_executor_options, executor_from, positive_int, share
from engine.drl.bc import LOSSES
from engine.drl.expert import KNEE, SHARPNESS
from engine.drl.kernels import kernels_in_effect, pin_kernels
from engine.drl.ppo_config import PPOConfig, config_from_dict
from engine.drl.pretrained import save_pretrained
from engine.env.curriculum import TRAIN_SEEDS, Curriculum
from engine.parallel import Executor
from engine.paths import code_version, pretrained_dir

if TYPE_CHECKING:
    from engine.drl.ppo import TrainResult, WarmStart


def register(parser: argparse.ArgumentParser) -> None:
    defaults = PPOConfig()
    parser.add_argument("--iterations", type=positive_int, default=defaults.iterations,
                        help=f"PPO iterations (default {defaults.iterations})")
    parser.add_argument("--envs", type=positive_int, default=defaults.envs,
                        help="environments, one rollout task each per iteration "
                             f"(default {defaults.envs})")
    parser.add_argument("--steps", type=positive_int, default=defaults.steps,
                        help=f"steps per environment per iteration (default {defaults.steps})")
    parser.add_argument("--seed", type=int, default=defaults.seed, help="training seed")
    parser.add_argument("--lr", type=float, default=defaults.learning_rate, help="PPO step size")
    parser.add_argument("--ent-coef", type=float, default=defaults.ent_coef,
                        help=f"entropy bonus (default {defaults.ent_coef:g})")
    parser.add_argument("--bc-episodes", type=int, default=defaults.bc_episodes,
                        help="teacher episodes for the warm start (0: PPO from scratch)")
    parser.add_argument("--bc-epochs", type=positive_int, default=defaults.bc_epochs,
                        help="behaviour-cloning epochs")
    parser.add_argument("--bc-regret-scale", type=float, default=defaults.bc_regret_scale,
                        help="0 (default): each workload's best teacher labels its states; "
                             "> 0: every teacher does, weighted exp(-regret / this)")
    parser.add_argument("--bc-segments", type=int, default=defaults.bc_segments,
                        help="relabel each episode this many times, each time by the "
                             "teachers' returns from that state on (default "
                             f"{defaults.bc_segments}; 0 or 1: once, by the whole workload)")
    parser.add_argument("--bc-knee-margin", type=float, default=defaults.bc_knee_margin,
                        help="the knee teacher (s=2) labels a state unless another teacher "
                             "schedules the rest of the episode this fraction better "
                             f"(default {defaults.bc_knee_margin:g}: the best one labels)")
    parser.add_argument("--bc-loss", choices=LOSSES, default=defaults.bc_loss,
                        help="cross-entropy on the labels' weights, or the student's expected "
                             "regret over the teachers' actions (the least regret on average "
                             f"rather than the most often best; default {defaults.bc_loss})")
    parser.add_argument("--trace-shaped", type=share, default=Curriculum.trace_shaped,
                        help="share of training episodes shaped like an imported trace of "
                             "rigid runs (all Amdahl, heavy-tailed, bursty, busy; default "
                             f"{Curriculum.trace_shaped:g})")
    parser.add_argument("--dagger-rounds", type=int, default=defaults.dagger_rounds,
                        help="DAgger rounds after plain cloning (the student acts, the "
                             f"teachers label; default {defaults.dagger_rounds})")
    parser.add_argument("--dagger-episodes", type=positive_int, default=defaults.dagger_episodes,
                        help=f"episodes per DAgger round (default {defaults.dagger_episodes})")
    parser.add_argument("--val-episodes", type=positive_int, default=defaults.val_episodes,
                        help="validation workloads for keeping the best weights")
    parser.add_argument("--threads", type=positive_int, default=defaults.threads,
                        help="torch threads (default 1)")
    parser.add_argument("--out", default=os.path.join("runs", "train"),
                        help="folder for the learning curve and checkpoint (default runs/train)")
    parser.add_argument("--resume", metavar="CKPT", help="continue from this checkpoint")
    parser.add_argument("--export", nargs="?", const=str(pretrained_dir()), metavar="DIR",
                        help="write the best weights and model card (default pretrained/)")
    parser.add_argument("--portable-kernels", action="store_true",
                        help="pin torch's CPU kernels (ATen AVX2, MKL's COMPATIBLE branch), "
                             "so that the seed gives the same weights on other x86-64 CPUs; "
                             "cloning takes about 60%% more CPU")
    add_executor_options(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.portable_kernels:
        pin_kernels()  # before torch's first kernel, which reads the settings
    with executor_from(args) as executor:
        # the workers first, before torch and the progress bar's thread: then they are
        # forked (a fraction of a second), not spawned (a second or more each)
        executor.start()
        return _run(args, executor)


def _run(args: argparse.Namespace, executor: Executor) -> int:
    from engine.drl.checkpoint import load_checkpoint  # torch: after the workers started
    from engine.drl.ppo import train

    # a resumed run keeps its own hyper-parameters; only the iteration budget may change
    base = config_from_dict(load_checkpoint(args.resume).config) if args.resume else None
    config = replace(base, iterations=args.iterations) if base else replace(
        PPOConfig(),
        iterations=args.iterations,
        envs=args.envs,
        steps=args.steps,
        seed=args.seed,
        learning_rate=args.lr,
        ent_coef=args.ent_coef,
        bc_episodes=args.bc_episodes,
        bc_epochs=args.bc_epochs,
        bc_regret_scale=args.bc_regret_scale,
        bc_segments=args.bc_segments,
        bc_knee_margin=args.bc_knee_margin,
        bc_loss=args.bc_loss,
        dagger_rounds=args.dagger_rounds,
        dagger_episodes=args.dagger_episodes,
        val_episodes=args.val_episodes,
        threads=args.threads,
        curriculum=Curriculum(trace_shaped=args.trace_shaped),
    )
    with tqdm(total=config.iterations, desc="train", unit="it") as bar:

        def warm_progress(step: WarmStart) -> None:
            bar.set_description_str(step.describe())

        def progress(row: dict[str, Any]) -> None:
            if row["phase"] == "ppo":
                bar.n = row["iteration"]
                bar.set_description_str("train")
            postfix = {
                "val": row["val_jct_over_bound"],
                "teacher": row["teacher_val_jct_over_bound"],
                "ent": row["entropy"],
                "kl": row["approx_kl"],
            }
            bar.set_postfix({k: f"{v:.3g}" for k, v in postfix.items() if not math.isnan(v)})
            bar.refresh()

        result = train(config, progress=progress, out=args.out, resume=args.resume,
                       executor=executor, warm_progress=warm_progress)
    print(
        f"trained {result.iterations} iterations in {result.seconds:.0f} s; best validation "
        f"avg JCT / ideal {result.best_score:.3f} (teacher {result.teacher_score:.3f}); "
        f"checkpoint {result.checkpoint}"
    )
    if args.export:
        card = save_pretrained(result.best_state, config.hidden, model_card(config, result),
                               args.export)
        print(f"wrote {card}")
    return 0


def model_card(config: PPOConfig, result: TrainResult) -> dict[str, Any]:
    """What the card says about how the weights were made."""
    return {
        "method": (
            "behaviour cloning (plus DAgger) of heuristic teachers (engine.drl.expert: SJF "
            "over the window, GPU count maximising GPUs x efficiency^s, s in "
            f"{', '.join(f'{x:g}' for x in SHARPNESS)}; each curriculum episode labelled, "
            f"{config.bc_segments} times along it if bc_segments > 1, by the s that "
            "scheduled the rest of it best"
            + (f", the knee s={KNEE:g} unless another was {config.bc_knee_margin:.0%} better"
               if config.bc_knee_margin > 0 else "")
            + (", cloned on the student's expected regret over the teachers' actions"
               if config.bc_loss == "expected-regret" else "")
            + "), then PPO fine-tuning with masked actions; the "
            "weights kept are those with the best validation score"
        ),
        "command": " ".join([program_name(), *sys.argv[1:]]),
        "code_version": code_version(),
        "hyperparameters": asdict(config),
        "training": {
            "workloads": "engine.env.curriculum.Curriculum (see hyperparameters.curriculum)",
            "workload_seeds": f"{TRAIN_SEEDS.start}..{TRAIN_SEEDS.stop - 1} "
            "(evaluation uses seeds below that)",
            "iterations": result.iterations,
            "env_steps": sum(row["samples"] for row in result.history if row["phase"] == "ppo"),
            "seconds": round(result.seconds, 1),
            "hardware": f"{platform.machine()} CPU, {os.cpu_count()} cores (shared), "
            f"torch threads {config.threads}, {platform.python_implementation()} "
            f"{platform.python_version()}",
            "kernels": kernels_in_effect(),
        },
        "validation": {
            "metric": "geometric mean over the validation workloads of avg JCT / "
                      "no-contention ideal; teacher: the best teacher per workload",
            "best": result.best_score,
            "teacher": result.teacher_score,
        },
    }
