"""Chart data and plotly figures for the app, built from engine results only.

The app's pages are thin views; everything they draw is assembled here so the same
figure can be rebuilt from a script or a notebook, and so it is tested without a UI.
Nothing here schedules anything: it only reshapes what the simulator recorded.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from engine.cluster import Cluster
from engine.policies.base import RunningJob

PALETTE: tuple[str, ...] = (
    "#2E6FDB", "#E8743B", "#19A979", "#ED4A7B", "#945ECF", "#13A4B4",
    "#525DF4", "#BF399E", "#6C8893", "#EE6868", "#2F6497", "#D4A017",
)
"""Colours shared by every chart, so one model or policy keeps its colour everywhere."""

LAYOUT: dict[str, Any] = {
    "template": "plotly_white",
    "margin": {"l": 10, "r": 10, "t": 40, "b": 10},
    "legend": {"orientation": "h", "y": -0.2},
    "font": {"size": 13},
}


def colour_map(names: Iterable[str]) -> dict[str, str]:
    """A stable colour per name, in first-seen order."""
    return {name: PALETTE[i % len(PALETTE)] for i, name in enumerate(dict.fromkeys(names))}


def _styled(fig: go.Figure, title: str, **layout: Any) -> go.Figure:
    fig.update_layout(**{**LAYOUT, "title": {"text": title, "x": 0}, **layout})
    return fig


def hours(seconds: float) -> str:
    """Seconds as the short human unit a metric card shows (s, min or h)."""
    if not math.isfinite(seconds):
        return "–"
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.2f} h"


# -- the live Gantt chart --------------------------------------------------------------


class GpuRows:
    """Which physical GPU rows each run occupied, for drawing a per-GPU Gantt chart.

    The simulator only records ``(node, count)`` per run; a chart needs concrete GPU
    slots. Runs are fed in start order (as a live simulation produces them) and each
    takes the lowest free slots of its nodes, so the picture is stable frame to frame
    and only new runs cost anything.
    """

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self._free_at = [[-math.inf] * cluster.gpus_per_node for _ in range(cluster.nodes)]
        self.segments: list[tuple[int, int, int]] = []
        """``(job index, first GPU row, GPU count)``: contiguous slots of one run."""
        self.runs: dict[int, RunningJob] = {}

    def add(self, runs: Iterable[RunningJob]) -> None:
        """Assign slots to the runs not seen yet (in start order)."""
        fresh = sorted(
            (r for r in runs if r.job.index not in self.runs),
            key=lambda r: (r.start, r.job.index),
        )
        gpn = self.cluster.gpus_per_node
        for run in fresh:
            self.runs[run.job.index] = run
            for node, count in run.placement:
                free_at = self._free_at[node]
                slots = [s for s in range(gpn) if free_at[s] <= run.start + 1e-9][:count]
                for slot in slots:
                    free_at[slot] = run.end
                for first, length in _contiguous(slots):
                    self.segments.append((run.job.index, node * gpn + first, length))


def _contiguous(slots: Sequence[int]) -> list[tuple[int, int]]:
    """``[0, 1, 2, 5]`` -> ``[(0, 3), (5, 1)]``: fewer, wider bars draw faster."""
    out: list[tuple[int, int]] = []
    for slot in slots:
        if out and out[-1][0] + out[-1][1] == slot:
            out[-1] = (out[-1][0], out[-1][1] + 1)
        else:
            out.append((slot, 1))
    return out


def gantt_figure(rows: GpuRows, now: float, colour_by: str = "model") -> go.Figure:
    """GPUs (rows, grouped by node) over time; running jobs are drawn up to ``now``.

    One bar trace per colour group keeps the figure light enough to redraw several
    times a second on a 64-GPU cluster with hundreds of jobs.
    """
    cluster = rows.cluster
    fig = go.Figure()
    groups: dict[str, dict[str, list]] = {}
    by_model = colour_by == "model"
    for index, first, length in rows.segments:
        run = rows.runs[index]
        end = min(run.end, now)
        if end <= run.start:
            continue
        key = run.job.model if by_model else "jobs"
        g = groups.setdefault(key, {"y": [], "x": [], "base": [], "width": [], "text": [],
                                    "colour": []})
        g["y"].append(first + length / 2 - 0.5)
        g["x"].append(end - run.start)
        g["base"].append(run.start)
        g["width"].append(length * 0.92)
        g["text"].append(
            f"{run.job.job_id} ({run.job.model}): {run.gpus} GPUs on {run.nodes} node(s)"
            + ("" if run.end <= now else ", running")
        )
        g["colour"].append(PALETTE[index % len(PALETTE)])
    colours = colour_map(sorted(groups))
    for key, g in groups.items():
        fig.add_trace(
            go.Bar(
                orientation="h",
                y=g["y"],
                x=g["x"],
                base=g["base"],
                width=g["width"],
                name=key,
                hovertext=g["text"],
                hoverinfo="text",
                marker={"color": colours[key] if by_model else g["colour"], "line_width": 0},
                showlegend=by_model,
            )
        )
    total = cluster.total_gpus
    gpn = cluster.gpus_per_node
    step = max(1, cluster.nodes // 16)
    fig.update_yaxes(
        range=[-0.5, total - 0.5],
        tickvals=[n * gpn + (gpn - 1) / 2 for n in range(0, cluster.nodes, step)],
        ticktext=[f"node {n}" for n in range(0, cluster.nodes, step)],
        showgrid=False,
        autorange="reversed",
    )
    for n in range(1, cluster.nodes):
        fig.add_hline(y=n * gpn - 0.5, line_width=0.5, line_color="#C8D0DC")
    fig.add_vline(x=now, line_dash="dot", line_color="#1B1F24")
    fig.update_xaxes(title="time (s)", range=[0, max(now, 1.0) * 1.02])
    return _styled(fig, f"GPUs over time ({cluster})", barmode="overlay", height=420,
                   bargap=0)


# -- timelines --------------------------------------------------------------------------


def timeline_figure(timelines: Mapping[str, pd.DataFrame], total_gpus: int) -> go.Figure:
    """Utilization and queue length over time, one line per run (policy)."""
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.08,
                        subplot_titles=("GPU utilization", "jobs waiting"))
    colours = colour_map(timelines)
    for name, tl in timelines.items():
        common = {"name": name, "line": {"shape": "hv", "color": colours[name], "width": 1.5},
                  "legendgroup": name}
        fig.add_trace(go.Scatter(x=tl["time"], y=tl["busy_gpus"] / total_gpus, **common),
                      row=1, col=1)
        fig.add_trace(go.Scatter(x=tl["time"], y=tl["queue"], showlegend=False, **common),
                      row=2, col=1)
    fig.update_yaxes(tickformat=".0%", range=[0, 1.05], row=1, col=1)
    fig.update_xaxes(title="time (s)", row=2, col=1)
    return _styled(fig, "", height=420, showlegend=len(timelines) > 1)


# -- workloads --------------------------------------------------------------------------


def arrivals_figure(frame: pd.DataFrame) -> go.Figure:
    """Jobs submitted per time bin, stacked by model: shows bursts a policy must absorb."""
    fig = go.Figure()
    colours = colour_map(sorted(frame["model"].unique()))
    bins = min(60, max(10, len(frame) // 5))
    span = float(frame["submit_time"].max()) if len(frame) else 0.0
    size = span / bins if span > 0 else 1.0
    for model, colour in colours.items():
        part = frame.loc[frame["model"] == model, "submit_time"]
        fig.add_trace(go.Histogram(x=part, name=model, marker_color=colour,
                                   xbins={"start": 0, "size": size}))
    fig.update_xaxes(title="submit time (s)")
    fig.update_yaxes(title="jobs")
    return _styled(fig, "Arrivals over time", barmode="stack", height=320)


def size_figure(frame: pd.DataFrame) -> go.Figure:
    """Job sizes: GPU-seconds of work on a log axis, and the GPUs users requested."""
    fig = make_subplots(rows=1, cols=2, subplot_titles=("work (GPU-hours, log)",
                                                        "requested GPUs"))
    work = np.log10(frame["runtime_1gpu"].to_numpy() / 3600.0)
    fig.add_trace(go.Histogram(x=work, nbinsx=30, marker_color=PALETTE[0], showlegend=False),
                  row=1, col=1)
    counts = frame["requested_gpus"].value_counts().sort_index()
    fig.add_trace(go.Bar(x=counts.index.astype(str), y=counts.to_numpy(),
                         marker_color=PALETTE[1], showlegend=False), row=1, col=2)
    ticks = np.arange(math.floor(work.min()), math.ceil(work.max()) + 1) if len(work) else []
    fig.update_xaxes(tickvals=ticks, ticktext=[f"{10.0**t:g}" for t in ticks], row=1, col=1)
    fig.update_xaxes(type="category", row=1, col=2)
    return _styled(fig, "Job sizes", height=320)


def model_mix_figure(frame: pd.DataFrame) -> go.Figure:
    """Share of jobs per speedup model."""
    counts = frame["model"].value_counts().sort_index()
    colours = colour_map(counts.index)
    fig = go.Figure(go.Pie(labels=counts.index, values=counts.to_numpy(), hole=0.45,
                           marker={"colors": [colours[m] for m in counts.index]},
                           sort=False))
    return _styled(fig, "Model mix", height=320)


def speedup_figure(table: pd.DataFrame, metric: str = "speedup") -> go.Figure:
    """Speedup (or efficiency) against GPUs, one curve per model, with ideal scaling."""
    fig = go.Figure()
    colours = colour_map(sorted(table["model"].unique()))
    for model, colour in colours.items():
        part = table[table["model"] == model].sort_values("gpus")
        fig.add_trace(go.Scatter(
            x=part["gpus"], y=part[metric], name=model, mode="lines+markers",
            line={"color": colour}, marker={"size": 5},
            customdata=part["nodes"],
            hovertemplate=f"{model}: %{{y:.2f}} on %{{x}} GPUs (%{{customdata}} nodes)"
            "<extra></extra>",
        ))
    if metric == "speedup" and len(table):
        top = int(table["gpus"].max())
        fig.add_trace(go.Scatter(x=[1, top], y=[1, top], name="ideal", mode="lines",
                                 line={"dash": "dot", "color": "#9AA5B1"}))
    fig.update_xaxes(title="GPUs", type="log", dtick=math.log10(2))
    fig.update_yaxes(title=metric, type="log" if metric == "speedup" else "linear")
    return _styled(fig, f"{metric.capitalize()} curves", height=360)


# -- comparing policies ----------------------------------------------------------------


def jct_bar_figure(
    means: pd.Series,
    low: pd.Series | None = None,
    high: pd.Series | None = None,
    lower_bound: float | None = None,
    highlight: str = "drl",
) -> go.Figure:
    """Average JCT per policy (best first), with 95% CIs and the no-contention bound."""
    order = means.sort_values().index
    colours = [PALETTE[0] if p == highlight else "#9AA5B1" for p in order]
    error = None
    if low is not None and high is not None:
        error = {"type": "data", "symmetric": False,
                 "array": (high[order] - means[order]).to_numpy(),
                 "arrayminus": (means[order] - low[order]).to_numpy()}
    fig = go.Figure(go.Bar(
        x=means[order].to_numpy() / 3600.0, y=list(order), orientation="h",
        marker_color=colours, error_x=error and {
            **error, "array": error["array"] / 3600.0,
            "arrayminus": error["arrayminus"] / 3600.0},
        hovertemplate="%{y}: %{x:.2f} h<extra></extra>",
    ))
    if lower_bound is not None and math.isfinite(lower_bound):
        fig.add_vline(x=lower_bound / 3600.0, line_dash="dash", line_color="#19A979",
                      annotation_text="lower bound", annotation_position="top")
    fig.update_xaxes(title="average JCT (hours)")
    fig.update_yaxes(autorange="reversed")
    return _styled(fig, "Average job completion time", height=80 + 38 * len(order),
                   showlegend=False)


def jct_cdf_figure(jobs: Mapping[str, pd.DataFrame]) -> go.Figure:
    """Empirical CDF of job completion times per policy (log time axis)."""
    fig = go.Figure()
    colours = colour_map(jobs)
    for name, table in jobs.items():
        jct = np.sort(table["jct"].dropna().to_numpy())
        fig.add_trace(go.Scatter(x=jct / 3600.0, y=np.arange(1, len(jct) + 1) / len(jct),
                                 name=name, line={"shape": "hv", "color": colours[name]}))
    fig.update_xaxes(title="JCT (hours, log)", type="log")
    fig.update_yaxes(title="fraction of jobs", tickformat=".0%")
    return _styled(fig, "JCT distribution", height=380)


def gpus_per_model_figure(jobs: Mapping[str, pd.DataFrame]) -> go.Figure:
    """Mean GPUs each policy gave each model: how much it molds jobs to their scaling."""
    rows = [
        {"policy": name, "model": model, "gpus": gpus}
        for name, table in jobs.items()
        for model, gpus in table.groupby("model")["gpus"].mean().items()
    ]
    data = pd.DataFrame(rows, columns=["policy", "model", "gpus"])
    fig = go.Figure()
    colours = colour_map(jobs)
    for name in jobs:
        part = data[data["policy"] == name]
        fig.add_trace(go.Bar(x=part["model"], y=part["gpus"], name=name,
                             marker_color=colours[name]))
    fig.update_yaxes(title="mean GPUs given")
    return _styled(fig, "GPUs given per model", barmode="group", height=380)


def sweep_figure(sweep: pd.DataFrame) -> go.Figure:
    """Threshold-optimal's tuning sweep: average JCT against threshold T per signal."""
    fig = go.Figure()
    colours = colour_map(sweep["signal"].unique())
    for signal, colour in colours.items():
        part = sweep[sweep["signal"] == signal].sort_values("T")
        fig.add_trace(go.Scatter(x=part["T"], y=part["avg_jct"] / 3600.0, name=str(signal),
                                 mode="lines+markers", line={"color": colour}))
    best = sweep.loc[sweep["avg_jct"].idxmin()]
    fig.add_trace(go.Scatter(
        x=[best["T"]], y=[best["avg_jct"] / 3600.0], mode="markers+text", name="optimum",
        marker={"symbol": "star", "size": 16, "color": "#ED4A7B"},
        text=[f"T={best['T']:g}"], textposition="top center",
    ))
    fig.update_xaxes(title="threshold T")
    fig.update_yaxes(title="average JCT (hours)")
    return _styled(fig, "Threshold sweep", height=360)


