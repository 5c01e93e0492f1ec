"""Notes and "Copy as code" in the window, against the real engine.

A variant that computes something else than the others says so in its pane
header (and nothing is said where the variants agree); the shard_map
check_vma box changes the traced program; "Copy as code" puts on the
clipboard Python that runs as written and that the engine itself produced.
"""

from __future__ import annotations

import ast

import pytest
from PySide6.QtGui import QGuiApplication

from tests.helpers.window import flush_events, wait_for_panes

# Not in the fast tier: the window on the real engine.
pytestmark = pytest.mark.slow


def _trace(qtbot, win, check=None) -> None:
    win.retrace()
    wait_for_panes(qtbot, win, lambda: win.router.result is not None
                   and (check is None or check()))


def test_a_variant_that_differs_says_so_in_its_header(qtbot, window):
    window.open_example("normalize")
    wait_for_panes(qtbot, window, lambda: window.router.result is not None)
    window.state.visible_variants = ["vmap", "pmap", "shard_map"]
    panes = window.area.panes
    # 8 examples on 8 devices: every variant normalises over the whole batch, no warning
    _trace(qtbot, window, lambda: panes["pmap"].result is not None)
    assert not panes["pmap"].differs.isVisibleTo(panes["pmap"])
    # 16 examples: pmap(vmap(f)) normalises each position over the 8 devices only
    window.state.set_setting("batched_args", "jnp.arange(16.)")
    _trace(qtbot, window, lambda: "16" in panes["pmap"].notes_text())
    text = panes["pmap"].notes_text()
    assert "⚠ differs: pmap(vmap(normalize)) with 2 examples per device" in text
    assert "sums 8 values per position, not 16" in text
    assert panes["pmap"].differs.isVisibleTo(panes["pmap"])
    assert "differs" not in panes["vmap"].notes_text()
    engine_notes = window.router.result.variant("pmap").notes
    assert [n.line() for n in engine_notes if n.differs] == \
        [line.removeprefix("⚠ ") for line in panes["pmap"].differs.text().splitlines()]


def test_check_vma_box_changes_the_program_and_the_note(qtbot, window):
    window.open_example("data_parallel")
    wait_for_panes(qtbot, window, lambda: window.router.result is not None)
    window.state.visible_variants = ["pmap", "shard_map"]
    pane = window.area.panes["shard_map"]
    _trace(qtbot, window, lambda: pane.result is not None)
    # the example traces shard_map as pmap does: the box shows it, the program says it
    assert not window.args_panel.check_vma.isChecked()
    assert "check_vma=False" in pane.jaxpr_view.toPlainText()
    assert "differs" not in pane.notes_text()
    window.args_panel.check_vma.setChecked(True)
    assert window.state.settings.check_vma is True
    _trace(qtbot, window, lambda: "check_vma=True" in pane.jaxpr_view.toPlainText())
    assert "psum_invariant" in pane.jaxpr_view.toPlainText()
    assert "jax.grad" in pane.differs.text() and "not their mean" in pane.differs.text()


def test_copy_as_code_copies_what_the_engine_wrote(qtbot, window):
    window.open_example("tensor_parallel")
    wait_for_panes(qtbot, window, lambda: window.router.result is not None)
    window.state.visible_variants = ["plain", "sharded", "shard_map"]
    pane = window.area.panes["shard_map"]
    _trace(qtbot, window, lambda: pane.result is not None)
    code = window.router.result.variant("shard_map").code
    assert pane.copy_button.isEnabled()
    pane.copy_button.click()
    assert QGuiApplication.clipboard().text() == code.snippet()
    pane.copy_code("call")
    assert QGuiApplication.clipboard().text() == code.call
    ast.parse(code.call, mode="eval")
    program = pane.copy_code("script")
    assert "def layer(x, w):" in program and program.rstrip().endswith(f"print(repr({code.call}))")
    ast.parse(program)


def test_the_busy_note_does_not_widen_the_pane(qtbot):
    """Three panes, the editor and the side panels fit 1920 px with Copy as code and Step in
    every header: "working…" coming and going must not push the window off the screen."""
    from jaxviz.ui.panes.jaxpr_pane import JaxprPane

    pane = JaxprPane("shard_map")
    qtbot.addWidget(pane)
    pane.show()
    qtbot.waitExposed(pane)
    idle = pane.minimumSizeHint().width()
    pane.set_busy("working…")
    flush_events()  # the layouts take the new text in
    assert pane.busy.sizeHint().width() > 50  # the note is there, and wide
    assert pane.minimumSizeHint().width() == idle
    pane.resize(idle + 200, 400)
    qtbot.waitUntil(lambda: pane.busy.width() > 0)  # shown where there is room
