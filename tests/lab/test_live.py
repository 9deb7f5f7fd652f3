"""lab.live on hand-made elastic runs: Gantt segments, restarts, the log's from -> to, cards.

1 node x 4 GPUs, linear speedup, so every time is computed by hand (see
tests/policies/test_tiresias.py and test_afs_elastic.py for the same runs).
"""

from __future__ import annotations

import math

import pytest
from factories import make_job

from engine.cluster import Cluster
from engine.job import with_mode
from engine.policies import make_policy
from engine.simulator import make_simulator
from lab.figures import RESTART, GpuRows, decision_log, gantt_figure
from lab.live import LiveRun

ONE_NODE = Cluster(1, 4)


def played(policy: str, jobs: list) -> LiveRun:
    run = LiveRun((), make_simulator(jobs, ONE_NODE, make_policy(policy)), GpuRows(ONE_NODE))
    run.advance(10**9)
    assert run.finished and run.error is None
    return run


def spans(run: LiveRun, job_id: str) -> list[tuple[float, float, float, int, int]]:
    """``(start, ready, end, first row, rows)`` of each bar of a job, in start order."""
    return sorted(
        (span.run.start, span.ready, span.end, first, length)
        for (_, first, length), span in zip(run.rows.segments, run.rows.spans, strict=True)
        if span.run.job.job_id == job_id
    )


def tiresias_preempts() -> LiveRun:
    # A (4 GPUs, 20,000 s) is demoted at 14,400 s and preempted by B (600 s) at 15,000;
    # B ends at 15,600, when A resumes: 30 s restart, then its last 5,000 s.
    jobs = [make_job(0, 0, 80_000, requested=4), make_job(1, 15_000, 2_400, requested=4)]
    return played("tiresias", jobs)


def test_a_preemption_is_a_break_in_the_bar_and_the_restart_is_its_own_bar() -> None:
    run = tiresias_preempts()
    assert spans(run, "j0") == [(0, 0, 15_000, 0, 4), (15_600, 15_630, 20_630, 0, 4)]
    assert spans(run, "j1") == [(15_000, 15_000, 15_600, 0, 4)]
    fig = gantt_figure(run.rows, 21_000)
    restart = next(trace for trace in fig.data if trace.name == RESTART)
    assert list(restart.base) == [pytest.approx(15_600 / 3600)]
    assert list(restart.x) == [pytest.approx(30 / 3600)]
    assert restart.marker.pattern.shape == "/"
    jobs = [t for t in fig.data if t.name != RESTART]
    seconds = sorted((round(b * 3600), round((b + x) * 3600))
                     for t in jobs for b, x in zip(t.base, t.x, strict=True))
    assert seconds == [(0, 15_000), (15_000, 15_600), (15_630, 20_630)]


def test_the_log_lists_preemptions_and_resumes_with_from_and_to_gpus() -> None:
    run = tiresias_preempts()
    log = decision_log(run.sim.decisions, before=run.before)
    rows = log[["job", "action", "GPUs before", "GPUs chosen"]].values.tolist()
    assert rows == [["j0", "resume", 0, 4], ["j1", "start", 0, 4], ["j0", "preempt", 4, 0],
                    ["j0", "start", 0, 4]]
    assert log["why"].iloc[2] == "tiresias: preempted"
    assert "action" not in " ".join(log["why"])
    assert "action" not in decision_log(run.sim.decisions).columns  # moldable log unchanged


def test_a_resize_moves_the_bar_to_its_new_gpu_rows() -> None:
    # A alone on 4 GPUs; at B's arrival (40 s) A shrinks to k GPUs and B takes 4 - k; when
    # A ends, B grows back to 4. Each resize starts a new bar after a 30 s restart.
    jobs = [with_mode(make_job(i, t, w), "malleable")
            for i, (t, w) in enumerate(((0, 400), (40, 800)))]
    run = played("afs-elastic", jobs)
    (a0, a1), b = spans(run, "j0"), spans(run, "j1")
    k = a1[4]
    assert a0 == (0, 0, 40, 0, 4) and a1[:2] == (40, 70) and 1 <= k <= 3
    assert b[0][:2] == (40, 40) and b[0][4] == 4 - k  # a first start: no restart
    assert b[0][3] == k if a1[3] == 0 else b[0][3] == 0
    b_end = run.sim.result().jobs["end"].iloc[1]
    assert run.clock == run.last_end == b_end < run.sim.now  # not the superseded event's time
    assert b[1][:3] == (a1[2], a1[2] + 30, b_end) and b[1][3:] == (0, 4)
    log = decision_log(run.sim.decisions, before=run.before)
    resized = log[log["action"] == "resize"][["job", "GPUs before", "GPUs chosen"]]
    assert sorted(resized.values.tolist()) == [["j0", 4, k], ["j1", 4 - k, 4]]


def test_gpu_rows_never_overlap_in_an_elastic_run() -> None:
    jobs = [with_mode(make_job(i, 37 * i, 300 + 97 * i, requested=1 + i % 4), "malleable")
            for i in range(12)]
    run = played("optimus-elastic", jobs)
    busy: dict[int, list[tuple[float, float]]] = {}
    for (_, first, length), span in zip(run.rows.segments, run.rows.spans, strict=True):
        for row in range(first, first + length):
            for start, end in busy.get(row, []):
                assert span.end <= start + 1e-9 or end <= span.run.start + 1e-9
            busy.setdefault(row, []).append((span.run.start, span.end))
    held = sum(length * (span.end - span.run.start)
               for (_, _, length), span in zip(run.rows.segments, run.rows.spans, strict=True))
    assert held == pytest.approx(run.sim.result().jobs["gpu_seconds"].sum())


def test_cards_come_from_counters_and_match_the_result() -> None:
    run = tiresias_preempts()
    summary = run.sim.result().summary
    assert run.avg_jct == pytest.approx(summary.avg_jct)
    cards = {label: value for label, value, _ in run.cards(run.clock)}
    assert cards["jobs done"] == "2 / 2" and cards["GPUs busy"] == "0 / 4"
    assert cards["resizes / preemptions"] == "0 / 1"
    fresh = LiveRun((), make_simulator([make_job(0, 0, 10)], ONE_NODE, make_policy("knee")),
                    GpuRows(ONE_NODE))
    assert math.isnan(fresh.avg_jct)
    assert "resizes / preemptions" not in {label for label, _, _ in fresh.cards(0.0)}


def test_a_frame_interrupted_before_it_was_sent_does_not_move_the_clock() -> None:
    """Pause preempts the running frame fragment: the clock stays at the last frame sent."""
    jobs = [make_job(i, 60 * i, 600) for i in range(5)]
    run = LiveRun((), make_simulator(jobs, ONE_NODE, make_policy("knee")), GpuRows(ONE_NODE))
    run.play()
    start = run.wall
    assert run.tick(60, now=start + 0.5) == pytest.approx(30)
    run.commit()  # sent
    assert run.clock == pytest.approx(30)
    assert run.tick(60, now=start + 1.0) == pytest.approx(60)  # drawing when Pause comes
    run.pause(run.version)
    assert run.clock == pytest.approx(30)
    run.commit()  # nothing pending any more
    assert run.tick(60, now=start + 5) == pytest.approx(30)
    assert run.clock == pytest.approx(30)
