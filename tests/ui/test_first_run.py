"""The first five minutes on a lecture laptop: the window fits the screen, a file opens on
the function a user came for, the Arguments form stays put while typing, the title and
the icon; offscreen (the real screen is in test_real_screen.py)."""

from __future__ import annotations

import dataclasses
import itertools
import os

import pytest
from PySide6.QtCore import QPoint, QRect, QSettings, Qt, QTimer
from PySide6.QtGui import QColor, QFontMetrics, QImage, QPainter, QTextDocumentFragment
from PySide6.QtSvg import QSvgRenderer
from PySide6.QtWidgets import QApplication

from jaxviz.ui.window.layout import FRAME_ESTIMATE
from jaxviz.views import palette
from jaxviz.views.window.screen_fit import Rect, logical, plan_window
from tests.helpers.sources import TRAINING
from tests.helpers.window import close, wait_for_panes

# Not in the fast tier: the window on the real engine.
pytestmark = pytest.mark.slow

SCREENS = list(itertools.product([(1280, 720), (1366, 768), (1920, 1080), (2560, 1440)],
                                 [1, 1.5, 2]))


def _new_window(qtbot, tmp_path, name="jaxviz.ini"):
    """A window on fresh settings and an engine that is never started."""
    from jaxviz.ui.qt_engine import QtEngine
    from jaxviz.ui.window.main_window import MainWindow
    from jaxviz.ui.window.settings import RememberedSettings

    settings = RememberedSettings(QSettings(str(tmp_path / name), QSettings.Format.IniFormat))
    win = MainWindow(settings=settings, engine=QtEngine(devices=8))
    qtbot.addWidget(win)
    return win


def _inside(win, widget) -> bool:
    top_left = widget.mapTo(win, QPoint(0, 0))
    return win.rect().contains(QRect(top_left, widget.size()))


@pytest.fixture
def platform_font(qapp):
    """The platform's own font, as the first window of a fresh process has it before the
    theme is applied by an earlier test's shared engine; put back afterwards. The theme's
    style is applied first, as the app does, whatever ran before (alone, the test had
    none)."""
    from PySide6.QtGui import QFont, QFontDatabase

    from jaxviz.ui.theme import style

    style.apply_theme(qapp)
    before = QFont(qapp.font())
    qapp.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.GeneralFont))
    yield
    qapp.setFont(before)


@pytest.mark.usefixtures("platform_font")
@pytest.mark.parametrize(("size", "scale"), SCREENS)
def test_the_first_window_and_its_docks_fit_each_screen_at_each_scale(qtbot, tmp_path, size,
                                                                      scale):
    plan = plan_window(logical(Rect(0, 0, *size), scale))
    win = _new_window(qtbot, tmp_path)
    # Lay the window out as planned for that screen, but not maximized: a maximized window
    # would take the offscreen screen's size instead of the plan's.
    win.apply_plan(dataclasses.replace(plan, maximized=False))
    win.show()
    qtbot.waitExposed(win)
    content = (plan.frame.width - FRAME_ESTIMATE[0], plan.frame.height - FRAME_ESTIMATE[1])
    qtbot.waitUntil(lambda: (win.width(), win.height()) == content, timeout=5000)
    # A window manager can place the whole window on the screen: its smallest size fits.
    smallest = win.minimumSizeHint()
    assert smallest.width() + FRAME_ESTIMATE[0] <= plan.frame.width
    assert smallest.height() + FRAME_ESTIMATE[1] <= plan.frame.height
    # Every part is in the window: menu bar, status bar, the docks shown.
    tools = win.docks["Console · Devices · Timing"]
    assert _inside(win, win.menuBar()) and _inside(win, win.statusBar())
    assert tools.isVisible() and _inside(win, tools)
    for side in (win.docks["Gallery"], win.docks["Arguments"]):
        assert side.isVisible() == plan.side_panels
        if plan.side_panels:
            assert _inside(win, side) and abs(side.width() - plan.side_width) <= 4
    # The tool dock has a useful height, and the editor and the panes keep room above it.
    assert tools.height() >= 0.2 * win.height()
    assert win.centralWidget().height() >= 0.3 * win.height()
    assert win.editor.isVisible() and win.editor.width() > 200


