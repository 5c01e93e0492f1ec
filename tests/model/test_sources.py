"""Reading targets without running them: bad bytes, gallery names, function names."""

from __future__ import annotations

import pytest

from jaxviz.model.errors import UserError
from jaxviz.model.gallery import bound_names, examples_dir
from jaxviz.model.sources import read_source, resolve_target


def test_a_file_that_is_not_utf8_names_the_byte_its_offset_line_and_column(tmp_path):
    data = b"x = 1\ny = 'caf" + b"\xe9'\n"
    path = tmp_path / "latin1.py"
    path.write_bytes(data)
    with pytest.raises(UserError) as caught:
        read_source(path, "latin1.py")
    offset = data.index(b"\xe9")
    # What Python's own decoder says, phrased for people: the same byte and offset.
    with pytest.raises(UnicodeDecodeError) as python_says:
        data.decode("utf-8")
    assert python_says.value.start == offset
    assert caught.value.info.kind == "load" and caught.value.info.file == "latin1.py"
    assert caught.value.info.message == (
        f"cannot read latin1.py: it is not UTF-8 text (byte 0xe9 at offset {offset}, line 2, "
        f"column {offset - data.index(b'y') + 1}); save it as UTF-8")


def test_a_binary_file_is_called_binary(tmp_path):
    path = tmp_path / "blob.py"
    path.write_bytes(b"\x00\x01\xff\xfe binary")
    with pytest.raises(UserError, match=r"blob.py: it is a binary file, not Python source "
                                        r"\(a NUL byte at offset 0\)"):
        read_source(path, "blob.py")
    data = b"def f(x):\n    return x\0\n"  # UTF-8, but still not source
    path.write_bytes(data)
    with pytest.raises(UserError, match=f"a NUL byte at offset {data.index(0)}"):
        read_source(path, "blob.py")


def test_a_missing_file_says_so(tmp_path):
    with pytest.raises(UserError, match=r"cannot read nope.py: No such file or directory"):
        read_source(tmp_path / "nope.py", "nope.py")


@pytest.mark.parametrize("name", ["/etc/passwd", "../../x", "../examples/convolve",
                                  "convolve.py", "", "CONVOLVE"])
def test_example_names_only_the_gallery(name):
    with pytest.raises(UserError) as caught:
        resolve_target(f"example:{name}")
    assert caught.value.info.kind == "lookup"
    assert caught.value.info.message.startswith(f"no example named {name!r}; the gallery has:")


def test_example_prefix_never_loads_a_file_outside_the_gallery(tmp_path):
    rogue = tmp_path / "rogue.py"
    rogue.write_text('"""Rogue"""\ndef f(x):\n    return x\nJAXVIZ = {"function": "f", '
                     '"topic": "t", "args": "f32[3]"}\n')
    relative = "../" * (len(examples_dir().parts) - 1) + str(rogue.with_suffix(""))[1:]
    for name in (str(rogue.with_suffix("")), relative):
        with pytest.raises(UserError, match="no example named"):
            resolve_target(f"example:{name}")


def test_bound_names_are_read_without_running_anything():
    source = ("import os, numpy as np\nfrom jax import numpy as jnp, lax\n"
              "open('/tmp/never', 'w')\n"
              "def f(x):\n    local = 1\n    return x\n"
              "g = lambda x: x\nh, (k, m) = 1, (2, 3)\nn: int = 3\n"
              "class C:\n    inner = 1\n"
              "if os.name:\n    p = jax_thing = 1\nfor q in []:\n    pass\n"
              "try:\n    import scipy as sp\nexcept ImportError:\n    sp = None\n")
    assert bound_names(source) == {"os", "np", "jnp", "lax", "f", "g", "h", "k", "m", "n", "C",
                                   "p", "jax_thing", "q", "sp"}
    assert bound_names("from jax.numpy import *\n") is None  # cannot know without running
    assert bound_names("def f(:\n") is None  # the engine reports the syntax error


def test_an_unknown_function_is_refused_by_reading_the_file(tmp_path):
    marker = tmp_path / "ran"
    path = tmp_path / "topwrite.py"
    path.write_text(f"open({str(marker)!r}, 'w').write('ran')\n"
                    "def f(x):\n    return x\n\ndef g(x):\n    return x\n")
    with pytest.raises(UserError) as caught:
        resolve_target(f"{path}:nope")
    assert caught.value.info.kind == "lookup"
    assert caught.value.info.message == f"no function 'nope' in {path}; it defines: f, g"
    assert not marker.exists()
    # Names bound in other ways go through (the engine finds out what they are).
    path.write_text("import jax\ndef g(x):\n    return x\nf = jax.jit(g)\n")
    assert resolve_target(f"{path}:f")[0].function == "f"
