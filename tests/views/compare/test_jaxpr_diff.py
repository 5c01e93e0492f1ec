"""The jaxpr diff on real traces of every gallery example (JAX runs in this process).

Every claim of the diff is checked against the traced equations themselves,
walked and read here: which equations exist, their source lines, primitives,
shapes and parameters, and whether they sit in a ``shard_map`` body.
"""

from __future__ import annotations

import ast
import json
import re
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jaxviz.model import Equation, Target, TraceRequest, from_plain, list_examples, to_plain
from jaxviz.views.compare.jaxpr_diff import KINDS, diff_variants

EXAMPLES = {ex.name: list(ex.variants) for ex in list_examples()}
#: Each declared variant against plain, or against vmap where plain cannot bind the axis.
def _base(vs: list[str]) -> str:
    return "plain" if "plain" in vs else "vmap" if "vmap" in vs else vs[0]


AGAINST_BASE = [(name, _base(vs), v) for name, vs in EXAMPLES.items() for v in vs
                if v != _base(vs)]
ALL_PAIRS = [(name, a, b) for name, vs in EXAMPLES.items() for a in vs for b in vs if a != b]
#: What vmap's batching rules add: broadcasts, transposes and reshapes of operands.
BATCHING_OPS = {"broadcast_in_dim", "transpose", "reshape", "squeeze", "expand_dims", "iota",
                "select_n", "eq", "stop_gradient", "convert_element_type"}
DEVICES = 8


def walk(equations: list[Equation], in_shard_map: bool = False):
    """(equation, inside a shard_map body) in pre-order: parents, then nested equations."""
    for eqn in equations:
        yield eqn, in_shard_map
        for sub in eqn.subjaxprs:
            yield from walk(sub.equations, in_shard_map or eqn.primitive == "shard_map")


def key(eqn: Equation):
    return (eqn.source.line if eqn.source else None, eqn.primitive)


def type_text(v) -> str:
    """The type as the jaxpr prints it: ``f32[4@X,8]`` (the sharding an explicit mesh puts in
    the type after ``@``)."""
    dims = [f"{n}@{s}" if s else str(n)
            for n, s in zip(v.shape, v.sharding or [""] * len(v.shape))]
    return f"{v.dtype}[{','.join(dims)}]"


def variant_pair(traced, name, a, b):
    left, right = traced[name].variant(a), traced[name].variant(b)
    assert left.ok and right.ok, (left.error, right.error)
    return left, right


def pairs_of(d):
    return [(r.left.order if r.left else None, r.right.order if r.right else None)
            for r in d.rows]


# --------------------------------------------------------------------------- #
# Every equation exactly once; pairs agree on line and primitive; pairing is maximal
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize("name, base, other", AGAINST_BASE)
def test_every_equation_of_both_sides_appears_exactly_once(traced, name, base, other):
    left, right = variant_pair(traced, name, base, other)
    d = diff_variants(left, right)
    for side, vr in (("left", left), ("right", right)):
        eqns = [e for e, _ in walk(vr.equations)]
        shown = [getattr(r, side) for r in d.rows if getattr(r, side) is not None]
        assert [s.order for s in shown] == list(range(len(eqns)))
        assert [s.primitive for s in shown] == [e.primitive for e in eqns]
        text = vr.jaxpr_text.split("\n")
        for s, e in zip(shown, eqns):
            # the side's text is the equation's own printed lines
            assert s.text == [text[n] for n in s.text_lines]
            assert f"= {e.primitive}" in " ".join(s.text)
    for r in d.rows:
        assert r.kind in KINDS
        assert (r.left is None) == (r.kind == "only_right")
        assert (r.right is None) == (r.kind == "only_left")
        if r.left and r.right:
            assert (r.left.line, r.left.primitive) == (r.right.line, r.right.primitive)


