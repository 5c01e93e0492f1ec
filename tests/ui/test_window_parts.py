"""The window's parts without the engine: linking index, change marks, highlighting,
field validation, the engine adapter's threads, the display check, the launcher."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import pytest
from PySide6.QtCore import QThread
from PySide6.QtGui import QColor

from jaxviz.model import Equation, SourceSpan, SubJaxpr, TraceResult, VariantResult, VarInfo
from jaxviz.model.engine import EngineEvent, EngineInfo, Reply
from jaxviz.views.compare.changes import batch_marks, marks_for, parallel_marks
from jaxviz.views.panes.link_index import LinkIndex

F = "/x/f.py"


def _eq(prim, line, start, end, out_shape, subs=()):
    return Equation(prim, {}, [], [VarInfo("o", list(out_shape), "f32")],
                    SourceSpan(F, line, 1, line, 9) if line else None, start, end, list(subs))


def _result() -> TraceResult:
    plain = VariantResult("plain", jaxpr_text="\n".join(["{ lambda", "a", "b", "c", "}"]),
                          equations=[_eq("sin", 3, 1, 1, [3]), _eq("dot_general", 4, 2, 3, [])])
    vmap = VariantResult("vmap", jaxpr_text="\n".join(["{ lambda", "a", "b", "c", "d", "}"]),
                         equations=[_eq("sin", 3, 1, 1, [8, 3]), _eq("transpose", 4, 2, 2, [3, 8]),
                                    _eq("dot_general", 4, 3, 4, [8])])
    inner = SubJaxpr("jaxpr", [], [], [_eq("psum", 5, 2, 2, [1]), _eq("sin", 3, 3, 3, [1])])
    pmap = VariantResult("pmap", jaxpr_text="\n".join(f"l{n}" for n in range(6)),
                         equations=[_eq("shard_map", None, 1, 4, [8], [inner])],
                         collectives=["psum"])
    return TraceResult("f", F, variants=[plain, vmap, pmap])


def test_link_index_maps_lines_both_ways():
    index = LinkIndex(_result())
    assert index.source_lines == [3, 4, 5]
    assert index.owner("plain", 3).primitive == "dot_general"
    assert index.owner("pmap", 2).primitive == "psum"      # the innermost equation wins
    assert index.owner("pmap", 1).primitive == "shard_map"
    assert index.text_lines_for(4) == {"plain": [2, 3], "vmap": [2, 3, 4]}
    assert index.text_lines_for(3) == {"plain": [1], "vmap": [1], "pmap": [3]}
    assert index.colour_index(3) != index.colour_index(4)
    assert index.by_order("pmap", 1).primitive == "psum"


def test_vmap_marks_the_batch_axis_and_new_primitives():
    r = _result()
    marks = batch_marks(r.variant("plain"), r.variant("vmap"))
    kinds = {(m.kind, m.start) for m in marks}
    assert ("batched", 1) in kinds and ("batched", 3) in kinds and ("new", 2) in kinds
    assert "sin: f32[3] -> f32[8,3]: gained axis 0 (8)" in [m.tip for m in marks]


def test_parallel_panes_mark_the_wrapper_and_collectives():
    marks = parallel_marks(_result().variant("pmap"))
    assert [(m.kind, m.start) for m in marks] == [("wrapper", 1), ("collective", 2)]
    assert "all-reduce" in marks[1].tip
    assert marks_for(_result(), "plain") == []


def test_jaxpr_highlighting_colours_primitives_shapes_and_collectives(qapp):
    from pygments.token import Keyword, Name, Number

    from jaxviz.ui.text.code_view import CodeView
    from jaxviz.ui.text.highlighters import jaxpr_highlighter

    view = CodeView(jaxpr_highlighter)
    view.set_text("{ lambda ; a:f32[8]. let\n    b:f32[] = psum[axes=('i',)] a\n"
                  "    c:f32[8] = dot_general a a\n  in (c,) }")
    spans = {view.toPlainText().split("\n")[n][col:col + length]: ttype
             for n in range(4) for col, length, ttype in view.highlighter.spans(n)}
    assert spans["psum"] is Name.Exception            # collectives stand out
    assert spans["dot_general"] is Name.Function
    assert spans["f32"] is Keyword.Type and spans["8"] is Number
    first = view.toPlainText().split("\n")[0]
    assert (first.index("a:"), 1, Name.Variable) in view.highlighter.spans(0)  # a binder
    # The colour reaches the document: the block's formats carry the primitive's colour.
    block = view.document().findBlockByNumber(2)
    ranges = block.layout().formats()
    colours = {r.start: r.format.foreground().color().name() for r in ranges}
    assert colours[block.text().index("dot_general")] == "#6a1b9a"


def test_python_highlighting_follows_a_string_opened_above(qapp):
    from pygments.token import String

    from jaxviz.ui.text.editor import CodeEditor

    editor = CodeEditor()
    editor.setPlainText("x = 1\ny = 2\n")
    assert not any(t in String for _c, _l, t in editor.highlighter.spans(1))
    editor.textCursor().insertText('"""')  # opens a string at the very top
    assert any(t in String for _c, _l, t in editor.highlighter.spans(1))


