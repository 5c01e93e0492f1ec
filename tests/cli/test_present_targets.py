"""`jaxviz present FILE.py:function --export`: a file target's deck (issue 27.4).

The README's form failed for every file target with ``TypeError: TraceRequest.__init__()
missing ... 'args'``. The arguments come from the file's ``JAXVIZ`` (when it names the
function) or its annotations; the deck's slides show the shapes JAX traced with them.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.helpers.rasters import pdf_pages, pdftotext

# Not in the fast tier: runs jaxviz present in subprocesses.
pytestmark = pytest.mark.slow

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


def test_a_psum_examples_deck_has_no_empty_timing_slide(tmp_path):
    """normalize cannot run under plain jit (psum has no axis to bind): its timing slides
    measure the variants that can, instead of three empty slides."""
    out = tmp_path / "normalize.pdf"
    proc = subprocess.run(
        [sys.executable, "-m", "jaxviz", "present", "example:normalize", "--export", str(out)],
        capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr
    pages, _size = pdf_pages(out)
    texts = [pdftotext(out, page) for page in range(1, pages + 1)]
    assert not any("no calls measured" in t or "Error" in t for t in texts)
    assert any("pmap calls" in t for t in texts)  # a timeline of chained pmap calls


def test_a_deck_leaves_out_what_fails_and_says_so_and_fails_only_when_nothing_is_left(
        tmp_path):
    path = tmp_path / "broken.py"
    path.write_text("def f(x: 'f32[4]'):\n    raise ValueError('boom')\n")
    proc = subprocess.run(
        [sys.executable, "-m", "jaxviz", "present", f"{path}:f", "--export",
         str(tmp_path / "deck.pdf"), "--no-timing"], capture_output=True, text=True,
        timeout=600)
    assert proc.returncode == 1
    assert "note: left out slide" in proc.stderr and "boom" in proc.stderr
    assert "nothing to present" in proc.stderr
    assert not (tmp_path / "deck.pdf").exists()


def _gallery() -> list[str]:
    from jaxviz.model import list_examples

    return [ex.name for ex in list_examples()]


@pytest.mark.parametrize("name", _gallery())
def test_every_gallery_examples_deck_is_whole(tmp_path, name):
    """`jaxviz present example:NAME` of every gallery example: no step left out, and no
    slide that is an error or empty (issue 27, "Done when")."""
    out = tmp_path / f"{name}.pdf"
    proc = subprocess.run(
        [sys.executable, "-m", "jaxviz", "present", f"example:{name}", "--export", str(out),
         "--no-timing"], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "left out" not in proc.stderr, proc.stderr
    pages, _size = pdf_pages(out)
    assert pages >= 3
    for page in range(1, pages + 1):
        text = pdftotext(out, page)
        assert text.strip(), f"slide {page} is empty"
        for sign in ("Error", "error:", "failed", "Traceback", "not traced", "no calls measured"):
            assert sign not in text, (page, sign, text[:300])
