"""Run budgets in the app: a run past the server's budget ends with one message on the page
(the limit, its value, what to do), no traceback, and the shared line free again."""

from __future__ import annotations

from dataclasses import replace

from apptest_helpers import open_app

from lab import line, runs

ENDLESS = ("submit_time,runtime_1gpu,model,requested_gpus\n"
           + "".join(f"{i},{29 * 86400},bert,1\n" for i in range(50))).encode()
"""Fifty 29-day jobs (a valid upload): four years of work on one GPU, so an elastic
policy's 60 s rounds would take hours."""


def tight(monkeypatch, **limits: float) -> None:
    monkeypatch.setattr(runs, "RUN_BUDGET", replace(runs.RUN_BUDGET, **limits))


def stopped(at) -> str:
    (error,) = [e.value for e in at.error]
    assert not at.exception
    assert "Traceback" not in error
    assert line.compare_line().busy == 0  # the line is free for everyone else
    return error


def test_job_modes_on_an_endless_upload_stop_with_the_budget_message(monkeypatch):
    tight(monkeypatch, events=5_000)
    at = open_app("workload", nodes=1, gpn=1)
    at.file_uploader(key="upload_csv").set_value(("endless.csv", ENDLESS, "text/csv")).run()
    at.switch_page("app_pages/compare.py").run()
    at.button(key="cmp_modes_run").click().run()
    error = stopped(at)
    assert "was stopped at this server's budget of 5,000 simulator events per run" in error
    assert "run it from the command line (python -m engine), which has no budget" in error
    assert not at.dataframe  # no half-made table


def test_a_comparison_past_its_wall_time_stops_with_one_message(monkeypatch):
    tight(monkeypatch, wall_s=0.001)
    at = open_app("compare", seed=41)  # a seed no other test computed: nothing stored
    at.multiselect(key="cmp_policies").set_value(["fifo-request", "sjf-knee"])
    at.button(key="cmp_run").click().run()
    error = stopped(at)
    assert "stopped at this server's budget of 0.001 s of computing" in error
    assert not at.warning  # one message, not one per policy left out


def test_the_home_demo_on_settings_of_ones_own_is_held_to_the_budget(monkeypatch):
    tight(monkeypatch, events=20)
    at = open_app(None, seed=43)
    at.button(key="home_run").click().run()
    assert "simulator events per run" in stopped(at)
