"""`jaxviz devices` and engine faults on the command line, run as a user runs them."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

# Not in the fast tier: real engine processes.
pytestmark = pytest.mark.slow


def jaxviz(*args: str, flags: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *flags, "-m", "jaxviz", *args], capture_output=True,
                          text=True, timeout=240)


def test_devices_json_lists_what_the_engine_reports():
    out = jaxviz("devices", "--devices", "3", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert [d["id"] for d in data["devices"]] == [0, 1, 2]
    assert {d["platform"] for d in data["devices"]} == {"cpu"}
    assert set(data["devices"][0]) == {"id", "platform", "kind", "process_index"}
    assert data["simulated"] is True and data["platform"] == "cpu"
    assert data["jax_version"] and data["jaxlib_version"] and data["pid"] > 0


def test_devices_text_and_bad_count():
    out = jaxviz("devices", "--devices", "2")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("2 simulated CPU devices  (JAX ")
    assert "   1  cpu" in out.stdout
    bad = jaxviz("devices", "--devices", "0")
    assert bad.returncode == 2 and bad.stderr.startswith("jaxviz: error: argument --devices: ")
    assert "the device count must be a whole number from 1 to 512, not '0'" in bad.stderr


def test_jaxpr_of_a_looping_function_times_out(tmp_path):
    source = tmp_path / "loop.py"
    source.write_text("def f(x):\n    while True:\n        pass\n")
    # how long it takes: benchmarks/bench_engine_limits.py
    out = jaxviz("jaxpr", f"{source}:f", "--args", "f32[3]", "--timeout", "2")
    assert out.returncode == 1
    assert "jaxviz: error: timed out after 2 s while tracing `f`" in out.stderr
    assert out.stdout == ""


def test_jaxpr_of_an_aborting_function_names_the_signal_and_line(tmp_path):
    source = tmp_path / "boom.py"
    source.write_text("import os\n\ndef f(x):\n    os.abort()\n")
    out = jaxviz("jaxpr", f"{source}:f", "--args", "f32[3]")
    assert out.returncode == 1
    assert "engine crashed: SIGABRT while tracing `f`" in out.stderr
    assert f"at {source}:4" in out.stderr


@pytest.mark.parametrize("command", [("devices",), ("jaxpr", "example:convolve")])
def test_the_command_line_process_never_imports_jax(command):
    # -X importtime lists this process's imports only (the engine is another process).
    out = jaxviz(*command, flags=("-X", "importtime"))
    assert out.returncode == 0, out.stderr
    imported = {line.rsplit("|", 1)[-1].strip() for line in out.stderr.splitlines()
                if line.startswith("import time:")}
    assert "jaxviz.engine.client" in imported
    assert not {"jax", "jaxlib", "jaxviz.core.trace", "jaxviz.worker.server"} & imported
