"""Where the stepper runs equations on whole arrays that the compiled program splits over
devices, it says so, with the devices -- read here from JAX's compiled program, never
from the variant's name.

Programs written as users write them: a ``jit`` with in/out shardings on a mesh, the
same ``jit`` without shardings, and a ``pmap`` (whose body the stepper runs per device).
The oracle is ``jax.jit(...).lower(...).compile()``: the devices of its input shardings.
"""

from __future__ import annotations

import jax
import numpy as np
import pytest

from jaxviz.core.stepper import step_request
from jaxviz.model import Target, TraceRequest
from jaxviz.model.stepping import StepRequest
from jaxviz.views.stepper.panel import build_panel

# Not in the fast tier: JAX traces and steps each program.
pytestmark = pytest.mark.slow

FILE = "<editor:mine.py>"
SPLIT = '''import jax
import jax.numpy as jnp
from functools import partial
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("i",), axis_types=(jax.sharding.AxisType.Auto,))
row = NamedSharding(mesh, P("i"))


@partial(jax.jit, in_shardings=row, out_shardings=row)
def scale(x):
    return jnp.sin(x) * 2.0
'''
WHOLE = '''import jax
import jax.numpy as jnp


@jax.jit
def scale(x):
    return jnp.sin(x) * 2.0
'''
MAPPED = '''import jax
import jax.numpy as jnp


@jax.pmap
def scale(x):
    return jnp.sin(x) * 2.0
'''


def _module(source: str):
    namespace: dict = {}
    exec(compile(source, FILE, "exec"), namespace)  # noqa: S102 - the test's own program
    return namespace["scale"]


def _compiled_devices(source: str, shape) -> list[int]:
    """The devices of the compiled program's input sharding, as JAX reports them."""
    compiled = _module(source).lower(np.zeros(shape, np.float32)).compile()
    sharding = jax.tree.leaves(compiled.input_shardings)[0]
    return sorted(d.id for d in sharding.device_set)


def _stepped(source: str, args: str):
    trace = TraceRequest(target=Target(source, FILE, "scale"), variants=["plain"], args=args)
    result = step_request(StepRequest(trace, variant="plain"))
    assert result.error is None, result.error
    return result


def test_a_jit_with_shardings_is_stepped_whole_and_says_over_which_devices():
    result = _stepped(SPLIT, "f32[16]")
    devices = _compiled_devices(SPLIT, (16,))
    assert len(devices) == 8
    assert result.whole_over == devices
    sin = next(i for i, s in enumerate(result.steps) if s.primitive == "sin")
    notes = build_panel(result, sin).notes
    assert any("whole arrays" in n and "0-7" in n for n in notes), notes


def test_a_jit_on_one_device_and_a_pmap_carry_no_such_note():
    whole = _stepped(WHOLE, "f32[16]")
    assert _compiled_devices(WHOLE, (16,)) == [0]  # one device: nothing split
    assert whole.whole_over == []
    mapped = _stepped(MAPPED, "f32[8,4]")
    # pmap's body is stepped per device: the values shown are each device's own block
    assert mapped.whole_over == []
    sin = next(i for i, s in enumerate(mapped.steps) if s.primitive == "sin")
    assert sorted(lane.device for lane in mapped.steps[sin].lanes) == list(range(8))
    assert not any("whole arrays" in n for n in build_panel(mapped, sin).notes)
