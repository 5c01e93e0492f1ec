"""Every claim of every storyboard against JAX (issue 26).

Each storyboard's claims (how the call runs, on how many devices, where each
input starts, how each output is held, which collective the user wrote and what
asked XLA for an inserted one) and the sentences rendered from them are checked
by :mod:`tests.helpers.claims_oracle`, which reads JAX itself: over the gallery, the
documentation-style corpus (tests/corpus) and generated programs.
"""

from __future__ import annotations

import contextlib
import io

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jaxviz import core
from jaxviz.model import Target, TraceRequest, TraceSettings, list_examples
from jaxviz.model.sources import resolve_target
from tests.helpers import claims_oracle
from tests.helpers.corpus import CASES as CORPUS_CASES
from tests.helpers.corpus import CORPUS
from tests.helpers.jax_requests import example_request

# Not in the fast tier: every gallery example, the corpus and generated programs through JAX.
pytestmark = pytest.mark.slow

WANT = ("jaxpr", "story", "value")
GALLERY = [(ex.name, v) for ex in list_examples() for v in ex.variants]


def traced(req: TraceRequest):
    with contextlib.redirect_stdout(io.StringIO()):
        return core.trace_request(req)


@pytest.mark.parametrize("name, variant", GALLERY, ids=[f"{n}-{v}" for n, v in GALLERY])
def test_gallery_claims_match_jax(name, variant):
    req = example_request(name, [variant], want=WANT)
    result = traced(req)
    assert result.error is None
    claims_oracle.check(result, req, variant)


CORPUS_IDS = [f"{f[:-3]}-{n}" for f, n, _ in CORPUS_CASES]


@pytest.mark.parametrize("filename, name, case", CORPUS_CASES, ids=CORPUS_IDS)
def test_corpus_claims_match_jax(filename, name, case):
    variant = case.get("variant", name)
    target, _ = resolve_target(f"{CORPUS / filename}:{case['function']}")
    fields = {k: case[k] for k in TraceSettings.names() if k in case}
    req = TraceRequest(target=target, variants=[variant], want=list(WANT), **fields)
    result = traced(req)
    assert result.error is None
    claims_oracle.check(result, req, variant)


# --------------------------------------------------------------------------- #
# generated programs
# --------------------------------------------------------------------------- #

HEAD = """\
from functools import partial
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import AxisType, NamedSharding
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh({shape}, {names}, axis_types=(AxisType.{types},) * {rank})
"""

#: Bodies of a shard_map over the first mesh axis 'a' (a block of x per device).
SHARD_MAP_BODIES = {
    "pmean": "return jax.lax.pmean(x, 'a')",
    "psum": "return jax.lax.psum(x, 'a')",
    "pmax": "return jax.lax.pmax(x, 'a')",
    "all_gather": "return jax.lax.all_gather(x, 'a', tiled=True)[:x.shape[0]] * 2",
    "psum_scatter": "return jax.lax.psum_scatter(jnp.tile(x, (N, 1)), 'a', tiled=True)",
    "all_to_all": "return jax.lax.all_to_all(x, 'a', 0, 0, tiled=True)",
    "ring": ("nxt = jax.lax.ppermute(x, 'a', [(j, (j + 1) % N) for j in range(N)])\n"
             "    here = jnp.sin(x)  # reads the block being sent while it travels\n"
             "    return here + nxt"),
}


def shard_map_program(body: str, n: int, types: str, decorated: str) -> str:
    head = HEAD.format(shape=(n,), names=("a",), types=types, rank=1)
    deco = {"jit": "@jax.jit\n", "none": ""}[decorated]
    return (head + f"N = {n}\n\n" + deco
            + "@partial(jax.shard_map, mesh=mesh, in_specs=P('a'), out_specs=P('a'))\n"
            + "def f(x):\n    " + body + "\n")


