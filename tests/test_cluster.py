from hypothesis import given
from hypothesis import strategies as st

from engine.cluster import Cluster, pack, packed_nodes, spread


def test_default_cluster_is_the_pollux_testbed():
    assert Cluster().total_gpus == 64


def test_single_node_fit_uses_the_fullest_node_that_fits():
    assert pack([4, 2, 3], 2) == ((1, 2),)


def test_spanning_fills_emptiest_nodes_first():
    assert pack([1, 4, 3, 0], 6) == ((1, 4), (2, 2))


def test_does_not_fit():
    assert pack([1, 1], 3) is None


@given(st.lists(st.integers(0, 8), min_size=1, max_size=16), st.integers(1, 64))
def test_pack_uses_the_fewest_nodes(free, gpus):
    placement = pack(free, gpus)
    if sum(free) < gpus:
        assert placement is None
        return
    assert sum(c for _, c in placement) == gpus
    assert all(0 < c <= free[n] for n, c in placement)
    fewest = next(k for k in range(1, len(free) + 1) if sum(sorted(free)[-k:]) >= gpus)
    assert len(placement) == fewest
    if len(placement) > 1:  # spanning: emptiest first, lower index first among equals
        order = sorted(range(len(free)), key=lambda n: (-free[n], n))
        assert [n for n, _ in placement] == order[: len(placement)]


def test_packed_nodes():
    assert [packed_nodes(k, 4) for k in (1, 4, 5, 16, 17)] == [1, 1, 2, 4, 5]


def test_spread_keys_a_placement_as_the_artifact_does():
    assert spread(((5, 2), (2, 4))) == (2, 4)
    assert spread(((0, 4), (9, 2))) == (2, 4)
    assert spread(((3, 4), (1, 1), (2, 4), (0, 2))) == (1, 4, 4, 2)  # node order 2,1,4,4


@given(st.lists(st.integers(1, 8), min_size=1, max_size=8), st.integers(0, 7))
def test_spread_is_the_same_for_every_rotation_of_the_nodes(counts, shift):
    shift %= len(counts)
    rotated = counts[shift:] + counts[:shift]
    assert spread(tuple(enumerate(counts))) == spread(tuple(enumerate(rotated)))
    assert sorted(spread(tuple(enumerate(counts)))) == sorted(counts)
