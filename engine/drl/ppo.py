"""PPO for the moldable-job scheduler, after CleanRL's single-file ``ppo.py``.

Masked categorical actions, GAE, the clipped surrogate objective, an entropy bonus and a
value head, over ``envs`` environments. Everything that plays episodes goes to an
:class:`engine.parallel.Executor`, as independent numpy-only tasks: each iteration's
rollout (one task per environment, each with its own generator:
:mod:`engine.drl.rollout`), the warm start's demonstration episodes and the validation
episodes. Learning (log-probabilities, values, GAE, the gradient steps) stays here.
Training starts from a behaviour-cloned copy of the heuristic teacher
(:mod:`engine.drl.bc`) unless ``bc_episodes`` is 0, and keeps the weights that score
best on a fixed validation set of curriculum workloads (training seeds, never the
evaluation seeds). Same config and seed, same run, on every backend; on another CPU only
with its kernels pinned (:mod:`engine.drl.kernels`, ``train --portable-kernels``). The
hyper-parameters (:class:`~engine.drl.ppo_config.PPOConfig`) sit in their own module,
so the command line and the app read them without importing torch.
"""

from __future__ import annotations

import csv
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch.distributions import Categorical

from engine.cluster import Cluster
from engine.drl.actor import NumpyActor
from engine.drl.bc import Labelling, clone, collect_demonstrations, merge
from engine.drl.checkpoint import Checkpoint, load_checkpoint, save_checkpoint
from engine.drl.network import ActorCritic, copy_state
from engine.drl.ppo_config import PPOConfig
from engine.drl.rollout import Lane, greedy_return, roll
from engine.env.moldable_env import MoldableEnv
from engine.job import Job
from engine.parallel import Executor
from engine.preload import TRAINING, import_in_background

Progress = Callable[[Mapping[str, Any]], None]


@dataclass(frozen=True)
class WarmStart:
    """Where the warm start is, for a progress bar: ``done`` of ``total`` in this stage."""

    stage: str
    """``teacher`` (the teacher plays), ``student`` (DAgger: the student plays, the teacher
    labels) or ``cloning`` (epochs of behaviour cloning)."""
    round: int
    """Cloning round, from 1 (plain cloning) to ``rounds`` (the last DAgger round)."""
    rounds: int
    done: int
    total: int

    def describe(self) -> str:
        """In words, e.g. "warm start: imitating the teacher, cloning epoch 7 of 20"."""
        what = {"teacher": "who plays episode",
                "student": "who labels the student's episode",
                "cloning": "cloning epoch"}[self.stage]
        where = f" (round {self.round} of {self.rounds})" if self.rounds > 1 else ""
        return f"warm start: imitating the teacher, {what} {self.done} of {self.total}{where}"

    @property
    def fraction(self) -> float:
        """Share of the whole warm start done (a round: half playing, half cloning)."""
        half = 0.5 * self.done / max(self.total, 1)
        return (self.round - 1 + half + (0.5 if self.stage == "cloning" else 0.0)) / self.rounds


@dataclass(frozen=True)
class TrainResult:
    """What a run produced: final and best weights, the learning curve, where it stopped."""

    model: ActorCritic
    best_state: dict[str, torch.Tensor]
    best_score: float
    """Mean validation avg-JCT / ideal of the best weights (lower is better)."""
    teacher_score: float
    history: tuple[dict[str, Any], ...]
    iterations: int
    seconds: float
    """Training time, including the runs this one resumed."""
    stopped: bool
    checkpoint: Path | None


def validation_workloads(config: PPOConfig) -> list[tuple[list[Job], Cluster]]:
    """Fixed curriculum workloads for model selection (drawn from the training seeds)."""
    rng = np.random.default_rng([config.seed, 7_777])
    return [config.curriculum.workload(rng) for _ in range(config.val_episodes)]


