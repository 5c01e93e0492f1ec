"""The adapter over JAX internals, checked against the pinned JAX release."""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax import lax

from jaxviz.core import jax_internals as ji


def test_running_jax_is_in_the_supported_range():
    assert ji.jax_version_supported(), jax.__version__


def _all_eqns(jaxpr):
    for eqn in jaxpr.eqns:
        yield eqn
        for _, sub in ji.nested_jaxprs(eqn):
            yield from _all_eqns(sub)


def _check(closed):
    text, lines, context = ji.jaxpr_text_and_lines(closed)
    assert text == str(closed)
    printed = text.splitlines()
    for eqn in _all_eqns(closed.jaxpr):
        first, last = lines[id(eqn)]
        assert eqn.primitive.name in printed[first]
        assert first <= last
        for out in eqn.outvars:
            assert ji.var_name(out, context) + ":" in printed[first] or \
                ji.var_name(out, context) == "_"
    return text, lines


def test_text_and_line_map_of_a_shared_subjaxpr():
    inner = jax.jit(lambda x: jnp.sin(x) * 2 + jnp.cos(x) - x ** 2 + x / 3 + jnp.exp(x) +
                    jnp.tanh(x) + x * x - 1.0 + jnp.log1p(x * x) + jnp.abs(x))

    def f(x):
        return inner(x) + inner(x + 1)

    text, _ = _check(jax.make_jaxpr(f)(jnp.ones(3)))
    # Used twice: JAX prints the inner jaxpr once, at the top.
    assert text.startswith("let ")


def test_control_flow_and_collectives():
    def body(c, x):
        return c + x, c * x

    def f(xs):
        c, ys = lax.scan(body, 0.0, xs)
        return lax.cond(c > 0, lambda: ys, lambda: -ys)

    _check(jax.make_jaxpr(f)(jnp.ones(4)))
    _check(jax.make_jaxpr(jax.vmap(lambda x: x / lax.psum(x, "i"), axis_name="i"))(jnp.ones(4)))


def test_user_span_prefers_the_user_file():
    def f(x):
        return jnp.sin(x)

    closed = jax.make_jaxpr(f)(1.0)
    span = ji.user_span(closed.jaxpr.eqns[0], __file__)
    assert span[0] == __file__ and span[5].endswith(".f")
    assert ji.user_span(closed.jaxpr.eqns[0], "/elsewhere.py") is None


def test_avals_and_params():
    closed = jax.make_jaxpr(lambda x: x.astype(jnp.bfloat16).reshape(2, 2))(jnp.ones(4))
    shape, dtype = ji.aval_of(closed.jaxpr.outvars[0])
    assert shape == [2, 2] and dtype == "bf16"
    eqn = closed.jaxpr.eqns[-1]
    assert ji.param_text(eqn.params["new_sizes"]) == "(2, 2)"
