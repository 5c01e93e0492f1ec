"""The spec parsers: round trips (property-based) and errors that point at the fault."""

import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jaxviz.model.partition_specs import format_partition_spec, parse_partition_specs
from jaxviz.model.specs import (
    DTYPES,
    Aval,
    Dict,
    Expr,
    Seq,
    SpecError,
    format_args,
    format_mesh,
    parse_args,
    parse_in_axes,
    parse_mesh,
)

avals = st.builds(Aval, st.sampled_from(sorted(DTYPES)),
                  st.lists(st.integers(0, 4096), max_size=4).map(tuple))
exprs = st.sampled_from(["jnp.arange(5.)", "x", "init(jax.random.key(0))", "np.ones((2, 3))",
                         "3", "1.5", "'text'", "a.b[0]"]).map(Expr)
keys = st.text(string.ascii_letters, min_size=1, max_size=5)


def _trees(children):
    return st.one_of(
        st.builds(Seq, st.sampled_from(["list", "tuple"]),
                  st.lists(children, max_size=3).map(tuple)),
        st.builds(Dict, st.dictionaries(keys, children, max_size=3).map(
            lambda d: tuple(d.items()))),
    )


specs = st.recursive(st.one_of(avals, exprs), _trees, max_leaves=8)
#: Without expressions, whose text is kept verbatim (spaces included).
type_specs = st.recursive(avals, _trees, max_leaves=8)


@given(st.lists(specs, max_size=4))
@settings(max_examples=300)
def test_format_then_parse_round_trips(trees):
    text = format_args(trees)
    assert parse_args(text) == trees


@given(st.lists(type_specs, min_size=1, max_size=4))
def test_whitespace_does_not_matter(trees):
    text = format_args(trees)
    spaced = text.replace(",", " , ").replace("[", "[ ")
    assert parse_args(spaced) == trees


@given(st.lists(specs, min_size=1, max_size=4), st.data())
@settings(max_examples=300)
def test_unbalanced_brackets_are_rejected_with_a_position(trees, data):
    text = format_args(trees)
    closers = [i for i, ch in enumerate(text) if ch in ")]}"]
    if not closers:
        text = text + "["
    else:
        drop = data.draw(st.sampled_from(closers))
        text = text[:drop] + text[drop + 1:]
    with pytest.raises(SpecError) as info:
        parse_args(text)
    err = info.value
    assert 0 <= err.position <= len(text)
    # The position points at a bracket: the unmatched opener, or a closer
    # that does not match the innermost opener.
    assert text[err.position] in "([{}])"
    assert "^" in err.pretty()


def test_examples_from_the_issue():
    assert parse_args("f32[5], i32[], bf16[8,128]") == [
        Aval("f32", (5,)), Aval("i32", ()), Aval("bf16", (8, 128))]
    tree = parse_args("[(f32[784,512], f32[512]), (f32[512,10], f32[10])], f32[784]")
    assert tree[0] == Seq("list", (Seq("tuple", (Aval("f32", (784, 512)), Aval("f32", (512,)))),
                                   Seq("tuple", (Aval("f32", (512, 10)), Aval("f32", (10,))))))
    assert parse_args("jnp.arange(5.), init_params(jax.random.key(0))") == [
        Expr("jnp.arange(5.)"), Expr("init_params(jax.random.key(0))")]
    mixed = parse_args("{'w': f32[3], 'b': jnp.zeros(3)}, f32[2]")
    assert mixed == [Dict((("w", Aval("f32", (3,))), ("b", Expr("jnp.zeros(3)")))),
                     Aval("f32", (2,))]


@pytest.mark.parametrize("text, position, words", [
    ("f32[5], f31[3]", 8, "unknown dtype 'f31'"),
    ("f32[5], f32[a]", 12, "'a' is not a non-negative integer"),
    ("f32[5], , f32[3]", 8, "invalid spec syntax"),
    ("f32[5", 3, "never closed"),
    ("f32[5]]", 6, "no matching opening bracket"),
    ("x=f32[3]", 0, "keyword arguments"),
    ("*xs", 0, "unpacking"),
    ("{k: f32[1]}", 1, "dict keys must be constants"),
])
def test_malformed_specs_point_at_the_fault(text, position, words):
    with pytest.raises(SpecError) as info:
        parse_args(text)
    assert info.value.position == position
    assert words in info.value.message


def test_in_axes():
    assert parse_in_axes("0, None", 2) == [0, None]
    assert parse_in_axes(None, 3) == [0, 0, 0]
    assert parse_in_axes("1", 2) == [1, 1]
    with pytest.raises(SpecError, match="2 entries for 3 arguments"):
        parse_in_axes("0, 0", 3)
    with pytest.raises(SpecError, match="integer or None"):
        parse_in_axes("0, 'a'", 2)


@given(st.lists(st.tuples(st.from_regex(r"[a-z_][a-z0-9_]{0,6}", fullmatch=True),
                          st.integers(1, 64)), min_size=1, max_size=3,
                unique_by=lambda t: t[0]))
def test_mesh_round_trips(axes):
    assert parse_mesh(format_mesh(axes)) == axes


@pytest.mark.parametrize("text, words", [
    ("data=4,data=2", "named twice"), ("data", "name=size"), ("data=0", "size >= 1"),
    ("", "at least one axis")])
def test_bad_meshes(text, words):
    with pytest.raises(SpecError, match=words):
        parse_mesh(text)


def test_partition_specs_round_trip():
    text = "P('data', None), P(), PartitionSpec(('data', 'model'))"
    specs = parse_partition_specs(text)
    assert specs == [("data", None), (), (("data", "model"),)]
    again = ", ".join(format_partition_spec(s) for s in specs)
    assert parse_partition_specs(again) == specs
    with pytest.raises(SpecError) as info:
        parse_partition_specs("P('data'), Q()")
    assert info.value.position == 11


@pytest.mark.parametrize("parse, text, position, words", [
    (parse_mesh, "\n,Nodata=4", 0, "the mesh is one line of name=size items; '\\n' does not"),
    (parse_mesh, "data=4,,model=2", 7, "an empty mesh axis: give name=size before this comma"),
    (parse_mesh, ",data=4", 0, "an empty mesh axis"),
    (parse_mesh, "data=4\tmodel=2", 6, "'\\t' does not belong"),
    (lambda text: parse_in_axes(text, 2), "0, y=None", 3,
     "keyword items are not supported in in_axes"),
    (parse_partition_specs, "P('i'), y=P()", 8,
     "keyword items are not supported in partition specs"),
])
def test_settings_refuse_what_they_would_drop_or_misread(parse, text, position, words):
    with pytest.raises(SpecError) as caught:
        parse(text)
    assert caught.value.position == position and words in caught.value.message