def greedy_score(
    actor: NumpyActor | None,
    workloads: list[tuple[list[Job], Cluster]],
    executor: Executor | None = None,
) -> float:
    """Geometric mean over ``workloads`` of avg-JCT / ideal (= minus the return) of the
    greedy ``actor`` (``None``: the best teacher of each), one ``executor`` task per
    workload (default: here, in order). Geometric, so that a 10% gain counts the same on
    a quiet workload (ratio near 1) as on an overloaded one (ratio 20): an arithmetic mean
    would choose weights by the overloaded episodes alone."""
    returns = (executor or Executor("serial")).map(greedy_return, workloads, shared=actor)
    return float(np.exp(np.mean(np.log([-total for total in returns]))))


def start_lanes(config: PPOConfig, iteration: int) -> list[Lane]:
    """The environments PPO rolls out from ``iteration`` on, each with its own generator
    (seeded by the training seed, its index and the iteration, so a resume is seeded)."""
    lanes = []
    for k in range(config.envs):
        env = MoldableEnv(config.curriculum)
        env.reset(seed=config.seed * 1_000 + 97 * iteration + k)
        lanes.append(Lane(env, np.random.default_rng([config.seed, k, iteration])))
    return lanes


def train(
    config: PPOConfig = PPOConfig(),
    progress: Progress | None = None,
    should_stop: Callable[[], bool] | None = None,
    out: str | os.PathLike | None = None,
    resume: str | os.PathLike | None = None,
    executor: Executor | None = None,
    warm_progress: Callable[[WarmStart], None] | None = None,
) -> TrainResult:
    """Train (or resume) a scheduler; writes ``learning_curve.csv`` and checkpoints to ``out``.

    ``progress`` receives each learning-curve row as it is made, ``warm_progress`` the
    warm start's steps (each batch of episodes, each cloning epoch). ``should_stop`` is
    polled before every PPO and cloning minibatch and between batches of warm-start
    episodes; it ends the run cleanly, keeping the best weights validated so far (or,
    stopped before any validation, the weights as they are, then validated) and writing
    the checkpoint. An iteration cut short is not counted (its update's steps so far stay
    in the final weights). ``executor`` (default: this process) plays PPO's rollouts, the
    warm start's episodes and the validation episodes; all learning stays here.
    """
    started = time.perf_counter()
    stop = should_stop or (lambda: False)
    players = executor or Executor("serial")
    torch.set_num_threads(config.threads)
    torch.manual_seed(config.seed)
    out_dir = Path(out) if out is not None else None
    model = ActorCritic(config.hidden)
    # the optimizer's compiler hooks take over a second to import: they load while the
    # teacher plays the validation workloads
    import_in_background(TRAINING)
    validation = validation_workloads(config)
    teacher_score = greedy_score(None, validation, executor)
    optimizer = torch.optim.Adam(model.parameters(), lr=config.learning_rate, eps=1e-5)

    def validate() -> float:
        return greedy_score(NumpyActor(model.state_dict()), validation, executor)

    history: list[dict[str, Any]] = []
    stopped = False
    start_iteration = 0
    best_state, best_score = None, float("inf")
    resumed_seconds = 0.0

    def emit(row: dict[str, Any]) -> None:
        elapsed = time.perf_counter() - started + resumed_seconds
        row = {"seconds": round(elapsed, 2), **row}
        history.append(row)
        if out_dir is not None:
            _append_csv(out_dir / "learning_curve.csv", row, fresh=len(history) == 1)
        if progress is not None:
            progress(row)

    if resume is not None:
        ck = load_checkpoint(resume)
        model.load_state_dict(ck.model)
        optimizer.load_state_dict(ck.optimizer)
        start_iteration, history = ck.iteration, list(ck.history)
        best_state, best_score = ck.best_model, ck.best_score
        resumed_seconds = float(history[-1]["seconds"]) if history else 0.0
        if out_dir is not None:
            _rewrite_csv(out_dir / "learning_curve.csv", history)
    elif config.bc_episodes > 0:
        rounds = config.dagger_rounds + 1

        def report(stage: str, round_: int, done: int, total: int) -> None:
            if warm_progress is not None:
                warm_progress(WarmStart(stage, round_ + 1, rounds, done, total))

        data = None
        for round_ in range(rounds):
            stage = "student" if round_ else "teacher"
            played = collect_demonstrations(
                config.dagger_episodes if round_ else config.bc_episodes, config.curriculum,
                config.seed + 7919 * round_, config.gamma,
                NumpyActor(model.state_dict()) if round_ else None, executor, stop,
                lambda done, total, stage=stage, round_=round_: report(
                    stage, round_, done, total),
                labelling=Labelling.of(config),
            )
            data = played if data is None else merge(data, played)
            if stop():
                stopped = True
                break
            policy_loss, value_loss = clone(
                model, data, config.bc_epochs, config.bc_lr, config.seed + round_,
                labelling=Labelling.of(config),
                progress=lambda epoch, *_, round_=round_: report(
                    "cloning", round_, epoch + 1, config.bc_epochs),
                should_stop=stop,
            )
            if stop():
                stopped = True
                break
            score = validate()
            if score < best_score:
                best_state, best_score = copy_state(model), score
            emit(_row("bc", 0, len(data[2]), [], policy_loss, value_loss, score, teacher_score))

    lanes = start_lanes(config, start_iteration)
    shape = (config.steps, config.envs)
    batch_size = config.steps * config.envs
    minibatch = batch_size // config.minibatches
    flat = lambda x: x.reshape(batch_size, *x.shape[2:])  # noqa: E731
    iteration = start_iteration

    for iteration in range(start_iteration + 1, config.iterations + 1):
        if stopped or stop():
            stopped, iteration = True, iteration - 1
            break
        if config.anneal_lr:
            frac = 1.0 - (iteration - 1) / config.iterations
            optimizer.param_groups[0]["lr"] = frac * config.learning_rate
        rollouts = players.map(roll, lanes, shared=(NumpyActor(model.state_dict()), config.steps))
        lanes = [r.lane for r in rollouts]
        episodes = [e for r in rollouts for e in r.episodes]
        episode_jcts = [jct for jct, _ in episodes]
        episode_scores = [score for _, score in episodes]
        b_obs, b_mask, b_actions, b_rewards, b_dones = (
            torch.as_tensor(np.stack([getattr(r, name) for r in rollouts], axis=1))
            for name in ("obs", "masks", "actions", "rewards", "dones"))
        b_rewards, b_dones = b_rewards.float(), b_dones.float()
        with torch.no_grad():
            logits, values = model(flat(b_obs), flat(b_mask))
            f_logp = Categorical(logits=logits).log_prob(flat(b_actions))
            b_values = values.reshape(shape)
            _, next_value = model(
                torch.as_tensor(np.stack([lane.env.decision.obs for lane in lanes])),
                torch.as_tensor(np.stack([lane.env.decision.mask for lane in lanes])))
        advantages = torch.zeros(shape)
        last = torch.zeros(config.envs)
        for t in reversed(range(config.steps)):
            not_done = 1.0 - b_dones[t]  # the episode went on after step t
            following = next_value if t == config.steps - 1 else b_values[t + 1]
            delta = b_rewards[t] + config.gamma * following * not_done - b_values[t]
            last = delta + config.gamma * config.gae_lambda * not_done * last
            advantages[t] = last
        returns = advantages + b_values

        f_obs, f_mask, f_actions = map(flat, (b_obs, b_mask, b_actions))
        f_adv, f_ret = flat(advantages), flat(returns)
        generator = torch.Generator().manual_seed(config.seed * 10_007 + iteration)
        stats = []
        interrupted = False
        for _ in range(config.update_epochs):
            order = torch.randperm(batch_size, generator=generator)
            for start in range(0, batch_size, minibatch):
                if stop():  # a big update takes seconds: keep its steps, not the iteration
                    interrupted = True
                    break
                idx = order[start : start + minibatch]
                logits, value = model(f_obs[idx], f_mask[idx])
                dist = Categorical(logits=logits)
                logp = dist.log_prob(f_actions[idx])
                log_ratio = logp - f_logp[idx]
                ratio = log_ratio.exp()
                with torch.no_grad():
                    approx_kl = ((ratio - 1) - log_ratio).mean().item()
                    clipfrac = ((ratio - 1.0).abs() > config.clip_coef).float().mean().item()
                adv = f_adv[idx]
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                pg_loss = torch.max(
                    -adv * ratio,
                    -adv * ratio.clamp(1 - config.clip_coef, 1 + config.clip_coef),
                ).mean()
                v_loss = 0.5 * ((value - f_ret[idx]) ** 2).mean()
                entropy = dist.entropy().mean()
                loss = pg_loss - config.ent_coef * entropy + config.vf_coef * v_loss
                optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), config.max_grad_norm)
                optimizer.step()
                stats.append((pg_loss.item(), v_loss.item(), entropy.item(), approx_kl, clipfrac))
            if interrupted or (config.target_kl and approx_kl > config.target_kl):
                break
        if interrupted:
            stopped, iteration = True, iteration - 1
            break

        score = float("nan")
        if iteration % config.eval_every == 0 or iteration == config.iterations:
            score = validate()
            if score < best_score:
                best_state, best_score = copy_state(model), score
        mean = np.mean(stats, axis=0)
        emit(_row("ppo", iteration, batch_size, episode_jcts, mean[0], mean[1], score,
                  teacher_score, entropy=mean[2], approx_kl=mean[3], clipfrac=mean[4],
                  episode_score=float(np.mean(episode_scores)) if episode_scores else np.nan))
        if out_dir is not None and (iteration % config.checkpoint_every == 0):
            _save(out_dir, model, optimizer, iteration, history, config, best_state, best_score)

    if best_state is None:  # never validated: PPO from scratch, or stopped early
        best_state, best_score = copy_state(model), validate()
    checkpoint = None
    if out_dir is not None:
        checkpoint = _save(
            out_dir, model, optimizer, iteration, history, config, best_state, best_score
        )
    return TrainResult(
        model=model,
        best_state=best_state,
        best_score=best_score,
        teacher_score=teacher_score,
        history=tuple(history),
        iterations=iteration,
        seconds=time.perf_counter() - started + resumed_seconds,
        stopped=stopped,
        checkpoint=checkpoint,
    )


