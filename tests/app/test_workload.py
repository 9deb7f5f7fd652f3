"""Workload: generating, uploading (good and bad CSVs) and what the page shows."""

from __future__ import annotations

import base64
import json

import numpy as np
from apptest_helpers import open_app, texts

from engine.parallel import Executor
from engine.paths import DATA_ENV
from lab import state
from lab.plain import plain

GOOD = b"submit_time,runtime_1gpu,model,requested_gpus\n0,3600,bert,2\n60,7200,ncf,4\n"
BAD = b"submit_time,runtime_1gpu,model\n0,3600,bert\n60,-5,bert\n90,100,resnet9000\n"


def jobs_card(at) -> str:
    return next(m.value for m in at.metric if m.label == "jobs")


def test_generated_workload_is_shown_with_charts() -> None:
    at = open_app("workload")
    assert not at.exception
    assert jobs_card(at) == "40"
    assert len(at.get("plotly_chart")) >= 4
    assert at.dataframe[0].value.shape[0] == 40


def test_sliders_regenerate_the_workload() -> None:
    at = open_app("workload")
    at.slider(key="w_jobs").set_value(60).run()
    assert not at.exception
    assert jobs_card(at) == "60"
    at.selectbox(key="w_sizes").set_value("philly").run()
    assert "philly" in at.header[0].value


def test_good_upload_becomes_the_workload() -> None:
    at = open_app("workload")
    at.file_uploader(key="upload_csv").set_value(("mine.csv", GOOD, "text/csv")).run()
    assert not at.exception
    assert "Loaded mine.csv" in texts(at)
    assert jobs_card(at) == "2"
    assert at.header[0].value == "mine"


def test_bad_upload_names_row_and_column_and_keeps_the_workload() -> None:
    at = open_app("workload")
    at.file_uploader(key="upload_csv").set_value(("mine.csv", GOOD, "text/csv")).run()
    at.file_uploader(key="upload_csv").set_value(("broken.csv", BAD, "text/csv")).run()
    assert not at.exception
    message = at.error[0].value
    assert "row 3, column 'runtime_1gpu'" in message
    assert "row 4, column 'model'" in message
    assert "previous workload is kept" in message
    assert jobs_card(at) == "2"


POLLUX = b"name,time,application,num_replicas,batch_size\nj1,0,cifar10,2,256\n"


def uploaded_pollux(tab: str):
    """The app after a one-job Pollux trace is uploaded in ``tab``'s uploader."""
    at = open_app("workload")
    at.file_uploader(key=tab).set_value(("w.csv", POLLUX, "text/csv")).run()
    assert not at.exception
    assert jobs_card(at) == "1"
    return at


def test_trace_import_by_upload() -> None:
    uploaded_pollux("upload_trace")


def test_link_settings_are_applied_and_bad_ones_reported() -> None:
    at = open_app("workload", jobs=30, load="9")
    assert jobs_card(at) == "30"
    assert at.query_params["load"] == "0.85"


def test_bundled_reference_trace_loads() -> None:
    at = open_app("workload")
    at.selectbox(key="reference_file").set_value("pollux/workload-6.csv")
    at.button(key="reference_load").click().run()
    assert not at.exception
    assert at.header[0].value == "workload-6"
    assert jobs_card(at) == "160"


def test_the_csv_tab_reads_a_trace_by_its_content_and_the_sidebar_keeps_up() -> None:
    at = uploaded_pollux("upload_csv")
    assert "1 job, read as a POLLUX trace" in texts(at)
    sidebar = " ".join(c.value for c in at.sidebar.caption)
    assert "uploaded w.csv" in sidebar and "link reopens it on this server" in sidebar


def test_unknown_link_values_are_reported_in_words() -> None:
    at = open_app("workload", policy="nonexistent", seed="abc")
    warnings = " ".join(w.value for w in at.sidebar.warning)
    assert plain("policy=nonexistent") in warnings and "expected one of" in warnings
    assert plain("seed=abc: expected a whole number in [0, 10000]") in warnings
    assert "invalid literal" not in warnings


