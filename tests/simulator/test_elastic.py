"""Hand-computed preemptive and malleable runs on 1 node x 4 GPUs, restart delays included."""

from __future__ import annotations

import pytest
from factories import make_job

from engine.cluster import Cluster
from engine.job import with_mode
from engine.policies import make_policy
from engine.protocol import Allocation, Policy, SchedulerView
from engine.simulator import PolicyError, SimulationStalled, Simulator, make_simulator, simulate
from engine.simulator.elastic import ElasticSimulator

ONE_NODE = Cluster(1, 4)


class Script(Policy):
    """Does at each listed instant exactly what the test says: ``{time: [(job, gpus)]}``."""

    name = "script"
    preemptive = True
    resizes = True
    interval = 10.0  # a tick every 10 s, so a plan may act between events

    def __init__(self, plan: dict[float, list[tuple[int, int]]]) -> None:
        self.plan = plan

    def schedule(self, view: SchedulerView) -> list[Allocation]:
        jobs = {job.index: job for job in view.waiting}
        jobs |= {run.job.index: run.job for run in view.running}
        return [Allocation(jobs[i], gpus) for i, gpus in self.plan.get(view.time, [])]


def _jct(result, job_id):
    return float(result.jobs.set_index("job_id").loc[job_id, "jct"])


def test_preempted_job_resumes_after_the_restart_delay():
    # A: 800 s of 1-GPU work on 4 GPUs, ends at 200 unless preempted. At t=100 B (40 s
    # of work, 4 GPUs) preempts it: A has done 400. B ends at 110; A resumes at 110,
    # holds its GPUs 30 s without progress, then needs 400 / 4 = 100 s: ends at 240.
    jobs = [make_job(0, 0, 800), make_job(1, 100, 40)]
    plan = {0: [(0, 4)], 100: [(0, 0), (1, 4)], 110: [(0, 4)]}
    result = simulate(jobs, ONE_NODE, Script(plan))
    assert _jct(result, "j0") == pytest.approx(240)
    assert _jct(result, "j1") == pytest.approx(10)
    table = result.jobs.set_index("job_id")
    assert table.loc["j0", "preemptions"] == 1 and table.loc["j0", "resizes"] == 0
    # GPU-seconds held: 4 x 100 before, 4 x 130 after (the delay holds GPUs); B 4 x 10.
    assert table.loc["j0", "gpu_seconds"] == pytest.approx(920)
    assert result.summary.utilization == pytest.approx((920 + 40) / (4 * 240))


def test_malleable_job_shrinks_and_grows_paying_each_delay():
    # A (malleable, 400 s of work) on 4 GPUs would end at 100. At t=40 it has done 160
    # and shrinks to 2: ready at 70, 240 left at 2/s -> end 190. B (100 s, 2 GPUs) starts
    # at 40 with no start delay and ends at 90. A grows back to 4 at 90: 20 s x 2 = 40
    # more done (200 left), ready at 120, 200 / 4 = 50 s -> ends at 170.
    jobs = [with_mode(make_job(0, 0, 400), "malleable"), make_job(1, 40, 100)]
    plan = {0: [(0, 4)], 40: [(0, 2), (1, 2)], 90: [(0, 4)]}
    result = simulate(jobs, ONE_NODE, Script(plan))
    assert _jct(result, "j0") == pytest.approx(170)
    assert _jct(result, "j1") == pytest.approx(50)
    assert result.jobs.set_index("job_id").loc["j0", "resizes"] == 2
    segments = result.extras["segments"]
    assert segments["work"].sum() == pytest.approx(500)


def test_resizing_again_during_the_delay_makes_no_progress():
    # A (malleable, 400) shrinks to 2 at t=10 (done 40), ready at 40; regrown to 4 at
    # t=20, inside the delay: no progress, ready at 50, 360 / 4 = 90 -> ends at 140.
    jobs = [with_mode(make_job(0, 0, 400), "malleable")]
    result = simulate(jobs, ONE_NODE, Script({0: [(0, 4)], 10: [(0, 2)], 20: [(0, 4)]}),
                      restart_delay=30)
    assert _jct(result, "j0") == pytest.approx(140)


