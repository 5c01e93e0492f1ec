"""batched_matmul opens with its pmap pane on screen (issue 27).

The NumPy-vs-jnp-vs-pmap example opened at 1280x720 on its plain and vmap panes (side
by side, or as tabs with plain in front): the pmap pane it is about was not on screen.
It names its telling panes (``"panes": ["plain", "pmap"]``): the window opens on them,
or -- where even two panes would be tabs -- gives every declared variant a tab with pmap
in front. A file's ``JAXVIZ`` may name them too.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from jaxviz.model import list_examples
from jaxviz.views.window.screen_fit import Rect, plan_window

pytestmark = pytest.mark.slow  # the window with its engine


def _settle(win) -> None:
    for _ in range(3):
        QApplication.processEvents()
        win.layout().activate()
    QApplication.processEvents()


def _on_screen(win, variant: str) -> bool:
    pane = win.area.panes[variant]
    return pane.isVisible() and not pane.visibleRegion().isEmpty() and pane.width() > 200


def _one_click_away(win, declared: list[str]) -> bool:
    """Every declared variant is a pane shown side by side, or a tab."""
    if win.area.effective_mode() == "tabs":
        return sorted(win.area.shown_variants()) == sorted(declared)
    return all(_on_screen(win, v) for v in win.area.shown_variants())


@pytest.mark.parametrize("size, side_panels", [((1280, 690), False), ((1280, 690), True),
                                               ((1920, 1050), False)])
def test_batched_matmul_opens_with_its_pmap_pane_on_screen(qtbot, make_window, size,
                                                           side_panels):
    declared = next(e for e in list_examples() if e.name == "batched_matmul").variants
    win = make_window(*size)
    for name in ("Gallery", "Arguments"):
        win.docks[name].setVisible(side_panels)
    if side_panels:
        side = plan_window(Rect(0, 0, *size)).side_width
        win.resizeDocks([win.docks["Gallery"]], [side], Qt.Orientation.Horizontal)
    try:
        win.open_example("convolve")  # another example first: its tab in front
        _settle(win)
        win.open_example("batched_matmul")
        _settle(win)
        assert _on_screen(win, "pmap"), (win.area.effective_mode(), win.area.shown_variants())
        if win.area.effective_mode() == "tabs":
            assert sorted(win.area.shown_variants()) == sorted(declared)
        else:  # side by side: the telling pair (and, with room for four, two more)
            shown = win.area.shown_variants()
            assert {"plain", "pmap"} <= set(shown) and len(shown) == (2 if size[0] < 1400
                                                                      else 4), shown
            assert all(_on_screen(win, v) for v in shown)
        assert win.width() <= size[0]
    finally:
        win.session.stop()


def test_a_file_names_its_telling_panes(qtbot, make_window, tmp_path):
    path = tmp_path / "scaled.py"
    path.write_text('"""Scaling a batch."""\nimport jax.numpy as jnp\n\n'
                    'JAXVIZ = {"function": "scale", "args": "f32[8]", '
                    '"variants": ["plain", "jit", "vmap", "pmap"], "panes": ["plain", "pmap"]}'
                    '\n\n\ndef scale(x):\n    return 2 * x\n')
    win = make_window(1280, 690)
    for name in ("Gallery", "Arguments"):
        win.docks[name].hide()
    try:
        win.open_file(str(path))
        _settle(win)
        assert _on_screen(win, "pmap")
        assert _one_click_away(win, ["plain", "jit", "vmap", "pmap"]) or \
            win.area.shown_variants() == ["plain", "pmap"]
    finally:
        win.session.stop()


def test_a_jaxviz_that_is_not_a_literal_is_named_in_the_status_bar(qtbot, make_window,
                                                                    tmp_path):
    path = tmp_path / "sized.py"
    path.write_text('import jax.numpy as jnp\nN = 8\n'
                    'JAXVIZ = {"function": "scale", "args": f"f32[{N}]"}\n\n\n'
                    'def scale(x):\n    return 2 * x\n')
    win = make_window(1280, 690)
    try:
        win.open_file(str(path))
        text = win.status_text.text()
        assert "sized.py: JAXVIZ on line 3 is not used" in text
        assert "plain dict of literals" in text
        assert win.editor.toPlainText() == path.read_text()  # the file is open all the same
    finally:
        win.session.stop()
