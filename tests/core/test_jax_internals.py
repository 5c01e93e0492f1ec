"""The adapter over JAX internals, checked against the pinned JAX release."""

from __future__ import annotations

import inspect

import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import PartitionSpec as P

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


def _eqns(closed):
    return [ji.view(e) for e in closed.jaxpr.eqns]


def test_nested_jaxprs_are_described_for_the_stepper():
    def f(xs, y):
        c, _ = lax.scan(lambda c, x: (c + x, c), 0.0, xs, reverse=True)
        z = lax.cond(c > 0, lambda a: a + 1, lambda a: a - 1, y)
        w = lax.while_loop(lambda s: s < 3 + y, lambda s: s + 1, 0.0)
        return jax.jit(jnp.sin)(z), jax.checkpoint(jnp.cos)(w)

    nested = [ji.nested(v) for v in _eqns(jax.make_jaxpr(f)(jnp.ones(3), 1.0))]
    by_kind = {n.kind: n for n in nested if n is not None}
    scan = by_kind["scan"]
    assert scan.params == {"num_consts": 0, "num_carry": 1, "length": 3, "reverse": True}
    assert len(by_kind["cond"].bodies) == 2 and by_kind["cond"].bodies[1].label == "branches[1]"
    loop = by_kind["while"]
    assert [b.label for b in loop.bodies] == ["cond_jaxpr", "body_jaxpr"]
    assert loop.params == {"cond_nconsts": 1, "body_nconsts": 0}
    calls = [n for n in nested if n is not None and n.kind == "call"]
    assert [c.bodies[0].label for c in calls] == ["jaxpr", "jaxpr"]  # jit and remat
    assert ji.nested(_eqns(jax.make_jaxpr(jnp.sin)(1.0))[0]) is None


def test_shard_map_and_collectives_are_described_for_the_stepper():
    mesh = jax.make_mesh((4, 2), ("a", "b"), axis_types=(jax.sharding.AxisType.Auto,) * 2)

    def local(x):
        y = lax.psum(x, ("b", "a")) + lax.axis_index("a")
        y = lax.ppermute(y, "a", [(0, 1), (1, 0)])
        return lax.all_gather(y, "b", axis=1, tiled=True)

    smap = jax.shard_map(local, mesh=mesh, in_specs=P("a", "b"), out_specs=P("a"),
                         check_vma=False)
    (eqn,) = _eqns(jax.make_jaxpr(smap)(jnp.ones((8, 4))))
    nested = ji.nested(eqn)
    assert nested.kind == "shard_map" and nested.params["manual_axes"] == {"a", "b"}
    assert nested.params["in_specs"] == (P("a", "b"),)
    names, sizes, ids = ji.mesh_parts(nested.params["mesh"])
    assert (names, sizes, ids.tolist()) == (["a", "b"], [4, 2], [[0, 1], [2, 3], [4, 5], [6, 7]])
    inner = ji.signature(nested.bodies[0].jaxpr)[3]
    colls = {c.kind: c for c in map(ji.collective, inner) if c is not None}
    assert colls["psum"].axes == ("b", "a") and colls["psum"].positional == ()
    assert colls["axis_index"].axes == ("a",)
    assert colls["ppermute"].perm == ((0, 1), (1, 0))
    gather = colls["all_gather"]
    assert (gather.axes, gather.dimension, gather.tiled) == (("b",), 1, True)
    assert ji.spec_entries(P(("a", "b"), None), 3) == [("a", "b"), (), ()]


def test_bind_runs_one_equation_like_eval_jaxpr():
    closed = jax.make_jaxpr(lambda x: jnp.sort(x) * 2)(jnp.ones(3))
    sort, mul = _eqns(closed)
    (sorted_,) = ji.bind(sort, [jnp.array([3.0, 1.0, 2.0])])
    assert ji.read_atom(mul.invars[1], {}) == 2.0 and ji.is_literal(mul.invars[1])
    assert ji.bind(mul, [sorted_, 2.0])[0].tolist() == [2.0, 4.0, 6.0]


def test_the_schedule_is_the_order_the_compiled_text_prints():
    from jax.sharding import AxisType, NamedSharding
    from jax.sharding import PartitionSpec as P

    mesh = jax.make_mesh((4, 2), ("data", "model"), axis_types=(AxisType.Auto,) * 2)
    fn = jax.jit(lambda x, w: jnp.tanh(x @ w),
                 in_shardings=(NamedSharding(mesh, P("data", "model")),
                               NamedSharding(mesh, P(None, "model"))))
    compiled = fn.lower(jnp.ones((16, 64)), jnp.ones((64, 32))).compile()
    schedule = ji.hlo_schedule(compiled)
    text = compiled.as_text()
    entry = text.split("\nENTRY %", 1)[1]
    name = entry.split(" ", 1)[0]
    printed = [line.split("=", 1)[0].replace("ROOT", "").strip().lstrip("%")
               for line in entry.split("{", 1)[1].split("\n}", 1)[0].splitlines()
               if "=" in line]
    assert schedule[name] == printed and "all-gather" in printed


def test_device_assignment_is_the_meshs_device_order():
    import numpy as np
    from jax.sharding import AxisType, Mesh, NamedSharding
    from jax.sharding import PartitionSpec as P

    order = [5, 2, 7, 0, 1, 6, 3, 4]
    mesh = Mesh(np.array(jax.devices())[order], ("i",), axis_types=(AxisType.Auto,))
    fn = jax.jit(lambda x: x * 2, in_shardings=NamedSharding(mesh, P("i")))
    compiled = fn.lower(jnp.ones(8)).compile()
    assert [d.id for d in ji.device_assignment(compiled)] == order
    out = fn(jnp.arange(8.0))
    # partition p computes block p: the device holding block p is order[p]
    held = {s.device.id: s.index[0].start for s in out.addressable_shards}
    assert [held[d] for d in order] == list(range(8))


def test_gloo_is_asked_to_listen_on_loopback(monkeypatch):
    from jax._src import xla_bridge
    from jax._src.lib import _jax

    # The real factory takes the host name its TCP transport binds to ...
    assert "hostname: str | None" in _jax.make_gloo_tcp_collectives.__doc__
    # ... and JAX's CPU backend looks it up on _jax when it starts, without one.
    assert "_jax.make_gloo_tcp_collectives(" in inspect.getsource(xla_bridge.make_cpu_client)
    seen = []
    monkeypatch.setattr(_jax, "make_gloo_tcp_collectives", lambda **kw: seen.append(kw))
    assert ji.gloo_on_loopback()
    _jax.make_gloo_tcp_collectives(distributed_client="client")
    assert seen == [{"distributed_client": "client", "hostname": "127.0.0.1"}]
