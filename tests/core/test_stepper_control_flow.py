"""Nested jaxprs: the stepper steps into scan, while, cond, custom_jvp/vjp and remat.

Values are checked against the real compiled run (as in the oracle); the steps
against what the program does: a scan body once per element, a while body as
often as its condition holds (per device when devices disagree), the branch
the predicate picks, and every ``enter`` paired with its ``leave``.
"""

from __future__ import annotations

import jax
import numpy as np
import pytest

from jaxviz.core.stepper import step
from jaxviz.model import TraceRequest
from jaxviz.model.stepping import StepRequest
from tests.helpers.stepping import (
    HOST,
    assert_well_nested,
    check_against_real_run,
    step_example,
    stepping_file,
)

PER_DEVICE = '''\
import jax
import jax.numpy as jnp
from jax import lax


def f(x):
    n = jnp.int32(jnp.abs(x[0]) * 3) % 4
    y = lax.cond(x[0] > 0, lambda v: v * 2.0, lambda v: -v, x)
    i, z = lax.while_loop(lambda s: s[0] < n, lambda s: (s[0] + 1, s[1] + 1.0), (0, y))
    return lax.psum(z, 'i') / 8.0, i
'''


@pytest.mark.parametrize("variant", ["plain", "jit"])
def test_host_control_flow_equals_the_real_run(tmp_path, variant):
    target, f = stepping_file(tmp_path, HOST)
    stepped = step(StepRequest(TraceRequest(target=target, args="f32[3], f32[]"),
                               variant=variant, seed=1))
    fn = f if variant == "plain" else jax.jit(f)
    check_against_real_run(stepped, fn, [jax.ShapeDtypeStruct((3,), np.float32),
                                         jax.ShapeDtypeStruct((), np.float32)], seed=1)
    steps = stepped.result.steps
    assert_well_nested(steps)
    kinds = {s.primitive for s in steps if s.kind == "enter"}
    assert {"scan", "cond", "while", "custom_jvp_call", "custom_vjp_call", "remat2"} <= kinds
    scan = next(s for s in steps if s.kind == "enter" and s.primitive == "scan")
    assert scan.note == "3 iterations"
    # The body ran once per element: its sin saw x[0], x[1], x[2] in turn.
    x = stepped.args[0]
    sines = [s for s in steps if s.primitive == "sin" and " #" in s.path]
    assert [s.lanes[0].inputs[0].exact for s in sines] == pytest.approx(np.asarray(x).tolist())
    assert [s.path.split(" > ")[-2][-2:] for s in sines] == ["#0", "#1", "#2"]
    cond = next(s for s in steps if s.kind == "enter" and s.primitive == "cond")
    taken = int(cond.lanes[0].inputs[0].exact)
    assert cond.note == f"branch {taken}"
    assert any(f"branch {taken} > " in s.path for s in steps)
    loop = next(s for s in steps if s.kind == "enter" and s.primitive == "while")
    bodies = {s.path.split(" > ")[-2] for s in steps if " body #" in s.path}
    assert loop.note == f"{len(bodies)} iteration{'s' * (len(bodies) != 1)}"


def test_devices_take_their_own_branch_and_loop_count(tmp_path):
    target, f = stepping_file(tmp_path, PER_DEVICE)
    stepped = step(StepRequest(TraceRequest(target=target, args="f32[3]", axis_name="i"),
                               variant="pmap"))
    check_against_real_run(stepped, jax.pmap(f, axis_name="i"),
                           [jax.ShapeDtypeStruct((8, 3), np.float32)])
    steps = stepped.result.steps
    assert_well_nested(steps)
    x = np.asarray(stepped.args[0])
    cond = next(s for s in steps if s.kind == "enter" and s.primitive == "cond")
    negative = [d for d in range(8) if x[d, 0] <= 0]
    assert negative and len(negative) < 8  # seed 0 makes the devices disagree
    assert f"branch 0 on device{'s' * (len(negative) > 1)} {', '.join(map(str, negative))}" \
        in cond.note
    # Inside branch 0 only the devices that took it have values.
    inside = next(s for s in steps if "branch 0 > " in s.path)
    assert [lane.device for lane in inside.lanes] == negative
    counts = np.int32(np.abs(x[:, 0]) * 3) % 4
    loop = next(s for s in steps if s.kind == "leave" and s.primitive == "while")
    for lane in loop.lanes:
        assert lane.outputs[0].exact == counts[lane.device]


def test_until_stops_after_the_first_equation_of_the_line():
    result = step_example("normalize", "pmap", until_line=17).result
    assert not result.complete and result.outputs == []
    assert "line 17" in result.stopped
    last = result.steps[-1]
    assert last.primitive == "psum" and last.source.line == 17
    assert result.steps[-1].partner is None and result.steps[0].partner is None


def test_a_line_never_reached_runs_to_the_end():
    result = step_example("normalize", "pmap", until_line=3).result
    assert result.complete and result.outputs
