"""Explicit meshes, the function as written, pytree specs, static arguments: what the corpus
comparison (test_corpus.py) does not cover -- the code each call shows runs as written,
the sharding-change marks sit on the equations JAX printed, bad settings say what and
where, nothing leaks between requests, stepping and timing run inside the mesh."""

from __future__ import annotations

import subprocess
import sys

import jax
import numpy as np
import pytest

from jaxviz import core
from jaxviz.core.stepper import step
from jaxviz.core.timing import measure_timings
from jaxviz.model import TraceRequest
from jaxviz.model.errors import format_error
from jaxviz.model.sources import resolve_target
from jaxviz.model.stepping import StepRequest
from jaxviz.model.timing import TimingRequest
from jaxviz.views.compare.changes import marks_for
from tests.helpers.cli import fresh_env
from tests.helpers.corpus import CASES, CORPUS, parse_value
from tests.helpers.corpus import case_request as corpus_request

# Not in the fast tier: runs generated programs and fresh interpreters through JAX.
pytestmark = pytest.mark.slow

ALL = ["jaxpr", "hlo", "layout", "story", "value"]


SCRIPTS = [("explicit_typeof.py", "as_written"), ("explicit_flags_sharded.py", "sharded"),
           ("auto_vs_explicit.py", "sharded_explicit"), ("pytree_specs.py", "sharded"),
           ("static_args.py", "jit"), ("vmap_out_axes.py", "vmap"),
           ("devices_order.py", "sharded"), ("as_written_placed.py", "as_written"),
           ("out_shardings.py", "sharded"), ("function_argument.py", "vmap")]


