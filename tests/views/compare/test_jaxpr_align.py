"""The alignment and token diff under the jaxpr diff: complete, maximal, symmetric."""

from __future__ import annotations

from functools import cache

from hypothesis import given, settings
from hypothesis import strategies as st

from jaxviz.views.compare import jaxpr_align
from jaxviz.views.compare.jaxpr_align import align, changed_tokens, mirror, token_spans

seqs = st.lists(st.sampled_from("abcd"), max_size=12)


def lcs_length(a: str, b: str) -> int:
    """The longest common subsequence, by the textbook recursion (independent of align)."""

    @cache
    def rec(i: int, j: int) -> int:
        if i == len(a) or j == len(b):
            return 0
        if a[i] == b[j]:
            return 1 + rec(i + 1, j + 1)
        return max(rec(i + 1, j), rec(i, j + 1))

    return rec(0, 0)


def check(a: list[str], b: list[str], pairs) -> None:
    assert [i for i, _ in pairs if i is not None] == list(range(len(a)))
    assert [j for _, j in pairs if j is not None] == list(range(len(b)))
    assert all(a[i] == b[j] for i, j in pairs if i is not None and j is not None)
    assert sum(1 for i, j in pairs if i is not None and j is not None) == \
        lcs_length("".join(a), "".join(b))


@settings(max_examples=300, deadline=None)
@given(seqs, seqs)
def test_align_is_complete_ordered_maximal_and_symmetric(a, b):
    pairs = align(a, b, key=str)
    check(a, b, pairs)
    assert align(b, a, key=str) == mirror(pairs)


@settings(max_examples=100, deadline=None)
@given(seqs, seqs)
def test_anchored_alignment_of_long_sequences_is_complete_and_symmetric(a, b):
    old = jaxpr_align.EXACT_CELLS
    jaxpr_align.EXACT_CELLS = 4  # force the difflib-anchored path
    try:
        pairs = align(a, b, key=str)
        assert [i for i, _ in pairs if i is not None] == list(range(len(a)))
        assert [j for _, j in pairs if j is not None] == list(range(len(b)))
        assert all(a[i] == b[j] for i, j in pairs if i is not None and j is not None)
        assert align(b, a, key=str) == mirror(pairs)
    finally:
        jaxpr_align.EXACT_CELLS = old


def test_affinity_chooses_among_equally_long_alignments():
    # x pairs with either x of b; the one with the same "shape" wins
    a = [("x", 3)]
    b = [("x", 1), ("x", 3)]
    same_shape = lambda p, q: 3 if p[1] == q[1] else 0  # noqa: E731
    assert align(a, b, key=lambda t: t[0], affinity=same_shape) == [(None, 0), (0, 1)]
    assert align(b, a, key=lambda t: t[0], affinity=same_shape) == [(0, None), (1, 0)]


def test_unpaired_items_of_the_left_come_first_in_a_run():
    assert align(list("xay"), list("xby"), key=str) == [(0, 0), (1, None), (None, 1), (2, 2)]
    assert align(list("xby"), list("xay"), key=str) == [(0, 0), (1, None), (None, 1), (2, 2)]


def test_changed_tokens_ignore_variable_names():
    left = ["c:i32[3] = slice[limit_indices=(3,)] a"]
    right = ["e:i32[8,3] = slice[limit_indices=(8, 3)] b"]
    lt, rt = changed_tokens(left, right, {"a", "c"}, {"b", "e"})
    assert [t.text for t in rt] == ["8", ",", "8", ","]
    assert [t.text for t in lt] == [","]  # (3,) lost its trailing comma: (8, 3)
    at = right[0].index("(8, 3)") + 1
    assert token_spans(rt) == [(0, 6, 8), (0, at, at + 2)]
    assert right[0][6:8] == "8," and right[0][at:at + 2] == "8,"


def test_a_name_is_not_a_variable_inside_a_string():
    lt, rt = changed_tokens(["b = psum[axes=('i',)] a"], ["b = psum[axes=('p',)] a"],
                            {"a", "b", "i"}, {"a", "b", "p"})
    assert [t.text for t in lt] == ["'i'"] and [t.text for t in rt] == ["'p'"]


def test_spans_do_not_swallow_unchanged_tokens_between_changed_ones():
    lt, rt = changed_tokens(["f32[1,2]"], ["f32[3,4]"], set(), set())
    assert token_spans(rt) == [(0, 4, 5), (0, 6, 7)]


def test_long_repetitive_sequences_align_fully_and_symmetrically():
    """5,000 items of three repeated keys (a chain of layers), with equations inserted
    into one side (vmap's broadcasts, pmap's wrapper): every item of the shorter side
    pairs, as the longest common subsequence does, and swapping the sides mirrors it."""
    import random

    rng = random.Random(7)
    a = ["dot_general", "tanh", "add"] * 1667
    b = list(a)
    for _ in range(40):
        b.insert(rng.randrange(len(b) + 1), rng.choice(["broadcast_in_dim", "tanh"]))
    b = ["pjit", "shard_map"] + b
    assert len(a) * len(b) > jaxpr_align.EXACT_CELLS  # the anchored path, not the exact one
    pairs = align(a, b, key=str)
    paired = [(i, j) for i, j in pairs if i is not None and j is not None]
    assert len(paired) == len(a)
    assert all(a[i] == b[j] for i, j in paired)
    assert sorted(i for i, _ in pairs if i is not None) == list(range(len(a)))
    assert sorted(j for _, j in pairs if j is not None) == list(range(len(b)))
    assert align(b, a, key=str) == mirror(pairs)
