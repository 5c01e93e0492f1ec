"""What the stepper keeps of a value, how large a stepping may get, and its errors."""

from __future__ import annotations

import json
import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jax.sharding import AxisType, Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

from jaxviz.core.stepper import step_request
from jaxviz.core.stepper_mapped import MeshLanes
from jaxviz.core.stepper_values import Recorder
from jaxviz.model import TraceRequest, from_plain, to_plain
from jaxviz.model.sources import resolve_target
from jaxviz.model.stepping import StepRequest
from tests.helpers.stepping import step_example


def test_small_values_are_kept_exactly_and_large_ones_summarised():
    rec = Recorder(limit=4, light=False, budget=10**9)
    small = rec.value(jnp.array([0.1, 1 / 3, -2.5, 1e-8], dtype=jnp.float32))
    assert small.summary is None and small.shape == [4] and small.dtype == "f32"
    # Shortest text that gives the same float32 back.
    assert small.exact == [0.1, 0.33333334, -2.5, 1e-08]
    assert np.array_equal(np.float32(small.exact), np.array([0.1, 1 / 3, -2.5, 1e-8], np.float32))
    big = np.arange(12, dtype=np.float32).reshape(3, 4)
    summary = rec.value(jnp.asarray(big))
    assert summary.exact is None and summary.shape == [3, 4]
    s = summary.summary
    assert (s.min, s.max, s.mean) == (0.0, 11.0, 5.5)
    assert s.sample == list(range(8)) and sum(s.histogram) == 12
    assert len(s.edges) == len(s.histogram) + 1 and s.edges[0] == 0 and s.edges[-1] == 11


def test_summaries_count_what_is_not_finite():
    rec = Recorder(limit=2, light=False, budget=10**9)
    s = rec.value(jnp.array([1.0, np.nan, np.inf, -3.0])).summary
    assert (s.min, s.max, s.mean, s.nonfinite) == (-3.0, 1.0, -1.0, 2)
    assert sum(s.histogram) == 2


def test_summary_mode_keeps_statistics_only():
    rec = Recorder(limit=100, light=True, budget=10**9)
    v = rec.value(jnp.array([1, 2, 3], dtype=jnp.int32))
    assert v.exact is None and v.summary.sample == [] and v.summary.histogram == []
    assert (v.summary.min, v.summary.max, v.summary.mean) == (1, 3, 2)


@pytest.mark.parametrize("value, dtype, exact", [
    (jnp.array([True, False]), "bool", [True, False]),
    (jnp.array([[1, -2]], dtype=jnp.int8), "i8", [[1, -2]]),
    (jnp.array(1.5, dtype=jnp.bfloat16), "bf16", 1.5),
    (jnp.array([1 + 2j], dtype=jnp.complex64), "c64", [[1.0, 2.0]]),
])
def test_dtypes_are_named_as_the_jaxpr_names_them(value, dtype, exact):
    v = Recorder(limit=8, light=False, budget=10**9).value(value)
    assert (v.dtype, v.exact) == (dtype, exact)
    assert v.dtype == jax.typeof(value).str_short(short_dtypes=True).split("[")[0]


def test_prng_keys_are_recorded_by_their_key_data():
    key = jax.random.key(3)
    v = Recorder(limit=8, light=False, budget=10**9).value(key)
    assert v.dtype == str(key.dtype) and v.exact == np.asarray(jax.random.key_data(key)).tolist()


def test_a_stepping_survives_json():
    result = step_example("data_parallel", "pmap").result
    text = json.dumps(to_plain(result))
    again = from_plain(json.loads(text))
    assert json.dumps(to_plain(again)) == text
    assert again.steps[3].lanes[5].device == 5


