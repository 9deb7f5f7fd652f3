"""Widgets and layout pieces more than one page uses, written once."""

from __future__ import annotations

import json
import math
import re
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from engine.budget import RunBudget
from engine.errors import USER_ERRORS, describe
from engine.parallel import Progress
from engine.workload import WorkloadError
from lab import runs, state
from lab.figures import INK, duration, label
from lab.line import Line, Turn
from lab.plain import plain
from lab.scenarios import TIE, Change

T = TypeVar("T")

SHOWN_INLINE = 8
"""Problems spelt out in the error box; the full list is in the table under it."""


GLOSSARY: dict[str, str] = {
    "JCT": "Job completion time: when a job ends minus when it was submitted, so its time "
           "waiting in the queue plus its time running. *Average JCT* is the mean over all "
           "jobs; lower is better.",
    "offered load": "How busy the users' own requests would keep the cluster: the GPU time "
                    "they ask for per second of arrivals, over the cluster's GPUs. 1.0 means "
                    "work arrives as fast as the cluster can serve it. Arrivals are random, so "
                    "a generated workload's measured load is near, not exactly, its target "
                    "(1.00 may read 1.03).",
    "lower bound": "Each job alone on the empty cluster, on its best GPU count. No schedule's "
                   "average JCT can be lower; JCT / lower bound = 1 would be ideal.",
    "rigid": "A job runs on exactly the GPUs its user asked for.",
    "moldable": "The scheduler picks a job's GPU count when it starts; then it is fixed.",
    "malleable": "The scheduler may also resize a running job; each resize costs a restart.",
    "speedup": "How many times faster a job runs on n GPUs than on one; *efficiency* is "
               "speedup / n.",
    "95% CI": "95% confidence interval over the seeds: the mean's likely range, written "
              "mean ± half-width.",
    "tie": "No clear difference: the 95% confidence interval of the change includes zero "
           f"(or the change is under {TIE:.0%}).",
}
"""The words a lecture uses, one click from any page (the sidebar's Glossary)."""


READABLE_CSS = f"""<style>
[data-testid="stCaptionContainer"], [data-testid="stCaptionContainer"] p {{
  font-size: 1rem; color: {INK}; opacity: 1;
}}
@media (min-width: 641px) {{
  [data-testid="stTable"] :is(td, th):not(:last-child) p {{ white-space: nowrap; }}
}}
@media (max-width: 640px) {{
  [data-testid="stTable"] :is(td, th) {{ padding: 4px !important; }}
  [data-testid="stTable"] :is(td, th) p {{ overflow-wrap: anywhere !important; }}
}}
[data-testid="stElementContainer"]:has(> .stCacheSpinner) {{ height: auto !important; }}
[data-testid="stMultiSelect"] .react-aria-ComboBox > div,
[data-testid="stMultiSelectTagsContainer"] {{ max-height: none; overflow: visible; }}
[data-testid="stMultiSelect"] [data-tag] {{ height: auto; max-width: 100%; }}
[data-testid="stMultiSelect"] [data-tag] > span {{
  white-space: normal; overflow-wrap: anywhere; text-overflow: clip;
}}
</style>"""
"""Captions carry the result sentences, so they are read from the back row: 16 px, the
charts' ink (16:1 on white) rather than Streamlit's 14 px at 60% opacity.

Nothing is cut off. A table's short cells stay on one line and its last column (the
decision log's *why*) wraps; on a phone any cell may break a long name anywhere, so the
table narrows to the screen rather than hide its last columns. A multiselect grows to
show every chosen item, each name whole (Streamlit scrolls them, or ends a long name
in an ellipsis). A cached computation's spinner takes its own room: Streamlit drew it in
a box of no height, over the heading under it."""


