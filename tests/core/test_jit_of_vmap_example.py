"""The gallery's "jit of vmap" example shows jit(vmap(f)) (issue 26)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest

from jaxviz import core
from jaxviz.model.gallery import get_example
from tests.helpers.jax_requests import example_request, import_file

# Not in the fast tier: traces a gallery example through JAX.
pytestmark = pytest.mark.slow


def _primitives(jaxpr) -> list[str]:
    out = []
    for eqn in jaxpr.eqns:
        out.append(eqn.primitive.name)
        inner = eqn.params.get("jaxpr")
        if inner is not None:
            out += _primitives(getattr(inner, "jaxpr", inner))
    return out


def test_the_jit_pane_is_jit_of_vmap():
    module = import_file(get_example("jit_composition").path)
    xs = jnp.zeros((8, 1000), jnp.float32)
    want = jax.make_jaxpr(jax.jit(jax.vmap(module.selu)))(xs)  # JAX: jit(vmap(selu))
    result = core.trace_request(example_request("jit_composition", ["jit"]))
    vr = result.variant("jit")
    assert vr.error is None
    assert vr.call.startswith("jax.jit(")
    got = [eq.primitive for eq in core.trace.walk(vr.equations)]
    assert got == _primitives(want.jaxpr)
    assert vr.invars[0].shape == [8, 1000]  # the batch, mapped by vmap inside the jit
