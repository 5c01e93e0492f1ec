"""The device view's words on the items of issue 26, each true to JAX (each failed before).

Each expectation is read from JAX in the test (the compiled program's
``num_partitions``, the arguments' shardings, the jaxpr, the real shards), not
from jaxviz.
"""

from __future__ import annotations

import copy
import functools
import re

import jax
import numpy as np
import pytest

from jaxviz.model import Target, TraceRequest
from jaxviz.views.devices import build_scene
from tests.helpers.device_cases import configure_jax
from tests.helpers.drawn import phase_of, render, tiles_of

# Not in the fast tier: traces programs through JAX.
pytestmark = pytest.mark.slow

PLACED = """\
import jax
import jax.numpy as jnp
from jax.sharding import AxisType, NamedSharding
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((4, 2), ("data", "model"), axis_types=(AxisType.Auto,) * 2)
W = jax.device_put(jnp.ones((8, 4)), NamedSharding(mesh, P(None, "model")))
X = jax.device_put(jnp.arange(64.0).reshape(8, 8), NamedSharding(mesh, P("data", None)))


def loss(w, x):
    return jnp.sum(jnp.tanh(x @ w))


@jax.jit
def step(w, x):
    return jnp.sum(jnp.tanh(x @ w))


@jax.pmap
def rows(x):
    return x * 2
"""

COLLECTIVES = """\
from functools import partial
import jax
import jax.numpy as jnp
from jax.sharding import AxisType
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((8,), ("i",), axis_types=(AxisType.Auto,))


@jax.jit
@partial(jax.shard_map, mesh=mesh, in_specs=P("i"), out_specs=P("i"))
def summed(x):
    return jax.lax.psum(x, "i")


@jax.jit
@partial(jax.shard_map, mesh=mesh, in_specs=P("i"), out_specs=P("i"))
def averaged(x):
    return jax.lax.pmean(x, "i")


@jax.jit
@partial(jax.shard_map, mesh=mesh, in_specs=P("i"), out_specs=P("i"))
def ring(x):
    return jax.lax.ppermute(x, "i", [(k, (k + 1) % 8) for k in range(8)])


@jax.jit
@partial(jax.shard_map, mesh=mesh, in_specs=P("i"), out_specs=P("i"))
def counted(n):
    return jax.lax.psum(n, "i") + n


def stepped(params, x):
    g = jax.lax.pmean(x.sum() * params, "i")
    return params - g
"""


@functools.cache
def _trace(source: str, function: str, variant: str, fields: tuple):
    configure_jax()
    from jaxviz import core

    req = TraceRequest(target=Target(source, "<editor:f.py>", function), variants=[variant],
                       want=["jaxpr", "story", "value"], **dict(fields))
    result = core.trace_request(req)
    assert result.error is None, result.error.message
    assert result.variant(variant).error is None, result.variant(variant).error.message
    return result


def scene_of(source: str, function: str, variant: str, **fields):
    result = copy.deepcopy(_trace(source, function, variant, tuple(sorted(fields.items()))))
    return result, build_scene(result, variant)


def words(scene) -> str:
    return "\n".join(f"{p.title}\n{p.caption}" for p in scene.phases)


def module_of(source: str) -> dict:
    ns: dict = {}
    exec(compile(source, "<test>", "exec"), ns)  # noqa: S102 - the test's own program
    return ns


