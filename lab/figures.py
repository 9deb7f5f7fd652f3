"""Chart data and plotly figures for the app, built from engine results only.

The app's pages are thin views; everything they draw is assembled here so the same
figure can be rebuilt from a script or a notebook, and so it is tested without a UI.
Nothing here schedules anything: it only reshapes what the simulator recorded.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from engine.cluster import Cluster
from engine.policies import display_name, policy_entry
from engine.protocol import RunningJob
from engine.simulator.results import Decision, decision_table
from engine.speedup.table import speedup_table
from engine.units import HOUR, TimeUnit, unit_for
from engine.workload.models import speedup_models

PALETTE: tuple[str, ...] = (
    "#2E6FDB", "#E8743B", "#19A979", "#ED4A7B", "#945ECF", "#13A4B4",
    "#525DF4", "#BF399E", "#6C8893", "#EE6868", "#2F6497", "#D4A017",
)
"""Colours for single-series charts and signals."""
SPARE: tuple[str, ...] = ("#111111", "#D4A017", "#BF399E", "#6C8893", "#19A979", "#EE6868")
"""Colours for names without a fixed one (trained policies, metrics): none near drl's blue."""

POLICY_COLOURS: dict[str, str] = {
    "drl": "#1F4FD1", "threshold-optimal": "#E66100", "fifo-request": "#4D4D4D",
    "fifo-backfill": "#A6761D", "mesos-offer": "#7B3294", "elastic-fifo": "#17BECF",
    "knee": "#1B9E3E", "sjf-knee": "#B8B800", "optimus": "#E377C2", "afs-l": "#C0262D",
    "threshold-free": "#9E9E9E", "threshold-queue": "#C2A5CF",
}
"""One colour per policy on every page: ``drl`` is always the same blue, no two alike."""
_DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")


def _nth(name: str) -> int:
    """A policy's fixed place (its colour's), so its dash never changes."""
    order = list(POLICY_COLOURS)
    return order.index(name) if name in order else len(order) + sum(map(ord, name))


def dash(name: str) -> str:
    """A policy's line dash, so lines are told apart without colour (``drl``: solid)."""
    return "solid" if name == "drl" else _DASHES[1 + _nth(name) % (len(_DASHES) - 1)]


_SYMBOLS = ("circle", "square", "diamond", "triangle-up", "x", "cross", "star",
            "triangle-down", "pentagon", "hexagon", "star-diamond", "hourglass")


def marker(name: str) -> dict[str, Any]:
    """A policy's marker: its own symbol, drawn a dozen times along its line (and in the
    legend), so lines are told apart without colour where dashes look alike."""
    return {"symbol": _SYMBOLS[_nth(name) % len(_SYMBOLS)], "size": 9, "maxdisplayed": 12}


MAX_LINES = 4
"""Policies one chart may overlay as lines. More are drawn as small multiples, a panel
per policy in the order given (best first): twelve lines, even dashed and marked, cannot
be told apart from the back row, and their legend would crowd out the plot."""

MODEL_COLOURS: dict[str, str] = {
    "bert": "#2E6FDB", "cifar10": "#E8743B", "deepspeech2": "#19A979", "imagenet": "#ED4A7B",
    "ncf": "#945ECF", "yolov3": "#13A4B4", "amdahl": "#6C8893", "downey": "#D4A017",
    "linear": "#BF399E",
}
"""One colour per speedup model, whatever models a chart happens to show."""
INK = "#1B1F24"
GRID = "#DDE3EA"

_AXIS = {"gridcolor": GRID, "linecolor": INK, "zerolinecolor": GRID, "ticks": "outside",
         "tickcolor": INK, "tickfont": {"color": INK}, "title": {"font": {"color": INK}},
         "automargin": True}
TEMPLATE: dict[str, Any] = {"layout": {
    "font": {"size": 16, "color": INK, "family": "Source Sans Pro, Arial, sans-serif"},
    "title": {"font": {"size": 20, "color": INK}},
    "paper_bgcolor": "#FFFFFF", "plot_bgcolor": "#FFFFFF",
    "xaxis": _AXIS, "yaxis": _AXIS, "colorway": list(PALETTE),
    "hoverlabel": {"font": {"size": 16}},
    "legend": {"font": {"size": 16, "color": INK}},
}}
"""The one plotly template of the app, for a projector: 16 px text, dark ticks, light grid.

A plain dict (not a registered name) so the unvalidated live figures carry it too."""

LAYOUT: dict[str, Any] = {
    "template": TEMPLATE,
    "margin": {"l": 10, "r": 10, "t": 90, "b": 10},
    # maxheight 1: a legend may take the whole height, never a scroll box of 9 of 12
    "legend": {"orientation": "h", "yanchor": "bottom", "y": 1.0, "x": 0, "maxheight": 1.0},
}
"""Titles at the top, the legend between title and plot: never over an axis title."""

LEGEND_ROW_PX = 24
"""A legend row's height (16 px text)."""


