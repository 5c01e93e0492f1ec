"""A file of one's own declares its settings as the examples do (``JAXVIZ = {...}``), and
the command line reads them as the window does: ``jaxviz jaxpr own.py`` traces the
function it names with its arguments; a ``JAXVIZ`` that is not a plain literal, or one
with a value of the wrong type, is named in the message rather than silently ignored."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from tests.helpers.cli import jaxviz

pytestmark = pytest.mark.slow  # each call starts an engine

OWN = """\
import jax
import jax.numpy as jnp


def helper(x):
    return jnp.sin(x)


def loss(w, x):
    return jnp.mean(helper(x @ w) ** 2)


def step(w, x):
    return w - 0.1 * jax.grad(loss)(w, x)


"""


def _jax_jaxpr(path, function: str, shapes: str) -> str:
    code = textwrap.dedent(f"""
        import jax, jax.numpy as jnp, runpy
        ns = runpy.run_path({str(path)!r})
        avals = [jax.ShapeDtypeStruct(s, jnp.float32) for s in {shapes}]
        print(jax.make_jaxpr(ns[{function!r}])(*avals))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_the_function_and_arguments_a_file_declares_are_traced(tmp_path):
    path = tmp_path / "own.py"
    path.write_text(OWN + 'JAXVIZ = {"function": "step", "args": "f32[3,2], f32[4,3]"}\n')
    out = jaxviz("jaxpr", str(path))
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == _jax_jaxpr(path, "step", "[(3, 2), (4, 3)]").strip()


def test_another_function_than_the_declared_one_takes_no_declared_arguments(tmp_path):
    path = tmp_path / "own.py"
    path.write_text(OWN + 'JAXVIZ = {"function": "step", "args": "f32[3,2], f32[4,3]"}\n')
    out = jaxviz("jaxpr", f"{path}:helper")
    assert out.returncode == 2
    assert "say what arguments helper takes" in out.stderr
    out = jaxviz("jaxpr", f"{path}:helper", "--args", "f32[5]")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == _jax_jaxpr(path, "helper", "[(5,)]").strip()


def test_a_jaxviz_that_is_not_a_literal_is_named_not_ignored(tmp_path):
    path = tmp_path / "own.py"
    path.write_text(OWN + 'N = 3\n'
                    'JAXVIZ = {"function": "step", "args": f"f32[{N},2], f32[4,{N}]"}\n')
    out = jaxviz("jaxpr", str(path))
    assert out.returncode == 2
    line = len(OWN.splitlines()) + 2
    assert f"JAXVIZ on line {line} is not used" in out.stderr
    assert "Traceback" not in out.stderr
    out = jaxviz("jaxpr", f"{path}:step")
    assert out.returncode == 2
    assert "say what arguments step takes" in out.stderr
    assert f"JAXVIZ on line {line} is not used" in out.stderr


@pytest.mark.parametrize("entry, words", [
    ('"batch": "eight"', "JAXVIZ 'batch' is 'eight': it takes a whole number from 1"),
    ('"batch": True', "JAXVIZ 'batch' is True"),
    ('"args": 3', "JAXVIZ 'args' is 3: it takes a string, as --args does"),
    ('"function": "nowhere"', "nowhere"),
])
def test_a_declared_value_of_the_wrong_type_says_which_and_where(tmp_path, entry, words):
    path = tmp_path / "own.py"
    path.write_text(OWN + 'JAXVIZ = {"function": "step", "args": "f32[3,2], f32[4,3]", '
                    + entry + "}\n")
    out = jaxviz("jaxpr", str(path), "--variant", "vmap")
    assert out.returncode in (1, 2), out.stdout
    assert words in out.stderr, out.stderr
    assert "own.py" in out.stderr
    assert "Traceback" not in out.stderr


@pytest.mark.parametrize("entry, flags, words", [
    ('"static": ["q"]', [], "own.py: JAXVIZ 'static': give static arguments as name=value"),
    ('"mesh": "i=0"', [], "own.py: JAXVIZ 'mesh': "),
    # given on the command line, the flag is named (the file's value is not used)
    ('"static": ["q"]', ["--static", "q"], "jaxviz: error: --static: give static arguments"),
])
def test_a_declared_setting_that_does_not_parse_is_named_as_the_file_gives_it(
        tmp_path, entry, flags, words):
    path = tmp_path / "own.py"
    path.write_text(OWN + 'JAXVIZ = {"function": "step", "args": "f32[3,2], f32[4,3]", '
                    + entry + "}\n")
    out = jaxviz("jaxpr", str(path), *flags)
    assert out.returncode == 2, out.stdout
    assert words in out.stderr, out.stderr
    assert "Traceback" not in out.stderr


def test_declared_arguments_of_the_wrong_count_are_named_as_the_file_gives_them(tmp_path):
    path = tmp_path / "own.py"
    path.write_text(OWN + 'JAXVIZ = {"function": "step", "args": "f32[3,2]"}\n')
    out = jaxviz("jaxpr", str(path))
    assert out.returncode == 2, out.stdout
    assert "own.py: JAXVIZ 'args': step takes 2 arguments (w, x)" in out.stderr, out.stderr
    given = jaxviz("jaxpr", str(path), "--args", "f32[3,2]")
    assert "--args: step takes 2 arguments" in given.stderr, given.stderr


@pytest.mark.parametrize("entry, flags, words", [
    # the engine finds these (the function has no parameter n): the message says where
    ('"static": "n=3"', [], "own.py: JAXVIZ 'static': step has no parameter 'n'"),
    ('"args": "f32[3,2], f32[4,3]"', ["--static", "n=3"],
     "jaxviz: error: --static: step has no parameter 'n'"),
])
def test_a_setting_the_engine_refuses_is_named_as_the_user_gave_it(tmp_path, entry, flags,
                                                                   words):
    path = tmp_path / "own.py"
    path.write_text(OWN + 'JAXVIZ = {"function": "step", "args": "f32[3,2], f32[4,3]", '
                    + entry + "}\n")
    out = jaxviz("jaxpr", str(path), *flags)
    assert out.returncode in (1, 2), out.stdout
    assert words in out.stderr, out.stderr
    assert "Traceback" not in out.stderr
