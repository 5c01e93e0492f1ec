"""The compare layout's model on real traces of every gallery example and pair of variants.

Checked against the traces themselves (their jaxpr text, their equations'
shapes), not against the layout's own code: both sides stay level; every row
shows its equation's own printed lines, once, in order, indented by nesting;
every changed range is inside its line and means what it says (a batch-axis
range is the batch size JAX printed inside a type; a ``printed`` range is a
``{V:..}`` mark); blocks tile the lines; and the pair "Compare" opens with.
"""

from __future__ import annotations

import re

import pytest

from jaxviz.model import list_examples
from jaxviz.views.compare.diff_layout import CATEGORIES, SPAN_KINDS, default_pair, side_by_side
from jaxviz.views.compare.jaxpr_diff import diff_variants
from jaxviz.views.panes.link_index import walk

EXAMPLES = {ex.name: list(ex.variants) for ex in list_examples()}
ALL_PAIRS = [(name, a, b) for name, vs in EXAMPLES.items() for a in vs for b in vs if a != b]
_TYPE = re.compile(r"\b(?:bool|[a-z]+\d+)\[([^\]]*)\]")
_VMA = re.compile(r"\{V:[^{}]*\}")


def _pair(traced, name, a, b):
    left, right = traced[name].variant(a), traced[name].variant(b)
    assert left.ok and right.ok
    return left, right


@pytest.mark.parametrize("name, a, b", ALL_PAIRS)
def test_both_sides_show_every_equation_once_level_and_in_order(traced, name, a, b):
    left, right = _pair(traced, name, a, b)
    layout = side_by_side(diff_variants(left, right))
    assert len(layout.left) == len(layout.right)
    # The blocks tile the lines, in order; past a side's own lines there is only filler.
    at = 0
    for block in layout.blocks:
        assert block.top == at and block.category in CATEGORIES
        for which, count in (("left", block.left), ("right", block.right)):
            lines = layout.side(which)[block.top:block.top + block.height]
            assert [line.filler for line in lines] == [n >= count for n in range(block.height)]
        at += block.height
    assert at == len(layout.left)
    for which, vr in (("left", left), ("right", right)):
        lines = layout.side(which)
        text = vr.jaxpr_text.split("\n")
        paths = [path for path, _eqn in walk(vr.equations)]
        rows = [line.row for line in lines if not line.filler]
        firsts = [r for n, r in enumerate(rows) if n == 0 or rows[n - 1] != r]
        assert len(firsts) == len(set(firsts)) == len(paths)  # each equation's row once
        assert firsts == sorted(firsts)                       # in the diff's order
        for line in lines:
            if line.filler or line.jaxpr_line < 0:
                continue
            side = getattr(layout.diff.rows[line.row], which)
            own = text[line.jaxpr_line]
            assert line.text.strip() == own.strip()           # JAX's own line ...
            depth = len(paths[side.order]) - 1
            indent = len(line.text) - len(line.text.lstrip(" "))
            assert indent >= 2 * depth                        # ... indented by nesting
            for span in line.spans:
                assert span.kind in SPAN_KINDS and 0 <= span.start < span.end <= len(line.text)
                if span.kind == "printed":  # only ever a part of a {V:axes} mark
                    assert any(m.start() <= span.start and span.end <= m.end()
                               for m in _VMA.finditer(line.text)), (line.text, span)


@pytest.mark.parametrize("name", [n for n, vs in EXAMPLES.items() if {"plain", "vmap"} <= set(vs)])
def test_the_batch_axis_ranges_are_the_batch_size_jax_printed(traced, name):
    plain, vmap = _pair(traced, name, "plain", "vmap")
    batch = vmap.invars[0].shape[0] if vmap.invars[0].shape[1:] == plain.invars[0].shape \
        else vmap.invars[-1].shape[0]
    layout = side_by_side(diff_variants(plain, vmap))
    marked = 0
    for line in layout.right:
        for span in line.spans:
            if span.kind != "batch":
                continue
            inside = [m for m in _TYPE.finditer(line.text)
                      if m.start(1) <= span.start and span.end <= m.end(1) + 1]
            assert inside, (line.text, span)
            assert str(batch) in line.text[span.start:span.end].split(","), line.text
            marked += 1
    gained = sum(1 for block in layout.blocks if block.category == "batch")
    assert marked >= gained > 0


def test_pmap_is_one_added_block_then_the_unchanged_body(traced):
    plain, pmap = _pair(traced, "convolve", "plain", "pmap")
    layout = side_by_side(diff_variants(plain, pmap))
    first = layout.blocks[0]
    assert first.category == "added" and first.left == 0
    assert [layout.diff.rows[r].right.primitive for r in first.rows] == \
        ["jit", "shard_map", "squeeze", "squeeze"]
    assert {b.category for b in layout.blocks[1:-1]} == {"same"}


def test_psum_replaced_by_psum_invariant_and_pvary_is_one_block(traced):
    pmap, shard_map = _pair(traced, "normalize", "pmap", "shard_map")
    layout = side_by_side(diff_variants(pmap, shard_map))
    [block] = [b for b in layout.blocks if b.category == "replaced"]
    rows = [layout.diff.rows[r] for r in block.rows]
    assert [r.left.primitive for r in rows if r.left] == ["squeeze", "psum"]
    assert [r.right.primitive for r in rows if r.right] == ["psum_invariant", "pvary"]
    # check_vma=True types carry {V:p}: printed differently, not counted as a change
    printed = [line.text[s.start:s.end] for line in layout.right for s in line.spans
               if s.kind == "printed"]
    assert printed and all(text == "{V:p}" for text in printed)


def test_compare_opens_with_the_base_and_the_asked_variant():
    assert default_pair("vmap", ["plain", "vmap", "pmap"], ["plain", "vmap"]) == ("plain", "vmap")
    # plain cannot bind a collective's axis: vmap is the base then
    assert default_pair("pmap", ["vmap", "pmap", "shard_map"], ["vmap", "pmap"]) == \
        ("vmap", "pmap")
    # asked from the base: the next visible variant, else the next traced one
    assert default_pair("plain", ["plain", "jit", "pmap"], ["plain", "pmap"]) == \
        ("plain", "pmap")
    assert default_pair(None, ["plain", "jit"], ["plain"]) == ("plain", "jit")
    assert default_pair("vmap", ["vmap"], ["vmap"]) is None


def test_parameters_jax_does_not_print_are_named_not_written_out(traced):
    from jaxviz.views.compare.diff_layout import row_notes

    seen = set()
    for name, a, b in ALL_PAIRS:
        left, right = _pair(traced, name, a, b)
        for row in diff_variants(left, right).rows:
            printed = " ".join(t for s in (row.left, row.right) if s for t in s.text)
            hidden = [p.name for p in row.params
                      if not p.name.startswith("operand ") and f"{p.name}=" not in printed]
            notes = row_notes(row, hidden_by_name=True)
            full = " ".join(row_notes(row))
            for p in row.params:
                if p.name in hidden:
                    assert f"{p.name}: {p.left}" not in " ".join(notes)
                    seen.add(p.name)
                else:
                    assert (p.note or f"{p.name}: {p.left} -> {p.right}") in full
            if hidden:
                assert notes[-1].endswith("not printed by JAX: " + ", ".join(hidden))
    assert {"sharding", "out_sharding"} <= seen  # the long ones a sharded jaxpr carries