def with_legend(height: int, entries: int, per_row: int = 1) -> int:
    """``height`` grown by a legend's rows (``per_row`` entries fit on one: a half-width
    chart fits one policy name), so that a legend of 12 policies neither scrolls nor
    squeezes the plot to a strip."""
    return height + (LEGEND_ROW_PX * math.ceil(entries / per_row) if entries > 1 else 0)


def colour_map(names: Iterable[str]) -> dict[str, str]:
    """A colour per name: the fixed one of a policy or model, else the palette in order."""
    spare = (c for c in SPARE * 8)
    return {name: POLICY_COLOURS.get(name) or MODEL_COLOURS.get(name) or next(spare)
            for name in dict.fromkeys(names)}


def label(name: str) -> str:
    """A policy's name on a chart: its title (short enough for a phone's legend)."""
    entry = policy_entry(name)
    return entry.title if entry else name


_CHECKED_TEMPLATE = go.layout.Template(TEMPLATE)
""":data:`TEMPLATE` validated once: a validated figure handed the dict validates all of it
again (about 25 ms a chart, most of a page's server time when a class opens it at once)."""


def _styled(fig: go.Figure, title: str, **layout: Any) -> go.Figure:
    fig.update_layout(**{**LAYOUT, "template": _CHECKED_TEMPLATE,
                         "title": {"text": title, "x": 0}, **layout})
    return fig


def duration(seconds: float) -> str:
    """A lone time (a card, the decision log) in the unit its own scale reads best in;
    where several times share a page, pass them one :class:`TimeUnit` instead."""
    return unit_for(seconds).format(seconds)


# -- the live Gantt chart --------------------------------------------------------------


@dataclass(slots=True)
class Span:
    """One segment of a job on fixed GPUs: held from ``run.start``, making progress from
    ``ready`` (a resumed or resized job first restores its checkpoint), until ``end``.

    ``end`` is the planned end while the segment runs and becomes the real one when a
    preemption or a resize cuts it short; every GPU block of the segment shares it.
    """

    run: RunningJob
    ready: float
    end: float


class GpuRows:
    """Which physical GPU rows each run occupied, for drawing a per-GPU Gantt chart.

    The simulator only records ``(node, count)`` per run; a chart needs concrete GPU
    slots. Runs are fed in start order (as a live simulation produces them) and each
    takes the lowest free slots of its nodes, so the picture is stable frame to frame
    and only new runs cost anything. An elastic job has one run per segment: a resize
    or a resume starts a new one (:meth:`start`) after :meth:`cut` ended the old one, so its
    bar changes rows or breaks.
    """

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self._free_at = [[-math.inf] * cluster.gpus_per_node for _ in range(cluster.nodes)]
        self.segments: list[tuple[int, int, int]] = []
        """``(job index, first GPU row, GPU count)``: contiguous slots of one run."""
        self.spans: list[Span] = []
        """The span of each entry of :attr:`segments` (shared by one run's blocks)."""
        self.runs: dict[int, RunningJob] = {}
        """Each job's latest run (its end cut to the real one if it was cut)."""
        self._open: dict[int, tuple[Span, list[tuple[int, int]]]] = {}

    def add(self, runs: Iterable[RunningJob]) -> None:
        """Start the runs of jobs not seen yet, in start order (one run per job)."""
        for run in sorted((r for r in runs if r.job.index not in self.runs),
                          key=lambda r: (r.start, r.job.index)):
            self.start(run)

    def start(self, run: RunningJob, ready: float | None = None) -> None:
        """Give ``run`` (the job's newest segment) the lowest slots free at its start."""
        gpn = self.cluster.gpus_per_node
        span = Span(run, run.start if ready is None else ready, run.end)
        taken: list[tuple[int, int]] = []
        for node, count in run.placement:
            free_at = self._free_at[node]
            slots = [s for s in range(gpn) if free_at[s] <= run.start + 1e-9][:count]
            for slot in slots:
                free_at[slot] = run.end
            taken += [(node, slot) for slot in slots]
            for first, length in _contiguous(slots):
                self.segments.append((run.job.index, node * gpn + first, length))
                self.spans.append(span)
        self.runs[run.job.index] = run
        self._open[run.job.index] = (span, taken)

    def cut(self, index: int, at: float) -> None:
        """Job ``index``'s running segment ended at ``at`` (preempted, resized or done)."""
        span, taken = self._open.pop(index)
        span.end = at
        self.runs[index] = span.run._replace(end=at)
        for node, slot in taken:
            self._free_at[node][slot] = at


def _contiguous(slots: Sequence[int]) -> list[tuple[int, int]]:
    """``[0, 1, 2, 5]`` -> ``[(0, 3), (5, 1)]``: fewer, wider bars draw faster."""
    out: list[tuple[int, int]] = []
    for slot in slots:
        if out and out[-1][0] + out[-1][1] == slot:
            out[-1] = (out[-1][0], out[-1][1] + 1)
        else:
            out.append((slot, 1))
    return out


RESTART = "restarting"
"""The Gantt trace of restart delays: a resized or resumed job holds its GPUs unused."""
RESTART_COLOUR = "#E3E7EC"
RESTART_PATTERN = {"shape": "/", "fgcolor": "#6C8893", "size": 6, "solidity": 0.35}
"""Hatched light grey: a restart reads as held-but-idle GPUs, unlike any job colour."""


