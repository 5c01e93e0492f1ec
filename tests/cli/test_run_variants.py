"""`jaxviz run` and `jaxviz jaxpr` on what issue 12 found, as a user runs them (subprocess)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from tests.helpers.cli import jaxviz

# Not in the fast tier: the jaxviz command in subprocesses, each with an engine.
pytestmark = pytest.mark.slow

ISSUE_ARGS = ("(jnp.ones(4), jnp.float32(0.)), "
              "jnp.arange(8*32*4, dtype=jnp.float32).reshape(8,32,4)/1000., jnp.ones((8,32))")


def result_lines(stdout: str) -> list[str]:
    """What `jaxviz run` printed as the result: after the `>>>` line, before the notes."""
    lines = stdout.splitlines()
    assert lines[0].startswith(">>> ")
    return [line for line in lines[1:] if not line.startswith("# ")]


def test_data_parallel_pmap_and_shard_map_print_the_same_parameters():
    runs = {v: jaxviz("run", "example:data_parallel", "--variant", v, "--batched-args",
                      ISSUE_ARGS) for v in ("pmap", "shard_map")}
    for out in runs.values():
        assert out.returncode == 0, out.stderr
    assert result_lines(runs["pmap"].stdout) == result_lines(runs["shard_map"].stdout)
    assert "-0.2092" in runs["shard_map"].stdout
    assert "# note: shard_map with check_vma=False" in runs["shard_map"].stdout
    # with check_vma on, the step is the sum, and jaxviz run says why
    on = jaxviz("run", "example:data_parallel", "--variant", "shard_map", "--batched-args",
                ISSUE_ARGS, "--check-vma")
    assert on.returncode == 0, on.stderr
    assert "-1.6736" in on.stdout
    [differs] = [line for line in on.stdout.splitlines() if line.startswith("# differs: ")]
    assert "jax.grad" in differs and "pmean" in differs


def test_check_vma_shows_in_the_jaxpr():
    on = jaxviz("jaxpr", "example:data_parallel", "--variant", "shard_map", "--check-vma")
    off = jaxviz("jaxpr", "example:data_parallel", "--variant", "shard_map", "--no-check-vma")
    assert on.returncode == 0 and off.returncode == 0, on.stderr + off.stderr
    assert "check_vma=True" in on.stdout and on.stdout.count("psum_invariant[") == 4
    assert "check_vma=False" in off.stdout and "psum_invariant" not in off.stdout
    assert off.stdout.count(" psum[") == 2


def test_run_code_prints_a_program_that_prints_the_same(tmp_path):
    args = ["example:normalize", "--variant", "pmap", "--batched-args", "jnp.arange(16.)"]
    code = jaxviz("run", *args, "--code")
    assert code.returncode == 0, code.stderr
    path = tmp_path / "normalize_pmap.py"
    path.write_text(code.stdout)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JAX_", "XLA_"))}
    fresh = subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                           env=env, timeout=240)
    assert fresh.returncode == 0, fresh.stderr
    ran = jaxviz("run", *args)
    assert fresh.stdout.splitlines() == result_lines(ran.stdout)
    # pmap of vmap, 2 examples per device: the run says the psum sums 8 values, not 16
    assert re.search(r"# differs: pmap\(vmap\(normalize\)\) with 2 examples per device: psum "
                     r"over 'p' \(line \d+\) sums 8 values per position, not 16", ran.stdout)


def test_batched_args_that_would_be_ignored_are_refused():
    out = jaxviz("run", "example:tensor_parallel", "--variant", "sharded", "--batched-args",
                 "f32[8,16,64], f32[64,32]")
    assert out.returncode == 2 and out.stdout == ""
    assert "batched arguments would be ignored" in out.stderr
