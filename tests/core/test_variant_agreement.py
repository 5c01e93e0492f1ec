"""Every variant computes what the lecture says it computes -- or says why not.

For every gallery example, every variant it declares and several batch sizes
(the example's own arguments, batch = devices, 2 x devices, and a batch that
is not a multiple of the device count where the variant allows one), the
variant's result must equal the reference -- a Python loop of calls of the
plain function, or ``jax.vmap`` where a loop cannot bind the collective's
axis -- built here from the example's file with JAX alone; or the variant
carries a note that says it differs (``VariantNote.differs``) and why.
Values that agree must carry no such note. Inputs are the random values
jaxviz documents (``RANDOM_RECIPE``: ``numpy.random.default_rng(0)``, leaf by
leaf in argument order), drawn here independently.
"""

from __future__ import annotations

import jax
import jax.extend
import jax.numpy as jnp
import numpy as np
import pytest
from jax.sharding import AxisType
from jax.sharding import PartitionSpec as P

from jaxviz import core
from jaxviz.core import arguments
from jaxviz.core.trace import load
from jaxviz.model import list_examples
from jaxviz.model.errors import format_error
from jaxviz.model.notes import NOTE_KINDS
from tests.helpers.jax_requests import example_request, import_file
from tests.helpers.reference import args_of, batched, in_axes_of

# Not in the fast tier: every gallery example (or the corpus) through JAX.
pytestmark = pytest.mark.slow

DEVICES = 8
BATCHED = ("vmap", "pmap", "sharded", "shard_map")
#: Variants that split the batch evenly over devices: no batch of 12 on 8 devices.
EVEN_ONLY = ("pmap", "sharded", "shard_map")


def sample_values(tree):
    """The documented random values, drawn here: one numpy.random.default_rng(0) for the
    call's arguments, leaf by leaf in JAX's flattening order; floats standard normal
    rounded to 2 decimals, signed integers in [-5, 5] (the gallery has no other kind)."""
    rng = np.random.default_rng(0)

    def one(leaf):
        if not isinstance(leaf, jax.ShapeDtypeStruct):
            return leaf
        if jnp.issubdtype(leaf.dtype, jnp.floating):
            return jnp.asarray(np.round(rng.standard_normal(leaf.shape), 2), dtype=leaf.dtype)
        assert jnp.issubdtype(leaf.dtype, jnp.signedinteger), leaf.dtype
        return jnp.asarray(rng.integers(-5, 6, size=leaf.shape), dtype=leaf.dtype)

    leaves, treedef = jax.tree.flatten(tree)
    return jax.tree.unflatten(treedef, [one(leaf) for leaf in leaves])


def reference(ex, variant: str, batch: int | None):
    """What the variant should compute, with JAX alone: f(*args), a loop, or vmap.

    Returns:
        ``(value, size, collective)``: the reference value, the batch size (None
        unbatched) and whether the function has a collective over the batch axis
        (a loop of calls cannot bind it).
    """
    module = import_file(ex.path)
    ns = vars(module)
    f = getattr(module, ex.function)
    single = args_of(ex.args, ns)
    in_axes = in_axes_of(ex.in_axes, len(single))
    batched_variant = variant in BATCHED and any(a is not None for a in in_axes)
    if not batched_variant:
        return f(*sample_values(single)), None, False
    if batch is None and ex.batched_args:
        args = sample_values(args_of(ex.batched_args, ns))
    else:
        args = sample_values(batched(single, in_axes, batch or DEVICES))
    size = next(jax.tree.leaves(a)[0].shape[ax] for a, ax in zip(args, in_axes) if ax is not None)
    try:
        outs = [f(*[a if ax is None else jax.tree.map(lambda leaf, i=i, ax=ax:
                                                     jnp.take(leaf, i, axis=ax), a)
                    for a, ax in zip(args, in_axes)]) for i in range(size)]
        return jax.tree.map(lambda *xs: jnp.stack(xs), *outs), size, False
    except NameError:  # a collective: only vmap binds its axis over the whole batch
        return jax.vmap(f, in_axes=tuple(in_axes), axis_name=ex.axis_name)(*args), size, True


