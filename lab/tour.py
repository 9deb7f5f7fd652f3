"""The guided first five minutes: a few steps on Home, each saying what to click next.

A newcomer (or a lecturer rehearsing) is walked from the finding to their own run, one
run watched live, a comparison and their own workload. The tour is a box at the top of
Home that can be stepped through or closed; where it is (or that it was closed) is kept
for the browser session, so it does not come back on every visit to Home.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from lab import state

HIGHLIGHT = "#E66100"
"""The outline of the button a step points at (orange: unlike any button of the theme)."""


@dataclass(frozen=True)
class Step:
    title: str
    text: str
    button: str | None = None
    """The key of the button on Home this step points at (outlined), if any."""
    page: tuple[str, str] | None = None
    """The page script this step sends to and its title (a link in the box), if any."""
    presenting: str | None = None
    """The text in presentation mode, where it differs: the sidebar it names is hidden."""


STEPS: tuple[Step, ...] = (
    Step("What the lab finds",
         "Each scenario below pits the deep-RL scheduler against Slurm's FIFO and a "
         "threshold tuned with hindsight: its card says *faster*, *slower* or *ties*, and "
         "the sentence under it says why that matters."),
    Step("Run the demo",
         "Press **Run the demo** (outlined in orange, under *Your workload*): the same "
         "comparison on the workload and cluster of the sidebar, in a few seconds.",
         button="home_run",
         presenting="Press **Run the demo** (outlined in orange, under *Your workload*): "
                    "the same comparison on your workload and cluster, in a few seconds."),
    Step("Watch one run",
         "On **Live simulation** press **Play** (or Space): GPUs over time, and a log of "
         "each start with the GPUs the policy chose and why. **→** steps one event.",
         page=("live.py", "Live simulation")),
    Step("Compare policies",
         "On **Compare** press **Run comparison**: each policy's average job completion "
         "time with its 95% confidence interval, and where the differences come from.",
         page=("compare.py", "Compare")),
    Step("Make it yours",
         "On **Workload** change the jobs, their load or their job mode, or upload a CSV: "
         "every page then uses it. The **Glossary** at the top of the sidebar explains "
         "JCT, offered load, moldable and malleable.",
         page=("workload.py", "Workload"),
         presenting="On **Workload** change the jobs, their load or their job mode, or "
                    "upload a CSV: every page then uses it. The **Glossary** above the "
                    "page explains JCT, offered load, moldable and malleable."),
)


def _go(step: int | None) -> None:
    """Move the tour to ``step`` (``None``: close it)."""
    st.session_state["tour"] = step


def show(pages: Path) -> None:
    """The tour's current step (``pages``: the folder of the page scripts, for its links),
    or, once closed, a button that starts it again."""
    at = st.session_state.get("tour", 0)
    if at is None:
        st.button("Take the guided tour", key="tour_open", type="tertiary",
                  icon=":material/tour:", on_click=_go, args=(0,))
        return
    step = STEPS[at]
    text = step.presenting if state.presenting() and step.presenting else step.text
    with st.container(border=True, key="tour_box"):
        st.markdown(f"**Guided tour, step {at + 1} of {len(STEPS)}: {step.title}**\n\n"
                    f"{text}")
        if step.page is not None:
            script, title = step.page
            st.page_link(str(pages / script), label=f"Go to {title}",
                         icon=":material/arrow_forward:")
        buttons = st.container(horizontal=True)
        buttons.button("Back", key="tour_back", disabled=at == 0, on_click=_go, args=(at - 1,))
        last = at == len(STEPS) - 1
        buttons.button("Finish" if last else "Next", key="tour_next", type="primary",
                       on_click=_go, args=(None if last else at + 1,))
        buttons.button("Close the tour", key="tour_close", on_click=_go, args=(None,))
    # drawn on every step (empty without a button), so the slot of the previous
    # step's outline is always replaced, even while the page is still running
    outline = (f".st-key-{step.button} button {{ outline: 4px solid {HIGHLIGHT}; "
               "outline-offset: 3px; }" if step.button else "")
    st.html(f"<style>{outline}</style>")

