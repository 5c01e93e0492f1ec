"""Today's JAX in the window, against the real engine: the function as written, explicit
meshes chosen in Arguments, sharding marks, and Run Once's per-device prints."""

from __future__ import annotations

import re

import pytest

from tests.helpers.window import wait_for_panes

# Not in the fast tier: the window on the real engine.
pytestmark = pytest.mark.slow

JITTED = '''import jax
import jax.numpy as jnp
from jax.sharding import AxisType, PartitionSpec as P

mesh = jax.make_mesh((2, 4), ("X", "Y"), axis_types=(AxisType.Explicit,) * 2)
jax.set_mesh(mesh)
x = jax.device_put(jnp.arange(64.0).reshape(8, 8), P("X", None))


@jax.jit
def moved(x):
    return jnp.sin(jax.reshard(x, P(None, "Y")))


JAXVIZ = {"function": "moved", "args": "x"}
'''

PRINTING = '''import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((4,), ("i",), axis_types=(jax.sharding.AxisType.Auto,))


@jax.shard_map(mesh=mesh, in_specs=P("i"), out_specs=P("i"))
def show(block):
    jax.debug.print("block {b}", b=block)
    return block * 10


JAXVIZ = {"function": "show", "args": "jnp.arange(8.)"}
'''


def test_the_explicit_example_shows_sharded_types_beside_the_auto_mesh(qtbot, window):
    window.open_example("explicit_sharding")
    panes = window.area.panes
    wait_for_panes(qtbot, window, lambda: all(panes[v].result is not None
                                              for v in ("as_written", "sharded")))
    assert window.state.visible_variants == ["as_written", "sharded"]
    assert panes["as_written"].title.text() == "as written"
    written = panes["as_written"].jaxpr_view.toPlainText()
    assert "a:i32[4@X,1] b:i32[1,8@Y]" in written and "i32[4@X,8@Y]" in written
    assert "@" not in panes["sharded"].jaxpr_view.toPlainText()
    assert "x: int32[4@X,1]" in window.tools.console.toPlainText()
    # Mesh axes: explicit -- the same function's sharded pane gains the types
    combo = window.args_panel.axis_types
    combo.setCurrentIndex(combo.findData("explicit"))
    assert window.state.settings.axis_types == "explicit"
    window.retrace()
    wait_for_panes(qtbot, window,
                   lambda: "4@X" in panes["sharded"].jaxpr_view.toPlainText())
    assert "jax.set_mesh(mesh)" in window.router.result.variant("sharded").code.setup


def test_a_jitted_function_opens_as_written_with_its_sharding_change_marked(
        qtbot, window, tmp_path):
    path = tmp_path / "moved.py"
    path.write_text(JITTED)
    window.open_file(str(path))
    pane = window.area.panes["as_written"]
    assert "as_written" in window.state.visible_variants
    window.retrace()  # the trust rule: a file opened from disk runs on Trace (F5)
    wait_for_panes(qtbot, window, lambda: pane.result is not None)
    assert "showing moved as written" in window.status_text.text() or pane.result.ok
    marks = [m for m in pane.jaxpr_view.marks if m.kind == "resharded"]
    lines = pane.jaxpr_view.toPlainText().splitlines()
    assert len(marks) == 1 and "= reshard " in lines[marks[0].start]
    assert "sharding changes ×1" in pane.legend.text()


def test_run_once_shows_each_devices_print_in_the_console(qtbot, window, tmp_path):
    path = tmp_path / "show.py"
    path.write_text(PRINTING)
    window.open_file(str(path))
    pane = window.area.panes["as_written"]
    window.state.focused_variant = "as_written"
    window.actions_by_name["run_once"].trigger()  # not yet: the file has not run
    assert "press Trace (F5) to run it, then Run Once" in window.status_text.text()
    assert "block" not in window.tools.console.toPlainText()
    window.retrace()
    wait_for_panes(qtbot, window, lambda: pane.result is not None)
    window.actions_by_name["run_once"].trigger()
    console = window.tools.console
    qtbot.waitUntil(lambda: "Array(" in console.toPlainText(), timeout=120_000)
    text = console.toPlainText()
    lines = re.findall(r"^device (\d) \(i=(\d)\): block \[(.*)\]$", text, re.M)
    assert lines == [("0", "0", "0. 1."), ("1", "1", "2. 3."), ("2", "2", "4. 5."),
                     ("3", "3", "6. 7.")]
    assert ">>> show(block)" in text and "dtype=float32" in text
    assert window.tools.currentWidget() is console
