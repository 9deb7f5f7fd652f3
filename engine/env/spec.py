"""The observation and action spec the environment, the trainer and the deployed policy share.

One fixed-size spec for every cluster from 8 to 256 GPUs: a window of ``WINDOW`` waiting
jobs, each with ``LEVELS`` GPU-count levels (1 to 8, then 12, 16, 24, ..., 256), plus
cluster-wide features. Bump ``SPEC_VERSION`` whenever a feature changes meaning, so old weights are
refused instead of silently misread.

Per job (``JOB_FEATURES``): present, slot / WINDOW, first-startable flag, log1p(wait /
tau), log(r1 / tau), log10(r1 / 1 h), log2 of requested / min / max GPUs over 8, request
/ free GPUs. Per (job, level) (``LEVEL_FEATURES``): fits now, allowed, efficiency and
log2(speedup) / 8 on the placement it would get now, GPUs / cluster, GPUs / free GPUs,
log(run time / tau), knee score (speedup x efficiency) over the job's best that fits.
Cluster (``CLUSTER_FEATURES``): free fraction, log2 of cluster size and of GPUs per
node, fraction of nodes fully free, largest free block / node size, waiting jobs (over
cluster size, log1p, and beyond the window), running jobs / cluster size, GPUs freed
within tau/16, tau/4 and tau, log(time to the next completion / tau), remaining running
work / (cluster x tau). ``tau`` is the mean one-GPU run time of the window's jobs.
"""

from __future__ import annotations

SPEC_VERSION = 2
WINDOW = 10
"""Waiting jobs the agent sees at once: the ones with the shortest run-time estimates."""
LEVEL_GPUS: tuple[int, ...] = (
    1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256
)
"""GPU counts of the levels: every count up to one 8-GPU node, then powers of two and the
halves between them, so jobs pack whole and half nodes; each job's levels are clipped to
its [min_gpus, max_gpus]. Version 1 lacked 5 and 7: on one 8-GPU node that alone cost the
knee rule 6-11% of average JCT against ``sjf-knee``, which may use any count."""
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
