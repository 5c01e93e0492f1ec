"""The what-if's device counts and meshes (plain Python)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jaxviz.model.what_if import MAX_COUNT, parse_counts, scaled_mesh


@given(st.lists(st.integers(1, MAX_COUNT), min_size=1, max_size=12))
def test_counts_parse_sorted_and_unique(counts):
    assert parse_counts(",".join(map(str, counts))) == sorted(set(counts))


@pytest.mark.parametrize("text, words", [("0", "1 to 512"), ("513", "1 to 512"),
                                          ("1,,2", "empty item"), ("x", "not a device count")])
def test_bad_counts_say_what(text, words):
    with pytest.raises(ValueError, match=words):
        parse_counts(text)


def test_the_first_mesh_axis_scales_and_the_others_stay():
    assert scaled_mesh(None, 16) == (None, "")
    assert scaled_mesh("data=4,model=2", 16) == ("data=8,model=2", "")
    mesh, problem = scaled_mesh("data=4,model=2", 1)
    assert mesh is None and "model=2" in problem