@pytest.mark.parametrize("name, a, b", ALL_PAIRS)
def test_only_one_side_has_it_only_when_the_other_has_fewer(traced, name, a, b):
    """For every (source line, primitive), as many pairs as the rarer side has equations."""
    left, right = variant_pair(traced, name, a, b)
    d = diff_variants(left, right)
    counts_l = Counter(key(e) for e, _ in walk(left.equations))
    counts_r = Counter(key(e) for e, _ in walk(right.equations))
    paired = Counter((r.left.line, r.left.primitive) for r in d.rows if r.left and r.right)
    for k in counts_l | counts_r:
        assert paired[k] == min(counts_l[k], counts_r[k]), k


# --------------------------------------------------------------------------- #
# The lecture's cases
# --------------------------------------------------------------------------- #


def test_convolve_vmap_every_dot_and_slice_gained_the_batch_axis(traced):
    plain, vmap = variant_pair(traced, "convolve", "plain", "vmap")
    batch = vmap.invars[0].shape[0]
    assert vmap.invars[0].shape[1:] == plain.invars[0].shape and batch == DEVICES
    d = diff_variants(plain, vmap)
    eqn_l = [e for e, _ in walk(plain.equations)]
    eqn_r = [e for e, _ in walk(vmap.equations)]
    gained = 0
    for r in d.rows:
        assert r.left and r.right, f"{r.kind}: {(r.left or r.right).primitive}"
        before, after = eqn_l[r.left.order], eqn_r[r.right.order]
        if after.outputs[0].shape == [batch] + before.outputs[0].shape:
            gained += 1
        if r.left.primitive not in ("dot_general", "slice"):
            continue
        assert after.outputs[0].shape == [batch] + before.outputs[0].shape
        assert r.kind == "shapes"
        assert r.text == (f"{type_text(before.outputs[0])} -> {type_text(after.outputs[0])}: "
                          f"gained the batch axis 0 ({batch})")
        c = r.shapes[0]
        assert (c.where, c.change, c.axes, c.right_sizes, c.batch) == \
            ("output", "gained", [0], [batch], True)
    assert Counter(r.left.primitive for r in d.rows) == Counter(
        {"dot_general": 3, "slice": 3, "broadcast_in_dim": 3, "concatenate": 1})
    assert d.summary == f"{gained} equations gained the batch axis, 0 added, 0 removed"


def test_convolve_vmap_dot_general_gained_batch_dimensions(traced):
    plain, vmap = variant_pair(traced, "convolve", "plain", "vmap")
    d = diff_variants(plain, vmap)
    eqn_r = [e for e, _ in walk(vmap.equations)]
    for r in d.rows:
        if r.left.primitive != "dot_general":
            continue
        (_, _), batch_dims = ast.literal_eval(eqn_r[r.right.order].params["dimension_numbers"])
        assert batch_dims == ((0,), (0,))
        change = next(p for p in r.params if p.name == "dimension_numbers")
        assert change.note.startswith("dot_general gained batch dimensions (lhs 0, rhs 0)")


def test_mlp_vmap_adds_only_batching_ops(traced):
    plain, vmap = variant_pair(traced, "mlp_predict", "plain", "vmap")
    d = diff_variants(plain, vmap)
    assert not [r for r in d.rows if r.kind == "only_left"]
    added = [r.right.primitive for r in d.rows if r.kind == "only_right"]
    assert added and set(added) <= BATCHING_OPS
    assert d.summary.endswith(f"{len(added)} added (broadcast_in_dim x{len(added)}), 0 removed")


