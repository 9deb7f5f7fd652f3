"""App speed figures: first render per page, Compare on 500 jobs, live frames per second.

Run ``python bench/bench_app.py``. Targets: every page's first render under 3 s,
Compare of all policies on 500 jobs under 5 s, the live page at 5+ updates/s on 64 GPUs.
First renders are timed with AppTest in a process that has already imported the engine
(as a running server has); the one-off import cost is printed separately.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
PAGES = ("home", "workload", "live", "compare", "train", "about")
TIMEOUT = 120


def timed(action) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def app(page: str | None = None, **params: object):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    at.query_params.update({k: str(v) for k, v in params.items()})
    if page is not None:
        at.switch_page(f"app_pages/{page}.py")
    return at


def first_renders() -> None:
    print("first render per page (AppTest, fresh session, engine imported):")
    imported = timed(lambda: __import__("lab.runs"))
    app().run()  # Streamlit's own first-run setup, once per process
    print(f"  {'(one-off imports)':>18}: {imported:6.2f} s")
    for page in PAGES:
        at = app(page)
        seconds = timed(at.run)
        assert not at.exception, at.exception
        print(f"  {page:>18}: {seconds:6.2f} s  {'ok' if seconds < 3 else 'SLOW'}")
    at = app("home")
    at.run()
    seconds = timed(at.button(key="home_run").click().run)
    print(f"  {'home, Run the demo':>18}: {seconds:6.2f} s  (200 jobs, drl + every baseline)")


def compare_500() -> None:
    import streamlit as st

    st.cache_data.clear()
    at = app("compare", jobs=500)
    at.run()
    at.slider(key="cmp_seeds").set_value(1)
    seconds = timed(at.button(key="cmp_run").click().run)
    assert not at.exception, at.exception
    policies = len(at.dataframe[0].value)
    print(f"compare, {policies} policies x 500 jobs x 1 seed (cold cache): {seconds:.2f} s  "
          f"{'ok' if seconds < 5 else 'SLOW'}")


def live_frames() -> None:
    import pandas as pd
    import plotly.io
    import plotly.tools

    from engine.cluster import Cluster
    from engine.policies.drl import DrlPolicy
    from engine.simulator import Simulator
    from engine.workload import GeneratorConfig, generate, to_jobs
    from lab import figures

    cluster = Cluster(16, 4)
    jobs = to_jobs(generate(GeneratorConfig(jobs=500), cluster), cluster)
    sim = Simulator(jobs, cluster, DrlPolicy(), 0)
    rows = figures.GpuRows(cluster)
    clock, frames = 0.0, []
    while not sim.done:
        start = time.perf_counter()
        clock += 3600 * 0.2  # the live page's default speed, 1 simulated hour per second
        sim.run_until(clock)
        rows.add([*sim.finished, *sim.running.values()])
        figures.duration(sim.result().summary.avg_jct)  # the running-metrics cards
        timeline = pd.DataFrame(sim.timeline, columns=["time", "busy_gpus", "queue", "running"])
        for fig in (figures.gantt_figure(rows, clock),
                    figures.timeline_figure({"drl": timeline}, cluster.total_gpus)):
            spec = plotly.tools.return_figure_from_figure_or_data(fig, validate_figure=True)
            plotly.io.to_json(spec, validate=False)  # what st.plotly_chart sends
        figures.decision_log(sim.decisions)
        frames.append(time.perf_counter() - start)
    mean, worst = statistics.mean(frames), max(frames)
    p95 = statistics.quantiles(frames, n=20)[-1]
    print(f"live frame on 64 GPUs, drl, 500 jobs ({len(frames)} frames): mean "
          f"{mean * 1e3:.1f} ms, p95 {p95 * 1e3:.1f} ms, max {worst * 1e3:.1f} ms -> "
          f"{1 / p95:.0f} updates/s at p95  {'ok' if p95 < 0.2 else 'SLOW'}")


if __name__ == "__main__":
    first_renders()
    compare_500()
    live_frames()
