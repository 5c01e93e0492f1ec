"""The command line, run as a user runs it: `python -m jaxviz ...` in a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.helpers.cli import jaxviz

# Not in the fast tier: the jaxviz command in subprocesses, each with an engine.
pytestmark = pytest.mark.slow


def test_examples_lists_the_gallery():
    out = jaxviz("examples")
    assert out.returncode == 0
    assert out.stdout.splitlines()[1].startswith("convolve ")
    data = json.loads(jaxviz("examples", "--json").stdout)
    assert {"convolve", "normalize", "tensor_parallel"} <= {e["name"] for e in data}
    assert all(e["explanation"] for e in data)


def test_help_lists_the_subcommands():
    out = jaxviz("--help")
    assert out.returncode == 0 and "jaxpr" in out.stdout and "layout" in out.stdout


def test_no_arguments_opens_the_window_or_says_in_one_line_why_it_cannot():
    display = ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")
    env = {k: v for k, v in os.environ.items() if k not in display}
    out = subprocess.run([sys.executable, "-m", "jaxviz"], capture_output=True, text=True,
                         timeout=240, env=env)
    assert out.returncode == 3 and out.stdout == ""
    [line] = out.stderr.splitlines()
    assert "no display to open the window on" in line and "xvfb-run jaxviz" in line


def test_jaxpr_text_is_jax_text(tmp_path):
    out = jaxviz("jaxpr", "example:convolve", "--variant", "pmap", "--devices", "4")
    assert out.returncode == 0, out.stderr
    # pmap over 4 devices: the leading axis is the device count.
    assert out.stdout.startswith("let jaxpr = { lambda ; a:i32[1,5] b:f32[1,3]. let")
    assert "i32[4,5]" in out.stdout and "shard_map[" in out.stdout


def test_jaxpr_json_is_the_structured_result():
    out = jaxviz("jaxpr", "example:normalize", "--variant", "pmap", "--format", "json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    record = data["record"]
    assert data["schema"] >= 1 and record["function"] == "normalize"
    vr = record["variants"][0]
    assert vr["collectives"] == ["psum"]
    assert vr["stablehlo"] and vr["hlo"] and vr["cost"]["flops"] > 0
    assert {a["role"] for a in vr["arrays"]} == {"input", "output"}


def test_layout_json_has_mesh_devices_and_arrays():
    out = jaxviz("layout", "example:tensor_parallel", "--variant", "sharded", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["mesh"]["axis_names"] == ["data", "model"]
    assert [d["id"] for d in data["devices"]] == list(range(8))
    assert {"id", "platform", "process_index"} <= set(data["devices"][0])
    x = data["arrays"][0]
    assert x["name"] == "x" and x["role"] == "input" and x["shape"] == [16, 64]
    assert {"device": 0, "index": [[0, 4], [0, 64]]} in x["shards"]


def test_layout_text():
    out = jaxviz("layout", "example:convolve", "--variant", "pmap")
    assert out.returncode == 0, out.stderr
    assert "each device holds i32[1,5]" in out.stdout
    assert "device   7: [7:8, 0:5]" in out.stdout


def test_run_reproduces_the_lecture_output():
    out = jaxviz("run", "example:normalize", "--variant", "pmap")
    assert out.returncode == 0, out.stderr
    assert "0.03571429" in out.stdout and "0.25" in out.stdout
    out = jaxviz("run", "example:convolve", "--variant", "vmap", "--batch", "2")
    assert "[[11., 20., 29.],\n       [11., 20., 29.]]" in out.stdout


@pytest.mark.parametrize("args, code, words", [
    (["jaxpr", "example:nope"], 2, "no example named 'nope'"),
    (["jaxpr", "example:convolve", "--args", "f32[5], f32[3"], 2, "never closed"),
    (["jaxpr", "example:convolve", "--variant", "pmap", "--batch", "12"], 2,
     "does not split across 8 devices"),
    (["layout", "example:tensor_parallel", "--variant", "sharded", "--mesh", "a=16"], 2,
     "needs 16 devices"),
    (["jaxpr", "example:normalize", "--variant", "plain"], 2, "collective over axis 'p'"),
])
def test_bad_input_gets_a_clear_message_without_traceback(args, code, words):
    out = jaxviz(*args)
    assert out.returncode == code
    assert words in out.stderr
    assert "Traceback" not in out.stderr


def test_user_file_errors(tmp_path):
    path = tmp_path / "mine.py"
    path.write_text("import jax.numpy as jnp\n\ndef f(x):\n    return jnp.dot(x, x[:2])\n")
    out = jaxviz("jaxpr", f"{path}:f", "--args", "f32[3]")
    assert out.returncode == 1
    assert f"{path}:4" in out.stderr and "return jnp.dot(x, x[:2])" in out.stderr
    assert "Traceback" not in out.stderr
    debug = jaxviz("jaxpr", f"{path}:f", "--args", "f32[3]", "--debug")
    assert "Traceback" in debug.stderr
    out = jaxviz("jaxpr", f"{path}:g", "--args", "f32[3]")
    assert out.returncode == 2 and "it defines: f" in out.stderr
    path.write_text("def f(x):\n    return x +\n")
    out = jaxviz("jaxpr", f"{path}:f", "--args", "f32[3]")
    assert out.returncode == 2  # README: 2 for what was typed (the file does not parse)
    assert "SyntaxError" in out.stderr and ":2" in out.stderr and "return x +" in out.stderr


def test_what_the_function_printed_reaches_the_terminal_also_on_failure(tmp_path):
    path = tmp_path / "noisy.py"
    path.write_text("import jax.numpy as jnp\n\ndef f(x):\n    print('tracing f with', x.shape)\n"
                    "    return jnp.dot(x, x[:2])\n")
    out = jaxviz("jaxpr", f"{path}:f", "--args", "f32[3]")
    assert out.returncode == 1
    assert "tracing f with (3,)" in out.stderr
    assert out.stdout == ""
