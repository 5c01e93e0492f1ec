"""Pytree partition specs, axis types, out_axes, static arguments and device orders, as typed."""

from __future__ import annotations

import ast

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jaxviz.model.as_written import transformed_reason
from jaxviz.model.call_options import (
    parse_axis_types,
    parse_devices_order,
    parse_out_axes,
    parse_static,
)
from jaxviz.model.partition_specs import (
    SpecDict,
    SpecSeq,
    format_spec_tree,
    parse_partition_specs,
    partition_axis_names,
    spec_leaves,
)
from jaxviz.model.specs import Aval, Expr, SpecError, parse_args, parse_call_args
from jaxviz.views.window.window_state import WindowState, call_arity_problem, find_field_errors


def test_a_pytree_of_specs_per_argument():
    text = "[(P(), P()), (P(None, 'model'), P('model'))], P('data')"
    params, x = parse_partition_specs(text)
    assert params == SpecSeq("list", (SpecSeq("tuple", ((), ())),
                                      SpecSeq("tuple", ((None, "model"), ("model",)))))
    assert x == ("data",)
    assert spec_leaves(params) == [(), (), (None, "model"), ("model",)]
    assert partition_axis_names(params) == ["model", "model"]
    assert format_spec_tree(params) == "[(P(), P()), (P(None, 'model'), P('model'))]"


def test_dicts_and_prefixes():
    [tree, prefix] = parse_partition_specs("{'w': P(None, 'm'), 'b': P('m')}, P()")
    assert tree == SpecDict((("w", (None, "m")), ("b", ("m",))))
    assert prefix == ()


spec = st.lists(st.sampled_from([None, "data", "model", ("data", "model")]), max_size=3).map(
    tuple)
trees = st.recursive(spec, lambda inner: st.one_of(
    st.lists(inner, max_size=3).map(lambda xs: SpecSeq("list", tuple(xs))),
    st.lists(inner, min_size=2, max_size=3).map(lambda xs: SpecSeq("tuple", tuple(xs))),
    st.dictionaries(st.sampled_from(["w", "b", "k"]), inner, max_size=2).map(
        lambda d: SpecDict(tuple(d.items())))), max_leaves=6)


@given(st.lists(trees, min_size=1, max_size=3))
def test_spec_trees_round_trip(specs):
    text = ", ".join(format_spec_tree(t) for t in specs)
    assert parse_partition_specs(text) == specs


@pytest.mark.parametrize("text, position, words", [
    ("[P(), Q()]", 6, "must look like P("),
    ("{k: P()}", 1, "dict keys must be constants"),
    ("(P('a'), P(1))", 11, "bad partition spec entry"),
    ("[P(), P()", 0, "never closed"),
])
def test_bad_spec_trees_point_at_the_fault(text, position, words):
    with pytest.raises(SpecError) as info:
        parse_partition_specs(text)
    assert info.value.position == position and words in info.value.message


def test_axis_types():
    assert parse_axis_types(None, 2) == ["auto", "auto"]
    assert parse_axis_types("explicit", 2) == ["explicit", "explicit"]
    assert parse_axis_types("Explicit, auto", 2) == ["explicit", "auto"]
    assert parse_axis_types("AxisType.Explicit", 1) == ["explicit"]
    with pytest.raises(SpecError, match="one of auto, explicit") as info:
        parse_axis_types("explicit,manual", 2)
    assert info.value.position == 9
    with pytest.raises(SpecError, match="3 axis types for a mesh of 2 axes"):
        parse_axis_types("auto,auto,auto", 2)


def test_out_axes():
    assert parse_out_axes(None) == 0
    assert parse_out_axes("1") == 1
    assert parse_out_axes("0, None") == (0, None)
    assert parse_out_axes("[0, {'a': -1}]") == [0, {"a": -1}]
    with pytest.raises(SpecError, match="integers or None") as info:
        parse_out_axes("0, 'x'")
    assert info.value.position == 3


def test_static_arguments_in_args_and_alone():
    positional, static = parse_call_args("f32[8], n=3, mode='sum'")
    assert positional == [Aval("f32", (8,))]
    assert [(s.name, s.spec, s.position) for s in static] == [
        ("n", Expr("3"), 8), ("mode", Expr("'sum'"), 13)]
    with pytest.raises(SpecError, match="not supported"):
        parse_args("x, n=3")  # batched arguments have no static ones
    assert [s.name for s in parse_static("activation=jax.nn.relu, mesh=mesh")] == [
        "activation", "mesh"]
    with pytest.raises(SpecError, match="name=value"):
        parse_static("3")
    with pytest.raises(SpecError, match="given twice"):
        parse_static("n=1, n=2")
    with pytest.raises(SpecError, match="never traced") as info:
        parse_static("x=1, n=i32[]")
    assert info.value.position == 5