def learning_curve_figure(history: pd.DataFrame, x: str, y: Sequence[str]) -> go.Figure:
    """Training progress: the chosen metrics against iterations."""
    fig = go.Figure()
    colours = colour_map(y)
    for column in y:
        fig.add_trace(go.Scatter(x=history[x], y=history[column], name=column,
                                 mode="lines+markers", line={"color": colours[column]}))
    fig.update_xaxes(title=x)
    return _styled(fig, "Learning curve", height=340)


# -- the decision log ------------------------------------------------------------------


def format_info(info: Mapping[str, Any] | None, top: int = 3) -> str:
    """A policy's explanation of one decision, short enough for a table cell.

    Probabilities (a mapping of action -> probability, or a list of pairs) are shown
    as the ``top`` most likely actions; other values are shown as ``key=value``.
    """
    if not info:
        return ""
    parts = []
    for key, value in info.items():
        pairs = _probability_pairs(value)
        if pairs is not None:
            best = sorted(pairs, key=lambda p: -p[1])[:top]
            parts.append(f"{key}: " + ", ".join(f"{a} {p:.0%}" for a, p in best))
        elif isinstance(value, float):
            parts.append(f"{key}={value:.3g}")
        else:
            parts.append(f"{key}={value}")
    return "; ".join(parts)


def _probability_pairs(value: Any) -> list[tuple[Any, float]] | None:
    if isinstance(value, Mapping) and value and all(
        isinstance(v, float | int) for v in value.values()
    ):
        return [(k, float(v)) for k, v in value.items()]
    if (isinstance(value, list | tuple) and value and all(
            isinstance(v, list | tuple) and len(v) == 2 for v in value)):
        return [(a, float(p)) for a, p in value]
    return None


def decision_log(decisions: Sequence[Any], last: int = 50) -> pd.DataFrame:
    """The latest scaling decisions, newest first, as the table the app shows."""
    recent = decisions[-last:][::-1]
    return pd.DataFrame(
        {
            "time (s)": [round(d.time, 1) for d in recent],
            "job": [d.job.job_id for d in recent],
            "model": [d.job.model for d in recent],
            "requested": [d.job.requested_gpus for d in recent],
            "GPUs chosen": [d.gpus for d in recent],
            "nodes": [d.nodes for d in recent],
            "free before": [d.free for d in recent],
            "why": [format_info(d.info) for d in recent],
        }
    )
