"""`jaxviz step`, run as a user runs it (a subprocess, with its own engine)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.helpers.cli import jaxviz

# Not in the fast tier: the jaxviz command in subprocesses, each with an engine.
pytestmark = pytest.mark.slow


def _g(values) -> str:
    return "[" + " ".join(f"{v:.6g}" for v in values) + "]"


def test_text_shows_every_device_at_the_psum():
    out = jaxviz("step", "example:normalize", "--variant", "pmap")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == ">>> jax.pmap(normalize, axis_name='p')(xs)"
    psum = next(i for i, line in enumerate(lines) if " psum  [" in line)
    assert "normalize.py:17  return x / lax.psum(x, axis_name='p')" in lines[psum]
    assert lines[psum + 1].strip() == "e:f32[] = psum[axes=('p',) axis_index_groups=None] d"
    assert lines[psum + 2].strip() == "over devices 0 1 2 3 4 5 6 7"
    for device in range(8):
        assert lines[psum + 3 + device].strip() == f"device {device}: d = {device}  ->  e = 28"
    expected = np.arange(8, dtype=np.float32) / np.float32(28)
    assert f"  out = {_g(expected)}" in lines
    assert "    device 7 = [0.25]" in lines


def test_json_is_the_stepping_record():
    out = jaxviz("step", "example:data_parallel", "--variant", "pmap", "--format", "json",
                 "--seed", "5")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    record = data["record"]
    assert record["__type__"] == "StepResult" and record["variant"] == "pmap"
    assert record["arguments"]["seed"] == 5 and "default_rng(5)" in record["arguments"]["how"]
    psums = [s for s in record["steps"] if s["primitive"] == "psum"]
    assert len(psums) == 2
    for s in psums:
        assert [lane["device"] for lane in s["lanes"]] == list(range(8))
        outs = {json.dumps(lane["outputs"]) for lane in s["lanes"]}
        ins = {json.dumps(lane["inputs"]) for lane in s["lanes"]}
        assert len(outs) == 1 and len(ins) == 8
    assert [o["name"] for o in record["outputs"]] == ["out[0]", "out[1]"]


def test_a_user_file_until_a_line(tmp_path):
    path = tmp_path / "mine.py"
    path.write_text("import jax.numpy as jnp\n\n\ndef f(x):\n    y = jnp.sin(x) * 2\n"
                    "    return y.sum()\n")
    out = jaxviz("step", f"{path}:f", "--args", "jnp.arange(3.)", "--until", "5")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[-1] == "stopped after the first equation of line 5"
    assert lines[-5] == "#0 sin  [0]  mine.py:5  y = jnp.sin(x) * 2"
    assert lines[-4].strip() == "b:f32[3] = sin a"
    sines = _g(np.sin(np.arange(3.0, dtype=np.float32)))
    assert lines[-3].strip() == f"host: a = [0 1 2]  ->  b = {sines}"
    assert "result:" not in lines


def test_bad_input_exits_2_with_one_message(tmp_path):
    path = tmp_path / "mine.py"
    path.write_text("def f(x):\n    return x\n")
    out = jaxviz("step", f"{path}:f", "--args", "f32[3")
    assert out.returncode == 2 and out.stdout == ""
    # One message naming the option (as every command says it, before any engine starts),
    # then the spec with a caret under the unclosed bracket.
    assert out.stderr.splitlines() == ["jaxviz: error: --args: '[' is never closed",
                                       "  f32[3", "     ^"]
    out = jaxviz("step", f"{path}:f", "--args", "f32[3]", "--until", "0")
    assert out.returncode == 2
    assert "argument --until: the line number must be a whole number from 1" in out.stderr


def test_too_large_exits_2_and_offers_summary_mode():
    out = jaxviz("step", "example:mlp_predict", "--variant", "pmap", "--record-limit", "0.05")
    assert out.returncode == 2 and out.stdout == ""
    assert len(out.stderr.strip().splitlines()) == 1
    assert "over the limit of 0.05 MB" in out.stderr and "--summary" in out.stderr


def test_an_error_in_the_code_exits_1_with_its_line(tmp_path):
    path = tmp_path / "mine.py"
    path.write_text("import jax.numpy as jnp\n\n\ndef f(x):\n    return x @ jnp.ones(4)\n")
    out = jaxviz("step", f"{path}:f", "--args", "f32[3]")
    assert out.returncode == 1 and out.stdout == ""
    assert out.stderr.startswith("jaxviz: error: [plain] TypeError: dot_general requires")
    assert f"  at {path}:5" in out.stderr and "    return x @ jnp.ones(4)" in out.stderr
    assert "Traceback" not in out.stderr


def test_run_and_step_make_the_same_random_arguments_and_say_so(tmp_path):
    path = tmp_path / "twice.py"
    path.write_text("def f(x, n):\n    return x * 2 + n\n")
    spec = ["--args", "f32[4], i32[]", "--variant", "plain"]
    run = jaxviz("run", f"{path}:f", *spec)
    step = jaxviz("step", f"{path}:f", *spec, "--format", "json")
    assert run.returncode == 0 and step.returncode == 0, run.stderr + step.stderr
    made = json.loads(step.stdout)["record"]["arguments"]
    x, n = (np.asarray(v["value"]["exact"]) for v in made["values"])
    # What the stated recipe gives, computed here: default_rng(0), leaf by leaf.
    rng = np.random.default_rng(0)
    expected = np.round(rng.standard_normal(4), 2).astype(np.float32)
    assert (x.astype(np.float32) == expected).all()
    assert n == rng.integers(-5, 6)
    printed = run.stdout.split("Array(", 1)[1].split(", dtype")[0]
    assert np.allclose(np.asarray(eval(printed)), x * 2 + n)
    assert made["how"] in run.stdout  # both say which values, in the same words
    assert "numpy.random.default_rng(0)" in made["how"]
