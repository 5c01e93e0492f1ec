"""Every variant jaxviz shows is exactly what JAX produces.

The reference side of each comparison is built from the example's file with
JAX's own API (importlib + jax.make_jaxpr / jax.jit / jax.vmap / jax.pmap /
jax.shard_map, in ``reference.py``), independently of jaxviz's variant builder.
"""

from __future__ import annotations

import pytest

from jaxviz import core
from jaxviz.model import list_examples
from jaxviz.model.errors import format_error
from jaxviz.model.sources import resolve_target
from tests.helpers.jax_requests import example_request
from tests.helpers.reference import reference_jaxpr

CASES = [(ex.name, v) for ex in list_examples() for v in ex.variants]


@pytest.mark.parametrize("name, variant", CASES, ids=[f"{n}-{v}" for n, v in CASES])
def test_jaxpr_text_equals_make_jaxpr(name, variant):
    result = core.trace_request(example_request(name, [variant]))
    assert result.error is None
    vr = result.variant(variant)
    assert vr.error is None, format_error(vr.error, debug=True)
    assert vr.jaxpr_text == reference_jaxpr(name, variant)


def test_pmap_shows_it_became_jit_of_shard_map():
    vr = core.trace_request(example_request("convolve", ["pmap"])).variant("pmap")
    outer = vr.equations[0]
    assert outer.primitive == "jit"
    inner = outer.subjaxprs[0].equations[0]
    assert inner.primitive == "shard_map"
    assert "jit[" in vr.jaxpr_text and "shard_map[" in vr.jaxpr_text


@pytest.mark.parametrize("collective, primitive", [
    ("lax.psum(x, 'i')", "psum"), ("lax.all_gather(x, 'i')", "all_gather"),
    ("lax.axis_index('i') + x", "axis_index"),
    ("lax.ppermute(x, 'i', [(j, (j + 1) % 8) for j in range(8)])", "ppermute")])
def test_collectives_work_where_the_axis_is_bound(user_file, collective, primitive):
    from jaxviz.model import TraceRequest

    target, _ = resolve_target(user_file(
        f"from jax import lax\n\ndef f(x):\n    return {collective}\n", "f"))
    variants = ["pmap", "shard_map"] + ([] if primitive == "ppermute" else ["vmap"])
    req = TraceRequest(target=target, args="f32[3]", variants=variants, axis_name="i",
                       want=["jaxpr", "value"])
    result = core.trace_request(req)
    for vr in result.variants:
        assert vr.error is None, format_error(vr.error, debug=True)
    for name in ("pmap", "shard_map"):
        assert any(c.startswith(primitive) for c in result.variant(name).collectives)
    # Bound by vmap, pmap or a mesh axis, the collective computes the same numbers.
    values = {vr.variant: vr.value for vr in result.variants}
    assert values["pmap"] == values["shard_map"]
    if "vmap" in values:
        assert values["vmap"] == values["pmap"]
