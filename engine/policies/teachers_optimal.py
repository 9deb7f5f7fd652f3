"""drl's teachers with their setting picked in hindsight: the ceiling of what it imitates.

``drl`` is cloned from shortest-job-first teachers that size each job by ``GPUs x
efficiency ** s`` (:mod:`engine.drl.expert`), and has to tell from what it sees which
``s`` a situation calls for. Here every ``s`` runs on the scored workload and the best
is kept, which needs the outcome in advance: an oracle, never a baseline. Where even it
is behind a cell's best heuristic, the student's family cannot reach that heuristic, and
``python -m engine evaluate --ceiling`` prints that ceiling per cell.
"""

from __future__ import annotations

from engine.drl.expert import SHARPNESS, ExpertPolicy
from engine.policies.tuned import Candidate, TunedPolicy


class TeachersOptimal(TunedPolicy):
    name = "teachers-optimal"
    sweep_key = "teacher_sweep"

    def candidates(self) -> list[Candidate]:
        return [Candidate({"sharpness": s}, ExpertPolicy(s)) for s in SHARPNESS]