def gantt_figure(
    rows: GpuRows, now: float, colour_by: str = "model", span: float = 0.0
) -> go.Figure:
    """GPUs (rows, grouped by node) over time; running jobs are drawn up to ``now``.

    The live page redraws this several times a second, so it is built as one bar trace
    per colour group from plain lists, without plotly's per-property validation (the
    spec is fixed and tested, and validation costs more than the drawing data). The time
    unit follows ``max(now, span)`` (pass the last arrival), so it does not change while
    a run plays; ``layout.meta.clock`` is ``now`` in seconds, for the browser benchmark.
    An elastic job's segments are separate bars: a resize moves it to other rows, a
    preemption leaves a gap, and each restart delay is a hatched grey bar.
    """
    cluster = rows.cluster
    unit = unit_for(max(now, span))
    scale = unit.seconds
    groups: dict[str, dict[str, list]] = {}
    by_model = colour_by == "model"

    def bar(key: str, first: int, length: int, start: float, end: float, text: str,
            colour: str) -> None:
        g = groups.setdefault(key, {"y": [], "x": [], "base": [], "width": [], "text": [],
                                    "colour": []})
        g["y"].append(first + length / 2 - 0.5)
        g["x"].append((end - start) / scale)
        g["base"].append(start / scale)
        g["width"].append(length * 0.92)
        g["text"].append(text)
        g["colour"].append(colour)

    for (index, first, length), segment in zip(rows.segments, rows.spans, strict=True):
        run = segment.run
        end = min(segment.end, now)
        if end <= run.start:
            continue
        job = run.job
        where = f"{job.job_id} ({job.model}): {run.gpus} GPUs on {run.nodes} node(s)"
        ready = min(segment.ready, end)
        if ready > run.start:
            bar(RESTART, first, length, run.start, ready, f"{where}, restarting: no progress",
                RESTART_COLOUR)
        if end > ready:
            bar(job.model if by_model else "jobs", first, length, ready, end,
                where + ("" if segment.end <= now else ", running"),
                PALETTE[index % len(PALETTE)])
    colours = {**colour_map(groups), RESTART: RESTART_COLOUR}
    data = [
        {
            "type": "bar", "orientation": "h", "name": key, "y": g["y"], "x": g["x"],
            "base": g["base"], "width": g["width"], "hovertext": g["text"],
            "hoverinfo": "text", "showlegend": by_model or key == RESTART,
            "marker": {"color": colours[key] if by_model or key == RESTART else g["colour"],
                       "line": {"width": 0},
                       **({"pattern": RESTART_PATTERN} if key == RESTART else {})},
        }
        for key, g in sorted(groups.items())
    ]
    gpn, total = cluster.gpus_per_node, cluster.total_gpus
    step = max(1, cluster.nodes // 16)
    line = {"width": 0.5, "color": "#C8D0DC"}
    shapes = [
        {"type": "line", "xref": "paper", "x0": 0, "x1": 1, "y0": n * gpn - 0.5,
         "y1": n * gpn - 0.5, "line": line}
        for n in range(1, cluster.nodes)
    ]
    shapes.append({"type": "line", "yref": "paper", "y0": 0, "y1": 1, "x0": now / scale,
                   "x1": now / scale, "line": {"dash": "dot", "color": INK, "width": 2}})
    layout = {
        **LAYOUT,
        "title": {"text": f"GPUs over time ({cluster})", "x": 0},
        "barmode": "overlay", "bargap": 0, "height": 460, "shapes": shapes,
        "meta": {"clock": now},
        # fixed margins: automargin makes plotly lay the chart out twice per frame
        "margin": {"l": 80, "r": 10, "t": 90, "b": 60},
        "xaxis": {"title": {"text": f"time ({unit.symbol})"}, "automargin": False,
                  "range": [0, max(now, 1.0) / scale * 1.02]},
        "yaxis": {
            "range": [total - 0.5, -0.5], "showgrid": False, "automargin": False,
            "tickvals": [n * gpn + (gpn - 1) / 2 for n in range(0, cluster.nodes, step)],
            "ticktext": [f"node {n}" for n in range(0, cluster.nodes, step)],
        },
    }
    return go.Figure({"data": data, "layout": layout}, _validate=False)


# -- timelines --------------------------------------------------------------------------


def timeline_figure(timelines: Mapping[str, pd.DataFrame], total_gpus: int) -> go.Figure:
    """Utilization (top) and queue length (bottom) over time, one line per run (policy);
    more than :data:`MAX_LINES` runs are :func:`utilization_panels` instead.

    Built without validation, like :func:`gantt_figure`, because the live page redraws it.
    """
    if len(timelines) > MAX_LINES:
        return utilization_panels(timelines, total_gpus)
    colours = colour_map(timelines)
    unit = unit_for(max((float(tl["time"].max()) for tl in timelines.values() if len(tl)),
                        default=0.0))
    scale = unit.seconds
    several = len(timelines) > 1
    data = []
    for name, tl in timelines.items():
        line = {"shape": "hv", "color": colours[name], "width": 2.5, "dash": dash(name)}
        time = (tl["time"] / scale).to_numpy().tolist()
        common = {"type": "scatter", "mode": "lines+markers" if several else "lines",
                  "x": time, "name": label(name), "legendgroup": name, "line": line,
                  "marker": {**marker(name), "color": colours[name]}}
        data.append({**common, "y": (tl["busy_gpus"] / total_gpus).tolist(), "yaxis": "y"})
        data.append({**common, "y": tl["queue"].tolist(), "yaxis": "y2", "showlegend": False})
    layout = {
        **LAYOUT,
        "height": with_legend(420, len(timelines), per_row=4),
        "showlegend": several,
        "xaxis": {"title": {"text": f"time ({unit.symbol})"}, "anchor": "y2"},
        "yaxis": {"domain": [0.56, 1], "tickformat": ".0%", "range": [0, 1.05],
                  "title": {"text": "GPU utilization"}},
        "yaxis2": {"domain": [0, 0.44], "title": {"text": "jobs waiting"}, "rangemode": "tozero"},
    }
    return go.Figure({"data": data, "layout": layout}, _validate=False)


def busy_fraction(timeline: pd.DataFrame, total_gpus: int) -> float:
    """The time-weighted mean of a run's GPU utilization (its timeline is a step function)."""
    time = timeline["time"].to_numpy(dtype=float)
    if len(time) < 2 or time[-1] <= time[0]:
        return math.nan
    busy = timeline["busy_gpus"].to_numpy(dtype=float)[:-1]
    return float((busy * np.diff(time)).sum() / (time[-1] - time[0]) / total_gpus)


def _panels(titles: Sequence[str], cols: int = 2) -> go.Figure:
    """An empty grid of small multiples, one titled panel each, sharing both axes."""
    rows = math.ceil(len(titles) / cols)
    return make_subplots(rows=rows, cols=cols, shared_xaxes=True, shared_yaxes=True,
                         subplot_titles=list(titles), horizontal_spacing=0.06,
                         vertical_spacing=min(0.5 / max(rows, 1), 0.08))


def utilization_panels(timelines: Mapping[str, pd.DataFrame], total_gpus: int) -> go.Figure:
    """GPU utilization over time as small multiples: a panel per policy, in the order given,
    titled with its mean utilization and longest queue, so each reads on its own."""
    colours = colour_map(timelines)
    unit = unit_for(max((float(tl["time"].max()) for tl in timelines.values() if len(tl)),
                        default=0.0))
    titles = [f"{label(name)}: {busy_fraction(tl, total_gpus):.0%} busy, "
              f"up to {int(tl['queue'].max()) if len(tl) else 0} waiting"
              for name, tl in timelines.items()]
    fig = _panels(titles)
    for k, (name, tl) in enumerate(timelines.items()):
        fig.add_trace(go.Scatter(
            x=unit.of(tl["time"]), y=tl["busy_gpus"] / total_gpus, name=label(name),
            mode="lines", line={"shape": "hv", "color": colours[name], "width": 1.5},
            fill="tozeroy", hovertemplate="%{y:.0%}<extra>" + label(name) + "</extra>",
        ), row=k // 2 + 1, col=k % 2 + 1)
    fig.update_yaxes(tickformat=".0%", range=[0, 1.05], tickvals=[0, 0.5, 1])
    fig.update_xaxes(title=f"time ({unit.symbol})", row=math.ceil(len(titles) / 2))
    return _styled(fig, "GPU utilization over time, a panel per policy",
                   height=110 + 150 * math.ceil(len(titles) / 2), showlegend=False)


# -- workloads --------------------------------------------------------------------------


def arrivals_figure(frame: pd.DataFrame, unit: TimeUnit | None = None) -> go.Figure:
    """Jobs submitted per time bin, stacked by model: shows bursts a policy must absorb.

    Time is in ``unit`` (default: the one the arrivals' span reads best in)."""
    fig = go.Figure()
    colours = colour_map(sorted(frame["model"].unique()))
    bins = min(60, max(10, len(frame) // 5))
    span = float(frame["submit_time"].max()) if len(frame) else 0.0
    unit = unit or unit_for(span)
    size = unit.of(span) / bins if span > 0 else 1.0
    for model, colour in colours.items():
        part = unit.of(frame.loc[frame["model"] == model, "submit_time"])
        fig.add_trace(go.Histogram(x=part, name=model, marker_color=colour,
                                   xbins={"start": 0, "size": size}))
    fig.update_xaxes(title=f"submit time ({unit.symbol})")
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
    ticks = _round_ticks(work)
    if ticks:  # the range reaches the outer ticks, so at least two are drawn
        low, high = math.log10(ticks[0]), math.log10(ticks[-1])
        fig.update_xaxes(tickvals=np.log10(ticks), ticktext=[f"{t:g}" for t in ticks],
                         range=[min(low, float(work.min())) - 0.02,
                                max(high, float(work.max())) + 0.02], row=1, col=1)
    fig.update_xaxes(type="category", row=1, col=2)
    return _styled(fig, "Job sizes", height=320)


def _round_ticks(log10_values: np.ndarray) -> list[float]:
    """1-2-5 ticks (0.1, 0.2, 0.5, 1 …) across ``log10_values``' range: at least two, even
    when the values span less than a decade."""
    if not len(log10_values):
        return []
    low, high = float(np.min(log10_values)), float(np.max(log10_values))
    ticks = [m * 10.0**e for e in range(math.floor(low) - 1, math.ceil(high) + 1)
             for m in (1, 2, 5)]
    inside = [t for t in ticks if low - 1e-9 <= math.log10(t) <= high + 1e-9]
    if len(inside) >= 2:
        return inside
    below = [t for t in ticks if math.log10(t) < low]
    above = [t for t in ticks if math.log10(t) > high]
    return [*below[-1:], *inside, *above[:1]]


def model_mix_figure(frame: pd.DataFrame) -> go.Figure:
    """Share of jobs per speedup model."""
    counts = frame["model"].value_counts().sort_index()
    colours = colour_map(counts.index)
    fig = go.Figure(go.Pie(labels=counts.index, values=counts.to_numpy(), hole=0.45,
                           marker={"colors": [colours[m] for m in counts.index]},
                           sort=False))
    return _styled(fig, "Model mix", height=320)


def speedup_figure(table: pd.DataFrame, metric: str = "speedup",
                   title: str | None = None) -> go.Figure:
    """Speedup (or efficiency) against GPUs, one curve per model, with ideal scaling.

    A curve named ``"model, batch N"`` takes its model's colour, and a dash per batch; the
    chart grows by its legend's rows, so a workload's many batches never squeeze the plot.
    """
    fig = go.Figure()
    curves = sorted(table["model"].unique())
    colours = colour_map(name.split(",")[0] for name in curves)
    seen: dict[str, int] = {}
    for model in curves:
        base = model.split(",")[0]
        nth = seen[base] = seen.get(base, -1) + 1
        part = table[table["model"] == model].sort_values("gpus")
        fig.add_trace(go.Scatter(
            x=part["gpus"], y=part[metric], name=model, mode="lines+markers",
            line={"color": colours[base], "dash": _DASHES[nth % len(_DASHES)]},
            marker={"size": 5},
            customdata=part["nodes"],
            hovertemplate=f"{model}: %{{y:.2f}} on %{{x}} GPUs (%{{customdata}} nodes)"
            "<extra></extra>",
        ))
    if metric == "speedup" and len(table):
        top = int(table["gpus"].max())
        fig.add_trace(go.Scatter(x=[1, top], y=[1, top], name="ideal", mode="lines",
                                 line={"dash": "dot", "color": "#9AA5B1"}))
    top = int(table["gpus"].max()) if len(table) else 1
    doublings = [2**k for k in range(top.bit_length())]  # 1, 2, 4 … written in full
    fig.update_xaxes(title="GPUs", type="log", tickvals=doublings,
                     ticktext=[str(g) for g in doublings])
    if metric == "speedup":  # plotly's log ticks would write 20 and 50 as "2" and "5"
        fig.update_yaxes(title=metric, type="log", tickvals=doublings,
                         ticktext=[str(g) for g in doublings])
    else:
        fig.update_yaxes(title=metric)
    return _styled(fig, title or f"{metric.capitalize()} curves",
                   height=with_legend(360, len(fig.data)))


# -- comparing policies ----------------------------------------------------------------


def ci_whiskers(means: np.ndarray, half: np.ndarray) -> dict[str, Any]:
    """Error bars for ``means ± half`` (a 95% CI), the lower one stopped at zero: with two
    or three seeds a t interval can reach below zero, where no JCT lies, and a whisker
    drawn there claims a range that cannot happen. A missing half-width draws none."""
    half = np.nan_to_num(np.asarray(half, dtype=float))
    return {"type": "data", "symmetric": False, "array": half,
            "arrayminus": np.minimum(half, np.maximum(means, 0.0))}


def jct_bar_figure(
    means: pd.Series,
    ci95: pd.Series | None = None,
    lower_bound: float | None = None,
    highlight: str = "drl",
    unit: TimeUnit | None = None,
) -> go.Figure:
    """Average JCT per policy (best first), with 95% CIs and the no-contention bound, in
    ``unit`` (default: the one the largest bar reads best in)."""
    order = means.sort_values().index
    unit = unit or unit_for(float(means.max()) if len(means) else 0.0)
    error = None
    if ci95 is not None and ci95.notna().any():
        error = ci_whiskers(unit.of(means[order].to_numpy()), unit.of(ci95[order].to_numpy()))
    colours = colour_map(order)
    fig = go.Figure(go.Bar(
        x=unit.of(means[order].to_numpy()), y=[label(p) for p in order],
        orientation="h", marker_color=[colours[p] for p in order],
        marker_line={"color": INK, "width": [3 if p == highlight else 0 for p in order]},
        error_x=error, hovertemplate=f"%{{y}}: %{{x:.1f}} {unit.symbol}<extra></extra>",
    ))
    if lower_bound is not None and math.isfinite(lower_bound):
        fig.add_vline(x=unit.of(lower_bound), line_dash="dash", line_color="#19A979",
                      annotation_text="lower bound", annotation_position="top")
    fig.update_xaxes(title=f"average JCT ({unit.symbol})")
    fig.update_yaxes(autorange="reversed")
    return _styled(fig, "Average job completion time", height=90 + 30 * len(order),
                   showlegend=False)


def jct_cdf_figure(jobs: Mapping[str, pd.DataFrame], unit: TimeUnit = HOUR) -> go.Figure:
    """Empirical CDF of job completion times per policy (log time axis, in ``unit``); more
    than :data:`MAX_LINES` policies as small multiples, each panel against ``drl`` (or the
    first policy) drawn in grey."""
    colours = colour_map(jobs)
    curves = {}
    for name, table in jobs.items():
        jct = np.sort(table["jct"].dropna().to_numpy())
        curves[name] = (unit.of(jct), np.arange(1, len(jct) + 1) / max(len(jct), 1))
    if len(jobs) > MAX_LINES:
        reference = "drl" if "drl" in jobs else next(iter(jobs))
        others = [n for n in jobs if n != reference]
        fig = _panels([label(n) for n in others])
        for k, name in enumerate(others):
            where = {"row": k // 2 + 1, "col": k % 2 + 1}
            for shown, colour, width in ((reference, "#9AA5B1", 2), (name, colours[name], 2.5)):
                x, y = curves[shown]
                fig.add_trace(go.Scatter(x=x, y=y, name=label(shown), showlegend=False,
                                         line={"shape": "hv", "color": colour, "width": width}),
                              **where)
        fig.update_xaxes(type="log", dtick=1, minor={"showgrid": True})
        fig.update_xaxes(title=f"JCT ({unit.symbol}, log)", row=math.ceil(len(others) / 2))
        fig.update_yaxes(tickformat=".0%", tickvals=[0, 0.5, 1])
        return _styled(fig, f"JCT distribution, each policy against {label(reference)} "
                       "(grey)", height=110 + 170 * math.ceil(len(others) / 2),
                       showlegend=False)
    fig = go.Figure()
    for name, (x, y) in curves.items():
        fig.add_trace(go.Scatter(x=x, y=y, name=label(name), mode="lines+markers",
                                 line={"shape": "hv", "color": colours[name], "width": 2.5,
                                       "dash": dash(name)},
                                 marker={**marker(name), "color": colours[name]}))
    # one labelled tick per decade: plotly's default log ticks crowd a narrow chart
    fig.update_xaxes(title=f"JCT ({unit.symbol}, log)", type="log", dtick=1,
                     minor={"showgrid": True})
    fig.update_yaxes(title="fraction of jobs", tickformat=".0%")
    return _styled(fig, "JCT distribution", height=with_legend(440, len(jobs)))


def gpus_per_model_figure(jobs: Mapping[str, pd.DataFrame]) -> go.Figure:
    """Mean GPUs each policy gave each model: how much it molds jobs to their scaling.

    A table of numbers shaded by size, a row per policy named on the axis: told apart
    by name rather than colour, twelve policies read as well as two and need no legend.
    """
    means = pd.DataFrame({name: table.groupby("model")["gpus"].mean()
                          for name, table in jobs.items()}).T
    shown = means.to_numpy(dtype=float)
    fig = go.Figure(go.Heatmap(
        z=shown, x=list(means.columns), y=[label(n) for n in means.index],
        text=[[f"{v:.1f}" if math.isfinite(v) else "" for v in row] for row in shown],
        texttemplate="%{text}", textfont={"size": 16},
        colorscale=[[0, "#F2F5FA"], [1, "#7FA3E6"]], showscale=False,
        hovertemplate="%{y} gave %{x} %{z:.1f} GPUs on average<extra></extra>",
    ))
    fig.update_yaxes(autorange="reversed")
    fig.update_xaxes(side="top")
    return _styled(fig, "Mean GPUs given per model", height=110 + 34 * len(means),
                   showlegend=False)


def sweep_figure(sweep: pd.DataFrame, unit: TimeUnit = HOUR) -> go.Figure:
    """Threshold-optimal's tuning: average JCT against T, one panel per signal.

    ``sweep`` is the ``threshold_sweep`` table (``signal, T, avg_jct``), possibly from
    several seeds; seeds are averaged, and the T with the lowest mean is starred.
    """
    mean = sweep.groupby(["signal", "T"], as_index=False)["avg_jct"].mean()
    signals = list(dict.fromkeys(mean["signal"]))
    fig = make_subplots(rows=1, cols=len(signals), shared_yaxes=True,
                        subplot_titles=[f"signal: {s}" for s in signals])
    best = mean.loc[mean["avg_jct"].idxmin()]
    for col, signal in enumerate(signals, start=1):
        part = mean[mean["signal"] == signal].sort_values("T")
        fig.add_trace(go.Scatter(x=part["T"], y=unit.of(part["avg_jct"]), mode="lines+markers",
                                 name=str(signal), line={"color": PALETTE[col - 1]}),
                      row=1, col=col)
        low = part.loc[part["avg_jct"].idxmin()]
        star = low["signal"] == best["signal"] and low["T"] == best["T"]
        fig.add_trace(go.Scatter(
            x=[low["T"]], y=[unit.of(low["avg_jct"])], mode="markers+text",
            marker={"symbol": "star" if star else "circle", "size": 16 if star else 10,
                    "color": "#ED4A7B"},
            text=[f"T={low['T']:g}" + (" (optimum)" if star else "")],
            # away from the panel's edge it is nearer to, so the label is never cut off
            textposition="top right" if low["T"] <= part["T"].median() else "top left",
            showlegend=False,
        ), row=1, col=col)
        fig.update_xaxes(title="threshold T", row=1, col=col)
    fig.update_yaxes(title=f"average JCT ({unit.symbol})", row=1, col=1)
    fig.update_yaxes(showticklabels=True)  # every panel its numbers, though they share a scale
    return _styled(fig, "Threshold sweep", height=360, showlegend=False)


def learning_curve_figure(history: pd.DataFrame, x: str, y: Mapping[str, str]) -> go.Figure:
    """Training progress: the chosen metrics (column -> its name on the legend) against
    iterations."""
    fig = go.Figure()
    colours = colour_map(y)
    for column, name in y.items():
        part = history[[x, column]].dropna()  # validation runs only every few iterations
        fig.add_trace(go.Scatter(x=part[x], y=part[column], name=name,
                                 mode="lines+markers", line={"color": colours[column]}))
    fig.update_xaxes(title=x)
    fig.update_yaxes(title="avg JCT / lower bound (lower is better)")
    return _styled(fig, "Learning curve", height=340)


# -- the decision log ------------------------------------------------------------------


def format_info(info: Mapping[str, Any] | None) -> str:
    """A policy's explanation of one decision, short enough for a table cell.

    ``drl`` gives ``probabilities`` as ``(job, gpus, p)`` triples (its top actions) and
    the probability of waiting; those read as ``job×gpus p%`` (those that round to 0%
    left out). A ``rule`` is given in its own words; other values are shown as
    ``key=value``.
    """
    if not info:
        return ""
    parts = []
    for key, value in info.items():
        if key == "probabilities" and isinstance(value, list | tuple):
            parts.append(", ".join(f"{job}×{gpus} {p:.0%}" for job, gpus, p in value
                                   if p >= 0.005))  # "0%" choices only lengthen the cell
        elif key == "rule":
            parts.append(str(value))
        elif isinstance(value, float):
            parts.append(f"{key} {value:.0%}" if key == "wait" else f"{key}={value:.3g}")
        else:
            parts.append(f"{key}={value}")
    return "; ".join(parts)


def decision_log(
    decisions: Sequence[Decision], last: int = 50, before: Sequence[int] | None = None
) -> pd.DataFrame:
    """The latest scaling decisions, newest first, as the table the app shows.

    ``before`` (an elastic run's) gives, per decision, the GPUs the job held just before
    it; the table then says what each decision did (start, resume, resize, preempt) and
    from how many GPUs, with the simulator's ``action`` taken out of *why*.
    """
    shown = decisions[-last:][::-1]
    table = decision_table(shown)
    table["time"] = table["time"].map(duration)
    if before is None:
        table["info"] = table["info"].map(format_info)
        return table.rename(columns=DECISION_LABELS)
    infos = [dict(d.info or {}) for d in shown]
    table.insert(3, "action", [info.pop("action", "start") for info in infos])
    table.insert(5, "gpus_before", np.asarray(before[-last:][::-1], dtype=np.int64))
    table["info"] = [format_info(info) for info in infos]
    return table.rename(columns=DECISION_LABELS)


DECISION_LABELS = {
    "time": "time",
    "job_id": "job",
    "model": "model",
    "requested_gpus": "requested",
    "action": "action",
    "gpus_before": "GPUs before",
    "gpus": "GPUs chosen",
    "nodes": "nodes",
    "free_gpus": "free before",
    "info": "why",
}


def workload_speedup_table(frame: pd.DataFrame, cluster: Cluster) -> pd.DataFrame:
    """Speedup curves of the models a workload actually uses, with their parameters."""
    models, _ = speedup_models(frame)
    labels: dict[str, Any] = {}
    for model in models:
        label = model.name
        if getattr(model, "batch_size", None):  # a measured job scales at its own batch
            label = f"{model.name}, batch {model.batch_size:,}"
        if label in labels:
            label = f"{label} ({len(labels)})"
        labels[label] = model
    return speedup_table(labels, max_gpus=min(cluster.total_gpus, 256),
                         gpus_per_node=cluster.gpus_per_node)


def readable_summary(summary: pd.DataFrame, unit: TimeUnit | None = None) -> pd.DataFrame:
    """The comparison summary for a room: display names, units in the headers, each mean
    with its 95% confidence interval as ``mean ± half-width``.

    ``summary`` is ``engine.compare.summarize_comparison``'s table (seconds, fractions);
    times are in ``unit`` (default: the one the largest mean JCT reads best in). Few
    columns, so the table fits a phone: the makespan and the raw numbers are in the
    downloads.
    """
    unit = unit or unit_for(float(summary["avg_jct_mean"].max()) if len(summary) else 0.0)
    out = pd.DataFrame({"policy": summary["policy"].map(display_name)})
    for metric, name in (("avg_jct", "average JCT"), ("p95_jct", "p95 JCT")):
        out[f"{name} ({unit.symbol})"] = [
            f"{mean:,.2f}" + (f" ± {half:,.2f}" if math.isfinite(half) else "")
            for mean, half in zip(unit.of(summary[f"{metric}_mean"]),
                                  unit.of(summary[f"{metric}_ci95"]), strict=True)]
    out["utilization"] = [f"{u:.0%}" for u in summary["utilization_mean"]]
    out["runs"] = summary["runs"].to_numpy()
    return out


MODE_COLOURS: dict[str, str] = {"rigid": "#4D4D4D", "moldable": "#1F4FD1",
                                "malleable": "#19A979"}
"""One colour per job mode (``engine.job.MODES``): moldable in drl's blue, its best policy."""


def modes_bar_figure(best: pd.DataFrame, unit: TimeUnit | None = None) -> go.Figure:
    """Per job mode, its best policy's mean average JCT with its 95% CI, named on the bar.

    ``best`` is ``engine.modes.summarize_modes``'s table (one row per mode); times are in
    ``unit`` (default: the one the largest bar reads best in).
    """
    unit = unit or unit_for(float(best["avg_jct_mean"].max()) if len(best) else 0.0)
    error = None
    if best["avg_jct_ci95"].notna().any():
        error = ci_whiskers(unit.of(best["avg_jct_mean"].to_numpy()),
                            unit.of(best["avg_jct_ci95"].to_numpy()))
    fig = go.Figure(go.Bar(
        x=unit.of(best["avg_jct_mean"].to_numpy()),
        y=[f"<b>{m}</b><br>{label(p)}" for m, p in zip(best["mode"], best["policy"], strict=True)],
        orientation="h", marker_color=[MODE_COLOURS[m] for m in best["mode"]], error_x=error,
        hovertemplate=f"%{{y}}: %{{x:.1f}} {unit.symbol}<extra></extra>",
    ))
    upper = unit.of(float((best["avg_jct_mean"] + best["avg_jct_ci95"].fillna(0)).max()))
    fig.update_xaxes(title=f"average JCT of the best policy ({unit.symbol})",
                     range=[0, upper * 1.05])
    fig.update_yaxes(autorange="reversed")
    return _styled(fig, "What elasticity buys: the best policy of each job mode",
                   height=110 + 60 * len(best), showlegend=False)


def job_modes_sketch() -> go.Figure:
    """Three tiny Gantt charts of one job on a 4-GPU node, one per job mode.

    The same work (8 GPU-units, linear speedup) next to another job: rigid runs on its
    request (2 GPUs) to the end; moldable is given all 4 when it starts (here its
    scheduler waits for them rather than start on 2) and keeps them; malleable starts on
    2 and grows to 4 when the other job leaves, paying a restart (the dark sliver) at the
    resize.
    """
    sketches = {  # mode -> bars (first GPU, GPUs, start, end, colour, text)
        "rigid": [(0, 2, 0.0, 8.0, MODE_COLOURS["rigid"], "its request: 2"),
                  (2, 2, 0.0, 3.0, "#C7CDD4", "other job")],
        "moldable": [(0, 4, 3.0, 7.0, MODE_COLOURS["moldable"], "4, kept"),
                     (2, 2, 0.0, 3.0, "#C7CDD4", "other job")],
        "malleable": [(0, 2, 0.0, 3.0, MODE_COLOURS["malleable"], "2"),
                      (2, 2, 0.0, 3.0, "#C7CDD4", "other job"),
                      (0, 4, 3.0, 3.5, "#8A939C", ""),
                      (0, 4, 3.5, 6.0, MODE_COLOURS["malleable"], "grown to 4")],
    }
    fig = make_subplots(rows=1, cols=3, shared_yaxes=True, horizontal_spacing=0.04,
                        subplot_titles=list(sketches))
    for col, bars in enumerate(sketches.values(), 1):
        for first, gpus, start, end, colour, text in bars:
            fig.add_trace(go.Bar(
                x=[end - start], base=[start], y=[first + gpus / 2], width=[gpus * 0.95],
                orientation="h", marker_color=colour, text=[text], textposition="inside",
                insidetextanchor="middle", textangle=0, hoverinfo="skip",
            ), row=1, col=col)
        fig.update_xaxes(range=[0, 8.5], title="time", showticklabels=False, row=1, col=col)
    fig.update_yaxes(range=[0, 4], dtick=1, title="GPU", row=1, col=1)
    return _styled(fig, "One job, three modes", height=300, showlegend=False, barmode="overlay")