@pytest.mark.parametrize("field,text,needle", [
    ("args", "f32[5], bf17[3]", "unknown dtype"),
    ("in_axes", "0, 0, 0", "3 entries for 2 arguments"),
    ("mesh", "data=4,model=4", "needs 16 devices but there are 8"),
    ("specs", "P('data', None), P()", "'data' is not an axis of the mesh"),
    ("axis_name", "my axis", "Python identifier"),
])
def test_fields_are_checked_as_typed(qtbot, field, text, needle):
    from jaxviz.ui.panels.args import ArgsPanel

    panel = ArgsPanel()
    qtbot.addWidget(panel)
    panel.set_values({"args": "f32[5], f32[3]"}, devices=8)
    changed = []
    panel.changed.connect(lambda: changed.append(1))
    panel.edits[field].setText(text)
    panel.edits[field].textEdited.emit(text)
    assert needle in panel.field_error(field)
    assert panel.edits[field].property("error") is True
    assert changed == []  # a bad field sends nothing


class _FakeClient:
    """Calls back from its own thread, as the real engine client does."""

    def __init__(self, devices, timeout, on_event):
        self.on_event, self.devices = on_event, devices
        self.callback_threads: list[threading.Thread] = []

    def start(self, wait=False):
        threading.Thread(target=lambda: self.on_event(EngineEvent(
            "ready", "ok", EngineInfo(devices=[], platform="cpu", pid=1)))).start()

    def submit(self, record, callback, timeout=None, on_progress=None, undecoded=False):
        class Handle:
            id = 7

        def run():
            self.callback_threads.append(threading.current_thread())
            on_progress("partial")
            callback(Reply(id=7, ok=True, result="done"))

        threading.Thread(target=run).start()
        return Handle()


def test_engine_callbacks_arrive_as_signals_on_the_gui_thread(qtbot):
    from jaxviz.ui.qt_engine import QtEngine

    engine = QtEngine(devices=2, client_factory=_FakeClient)
    seen = []
    engine.replied.connect(lambda r: seen.append(("reply", r.result, QThread.currentThread())))
    engine.progressed.connect(lambda i, p: seen.append(("progress", (i, p),
                                                        QThread.currentThread())))
    with qtbot.waitSignal(engine.event, timeout=5000):
        engine.start()
    assert engine.state == "ready" and engine.info is not None
    with qtbot.waitSignal(engine.replied, timeout=5000):
        assert engine.submit("record") == 7
    gui = QThread.currentThread()
    assert [s[:2] for s in seen] == [("progress", (7, "partial")), ("reply", "done")]
    assert all(thread is gui for *_x, thread in seen)
    assert engine._client.callback_threads[0] is not threading.main_thread()


def test_no_display_gives_one_line_and_no_qt_dump():
    from jaxviz.ui.app import display_problem

    assert display_problem({}, "linux").count("\n") == 0
    assert "xvfb-run jaxviz" in display_problem({}, "linux")
    assert display_problem({"DISPLAY": ":0"}, "linux") is None
    assert display_problem({"QT_QPA_PLATFORM": "offscreen"}, "linux") is None
    assert display_problem({}, "darwin") is None
    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    out = subprocess.run([sys.executable, "-m", "jaxviz"], env=env, capture_output=True,
                         text=True, timeout=60)
    assert out.returncode != 0
    assert out.stderr.strip().count("\n") == 0 and "xvfb-run jaxviz" in out.stderr
    assert "qt.qpa" not in out.stderr and not out.stdout


def test_which_arguments_open_the_window():
    from jaxviz.cli import opens_window

    assert opens_window([])
    assert opens_window(["example:convolve"])
    assert opens_window(["f.py"]) and opens_window(["f.py:g"]) and opens_window(["t.json"])
    assert opens_window(["--devices", "4", "example:convolve"])
    assert not opens_window(["jaxpr", "example:convolve"])
    assert not opens_window(["--help"]) and not opens_window(["jaxp"])