def test_start_delay_and_restart_delay_are_configurable():
    jobs = [make_job(0, 0, 800), make_job(1, 100, 40)]
    plan = {0: [(0, 4)], 100: [(0, 0), (1, 4)], 115: [(0, 4)]}
    result = simulate(jobs, ONE_NODE, Script(plan), restart_delay=0, start_delay=5)
    # A starts at 5, has done 380 at 100; B starts at 100, ready 105, ends 115; A
    # resumes at 115 with no delay: 420 / 4 = 105 -> 220.
    assert _jct(result, "j0") == pytest.approx(220)
    assert _jct(result, "j1") == pytest.approx(15)


def test_only_malleable_jobs_resize_and_only_preemptive_policies_preempt():
    jobs = [make_job(0, 0, 400)]
    with pytest.raises(PolicyError, match="only malleable"):
        simulate(jobs, ONE_NODE, Script({0: [(0, 4)], 10: [(0, 2)]}))

    class Polite(Script):
        preemptive = False

    with pytest.raises(PolicyError, match="may not preempt"):
        simulate(jobs, ONE_NODE, Polite({0: [(0, 4)], 10: [(0, 0)]}))


def test_rigid_jobs_run_exactly_their_request():
    job = with_mode(make_job(0, 0, 400, requested=2), "rigid")
    assert (job.min_gpus, job.max_gpus) == (2, 2)
    assert simulate([job], ONE_NODE, make_policy("knee")).jobs["gpus"].tolist() == [2]
    with pytest.raises(PolicyError, match=r"accepts 2\.\.2"):
        simulate([job], ONE_NODE, Script({0: [(0, 4)]}))


def test_a_tick_policy_is_called_on_multiples_of_its_interval_only():
    seen: list[float] = []

    class Ticker(Policy):
        name = "ticker"
        interval = 60.0
        on_events = False

        def schedule(self, view: SchedulerView) -> list[Allocation]:
            seen.append(view.time)
            return [Allocation(job, 1) for job in view.waiting]

    # Arrives at 53 -> starts at the 60 s tick, ends at 160; the 120 arrival starts at
    # once (its instant is a tick's); nothing is called at 130 or 160 (not ticks); the
    # 180 tick is the last, as nothing is left after it.
    jobs = [make_job(0, 53, 100), make_job(1, 120, 10)]
    result = simulate(jobs, ONE_NODE, Ticker())
    assert list(result.jobs["start"]) == [60, 120]
    assert seen == [60, 120, 180]


def test_stall_is_reported_for_a_tick_policy_that_starts_nothing():
    class Idle(Policy):
        name = "idle"
        interval = 60.0

        def schedule(self, view: SchedulerView) -> list[Allocation]:
            return []

    with pytest.raises(SimulationStalled):
        simulate([make_job(0, 0, 10)], ONE_NODE, Idle())


def test_moldable_policies_keep_the_moldable_simulator():
    jobs = [make_job(i, 10 * i, 100 + i, requested=2) for i in range(6)]
    sim = make_simulator(jobs, ONE_NODE, make_policy("fifo-request"))
    assert type(sim) is Simulator
    assert type(make_simulator(jobs, ONE_NODE, Script({}))) is ElasticSimulator


@pytest.mark.parametrize("name", ["tiresias", "optimus-elastic", "pollux-like"])
def test_a_clock_too_coarse_for_the_round_stops_at_once(name: str) -> None:
    # Past 1e17 s a float steps by more than a 60 s round: the next tick was "now"
    # again, forever, with memory growing. Jobs are refused there; a tick that cannot
    # advance is refused too, whoever built the jobs.
    with pytest.raises(PolicyError, match="outside"):
        simulate([make_job(0, 1.7e18, 3600)], ONE_NODE, make_policy(name))
    sim = ElasticSimulator([make_job(0, 0.0, 3600)], ONE_NODE, make_policy(name))
    sim.now = 1.7e18
    sim.waiting[0] = sim.jobs[0]
    with pytest.raises(SimulationStalled, match="cannot step"):
        sim._arm_tick()