def test_devices_order():
    assert parse_devices_order("0,2,4,6,1,3,5,7", 8) == [0, 2, 4, 6, 1, 3, 5, 7]
    assert parse_devices_order("", 8) is None
    for text, position, words in [("0,1,1", 4, "named twice"), ("0,9", 2, "no device 9"),
                                  ("0,a", 2, "not a non-negative integer")]:
        with pytest.raises(SpecError, match=words) as info:
            parse_devices_order(text, 8)
        assert info.value.position == position


def test_the_window_checks_the_new_fields_as_they_are_typed():
    errors = find_field_errors({"args": "x, n=3", "mesh": "X=2,Y=4",
                                "axis_types": "explicit,auto,auto", "out_axes": "0, 'a'",
                                "static": "k=f32[2]", "devices_order": "0,1,2"}, 8)
    assert set(errors) == {"axis_types", "out_axes", "static", "devices_order"}
    assert "8 devices" in errors["devices_order"][0]
    assert find_field_errors({"args": "x, n=3", "mesh": "X=2,Y=4", "axis_types": "explicit",
                              "specs": "[P('X'), P()], P(None, 'Y')"}, 8) == {}
    assert "'Z' is not an axis" in find_field_errors(
        {"args": "x", "mesh": "X=8", "specs": "{'a': P('Z')}"}, 8)["specs"][0]


@pytest.mark.parametrize("source, reason", [
    ("import jax\n@jax.jit\ndef f(x):\n    return x\n", "f is decorated with jax.jit (line 2)"),
    ("import functools, jax\n@functools.partial(jax.jit, static_argnames='n')\n"
     "def f(x, n):\n    return x\n", "f is decorated with jax.jit (line 2)"),
    ("from jax import shard_map\n@shard_map(mesh=m, in_specs=P(), out_specs=P())\n"
     "def f(x):\n    return x\n", "f is decorated with shard_map (line 2)"),
    ("import jax\ndef g(x):\n    return x\nf = jax.jit(jax.shard_map(g, mesh=m))\n",
     "f = jax.jit(...) (line 4)"),
    ("import jax\njax.set_mesh(m)\ndef f(x):\n    return x\n",
     "the module calls jax.set_mesh (line 2)"),
    ("import jax\ndef f(x):\n    return jax.jit(g)(x)\n", None),
    ("import jax\nwith jax.set_mesh(m):\n    y = 1\ndef f(x):\n    return x\n", None),
    ("import jax\n@jax.jit\ndef f(x):\n    return x\ndef f(x):\n    return x\n", None),
    ("def f(:\n", None),
])
def test_what_counts_as_already_transformed(source, reason):
    assert transformed_reason(source, "f") == reason


def test_names_bound_to_a_transformation_are_functions_to_pick():
    from jaxviz.model import list_functions

    source = ("import jax\ndef g(x):\n    return x\nf = jax.jit(jax.shard_map(g, mesh=m))\n"
              "h = make(g)\nk = lambda x: x\n")
    assert list_functions(source) == ["g", "f", "k"]


@pytest.mark.parametrize("args, static, problem", [
    ("x", "", "powers takes 2 arguments (x, n), but the arguments give 1"),
    ("x", "n=3", None),
    ("x, n=3", "", None),
    ("x, 3", "", None),
    ("x", "k=3", None),  # a name the function lacks: the engine names its parameters
    ("x, 3, 4", "", "powers takes 2 arguments (x, n), but the arguments give 3"),
])
def test_static_arguments_count_among_the_arguments(args, static, problem):
    source = "def powers(x, n):\n    return x ** n\n"
    assert call_arity_problem(ast.parse(source), "powers", args, static) == problem


def test_a_bad_static_field_is_marked_not_raised():
    s = WindowState(source="def powers(x, n):\n    return x ** n\n", function="powers",
                    filename="p.py")
    s.set_setting("args", "f32[3]")
    s.set_setting("static", "0")
    problem = s.request_problem()
    assert problem.field == "static" and "name=value" in problem.message
