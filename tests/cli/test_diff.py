"""`jaxviz diff`, run as a user runs it: `python -m jaxviz diff ...` in a subprocess."""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys

import pytest

from jaxviz.cli.diff_text import wants_color
from jaxviz.views import palette

# Not in the fast tier: the jaxviz command in subprocesses, each with an engine.
pytestmark = pytest.mark.slow

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def jaxviz(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "jaxviz", *args], capture_output=True,
                          text=True, timeout=240, env={**os.environ, **(env or {})})


def test_columns_show_every_pair_and_what_it_gained():
    out = jaxviz("diff", "example:convolve", "--variants", "plain,vmap", "--width", "160")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "example:convolve (convolve): plain -> vmap"
    assert lines[1] == "10 equations gained the batch axis, 0 added, 0 removed"
    assert not ANSI.search(out.stdout)  # not a terminal: no colour
    rows = [ln for ln in lines if ln.startswith("~ ")]
    assert len(rows) == 10 and all(" | " in ln for ln in rows)
    slice_row = next(ln for ln in rows if "= slice[" in ln)
    left, right = slice_row[7:].split(" | ")
    assert re.match(r"\w+:i32\[3\] = slice\[", left.strip())
    assert re.match(r"\w+:i32\[8,3\] = slice\[", right.strip())
    assert "# i32[3] -> i32[8,3]: gained the batch axis 0 (8)" in out.stdout
    assert "# dot_general gained batch dimensions (lhs 0, rhs 0)" in out.stdout
    assert max(len(ln) for ln in lines) <= 160


def test_json_rows_are_the_traced_equations():
    out = jaxviz("diff", "example:convolve", "--variants", "plain,pmap", "--format", "json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    diff = data["record"]
    assert diff["__type__"] == "JaxprDiff" and (diff["left"], diff["right"]) == ("plain", "pmap")
    kinds = [(r["kind"], (r["left"] or r["right"])["primitive"]) for r in diff["rows"]]
    added = [p for k, p in kinds if k == "only_right"]
    assert added[:4] == ["jit", "shard_map", "squeeze", "squeeze"]
    assert {k for k, p in kinds if k != "only_right"} == {"same"}
    # each right side's text is what `jaxviz jaxpr` prints (JAX's text) at those lines
    text = jaxviz("jaxpr", "example:convolve", "--variant", "pmap").stdout.split("\n")
    for row in diff["rows"]:
        side = row["right"]
        assert side["text"] == [text[n] for n in side["text_lines"]]
        assert f"= {side['primitive']}" in " ".join(side["text"])


def test_unified_when_narrow_with_minus_and_plus_lines():
    out = jaxviz("diff", "example:normalize", "--variants", "vmap,shard_map", "--width", "72")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[1].startswith("1 equation shrank to the per-device size")
    assert any(re.match(r"-\s+\d+ - \w+:f32\[\] = psum\[", ln) for ln in lines)
    assert any(re.match(r"\+\s+\d+ \+ +\w+:f32\[1\] = psum_invariant\[", ln) for ln in lines)
    div = [n for n, ln in enumerate(lines) if "= div " in ln]
    assert len(div) == 2 and lines[div[0]].startswith("~") and " - " in lines[div[0]]
    assert " + " in lines[div[1]]
    assert "# f32[8] -> f32[1] per device: axis 0: 8 -> 1" in out.stdout
    assert max(len(ln) for ln in lines) <= 72


def test_colour_on_a_terminal_marks_the_changed_tokens():
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "jaxviz", "diff", "example:convolve",
                             "--variants", "plain,vmap", "--width", "160"],
                            stdout=slave, stderr=subprocess.PIPE,
                            env={k: v for k, v in os.environ.items() if k != "NO_COLOR"})
    os.close(slave)
    chunks = []
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    assert proc.wait(timeout=240) == 0, proc.stderr.read()
    os.close(master)
    shown = b"".join(chunks).decode().replace("\r\n", "\n")
    # the right side of the first slice: its gained "8," on the window's colour for the
    # batch axis (the compare layout's code), in 24-bit ANSI
    r, g, b = palette.rgb(palette.DIFF_COLOURS["batch"])
    ink = ";".join(str(c) for c in palette.rgb(palette.text_on(palette.DIFF_COLOURS["batch"])))
    assert f"\x1b[1;38;2;{ink};48;2;{r};{g};{b}m8,\x1b[0m" in shown
    plain = jaxviz("diff", "example:convolve", "--variants", "plain,vmap", "--width", "160")
    assert ANSI.sub("", shown).strip() == plain.stdout.strip()


