"""The stepper against the real compiled run: step an example, compare every recorded value
with what JAX computes, per device and assembled."""

from __future__ import annotations

import importlib.util

import jax
import jax.numpy as jnp
import numpy as np

from jaxviz.core.stepper import step
from jaxviz.model.errors import format_error
from jaxviz.model.sources import resolve_target
from jaxviz.model.stepping import StepRequest, Value
from tests.helpers.jax_requests import example_request


def assert_well_nested(steps) -> None:
    """Every enter has its leave, in stack order, and depths follow the nesting."""
    open_ = []
    for index, s in enumerate(steps):
        assert s.depth == len(open_) - (s.kind == "leave"), (index, s.path)
        if s.kind == "enter":
            open_.append(index)
        elif s.kind == "leave":
            enter = open_.pop()
            assert s.partner == enter and steps[enter].partner == index
            assert steps[enter].path == s.path and steps[enter].primitive == s.primitive
        if open_ and s.kind != "leave" and index != open_[-1]:
            enter = steps[open_[-1]]  # inner paths start with the enclosing `primitive[index]`
            head, _, own = enter.path.rpartition(" > ")
            assert s.path.startswith(f"{head + ' > ' if head else ''}{enter.primitive}[{own}]")
    assert not open_



def step_example(name: str, variant: str, **options):
    trace = example_request(name, [variant])
    return step(StepRequest(trace, variant=variant, **options))



def check_against_real_run(stepped, fn, abstract_args, seed: int = 0) -> None:
    """The stepped outputs equal ``fn``'s compiled outputs: assembled and per device."""
    result = stepped.result
    assert result.error is None, format_error(result.error, debug=True)
    args = fill_random(abstract_args, seed)
    for mine, theirs in zip(stepped.args, jax.tree.leaves(args), strict=True):
        assert_same(mine, theirs, "the arguments follow the stated recipe")
    real = jax.tree.leaves(fn(*jax.tree.map(jnp.asarray, args)))
    assert len(real) == len(stepped.outputs) == len(result.outputs)
    for k, (out, mine, blocks, record) in enumerate(zip(real, stepped.outputs, stepped.blocks,
                                                        result.outputs)):
        assert_same(mine, out, f"output {k} assembled")
        assert_record(record.value, out, f"output {k} record")
        for shard in out.addressable_shards:
            device = shard.device.id
            if blocks:  # from a mapped body: the device's own block, as the stepper ran it
                lane = record.devices.index(device)
                assert_same(blocks[lane], shard.data, f"output {k} on device {device}")
                assert_record(record.blocks[lane], shard.data, f"output {k} device {device}")
            else:
                assert_same(np.asarray(mine)[shard.index], shard.data,
                            f"output {k} on device {device}")


HOST = '''\
import jax
import jax.numpy as jnp
from jax import lax


@jax.custom_jvp
def soft(a):
    return jnp.log1p(jnp.exp(a))


soft.defjvp(lambda p, t: (soft(p[0]), t[0] * jax.nn.sigmoid(p[0])))


@jax.custom_vjp
def triple(a):
    return a * 3.0


triple.defvjp(lambda a: (a * 3.0, None), lambda _, g: (g * 3.0,))


def f(x, y):
    k = y * 2.0

    def body(c, xi):
        return c + jnp.sin(xi) * k, c * 2

    c, ys = lax.scan(body, 0.0, x)
    z = lax.cond(c > 0, lambda a: a + 1, lambda a: a - 1, y)
    w = lax.while_loop(lambda s: s[0] < 3 + k, lambda s: (s[0] + 1, s[1] * 2 + k), (0.0, y))
    return c, ys, z, w, soft(y), triple(x), jax.checkpoint(jnp.cos)(y)
'''



def stepping_file(tmp_path, source: str):
    path = tmp_path / "flow.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(f"flow_{id(source)}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    target, _ = resolve_target(f"{path}:f")
    return target, module.f


def fill_random(args, seed):
    """Abstract leaves -> arrays, as the stepper's stated recipe reads (written independently).

    numpy.random.default_rng(seed), leaf by leaf in argument order: floats standard
    normal rounded to 2 decimals, signed integers uniform in [-5, 5], unsigned
    integers uniform in [0, 9], booleans fair coin flips.
    """
    rng = np.random.default_rng(seed)

    def fill(leaf):
        if not isinstance(leaf, jax.ShapeDtypeStruct):
            return leaf
        dtype, shape = np.dtype(leaf.dtype), tuple(leaf.shape)
        if dtype.kind == "f":
            return np.round(rng.standard_normal(shape), 2).astype(dtype)
        if dtype.kind == "i":
            return rng.integers(-5, 6, size=shape).astype(dtype)
        if dtype.kind == "u":
            return rng.integers(0, 10, size=shape).astype(dtype)
        assert dtype.kind == "b"
        return rng.random(shape) < 0.5

    leaves, tree = jax.tree.flatten(args)
    return jax.tree.unflatten(tree, [fill(leaf) for leaf in leaves])



def assert_same(stepped, real, what: str) -> None:
    stepped, real = np.asarray(stepped), np.asarray(real)
    assert stepped.shape == real.shape, what
    assert stepped.dtype == real.dtype, what
    if np.issubdtype(real.dtype, np.inexact):
        np.testing.assert_allclose(stepped, real, rtol=RTOL, atol=ATOL, err_msg=what)
    else:
        np.testing.assert_array_equal(stepped, real, err_msg=what)



def assert_record(record: Value, real, what: str) -> None:
    """A value record tells the truth: its elements, or its statistics."""
    real = np.asarray(real)
    assert record.shape == list(real.shape), what
    if record.summary is None:
        assert_same(np.asarray(record.exact, dtype=real.dtype), real, what)
        return
    finite = real[np.isfinite(real)] if np.issubdtype(real.dtype, np.floating) else real
    got = [record.summary.min, record.summary.max, record.summary.mean]
    want = [finite.min(), finite.max(), finite.astype(np.float64).mean()]
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL, err_msg=what)
    assert sum(record.summary.histogram) == finite.size, what


RTOL = 1e-4



ATOL = 1e-5
