"""Careless and hostile input, round two (issue 30): each case the command and what a user sees.

Lecture files refused up front with ``talk.toml:LINE: what is wrong``; files
that are not regular files (a link to ``/dev/zero``, a FIFO) or too large,
for every subcommand; a raising function under ``diff``; specs JAX refuses;
``--batch`` on an example with batched arguments; an output named only by an
extension; user code that closes the engine's channel or starts detached
children; a killed multi-host worker; the engine's memory over many requests;
and what a lecture runs, shown before it runs. Each command runs as a user
runs it (``python -m jaxviz`` in a subprocess, from a folder of small files).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from tests.cli.test_hostile_input import GOOD, jaxviz, one_message

# Not in the fast tier: runs the jaxviz command in subprocesses.
pytestmark = pytest.mark.slow


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "good.py").write_text(GOOD)
    (tmp_path / "raises.py").write_text("def f(x):\n    raise ValueError('no good')\n")
    return tmp_path


# --------------------------------------------------------------------------- #
# Lecture files: every step checked before anything runs
# --------------------------------------------------------------------------- #

HEAD = 'title = "t"\n\n[[step]]\nview = "jaxpr"\n'


@pytest.mark.parametrize("body, line, words", [
    ('example = "nope"\n', 5, "no example named 'nope'; the gallery has: "),
    ('example = "../x"\n', 5, "no example named '../x'"),
    ('example = "/etc/passwd"\n', 5, "no example named '/etc/passwd'"),
    ('example = "convolve:nope"\n', 5, "no function 'nope' in example:convolve"),
    ('target = "good.py:nope"\n[step.options]\nargs = "f32[3]"\n', 5,
     "no function 'nope' in"),
    ('target = "two.py"\n', 5, "target is path/to/file.py:function"),
    ('target = "good.py:f"\n', 3, "say what arguments the function takes"),
    ('example = "normalize"\n[step.options]\nbatch = -1\n', 7,
     "batch is a whole number from 1 to 65536, not -1"),
    ('example = "normalize"\n[step.options]\nbatch = "nan"\n', 7,
     "batch is a whole number from 1 to 65536, not 'nan'"),
    ('example = "normalize"\n[step.options]\nbatch = inf\n', 7,
     "batch is a whole number from 1 to 65536, not inf"),
    ('example = "normalize"\n[step.options]\nmesh = "i=0"\n', 7,
     "mesh = 'i=0': mesh axis 'i' must have size >= 1"),
    ('example = "normalize"\n[step.options]\nmesh = "p=4"\nspecs = "P(\'q\')"\n', 8,
     "specs = \"P('q')\": 'q' is not an axis of the mesh (p)"),
    ('example = "normalize"\n[step.options]\nmesh = "p=4"\nspecs = "P(\'p\', \'p\')"\n', 8,
     "names mesh axis 'p' twice"),
    ('example = "normalize"\n[step.options]\ncheck_vma = "yes"\n', 7,
     "check_vma is true or false, not 'yes'"),
    ('example = "normalize"\n[step.options]\nin_axes = 0\n', 7, "in_axes is a string"),
])
def test_a_wrong_lecture_step_is_refused_before_anything_runs(folder, body, line, words):
    (folder / "two.py").write_text("def f(x):\n    return x\n\ndef g(x):\n    return x\n")
    (folder / "talk.toml").write_text(HEAD + body)
    out = jaxviz("present", "talk.toml", "--export", "deck.pdf", cwd=folder, timeout=120)
    message = one_message(out)
    assert message.startswith(f"jaxviz: error: talk.toml:{line}: "), message
    assert words in message, message
    assert not (folder / "deck.pdf").exists()


def test_a_recording_nested_200000_deep_is_refused_by_line_not_a_recursion_error(folder):
    (folder / "deep.json").write_text("[" * 200_000 + "]" * 200_000)
    (folder / "talk.toml").write_text('title = "t"\n\n[[step]]\nview = "timing"\n'
                                      'example = "normalize"\nplot = "timeline"\n'
                                      'recording = "deep.json"\n')
    out = jaxviz("present", "talk.toml", "--export", "deck.pdf", cwd=folder, timeout=120)
    message = one_message(out)
    assert message.startswith("jaxviz: error: talk.toml:7: the recording ")
    assert "nested deeper than 64 levels" in message and "RecursionError" not in message


def test_a_lecture_nested_deeply_or_that_is_a_fifo_is_refused(folder):
    (folder / "deep.toml").write_text("title = " + "[" * 5000 + "]" * 5000 + "\n")
    assert "deep.toml: it is nested too deeply" in one_message(
        jaxviz("present", "deep.toml", cwd=folder, timeout=60))
    os.mkfifo(folder / "fifo.toml")
    message = one_message(jaxviz("present", "fifo.toml", cwd=folder, timeout=60))
    assert "cannot read fifo.toml: it is a FIFO (named pipe), not a regular file" in message


# --------------------------------------------------------------------------- #
# Files that are not regular files, or too large: every subcommand
# --------------------------------------------------------------------------- #

COMMANDS = {
    "jaxpr": ["--args", "f32[3]"], "step": ["--args", "f32[3]"], "layout": ["--args", "f32[3]"],
    "run": ["--args", "f32[3]"], "diff": ["--args", "f32[3]"], "multihost": [],
    "present": ["--export", "deck.pdf"], "animate": ["--args", "f32[8]", "--out", "x.gif"],
    "time": ["--args", "f32[3]", "--out", "out", "--no-plots"],
}


@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_target_that_links_to_dev_zero_or_is_a_fifo_is_refused(folder, command):
    """(zero.py grew to 22 GB until the kernel killed it; a FIFO blocked forever.)"""
    (folder / "zero.py").symlink_to("/dev/zero")
    os.mkfifo(folder / "fifo.py")
    for name, kind in (("zero.py", "a character device"), ("fifo.py", "a FIFO (named pipe)")):
        start = time.monotonic()
        out = jaxviz(command, f"{name}:f", *COMMANDS[command], cwd=folder, timeout=60)
        assert f"cannot read {name}: it is {kind}, not a regular file" in one_message(out)
        assert time.monotonic() - start < 30


def test_a_source_larger_than_the_limit_is_refused_with_its_size(folder):
    with open(folder / "huge.py", "wb") as f:
        f.truncate(9 * 2**20)
    message = one_message(jaxviz("jaxpr", "huge.py:f", "--args", "f32[3]", cwd=folder))
    assert "cannot read huge.py: it is 9 MB; jaxviz reads a Python source of at most 8 MB" \
        in message


# --------------------------------------------------------------------------- #
# Exit codes and spec errors
# --------------------------------------------------------------------------- #


def test_diff_of_a_function_that_raises_exits_1_as_jaxpr_does(folder):
    out = jaxviz("diff", "raises.py:f", "--args", "f32[3]", "--variants", "plain,vmap",
                 cwd=folder)
    assert out.returncode == 1 and "Traceback" not in out.stderr, out.stderr
    assert "ValueError: no good" in out.stderr and "raises.py:2" in out.stderr
    assert jaxviz("jaxpr", "raises.py:f", "--args", "f32[3]", cwd=folder).returncode == 1


@pytest.mark.parametrize("options, words", [
    (["--variant", "sharded", "--mesh", "data=4", "--specs", "P(None, 'data'), P()"],
     "argument 1 (x) has rank 1 (shape (8,)), but P(None, 'data') names 2 dimensions: give "
     "it a partition spec of at most 1 entry (--specs)"),
    (["--variant", "sharded", "--mesh", "data=4", "--specs", "P('data', 'data'), P()"],
     "--specs: P('data', 'data') names mesh axis 'data' twice"),
    (["--variant", "shard_map", "--mesh", "data=4", "--specs", "P('data')",
      "--out-specs", "P('data'), P(), P()"],
     "--out-specs does not match what the function returns: give one P(...) per output"),
])
def test_specs_jax_refuses_exit_2_with_what_to_change(folder, options, words):
    """(They were JAX's DuplicateSpecError, a NamedSharding repr, a pytree structure error.)"""
    args = "f32[8]" if "shard_map" in options else "f32[8], f32[8]"
    function = "f" if "shard_map" in options else "g"
    out = jaxviz("jaxpr", f"good.py:{function}", "--args", args, *options, cwd=folder)
    message = one_message(out)
    assert words in message, message
    for raw in ("DuplicateSpecError", "NamedSharding(", "pytree structure error"):
        assert raw not in message


def test_step_honours_batch_on_an_example_with_batched_args():
    """(--batch was dropped for the example's batched_args, then asked for.)"""
    out = jaxviz("step", "example:normalize", "--variant", "shard_map", "--devices", "512",
                 "--batch", "512")
    assert out.returncode == 0, out.stderr
    assert "device 511 = " in out.stdout and "--batch" not in out.stderr


def test_an_output_named_only_by_an_extension_is_refused_by_name(folder):
    out = jaxviz("animate", "good.py:f", "--args", "f32[8]", "--out", ".mp4", cwd=folder,
                 timeout=60)
    assert "argument --out: '.mp4' is only an extension: name the file, e.g. 'out.mp4'" \
        in one_message(out)
    assert not (folder / ".mp4").exists()


# --------------------------------------------------------------------------- #
# What the user's code does to the engine
# --------------------------------------------------------------------------- #


def test_code_that_closes_the_engines_descriptors_gets_one_line_not_its_traceback(folder):
    (folder / "closes.py").write_text(
        "import os\n\ndef f(x):\n    for fd in range(3, 64):\n        try:\n"
        "            os.close(fd)\n        except OSError:\n            pass\n    return x\n")
    out = jaxviz("jaxpr", "closes.py:f", "--args", "f32[3]", cwd=folder)
    assert out.returncode == 1 and "Traceback" not in out.stderr, out.stderr
    assert "the engine lost its channel to jaxviz (Bad file descriptor): the code closed " \
           "file descriptors it did not open" in out.stderr
    assert "server.py" not in out.stderr and "protocol.py" not in out.stderr


def _dead(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rpartition(b")")[2].split()[0] == b"Z"
    except OSError:
        return True


@pytest.mark.parametrize("ending", ["returns", "aborts"])
def test_children_started_with_setsid_or_double_forked_end_with_the_engine(folder, ending):
    """(They outlived the run under PID 1; the README says they end with the engine.)"""
    pids = folder / "pids"
    end = "    return x\n" if ending == "returns" else "    os.abort()\n"
    (folder / "children.py").write_text(
        "import os, subprocess, sys\n\ndef f(x):\n"
        "    p = subprocess.Popen(['sleep', '300'], start_new_session=True)\n"
        f"    out = open({str(pids)!r}, 'a')\n    out.write(f'{{p.pid}}\\n')\n    out.flush()\n"
        "    r, w = os.pipe()\n"
        "    if os.fork() == 0:\n        if os.fork() == 0:\n            os.setsid()\n"
        "            os.write(w, str(os.getpid()).encode())\n"
        "            os.execvp('sleep', ['sleep', '301'])\n        os._exit(0)\n"
        "    os.wait()\n    out.write(os.read(r, 20).decode() + '\\n')\n    out.close()\n"
        + end)
    out = jaxviz("jaxpr", "children.py:f", "--args", "f32[3]", cwd=folder)
    assert out.returncode == (0 if ending == "returns" else 1), out.stderr
    started = [int(p) for p in pids.read_text().split()]
    assert len(started) == 2
    deadline = time.monotonic() + 10
    while not all(_dead(p) for p in started) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert all(_dead(p) for p in started), started


@pytest.mark.slow
def test_children_of_multihost_workers_end_with_the_run(folder):
    pids = folder / "pids"
    (folder / "children.py").write_text(
        "import os, subprocess\n\nimport jax.numpy as jnp\n\ndef f(x):\n"
        "    p = subprocess.Popen(['sleep', '300'], start_new_session=True)\n"
        f"    with open({str(pids)!r}, 'a') as out:\n        out.write(f'{{p.pid}}\\n')\n"
        "    return jnp.sin(x)\n")
    out = jaxviz("multihost", "children.py:f", cwd=folder)
    assert out.returncode == 0, out.stderr
    started = [int(p) for p in pids.read_text().split()]
    assert len(started) == 2
    time.sleep(1)
    assert all(_dead(p) for p in started), started


@pytest.mark.slow
def test_a_multihost_worker_killed_with_sigkill_is_named(folder):
    """(The error blamed "process 0 failed (SIGABRT)" with a raw stack address.)"""
    (folder / "kill2.py").write_text(
        "import os\nimport signal\n\nimport jax\nimport jax.numpy as jnp\n\n\ndef f(x):\n"
        "    if jax.process_index() == 2:\n        os.kill(os.getpid(), signal.SIGKILL)\n"
        "    return jnp.sin(x)\n")
    start = time.monotonic()
    out = jaxviz("multihost", "kill2.py:f", "--processes", "3", cwd=folder)
    message = one_message(out, code=1)
    assert message.startswith("jaxviz: error: process 2 failed first (SIGKILL) without a "
                              "report; then processes 0, 1 failed because it was gone")
    assert time.monotonic() - start < 60  # not the runtime's 100 s heartbeat


def test_the_engine_forgets_each_requests_module(folder):
    """(One module per request stayed in sys.modules: 12.7 KB per request, no plateau.)"""
    from jaxviz.engine import EngineClient
    from jaxviz.model import Target, TraceRequest

    source = ("import sys\n\ndef f(x):\n    print(sorted(m for m in sys.modules "
              "if m.startswith('jaxviz_user_')))\n    return x\n")
    request = TraceRequest(target=Target(source, str(folder / "count.py"), "f"),
                           args="f32[3]", want=["jaxpr"])
    client = EngineClient(devices=2, standby=False)
    try:
        client.start(wait=True)
        seen = [client.submit(request).result(120).stdout.strip() for _ in range(4)]
    finally:
        client.stop()
    assert all(s.count("jaxviz_user_") == 1 for s in seen), seen


# --------------------------------------------------------------------------- #
# What a lecture runs is shown before it runs
# --------------------------------------------------------------------------- #


def test_a_lecture_that_runs_its_own_code_lists_it_and_waits_for_trust(folder):
    marker = folder / "ran"
    (folder / "model.py").write_text(f"import jax.numpy as jnp\n\nopen({str(marker)!r}, 'w')"
                                     ".close()\n\n"
                                     "def f(x):\n    return x * 2\n")
    (folder / "talk.toml").write_text(
        'title = "t"\n\n[[step]]\nview = "jaxpr"\ntarget = "model.py:f"\n'
        '[step.options]\nargs = "jnp.arange(3.)"\n\n'
        '[[step]]\nview = "source"\nexample = "convolve"\n')
    message = one_message(jaxviz("present", "talk.toml", "--export", "deck.pdf", cwd=folder,
                                 timeout=60))
    assert "talk.toml runs code that is not jaxviz's" in message
    assert f"talk.toml:3: runs {(folder / 'model.py').resolve()} (its top level, then f)" \
        in message
    assert "talk.toml:3: evaluates args 'jnp.arange(3.)'" in message
    assert "convolve" not in message  # the gallery's own code is not listed
    assert "--trust" in message and not marker.exists() and not (folder / "deck.pdf").exists()
    out = jaxviz("present", "talk.toml", "--export", "deck.pdf", "--trust", cwd=folder)
    assert out.returncode == 0, out.stderr
    assert marker.exists() and (folder / "deck.pdf").exists()


def test_the_shipped_lecture_runs_only_the_gallery():
    from jaxviz.model.resources import resources_dir
    from jaxviz.views.present.lecture import load_lecture, what_runs

    assert what_runs(load_lecture(resources_dir() / "lectures" / "parallel_jax.toml")) == []
