"""Careless and hostile input on the command line: one clear message, the documented exit code.

Each test is a failure found by trying bad input as a user would; the
command runs as a user runs it (``python -m jaxviz`` in a subprocess, from a
folder of small files). The exit codes follow the README's rule: 2 when what
was given is at fault (an option, the target, the file before its function
ran), 1 when the function ran and failed (or the engine did).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

# Not in the fast tier: the jaxviz command in subprocesses, each with an engine.
pytestmark = pytest.mark.slow

GOOD = "import jax.numpy as jnp\n\ndef f(x):\n    return jnp.sin(x) * 2\n\n" \
       "def g(x, y):\n    return x + y\n"


def jaxviz(*args: str, cwd: Path | None = None, timeout: float = 240) -> \
        subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "jaxviz", *args], capture_output=True,
                          text=True, timeout=timeout, cwd=cwd)


def one_message(out: subprocess.CompletedProcess, code: int = 2) -> str:
    """The one error message of a failed command (no traceback, nothing on stdout)."""
    assert "Traceback" not in out.stderr + out.stdout, out.stderr
    assert out.returncode == code, out.stderr
    errors = [line for line in out.stderr.splitlines() if "error:" in line]
    assert len(errors) == 1 and out.stderr.startswith("jaxviz: error: "), out.stderr
    assert out.stdout == ""
    return out.stderr


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "good.py").write_text(GOOD)
    return tmp_path


def test_a_source_that_is_not_utf8_names_the_file_and_byte_offset(folder):
    data = b"def f(x):\n    return x * 2  # caf\xe9\n"
    (folder / "nonutf8.py").write_bytes(data)
    message = one_message(jaxviz("jaxpr", "nonutf8.py:f", "--args", "f32[3]", cwd=folder))
    assert f"nonutf8.py: it is not UTF-8 text (byte 0xe9 at offset {data.index(0xe9)}, " \
           "line 2" in message
    (folder / "binary.py").write_bytes(b"\x00\x01\xff\xfe binary")
    message = one_message(jaxviz("layout", "binary.py", "--args", "f32[3]", cwd=folder))
    assert "binary.py: it is a binary file, not Python source (a NUL byte at offset 0)" \
        in message


@pytest.mark.parametrize("command", ["jaxpr", "layout", "run", "step", "time", "animate"])
@pytest.mark.parametrize("option, value", [("--devices", "0"), ("--devices", "-1"),
                                           ("--timeout", "0"), ("--timeout", "-1"),
                                           ("--timeout", "nan"), ("--timeout", "inf")])
def test_counts_and_timeouts_out_of_range_are_refused(folder, command, option, value):
    extra = {"time": ["--out", "out"], "animate": ["--out", "x.gif"]}.get(command, [])
    out = jaxviz(command, "good.py:f", "--args", "f32[3]", option, value, *extra, cwd=folder,
                 timeout=60)
    message = one_message(out)
    assert f"argument {option}: " in message and f"not {value!r}" in message
    assert not (folder / "out").exists() and not (folder / "x.gif").exists()


def test_a_timeout_shows_the_stuck_line_and_keeps_the_stack_for_debug(folder):
    (folder / "loop.py").write_text("def f(x):\n    while True:\n        pass\n")
    out = jaxviz("jaxpr", "loop.py:f", "--args", "f32[3]", "--timeout", "2", cwd=folder)
    message = one_message(out, code=1)
    assert message.startswith("jaxviz: error: timed out after 2 s while tracing `f`")
    assert "loop.py:2" in message or "loop.py:3" in message
    assert "most recent call first" not in message and "Thread 0x" not in message
    debug = jaxviz("jaxpr", "loop.py:f", "--args", "f32[3]", "--timeout", "2", "--debug",
                   cwd=folder)
    assert debug.returncode == 1 and "(most recent call first)" in debug.stderr


def test_a_crash_shows_what_was_printed_and_the_line_not_the_dump(folder):
    (folder / "abort.py").write_text("import os\n\ndef f(x):\n    print('about to abort')\n"
                                     "    os.abort()\n")
    out = jaxviz("jaxpr", "abort.py:f", "--args", "f32[3]", cwd=folder)
    assert out.returncode == 1 and "Traceback" not in out.stderr
    printed, _, error = out.stderr.partition("jaxviz: error: ")
    assert printed == "about to abort\n"
    assert error.startswith("engine crashed: SIGABRT while tracing `f`")
    assert "abort.py:5" in error and "os.abort()" in error
    for dump in ("Fatal Python error", "Extension modules", "most recent call first"):
        assert dump not in out.stderr


@pytest.mark.parametrize("option, value, where", [
    ("--in-axes", "0, y=None", "in_axes"), ("--specs", "P('i'), y=P()", "partition specs")])
def test_keyword_items_are_refused_not_dropped(folder, option, value, where):
    out = jaxviz("jaxpr", "good.py:g", "--args", "f32[8], f32[8]", "--variant", "sharded",
                 option, value, cwd=folder, timeout=60)
    message = one_message(out)
    assert f"{option}: keyword items are not supported in {where}" in message
    assert message.rstrip().endswith("^")  # the caret under y=


def test_a_collective_over_an_axis_the_mesh_lacks_says_which(folder):
    out = jaxviz("jaxpr", "example:normalize", "--variant", "shard_map", "--axis-name", "zz")
    message = one_message(out)
    assert "[shard_map] the function uses a collective over axis 'p', but the shard_map mesh " \
           "has axes zz: name a mesh axis 'p' (--axis-name p, or --mesh p=N)" in message
    assert "normalize.py:17" in message


@pytest.mark.parametrize("options, change", [
    (["--batch", "3"], "use a batch that is a multiple of 8 (--batch 8)"),
    (["--mesh", "data=3"], "use a batch that is a multiple of 3 (--batch 9)")])
def test_shards_that_do_not_divide_say_what_to_change(folder, options, change):
    out = jaxviz("layout", "good.py:f", "--args", "f32[8]", "--variant", "sharded", *options,
                 cwd=folder)
    message = one_message(out)
    assert "IndivisibleError" not in message and change in message


def test_multihost_names_the_cause_before_any_process_starts(folder):
    (folder / "syntax.py").write_text("def f(x)\n    return x\n")
    (folder / "nonutf8.py").write_bytes(b"def f(x):\n    return x  # \xe9\n")
    cases = {
        ("example:nope",): "no example named 'nope'",
        ("missing.py:f",): "cannot read missing.py: No such file or directory",
        ("syntax.py:f",): "SyntaxError: expected ':'",
        ("nonutf8.py:f",): "it is not UTF-8 text",
        ("good.py:nope",): "no function 'nope' in good.py; it defines: f, g",
        ("good.py:f", "--axis-name", "1x"): "the axis name must be a Python identifier",
        ("good.py:f", "--devices", "100000"): "the device count must be a whole number",
        ("good.py:f", "--processes", "0"): "the number of processes must be",
    }
    for args, words in cases.items():
        out = jaxviz("multihost", *args, cwd=folder, timeout=60)
        assert words in one_message(out), (args, out.stderr)


@pytest.mark.slow
def test_multihost_shows_the_functions_own_error_and_refuses_forged_reports(folder):
    (folder / "raises.py").write_text("def f(x):\n    raise ValueError('no good')\n")
    message = one_message(jaxviz("multihost", "raises.py:f", cwd=folder), code=1)
    assert message.startswith("jaxviz: error: process 0: ValueError: no good")
    assert "raises.py:2" in message
    # A report line written straight into the channel (every descriptor it might be).
    (folder / "forges.py").write_text(
        "import os\n\ndef f(x):\n"
        "    line = b'{\"op\":\"reply\",\"id\":0,\"report\":{\"process_index\":0}}\\n'\n"
        "    for fd in range(3, 30):\n        try:\n            os.write(fd, line)\n"
        "        except OSError:\n            pass\n    return x\n")
    message = one_message(jaxviz("multihost", "forges.py:f", cwd=folder), code=1)
    assert "refused a forged message" in message and "JSONDecodeError" not in message


def test_animate_refuses_bad_scales_and_says_why_a_function_cannot_be_shown(folder):
    for scale in ("nan", "-5"):
        out = jaxviz("animate", "good.py:f", "--args", "f32[8]", "--out", "x.gif",
                     "--font-scale", scale, cwd=folder, timeout=60)
        assert "argument --font-scale: the font scale must be" in one_message(out)
    assert not (folder / "x.gif").exists()
    (folder / "none.py").write_text("def f(x):\n    return None\n")
    out = jaxviz("animate", "none.py:f", "--args", "f32[8]", "--variant", "vmap", "--out",
                 "n.gif", cwd=folder)
    message = one_message(out)
    assert "f returns no arrays (None?), so the vmap program has nothing to lay out" in message
    assert "want=" not in message and not (folder / "n.gif").exists()


@pytest.mark.parametrize("name", ["/abs/path/x", "../relative/x"])
def test_example_prefix_names_only_gallery_examples(folder, name):
    marker = folder / "ran"
    rogue = folder / "x.py"
    rogue.write_text(f'"""Rogue."""\nopen({str(marker)!r}, "w").close()\n'
                     'def f(x):\n    return x\n'
                     'JAXVIZ = {"topic": "t", "function": "f", "args": "f32[3]"}\n')
    from jaxviz.model.gallery import examples_dir

    # ../ up to the root from the gallery's folder, then down to the rogue file
    climb = "../" * (len(examples_dir().resolve().parts) - 1)
    target = (f"example:{rogue.with_suffix('')}" if name.startswith("/")
              else f"example:{climb}{str(rogue.with_suffix('')).lstrip('/')}")
    message = one_message(jaxviz("jaxpr", target, cwd=folder))
    assert "no example named" in message and "the gallery has: " in message
    assert not marker.exists()


def test_time_reports_a_failing_function_once_and_not_as_done(folder):
    (folder / "raises.py").write_text("def f(x):\n    raise ValueError('boom in f')\n")
    out = jaxviz("time", "raises.py:f", "--args", "f32[3]", "--variants", "jit",
                 "--out", "out", "--no-plots", cwd=folder)
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert out.stderr.count("ValueError: boom in f") == 1
    assert "done" not in out.stderr and "100%" not in out.stderr


def test_a_timing_timeout_names_the_function_and_its_line(folder):
    (folder / "sleeps.py").write_text("import time\n\ndef f(x):\n    time.sleep(100)\n"
                                      "    return x\n")
    out = jaxviz("time", "sleeps.py:f", "--args", "f32[3]", "--variants", "jit", "--out",
                 "out", "--no-plots", "--timeout", "3", cwd=folder)
    assert out.returncode == 1, out.stderr
    assert "timed out after 3 s while timing `f`" in out.stderr
    assert "sleeps.py:4" in out.stderr and "TimingRequest" not in out.stderr


@pytest.mark.parametrize("command", ["jaxpr", "step", "time", "multihost"])
def test_a_syntax_error_and_a_top_level_exception_exit_alike(folder, command):
    """(multihost said only "process 0 failed (exit code 1)" for both.)"""
    (folder / "syntax.py").write_text("def f(x)\n    return x\n")
    (folder / "toplevel.py").write_text("raise RuntimeError('top level boom')\n"
                                        "def f(x):\n    return x\n")
    extra = {"time": ["--args", "f32[3]", "--out", "out", "--no-plots"],
             "multihost": []}.get(command, ["--args", "f32[3]"])
    for name, words in (("syntax.py", "SyntaxError: expected ':'"),
                        ("toplevel.py", "RuntimeError: top level boom")):
        out = jaxviz(command, f"{name}:f", *extra, cwd=folder)
        assert out.returncode == 2 and words in out.stderr, out.stderr
        assert "Traceback" not in out.stderr and f"{name}:1" in out.stderr


def test_a_mesh_with_a_newline_is_refused(folder):
    out = jaxviz("layout", "good.py:f", "--args", "f32[8]", "--variant", "sharded",
                 "--mesh", "\n,Nodata=4", cwd=folder, timeout=60)
    assert "argument --mesh: '\\n,Nodata=4' holds '\\n': give the value on one line" \
        in one_message(out)


def test_an_unknown_function_is_listed_without_running_the_file(folder):
    marker = folder / "ran"
    (folder / "topwrite.py").write_text(f"open({str(marker)!r}, 'w').write('ran')\n"
                                        "def f(x):\n    return x\n")
    out = jaxviz("jaxpr", "topwrite.py:nope", "--args", "f32[3]", cwd=folder, timeout=60)
    assert "no function 'nope' in topwrite.py; it defines: f" in one_message(out)
    assert not marker.exists()


@pytest.mark.parametrize("option, value, words", [
    ("--seed", "-1", "the seed must be a whole number from 0 to 4294967295, not '-1'"),
    ("--record-limit", "nan", "the record limit must be a number of megabytes above 0"),
    ("--record-limit", "inf", "the record limit must be a number of megabytes above 0"),
    ("--record-limit", "0", "the record limit must be a number of megabytes above 0"),
    ("--value-limit", "99999999999", "the value limit must be a whole number from 1 to"),
    ("--until", "0", "the line number must be a whole number from 1 to")])
def test_step_numbers_are_checked_before_anything_runs(folder, option, value, words):
    """(They reached numpy and the recorder: ValueError, OverflowError, a limit of -1 MB.)"""
    out = jaxviz("step", "good.py:f", "--args", "f32[3]", option, value, cwd=folder, timeout=60)
    assert f"argument {option}: {words}" in one_message(out)


def test_step_until_a_line_the_file_lacks_or_that_made_no_equation(folder):
    out = jaxviz("step", "good.py:f", "--args", "f32[3]", "--until", "99", cwd=folder,
                 timeout=60)
    assert "--until 99: good.py has 7 lines" in one_message(out)
    out = jaxviz("step", "good.py:f", "--args", "f32[3]", "--until", "2", cwd=folder)
    assert out.returncode == 0, out.stderr
    assert out.stderr == "note: line 2 made no equation of f; stepped to the end\n"
    assert "\nresult:\n" in out.stdout


def test_time_creates_its_out_folder_only_for_a_request_that_can_run(folder):
    out = jaxviz("time", "good.py:f", "--args", "f32[8]", "--variants", "warp", "--out",
                 "never", cwd=folder, timeout=60)
    assert "unknown timing variant 'warp'" in one_message(out)
    assert not (folder / "never").exists()
