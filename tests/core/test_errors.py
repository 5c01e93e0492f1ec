"""Bad input gets one clear message that says what is wrong and where."""

from __future__ import annotations

import pytest

from jaxviz import core
from jaxviz.model import TraceRequest
from jaxviz.model.errors import UserError
from jaxviz.model.sources import resolve_target
from tests.helpers.jax_requests import example_request

GOOD = ("import jax.numpy as jnp\n\n\ndef f(x, y):\n    return jnp.dot(x, y)\n\n\n"
        "def g(x):\n    return x\n")


def _request(user_file, source, function="f", args="f32[3], f32[3]", **kw):
    target, _ = resolve_target(user_file(source, function))
    return TraceRequest(target=target, args=args, **kw)


def test_syntax_error_names_file_line_and_the_line(user_file):
    req = _request(user_file, "def f(x, y):\n    return (x +\n\ndef g(:\n")
    err = core.trace_request(req).error
    assert err.kind == "syntax"
    assert err.file == req.target.filename
    assert err.line in (2, 4)
    assert err.source_line.strip() in ("return (x +", "def g(:")
    assert "SyntaxError" in err.message


def test_unknown_function_lists_the_functions(user_file):
    # Named on the command line: refused by reading the file, before anything runs.
    with pytest.raises(UserError) as refused:
        _request(user_file, GOOD, function="h")
    assert refused.value.info.kind == "lookup"
    assert "'h'" in refused.value.info.message and "f, g" in refused.value.info.message
    # In the engine (a name the window sends): the same message, from the module it ran.
    target, _ = resolve_target(user_file(GOOD, "f"))
    target.function = "h"
    err = core.trace_request(TraceRequest(target=target, args="f32[3]")).error
    assert err.kind == "lookup"
    assert "'h'" in err.message and "f, g" in err.message


def test_bad_spec_points_at_the_position(user_file):
    req = _request(user_file, GOOD, args="f32[3], f64[3")
    err = core.trace_request(req).error
    assert err.kind == "spec" and err.field == "args"
    assert err.position == 11
    assert "never closed" in err.message


def test_a_failing_expression_in_a_spec_names_it(user_file):
    req = _request(user_file, GOOD, args="f32[3], jnp.ones(nope)")
    err = core.trace_request(req).error
    assert err.field == "args" and err.position == 8
    assert "jnp.ones(nope)" in err.message and "NameError" in err.message


def test_jax_shape_error_shows_jax_message_and_the_user_line(user_file):
    req = _request(user_file, GOOD, args="f32[3], f32[4]")
    vr = core.trace_request(req).variant("plain")
    assert vr.error.kind == "trace"
    assert "dot_general" in vr.error.message
    assert vr.error.line == 5
    assert vr.error.source_line.strip() == "return jnp.dot(x, y)"


def test_exception_while_loading_the_module(user_file):
    req = _request(user_file, "x = 1 / 0\n\ndef f(x):\n    return x\n", args="f32[3]")
    err = core.trace_request(req).error
    assert err.kind == "load" and err.line == 1 and "ZeroDivisionError" in err.message


def test_batch_that_does_not_divide_across_devices():
    vr = core.trace_request(example_request("convolve", ["pmap"], batch=12)).variant("pmap")
    assert vr.error.kind == "batch"
    assert "batch of 12 does not split across 8 devices" in vr.error.message
    assert "--batch 8" in vr.error.message


def test_batch_that_is_a_multiple_is_reshaped():
    result = core.trace_request(example_request("convolve", ["pmap"], batch=16,
                                                want=("jaxpr", "value")))
    vr = result.variant("pmap")
    assert vr.error is None
    assert "jax.pmap(jax.vmap(convolve" in vr.call
    assert "i32[8,2,5]" in vr.jaxpr_text


def test_mesh_larger_than_the_devices():
    vr = core.trace_request(example_request("tensor_parallel", ["sharded"], mesh="data=4,model=4")
                            ).variant("sharded")
    assert vr.error.kind == "mesh"
    assert "needs 16 devices but there are 8" in vr.error.message


def test_partition_spec_naming_an_unknown_axis():
    vr = core.trace_request(example_request(
        "tensor_parallel", ["sharded"], specs="P('data', None), P(None, 'modle')")
    ).variant("sharded")
    assert vr.error.kind == "mesh" and vr.error.field == "specs"
    assert "'modle'" in vr.error.message and "data, model" in vr.error.message


def test_collective_with_an_unbound_axis():
    vr = core.trace_request(example_request("normalize", ["plain"])).variant("plain")
    assert vr.error.kind == "collective"
    assert "'p'" in vr.error.message and "vmap" in vr.error.message
    vr = core.trace_request(example_request("normalize", ["pmap"], axis_name="q")).variant("pmap")
    assert vr.error.kind == "collective" and "--axis-name p" in vr.error.message


def test_bad_options_point_at_their_field():
    result = core.trace_request(example_request("convolve", ["vmap"], in_axes="0, 0, 0"))
    assert result.error.field == "in_axes" and "3 entries" in result.error.message
    result = core.trace_request(example_request("tensor_parallel", ["sharded"], mesh="data=4,"
                                                "model"))
    assert result.error.field == "mesh"


def test_unreadable_file_and_unknown_example():
    with pytest.raises(UserError, match="cannot read"):
        resolve_target("/nonexistent/file.py:f")
    with pytest.raises(UserError, match="the gallery has: .*convolve"):
        resolve_target("example:convolution")


SHARD_MAP_EXPLICIT = """\
import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((4,), ("x",){axis_types})


def local(x):
    return jax.lax.psum(jnp.sin(x), "x")


step = jax.shard_map(local, mesh=mesh, in_specs=P("x"), out_specs=P())
"""


def test_shard_map_over_explicit_axes_given_unsharded_arguments_says_what_to_change(user_file):
    """JAX refuses the call (its own words are kept); the hint says why and what to change,
    and what it says to change works."""
    import jax

    req = _request(user_file, SHARD_MAP_EXPLICIT.format(axis_types=""), function="step",
                   args="f32[16]", variants=["as_written"])
    err = core.trace_request(req).variant("as_written").error
    assert err is not None and err.kind == "trace"  # the function, as its file wrote it
    assert "does not match the specs of the input" in err.message  # JAX's words
    assert "axis_types=(jax.sharding.AxisType.Auto" in err.message
    assert "jax.reshard" in err.message
    # the mesh's axes are indeed Explicit, as the hint says
    assert jax.make_mesh((4,), ("x",)).axis_types == (jax.sharding.AxisType.Explicit,)
    fixed = SHARD_MAP_EXPLICIT.format(axis_types=", axis_types=(jax.sharding.AxisType.Auto,)")
    req = _request(user_file, fixed, function="step", args="f32[16]", variants=["as_written"])
    vr = core.trace_request(req).variant("as_written")
    assert vr.error is None, vr.error
    assert "psum" in vr.jaxpr_text
    resharded = SHARD_MAP_EXPLICIT.format(axis_types="") + (
        "\n\ndef resharded(x):\n"
        "    return step(jax.reshard(x, jax.sharding.NamedSharding(mesh, P('x'))))\n")
    req = _request(user_file, resharded, function="resharded", args="f32[16]",
                   variants=["plain"])
    vr = core.trace_request(req).variant("plain")
    assert vr.error is None, vr.error
