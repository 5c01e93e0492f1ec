"""Copy as code: every variant's call is Python that runs as written.

For every gallery example and every variant it declares, the program built
from the variant's :class:`~jaxviz.model.call_code.CallCode` (the example's
source, the arguments, the mesh, ``print(repr(call))``) runs in a fresh
interpreter -- no jaxviz, no device-count environment -- and prints exactly
what ``jaxviz run`` prints as the result. The call line itself (what the
panes, the device view and the timing records show) is a valid Python
expression.
"""

from __future__ import annotations

import ast
import subprocess
import sys

import pytest

from jaxviz import core
from jaxviz.model import list_examples
from jaxviz.model.errors import format_error
from tests.helpers.cli import fresh_env
from tests.helpers.jax_requests import example_request

# Not in the fast tier: runs generated programs and fresh interpreters through JAX.
pytestmark = pytest.mark.slow

EXAMPLES = list_examples()


@pytest.mark.parametrize("ex", EXAMPLES, ids=[e.name for e in EXAMPLES])
def test_every_variant_runs_as_written_and_prints_what_jaxviz_run_prints(ex, tmp_path):
    req = example_request(ex.name, want=("jaxpr", "value"))
    result = core.trace_request(req)
    assert result.error is None, format_error(result.error)
    runs = {}
    for vr in result.variants:
        assert vr.error is None, format_error(vr.error, debug=True)
        assert vr.code is not None and vr.code.call == vr.call
        ast.parse(vr.call, mode="eval")  # the one line the panes show is an expression
        assert "mesh=" not in vr.call or "mesh=mesh" in vr.call
        path = tmp_path / f"{vr.variant}.py"
        path.write_text(vr.code.script(req.target.source))
        runs[vr.variant] = subprocess.Popen(
            [sys.executable, str(path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, env=fresh_env(), cwd=tmp_path)
    for vr in result.variants:
        out, err = runs[vr.variant].communicate(timeout=300)
        assert runs[vr.variant].returncode == 0, f"{vr.variant}:\n{err[-2000:]}"
        # the value, after what the function itself prints (explicit_sharding: jax.typeof)
        printed, _, value = out.rstrip("\n").rpartition(vr.value)
        assert value == "" and (printed == "" or printed.endswith("\n")), vr.variant


def test_the_snippet_defines_what_the_call_uses():
    """The pasteable part (no source): imports, arguments, mesh, and the call last."""
    vr = core.trace_request(example_request("tensor_parallel", ["shard_map"])).variant(
        "shard_map")
    snippet = vr.code.snippet()
    assert snippet.splitlines()[-1] == vr.call
    assert "from jax.sharding import AxisType, NamedSharding, PartitionSpec as P" in snippet
    assert ("mesh = jax.make_mesh((4, 2), ('data', 'model'), "
            "axis_types=(AxisType.Auto, AxisType.Auto))") in snippet
    assert "rng = np.random.default_rng(0)" in snippet
    assert "x = sample(rng, (16, 64), jnp.float32)" in snippet
    assert 'jax.config.update("jax_num_cpu_devices", 8)' in vr.code.script("")


def test_a_partial_mesh_names_the_devices_it_uses():
    req = example_request("normalize", ["shard_map"], mesh="p=4", batched_args="jnp.arange(4.)")
    vr = core.trace_request(req).variant("shard_map")
    assert vr.error is None, format_error(vr.error)
    assert "devices=jax.devices()[:4]" in vr.code.snippet()


SETTINGS = [
    ("normalize", "pmap", {"batch": 16, "batched_args": None}),
    ("mlp_predict", "pmap", {"batch": 16}),
    ("convolve", "shard_map", {"batch": 16}),
    ("data_parallel", "shard_map", {"check_vma": True}),
    ("convolve", "vmap", {"in_axes": "1, 0", "args": "f32[5], f32[3]", "batch": 3}),
]


def run_script(text: str, tmp_path) -> str:
    path = tmp_path / "call.py"
    path.write_text(text)
    out = subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                         env=fresh_env(), cwd=tmp_path, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout.rstrip("\n")


@pytest.mark.parametrize("name, variant, overrides", SETTINGS,
                         ids=[f"{n}-{v}-{'-'.join(o)}" for n, v, o in SETTINGS])
def test_other_settings_run_as_written(name, variant, overrides, tmp_path):
    req = example_request(name, [variant], want=("jaxpr", "value"), **overrides)
    vr = core.trace_request(req).variant(variant)
    assert vr.error is None, format_error(vr.error, debug=True)
    assert run_script(vr.code.script(req.target.source), tmp_path) == vr.value


@pytest.mark.parametrize("variant", ["numpy", "jit-vmap", "loop", "op-by-op"])
def test_timing_variants_run_as_written(variant, tmp_path):
    from jaxviz.core.timing_variants import build
    from jaxviz.core.trace import load

    req = example_request("batched_matmul", ["plain"], args="f32[4,4], f32[4,4]")
    timed = build(load(req), variant, "matmul_numpy", True)
    want = timed.fn(*timed.args)
    assert run_script(timed.code.script(req.target.source), tmp_path) == repr(want)