def test_job_mode_is_a_setting_in_the_link_and_the_sidebar() -> None:
    at = open_app("workload")
    assert "malleable" in texts(at) and "elastic policies" in texts(at)
    at.selectbox(key="w_mode").set_value("rigid").run()
    assert not at.exception
    assert at.query_params["mode"] == "rigid"
    assert "every job rigid" in " ".join(c.value for c in at.sidebar.caption)
    assert open_app("workload", mode="malleable").selectbox(key="w_mode").value == "malleable"


def test_an_upload_is_in_the_link_and_reopens_in_another_session() -> None:
    at = open_app("workload")
    at.file_uploader(key="upload_csv").set_value(("mine.csv", GOOD, "text/csv")).run()
    digest = at.query_params["upload"]
    assert len(digest) == 16
    other = open_app("workload", upload=digest)
    assert not other.exception
    assert other.header[0].value == "mine" and jobs_card(other) == "2"
    assert "uploaded mine.csv" in " ".join(c.value for c in other.sidebar.caption)
    at.slider(key="w_jobs").set_value(60).run()  # back to the generator: out of the link
    assert "upload" not in at.query_params


def test_an_upload_the_server_no_longer_has_falls_back_to_the_generator() -> None:
    at = open_app("workload", upload="0123456789abcdef")
    assert not at.exception
    warnings = " ".join(w.value for w in at.sidebar.warning)
    assert plain("upload=0123456789abcdef: this server does not have that uploaded workload") \
        in warnings
    assert jobs_card(at) == "40"
    assert "upload" not in at.query_params


STEADY = b"submit_time,runtime_1gpu,requested_gpus\n0,3600,1\n60,3600,4\n120,3600,1\n"
"""Offered load about 1 on 64 GPUs, 16 on 4 GPUs, and one job asks for 4 GPUs."""


def test_a_smaller_cluster_after_an_upload_notes_its_load_and_warns_of_its_fit() -> None:
    at = open_app("workload")
    at.file_uploader(key="upload_csv").set_value(("steady.csv", STEADY, "text/csv")).run()
    assert not at.sidebar.warning
    at.number_input(key="w_nodes").set_value(1).run()
    assert not at.exception
    assert not at.sidebar.warning and not at.error  # overloaded is not wrong
    assert any("offered load" in info.value and "queue grows" in info.value
               for info in at.info)
    at.selectbox(key="w_gpn").set_value(2).run()
    assert "does not suit 1x2 (2 GPUs)" in at.sidebar.warning[0].value
    assert "requested_gpus" in at.error[0].value  # 4 GPUs asked of a 2-GPU cluster
    assert jobs_card(at) == "3"  # the workload is kept


def test_a_failed_upload_error_goes_when_something_else_is_loaded() -> None:
    at = open_app("workload")
    at.file_uploader(key="upload_csv").set_value(("broken.csv", BAD, "text/csv")).run()
    assert at.error
    at.file_uploader(key="upload_trace").set_value(("w.csv", POLLUX, "text/csv")).run()
    assert not at.exception
    assert not at.error and jobs_card(at) == "1"
    at.file_uploader(key="upload_csv").set_value(("broken2.csv", BAD, "text/csv")).run()
    assert at.error
    at.slider(key="w_jobs").set_value(60).run()  # the generator: the error goes too
    assert not at.error and jobs_card(at) == "60"


def test_an_upload_is_sniffed_once(monkeypatch) -> None:
    import engine.workload.load

    def refuse(text: str) -> str:
        raise AssertionError("load_workload sniffed the upload again")

    monkeypatch.setattr(state, "reader", lambda: Executor("serial"))  # parse it here
    monkeypatch.setattr(engine.workload.load, "sniff", refuse)
    at = uploaded_pollux("upload_csv")
    assert "read as a POLLUX trace" in texts(at)


