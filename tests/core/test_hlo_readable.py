"""The HLO a reader sees: the program, the user's source lines kept, no frames of the
code that lowered it (issue 16: HLO mode began with ~50 lines of jaxviz's own frames)."""

from __future__ import annotations

import re
import runpy

import jax.numpy as jnp

from jaxviz.core.hlo_program import read_module, readable

USER = '''import jax.numpy as jnp


def f(x):
    y = jnp.sin(x)
    return y * 2
'''
#: Stands for the engine: it lowers the user's function from another file.
LOWERING = '''import jax


def lower(f, x):
    return jax.jit(f).lower(x).compile().as_text()
'''


def test_readable_hlo_keeps_the_users_lines_and_drops_the_lowering_stack(tmp_path):
    user, lowering = tmp_path / "lecture.py", tmp_path / "engine_internals.py"
    user.write_text(USER)
    lowering.write_text(LOWERING)
    f = runpy.run_path(str(user))["f"]
    raw = runpy.run_path(str(lowering))["lower"](f, jnp.ones(3))
    assert str(lowering) in raw and "StackFrames" in raw  # what jaxlib prints first
    text = readable(raw, str(user))
    assert str(lowering) not in text and "engine_internals" not in text
    assert not any(t in text.splitlines() for t in ("FileNames", "StackFrames"))
    assert str(tmp_path) not in text
    # the sine is line 5 of the user's file, the multiply line 6 (read off the source here)
    lines = {n: line for n, line in enumerate(USER.splitlines(), 1)}
    sin_line = next(n for n, line in lines.items() if "jnp.sin" in line)
    mul_line = next(n for n, line in lines.items() if "y * 2" in line)
    sines = [ln for ln in text.splitlines() if re.search(r"= f32\[3\]\{0\} sine\(", ln)]
    assert sines and all(f'source_file="lecture.py" source_line={sin_line}' in s for s in sines)
    assert f"source_line={mul_line}" in text
    # the same program: every instruction is still there, and reading it again changes nothing
    assert [i.name for c in read_module(raw).computations.values() for i in c.instructions] == \
        [i.name for c in read_module(text).computations.values() for i in c.instructions]
    assert readable(text, str(user)) == text
