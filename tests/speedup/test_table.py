"""The speedup table the app plots."""

from __future__ import annotations

import math

import pytest

from engine.speedup import MODEL_NAMES, Amdahl, Linear, get_model
from engine.speedup.table import STRONG, WEAK, scaling_table, speedup_table


def test_default_table_covers_every_model_on_packed_placements() -> None:
    table = speedup_table()
    assert list(table.columns) == ["model", "gpus", "nodes", "speedup", "efficiency"]
    assert set(table["model"]) == set(MODEL_NAMES)
    longest = {name: min(64, getattr(get_model(name), "max_gpus", 64)) for name in MODEL_NAMES}
    assert table.groupby("model")["gpus"].max().to_dict() == longest  # a batch limits GPUs
    assert longest["yolov3"] == 16  # batch 64, at least 4 samples per GPU
    assert (table["nodes"] == [math.ceil(k / 4) for k in table["gpus"]]).all()
    assert table["efficiency"].to_numpy() == pytest.approx(
        (table["speedup"] / table["gpus"]).to_numpy()
    )
    one = table[table["gpus"] == 1]
    assert one["speedup"].to_numpy() == pytest.approx(1.0)
    linear = table[table["model"] == "linear"]
    assert linear["efficiency"].to_numpy() == pytest.approx(1.0)


def test_own_models_and_cluster_shape() -> None:
    table = speedup_table({"mine": Amdahl(serial_fraction=0.1), "ideal": Linear()}, 10, 8)
    assert list(table["model"].unique()) == ["mine", "ideal"]
    assert table["gpus"].max() == 10
    assert table.loc[table["gpus"] == 9, "nodes"].tolist() == [2, 2]
    mine = table[table["model"] == "mine"].set_index("gpus")["speedup"]
    assert mine[8] == pytest.approx(1 / (0.1 + 0.9 / 8))


def test_bad_sizes() -> None:
    with pytest.raises(ValueError):
        speedup_table(max_gpus=0)
    with pytest.raises(ValueError):
        speedup_table(gpus_per_node=0)


def test_a_fixed_batch_stops_speeding_up_where_a_growing_one_goes_on() -> None:
    """cifar10 at the Pollux workloads' batch 2048 on 4-GPU nodes (the About figure)."""
    table = scaling_table("cifar10", 2048)
    assert set(table["model"]) == {STRONG, WEAK}
    assert (table["speedup"] <= table["gpus"] + 1e-9).all()
    strong = table[table["model"] == STRONG].set_index("gpus")["speedup"]
    weak = table[table["model"] == WEAK].set_index("gpus")["speedup"]
    assert strong.idxmax() == 16 and strong[64] < strong[16] / 1.5
    assert weak[64] > 4 * strong[64]
    assert strong[1] == weak[1] == 1.0