def test_a_window_off_the_screen_is_moved_and_shrunk_back_onto_it(qtbot, tmp_path):
    win = _new_window(qtbot, tmp_path)
    win.setWindowState(Qt.WindowState.WindowNoState)
    screen = win.screen().availableGeometry()
    smallest = win.minimumSizeHint()
    size = (max(screen.width() // 2, smallest.width()), max(screen.height() // 2,
                                                           smallest.height()))
    win.resize(*size)
    win.show()
    qtbot.waitExposed(win)
    win.move(screen.right() - size[0] // 2, screen.bottom() - size[1] // 2)  # hangs off
    assert win.keep_on_screen()
    assert screen.contains(win.frameGeometry()) and win.size().toTuple() == size
    win.resize(screen.width() + 500, screen.height() + 300)  # from a larger screen
    win.move(0, 0)
    assert win.keep_on_screen()
    assert screen.contains(win.frameGeometry())
    assert not win.keep_on_screen()  # once inside, it stays where it is


def test_remembered_geometry_from_a_larger_screen_is_clamped_when_shown(qtbot, tmp_path):
    first = _new_window(qtbot, tmp_path, "shared.ini")
    first.setWindowState(Qt.WindowState.WindowNoState)
    first.show()
    qtbot.waitExposed(first)
    screen = first.screen().availableGeometry()
    first.resize(screen.width() + 900, screen.height() + 500)  # as on a larger screen
    first.move(100, 20)
    first.save_window_state()
    first.close()
    again = _new_window(qtbot, tmp_path, "shared.ini")
    again.show()
    # On this screen it is shown whole (Qt's restoreGeometry shrinks what is too large
    # for the screen; keep_on_screen checks the frame once it is framed).
    qtbot.waitUntil(lambda: screen.contains(again.frameGeometry()), timeout=5000)
    assert again.width() <= screen.width() and again.height() <= screen.height()


def test_typing_in_axes_char_by_char_moves_no_field(qtbot, window):
    """The issue's case: typing `None, 0, 0` into in_axes while messages come and go."""
    window.open_example("data_parallel")
    panel = window.args_panel
    inner = panel.widget()
    watched = [*panel.fields.values()]

    def places():
        rects = [QRect(f.editor.mapTo(inner, QPoint(0, 0)), f.editor.size()) for f in watched]
        return rects, panel.message.geometry(), panel.verticalScrollBar().isVisible()

    edit = panel.edits["in_axes"]
    edit.clear()
    edit.setFocus()
    before = places()
    centre = edit.rect().center()
    messages = []
    for char in "None, 0, 0":
        qtbot.keyClicks(edit, char)
        assert places() == before, f"a field moved after typing {edit.text()!r}"
        messages.append(panel.field_error("in_axes"))
        if messages[-1]:  # the fault is said three ways, none of which moves the form
            assert edit.property("error") is True
            assert panel.fields["in_axes"].icon.isVisible()
            assert "in_axes" in panel.message.text() and "✖" in edit.toolTip()
            assert window.status_text.text().startswith("Arguments ▸ in_axes:")
    assert any(messages) and not messages[-1]  # messages came, and went with the fix
    assert edit.text() == "None, 0, 0" and edit.property("error") is False
    assert not panel.fields["in_axes"].icon.isVisible() and panel.message.text() == ""
    assert not window.status_text.text().startswith("Arguments ▸")
    # A click aimed at in_axes while a message shows lands in in_axes, not in Specs.
    edit.setText("None, 0")
    edit.textEdited.emit("None, 0")
    assert panel.field_error("in_axes") and places() == before
    panel.edits["specs"].setFocus()
    qtbot.mouseClick(edit, Qt.MouseButton.LeftButton, pos=centre)
    assert QApplication.focusWidget() is edit


def test_a_long_faulty_spec_shows_the_fault_in_the_reserved_line(qtbot, window):
    panel = window.args_panel
    long_spec = "[(f32[784,512], f32[512]), (f32[512,10], f32[10])], f32[784], f32[x]"
    panel.edits["args"].setText(long_spec)
    panel.edits["args"].textEdited.emit(long_spec)
    text = QTextDocumentFragment.fromHtml(panel.message.text()).toPlainText()
    message, excerpt, caret = text.split("\n")
    assert message == "✖ Args: dimension 'x' is not a non-negative integer"
    # The text around the fault, cut to the line's width, the caret under the fault.
    assert excerpt.startswith("…") and excerpt.endswith("f32[x]") and len(excerpt) >= 16
    assert excerpt[caret.index("^")] == "x" and caret.strip() == "^"
    width = QFontMetrics(panel.message.font()).horizontalAdvance(excerpt)
    assert width <= panel.message.width()
    assert panel.message.height() == panel.message.minimumHeight()  # the reserved room
    assert panel.horizontalScrollBar().isVisible() is False


def test_a_training_file_opens_on_its_step_with_the_parameters_named(qtbot, window, tmp_path):
    path = tmp_path / "train.py"
    path.write_text(TRAINING, encoding="utf-8")
    window.open_file(str(path))
    assert window.document.doc.function == "train_step"
    assert window.editor_panel.function.currentText() == "train_step"
    assert window.windowTitle() == "train.py[*] — jaxviz" and not window.isWindowModified()
    status = window.status_text.text()
    assert status.startswith("opened train_step (no other function of the file calls it)")
    assert "Arguments ▸ Args: say what arguments train_step takes" in status
    assert window.args_panel.edits["args"].placeholderText() == "params, x, y"
    # The choice is remembered for this file: picked again next time it opens.
    index = window.editor_panel.function.findText("forward")
    window.editor_panel.function.activated.emit(index)
    window.open_example("convolve")
    window.open_file(str(path))
    assert window.document.doc.function == "forward"
    assert "opened forward (chosen last time)" in window.status_text.text()


def test_annotated_arguments_are_filled_in_and_trace(qtbot, window, tmp_path):
    path = tmp_path / "annotated.py"
    # Postponed annotations are never evaluated: f32 and jaxtyping's Float need not exist
    # when the engine runs the file (jaxtyping is not installed here).
    path.write_text("from __future__ import annotations\n\nimport jax.numpy as jnp\n\n\n"
                    "def scale(w, x):\n    return w * x\n\n\n"
                    "def predict(w: f32[4, 3], x: Float[Array, '8 4']):\n"
                    "    return jnp.tanh(scale(x, 2.0) @ w)\n", encoding="utf-8")
    window.open_file(str(path))
    assert window.document.doc.function == "predict"
    assert window.args_panel.edits["args"].text() == "f32[4,3], f32[8,4]"
    assert "its arguments from the annotations: f32[4,3], f32[8,4]" in window.status_text.text()
    # a file opened from disk runs once the user says so (the trust rule): Trace, F5
    assert "annotated.py is shown, not run: press Trace (F5)" in window.status_text.text()
    window.retrace()
    wait_for_panes(qtbot, window, lambda: window.router.result is not None
                   and window.router.result.function == "predict")
    plain = window.area.panes["plain"].jaxpr_view.toPlainText()
    assert plain.startswith("{ lambda ; a:f32[4,3] b:f32[8,4]. let")


def test_the_title_names_the_document_and_marks_unsaved_edits(qtbot, window):
    window.open_example("convolve")
    assert window.windowTitle() == "convolve[*] — jaxviz" and not window.isWindowModified()
    window.editor.textCursor().insertText("# a note\n")
    assert window.isWindowModified()
    window.document.editor.document().setModified(False)
    window.new_file()
    assert window.windowTitle() == "untitled[*] — jaxviz"


def test_jaxviz_without_a_target_reopens_the_last_function(qtbot, tmp_path):
    from jaxviz.ui import app

    path = tmp_path / "train.py"
    path.write_text(TRAINING, encoding="utf-8")
    opened = []

    def on_shown(win) -> None:
        opened.append((str(win.document.doc.path), win.document.doc.function,
                       win.windowIcon().isNull()))
        QTimer.singleShot(0, lambda: (win.close(), QApplication.instance().exit(0)))

    assert app.main([f"{path}:loss_fn", "--devices", "1"], on_shown=on_shown) == 0
    assert app.main(["--devices", "1"], on_shown=on_shown) == 0  # as from the menu
    assert opened[1] == (str(path.resolve()), "loss_fn", False)
    path.unlink()  # gone since: the gallery's first example instead
    assert app.main(["--devices", "1"], on_shown=on_shown) == 0
    assert opened[2][:2] == ("None", "convolve")


def test_the_icon_shows_four_device_colours_even_at_16_pixels(qapp):
    from jaxviz.ui.theme import style

    renderer = QSvgRenderer(str(style.icon_path()))
    assert renderer.isValid()
    for size in (16, 32, 256):
        image = QImage(size, size, QImage.Format.Format_ARGB32)
        image.fill(QColor("white"))
        painter = QPainter(image)
        renderer.render(painter)
        painter.end()
        # One device per quadrant, in the device view's first four colours (sampled at
        # each tile's inner corner: its shard, darker, sits in the outer corner).
        for (x, y), colour in zip([(100, 100), (156, 100), (100, 156), (156, 156)],
                                  palette.DEVICE_COLOURS[:4]):
            seen = image.pixelColor(x * size // 256, y * size // 256)
            assert close(seen, QColor(colour), tolerance=40), (size, colour, seen.name())
        if size >= 32:  # dark between them (a gap a pixel wide at 16)
            assert image.pixelColor(size // 2, size // 2).lightness() < 80


def test_a_change_is_written_to_the_settings_file_a_second_later_or_at_close(qtbot, settings):
    """Qt would write the file (and flush it to disk) in the next turn, the one that paints
    the document just opened; the window's settings write it a second later, or when the
    window closes (its ``sync``)."""
    from jaxviz.ui.window.settings import WRITE_AFTER_MS

    path = settings.q.fileName()

    def on_disk() -> str:
        return open(path, encoding="utf-8").read() if os.path.exists(path) else ""

    settings.last_target = "example:psum_ones"
    assert settings.last_target == "example:psum_ones"  # (this process sees it at once)
    qtbot.wait(WRITE_AFTER_MS // 3)
    assert "psum_ones" not in on_disk()  # not in the turns right after the change
    qtbot.waitUntil(lambda: "psum_ones" in on_disk(), timeout=WRITE_AFTER_MS * 3)
    settings.last_target = "example:convolve"
    settings.sync()  # closing the window
    assert "example:convolve" in on_disk()