def gradient_summed_by_check_vma(ex) -> bool:
    """Under shard_map with check_vma=True, does jax.grad's backward pass sum over the
    mesh axis (a psum_invariant from a transpose)? Built here with jax.shard_map."""
    module = import_file(ex.path)
    f = getattr(module, ex.function)
    single = args_of(ex.args, vars(module))
    in_axes = in_axes_of(ex.in_axes, len(single))
    mesh = jax.make_mesh((DEVICES,), (ex.axis_name,), axis_types=(AxisType.Auto,))
    specs = tuple(P() if a is None else P(*([None] * a), ex.axis_name) for a in in_axes)
    smap = jax.shard_map(jax.vmap(f, in_axes=tuple(in_axes)), mesh=mesh, in_specs=specs,
                         out_specs=P(ex.axis_name), check_vma=True)
    closed = jax.make_jaxpr(smap)(*batched(single, in_axes, DEVICES))

    def eqns(jaxpr):
        for eqn in jaxpr.eqns:
            yield eqn
            for sub in jax.extend.core.jaxprs_in_params(eqn.params):
                yield from eqns(sub)

    return any(e.primitive.name == "psum_invariant" and "transpose" in str(e.source_info.name_stack)
               for e in eqns(closed.jaxpr))


def explaining_kinds(ex, variant: str, size: int | None, collective: bool,
                     check_vma: bool | None) -> set[str]:
    """The note kinds that can explain a difference in this case, decided here:
    a collective under pmap/shard_map with several examples per device reduces over
    the devices only; jax.grad under check_vma=True already summed the gradient."""
    kinds = set()
    if variant in ("pmap", "shard_map") and collective and (size or 0) > DEVICES:
        kinds.add("per_device_collective")
    if variant == "shard_map" and check_vma and gradient_summed_by_check_vma(ex):
        kinds.add("reduced_twice")
    return kinds


def agrees(got, want) -> bool:
    got_leaves, want_leaves = jax.tree.leaves(got), jax.tree.leaves(want)
    assert len(got_leaves) == len(want_leaves)
    for g, w in zip(got_leaves, want_leaves):
        g, w = np.asarray(g, dtype=np.float64), np.asarray(w, dtype=np.float64)
        if g.size == w.size and g.shape != w.shape:
            g = g.reshape(w.shape)  # pmap(vmap(f)) answers devices x examples
        assert g.shape == w.shape
        if not np.allclose(g, w, rtol=1e-4, atol=1e-5):
            return False
    return True


def cases():
    out = []
    for ex in list_examples():
        # one value applies to every argument, so one argument tells whether any is batched
        any_batched = any(a is not None for a in in_axes_of(ex.in_axes, 1))
        for variant in ex.variants:
            vmas = (True, False) if variant == "shard_map" else (None,)
            sizes = [None]
            if any_batched and variant in BATCHED:
                sizes += [DEVICES, 2 * DEVICES, DEVICES + DEVICES // 2]
            for batch in sizes:
                for vma in vmas:
                    out.append((ex, variant, batch, vma))
    return out


CASES = cases()


@pytest.mark.parametrize(
    "ex, variant, batch, check_vma", CASES,
    ids=[f"{e.name}-{v}-{b or 'own'}{'' if c is None else f'-vma{int(c)}'}"
         for e, v, b, c in CASES])
def test_variant_equals_reference_or_says_why(ex, variant, batch, check_vma):
    overrides = {}
    if batch is not None:
        overrides.update(batch=batch, batched_args=None)
    if check_vma is not None:
        overrides["check_vma"] = check_vma
    req = example_request(ex.name, [variant], **overrides)
    vr = core.trace_request(req).variant(variant)
    if batch is not None and batch % DEVICES and variant in EVEN_ONLY:
        # the variant cannot split the batch: a clear message, no traceback
        assert vr.error is not None and vr.error.kind == "batch", vr.error
        assert f"a batch of {batch}" in vr.error.message and "--batch" in vr.error.message
        return
    assert vr.error is None, format_error(vr.error, debug=True)
    prepared = load(req).builder.prepare(variant)
    got = prepared.fn(*arguments.concrete(prepared.args))
    want, size, collective = reference(ex, variant, batch)
    same = agrees(got, want)
    differs = [n for n in vr.notes if n.differs]
    if same:
        assert not differs, [n.line() for n in differs]
    else:
        assert differs, f"{variant} differs from the reference with no note: {vr.notes}"
        # each differing note's kind is one that explains this case, decided in the test
        explains = explaining_kinds(ex, variant, size, collective, check_vma)
        assert explains and {n.kind for n in differs} <= explains, (
            [n.line() for n in differs], explains)
        assert all(NOTE_KINDS[n.kind].differs for n in differs)


def test_the_cases_cover_what_the_lecture_shows():
    names = {(e.name, v) for e, v, _, _ in CASES}
    assert names == {(e.name, v) for e in list_examples() for v in e.variants}
    batches = {b for e, v, b, _ in CASES if v == "pmap"}
    assert {None, DEVICES, 2 * DEVICES, DEVICES + DEVICES // 2} <= batches