def test_pmap_adds_the_shard_map_wrapper_and_squeezes(traced):
    plain, pmap = variant_pair(traced, "convolve", "plain", "pmap")
    d = diff_variants(plain, pmap)
    eqn_l, eqn_r = list(walk(plain.equations)), list(walk(pmap.equations))
    added = [r.right.primitive for r in d.rows if r.kind == "only_right"]
    assert added[:4] == ["jit", "shard_map", "squeeze", "squeeze"]
    assert not [r for r in d.rows if r.kind == "only_left"]
    for r in d.rows:
        eqn, in_body = eqn_r[r.right.order]
        assert r.right.per_device == in_body
        if r.left is None:
            continue
        # pmap's body runs on one example per device: the plain equations, unchanged
        before = eqn_l[r.left.order][0]
        assert [type_text(v) for v in eqn.outputs] == [type_text(v) for v in before.outputs]
        assert r.kind == "same" and in_body
        assert r.left.depth == 0 and r.right.depth == 2  # the body aligned against the top
    assert d.summary.startswith("10 equations unchanged, 5 added (jit, shard_map, squeeze x2")


def test_shard_map_shrinks_the_batch_to_the_per_device_size(traced):
    vmap, shard_map = variant_pair(traced, "convolve", "vmap", "shard_map")
    d = diff_variants(vmap, shard_map)
    body = [r for r in d.rows if r.left and r.right]
    assert len(body) == 10
    for r in body:
        c = r.shapes[0]
        assert c.change == "resized" and c.axes == [0] and c.per_device == "right"
        assert (c.left_sizes, c.right_sizes) == ([DEVICES], [1])
        assert r.text.endswith("per device: axis 0: 8 -> 1")
    assert d.summary.startswith("10 equations shrank to the per-device size")


def test_wrappers_open_before_what_was_removed(traced):
    vmap, shard_map = variant_pair(traced, "normalize", "vmap", "shard_map")
    d = diff_variants(vmap, shard_map)
    order = [(r.kind, (r.left or r.right).primitive) for r in d.rows]
    # jit[shard_map[...]] encloses the div both sides have: printed before vmap's psum
    assert order == [("only_right", "jit"), ("only_right", "shard_map"), ("only_left", "psum"),
                     ("only_right", "psum_invariant"), ("only_right", "pvary"),
                     ("shapes", "div")]


# --------------------------------------------------------------------------- #
# Every shape claim, against the shapes
# --------------------------------------------------------------------------- #

_NP_SCALAR = re.compile(r"np\.\w+\(([^()]*)\)")


@pytest.mark.parametrize("name, a, b", ALL_PAIRS)
def test_classification_claims_hold_for_the_equations_shapes(traced, name, a, b):
    left, right = variant_pair(traced, name, a, b)
    d = diff_variants(left, right)
    eqn_l, eqn_r = list(walk(left.equations)), list(walk(right.equations))
    assert d.batch in (None, DEVICES)
    for r in d.rows:
        if not (r.left and r.right):
            continue
        (el, in_l), (er, in_r) = eqn_l[r.left.order], eqn_r[r.right.order]
        types = [(type_text(x), type_text(y)) for x, y in zip(el.outputs + el.inputs,
                                                              er.outputs + er.inputs)]
        if r.kind != "shapes":
            assert all(x == y for x, y in types)
        if r.kind == "same":
            nested = {s.param.split("[")[0] for s in el.subjaxprs + er.subjaxprs}
            strip = {k: _NP_SCALAR.sub(r"\1", v) for k, v in el.params.items() if k not in nested}
            assert strip == {k: _NP_SCALAR.sub(r"\1", v) for k, v in er.params.items()
                             if k not in nested}
            # the records hold dtype and shape; the printed text can differ only in what
            # they do not hold: shard_map's varying-manual-axes annotation {V:axis}
            for side, vr in ((r.left, left), (r.right, right)):
                for t in side.changed:
                    line = vr.jaxpr_text.split("\n")[t.line]
                    assert re.fullmatch(r"\{V:[\w, ]+\}", line[t.start:t.end]), line
        if r.kind == "shapes":
            assert r.shapes and any(x != y for x, y in types)
        if r.kind == "params":
            assert r.params
            for p in r.params:
                if not p.name.startswith("operand"):
                    assert el.params.get(p.name) == p.left and er.params.get(p.name) == p.right
                    assert p.left != p.right
        for c in r.shapes:
            x = (el.outputs if c.where == "output" else el.inputs)[c.index]
            y = (er.outputs if c.where == "output" else er.inputs)[c.index]
            assert (c.left, c.right) == (type_text(x), type_text(y))
            assert c.per_device == ("left" if in_l and not in_r else
                                    "right" if in_r and not in_l else "")
            ls, rs = x.shape, y.shape
            if c.change == "gained":
                assert [n for k, n in enumerate(rs) if k not in c.axes] == ls
                assert c.right_sizes == [rs[k] for k in c.axes]
                assert c.batch == (d.batch is not None and set(c.right_sizes) == {d.batch})
            elif c.change == "lost":
                assert [n for k, n in enumerate(ls) if k not in c.axes] == rs
                assert c.left_sizes == [ls[k] for k in c.axes]
                assert c.batch == (d.batch is not None and set(c.left_sizes) == {d.batch})
            elif c.change == "resized":
                assert len(ls) == len(rs) and c.axes == [k for k in range(len(ls))
                                                         if ls[k] != rs[k]]
            elif c.change == "dtype":
                assert ls == rs and x.dtype != y.dtype
            elif c.change == "sharding":
                assert ls == rs and x.dtype == y.dtype and x.sharding != y.sharding
            for axis, before, after in zip(c.axes, c.left_sizes, c.right_sizes):
                assert f"axis {axis}: {before} -> {after}" in c.text