def test_jit_of_already_sharded_arguments_runs_on_every_device_and_moves_nothing():
    ns = module_of(PLACED)
    compiled = jax.jit(ns["loss"]).lower(ns["W"], ns["X"]).compile()
    partitions = int(re.search(r"num_partitions=(\d+)", compiled.as_text()).group(1))
    assert partitions == 8  # JAX: the program runs on 8 devices
    in_shardings = jax.tree.leaves(compiled.input_shardings[0])
    assert all(a.sharding.is_equivalent_to(s, a.ndim)
               for a, s in zip((ns["W"], ns["X"]), in_shardings))  # JAX: nothing to move
    _, scene = scene_of(PLACED, "loss", "jit", args="W, X")
    text = words(scene)
    assert "one device does all the work" not in text and "Device 0 computes" not in text
    assert "host memory" not in text
    assert scene.phases[0].kind == "placed" and "nothing moves at the call" in text
    assert len(scene.devices) == partitions and scene.parallel
    # drawn: no array on the host at any phase; the devices hold their tiles from the start
    _, items = render(scene, 0)
    assert not tiles_of(items, "input", "w") and not tiles_of(items, "input", "x")


def test_a_function_decorated_with_jit_or_pmap_is_one_compiled_program():
    ns = module_of(PLACED)
    for function, fields in (("step", dict(args="W, X")),
                             ("rows", dict(args="jnp.arange(16.0).reshape(8, 2)"))):
        jaxpr = jax.make_jaxpr(ns[function])(*(
            [ns["W"], ns["X"]] if function == "step" else [np.ones((8, 2), np.float32)]))
        assert [e.primitive.name for e in jaxpr.jaxpr.eqns] == ["jit"]  # JAX: one program
        _, scene = scene_of(PLACED, function, "as_written", **fields)
        assert scene.one_program
        assert "op by op" not in words(scene)


def test_collectives_are_titled_as_written_with_their_article():
    src = COLLECTIVES.splitlines()
    for function, written in (("summed", "psum"), ("averaged", "pmean")):
        line = next(k + 1 for k, t in enumerate(src) if f"jax.lax.{written}(x" in t)
        _, scene = scene_of(COLLECTIVES, function, "as_written",
                            args="jnp.arange(16.0).reshape(8, 2)")
        [phase] = [p for p in scene.phases if p.kind == "collective"]
        assert phase.title.startswith(f"{written} (line {line}): an all-reduce"), phase.title
        assert "psum_invariant" not in phase.title
    _, scene = scene_of(COLLECTIVES, "averaged", "as_written",
                        args="jnp.arange(16.0).reshape(8, 2)")
    assert "pmean is a psum followed by a division by 8" in words(scene)
    _, scene = scene_of(COLLECTIVES, "ring", "as_written", args="jnp.arange(16.0).reshape(8, 2)")
    [phase] = [p for p in scene.phases if p.kind == "collective"]
    assert ": a collective-permute" in phase.title and "an collective" not in words(scene)


def test_types_use_the_jaxpr_dtype_names():
    result, scene = scene_of(COLLECTIVES, "counted", "as_written",
                             args="jnp.arange(8, dtype=jnp.int32)")
    jaxpr_text = result.variant("as_written").jaxpr_text
    assert "i32[" in jaxpr_text and "s32[" not in jaxpr_text  # JAX's own name
    text = words(scene) + "".join(p.compute_label for p in scene.phases)
    assert "i32[" in text and not re.search(r"\bs32\[", text)


def test_identical_copies_are_said_and_drawn_alike():
    result, scene = scene_of(COLLECTIVES, "stepped", "pmap",
                             args="jnp.ones(3), jnp.ones(3)", in_axes="None, 0")
    ns = module_of(COLLECTIVES)
    out = jax.pmap(ns["stepped"], in_axes=(None, 0), axis_name="i")(
        np.ones(3, np.float32), np.ones((8, 3), np.float32))
    shards = [np.asarray(s.data) for s in out.addressable_shards]
    assert len(shards) == 8 and all(np.array_equal(s, shards[0]) for s in shards)  # JAX
    story = result.variant("pmap").storyboard
    assert story.claims.array("out").holding == "equal_pieces"
    text = words(scene)
    assert "identical copies" in text
    i = phase_of(scene, "assemble")
    _, items = render(scene, i)
    fills = {b.fill for b in tiles_of(items, "output", "out")}
    assert len(tiles_of(items, "output", "out")) > 1 and len(fills) == 1