def test_colour_choice():
    assert wants_color("auto", True, {}) and not wants_color("auto", False, {})
    assert not wants_color("auto", True, {"NO_COLOR": "1"})
    assert wants_color("always", False, {"NO_COLOR": "1"})
    assert not wants_color("never", True, {})


def test_works_on_a_user_file(tmp_path):
    path = tmp_path / "model.py"
    path.write_text("import jax.numpy as jnp\n\n\ndef layer(w, x):\n"
                    "    h = jnp.dot(w, x)\n    return jnp.tanh(h)\n")
    out = jaxviz("diff", f"{path}:layer", "--args", "f32[4,3], f32[3]", "--in-axes", "None, 0",
                 "--batch", "5", "--variants", "plain,vmap", "--width", "150")
    assert out.returncode == 0, out.stderr
    # vmap batches the matrix-vector product along axis 1, then moves the batch to the front
    assert out.stdout.splitlines()[1] == \
        "2 equations gained the batch axis, 1 added (transpose), 0 removed"
    assert re.search(r"~ +5 \w+:f32\[4\] = dot_general\[ +\| \w+:f32\[4,5\] = dot_general",
                     out.stdout)
    assert re.search(r"~ +6 \w+:f32\[4\] = tanh \w+ +\| \w+:f32\[4,5\] = tanh", out.stdout)
    assert "# f32[4] -> f32[4,5]: gained the batch axis 1 (5)" in out.stdout
    assert re.search(r"\+ +\| \w+:f32\[5,4\] = transpose\[permutation=\(1, 0\)\]", out.stdout)


@pytest.mark.parametrize("args, words", [
    (["--variants", "plain,vmapp"], "unknown variant 'vmapp'"),
    (["--variants", "vmap"], "--variants takes two variants to compare"),
    (["--variants", "plain,vmap,pmap"], "--variants takes two variants to compare"),
    (["--variants", "vmap,vmap"], "compare two different variants"),
    (["--width", "10"], "argument --width: the width must be a whole number from 40 to 1000"),
])
def test_bad_variants_are_one_clear_message(args, words):
    out = jaxviz("diff", "example:convolve", *args)
    assert out.returncode == 2
    assert out.stderr.startswith("jaxviz: error: ") and words in out.stderr
    assert "Traceback" not in out.stderr and not out.stdout


def test_a_variant_that_does_not_trace_is_named():
    out = jaxviz("diff", "example:normalize", "--variants", "plain,vmap")
    assert out.returncode == 2 and not out.stdout
    assert out.stderr.startswith("jaxviz: error: cannot compare plain with vmap: the plain "
                                 "variant did not trace (this example shows: vmap, pmap, "
                                 "shard_map)")
    assert "axis 'p'" in out.stderr and "Traceback" not in out.stderr


def test_default_variants_are_the_examples_own():
    out = jaxviz("diff", "example:normalize", "--format", "json")  # declares vmap, pmap, ...
    assert out.returncode == 0, out.stderr
    diff = json.loads(out.stdout)["record"]
    assert (diff["left"], diff["right"]) == ("vmap", "pmap")


def test_an_unknown_example_is_named():
    out = jaxviz("diff", "example:nope")
    assert out.returncode == 2 and "no example named 'nope'" in out.stderr