def shard_map_args(n: int) -> str:
    """n x n rows: every device's block splits n ways (all_to_all)."""
    return f"jnp.arange({n * n * 2}.0).reshape({n * n}, 2)"


def placed_program(spec: str, constraint: str | None, scan: bool, jitted: bool = False) -> str:
    head = HEAD.format(shape=(4, 2), names=("a", "b"), types="Auto", rank=2)
    x = f"x = jax.device_put(np.arange(64.0, dtype=np.float32).reshape(8, 8), " \
        f"NamedSharding(mesh, {spec}))\n"
    ws = "ws = jax.device_put(np.ones((3, 8, 8), np.float32) / 8, " \
         "NamedSharding(mesh, P(None, None, 'b')))\n"
    body = "    y = jnp.sin(x)\n"
    if constraint:
        body += (f"    y = jax.lax.with_sharding_constraint(y, NamedSharding(mesh, "
                 f"{constraint}))\n")
    if scan:
        body += ("    y, _ = jax.lax.scan(lambda h, w: (jnp.tanh(h @ w), None), y, ws)\n")
    body += "    return y * 2\n"
    # ws stays NumPy when jitted (a partly placed call: x placed, ws from the host)
    ws = ws if not jitted else "ws = np.ones((3, 8, 8), np.float32) / 8\n"
    return head + x + ws + "\n\n" + ("@jax.jit\n" if jitted else "") + "def f(x, ws):\n" + body


SPECS = ["P('a', None)", "P(None, 'b')", "P('a', 'b')", "P()", "P(('a', 'b'), None)"]


@st.composite
def programs(draw):
    kind = draw(st.sampled_from(["shard_map", "placed", "pmap", "jitted"]))
    if kind == "shard_map":
        n = draw(st.sampled_from([2, 4, 8]))
        body = draw(st.sampled_from(sorted(SHARD_MAP_BODIES)))
        types = draw(st.sampled_from(["Auto", "Explicit"]))
        deco = draw(st.sampled_from(["jit", "none"]))
        source = shard_map_program(SHARD_MAP_BODIES[body], n, types, deco)
        args = shard_map_args(n)
        if types == "Explicit" or draw(st.booleans()):  # an explicit mesh wants them placed
            args = f"jax.device_put({args}, NamedSharding(mesh, P('a')))"
        return source, dict(args=args), ["as_written", "jit"]
    if kind == "pmap":
        body = draw(st.sampled_from(["pmean", "psum", "pmax"]))
        n = draw(st.sampled_from([2, 8]))
        source = (HEAD.format(shape=(8,), names=("a",), types="Auto", rank=1)
                  + f"\n@partial(jax.pmap, axis_name='a')\ndef f(x):\n"
                    f"    return jax.lax.{body}(x * 2, 'a')\n")
        return source, dict(args=f"jnp.arange({n * 3}.0).reshape({n}, 3)"), ["as_written"]
    spec = draw(st.sampled_from(SPECS))
    constraint = draw(st.sampled_from([None] + SPECS))
    scan = draw(st.booleans())
    if kind == "jitted":  # @jax.jit as written, on arguments the module placed (or not)
        return (placed_program(spec, constraint, scan, jitted=True), dict(args="x, ws"),
                ["as_written"])
    return placed_program(spec, constraint, scan), dict(args="x, ws"), ["jit", "plain"]


