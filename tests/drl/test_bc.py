"""Behaviour cloning: every teacher labels every state, with its regret from there on."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from engine.drl.bc import Labelling, clone, collect_demonstrations, returns_from_here
from engine.drl.expert import SHARPNESS, expert_action, teacher_returns
from engine.drl.network import ActorCritic
from engine.env.curriculum import Curriculum
from engine.env.moldable_env import MoldableEnv
from engine.env.spec import N_ACTIONS, OBS_SIZE

SMALL = Curriculum(cluster_gpus=(8, 16), jobs=(10, 20))


def test_a_teachers_weight_falls_by_e_per_regret_scale_of_avg_jct():
    # returns are minus avg JCT / ideal: s = 1 is best, s = 1.5 is 2% behind, s = 2 4%
    returns = {1.0: -2.0, 1.5: -2.04, 2.0: -2.08, 3.0: -4.0, 4.0: -2.0}
    regrets = Labelling.regrets(returns)
    assert regrets.tolist() == pytest.approx([0.0, 0.02, 0.04, 1.0, 0.0])
    weights = Labelling(regret_scale=0.02).weights(regrets)[0]
    assert weights.shape == (len(SHARPNESS),) and weights.sum() == pytest.approx(1.0)
    assert weights[0] == weights[4] == weights.max()
    assert weights[1] / weights[0] == pytest.approx(math.exp(-1.0), rel=1e-5)
    assert weights[2] / weights[0] == pytest.approx(math.exp(-2.0), rel=1e-5)
    assert weights[3] / weights[0] < 1e-20  # twice the best's avg JCT: no say at all
    # at 0 (the default) the best teacher alone, the first of equals
    assert Labelling(0.0, knee_margin=0.0).weights(regrets).tolist() == [[1, 0, 0, 0, 0]]


def test_the_knee_keeps_the_label_unless_another_teacher_beats_it_by_the_margin():
    # s = 1 schedules the rest 4% better than the knee (s = 2), s = 1.5 2% better
    regrets = Labelling.regrets({1.0: -2.0, 1.5: -2.04, 2.0: -2.08, 3.0: -4.0, 4.0: -2.5})
    assert Labelling(0.0, knee_margin=0.03).weights(regrets).tolist() == [[1, 0, 0, 0, 0]]
    assert Labelling(0.0, knee_margin=0.05).weights(regrets).tolist() == [[0, 0, 1, 0, 0]]
    # with a margin a tie goes to the knee; without one to the first (the shipped labels)
    tie = np.zeros(len(SHARPNESS))
    assert Labelling(0.0, knee_margin=0.01).weights(tie).tolist() == [[0, 0, 1, 0, 0]]
    assert Labelling(0.0, knee_margin=0.0).weights(tie).tolist() == [[1, 0, 0, 0, 0]]
    assert Labelling(0.0, knee_margin=0.01).acting(tie) == 2
    # with soft labels the margin lowers the knee's regret: 4% - 3% = 1% behind s = 1
    soft = Labelling(0.02, knee_margin=0.03).weights(regrets)[0]
    assert soft[2] / soft[0] == pytest.approx(math.exp(-0.5), rel=1e-4)


def test_demonstrations_hold_every_teachers_action_with_its_regret():
    obs, masks, labels, regrets, returns = collect_demonstrations(2, SMALL, 0, 0.99)
    n = len(obs)
    assert obs.shape == (n, OBS_SIZE) and masks.shape == (n, N_ACTIONS)
    assert labels.shape == regrets.shape == (n, len(SHARPNESS)) and returns.shape == (n,)
    assert masks[np.arange(n)[:, None], labels].all()  # every label is a valid action
    assert (regrets >= 0).all() and (regrets.min(1) == 0).all()  # the best one's is 0
    # the first state of episode 0: its teachers' own actions, with their regrets
    env = MoldableEnv(SMALL)
    env.reset(seed=0)
    expected = Labelling.regrets(teacher_returns(env.sim.jobs, env.sim.cluster))
    assert np.array_equal(regrets[0], expected)
    assert labels[0].tolist() == [expert_action(env.decision, s) for s in SHARPNESS]


def test_returns_from_the_start_are_the_teachers_returns_on_the_workload():
    env = MoldableEnv(SMALL)
    env.reset(seed=3)
    before = env.decision.obs.copy()
    assert returns_from_here(env) == pytest.approx(teacher_returns(env.sim.jobs, env.sim.cluster))
    assert np.array_equal(env.decision.obs, before)  # played on copies: env is untouched


def test_returns_from_a_later_state_count_only_the_rest_of_the_episode():
    env = MoldableEnv(SMALL)
    env.reset(seed=3)
    so_far, done, steps = 0.0, False, 0
    while steps < 6 and not done:
        _, reward, done, _, _ = env.step(expert_action(env.decision, 2.0))
        so_far, steps = so_far + reward, steps + 1
    assert not done
    rest = returns_from_here(env)
    whole = teacher_returns(env.sim.jobs, env.sim.cluster)
    # the knee teacher played from the start = its first steps + the rest, played by it
    assert so_far + rest[2.0] == pytest.approx(whole[2.0])


def test_segments_relabel_an_episode_by_the_teacher_best_from_each_point_on():
    once = collect_demonstrations(6, SMALL, 0, 0.99, labelling=Labelling(segments=0))
    segmented = collect_demonstrations(6, SMALL, 0, 0.99, labelling=Labelling(segments=4))
    # the first segment is labelled as without segments: by the whole workload
    assert np.array_equal(once[3][0], segmented[3][0])

    def switches(regrets: np.ndarray) -> int:
        best = Labelling().weights(regrets).argmax(1)  # one teacher per state
        return int((best[1:] != best[:-1]).sum())

    # without segments the label changes only between episodes; with them also within
    assert switches(once[3]) <= 5 < switches(segmented[3])


A, B = 3, 7  # two teachers' actions


def _two_teachers() -> tuple:
    """One kind of state, two teachers. Teacher A is best on 60% of the workloads by 1%,
    teacher B on the other 40% by 16%: acting like B costs 0.6% on average, like A 6.4%."""
    obs = np.zeros((100, OBS_SIZE), np.float32)
    masks = np.zeros((100, N_ACTIONS), bool)
    masks[:, [A, B]] = True
    labels = np.tile([A, B], (100, 1))
    regrets = np.where(np.arange(100)[:, None] < 60, [0.0, 0.01], [0.16, 0.0]).astype(np.float32)
    return obs, masks, labels, regrets, np.zeros(100)


def _cloned_action(labelling: Labelling, data: tuple | None = None) -> int:
    data = data or _two_teachers()
    torch.manual_seed(0)
    model = ActorCritic(16)
    clone(model, data, epochs=60, lr=1e-2, seed=0, batch=50, labelling=labelling)
    logits, _ = model(torch.as_tensor(data[0][:1]), torch.as_tensor(data[1][:1]))
    return int(logits.argmax())


@pytest.mark.parametrize("labelling", [Labelling(0.02), Labelling(loss="expected-regret")],
                         ids=["regret-weighted", "expected-regret"])
def test_cloning_learns_the_least_regret_action_not_the_most_often_best(labelling):
    assert _cloned_action(labelling) == B


def test_cloning_each_states_best_teacher_learns_the_most_often_best():
    assert _cloned_action(Labelling(0.0, loss="cross-entropy")) == A


def test_the_expected_regret_loss_counts_a_shared_action_once_and_others_at_the_worst():
    """Three teachers, two of them on one action: that action costs the lesser regret;
    the student's mass on an action no teacher takes costs the worst teacher's."""
    from engine.drl.bc import REGRET_UNIT, _expected_regret

    actions = torch.tensor([[3, 3, 7]])
    regrets = torch.tensor([[0.04, 0.0, 0.10]])
    p = torch.tensor([[0.5, 0.5, 0.2]])  # P(3) = 0.5, P(7) = 0.2, the rest 0.3 elsewhere
    loss = _expected_regret(p.log(), actions, regrets)
    expected = (0.5 * 0.0 + 0.2 * 0.10 + 0.3 * 0.10) / REGRET_UNIT - 0.1 * math.log(0.5)
    assert float(loss) == pytest.approx(expected, rel=1e-5)


def test_an_unknown_loss_is_refused_by_name():
    with pytest.raises(ValueError, match="expected-regret"):
        Labelling(loss="hinge")