def test_an_upload_is_parsed_out_of_the_server_process(monkeypatch) -> None:
    """A 45 MB upload takes seconds and hundreds of MB to parse: not the server's, whose
    interpreter lock every session's pages share."""
    import engine.workload.load

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("parsed in the server process")

    monkeypatch.setattr(engine.workload.load, "load_workload", refuse)
    monkeypatch.setattr(state, "load_workload", refuse, raising=False)
    at = open_app("workload")
    at.file_uploader(key="upload_csv").set_value(("mine.csv", GOOD, "text/csv")).run()
    assert not at.exception and jobs_card(at) == "2"
    at.file_uploader(key="upload_csv").set_value(("broken.csv", BAD, "text/csv")).run()
    assert "row 3" in at.error[0].value  # a bad file's problems cross as themselves


def test_without_reference_data_the_import_tab_says_what_is_missing(monkeypatch, tmp_path):
    monkeypatch.setenv(DATA_ENV, str(tmp_path / "nowhere"))
    at = open_app("workload")
    assert not at.exception
    (note,) = [i.value for i in at.info if "SWF and Philly traces" in i.value]
    assert str(tmp_path / "nowhere") in note and DATA_ENV in note
    assert at.selectbox(key="reference_file").options[0] == "pollux/workload-1.csv"


def test_the_arrivals_card_and_chart_share_one_unit() -> None:
    """"arrivals span 10.01 h" sat over an axis in seconds (ticks 10k-30k)."""
    at = open_app("workload")
    span = next(m.value for m in at.metric if m.label == "arrivals span")
    specs = "".join(c.proto.spec for c in at.get("plotly_chart"))
    assert f"submit time ({span.split()[-1]})" in specs


def test_the_job_modes_caption_names_only_the_policies_that_resize() -> None:
    """README says tiresias never resizes a job; the caption said it did."""
    at = open_app("workload")
    (caption,) = [c.value for c in at.caption if "**malleable**" in c.value]
    which = caption.split("which only ")[1].split(" do ")[0]
    assert "tiresias" not in which and "afs-elastic" in which


def test_every_chart_can_be_saved_as_a_png_for_slides() -> None:
    at = open_app("workload")
    for chart in at.get("plotly_chart"):
        config = json.loads(chart.proto.config)
        assert config["modeBarButtons"] == [["toImage"]] and config["displayModeBar"]
        assert config["toImageButtonOptions"]["format"] == "png"


def test_the_speedup_chart_draws_each_measured_job_at_its_batch() -> None:
    at = uploaded_pollux("upload_trace")
    (spec,) = [c.proto.spec for c in at.get("plotly_chart") if c.proto.id.endswith("wl_speedup")]
    curves = {t["name"]: t for t in json.loads(spec)["data"] if t["name"] != "ideal"}
    assert list(curves) == ["cifar10, batch 256"]
    gpus = np.frombuffer(base64.b64decode(curves["cifar10, batch 256"]["x"]["bdata"]), np.int8)
    assert gpus.max() == 8  # 256 samples, at least 32 per GPU


def test_a_file_of_thousands_of_ignored_columns_shows_only_the_workload_columns() -> None:
    """The preview would otherwise send every ignored cell to the browser on every rerun
    (a 45 MB upload of long text cells, 8,000 columns)."""
    wide = ("submit_time,runtime_1gpu," + ",".join(f"c{i}" for i in range(3000))
            + "\n0,3600" + "," * 3000 + "\n").encode()
    at = open_app("workload")
    at.file_uploader(key="upload_csv").set_value(("wide.csv", wide, "text/csv")).run()
    assert not at.exception and jobs_card(at) == "1"
    assert not [c for c in at.dataframe[0].value.columns if c.startswith("c")]
    assert any("and 2,990 more" in i.value for i in at.info)
