"""The stepper's values are the real compiled run's values, on every device.

The oracle side is computed here with JAX directly: the example file imported
with importlib and transformed with ``jax.pmap``/``jax.jit``/``jax.shard_map``
(``reference.py``), called on arguments made by this file's own reading of the
recipe the stepper states, run compiled; per device through
``out.addressable_shards``, and assembled. Floats may differ by rounding: the
compiled program fuses and reorders what the stepper runs one primitive at a
time (the largest difference seen on the gallery is 7e-5 on values around 10,
from a 784-long dot product), so floats compare with ``RTOL``/``ATOL``;
integers and booleans compare exactly.
"""

from __future__ import annotations

from pathlib import Path

import jax
import numpy as np
import pytest

from jaxviz import core
from jaxviz.core.stepper import step
from jaxviz.model import TraceRequest, list_examples
from jaxviz.model.sources import resolve_target
from jaxviz.model.stepping import StepRequest
from tests.helpers.jax_requests import example_request
from tests.helpers.reference import reference_call
from tests.helpers.stepping import (
    assert_well_nested,
    check_against_real_run,
    step_example,
)

# Not in the fast tier: every gallery example (or the corpus) through JAX.
pytestmark = pytest.mark.slow

CASES = [(ex.name, v) for ex in list_examples() for v in ex.variants]


@pytest.mark.parametrize("name, variant", CASES, ids=[f"{n}-{v}" for n, v in CASES])
def test_gallery_values_equal_the_compiled_run(name, variant):
    stepped = step_example(name, variant)
    fn, abstract = reference_call(name, variant)
    check_against_real_run(stepped, fn, abstract)
    result = stepped.result
    assert result.complete and result.steps
    assert_well_nested(result.steps)
    # Steps point into the very text the jaxpr panes show.
    traced = core.trace_request(example_request(name, [variant])).variant(variant)
    assert result.jaxpr_text == traced.jaxpr_text
    text = result.jaxpr_text.splitlines()
    for s in result.steps:
        if s.kind == "equation" and s.text_start is not None:
            assert s.primitive in text[s.text_start], (s.path, text[s.text_start])
    mapped = variant in ("pmap", "shard_map")
    assert bool(result.devices) == mapped
    if mapped:
        assert result.devices == [d.id for d in jax.devices()]
        inside = [s for s in result.steps if s.kind == "equation" and "shard_map[" in s.path]
        assert inside and all([lane.device for lane in s.lanes] == result.devices
                              for s in inside)


@pytest.mark.parametrize("variant, primitive, shape", [("pmap", "psum", []),
                                                       ("shard_map", "psum_invariant", [1])])
def test_at_the_psum_of_normalize_eight_different_inputs_become_one_value(variant, primitive,
                                                                          shape):
    result = step_example("normalize", variant).result
    (psum,) = [s for s in result.steps if s.primitive == primitive]
    assert [lane.device for lane in psum.lanes] == list(range(8))
    inputs = [lane.inputs[0].exact for lane in psum.lanes]
    outputs = [lane.outputs[0].exact for lane in psum.lanes]
    wrap = (lambda v: [v]) if shape else (lambda v: v)
    assert inputs == [wrap(d) for d in range(8)]  # each device holds its own element
    assert outputs == [wrap(28)] * 8  # ... and the psum gives every device the sum
    assert psum.groups == [list(range(8))]
    assert psum.source.line == 17
    assert "lax.psum" in Path(psum.source.file).read_text().splitlines()[16]
    # pvary (shard_map's "this value now varies by device") moves no data: no groups.
    assert all(s.groups == [] for s in result.steps if s.primitive == "pvary")


def test_arguments_say_how_they_were_made():
    made = step_example("data_parallel", "pmap", seed=3).result.arguments
    assert made.seed == 3 and made.random == ["params[0]", "params[1]", "x", "y"]
    assert "default_rng(3)" in made.how and "rounded to 2 decimals" in made.how
    given = step_example("normalize", "pmap").result.arguments
    assert given.seed is None and given.random == []
    assert "jnp.arange(8.)" in given.how
    assert given.values[0].value.exact == [0, 1, 2, 3, 4, 5, 6, 7]


def test_another_seed_gives_other_values_and_still_the_real_run():
    stepped = step_example("data_parallel", "shard_map", seed=7)
    fn, abstract = reference_call("data_parallel", "shard_map")
    check_against_real_run(stepped, fn, abstract, seed=7)


def test_a_user_file_steps_like_an_example(user_file):
    target, _ = resolve_target(user_file(
        "import jax.numpy as jnp\n\ndef f(x, y):\n    return jnp.tanh(x @ y).sum(0)\n", "f"))
    stepped = step(StepRequest(TraceRequest(target=target, args="f32[4,3], f32[3,2]"),
                               variant="jit"))
    import importlib.util

    spec = importlib.util.spec_from_file_location("user_code_ref", target.filename)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    check_against_real_run(stepped, jax.jit(module.f),
                           [jax.ShapeDtypeStruct((4, 3), np.float32),
                            jax.ShapeDtypeStruct((3, 2), np.float32)])
