"""PPO's hyper-parameters, apart from :mod:`engine.drl.ppo` so they load without torch.

The command line and the Train page read the defaults to build their controls, and
``train`` starts its worker processes before torch is imported (forked, not spawned,
they skip re-importing the engine): neither may wait two seconds for torch first.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.env.curriculum import Curriculum


@dataclass(frozen=True)
class PPOConfig:
    """Hyper-parameters of one training run."""

    seed: int = 0  # seeds torch, the environments and the workload draws
    iterations: int = 60  # PPO iterations (each = envs x steps environment steps)
    envs: int = 8  # environments, one rollout task each per iteration
    steps: int = 256  # steps per environment per iteration
    learning_rate: float = 1e-4  # Adam step size for PPO (small: it fine-tunes a clone)
    anneal_lr: bool = True  # decay the PPO learning rate linearly to 0
    gamma: float = 0.999  # discount; the objective is the undiscounted sum (total JCT)
    gae_lambda: float = 0.95  # GAE bias/variance trade-off
    minibatches: int = 4  # minibatches per update epoch
    update_epochs: int = 4  # passes over each rollout
    clip_coef: float = 0.2  # PPO ratio clipping
    ent_coef: float = 0.003  # entropy bonus (keeps exploring beyond the teacher)
    vf_coef: float = 0.5  # value-loss weight
    max_grad_norm: float = 0.5  # gradient clipping
    target_kl: float = 0.03  # stop an update early past this approx KL
    hidden: int = 64  # width of the shared per-job MLP
    bc_episodes: int = 400  # teacher episodes for the warm start (0: PPO from scratch)
    bc_epochs: int = 20  # behaviour-cloning passes over the demonstrations
    bc_lr: float = 1e-3  # behaviour-cloning step size
    bc_regret_scale: float = 0.0  # >0: teachers label weighted exp(-regret/this); 0: best only
    bc_segments: int = 8  # relabel this many times per episode by the teacher best from there
    bc_knee_margin: float = 0.0  # the knee teacher labels unless another is this fraction better
    bc_loss: str = "expected-regret"  # least regret; "cross-entropy": the most often best
    dagger_rounds: int = 4  # DAgger rounds after plain cloning (student acts, teacher labels)
    dagger_episodes: int = 150  # episodes per DAgger round
    val_episodes: int = 48  # validation workloads (curriculum, training seeds)
    eval_every: int = 5  # validate (and maybe keep as best) every this many iterations
    checkpoint_every: int = 5  # write the checkpoint every this many iterations
    threads: int = 1  # torch intra-op threads
    curriculum: Curriculum = field(default_factory=Curriculum)  # workload distribution


RETIRED = frozenset({"expert", "max_runtimes"})
"""Settings older checkpoints stored that no longer exist; they only ever held the
defaults the code now has built in, so resuming such a checkpoint ignores them."""
BEFORE = {"bc_loss": "cross-entropy"}
BEFORE_CURRICULUM = {"trace_shaped": 0.0}
"""What checkpoints from before a setting existed trained with, where today's default
differs: resuming one goes on as it started."""


def config_from_dict(data: Mapping[str, Any]) -> PPOConfig:
    """Rebuild the config a checkpoint stored with ``asdict``."""
    fields = {**BEFORE, **{k: v for k, v in data.items() if k not in RETIRED}}
    stored = {k: _tuples(v) for k, v in fields.pop("curriculum").items() if k not in RETIRED}
    curriculum = Curriculum(**{**BEFORE_CURRICULUM, **stored})
    return PPOConfig(**fields, curriculum=curriculum)


def _tuples(value: Any) -> Any:
    """JSON's lists back to the tuples the frozen config holds, nested ones too."""
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value
