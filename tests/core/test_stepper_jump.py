"""A jump deep into a big program records a window of steps, and its values are JAX's.

The oracle is this file's own interpreter over ``jax.make_jaxpr`` of the same function:
every equation bound with ``eqn.primitive.bind`` as ``jax.core.eval_jaxpr`` does, except
that calls (``jit`` and other equations holding one closed jaxpr) are entered, so it sees
every leaf equation's outputs in execution order -- the order of the stepper's
``equation`` steps. It shares no code with jaxviz's evaluator.
"""

from __future__ import annotations

import jax
import jax.extend as jex
import numpy as np
import pytest

from jaxviz.core.stepper import step
from jaxviz.model import Target, TraceRequest
from jaxviz.model.stepping import StepRequest
from tests.helpers.stepping import step_example

# Not in the fast tier: hundreds of equations stepped one primitive at a time.
pytestmark = pytest.mark.slow

LAYERS = 80
SOURCE = f'''import jax.numpy as jnp


def deep(x, w):
    for i in range({LAYERS}):
        x = jnp.tanh(x @ w) + jnp.where(x > 0, x, 0.1 * x)
    return x.sum()
'''


def _request(**window) -> StepRequest:
    target = Target(SOURCE, "<editor:deep.py>", "deep")
    return StepRequest(TraceRequest(target=target, args="f32[3], f32[3,3]", variants=["jit"]),
                       variant="jit", **window)


def _leaf_outputs(closed, args) -> list[tuple[str, list[np.ndarray]]]:
    """(primitive, outputs) of every leaf equation, calls entered, in execution order."""
    found: list[tuple[str, list[np.ndarray]]] = []

    def run(jaxpr, consts, args):
        env = dict(zip(jaxpr.constvars, consts)) | dict(zip(jaxpr.invars, args))

        def read(atom):
            return atom.val if isinstance(atom, jex.core.Literal) else env[atom]

        for eqn in jaxpr.eqns:
            invals = [read(a) for a in eqn.invars]
            inner = [v for v in eqn.params.values() if isinstance(v, jex.core.ClosedJaxpr)]
            if len(inner) == 1:  # a call: its equations run one by one
                outs = run(inner[0].jaxpr, inner[0].consts, invals)
            else:
                outs = eqn.primitive.bind(*invals, **eqn.params)
                outs = outs if eqn.primitive.multiple_results else [outs]
                found.append((eqn.primitive.name, [np.asarray(o) for o in outs]))
            env.update(zip(eqn.outvars, outs))
        return [read(a) for a in jaxpr.outvars]

    run(closed.jaxpr, closed.consts, args)
    return found


def _recorded_values(result) -> int:
    return sum(len(lane.inputs) + len(lane.outputs) for s in result.steps for lane in s.lanes)


@pytest.fixture(scope="module")
def jumped():
    """Stepped with only 12 steps' values recorded, from step 500 on."""
    return step(_request(record_from=500, record_steps=12))


def test_a_jump_records_only_its_window(jumped):
    result = jumped.result
    assert result.error is None and result.complete
    assert len(result.steps) > 500 + 12  # every step listed, to the end
    with_values = [k for k, s in enumerate(result.steps) if s.lanes]
    assert with_values and min(with_values) >= 500 and max(with_values) < 512
    assert (result.recorded_from, result.recorded_to) == (500, 512)
    assert result.has_values(500) and not result.has_values(499)
    assert not result.has_values(512)
    # bounded: at most the window's variables (a step here has at most 3 inputs + 1 output)
    assert 0 < _recorded_values(result) <= 12 * 4


def test_the_jumped_to_values_are_jax_s(jumped):
    result = jumped.result
    closed = jax.make_jaxpr(lambda *a: _deep()(*a))(*jumped.args)
    reference = _leaf_outputs(closed, jumped.args)
    equations = [s for s in result.steps if s.kind == "equation"]
    assert [s.primitive for s in equations] == [name for name, _ in reference]
    compared = 0
    for s, (_name, outs) in zip(equations, reference):
        if not s.lanes:
            continue
        (lane,) = s.lanes
        for value, expected in zip(lane.outputs, outs):
            assert value.exact is not None
            np.testing.assert_allclose(np.asarray(value.exact, dtype=expected.dtype), expected,
                                       rtol=1e-6, atol=1e-6)
            compared += 1
    assert compared >= 6


def test_the_whole_run_still_ends_on_the_compiled_value(jumped):
    expected = jax.jit(_deep())(*jumped.args)
    np.testing.assert_allclose(np.asarray(jumped.outputs[0]), np.asarray(expected), rtol=1e-5)
    assert jumped.result.outputs[0].value.exact is not None


def test_without_a_window_every_step_keeps_its_values():
    """The default request records every step (what the small gallery programs get)."""
    source = "import jax.numpy as jnp\n\n\ndef f(x):\n    return jnp.sin(x) * 2.0\n"
    req = StepRequest(TraceRequest(target=Target(source, "<editor:f.py>", "f"), args="f32[3]"))
    result = step(req).result
    assert result.error is None and result.steps
    assert all(s.lanes for s in result.steps)
    assert (result.recorded_from, result.recorded_to) == (0, None)


def _deep():
    namespace: dict = {}
    exec(compile(SOURCE, "<deep>", "exec"), namespace)
    return namespace["deep"]



def test_a_window_inside_a_mapped_body_keeps_every_device_s_values():
    """pmap's shard_map: the window's steps carry one lane per device, the others none,
    and the values recorded in the window are those of the whole stepping."""
    whole = step_example("normalize", "pmap").result
    n = len(whole.steps)
    assert n >= 6
    window = step_example("normalize", "pmap", record_from=2, record_steps=n - 3).result
    assert [s.primitive for s in window.steps] == [s.primitive for s in whole.steps]
    for k, (mine, full) in enumerate(zip(window.steps, whole.steps)):
        if 2 <= k < n - 1:
            assert mine.lanes == full.lanes, (k, mine.primitive)
            assert mine.lanes  # every step here runs somewhere
        else:
            assert mine.lanes == [], (k, mine.primitive)
    psum = next(s for s in window.steps if s.primitive == "psum")
    assert len({lane.device for lane in psum.lanes}) == 8