def test_too_large_says_how_large_and_offers_summary_mode():
    result = step_example("mlp_predict", "pmap", record_limit_mb=0.05).result
    assert result.error.kind == "size" and result.steps == []
    assert "would record about" in result.error.message
    assert "25 steps on 8 devices" in result.error.message
    assert "summary mode" in result.error.message and "0.05 MB" in result.error.message
    summarised = step_example("mlp_predict", "pmap", record_limit_mb=0.05, summary=True).result
    assert summarised.error is None and summarised.complete
    assert all(v.exact is None for s in summarised.steps for lane in s.lanes
               for v in lane.inputs + lane.outputs)


def test_a_loop_that_records_too_much_stops_and_says_so(user_file):
    target, _ = resolve_target(user_file(
        "from jax import lax\n\ndef f(x):\n    return lax.while_loop(lambda s: s[0] < 10**6, "
        "lambda s: (s[0] + 1, s[1] * 2.0), (0, x))\n", "f"))
    result = step_request(StepRequest(TraceRequest(target=target, args="f32[]"),
                                      record_limit_mb=0.2))
    assert result.error.kind == "size"
    assert "recorded" in result.error.message and "in its first" in result.error.message
    assert result.steps  # what was recorded before the limit is still there


@pytest.mark.parametrize("trace, variant, kind, field", [
    ({"args": "f32[3"}, "plain", "spec", "args"),
    ({"args": "f32[3]"}, "nonsense", "option", "variant"),
    ({"args": "f32[3]", "in_axes": "None"}, "pmap", "option", "in_axes"),
    ({"args": "f32[3]", "mesh": "i=16"}, "shard_map", "mesh", "mesh"),
])
def test_bad_input_becomes_an_error_record(user_file, trace, variant, kind, field):
    target, _ = resolve_target(user_file("def f(x):\n    return x * 2\n", "f"))
    result = step_request(StepRequest(TraceRequest(target=target, **trace), variant=variant))
    assert result.error is not None and result.error.kind == kind
    assert result.error.field == field and result.steps == []


def test_an_error_in_the_users_code_names_the_line(user_file):
    target, _ = resolve_target(user_file(
        "import jax.numpy as jnp\n\ndef f(x):\n    y = x + 1\n    return y @ jnp.ones(4)\n", "f"))
    result = step_request(StepRequest(TraceRequest(target=target, args="f32[3]")))
    assert result.error.kind == "trace" and result.error.line == 5
    assert "y @ jnp.ones(4)" in result.error.source_line


# -- device blocks ---------------------------------------------------------- #

MESHES = [{"a": 8}, {"a": 4, "b": 2}, {"a": 2, "b": 4}, {"a": 2, "b": 2, "c": 2}]


@st.composite
def specs(draw):
    sizes = draw(st.sampled_from(MESHES))
    names = list(sizes)
    rank = draw(st.integers(1, 3))
    unused = draw(st.permutations(names))
    entries = []
    for _ in range(rank):
        take = draw(st.integers(0, min(2, len(unused))))
        group, unused = unused[:take], unused[take:]
        entries.append(None if not group else group[0] if len(group) == 1 else tuple(group))
    shape = [draw(st.integers(1, 3)) * math.prod(sizes[a] for a in
                                                 ((e,) if isinstance(e, str) else e or ()))
             for e in entries]
    return sizes, P(*entries), tuple(shape)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(specs())
def test_device_blocks_are_where_jax_puts_them(case):
    sizes, spec, shape = case
    mesh = Mesh(np.array(jax.devices()[:8]).reshape(list(sizes.values())), tuple(sizes),
                axis_types=(AxisType.Auto,) * len(sizes))
    lanes = MeshLanes.of(mesh)
    where = NamedSharding(mesh, spec).devices_indices_map(shape)
    value = jnp.arange(math.prod(shape)).reshape(shape)
    blocks = lanes.split(value, spec)
    for lane, device in enumerate(lanes.devices):
        index = where[jax.devices()[device]]
        assert np.array_equal(blocks[lane], value[index]), (device, spec)
    again, note = lanes.assemble(blocks, spec)
    assert np.array_equal(again, value) and note == ""