@pytest.mark.parametrize("name, base, other", AGAINST_BASE)
def test_the_batch_is_the_size_the_inputs_gained(traced, name, base, other):
    left, right = variant_pair(traced, name, base, other)
    d = diff_variants(left, right)
    grown = [(x.shape, y.shape) for x, y in zip(left.invars, right.invars) if x.shape != y.shape]
    if not grown:  # at most the sharding the types carry changed
        assert d.batch is None and all(c.change == "sharding" for c in d.inputs)
        assert [c.index for c in d.inputs] == [n for n, (x, y) in enumerate(
            zip(left.invars, right.invars)) if x.sharding != y.sharding]
        return
    # the examples batch over the 8 devices by default: one leading axis of 8
    assert all(after == [DEVICES] + before for before, after in grown)
    assert d.batch == DEVICES
    assert [c.right_sizes for c in d.inputs] == [[DEVICES]] * len(grown)


# --------------------------------------------------------------------------- #
# Properties: a variant against itself; the mirror; the plain-data form
# --------------------------------------------------------------------------- #

VARIANT_CASES = [(name, v) for name, vs in EXAMPLES.items() for v in vs]


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(VARIANT_CASES), st.booleans())
def test_a_variant_against_itself_is_all_same(traced, case, copy):
    name, variant = case
    vr = traced[name].variant(variant)
    other = from_plain(to_plain(vr)) if copy else vr
    d = diff_variants(vr, other)
    n = sum(1 for _ in walk(vr.equations))
    assert [r.kind for r in d.rows] == ["same"] * n
    assert all(not r.left.changed and not r.right.changed for r in d.rows)
    assert d.summary == f"{n} equation{'s' if n != 1 else ''} unchanged, 0 added, 0 removed"
    assert not d.inputs and not d.outputs


def _segments(pairs):
    """Paired rows in order, and between them the unpaired ones as sets."""
    out, gap = [], set()
    for p in pairs:
        if None in p:
            gap.add(p)
        else:
            out += [frozenset(gap), p]
            gap = set()
    return out + [frozenset(gap)]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(list(EXAMPLES)), st.data())
