"""Issue 26's command-line items, as a user runs them (subprocess), each against what JAX does.

Each test first asks JAX itself (in a child Python with 8 CPU devices) what the call does,
then checks that jaxviz says the same.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from tests.helpers.cli import jaxviz

# Not in the fast tier: runs the jaxviz command in subprocesses.
pytestmark = pytest.mark.slow

PAIRWISE = """\
import jax
import jax.numpy as jnp


def dist(a, b):
    return jnp.sqrt(jnp.sum((a - b) ** 2))


def pairwise(f, xs):
    return jax.vmap(lambda a: jax.vmap(lambda b: f(a, b))(xs))(xs)


def total(x):
    return x / jax.lax.psum(x, 'batch')
"""


def jax_says(code: str) -> str:
    """What plain JAX prints for ``code`` (8 CPU devices, a fresh process)."""
    prelude = "import jax\njax.config.update('jax_num_cpu_devices', 8)\nimport jax.numpy as jnp\n"
    out = subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(code)],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout


def values(text: str) -> np.ndarray:
    """The numbers of a printed array, in order."""
    import re

    return np.array([float(x) for x in re.findall(r"-?\d+\.\d*(?:e-?\d+)?", text)])


def test_pmap_over_fewer_examples_than_devices_runs_on_the_first_ones(tmp_path):
    example = Path(__file__).resolve().parents[2] / "resources" / "examples" / "convolve.py"
    plain = jax_says(f"""
        import runpy
        f = jax.pmap(runpy.run_path({str(example)!r})['convolve'])
        out = f(jnp.stack([jnp.arange(5.)] * 2), jnp.stack([jnp.array([2., 1., 0.5])] * 2))
        print(sorted(d.id for d in out.sharding.device_set))
        print(out)
    """)
    devices_line, printed = plain.split("\n", 1)
    assert devices_line == "[0, 1]"  # JAX: the first 2 devices
    out = jaxviz("run", "example:convolve", "--variant", "pmap", "--batched-args",
                 "jnp.stack([jnp.arange(5.)]*2), jnp.stack([jnp.array([2., 1., .5])]*2)")
    assert out.returncode == 0, out.stderr
    assert "multiple of" not in out.stderr
    assert np.allclose(values(out.stdout.split("\n# ")[0]), values(printed))
    assert "first 2 devices" in out.stdout


def test_a_static_first_argument(tmp_path):
    path = tmp_path / "pairwise.py"
    path.write_text(PAIRWISE)
    want = jax_says(f"""
        import runpy
        ns = runpy.run_path({str(path)!r})
        xs = jnp.arange(12.).reshape(4, 3)
        print(jax.jit(ns['pairwise'], static_argnames=('f',))(ns['dist'], xs))
        print(jax.make_jaxpr(ns['pairwise'], static_argnums=0)(ns['dist'], xs).in_avals)
    """)
    printed, avals = want.rsplit("\n", 2)[0], want.rsplit("\n", 2)[1]
    assert avals == "[ShapedArray(float32[4,3])]"  # JAX: xs is the input, f is not
    for flags in (("--static", "f=dist"), ()):
        args = "jnp.arange(12.).reshape(4, 3)" + ("" if flags else ", f=dist")
        out = jaxviz("run", f"{path}:pairwise", "--variant", "jit", "--args", args, *flags)
        assert out.returncode == 0, out.stderr
        assert np.allclose(values(out.stdout.split("\n# ")[0].split("\n", 1)[1]),
                           values(printed))
        jaxpr = jaxviz("jaxpr", f"{path}:pairwise", "--variant", "jit", "--args", args, *flags)
        assert jaxpr.returncode == 0, jaxpr.stderr
        assert jaxpr.stdout.startswith("{ lambda ; a:f32[4,3]. let")


def test_jit_with_batched_arguments_is_refused_not_run_unbatched():
    out = jaxviz("run", "example:convolve", "--variant", "jit", "--batched-args",
                 "jnp.stack([x]*2), jnp.stack([w]*2)")
    assert out.returncode == 2
    assert "--batched-args" in out.stderr and "jit" in out.stderr
    assert "Traceback" not in out.stderr and not out.stdout


def test_a_collective_under_jit_is_sent_to_shard_map(tmp_path):
    path = tmp_path / "total.py"
    path.write_text(PAIRWISE)
    said = jax_says("""
        try:
            jax.jit(lambda x: jax.lax.psum(x, 'batch'))(jnp.ones(8))
        except NameError as e:
            print(e)
    """)
    assert "shard_map" in said  # JAX: call it under jax.shard_map
    out = jaxviz("run", f"{path}:total", "--variant", "sharded", "--args", "f32[8]",
                 "--mesh", "batch=8", "--specs", "P('batch')", "--in-axes", "None")
    assert out.returncode in (1, 2) and "Traceback" not in out.stderr
    assert "shard_map" in out.stderr and "binds no axis names" in out.stderr
    assert "name a mesh axis" not in out.stderr


EAGER = """\
import jax
import jax.numpy as jnp
from jax.sharding import AxisType
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((4,), ("i",), axis_types=(AxisType.Auto,))


@jax.shard_map(mesh=mesh, in_specs=P("i"), out_specs=P("i"))
def show(block):
    print("traced", block)
    jax.debug.print("block {b}", b=block)
    return block * 10


xs = jnp.arange(8, dtype=jnp.int32)
"""


def test_an_eager_shard_map_prints_what_its_own_run_prints(tmp_path):
    path = tmp_path / "eager.py"
    path.write_text(EAGER)
    plain = jax_says(f"""
        import runpy
        ns = runpy.run_path({str(path)!r})
        ns['show'](ns['xs'])
    """)
    assert "JitTracer" not in plain  # JAX: the eager run traces no jit
    out = jaxviz("run", f"{path}:show", "--args", "xs")
    assert out.returncode == 0, out.stderr
    before = out.stderr  # (what the user's code prints goes to stderr, results to stdout)
    assert "JitTracer" not in before
    ours = sorted(line.split(": ", 1)[1] for line in before.splitlines() if "block" in line)
    theirs = sorted(line for line in plain.splitlines() if line.startswith("block"))
    assert ours == theirs and len(ours) == 4


def test_the_mesh_axis_types_are_said_against_jax_default():
    default = jax_says("print(jax.make_mesh((8,), ('i',)).axis_types[0].name)").strip()
    out = jaxviz("run", "example:tensor_parallel", "--variant", "sharded")
    assert out.returncode == 0, out.stderr
    [note] = [line for line in out.stdout.splitlines() if "axis types" in line]
    assert "Auto" in note and f"jax.make_mesh in this JAX makes {default} axes" in note
    explicit = jaxviz("run", "example:tensor_parallel", "--variant", "sharded",
                      "--axis-types", default.lower())
    assert explicit.returncode == 0, explicit.stderr
    assert "axis types" not in explicit.stdout