CLOSE_SIDEBAR_JS = """<script>
if (!window.__labClosesSidebar) {
  window.__labClosesSidebar = true;
  document.addEventListener('click', event => {
    if (!event.target.closest('[data-testid="stSidebarNavLink"]')) return;
    if (!matchMedia('(max-width: 768px)').matches) return;
    const close = document.querySelector('[data-testid="stSidebarCollapseButton"] button');
    if (close) close.click();
  }, true);
}
</script>"""
"""On a phone the sidebar lies over the page; Streamlit left it open after a page link in
it was followed, so the new page's buttons could not be pressed (a click on Run
comparison timed out). A click on a page link now closes it, as a phone's menu does."""


PRESENTING_CSS = f"""<style>
html {{ font-size: 20px; }}
[data-testid="stSidebar"], [data-testid="stExpandSidebarButton"] {{ display: none; }}
[data-testid="stAlertContainer"] p {{ color: {INK}; }}
code {{ font-size: max(16px, 0.8em) !important; }}
</style>"""
"""Presentation mode: every rem-sized text a quarter larger (Streamlit's smallest, 0.875
rem, becomes 17.5 px; inline code, sized in em, at least 16 px), the sidebar hidden (the
pages are in a bar at the top), and the alerts' sentences in ink rather than their
tinted colours."""
CHART_FONT_PRESENTING = 20
"""The charts' text size in presentation mode (16 px otherwise)."""


def readable_text() -> None:
    """Apply :data:`READABLE_CSS` and :data:`CLOSE_SIDEBAR_JS` to the page, and
    :data:`PRESENTING_CSS` when presenting (they take no room; the script installs its
    listener once per browser tab)."""
    css = READABLE_CSS + (PRESENTING_CSS if state.presenting() else "")
    st.html(css + CLOSE_SIDEBAR_JS, unsafe_allow_javascript=True)


def presentation_switch() -> None:
    """Turn presentation mode on in the sidebar; while it is on (and the sidebar hidden),
    a button above the page turns it off, and the glossary sits beside it: it must stay
    one click away when the sidebar that holds it is gone."""
    if state.presenting():
        leave, words = st.columns([1, 2])
        leave.button("Leave presentation mode", key="present_off", type="tertiary",
                     icon=":material/close_fullscreen:", on_click=state.put,
                     args=("present", False))
        with words:
            glossary()
    else:
        st.sidebar.toggle("Presentation mode", **state.bind("present"),
                          help="Larger text, no sidebar, one chart per row: for a "
                          "projector. The link keeps it (present=1).")


def side_by_side(count: int = 2, stacked: bool = False) -> list[Any]:
    """``count`` places for charts next to each other, or one under the other when
    ``stacked`` or presenting: one chart per idea, each the page's full width."""
    if stacked or state.presenting():
        return [st.container() for _ in range(count)]
    return list(st.columns(count))


def glossary() -> None:
    """The :data:`GLOSSARY`, folded (at the top of the sidebar, or above the page when
    presenting)."""
    with st.expander("Glossary"):
        st.markdown("\n".join(f"- **{term}**: {text}" for term, text in GLOSSARY.items()))


def sidebar(refused: list[str]) -> None:
    """The glossary, the cluster and seed every page uses, and what the URL asked for but
    was refused."""
    with st.sidebar:
        glossary()
        st.subheader("Cluster")
        left, right = st.columns(2)
        left.number_input("nodes", min_value=1, max_value=64, step=1, **state.bind("nodes"))
        right.selectbox("GPUs per node", state.GPUS_PER_NODE, **state.bind("gpn"))
        st.caption(f"{state.cluster()}")
        st.number_input("seed", min_value=0, max_value=10_000, step=1, **state.bind("seed"),
                        help="Seeds the generated workload and the policies.")
        mode = state.job_mode()
        moded = f", every job {mode}" if mode else ""
        if state.origin() == "generated":
            st.caption(f"Workload: generated{moded}. The address bar link reopens this demo.")
        else:
            st.caption(f"Workload: {plain(state.origin())}{moded}. The address bar link reopens it "
                       f"on this server while the server keeps it (the latest "
                       f"{state.KEPT_UPLOAD_MB} MB of uploads).")
            unfit = state.recheck()
            if unfit is not None:
                st.warning(f"The loaded workload does not suit {state.cluster()}: "
                           f"{plain(unfit.problems[0])}"
                           + (f" (and {len(unfit.problems) - 1} more problems, listed on the "
                              "Workload page)" if len(unfit.problems) > 1 else "") + ".")
        for message in refused:
            st.warning(f"Ignored link setting {plain(message)}")


