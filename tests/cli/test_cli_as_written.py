"""`jaxviz run` / `jaxviz jaxpr` on today's JAX, as a user runs them (subprocess): a shard_map
that prints, the function as written by default, and the new flags' messages."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.helpers.cli import jaxviz

# Not in the fast tier: the jaxviz command in subprocesses, each with an engine.
pytestmark = pytest.mark.slow

CORPUS = Path(__file__).resolve().parents[1] / "corpus"


def test_run_of_a_shard_map_with_debug_print_shows_one_line_per_device():
    out = jaxviz("run", f"{CORPUS / 'shard_map_debug_print.py'}:show", "--args", "xs")
    assert out.returncode == 0, out.stderr
    # what the function printed goes to stderr (stdout is the result), one line per device
    lines = re.findall(r"^device (\d) \(i=(\d)\): block \[(.*)\]$", out.stderr, re.M)
    assert lines == [("0", "0", "0. 1."), ("1", "1", "2. 3."), ("2", "2", "4. 5."),
                     ("3", "3", "6. 7.")]
    assert out.stdout.startswith(">>> show(block)\n")
    assert "Array([ 0., 10., 20., 30., 40., 50., 60., 70.], dtype=float32)" in out.stdout
    assert "# note: show as its module defines it: show is decorated with jax.shard_map" \
        in out.stdout


def test_the_explicit_sharding_guides_program_shows_sharded_types_as_written():
    out = jaxviz("jaxpr", f"{CORPUS / 'explicit_typeof.py'}:add_arrays", "--args", "arg0, arg1")
    assert out.returncode == 0, out.stderr
    assert "{ lambda ; a:i32[4@X,1] b:i32[1,8@Y]. let" in out.stdout
    assert "c:i32[4@X,8@Y] = add a b" in out.stdout
    assert "x sharding: int32[4@X,1]" in out.stderr


def test_bad_flags_say_what_and_where():
    target = f"{CORPUS / 'explicit_flags_sharded.py'}:layer"
    for flag, value, words in [("--axis-types", "explicit,manual", "mesh axis type 'manual'"),
                               ("--out-axes", "0, 'x'", "integers or None"),
                               ("--static", "3", "name=value"),
                               ("--devices-order", "0,0", "named twice")]:
        out = jaxviz("jaxpr", target, "--args", "x, w", flag, value)
        assert out.returncode == 2, (flag, out.stderr)
        assert words in out.stderr and "^" in out.stderr, (flag, out.stderr)
        assert "Traceback" not in out.stderr
    out = jaxviz("jaxpr", f"{CORPUS / 'mesh_argument.py'}:spread", "--args", "x, mesh",
                 "--variant", "jit")
    assert out.returncode == 2
    assert "argument 2 (mesh) is a Mesh, not an array" in out.stderr
    assert "--static \"mesh=mesh\"" in out.stderr
    # a static argument by name counts among the arguments; without it, one is missing
    powers = f"{CORPUS / 'static_args.py'}:powers"
    assert jaxviz("jaxpr", powers, "--args", "x", "--static", "n=3").returncode == 0
    out = jaxviz("jaxpr", powers, "--args", "x")
    assert out.returncode == 2
    assert "--args: powers takes 2 arguments (x, n), but the arguments give 1" in out.stderr