def test_menus_call_their_handlers_and_follow_the_window_state(qtbot):
    from PySide6.QtWidgets import QDockWidget, QMainWindow

    from jaxviz.model.gallery import list_examples
    from jaxviz.ui.window.actions import EXTRA_HANDLERS, SHORTCUTS, build_menus
    from jaxviz.views.window.window_state import WindowState

    host = QMainWindow()
    qtbot.addWidget(host)
    state = WindowState(visible_variants=["plain", "vmap"])
    calls: list[tuple] = []
    handlers = {name: (lambda *a, n=name: calls.append((n, *a)))
                for name in (*SHORTCUTS, *EXTRA_HANDLERS)}
    with pytest.raises(KeyError, match="retrace"):
        build_menus(host, {k: v for k, v in handlers.items() if k != "retrace"}, {}, state, [])
    examples = {ex.name: ex for ex in list_examples()}
    actions, recent = build_menus(host, handlers, examples, state, [QDockWidget("Gallery")])
    assert recent.title() == "Open &Recent"
    actions["retrace"].trigger()
    actions["pane_pmap"].trigger()
    actions["layout_tabs"].trigger()
    assert calls == [("retrace",), ("show_pane", "pmap", True), ("pane_layout", "tabs")]
    assert [actions[f"pane_{v}"].isChecked() for v in ("plain", "vmap", "sharded")] == [
        True, True, False]
    calls.clear()
    state.visible_variants = ["sharded"]  # e.g. an example opened: the menu follows, silently
    state.pane_layout = "side by side"
    assert [actions[f"pane_{v}"].isChecked() for v in ("plain", "vmap", "sharded")] == [
        False, False, True]
    assert actions["layout_side by side"].isChecked() and not actions["layout_tabs"].isChecked()
    assert calls == []
    example_menu = next(a.menu() for a in host.menuBar().actions() if a.text() == "&Examples")
    example_menu.actions()[1].trigger()
    assert calls == [("open_example", list(examples)[1])]


def test_a_followed_field_calls_its_widget_until_the_widget_is_gone(qtbot):
    """Every field can be followed (no list of fields to keep in step); a deleted widget
    is never called (a connection ends with its receiver, as a Qt connection does)."""
    from dataclasses import fields

    from PySide6.QtWidgets import QLabel

    from jaxviz.ui.binding import follow
    from jaxviz.views.window.window_state import WindowState

    state = WindowState()
    for f in fields(WindowState):
        follow(state, f.name, lambda _v: None)
    with pytest.raises(AttributeError, match="colour"):
        follow(state, "colour", print)
    label = QLabel()
    follow(state, "function", label.setText)
    seen: list[object] = []
    follow(state, "visible_variants", seen.append, label)
    state.function = "convolve"
    state.set_variant_visible("jit", True)
    assert label.text() == "convolve"
    assert seen == [["plain", "jit", "vmap", "pmap", "sharded"]]
    label.deleteLater()
    qtbot.waitUntil(lambda: not __import__("shiboken6").isValid(label))
    state.function = "layer"  # a deleted QLabel's setText would raise RuntimeError
    state.set_variant_visible("jit", False)
    assert seen == [["plain", "jit", "vmap", "pmap", "sharded"]]
    assert len(state.events.function) == 1  # only the no-op follower above is left


def test_the_compare_view_stands_alone_fed_a_diff(qapp):
    """The presentation mode's "what vmap changed" step feeds it a diff, no window, no engine."""
    from jaxviz.ui.compare.compare_view import CompareView
    from jaxviz.views.compare.jaxpr_diff import diff_variants

    r = _result()
    view = CompareView(choosable=False)
    view.resize(900, 400)
    view.show()
    view.set_diff(diff_variants(r.variant("plain"), r.variant("vmap")))
    assert not view.close_button.isVisibleTo(view) and not view.pickers["left"].isEnabled()
    assert [view.pickers[w].currentText() for w in ("left", "right")] == ["plain", "vmap"]
    assert view.summary.text() == "2 equations gained an axis, 1 added (transpose), 0 removed"
    # Each side shows its variant's own lines; the transpose only vmap has faces filler.
    assert view.columns.left.toPlainText().split("\n") == ["a", "", "b", "c"]
    assert view.columns.right.toPlainText().split("\n") == ["a", "b", "c", "d"]
    assert [line.filler for line in view.columns.left.lines] == [False, True, False, False]
    # Its rows know their source lines (from the diff alone) and light them.
    assert view.rows_of_line(4) == [1, 2]
    strong = QColor("#9cc4f2")
    view.set_active_line(4, strong)
    assert [view.columns.right.line_background("active", n) for n in range(4)] == \
        [None, strong, strong, strong]
    assert [view.columns.left.line_background("active", n) for n in range(4)] == \
        [None, None, strong, strong]


