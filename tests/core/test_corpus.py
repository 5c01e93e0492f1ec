"""Today's JAX, as its documentation writes it: every program of ``tests/corpus`` against JAX.

Each corpus file runs as written (imported here, apart from jaxviz's loader) and
declares ``CASES``: what a user asks jaxviz, and for variants jaxviz builds, the
same call in plain JAX. For each case the test compares what jaxviz shows with
what plain JAX gives for that call, inside the mesh it runs in: the jaxpr text
(``jax.make_jaxpr``), what the function printed while it was traced
(``jax.typeof``: ``f32[4@X,8]``), the value of a real call, the devices holding
each piece of every input and output (``devices_indices_map`` of the compiled
program's shardings) and the compiled collectives (the tests' own HLO reader).
"""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import jax
import numpy as np
import pytest

from jaxviz import core
from jaxviz.model.as_written import transformed_reason
from jaxviz.model.errors import format_error
from tests.helpers.corpus import CASES, CORPUS, case_request, parse_value
from tests.helpers.jax_requests import import_file
from tests.helpers.storyboard_oracle import (
    assert_collectives_match,
    index_holders,
    oracle_collectives,
)

# Not in the fast tier: every gallery example (or the corpus) through JAX.
pytestmark = pytest.mark.slow

WANT = ["jaxpr", "hlo", "layout", "story", "value"]


def test_the_corpus_covers_what_the_issue_lists():
    assert len({f for f, _, _ in CASES}) >= 25
    text = " ".join((CORPUS / f).read_text() for f in {f for f, _, _ in CASES})
    for feature in ("AxisType.Explicit", "set_mesh", "reshard", "auto_axes", "out_sharding=",
                    "@jax.jit", "jax.shard_map", "jax.debug.print", "out_axes", "static",
                    "explicit_axes", "with_sharding_constraint", "devices_order"):
        assert feature in text, feature
    kinds = {c.get("variant", n) for _, n, c in CASES}
    assert {"as_written", "plain", "jit", "vmap", "sharded", "shard_map"} <= kinds
    assert any("[(P(" in c.get("specs", "") for _, _, c in CASES)  # a pytree of specs


@contextlib.contextmanager
def in_mesh(mesh):
    if mesh is None:
        yield
    else:
        with jax.set_mesh(mesh):
            yield


def run_as_written(path: Path):
    """Import the file (as ``python FILE`` runs it); the mesh it set (the test process's
    context is put back)."""
    module = import_file(str(path))
    return module, module.MODULE_MESH


def layout_holders(layout) -> dict[tuple, set[int]]:
    out: dict[tuple, set[int]] = {}
    for shard in layout.shards:
        out.setdefault(tuple(tuple(r) for r in shard.index), set()).add(shard.device)
    return out


@pytest.mark.parametrize("filename, name, case", CASES,
                         ids=[f"{f[:-3]}-{n}" for f, n, _ in CASES])