def _row(
    phase: str,
    iteration: int,
    samples: int,
    episode_jcts: list[float],
    policy_loss: float,
    value_loss: float,
    val_score: float,
    teacher_score: float,
    entropy: float = float("nan"),
    approx_kl: float = float("nan"),
    clipfrac: float = float("nan"),
    episode_score: float = float("nan"),
) -> dict[str, Any]:
    """One learning-curve row (the CSV's columns, in order)."""
    return {
        "phase": phase,
        "iteration": iteration,
        "samples": samples,
        "episodes": len(episode_jcts),
        "mean_episode_avg_jct": float(np.mean(episode_jcts)) if episode_jcts else float("nan"),
        "mean_episode_jct_over_bound": episode_score,
        "policy_loss": float(policy_loss),
        "value_loss": float(value_loss),
        "entropy": float(entropy),
        "approx_kl": float(approx_kl),
        "clipfrac": float(clipfrac),
        "val_jct_over_bound": val_score,
        "teacher_val_jct_over_bound": teacher_score,
    }


def _save(
    out_dir: Path,
    model: ActorCritic,
    optimizer: torch.optim.Optimizer,
    iteration: int,
    history: list[dict[str, Any]],
    config: PPOConfig,
    best_state: dict[str, torch.Tensor],
    best_score: float,
) -> Path:
    path = out_dir / "checkpoint.pt"
    save_checkpoint(
        path,
        Checkpoint(copy_state(model), optimizer.state_dict(), iteration, history, asdict(config),
                   best_state, best_score),
    )
    return path


def _append_csv(path: Path, row: Mapping[str, Any], fresh: bool) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w" if fresh else "a", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(row))
        if fresh:
            writer.writeheader()
        writer.writerow(row)


def _rewrite_csv(path: Path, history: list[dict[str, Any]]) -> None:
    for i, row in enumerate(history):
        _append_csv(path, row, fresh=i == 0)
