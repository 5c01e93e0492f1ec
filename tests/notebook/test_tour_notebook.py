"""docs/notebooks/jaxviz_tour.ipynb runs top to bottom in a real Jupyter kernel whose
JAX has ONE CPU device, and its outputs carry the inline pictures.

nbclient drives an ipykernel (the test extra's). The kernel imports this checkout's
jaxviz (PYTHONPATH), paints offscreen, keeps its settings in a temporary folder, and
the window jaxviz.show opens is closed by a cell this test appends.
"""

from __future__ import annotations

import base64
import io
import os
import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from PIL import Image

# Not in the fast tier: runs the tour notebook in a real Jupyter kernel.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "docs" / "notebooks" / "jaxviz_tour.ipynb"


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    home = tmp_path_factory.mktemp("kernel")
    env = {"JAX_NUM_CPU_DEVICES": "1", "QT_QPA_PLATFORM": "offscreen",
           "XDG_CONFIG_HOME": str(home / "config"), "XDG_DATA_HOME": str(home / "data"),
           "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT),
                                                       os.environ.get("PYTHONPATH")]))}
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)  # the kernel inherits this process's environment
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell("window.close()"))
    try:
        NotebookClient(nb, timeout=600, kernel_name="python3",
                       resources={"metadata": {"path": str(home)}}).execute()
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return nb


def _output(nb, starts: str) -> dict:
    [cell] = [c for c in nb.cells if c.cell_type == "code" and c.source.startswith(starts)]
    results = [o for o in cell.outputs if o.output_type == "execute_result"]
    assert results, f"no result from the cell {starts!r}: {cell.outputs}"
    return results[-1]["data"]


def _images(html: str, kind: str) -> list[Image.Image]:
    return [Image.open(io.BytesIO(base64.b64decode(data)))
            for data in re.findall(rf"data:image/{kind};base64,([^'\"]+)", html)]


def test_the_kernel_has_one_cpu_device(executed):
    devices = _output(executed, "import jax")["text/plain"]
    assert "CpuDevice(id=0)" in devices and "id=1" not in devices


def test_pmap_shows_the_8_device_animation_inline(executed):
    data = _output(executed, "pmapped = jaxviz.view")
    html = data["text/html"]
    assert "pmap on 8 simulated devices" in html
    [gif] = _images(html, "gif")
    assert gif.size == (960, 540) and gif.n_frames > 5
    stills = _images(html, "png")
    assert len(stills) >= 5  # one frame per phase
    assert "<pre class='jaxviz-jaxpr'" in html
    assert Image.open(io.BytesIO(base64.b64decode(data["image/png"]))).width > 1000


@pytest.mark.parametrize("cell", ['jaxviz.view(convolve, xs, ws, variant="vmap")',
                                  "def normalize", "def predict"])
def test_every_view_carries_its_pictures(executed, cell):
    html = _output(executed, cell)["text/html"]
    assert _images(html, "gif") and _images(html, "png")


def test_the_2x2x2_cube_is_drawn_as_8_pieces(executed):
    svg = _output(executed, "cube = jaxviz.sharding")["image/svg+xml"]
    assert svg.count("class='tile'") == 8 and "8 pieces on 8 devices" in svg
    assert "x[0:2, :, :]" in svg and "x[2:4, :, :]" in svg


def test_timing_plots_inline(executed):
    html = _output(executed, "def matmul")["text/html"]
    plots = _images(html, "png")
    assert len(plots) >= 3 and all(p.size == (960, 540) for p in plots)
    assert "jit (async dispatch off)" in html


def test_show_opened_the_window_on_a_cell_function(executed):
    reply = _output(executed, "window = jaxviz.show")["text/plain"]
    assert "'ok': True" in reply and "opened convolve in the window" in reply