def test_corpus_case_matches_jax(filename, name, case):
    path = CORPUS / filename
    req, variant = case_request(filename, name, WANT)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        result = core.trace_request(req)
    assert result.error is None, format_error(result.error, debug=True)
    vr = result.variant(variant)
    assert vr.error is None, format_error(vr.error, debug=True)
    printed = out.getvalue()

    # --- the same call in plain JAX, in the file as written ---------------------
    module, module_mesh = run_as_written(path)
    ns = vars(module)
    fn = eval(case.get("reference", case["function"]), ns)  # noqa: S307
    context = ns[case["context"]] if "context" in case else module_mesh
    with in_mesh(context):
        args = eval(f"[{case.get('reference_args', case['args'])}]", ns)  # noqa: S307
        if "reference_args" in case:
            args = args[0] if len(args) == 1 and isinstance(args[0], list) else args
        seen = io.StringIO()
        with contextlib.redirect_stdout(seen):
            closed = jax.make_jaxpr(fn)(*args)
        compiled = (fn if hasattr(fn, "lower") else jax.jit(fn)).lower(*args).compile()
        ran = io.StringIO()
        with contextlib.redirect_stdout(ran):
            value = jax.block_until_ready(fn(*args))

    # the jaxpr, exactly as JAX prints it (sharding in the types under explicit meshes)
    assert vr.jaxpr_text == str(closed)
    for var in [*vr.invars, *vr.outvars]:
        assert var.type_str in vr.jaxpr_text
    # what the function printed while traced (jax.typeof ...) jaxviz's trace printed too
    for line in seen.getvalue().splitlines():
        assert line in printed, line
    # the value of one real call
    got = jax.tree.leaves(parse_value(vr.value))
    want = jax.tree.leaves(value)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, np.asarray(w), rtol=2e-6, atol=1e-6)
    # where every piece of every input and output lives
    in_shardings = jax.tree.leaves(compiled.input_shardings[0])
    out_shardings = jax.tree.leaves(compiled.output_shardings)
    inputs = [a for a in vr.arrays if a.role == "input"]
    outputs = [a for a in vr.arrays if a.role == "output"]
    assert len(inputs) == len(in_shardings) and len(outputs) == len(out_shardings)
    in_shapes = [np.shape(x) for x in jax.tree.leaves(args)]
    for layout, sharding, shape in zip(inputs, in_shardings, in_shapes):
        assert layout_holders(layout) == index_holders(sharding, shape), layout.name
    for layout, sharding, leaf in zip(outputs, out_shardings, want):
        assert layout_holders(layout) == index_holders(sharding, np.shape(leaf)), layout.name
    # the compiled program's collectives, kinds, groups and shapes
    assert vr.storyboard is not None
    assert_collectives_match(vr.storyboard, oracle_collectives(compiled))
    # prints from a shard_map body run eagerly: one line per device, labelled with it
    if case.get("prints") == "per_device":
        plain_lines = ran.getvalue().splitlines()
        labelled = re.findall(r"^device (\d+) \(\w+=(\d+)\): (.*)$", printed, re.M)
        assert [text for _, _, text in labelled][-len(plain_lines):] == plain_lines
        mesh_ids = [d.id for d in np.ravel(context.devices if context else fn_mesh(ns))]
        assert [int(d) for d, _, _ in labelled][-len(plain_lines):] == mesh_ids
    if "note" in case:
        assert any(case["note"] in n.text for n in vr.notes), [n.text for n in vr.notes]


def fn_mesh(ns: dict):
    """The one module-level mesh of a corpus file."""
    found = [v for v in ns.values() if isinstance(v, jax.sharding.Mesh)]
    assert len(found) == 1
    return found[0].devices


@pytest.mark.parametrize("filename", sorted({f for f, _, _ in CASES}))
def test_as_written_detection_agrees_with_jax(filename):
    """The source reading that picks the default pane agrees with the objects JAX built:
    a jitted function has ``lower``, a shard_map'd one wraps another, a set mesh is set."""
    path = CORPUS / filename
    module, module_mesh = run_as_written(path)
    for _, name, case in [c for c in CASES if c[0] == filename]:
        fn = getattr(module, case["function"])
        transformed = hasattr(fn, "lower") or hasattr(fn, "__wrapped__") or \
            module_mesh is not None
        reason = transformed_reason(path.read_text(), case["function"])
        assert (reason is not None) == transformed, (name, reason)


@pytest.mark.parametrize("filename, name, case", CASES,
                         ids=[f"{f[:-3]}-{n}" for f, n, _ in CASES])
def test_corpus_case_steps_to_the_real_value(filename, name, case):
    """The stepper runs each case equation by equation to what the call itself returns."""
    from jaxviz.core.stepper import step
    from jaxviz.model.stepping import StepRequest

    req, variant = case_request(filename, name)
    with contextlib.redirect_stdout(io.StringIO()):
        stepped = step(StepRequest(req, variant=variant, value_limit=4096))
        vr = core.trace_request(req).variant(variant)
    assert stepped.result.error is None, format_error(stepped.result.error, debug=True)
    assert stepped.result.complete and stepped.result.steps
    want = jax.tree.leaves(parse_value(vr.value))
    assert len(stepped.outputs) == len(want)
    for got, real in zip(stepped.outputs, want):
        np.testing.assert_allclose(np.asarray(got), real, rtol=2e-5, atol=1e-6)