def chart(fig: go.Figure, key: str | None = None) -> None:
    """Every chart the same way: full width, the app's own plotly template, a PNG button.

    Streamlit's chart theme would replace the template's projector-sized dark text. Of
    plotly's toolbar only *Download as PNG* is kept (at twice the size, for slides), shown
    while the pointer is on the chart: the full bar covered titles and legends on a phone.
    The title is drawn above the chart rather than in it: a legend that wraps onto several
    rows on a narrow screen grows upwards, over a title inside the figure.
    """
    if state.presenting():
        size = CHART_FONT_PRESENTING
        fig.update_layout(font_size=size, legend_font_size=size, hoverlabel_font_size=size)
    title = fig.layout.title.text
    if title:
        st.markdown(f"**{title}**")
        fig.update_layout(title=None, margin_t=30)
    if len(fig.data) > 1 and fig.layout.showlegend is not False:
        # an empty first legend row, for the PNG button to sit beside rather than on an entry
        fig.update_layout(legend_title={"text": "&nbsp;", "side": "top"})
    name = re.sub(r"[^a-z0-9]+", "-", (title or key or "chart").lower()).strip("-")
    st.plotly_chart(fig, key=key, theme=None, config={
        "displaylogo": False, "displayModeBar": "hover", "modeBarButtons": [["toImage"]],
        "toImageButtonOptions": {"format": "png", "filename": name, "scale": 2},
    })


def table(frame: pd.DataFrame, height: int | None = None) -> None:
    """A table whose every cell is read in full: ``st.table`` wraps long text where
    ``st.dataframe`` cut it at a fixed column width (and, on a phone, showed only the
    first columns of a canvas that scrolls sideways without a visible bar). Text cells
    may hold user text (job ids, model names) and ``st.table`` renders markdown, so they
    are shown through :func:`plain`; ``height`` scrolls the rows under a sticky header."""
    shown = frame.copy()
    for column in shown.columns:
        if not pd.api.types.is_numeric_dtype(shown[column]):
            shown[column] = shown[column].map(plain)
    st.table(shown, hide_index=True, border="horizontal",
             **({"height": height} if height else {}))


def show_error(error: BaseException, kept: str = "") -> None:
    """A user error inline: which row, which column, what was expected; no traceback."""
    suffix = f" {kept}" if kept else ""
    if isinstance(error, WorkloadError):
        problems = error.problems
        listed = "\n".join(f"- {plain(p)}" for p in problems[:SHOWN_INLINE])
        more = len(problems) - SHOWN_INLINE
        st.error(
            f"**{len(problems)} problem{'s' if len(problems) != 1 else ''} found.{suffix}**\n\n"
            + listed
            + (f"\n- … and {more} more (see the table)" if more > 0 else "")
        )
        if len(problems) > 1:
            st.dataframe(problem_table(error), hide_index=True)
        return
    st.error(f"{plain(describe(error))}{suffix}")


def problem_table(error: WorkloadError) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {"row": p.row, "column": p.column, "problem": p.message, "expected": p.expected}
            for p in error.problems
        ],
        columns=["row", "column", "problem", "expected"],
    )


@contextmanager
def inline_errors(kept: str = "") -> Iterator[None]:
    """Run a block and show a user error in place of a traceback."""
    try:
        yield
    except USER_ERRORS as error:
        show_error(error, kept)


