"""`jaxviz present FILE.py:function --export`: a file target's deck (issue 27.4).

The README's form failed for every file target with ``TypeError: TraceRequest.__init__()
missing ... 'args'``. The arguments come from the file's ``JAXVIZ`` (when it names the
function) or its annotations; the deck's slides show the shapes JAX traced with them.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.rasters import pdf_pages, pdftotext

SOURCE = '''import jax.numpy as jnp


def double(x):
    return x * 2.0


def total(x: "f32[6]"):
    return jnp.sum(jnp.sin(x))


JAXVIZ = {"function": "double", "args": "f32[4]"}
'''


@pytest.mark.parametrize("function, shape", [("double", "f32[4]"), ("total", "f32[6]")])
def test_a_file_target_exports_a_deck_with_its_declared_or_annotated_arguments(
        tmp_path, function, shape):
    path = tmp_path / "mine.py"
    path.write_text(SOURCE)
    out = tmp_path / "deck.pdf"
    proc = subprocess.run(
        [sys.executable, "-m", "jaxviz", "present", f"{path}:{function}", "--export", str(out),
         "--no-timing"], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr and "TypeError" not in proc.stderr
    pages, _size = pdf_pages(out)
    assert pages >= 3
    text = " ".join(pdftotext(out, page) for page in range(1, pages + 1))
    assert shape in text.replace(" ", "")  # the jaxpr JAX traced: its input's type
