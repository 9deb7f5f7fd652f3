"""lab.figures: the Gantt slots are a valid picture of the run, and figures build."""

from __future__ import annotations

from engine.cluster import Cluster
from engine.policies import make_policy
from engine.run import run_policy
from engine.simulator import Simulator
from engine.workload import GeneratorConfig, generate, to_jobs
from lab.figures import GpuRows, format_info, gantt_figure, timeline_figure


def simulated(cluster: Cluster) -> Simulator:
    jobs = to_jobs(generate(GeneratorConfig(jobs=80, load=1.2), cluster), cluster)
    sim = Simulator(jobs, cluster, make_policy("sjf-knee"), 0)
    sim.run()
    return sim


def test_gpu_rows_never_overlap_and_cover_every_gpu_of_every_run() -> None:
    cluster = Cluster(4, 4)
    sim = simulated(cluster)
    rows = GpuRows(cluster)
    started = sorted(sim.finished, key=lambda run: run.start)
    rows.add(started[: len(started) // 2])  # incrementally in start order, as Live does
    rows.add(sim.finished)
    busy: dict[int, list[tuple[float, float]]] = {}
    per_node: dict[int, dict[int, int]] = {}
    for index, first, length in rows.segments:
        run = rows.runs[index]
        counts = per_node.setdefault(index, {})
        for row in range(first, first + length):
            counts[row // 4] = counts.get(row // 4, 0) + 1
            for start, end in busy.get(row, []):
                assert run.end <= start + 1e-9 or end <= run.start + 1e-9
            busy.setdefault(row, []).append((run.start, run.end))
    assert per_node == {run.job.index: dict(run.placement) for run in sim.finished}


def test_live_figures_build_without_validation_errors() -> None:
    cluster = Cluster(4, 4)
    sim = simulated(cluster)
    rows = GpuRows(cluster)
    rows.add(sim.finished)
    fig = gantt_figure(rows, sim.now / 2, colour_by="job")
    fig.to_dict()
    assert fig.data and all(bar.type == "bar" for bar in fig.data)
    result = run_policy("fifo-request", sim.jobs, cluster)
    assert len(timeline_figure({"a": result.timeline}, 16).data) == 2


def test_format_info_reads_drl_probabilities() -> None:
    info = {"probabilities": [("j1", 8, 0.7), ("j2", 4, 0.2)], "wait": 0.1}
    assert format_info(info) == "j1×8 70%, j2×4 20%; wait 10%"
    assert format_info(None) == ""


def test_every_figure_uses_the_projector_template_and_one_time_unit() -> None:
    import pandas as pd

    from lab import figures

    cluster = Cluster(4, 4)
    sim = simulated(cluster)
    rows = GpuRows(cluster)
    rows.add(sim.finished)
    result = run_policy("fifo-request", sim.jobs, cluster)
    built = [
        gantt_figure(rows, sim.now),
        timeline_figure({"drl": result.timeline, "fifo-request": result.timeline}, 16),
        figures.jct_cdf_figure({"drl": result.jobs}),
        figures.jct_bar_figure(pd.Series({"drl": 3600.0, "knee": 7200.0})),
    ]
    for fig in built:
        layout = fig.to_dict()["layout"]
        template = layout["template"]["layout"]
        assert template["font"]["size"] >= 16
        assert template["xaxis"]["tickfont"]["color"] == figures.INK
        assert layout["legend"]["yanchor"] == "bottom"  # above the plot, off the axis titles
    for fig in built[:2]:
        title = fig.to_dict()["layout"]["xaxis"]["title"]["text"]
        assert title in ("time (min)", "time (h)")
    assert "Deep-RL scheduler" in {t.name for t in built[1].data}


def test_each_policy_keeps_one_colour_whatever_else_is_drawn() -> None:
    from engine.policies import POLICIES
    from lab.figures import POLICY_COLOURS, colour_map

    assert set(POLICY_COLOURS) == set(POLICIES)
    assert len(set(POLICY_COLOURS.values())) == len(POLICY_COLOURS)
    assert colour_map(["drl"])["drl"] == colour_map(["knee", "afs-l", "drl"])["drl"]
    assert colour_map(["ncf"])["ncf"] == colour_map(["bert", "ncf"])["ncf"]
    assert colour_map(["drl", "trained-1"])["trained-1"] not in POLICY_COLOURS.values()


def test_a_rule_is_given_in_its_own_words() -> None:
    assert format_info({"rule": "AFS-L: every GPU re-dealt as a job arrived or ended"}) == (
        "AFS-L: every GPU re-dealt as a job arrived or ended")
    assert format_info({"rule": "knee", "free": 12}) == "knee; free=12"


def test_policies_are_told_apart_by_more_than_colour() -> None:
    """A projector washes colours out, and one student in twelve does not see them."""
    from engine.policies import POLICIES
    from lab import figures

    assert figures.dash("drl") == "solid"
    assert all(figures.dash(p) != "solid" for p in POLICIES if p != "drl")
    result = run_policy("fifo-request", simulated(Cluster(4, 4)).jobs, Cluster(4, 4))
    cdf = figures.jct_cdf_figure({"drl": result.jobs, "knee": result.jobs})
    assert [t.line.dash for t in cdf.data] == ["solid", figures.dash("knee")]


def test_log_axes_write_their_numbers_in_full() -> None:
    """Log axes labelled 20 and 50 as "2" and "5", and "work (GPU-hours, log)" had one tick."""
    import numpy as np
    import pandas as pd

    from lab import figures

    table = pd.DataFrame({"model": ["m"] * 7, "gpus": [1, 2, 4, 8, 16, 32, 64],
                          "nodes": [1] * 7, "speedup": [1, 1.9, 3.6, 7, 13, 24, 40]})
    layout = figures.speedup_figure(table).layout
    assert list(layout.yaxis.ticktext) == ["1", "2", "4", "8", "16", "32", "64"]
    assert list(layout.xaxis.ticktext) == list(layout.yaxis.ticktext)
    frame = pd.DataFrame({"runtime_1gpu": np.array([1.2, 1.5, 3.0]) * 3600.0,
                          "requested_gpus": [1, 2, 4]})
    ticks = figures.size_figure(frame).layout.xaxis.ticktext
    assert len(ticks) >= 2 and list(ticks) == ["1", "2", "5"]


def test_every_sweep_panel_has_its_numbers_and_the_optimum_label_stays_inside() -> None:
    import pandas as pd

    from lab import figures

    sweep = pd.DataFrame({"signal": ["free"] * 3 + ["queue"] * 3, "T": [0, 0.5, 1, 0, 2, 4],
                          "avg_jct": [100.0, 200, 300, 400, 500, 600]})
    fig = figures.sweep_figure(sweep)
    assert fig.layout.yaxis2.showticklabels
    (star,) = [t for t in fig.data if t.text and "optimum" in t.text[0]]
    assert star.textposition == "top right"  # T=0 is the left edge


def test_more_than_four_policies_are_small_multiples_never_a_tangle_of_lines() -> None:
    """Twelve overlaid lines (24 with the queue) could not be read from the back row."""
    from engine.policies import POLICIES
    from lab import figures

    cluster = Cluster(4, 4)
    result = run_policy("fifo-request", simulated(cluster).jobs, cluster)
    names = list(POLICIES)
    few = {n: result.timeline for n in names[:figures.MAX_LINES]}
    overlay = figures.timeline_figure(few, 16)
    looks = {(t["line"]["dash"], t["marker"]["symbol"]) for t in overlay.data}
    assert len(looks) == len(few)  # each line its own dash and marker, not colour alone
    many = {n: result.timeline for n in names}
    panels = figures.timeline_figure(many, 16)
    assert len(panels.data) == len(names)  # one line per panel, each panel titled
    assert len({(t.xaxis, t.yaxis) for t in panels.data}) == len(names)
    titles = [a.text for a in panels.layout.annotations]
    assert titles[0].startswith(figures.label(names[0]) + ": ") and "busy" in titles[0]
    cdf = figures.jct_cdf_figure({n: result.jobs for n in names})
    assert len({(t.xaxis, t.yaxis) for t in cdf.data}) == len(names) - 1  # each against drl
    assert all(len([t for t in cdf.data if (t.xaxis, t.yaxis) == axes]) == 2
               for axes in {(t.xaxis, t.yaxis) for t in cdf.data})


def test_gpus_per_model_is_a_table_of_numbers_one_row_per_policy() -> None:
    from lab import figures

    cluster = Cluster(4, 4)
    jobs = run_policy("fifo-request", simulated(cluster).jobs, cluster).jobs
    fig = figures.gpus_per_model_figure({"drl": jobs, "knee": jobs})
    (heatmap,) = fig.data
    assert list(heatmap.y) == [figures.label("drl"), figures.label("knee")]
    assert heatmap.text[0][0] == f"{jobs.groupby('model')['gpus'].mean().iloc[0]:.1f}"
    assert fig.layout.showlegend is False


def test_busy_fraction_weighs_each_step_by_its_duration() -> None:
    import pandas as pd

    from lab.figures import busy_fraction

    timeline = pd.DataFrame({"time": [0.0, 10.0, 40.0], "busy_gpus": [4, 2, 0]})
    assert busy_fraction(timeline, 4) == (4 * 10 + 2 * 30) / 40 / 4


def test_a_workloads_many_batches_keep_their_model_colour_and_a_plot_to_read() -> None:
    """Ten curves' legend squeezed Workload's speedup chart to 64 px, in repeated colours."""
    from lab import figures

    cluster = Cluster(4, 4)
    frame = generate(GeneratorConfig(jobs=200, seed=1), cluster).frame  # Pollux's batches
    fig = figures.speedup_figure(figures.workload_speedup_table(frame, cluster))
    curves = [t for t in fig.data if t.name != "ideal"]
    by_model: dict[str, list] = {}
    for curve in curves:
        by_model.setdefault(curve.name.split(",")[0], []).append(curve)
    assert len(curves) > len(by_model)  # some model runs at two batches
    for model, same in by_model.items():
        assert {c.line.color for c in same} == {figures.MODEL_COLOURS[model]}
        assert len({c.line.dash for c in same}) == len(same)
    assert fig.layout.height == figures.with_legend(360, len(fig.data))


def test_a_ci_whisker_never_reaches_below_zero_jct() -> None:
    """Two seeds: a t interval of 5 h ± 12.7 h would draw a whisker to -7.7 h."""
    import pandas as pd
    import pytest

    from lab import figures

    means = pd.Series({"drl": 5 * 3600.0, "fifo-backfill": 9 * 3600.0})
    ci95 = pd.Series({"drl": 12.7 * 3600.0, "fifo-backfill": 2 * 3600.0})
    best = pd.DataFrame({"mode": ["rigid", "moldable"], "policy": ["drl", "fifo-backfill"],
                         "avg_jct_mean": means.to_numpy(), "avg_jct_ci95": ci95.to_numpy()})
    for fig in (figures.jct_bar_figure(means, ci95), figures.modes_bar_figure(best)):
        bar = fig.data[0]
        lows = [x - minus for x, minus in zip(bar.x, bar.error_x.arrayminus, strict=True)]
        highs = [x + plus for x, plus in zip(bar.x, bar.error_x.array, strict=True)]
        assert sorted(lows) == pytest.approx([0, 7])  # hours
        assert sorted(highs) == pytest.approx([11, 17.7])  # the upper ends as computed
