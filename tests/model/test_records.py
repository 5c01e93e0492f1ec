"""The plain-data codec of the records that cross the process boundary."""

import json

import pytest

from jaxviz.model import (
    SCHEMA_VERSION,
    ArrayLayout,
    Equation,
    ErrorInfo,
    SchemaMismatch,
    ShardInfo,
    SourceSpan,
    Target,
    TraceRequest,
    TraceResult,
    VariantResult,
    VarInfo,
    from_plain,
    to_plain,
)


def test_round_trip_through_json():
    eq = Equation("dot_general", {"precision": "None"}, [VarInfo("a", [3], "f32")],
                  [VarInfo("b", [], "f32")], SourceSpan("f.py", 7, 22, 7, 45, "convolve"), 2, 5)
    layout = ArrayLayout("x", "input", [8, 5], "f32", "NamedSharding", "P('i',)", False, [1, 5],
                         [ShardInfo(0, [[0, 1], [0, 5]])])
    result = TraceResult("convolve", "f.py", variants=[
        VariantResult("pmap", call="jax.pmap(f)(x)", equations=[eq], arrays=[layout]),
        VariantResult("plain", error=ErrorInfo("trace", "boom", line=3))])
    again = from_plain(json.loads(json.dumps(to_plain(result))))
    assert again == result
    assert again.variant("plain").error.line == 3
    assert not again.variant("plain").ok


def test_requests_round_trip():
    req = TraceRequest(target=Target("def f(x): return x", "<editor:f.py>", "f"), args="f32[3]",
                       variants=["plain", "vmap"], in_axes="0", mesh="i=8")
    assert from_plain(to_plain(req)) == req


def test_other_schema_versions_are_refused():
    data = to_plain(Target("", "f.py", "f"))
    data["schema"] = SCHEMA_VERSION + 1
    with pytest.raises(SchemaMismatch, match="another jaxviz version"):
        from_plain(data)


def test_two_record_classes_may_not_share_a_name():
    # Records are tagged by class name: a second "Step" would decode as the first.
    from dataclasses import make_dataclass

    from jaxviz.model import register
    from jaxviz.model.stepping import EvalStep
    from jaxviz.model.storyboard import Step

    impostor = make_dataclass("Step", [("kind", str)])
    with pytest.raises(ValueError, match="record name 'Step' is taken by jaxviz.model.storyboard"):
        register(impostor)
    assert type(from_plain(to_plain(Step(kind="compute")))) is Step
    decoded = from_plain(to_plain(EvalStep(kind="enter", path="0", depth=0, primitive="jit")))
    assert type(decoded) is EvalStep


def test_an_arrays_tiles_are_its_layouts_shards_grouped_by_block():
    # f32[4,6] over 4 devices: rows split in two, each half held whole by two devices
    shards = [ShardInfo(3, [[2, 4], [0, 6]]), ShardInfo(0, [[0, 2], [0, 6]]),
              ShardInfo(2, [[2, 4], [0, 6]]), ShardInfo(1, [[0, 2], [0, 6]])]
    layout = ArrayLayout("x", "input", [4, 6], "f32", "NamedSharding", "P('data', None)",
                         False, [2, 6], shards)
    tiles = layout.as_tiles([["data"], []], program_devices=[0, 1, 2, 3])
    assert [(t.index, t.devices) for t in tiles.tiles] == [
        ([[0, 2], [0, 6]], [0, 1]), ([[2, 4], [0, 6]], [2, 3])]
    assert tiles.tile_shape == [2, 6] and tiles.devices == [0, 1, 2, 3]
    assert tiles.split_by == [["data"], []] and not tiles.replicated
    assert tiles.spec == "P('data', None)" and tiles.type_str == "f32[4,6]"
    whole = ArrayLayout("w", "input", [3], "f32", "NamedSharding", "P()", True, [3],
                        [ShardInfo(d, [[0, 3]]) for d in range(4)])
    assert whole.as_tiles([[]], program_devices=[0, 1, 2, 3]).replicated
    assert not whole.as_tiles([[]], program_devices=list(range(8))).replicated
