"""Workload: generate one, upload a CSV, or import a trace; then look at what it holds."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from engine.paths import DATA_ENV, pollux_workloads, shared_data
from engine.policies import ELASTIC_POLICIES, make_policy
from engine.speedup import MODEL_NAMES
from engine.units import unit_for
from engine.workload import (
    load_note,
    offered_load,
    schema_markdown,
    template_csv,
    to_csv_bytes,
)
from lab import figures, state, ui
from lab.plain import plain

KEPT = "The previous workload is kept."
TRACE_FORMATS = ("auto", "swf", "philly", "pollux")


def handle_upload(
    uploaded: st.runtime.uploaded_file_manager.UploadedFile, fmt: str, key: str
) -> None:
    """Load an upload once (when its file or format changes, not on every rerun) and show
    how it went, inline, while it is the latest load: another upload, a reference trace or
    the generator replaces its message. The format is sniffed once, here."""
    ss = st.session_state
    kind = ss.get(f"{key}_kind", fmt)
    mark = (key, uploaded.file_id, fmt)
    if ss.get(f"{key}_mark") != mark:
        ss[f"{key}_mark"] = mark
        data = uploaded.getvalue()
        kind = ss[f"{key}_kind"] = state.sniffed(data) if fmt == "auto" else fmt
        if state.try_load(data, kind, f"uploaded {uploaded.name}",
                          name=Path(uploaded.name).stem, attempt=mark) is None:
            st.rerun()  # so the sidebar, drawn before this page, names the new workload
    last = state.last_load()
    if last is None or last[0] != mark:
        return
    if last[1] is None:
        jobs = len(state.workload())
        read_as = "" if kind == "csv" else f", read as a {kind.upper()} trace (from its content)"
        st.success(f"Loaded {plain(uploaded.name)}: {jobs} job{'s' if jobs != 1 else ''}{read_as}.")
    else:
        ui.show_error(last[1], kept=KEPT)


def reference_files() -> dict[str, Path]:
    """The Pollux workloads shipped with the engine, and the large public traces (SWF,
    Philly) when the reference data is there."""
    files = {f"pollux/{p.name}": p for p in sorted(pollux_workloads().glob("workload-*.csv"))}
    root = shared_data()
    if root.is_dir():
        found = sorted((root / "swf").glob("*.swf")) + sorted(root.glob("philly.csv"))
        files |= {str(p.relative_to(root)): p for p in found}
    return files


st.title("Workload")
generate_tab, upload_tab, import_tab = st.tabs(["Generate", "Upload CSV", "Import trace"])

with generate_tab:
    left, right = st.columns(2)
    left.slider("number of jobs", 10, 2000, step=10, **state.bind("jobs", state.use_generator))
    left.slider("offered load", 0.1, 2.0, step=0.05, **state.bind("load", state.use_generator),
                help="Fraction of the cluster the users' own requests would keep busy. "
                "Arrivals are random, so the generated jobs' measured load (the card "
                "below) is near this target, not exactly it: 1.00 may read 1.03.")
    right.selectbox("job size distribution", state.SIZES,
                    **state.bind("sizes", state.use_generator))
    right.selectbox("request rule", state.RULES, **state.bind("rule", state.use_generator),
                    help="How users pick the GPUs they request: where scaling efficiency is "
                    "0.5-0.8 (as in Pollux), a power of two, always one, or any count the "
                    "job can use (users who over- and under-ask).")
    right.selectbox("arrivals", state.ARRIVALS, **state.bind("arrivals", state.use_generator),
                    help="Poisson arrivals, or bursty ones: the same average rate in waves "
                    "and lulls (gaps three times as variable).")
    right.selectbox("batch sizes", state.BATCH_RULES, **state.bind("batch", state.use_generator),
                    help="A DL job's global batch sets how far it scales: as often as the "
                    "Pollux workloads use each batch, or each model's default.")
    with st.expander("model mix (relative weights)"):
        columns = st.columns(3)
        for i, model in enumerate(MODEL_NAMES):
            columns[i % 3].slider(model, 0.0, 10.0, step=0.5,
                                  **state.bind(state.mix_key(model), state.use_generator))
    if state.origin() != "generated":
        st.button("Use the generated workload", on_click=state.use_generator, type="primary")
    st.caption("Change the seed after leaving presentation mode." if state.presenting()
               else "The seed is in the sidebar.")

with upload_tab:
    st.markdown("A CSV with one row per job. Only `submit_time` and `runtime_1gpu` are "
                "required; every problem is reported with its row and column.")
    st.download_button("Download a template", template_csv().encode(), "workload-template.csv",
                       "text/csv", on_click="ignore")
    with st.expander("columns"):
        st.markdown(schema_markdown())
    # any file: its content, not its name or MIME type, decides how it is read
    csv_upload = st.file_uploader("workload CSV", key="upload_csv")
    if csv_upload is not None:
        handle_upload(csv_upload, "auto", "upload_csv")

with import_tab:
    fmt = st.radio("format", TRACE_FORMATS, horizontal=True, key="trace_format")
    trace_upload = st.file_uploader("trace file", key="upload_trace")
    if trace_upload is not None:
        handle_upload(trace_upload, fmt, "upload_trace")
    bundled = reference_files()
    st.subheader("Reference traces")
    left, right = st.columns([3, 1])
    chosen = left.selectbox("file", list(bundled), key="reference_file")
    first = right.number_input("first jobs", 10, 5000, 300, step=10, key="reference_jobs",
                               help="Large traces are cut to their first jobs.")
    if chosen is not None and st.button("Load reference trace", key="reference_load"):
        state.try_load(state.head(bundled[chosen], int(first)), "auto",
                       f"reference {chosen}", name=Path(chosen).stem, attempt="reference")
    last = state.last_load()
    if last is not None and last[0] == "reference" and last[1] is not None:
        ui.show_error(last[1], kept=KEPT)
    if not any(name.endswith((".swf", "philly.csv")) for name in bundled):
        st.info(f"The SWF and Philly traces are read from `{shared_data()}`, which has none "
                f"(`swf/*.swf`, `philly.csv`). Set `{DATA_ENV}` to the folder holding them "
                "and restart the app.")

workload = state.workload()
cluster = state.cluster()
frame = workload.frame
st.header(plain(workload.name))
left, right = st.columns([1, 3], vertical_alignment="bottom")
left.selectbox("job mode", state.JOB_MODES, **state.bind("mode"),
               help="as-loaded keeps each job's own `mode` column (moldable when generated).")
resizes = {n: make_policy(n).resizes for n in ELASTIC_POLICIES}
right.caption("**rigid**: exactly the GPUs requested; **moldable**: the scheduler picks the "
              "count when the job starts; **malleable**: resizable while it runs, which only "
              f"the elastic policies {', '.join(n for n, r in resizes.items() if r)} do "
              f"({', '.join(n for n, r in resizes.items() if not r)} pauses and resumes jobs "
              "but never resizes one).")
span = float(frame["submit_time"].max())
unit = unit_for(span)  # the card and the arrivals chart read in one unit
ui.metric_cards([
    ("jobs", f"{len(workload):,}", None),
    ("offered load", f"{offered_load(workload, cluster):.2f}", None),
    ("arrivals span", unit.format(span), None),
    ("models", f"{frame['model'].nunique()}", None),
])
for note in (*workload.notes, load_note(workload, cluster)):
    if note:
        st.info(plain(note))
unfit = state.recheck()  # does it still suit this cluster, if it was changed since?
if unfit is not None:
    ui.show_error(unfit)

# the workload's own columns: a file's ignored ones (thousands, or long text) would be sent
# to the browser on every rerun; the CSV is written only when the button is pressed
st.dataframe(frame.drop(columns=list(workload.ignored_columns)), hide_index=True, height=260)
st.download_button("Download the workload as CSV", lambda: to_csv_bytes(workload),
                   f"{workload.name}.csv", "text/csv", on_click="ignore")
left, right = ui.side_by_side()
with left:
    ui.chart(figures.arrivals_figure(frame, unit), key="wl_arrivals")
    ui.chart(figures.model_mix_figure(frame), key="wl_mix")
with right:
    ui.chart(figures.size_figure(frame), key="wl_sizes")
    ui.chart(figures.speedup_figure(figures.workload_speedup_table(frame, cluster),
                                    title="Speedup of these jobs (measured ones at their batch)"),
             key="wl_speedup")