def test_pairing_is_symmetric(traced, name, data):
    a = data.draw(st.sampled_from(EXAMPLES[name]))
    b = data.draw(st.sampled_from(EXAMPLES[name]))
    left, right = variant_pair(traced, name, a, b)
    ab, ba = diff_variants(left, right), diff_variants(right, left)
    assert _segments(pairs_of(ab)) == _segments([(j, i) for i, j in pairs_of(ba)])
    back = {(r.right.order if r.right else None, r.left.order if r.left else None): r
            for r in ba.rows}
    flip = {"only_left": "only_right", "only_right": "only_left"}
    lost_gained = {"gained": "lost", "lost": "gained"}
    for r in ab.rows:
        m = back[(r.left.order if r.left else None, r.right.order if r.right else None)]
        assert m.kind == flip.get(r.kind, r.kind)
        if r.left and r.right:
            assert (r.left.changed, r.right.changed) == (m.right.changed, m.left.changed)
        assert [(p.name, p.left, p.right) for p in r.params] == \
            [(p.name, p.right, p.left) for p in m.params]
        for c, cm in zip(r.shapes, m.shapes, strict=True):
            assert (c.left, c.right, c.axes) == (cm.right, cm.left, cm.axes)
            assert (c.left_sizes, c.right_sizes) == (cm.right_sizes, cm.left_sizes)
            assert lost_gained.get(c.change, c.change) == cm.change


def test_the_diff_round_trips_through_plain_data(traced):
    plain, pmap = variant_pair(traced, "convolve", "plain", "pmap")
    d = diff_variants(plain, pmap)
    data = json.loads(json.dumps(to_plain(d)))
    assert data["record"]["__type__"] == "JaxprDiff"
    assert from_plain(data) == d


def test_a_failed_variant_is_refused(traced):
    failed = core_trace_failed()
    with pytest.raises(ValueError, match="plain variant failed to trace"):
        diff_variants(failed, failed)


def core_trace_failed():
    from jaxviz import core
    from tests.helpers.jax_requests import example_request

    req = example_request("normalize", variants=["plain"])
    vr = core.trace_request(req).variant("plain")
    assert vr.error is not None
    return vr


# --------------------------------------------------------------------------- #
# Nested jaxprs: scan bodies, custom_jvp, jit, cond (a user's file)
# --------------------------------------------------------------------------- #

NESTED = '''\
import jax
import jax.numpy as jnp


def f(x):
    def body(c, xi):
        c = c + jnp.sin(xi)
        return c, c * 2
    c, ys = jax.lax.scan(body, 0.0, x)
    y = jax.nn.relu(ys).sum()
    return jax.lax.cond(c > 0, lambda v: v * 2.0, lambda v: v - 1.0, y)
'''


def test_nested_jaxprs_are_aligned_recursively():
    from jaxviz import core

    target = Target(source=NESTED, filename="<editor:nested.py>", function="f")
    result = core.trace_request(TraceRequest(target=target, args="f32[5]", batch=4,
                                             variants=["plain", "vmap"], want=["jaxpr"]))
    plain, vmap = result.variant("plain"), result.variant("vmap")
    assert plain.ok and vmap.ok
    d = diff_variants(plain, vmap)
    eqn_l = list(walk(plain.equations))
    rows = {(r.left or r.right).primitive: r for r in d.rows}
    scan = rows["scan"]
    assert scan.kind == "shapes" and scan.left and scan.right
    inside = [r for r in d.rows if r.left and r.left.path[:-1] == scan.left.path]
    # the scan body (sin, convert_element_type, add, mul) pairs with vmap's scan body
    assert [r.left.primitive for r in inside] == [
        e.primitive for e in eqn_l[scan.left.order][0].subjaxprs[0].equations]
    assert all(r.right and r.right.path[:-1] == scan.right.path for r in inside)
    assert rows["max"].left.depth == rows["max"].right.depth == 2  # custom_jvp_call > jit > max
    # vmap turns a cond with a batched predicate into select_n: the cond is only in plain,
    # and its branches' equations pair with vmap's top-level ones
    assert rows["cond"].kind == "only_left"
    for prim in ("sub", "mul"):
        branch = [r for r in d.rows if r.left and r.left.primitive == prim and r.left.depth == 1
                  and r.left.path[:-1] == rows["cond"].left.path]
        assert branch and all(r.right and r.right.depth == 0 for r in branch)
