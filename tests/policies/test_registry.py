"""The registry: every name makes its policy, and each has words for a room to read."""

from __future__ import annotations

import pytest

from engine.errors import UnknownName
from engine.policies import POLICIES, display_name, make_policy


@pytest.mark.parametrize("name", list(POLICIES))
def test_every_entry_makes_a_policy_of_that_name(name):
    assert make_policy(name).name in (name, POLICIES[name].load().name)


def test_titles_are_distinct_and_descriptions_are_sentences():
    titles = [entry.title for entry in POLICIES.values()]
    assert len(set(titles)) == len(titles)
    for entry in POLICIES.values():
        assert entry.about.endswith(".") and 60 < len(entry.about) < 400


def test_display_name_puts_the_title_beside_the_code_name():
    assert display_name("fifo-request") == "Slurm FIFO (fifo-request)"
    assert display_name("trained-1") == "trained-1"


def test_an_unknown_name_lists_the_known_ones():
    with pytest.raises(UnknownName, match="known: fifo-request, "):
        make_policy("nope")


def test_no_display_name_nests_brackets():
    """"Tuned threshold (hindsight) (threshold-optimal)" read as two asides."""
    from engine.policies import ELASTIC_POLICIES

    for name in [*POLICIES, *ELASTIC_POLICIES]:
        assert display_name(name).count("(") == 1, display_name(name)
