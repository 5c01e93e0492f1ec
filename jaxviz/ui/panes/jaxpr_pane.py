"""One variant's pane: its jaxpr, StableHLO, compiled HLO and cost analysis.

The header names the variant, shows the call that produced it (e.g.
``jax.vmap(convolve, axis_name='i')(xs, ws)``) with a **Copy as code** button
(the call, the call with its arguments and mesh, or a whole program that runs
as written), the variant's notes (a note that says the variant *differs* from
the others stands out in amber; the others are one muted line whose tooltip
lists them) and a legend of the "what changed" marks. A failed variant keeps
its last good jaxpr, dimmed, under a banner with the error. StableHLO and HLO
are put into their views only when their tab is first shown (they can be long,
and highlighting them costs time).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMenu,
    QSizePolicy,
    QStackedWidget,
    QTableWidget,
    QTableWidgetItem,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from jaxviz.model import ErrorInfo, VariantResult, variant_label
from jaxviz.model.notes import VariantNote
from jaxviz.ui.sliced import SlicedJob
from jaxviz.ui.text.code_view import CodeView
from jaxviz.ui.text.elided import ElidedLabel
from jaxviz.ui.text.find_bar import FindBar
from jaxviz.ui.text.highlighters import hlo_highlighter, jaxpr_highlighter, stablehlo_highlighter
from jaxviz.ui.text.plain import plain
from jaxviz.ui.theme import style
from jaxviz.views.incremental import OWN_TURN, Steps, run_to_end

if TYPE_CHECKING:  # loaded with the first result, not before the window paints
    from jaxviz.views.compare.changes import Mark

#: What each variant is, in one line, for the pane's tooltip.
VARIANT_HELP = {
    "as_written": "The function called exactly as its module defines it: its own jit, "
                  "shardings, shard_map and the mesh the module set.",
    "plain": "The function as JAX traced it: one call, no transformation.",
    "jit": "jax.jit(f): the same jaxpr wrapped in one compiled XLA program.",
    "vmap": "jax.vmap(f): every equation rewritten to carry a batch axis.",
    "pmap": "jax.pmap(f): one program per device; today a jit of a shard_map.",
    "sharded": "jax.jit with NamedSharding: XLA's partitioner splits the program.",
    "shard_map": "jax.shard_map(f): the per-device program, written by hand.",
}
_LEGEND = {
    "batched": "gained the batch axis",
    "new": "new primitive",
    "wrapper": "runs per device",
    "collective": "collective",
    "resharded": "sharding changes",
}
#: The Compare button's text in a narrow pane, and in a pane at least ``WIDE_PANE`` wide.
COMPARE_TEXT = ("◫", "◫ Compare")
WIDE_PANE = 380
#: What "Copy as code" can copy, in its menu's order: (key, menu text).
COPY_CHOICES = (
    ("snippet", "Copy the call with its arguments and mesh"),
    ("call", "Copy the call only"),
    ("script", "Copy as a program (runs as written in a fresh python)"),
)
#: The views of a pane, in the picker's order.
VIEWS = ("jaxpr", "StableHLO", "HLO", "cost")
_COST_NOTE = {"pmap": "one device's program", "sharded": "one device's program",
              "shard_map": "one device's program"}


#: The copy button's text, and its short form in a narrow header.
COPY_TEXT = ("Copy as code", "Copy")
#: The call goes beside the header's buttons only with room for this many characters.
CALL_CHARS = 24


class JaxprPane(QFrame):
    """The views of one variant, with a header, an error banner and detail tabs."""

    #: ``(variant, 0-based jaxpr line)`` under the mouse; line -1 when it left.
    lineHovered = Signal(str, int)
    #: ``(variant, 0-based jaxpr line)`` clicked.
    lineClicked = Signal(str, int)
    #: ``(variant, on)``: the header's Step button asks for step mode on or off.
    stepToggled = Signal(str, bool)
    #: ``(variant, view)``: the user picked what the pane shows (``jaxpr``, ``HLO`` ...).
    viewChosen = Signal(str, str)
    #: The header's Compare button: compare this variant with its base.
    compareRequested = Signal(str)
    #: ``(variant, view, 0-based line)`` under the mouse in a compiled program's view
    #: (``StableHLO``, ``HLO``); line -1 when it left.
    programLineHovered = Signal(str, str, int)
    #: ``(variant, view, 0-based line)`` clicked in a compiled program's view.
    programLineClicked = Signal(str, str, int)
    #: The compiled programs' views got their text (they are filled when first shown).
    programsFilled = Signal(str)
    #: A big jaxpr put on screen in steps is whole (see :meth:`show_result`).
    jaxprFilled = Signal(str)

    def __init__(self, variant: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.variant = variant
        self.setObjectName(f"pane_{variant}")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        header = style.PaneHeader()
        self.title = QLabel(variant_label(variant))
        style.set_role(self.title, "pane-title")
        # on the title, not the pane: a pane-wide tooltip covers the equations it hovers over
        self.title.setToolTip(VARIANT_HELP.get(variant, ""))
        self.busy = plain(QLabel(""))
        # "working…" comes and goes: it must not widen the pane (and the window) when it does
        self.busy.setMinimumWidth(1)  # (else a QLabel's minimum is its whole text)
        self.call = ElidedLabel()
        style.set_role(self.call, "pane-call")
        self.call.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.copy_button = QToolButton()
        self.copy_button.setObjectName(f"copy_code_{variant}")
        self.copy_button.setText(COPY_TEXT[0])
        self.copy_button.setToolTip("Copy this variant's call as Python that runs as written: "
                                    "click for the call with its arguments and mesh; the "
                                    "arrow offers the call alone or a whole program")
        self.copy_button.setPopupMode(QToolButton.ToolButtonPopupMode.MenuButtonPopup)
        self.copy_button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        menu = QMenu(self.copy_button)
        for key, text in COPY_CHOICES:
            action = menu.addAction(text)
            action.setObjectName(f"copy_{key}")
            action.triggered.connect(self._copier(key))
        self.copy_button.setMenu(menu)
        self.copy_button.clicked.connect(lambda: self.copy_code("snippet"))
        self.copy_button.setEnabled(False)
        #: Gives the source the program form of "Copy as code" starts with.
        self.source_provider: Callable[[], str] | None = None
        self.differs = plain(QLabel(""))
        self.differs.setObjectName(f"differs_{variant}")
        style.set_role(self.differs, "banner")
        self.differs.setWordWrap(True)
        self.differs.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.differs.hide()
        self.note = ElidedLabel()
        self.note.setObjectName(f"notes_{variant}")
        style.set_role(self.note, "pane-note")
        self.note.hide()
        self.legend = QLabel("")
        self._legend = ("&nbsp;", "&nbsp;", "")  # rich text with words, without, plain
        style.set_role(self.legend, "legend")
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self.legend.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self._top = top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(self.title)
        top.addStretch(1)
        top.addWidget(self.busy)
        top.addWidget(self.copy_button)
        self._head = head = QVBoxLayout(header)
        head.setContentsMargins(8, 4, 8, 4)
        head.setSpacing(1)
        head.addLayout(top)
        head.addWidget(self.call)
        head.addWidget(self.differs)
        head.addWidget(self.note)
        self.compare_button = QToolButton()
        self.compare_button.setObjectName(f"compare_{variant}")
        self.compare_button.setText(COMPARE_TEXT[0])
        self.compare_button.setToolTip("Compare this variant with another side by side, "
                                       "equation by equation (Ctrl+D)")
        # Narrow panes show the glyph alone: the button never widens the pane.
        self.compare_button.setMinimumWidth(self.compare_button.sizeHint().width())
        self.compare_button.setText(COMPARE_TEXT[1])
        self.compare_button.clicked.connect(lambda: self.compareRequested.emit(self.variant))
        legend_row = QHBoxLayout()  # the marks' legend, and the way to see what changed
        legend_row.setContentsMargins(0, 0, 0, 0)
        legend_row.addWidget(self.legend, 1)
        legend_row.addWidget(self.compare_button)
        head.addLayout(legend_row)
        self.banner = plain(QLabel())
        style.set_role(self.banner, "banner", severity="error")
        self.banner.setWordWrap(True)
        self.banner.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.banner.hide()
        self.jaxpr_view = CodeView(jaxpr_highlighter)
        self.jaxpr_view.setObjectName(f"jaxpr_{variant}")
        self.jaxpr_view.setTabChangesFocus(True)  # read-only: Tab moves on to the next pane
        self.stack = QStackedWidget()
        self.stack.addWidget(self.jaxpr_view)
        # The StableHLO and HLO views and the cost table, made when first asked for (most
        # panes never show them: 14 views and 7 tables were 4.9 MB of the window's memory)
        self._programs: tuple[CodeView, CodeView, QTableWidget] | None = None
        self._zoom = 0
        self.view_picker = QComboBox()
        self.view_picker.setObjectName(f"view_picker_{variant}")
        self.view_picker.addItems(VIEWS)
        self.view_picker.setToolTip("Show the jaxpr, the StableHLO JAX lowers it to, the "
                                    "HLO XLA compiles, or XLA's cost analysis")
        self.view_picker.currentIndexChanged.connect(self._show_view)
        self.view_picker.activated.connect(
            lambda i: self.viewChosen.emit(self.variant, VIEWS[i]))
        self.step_button = QToolButton()
        self.step_button.setObjectName(f"step_{variant}")
        self.step_button.setText("▶ Step")
        self.step_button.setCheckable(True)
        self.step_button.setToolTip("Step mode (F9): run this jaxpr equation by equation with "
                                    "real values; the Values tab shows them")
        self.step_button.toggled.connect(lambda on: self.stepToggled.emit(self.variant, on))
        top.addWidget(self.step_button)
        top.addWidget(self.view_picker)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(header)
        layout.addWidget(self.banner)
        layout.addWidget(self.stack, 1)
        #: Find (Ctrl+F) and go to line (Ctrl+G) in the jaxpr.
        self.find_bar = FindBar(self.jaxpr_view, self)
        layout.addWidget(self.find_bar)
        self.result: VariantResult | None = None
        self.details: VariantResult | None = None
        self._fill_job: SlicedJob | None = None  # a big jaxpr put on screen in steps
        self._details_filled = False
        self.jaxpr_view.lineHovered.connect(lambda n: self.lineHovered.emit(self.variant, n))
        self.jaxpr_view.lineClicked.connect(lambda n: self.lineClicked.emit(self.variant, n))

    def _made_programs(self) -> tuple[CodeView, CodeView, QTableWidget]:
        """The StableHLO and HLO views and the cost table (made, and put in the stack after
        the jaxpr, the first time they are asked for)."""
        if self._programs is not None:
            return self._programs
        stablehlo = CodeView(stablehlo_highlighter, marks_column=False)
        hlo = CodeView(hlo_highlighter, marks_column=False)
        table = QTableWidget(0, 2)
        table.setHorizontalHeaderLabels(["XLA cost analysis", "value"])
        table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        table.verticalHeader().hide()
        table.setFont(style.ui_font(self._zoom))
        for name, view in (("StableHLO", stablehlo), ("HLO", hlo)):
            view.setTabChangesFocus(True)
            view.set_zoom(self._zoom)
            view.set_dimmed(self.jaxpr_view.dimmed)
            view.lineHovered.connect(
                lambda n, name=name: self.programLineHovered.emit(self.variant, name, n))
            view.lineClicked.connect(
                lambda n, name=name: self.programLineClicked.emit(self.variant, name, n))
        for widget in (stablehlo, hlo, table):
            self.stack.addWidget(widget)
        self._programs = (stablehlo, hlo, table)
        return self._programs

    @property
    def stablehlo_view(self) -> CodeView:
        return self._made_programs()[0]

    @property
    def hlo_view(self) -> CodeView:
        return self._made_programs()[1]

    @property
    def cost_table(self) -> QTableWidget:
        return self._made_programs()[2]

    def program_views(self) -> dict[str, CodeView]:
        """The compiled programs' views by name, ``StableHLO`` and ``HLO``, once made (none
        before a pane shows one or is asked for one)."""
        if self._programs is None:
            return {}
        return {"StableHLO": self._programs[0], "HLO": self._programs[1]}

    def _code_views(self) -> list[CodeView]:
        """The jaxpr view and the programs' views made so far."""
        return [self.jaxpr_view, *self.program_views().values()]

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        self.compare_button.setText(COMPARE_TEXT[self.width() >= WIDE_PANE])
        self._fit_copy_button()
        self._fit_legend()
        self._place_call()

    def _fit_copy_button(self) -> None:
        """"Copy as code" and "▶ Step", or "Copy" and "▶" where the header has no room for
        them (a zoomed, narrow pane): never squeezed by the style to "Co…de". Their
        tooltips say what they do."""
        stepping = self.step_button.isChecked()
        texts = [(self.copy_button, COPY_TEXT[0]),
                 (self.step_button, "■ Stop stepping" if stepping else "▶ Step")]
        shorts = [(self.copy_button, COPY_TEXT[1]), (self.step_button, "■" if stepping else "▶")]
        for button, text in texts:
            button.setText(text)
        for n in range(len(shorts) + 1):
            if n:
                shorts[n - 1][0].setText(shorts[n - 1][1])
            need = sum(w.sizeHint().width() for w in (self.copy_button, self.step_button,
                                                       self.view_picker))
            if self.title.isVisible():
                need += self.title.sizeHint().width()
            if need + 40 <= self.width():  # the header's margins and spacing
                return

    # ---------------------------------------------------------------- content
    def show_result(self, vr: VariantResult, marks: list[Mark] | Steps[list[Mark]]) -> None:
        """Show a traced variant (or its error, keeping the last good jaxpr dimmed), with
        its change marks -- or the steps that make them (a vmap variant's diff against the
        plain jaxpr: run after the text is on screen, for a big one).

        A jaxpr of :data:`~jaxviz.ui.text.code_view.FILL_LINES` lines or more (a train
        step's: thousands) is put on screen in steps (:attr:`filling` until it is whole):
        its folds read from its equations, then its text a few hundred lines a step,
        folded as it comes (:meth:`CodeView.fill_steps`), a few milliseconds per turn of
        the event loop. What it settles to is what a small jaxpr shows at once."""
        if vr.error is not None:
            if self.result is None:  # traced, and failed: no "not traced yet" under it
                self.jaxpr_view.set_text("")
            self.show_error(vr.error)
            return
        self._stop_fill()
        self.result = vr
        from jaxviz.ui.text.code_view import FILL_LINES

        if vr.jaxpr_text.count("\n") + 1 < FILL_LINES:
            self._show_header(vr)
            # at once, its marks made first: the gutter takes its width once (marks cleared
            # then set narrowed and widened it, Qt laying the text out again each time)
            made = marks if isinstance(marks, list) else run_to_end(marks)
            run_to_end(self._result_steps(vr, made))
            return
        self.jaxpr_view.expect_fill()
        job = self._fill_job = SlicedJob(self._big_result_steps(vr, marks), parent=self)
        job.finished.connect(lambda _none: self._filled(job))
        job.failed.connect(lambda _error: self._filled(job))
        job.start()

    def _show_header(self, vr: VariantResult) -> None:
        """The header and banner of a result shown: its call, its notes, no error."""
        self.call.setText(vr.call)
        self.show_notes(vr.notes)
        self.copy_button.setEnabled(vr.code is not None)
        self.banner.hide()
        self.set_dimmed(False)

    def _big_result_steps(self, vr: VariantResult, marks: list[Mark] | Steps[list[Mark]]
                          ) -> Steps[None]:
        """A big jaxpr's :meth:`_result_steps`, after its header in a turn of its own
        (painted in it, not on top of the turn the result came in, which every view
        spends on its first changes)."""
        yield OWN_TURN
        self._show_header(vr)
        yield
        yield from self._result_steps(vr, marks)

    def _result_steps(self, vr: VariantResult, marks: list[Mark] | Steps[list[Mark]]
                      ) -> Steps[None]:
        """:meth:`show_result` in steps: the marks and their legend (the first one loads
        the module that reads them), the folds, the text; marks still to be made, after
        the text."""
        from jaxviz.views.panes.folding import pane_folds_steps

        ready, later = (marks, None) if isinstance(marks, list) else ([], marks)
        self.jaxpr_view.set_marks(ready)
        self._show_legend(ready)
        yield
        regions, folded = yield from pane_folds_steps(vr)
        yield from self.jaxpr_view.fill_steps(vr.jaxpr_text, regions, folded)
        if later is not None:
            made: list[Mark] = yield from later
            self.jaxpr_view.set_marks(made)
            self._show_legend(made)

    @property
    def filling(self) -> bool:
        """A big jaxpr is being put on screen in steps (see :meth:`show_result`)."""
        return self._fill_job is not None

    def _filled(self, job: SlicedJob) -> None:
        if job is self._fill_job:
            self._fill_job = None
            self.jaxprFilled.emit(self.variant)

    def _stop_fill(self) -> None:
        if self._fill_job is not None:
            self._fill_job.cancel()
            self._fill_job = None
        self.jaxpr_view._stop_filling()

    def clear(self, message: str) -> None:
        """Show no result, only ``message`` (a new document, not traced yet): nothing of
        the last document stays, not even dimmed."""
        self._stop_fill()
        self.result = self.details = None
        self._details_filled = False
        self.call.setText("")
        self.copy_button.setEnabled(False)
        self.show_notes([])
        self._show_legend([])
        # The text first: each narrower gutter (no marks, then no folds) lays the view out
        # again, the message then, not the last document's jaxpr twice.
        self.jaxpr_view.set_text(message)
        self.jaxpr_view.set_marks([])
        self.jaxpr_view.set_folds([])
        if self._programs is not None:
            for view in self.program_views().values():
                view.set_text("")
            self._programs[2].setRowCount(0)
        self.banner.hide()
        self.set_dimmed(True)
        self.set_stepping(False)

    def show_error(self, error: ErrorInfo, prefix: str = "") -> None:
        """Show an error over the last good content, which stays visible but dimmed."""
        where = f" (line {error.line})" if error.line else ""
        self.banner.setText(f"⚠ {prefix}{error.message}{where}")
        self.banner.show()
        self.set_dimmed(True)
        if self.result is None:
            self.call.setText("")
            self.copy_button.setEnabled(False)

    def _copier(self, kind: str) -> Callable[[], None]:
        def copy() -> None:
            self.copy_code(kind)
        return copy

    def show_notes(self, notes: list[VariantNote]) -> None:
        """Where the variant differs (amber, in full), then the other notes (one line)."""
        differs = [n for n in notes if n.differs]
        others = [n for n in notes if not n.differs]
        text = "\n".join(f"⚠ {n.line()}" for n in differs)
        if text != self.differs.text():  # (the same notes after an edit: nothing to do)
            self.differs.setText(text)
            self.differs.setToolTip("\n\n".join(n.line() for n in differs))
        self.differs.setVisible(bool(differs))
        if others:
            self.note.setText("  ·  ".join(n.line() for n in others))
            self.note.setToolTip("\n\n".join(n.line() for n in notes))
        self.note.setVisible(bool(others))

    def notes_text(self) -> str:
        """The notes shown in the header, as plain text ('' when none)."""
        parts = [w.text() for w in (self.differs, self.note) if w.isVisibleTo(self)]
        return "\n".join(parts)

    def code_text(self, kind: str = "snippet") -> str:
        """What "Copy as code" copies: ``call``, ``snippet`` or ``script`` ('' without a result)."""
        vr = self.result
        if vr is None or vr.code is None:
            return ""
        if kind == "call":
            return vr.code.call
        if kind == "script":
            source = self.source_provider() if self.source_provider is not None else ""
            return vr.code.script(source)
        return vr.code.snippet()

    def copy_code(self, kind: str = "snippet") -> str:
        """Put :meth:`code_text` on the clipboard; returns what was copied."""
        text = self.code_text(kind)
        if text:
            QGuiApplication.clipboard().setText(text)
        return text

    def clear_error(self) -> None:
        self.banner.hide()
        self.set_dimmed(False)

    def set_dimmed(self, dimmed: bool) -> None:
        for view in self._code_views():
            view.set_dimmed(dimmed)

    @property
    def dimmed(self) -> bool:
        return self.jaxpr_view.dimmed

    @property
    def error_text(self) -> str:
        """The banner's text ('' when the variant is fine)."""
        return self.banner.text() if self.banner.isVisibleTo(self) else ""

    def _show_legend(self, marks: list[Mark]) -> None:
        from jaxviz.views.compare.changes import summary

        counts = summary(marks)
        long, short, words_only = [], [], []
        for kind, words in _LEGEND.items():
            if counts.get(kind):
                colour = style.MARK_COLOURS[kind].name()
                glyph = (f"<span style='color:{colour}; font-weight:bold'>"
                         f"{style.MARK_GLYPHS[kind]}</span>")
                long.append(f"{glyph} {words} ×{counts[kind]}")
                short.append(f"{glyph} ×{counts[kind]}")
                words_only.append(f"{style.MARK_GLYPHS[kind]} {words} ×{counts[kind]}")
        from jaxviz.views.compare.changes import compiler_added

        added = compiler_added(self.result) if self.result is not None else []
        if added:  # from the program, not the variant's name
            names = ", ".join(added)
            long.append(f"compiler adds: <b>{names}</b>")
            short.append(long[-1])
            words_only.append(f"compiler adds: {names}")
        self._legend = ("&nbsp;&nbsp; ".join(long) or "&nbsp;",
                        "&nbsp;&nbsp; ".join(short) or "&nbsp;", "   ".join(words_only))
        tips = [m.tip for m in marks[:12]]
        self.legend.setToolTip("\n".join(["   ".join(words_only), *tips] if words_only else tips))
        self._fit_legend()

    def _fit_legend(self) -> None:
        """The marks' legend with its words where the header has room for them, else the
        glyphs and counts alone (the words in its tooltip): never cut off mid-count."""
        long, short, plain_long = self._legend
        room = self.legend.width() - 6
        fits = self.legend.fontMetrics().horizontalAdvance(plain_long) <= room
        text = long if fits else short
        if text != self.legend.text():
            self.legend.setText(text)

    def set_details(self, vr: VariantResult) -> None:
        """StableHLO, HLO and cost of the variant (filled into their tabs when shown)."""
        if vr.error is not None:
            return
        self.details = vr
        self._details_filled = False
        if self.result is not None and len(vr.notes) > len(self.result.notes):
            self.result.notes = list(vr.notes)  # the compiled program's notes came later
            self.show_notes(vr.notes)
        if self.result is not None and vr.hlo_collectives and not self.result.hlo_collectives:
            self.result.hlo_collectives = list(vr.hlo_collectives)
            self._show_legend(self.jaxpr_view.marks)
        self._fill_details(self.stack.currentIndex())

    def _show_view(self, index: int) -> None:
        if index > 0:
            self._made_programs()
        self._fill_details(index)
        self.stack.setCurrentIndex(index)

    def show_view(self, name: str) -> None:
        """Show ``jaxpr``, ``StableHLO``, ``HLO`` or ``cost``."""
        self.view_picker.setCurrentIndex(VIEWS.index(name))

    def shown_view(self) -> str:
        """What the pane shows: ``jaxpr``, ``StableHLO``, ``HLO`` or ``cost``."""
        return VIEWS[self.view_picker.currentIndex()]

    def start_over(self) -> None:
        """A new document: its jaxpr, from the top (nothing chosen for the last one stays)."""
        self.show_view("jaxpr")
        for view in self._code_views():
            view.verticalScrollBar().setValue(0)
            view.horizontalScrollBar().setValue(0)
        if self._programs is not None:
            self._programs[2].scrollToTop()

    def _fill_details(self, index: int) -> None:
        if index <= 0 or self._details_filled or self.details is None:
            return
        vr = self.details
        self.stablehlo_view.set_text(vr.stablehlo)
        self.hlo_view.set_text(vr.hlo)
        note = _COST_NOTE.get(self.variant)
        rows = sorted(vr.cost.items())
        self.cost_table.setRowCount(len(rows) + (1 if note else 0))
        for n, (key, value) in enumerate(rows):
            self.cost_table.setItem(n, 0, QTableWidgetItem(key))
            text = f"{value:,.0f}" if float(value).is_integer() else f"{value:,.3g}"
            item = QTableWidgetItem(text)
            item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.cost_table.setItem(n, 1, item)
        if note:
            self.cost_table.setItem(len(rows), 0, QTableWidgetItem(f"(counts are for {note})"))
        self._details_filled = True
        self.programsFilled.emit(self.variant)

    def set_compact(self, compact: bool) -> None:
        """In tabs the tab names the variant: the call moves up beside the view picker
        (when there is room for :data:`CALL_CHARS` of it there, or the pane is too short
        for another line; else it keeps its line)."""
        self._compact = compact
        self.title.setVisible(not compact)
        self._place_call()

    def _place_call(self) -> None:
        buttons = sum(w.sizeHint().width() for w in (self.copy_button, self.step_button,
                                                     self.view_picker))
        room = self.width() - buttons - 40  # the header's margins and spacing
        line = self.call.fontMetrics().height()
        # a pane too short for another header line (a tiny screen) keeps the call beside
        beside = getattr(self, "_compact", False) and (
            room >= self.call.fontMetrics().averageCharWidth() * CALL_CHARS
            or self.height() < 12 * line)
        if beside and self._top.indexOf(self.call) < 0:
            self._head.removeWidget(self.call)
            self._top.insertWidget(0, self.call, 1)
        elif not beside and self._head.indexOf(self.call) < 0:
            self._top.removeWidget(self.call)
            self._head.insertWidget(1, self.call)
        for i in range(self._top.count()):  # beside the buttons the call takes all the room
            item = self._top.itemAt(i)
            if item is not None and item.spacerItem() is not None:
                self._top.setStretch(i, 0 if beside else 1)

    def set_stepping(self, on: bool) -> None:
        """Show whether this pane is in step mode (without asking for it again)."""
        self.step_button.blockSignals(True)
        self.step_button.setChecked(on)
        self.step_button.setText("■ Stop stepping" if on else "▶ Step")
        self.step_button.blockSignals(False)
        self._fit_copy_button()
        if on:
            self.show_view("jaxpr")

    def set_busy(self, text: str) -> None:
        """A short "tracing…" note in the header ('' to clear)."""
        self.busy.setText(text)

    def set_zoom(self, zoom: int) -> None:
        self._zoom = zoom
        for view in self._code_views():
            view.set_zoom(zoom)
        if self._programs is not None:
            self._programs[2].setFont(style.ui_font(zoom))
        self._fit_copy_button()