def test_the_code_of_each_new_kind_of_call_runs_as_written(tmp_path):
    """Copy as code: the program (the file, the arguments, the mesh and jax.set_mesh, the
    placement, the call) prints in a fresh python what jaxviz run printed."""
    runs = []
    for filename, name in SCRIPTS:
        req, variant = corpus_request(filename, name)
        vr = core.trace_request(req).variant(variant)
        assert vr.error is None, format_error(vr.error, debug=True)
        path = tmp_path / f"{filename[:-3]}_{name}.py"
        path.write_text(vr.code.script(req.target.source))
        runs.append((filename, vr, subprocess.Popen(
            [sys.executable, str(path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, env=fresh_env(), cwd=tmp_path)))
    for filename, vr, proc in runs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, f"{filename}:\n{err[-2000:]}"
        value = out.rstrip("\n").splitlines()
        got = jax.tree.leaves(parse_value("\n".join(value[-vr.value.count("\n") - 1:])))
        want = jax.tree.leaves(parse_value(vr.value))
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-6)


def jaxpr_lines(vr, mark) -> list[str]:
    return vr.jaxpr_text.splitlines()[mark.start:mark.end + 1]


def test_sharding_changes_are_marked_where_jax_printed_them():
    req, variant = corpus_request("explicit_reshard.py", "as_written", want=("jaxpr",))
    result = core.trace_request(req)
    vr = result.variant(variant)
    marks = [m for m in marks_for(result, variant) if m.kind == "resharded"]
    assert len(marks) == vr.jaxpr_text.count("= reshard ") >= 1
    for mark in marks:
        line = " ".join(jaxpr_lines(vr, mark))
        assert "reshard" in line
        assert "f32[8@X,8] -> f32[8,8@Y]" in mark.tip
    req, variant = corpus_request("explicit_out_sharding.py", "as_written", want=("jaxpr",))
    result = core.trace_request(req)
    vr = result.variant(variant)
    [mark] = [m for m in marks_for(result, variant) if m.kind == "resharded"]
    assert "dot_general" in " ".join(jaxpr_lines(vr, mark))
    assert "out_sharding chose" in mark.tip and "f32[8@X,4]" in mark.tip
    # auto_axes traces to a pair of reshards: both marked; an auto mesh has none
    req, variant = corpus_request("explicit_auto_axes.py", "as_written", want=("jaxpr",))
    result = core.trace_request(req)
    assert sum(m.kind == "resharded" for m in marks_for(result, variant)) == 2
    req, variant = corpus_request("auto_vs_explicit.py", "sharded_auto", want=("jaxpr",))
    assert not [m for m in marks_for(core.trace_request(req), variant)
                if m.kind == "resharded"]


def test_the_module_mesh_does_not_leak_into_the_next_request():
    before = jax.sharding.get_mesh()
    req, variant = corpus_request("explicit_typeof.py", "as_written", want=("jaxpr",))
    assert core.trace_request(req).variant(variant).error is None
    assert jax.sharding.get_mesh() is before and before.empty
    # the next request's plain function sees no mesh: its types carry no sharding
    req, _ = corpus_request("stacked_copies.py", "vmap", want=("jaxpr",))
    vr = core.trace_request(req).variant("vmap")
    assert "@" not in vr.jaxpr_text


@pytest.mark.parametrize("filename, settings, field, words", [
    ("mesh_argument.py", dict(args="x, mesh"), "args",
     "argument 2 (mesh) is a Mesh, not an array"),
    ("static_args.py", dict(args="x", static="k=3"), "static", "has no parameter 'k'"),
    ("static_args.py", dict(args="x, 3", static="n=3"), "static", "'n' is parameter 2"),
    ("static_args.py", dict(args="x, n=3", static="n=4"), "static", "given both"),
    ("pytree_specs.py", dict(args="params, x", specs="[P(), P(), P()], P('data')",
                             mesh="data=4,model=2"), "specs", "do not fit its structure"),
    ("devices_order.py", dict(args="x", mesh="a=2,b=4", specs="P('a')",
                              devices_order="0,1,2"), "devices_order", "needs 8 devices"),
    ("devices_order.py", dict(args="x", mesh="a=2,b=4", axis_types="explicit,auto,auto"),
     "axis_types", "3 axis types for a mesh of 2 axes"),
    ("vmap_out_axes.py", dict(args="xs[0], scale", in_axes="0, None", out_axes="2, None"),
     "out_axes", "out_axes 2 is out of range for output 1 (float32[3]): batched, it has 2 "
                 "axes, so its out_axes is from -2 to 1"),
    ("vmap_out_axes.py", dict(args="xs[0], scale", in_axes="0, None", out_axes="0, None, 1"),
     "out_axes", "does not fit what stats returns (2 arrays: float32[3], float32[])"),
    ("static_args.py", dict(args="x"), "args", "powers takes 2 arguments (x, n), but the "
                                               "argument spec gives 1"),
])
def test_bad_settings_say_what_and_where(filename, settings, field, words):
    target, _ = resolve_target(f"{CORPUS / filename}:"
                               f"{next(c['function'] for f, _, c in CASES if f == filename)}")
    variant = "vmap" if "out_axes" in settings else "sharded"
    req = TraceRequest(target=target, variants=[variant], **settings)
    result = core.trace_request(req)
    error = result.error or result.variant(variant).error
    assert error is not None and error.field == field, error
    assert words in error.message, error.message
    assert "Traceback" not in error.message


def test_stepping_as_written_runs_inside_the_module_mesh():
    """The stepper steps the function as written (reshard needs the module's mesh) and
    its outputs are the real call's."""
    req, variant = corpus_request("explicit_reshard.py", "as_written")
    stepped = step(StepRequest(req, variant=variant))
    assert stepped.result.error is None, format_error(stepped.result.error, debug=True)
    assert any(s.primitive == "reshard" for s in stepped.result.steps)
    vr = core.trace_request(req).variant(variant)
    [want] = jax.tree.leaves(parse_value(vr.value))
    np.testing.assert_allclose(np.asarray(stepped.outputs[0]), want, rtol=1e-6)


def test_timing_measures_the_function_as_written():
    req, _ = corpus_request("explicit_typeof.py", "as_written", want=("jaxpr",))
    records: list = []
    run = measure_timings(TimingRequest(trace=req, variants=["as_written", "jit"], runs=2,
                                        warmup=1, pipeline=0), progress=records.append)
    calls = [r for r in records if type(r).__name__ == "CallRecord"]
    infos = {r.variant: r for r in records if type(r).__name__ == "VariantInfo"}
    assert {c.variant for c in calls} == {"as_written", "jit"}
    assert infos["as_written"].call == "add_arrays(x, y)"
    assert any(n.kind == "as_written" for n in infos["as_written"].notes)
    assert run.error is None and run.errors == []