def metric_cards(
    cards: list[tuple[str, str, str | None]], shown: Callable[[], None] | None = None
) -> None:
    """A row of ``(label, value, delta)`` metric cards; ``shown()`` runs as soon as the first
    is sent. A click stops a script run at its next element, before sending it, so that
    is the one moment the first card is known to be in the browser."""
    for i, (column, (title, value, delta)) in enumerate(
            zip(st.columns(len(cards)), cards, strict=True)):
        column.metric(title, value, delta, delta_color="inverse" if delta else "normal")
        if i == 0 and shown is not None:
            shown()


def summary_cards(summary: Any, rivals: dict[str, float] | None = None) -> None:
    """Average JCT, utilization and, per rival (name -> its average JCT), faster or slower."""
    cards: list[tuple[str, str, str | None]] = [
        ("average JCT", duration(summary.avg_jct), None),
        ("utilization", f"{summary.utilization:.0%}", None),
        ("p95 JCT", duration(summary.p95_jct), None),
        ("JCT / lower bound", f"{summary.jct_over_bound:.2f}×", None),
    ]
    for name, jct in reversed((rivals or {}).items()):
        words = Change(name, reduction(summary.avg_jct, jct), math.nan).headline()
        cards.insert(2, (f"vs {label(name)}", words, None))
    metric_cards(cards)


def reduction(value: float, reference: float) -> float:
    """Relative change against ``reference``; negative means lower (better) JCT."""
    return value / reference - 1.0 if reference and math.isfinite(reference) else math.nan


def downloads(stem: str, table: pd.DataFrame, extra: dict[str, pd.DataFrame] | None = None) -> None:
    """CSV of ``table``, and JSON of it plus the ``extra`` tables (NaN as null)."""
    left, right = st.columns(2)
    left.download_button("Download CSV", table.to_csv(index=False).encode(),
                         file_name=f"{stem}.csv", mime="text/csv", key=f"{stem}_csv",
                         on_click="ignore")
    frames = {"rows": table, **(extra or {})}
    document = {name: json.loads(frame.to_json(orient="records")) for name, frame in frames.items()}
    right.download_button("Download JSON", json.dumps(document, indent=1).encode(),
                          file_name=f"{stem}.json", mime="application/json",
                          key=f"{stem}_json", on_click="ignore")


def progress_bar(label: str) -> Callable[[int, int], None]:
    """A fresh progress bar and the ``progress(done, total)`` callback that moves it."""
    bar = st.progress(0.0, text=label)

    def update(done: int, total: int) -> None:
        if done >= total:
            bar.empty()
        else:
            bar.progress(done / max(total, 1), text=f"{label} {done}/{total}")

    return update


def queued(line: Line, label: str, work: Callable[[Progress, RunBudget], T]) -> T:
    """``work(progress, budget)`` through the server-wide ``line``, held to
    :data:`lab.runs.RUN_BUDGET`, as this session's: the user's place while waiting, then a
    progress bar. If it gives way to other sessions' presses (``Line.run``), it is told so
    and goes on at its turn."""
    note, bar = st.empty(), st.empty()

    def waiting(position: int, resumed: bool) -> None:
        ahead = "you are next" if position == 1 else f"number {position} in line"
        if resumed:
            note.info(f"{label} Your run gave way to other students' runs after its turn on "
                      f"the shared simulator; what it finished is kept, and it goes on when "
                      f"they are done: {ahead}.")
        else:
            note.info(f"{label} Waiting for the shared simulator: {ahead}. Other students' "
                      "runs go first; this keeps every page quick.")

    def take(turn: Turn) -> T:
        note.empty()
        with bar.container():
            return work(progress_bar(label), turn.budget(runs.RUN_BUDGET))

    return line.run(take, waiting, st.session_state.setdefault("line_who", uuid.uuid4().hex))


def skipped_note(skipped: dict[str, str]) -> None:
    """Say which policies could not run, and why, without hiding the others."""
    for name, why in skipped.items():
        st.warning(f"`{name}` was left out: {plain(why)}")
