"""The observation and action spec the environment, the trainer and the deployed policy share.

One fixed-size spec for every cluster from 8 to 256 GPUs: a window of ``WINDOW`` waiting
jobs, each with ``LEVELS`` GPU-count levels (1, 2, 3, 4, 6, ..., 256), plus cluster-wide
features. Bump ``SPEC_VERSION`` whenever a feature changes meaning, so old weights are
refused instead of silently misread.
"""

from __future__ import annotations

SPEC_VERSION = 1
WINDOW = 10
"""Waiting jobs the agent sees at once: the ones with the shortest run-time estimates."""
LEVEL_GPUS: tuple[int, ...] = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256)
"""GPU counts of the levels: powers of two and the halves between them, so jobs pack
whole and half nodes; each job's levels are clipped to its [min_gpus, max_gpus]."""
LEVELS = len(LEVEL_GPUS)
JOB_FEATURES = 10
"""Per-job features that do not depend on the level."""
LEVEL_FEATURES = 8
"""Features of one (job, level) pair."""
CLUSTER_FEATURES = 14
PER_JOB = JOB_FEATURES + LEVELS * LEVEL_FEATURES
OBS_SIZE = WINDOW * PER_JOB + CLUSTER_FEATURES
N_ACTIONS = WINDOW * LEVELS + 1
WAIT = N_ACTIONS - 1
"""The last action: start nothing more now and advance to the next event."""
OBS_BOUND = 5.0
"""Every feature is clipped to [-OBS_BOUND, OBS_BOUND]."""


def decode(action: int) -> tuple[int, int]:
    """(window slot, level) of a start action."""
    return divmod(int(action), LEVELS)


def spec_dict() -> dict[str, int]:
    """The spec as the model card records it."""
    return {
        "spec_version": SPEC_VERSION,
        "window": WINDOW,
        "levels": LEVELS,
        "job_features": JOB_FEATURES,
        "level_features": LEVEL_FEATURES,
        "cluster_features": CLUSTER_FEATURES,
        "obs_size": OBS_SIZE,
        "n_actions": N_ACTIONS,
    }
