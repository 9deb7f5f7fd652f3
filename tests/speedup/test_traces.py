"""The artifact's own reading of the raw traces, and the shipped job model against it."""

from __future__ import annotations

import pytest

from engine.cli import main
from engine.speedup.measured import measured_job
from engine.speedup.placement_error import placement_errors
from engine.speedup.traces import fullest_first, load_application, traces_dir

needs_traces = pytest.mark.skipif(not (traces_dir() / "bert").exists(),
                                  reason="../shared/data is absent")


def test_fullest_first_fills_nodes_before_spreading():
    assert fullest_first(8, 2) == (4, 4)
    assert fullest_first(8, 4) == (4, 2, 1, 1)
    assert fullest_first(5, 5) == (1, 1, 1, 1, 1)
    with pytest.raises(ValueError):
        fullest_first(9, 2)


@needs_traces
@pytest.mark.parametrize("model, batch", [("cifar10", 2048), ("imagenet", 3200),
                                          ("deepspeech2", 320), ("ncf", 32768)])
def test_the_shipped_model_reads_what_the_artifact_reads(model, batch):
    """Same one-GPU length, and speedups within 8% on packed placements up to 64 GPUs (the
    artifact reads one placement of each shape; the shipped model their mean)."""
    app, job = load_application(model), measured_job(model, batch)
    assert job.duration(1, 1) == pytest.approx(app.duration(batch, 1, 1), rel=0.01)
    for gpus, nodes in [(2, 1), (4, 1), (8, 2), (16, 4), (32, 8), (64, 16)]:
        if gpus > job.max_gpus:
            continue
        theirs = app.duration(batch, 1, 1) / app.duration(batch, gpus, nodes)
        assert job.speedup(gpus, nodes) == pytest.approx(theirs, rel=0.08), (gpus, nodes)


@needs_traces
def test_the_job_model_is_within_5_percent_on_most_measured_placements():
    table = placement_errors(("bert", "yolov3"))
    assert len(table) > 200
    assert table["error"].abs().median() < 0.05
    assert set(table["batch_size"]) == {384, 64}


@needs_traces
def test_speedup_placements_command(capsys):
    assert main(["speedup", "--placements", "--models", "bert,ncf"]) == 0
    out = capsys.readouterr().out
    assert "bert" in out and "32768" in out and "median absolute error" in out


@needs_traces
@pytest.mark.parametrize("model, batch, placement", [
    ("cifar10", 2048, (1, 4, 4, 2)), ("cifar10", 2048, (1, 4, 2, 4)),
    ("cifar10", 2048, (1, 4, 4)), ("ncf", 32768, (2, 3, 3, 3)), ("bert", 384, (2, 2)),
])
def test_the_simulator_charges_the_measured_placement(model, batch, placement):
    """Two placements of one shape run as the artifact measured each (1442 and 1424 are
    a third apart for cifar10), not as their shape's mean."""
    app, job = load_application(model), measured_job(model, batch)
    gpus, nodes = sum(placement), len(placement)
    theirs = app.duration(batch, 1, 1) / app.duration(batch, gpus, nodes, placement)
    assert job.speedup_on(placement) == pytest.approx(theirs, rel=0.01)
    rotated = placement[1:] + placement[:1]
    assert job.speedup_on(min(rotated[i:] + rotated[:i] for i in range(nodes))) == \
        job.speedup_on(placement)


@needs_traces
def test_every_measured_placement_within_15_percent():
    table = placement_errors()
    assert len(table) > 1000
    assert table["error"].abs().max() < 0.15
    assert table["error"].abs().median() < 0.05