@settings(max_examples=18, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(programs())
def test_generated_programs_claims_match_jax(tmp_path_factory, program):
    source, fields, variants = program
    path = tmp_path_factory.mktemp("gen") / "gen.py"
    path.write_text(source)
    req = TraceRequest(target=Target(source, str(path), "f"), variants=variants,
                       want=list(WANT), **fields)
    result = traced(req)
    assert result.error is None, result.error.message
    first = result.variant(variants[0])
    assert first.error is None, first.error.message
    for v in variants:
        if result.variant(v).error is not None:
            continue  # a later variant JAX refuses for this program (checked elsewhere)
        claims_oracle.check(result, req, v)


#: The programs issue 26 names, each checked for sure (Hypothesis draws from the same kinds).
NAMED = {
    "ring": (shard_map_program(SHARD_MAP_BODIES["ring"], 8, "Auto", "jit"),
             dict(args=shard_map_args(8)), ["as_written"]),
    "pmean_explicit": (shard_map_program(SHARD_MAP_BODIES["pmean"], 4, "Explicit", "none"),
                       dict(args="jax.device_put(jnp.arange(16.0).reshape(8, 2), "
                                 "NamedSharding(mesh, P('a')))"), ["as_written", "jit"]),
    "psum_scatter": (shard_map_program(SHARD_MAP_BODIES["psum_scatter"], 4, "Auto", "jit"),
                     dict(args=shard_map_args(4)), ["as_written"]),
    "all_to_all": (shard_map_program(SHARD_MAP_BODIES["all_to_all"], 4, "Auto", "jit"),
                   dict(args=shard_map_args(4)), ["as_written"]),
    "all_gather": (shard_map_program(SHARD_MAP_BODIES["all_gather"], 8, "Auto", "jit"),
                   dict(args="jnp.arange(32.0).reshape(16, 2)"), ["as_written"]),
    "pmap_pmean": (HEAD.format(shape=(8,), names=("a",), types="Auto", rank=1)
                   + "\n@partial(jax.pmap, axis_name='a')\ndef f(x):\n"
                     "    return jax.lax.pmean(x * 2, 'a')\n",
                   dict(args="jnp.arange(24.0).reshape(8, 3)"), ["as_written"]),
    "constraint_scan": (placed_program("P('a', None)", "P(None, 'a')", True),
                        dict(args="x, ws"), ["jit", "plain"]),
}


@pytest.mark.parametrize("name", sorted(NAMED))
def test_named_programs_claims_match_jax(tmp_path, name):
    source, fields, variants = NAMED[name]
    path = tmp_path / "named.py"
    path.write_text(source)
    req = TraceRequest(target=Target(source, str(path), "f"), variants=variants,
                       want=list(WANT), **fields)
    result = traced(req)
    assert result.error is None, result.error.message
    for v in variants:
        assert result.variant(v).error is None, (v, result.variant(v).error.message)
        claims_oracle.check(result, req, v)


# --------------------------------------------------------------------------- #
# arrays the module placed, as-written jit and pmap, summary slides
# --------------------------------------------------------------------------- #

#: A module that places its arguments itself (device_put), as documentation code does.
PLACED = HEAD.format(shape=(4, 2), names=("a", "b"), types="Auto", rank=2) + """
x = jax.device_put(np.arange(64.0, dtype=np.float32).reshape(8, 8), NamedSharding(mesh, P('a')))
w = np.ones((8, 8), np.float32)
params = jax.device_put(np.ones((8, 4), np.float32), NamedSharding(mesh, P(None, 'b')))
batch = jax.device_put(np.ones((16, 8), np.float32), NamedSharding(mesh, P('a')))
one = jax.device_put(np.arange(3.0, dtype=np.float32).reshape(1, 3), jax.devices()[3])


@jax.jit
def partly(x, w):
    return jnp.sin(x) @ w


def loss(params, batch):
    return jnp.mean((batch @ params) ** 2)


@jax.pmap
def moved(v):
    return v * 2


@partial(jax.pmap, devices=[jax.devices()[3]])
def kept(v):
    return v * 2
"""

PLACED_CASES = {
    "partly": ("x, w", ["as_written"]),
    "loss": ("params, batch", ["jit", "plain"]),
    "moved": ("one", ["as_written"]),
    "kept": ("one", ["as_written"]),
}


def placed_result(tmp_path, function: str):
    args, variants = PLACED_CASES[function]
    path = tmp_path / "placed.py"
    path.write_text(PLACED)
    req = TraceRequest(target=Target(PLACED, str(path), function), variants=variants,
                       want=list(WANT), args=args)
    result = traced(req)
    assert result.error is None, result.error.message
    return req, result


@pytest.mark.parametrize("function", sorted(PLACED_CASES))
def test_placed_arguments_claims_match_jax(tmp_path, function):
    req, result = placed_result(tmp_path, function)
    for v in req.variants:
        assert result.variant(v).error is None, (v, result.variant(v).error.message)
        claims_oracle.check(result, req, v)


def test_partly_placed_inputs_start_on_their_devices(tmp_path):
    """x, placed by the module with a NamedSharding, is drawn on its devices from the first
    phase and never on the host, split or sent; w (NumPy) starts on the host and travels."""
    import jax
    import numpy as np

    from jaxviz.views.devices.build import build_scene
    from tests.helpers.drawn import render, tiles_of

    req, result = placed_result(tmp_path, "partly")
    scene = build_scene(result, "as_written")
    kinds = [p.kind for p in scene.phases]
    ns: dict = {}
    exec(compile(PLACED, "placed.py", "exec"), ns)  # the module, as JAX runs it
    x_devices = sorted(d.id for d in ns["x"].sharding.device_set)
    assert isinstance(ns["x"], jax.Array) and isinstance(ns["w"], np.ndarray)
    for k in range(kinds.index("transfer") + 1):
        _lay, items = render(scene, k, 0.5)
        assert not tiles_of(items, "input", "x"), (kinds[k], "x is drawn on the host")
        assert not [it for it in items if getattr(it, "tag", "") == "host input:x"]
        held = sorted({int(it.tag.rsplit(" ", 1)[1]) for it in items
                       if getattr(it, "tag", "").startswith("held input:x ")})
        assert held == x_devices, (kinds[k], held)
    _lay, first = render(scene, 0, 0.0)
    assert [it for it in first if getattr(it, "tag", "") == "host input:w"], "w on the host"
    split = scene.phases[kinds.index("split")].caption
    assert "w f32[8,8]" in split and "x f32" not in split
    transfer = scene.phases[kinds.index("transfer")].caption
    assert "x is already there" in transfer


def test_summary_slide_sentences_from_claims(tmp_path):
    """The summary slide says how each variant runs, on how many devices, where its
    arguments start and how its result is held -- checked against JAX."""
    from jaxviz.views.present.deck import FunctionData, _summary_slide

    req, result = placed_result(tmp_path, "loss")
    data = FunctionData(key="k", target_text=f"{req.target.filename}:loss",
                        target=req.target, result=result)
    slide = _summary_slide(data, "loss")
    by_variant = {b.split(":")[0]: b for b in slide.bullets}
    assert set(by_variant) == {"jit", "plain"}
    for v, text in by_variant.items():
        claims_oracle.check_summary(text, claims_oracle.jax_view(req, v), v)
    assert "one compiled program on 8 devices" in by_variant["jit"]
    assert "op by op" in by_variant["plain"]


def test_pmap_input_on_another_device_says_where_it_is(tmp_path):
    """jax.pmap of an array the module put on device 3 runs on device 0 (JAX moves it); the
    first phase says it is on device 3 (not 'in host memory'); with devices=[device 3]
    nothing moves and it is drawn already on device 3."""
    from jaxviz.views.devices.build import build_scene
    from tests.helpers.drawn import render

    req, result = placed_result(tmp_path, "moved")
    ns: dict = {}
    exec(compile(PLACED, "placed.py", "exec"), ns)  # the module, as JAX runs it
    [on] = [d.id for d in ns["one"].sharding.device_set]
    ran = ns["moved"](ns["one"])
    [ran_on] = [d.id for d in ran.sharding.device_set]
    assert on != ran_on  # JAX moved it
    moved_scene = build_scene(result, "as_written")
    first = moved_scene.phases[0]
    assert "host memory" not in first.caption
    assert f"on device {on}, not where the program wants it" in first.caption
    # drawn as it is: whole, on device `on` -- a device the program does not run on, so
    # written on it (no colour of the program's) -- under a column not titled "host"
    assert on not in [d.id for d in moved_scene.devices]
    _lay, items = render(moved_scene, 0, 0.0)
    drawn = [it for it in items if getattr(it, "tag", "").startswith(f"on device {on} input:")]
    assert drawn, [getattr(i, "tag", "") for i in items]
    assert not [it for it in items if getattr(it, "tag", "").startswith("host input:")]
    texts = [it.text for it in items if hasattr(it, "text")]
    assert f"on device {on}" in texts
    assert "INPUTS" in texts and "INPUTS (HOST)" not in texts
    assert "grey: on the host" not in texts  # no array of this call is on the host
    _req, kept = placed_result(tmp_path, "kept")
    scene = build_scene(kept, "as_written")
    ran_kept = ns["kept"](ns["one"])
    assert scene.phases[0].kind == "placed"
    assert [d.id for d in scene.devices] == sorted(d.id for d in ran_kept.sharding.device_set) \
        == [on]
    assert f"already on device {on}" in scene.phases[0].caption


def test_the_mesh_jaxviz_builds_says_its_axis_types_against_jax_make_mesh():
    """Without --mesh jaxviz still builds the mesh (all devices on the axis): whenever its
    axis types are not jax.make_mesh's default in this JAX, the variant says so; with the
    default's types it says nothing."""
    import jax

    default = jax.make_mesh((1,), ("p",), devices=jax.devices()[:1]).axis_types[0].name
    for types in (None, "auto", "explicit"):
        req = example_request("convolve", ["sharded"], want=("jaxpr",), axis_types=types)
        result = traced(req)
        vr = result.variant("sharded")
        assert vr.error is None, vr.error.message
        said = [n.text for n in vr.notes if n.kind == "mesh_axis_types"]
        used = "Explicit" if types == "explicit" else "Auto"
        if used == default:
            assert not said, said
        else:
            [note] = said
            assert f"i: {used}" in note and f"jax.make_mesh in this JAX makes {default} axes" \
                in note


@pytest.mark.parametrize("name, variant", [("explicit_sharding", "as_written"),
                                           ("data_parallel", "pmap"),
                                           ("tensor_parallel", "sharded")])
def test_compiler_added_collectives_from_the_program_not_the_name(name, variant):
    """The pane's "compiler adds" names the collectives the compiled program runs that the
    jaxpr has none of -- for a function jitted as written too, not only the variant named
    sharded -- read here from the compiled HLO and jax.make_jaxpr."""
    import jax

    from jaxviz.core import meshes
    from jaxviz.core.trace import load
    from jaxviz.views.compare.changes import compiler_added

    req = example_request(name, [variant], want=("jaxpr", "hlo", "story"))
    result = traced(req)
    vr = result.variant(variant)
    assert vr.error is None, vr.error.message
    prepared = load(req).builder.prepare(variant)
    with meshes.mesh_context(prepared.context):
        closed = jax.make_jaxpr(prepared.fn)(*prepared.args)
        fn = prepared.fn if hasattr(prepared.fn, "lower") else jax.jit(prepared.fn)
        hlo = fn.lower(*prepared.args).compile().as_text()
    in_jaxpr = {e.primitive.name for e in claims_oracle._walk(closed.jaxpr)} \
        & claims_oracle.COLLECTIVE_PRIMS
    in_hlo = sorted({m.group(0)[:-1].removesuffix("-start")
                     for m in claims_oracle.HLO_COLLECTIVE.finditer(hlo)})
    if not in_jaxpr:
        assert compiler_added(vr) == in_hlo
        vr.storyboard = None  # without the storyboard: the same, from the program
        assert compiler_added(vr) == in_hlo
    else:
        vr.storyboard = None
        assert compiler_added(vr) == []  # which is which cannot be told: nothing said