def test_while_comparing_the_hidden_panes_do_not_hold_the_window_wide(qapp):
    from jaxviz.ui.panes.area import JaxprArea

    area = JaxprArea()
    area.set_layout_mode("side by side")
    area.set_visible_variants(["plain", "vmap", "pmap", "sharded"])
    panes = area.layout().minimumSize().width()
    assert panes >= sum(area.panes[v].minimumSizeHint().width()
                        for v in ("plain", "vmap", "pmap", "sharded"))
    area.show_compare("plain", "vmap")
    assert area.layout().minimumSize().width() == area.compare.minimumSizeHint().width() < panes
    area.close_compare()
    assert area.layout().minimumSize().width() == panes


def test_highlighting_arrives_from_the_lexer_thread_without_asking(qtbot):
    """The lexers are made in a background thread (issue 31): a view shown before its
    lexer is ready is plain at first, then coloured by Pygments' own tokens, untouched."""
    from pygments.lexers.python import PythonLexer
    from pygments.token import Keyword

    from jaxviz.ui.text.editor import CodeEditor
    from jaxviz.ui.text.highlighters import lexers, warm_lexers

    editor = CodeEditor()
    qtbot.addWidget(editor)
    source = "def f(x):\n    return x\n"
    editor.setPlainText(source)
    warm_lexers().join(timeout=60)
    block = editor.document().findBlockByNumber(0)
    qtbot.waitUntil(lambda: bool(block.layout().formats()), timeout=10000)
    keywords = [v for _i, t, v in PythonLexer().get_tokens_unprocessed(source)
                if t in Keyword]  # the oracle: Pygments itself
    starts = {r.start for r in block.layout().formats()}
    assert keywords[0] == "def" and 0 in starts
    assert lexers().ready("python") is not None


def test_a_long_jaxpr_is_lexed_off_the_gui_thread_and_coloured_as_a_short_one_is(qtbot):
    """A 2000-line text (an HLO program's length) goes into a pane without set_text lexing
    it or visiting every line (issue 31: it is lexed in steps over later turns of the event
    loop, see jaxviz.ui.sliced); once coloured, every line carries the
    formats Qt's own per-line highlighting gives the same text, at Pygments' tokens."""
    from pygments.token import Name

    from jaxviz.ui.text.code_view import CodeView
    from jaxviz.ui.text.highlighters import (
        LONG_LINES,
        PygmentsHighlighter,
        jaxpr_highlighter,
        lexers,
    )
    from jaxviz.views.text.lexers import JaxprLexer

    lexers().make("jaxpr")
    text = "\n".join(f"    b{i}:f32[8,128] = dot_general[precision=None] a{i} w{i}"
                     for i in range(2000))
    assert text.count("\n") > LONG_LINES
    chunked, plain = CodeView(jaxpr_highlighter), CodeView(jaxpr_highlighter)
    plain.highlighter.chunked = False  # Qt's own pass over every line, as before
    qtbot.addWidget(chunked)
    qtbot.addWidget(plain)
    visited: list[int] = []
    original = PygmentsHighlighter.highlightBlock

    def counting(self, block_text):
        visited.append(1)
        return original(self, block_text)

    PygmentsHighlighter.highlightBlock = counting
    try:
        chunked.set_text(text)
        assert not visited  # no per-line pass in set_text
    finally:
        PygmentsHighlighter.highlightBlock = original
    plain.set_text(text)
    qtbot.waitUntil(lambda: not chunked.highlighter.lexing, timeout=60000)

    def formats(view, n):
        return [(r.start, r.length, r.format.foreground().color().name())
                for r in view.document().findBlockByNumber(n).layout().formats()]

    for n in (0, 99, 100, 1234, 1999):
        assert formats(chunked, n) and formats(chunked, n) == formats(plain, n)
    line = text.split("\n")[1999]
    primitive = next(i for i, t, v in JaxprLexer().get_tokens_unprocessed(line)
                     if t is Name.Function and v == "dot_general")
    assert primitive in {start for start, _l, _c in formats(chunked, 1999)}


def test_what_the_window_tells_qt_keeps_what_the_user_set():
    from jaxviz.ui.display import prepare_qt

    env: dict[str, str] = {}
    prepare_qt(env)
    assert env == {"QT_NO_GUI_THREADPOOL": "1"}
    env = {"QT_NO_GUI_THREADPOOL": "0", "HOME": "/h"}
    prepare_qt(env)
    assert env == {"QT_NO_GUI_THREADPOOL": "0", "HOME": "/h"}
