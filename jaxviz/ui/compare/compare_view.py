"""The compare layout: two variants' jaxprs as an aligned, jaxpr-aware diff.

On top, the summary (``10 equations gained the batch axis, 0 added, 0 removed``)
and a legend of the colours in view; above each side, the variant (a picker in
the window) and the call that made it; in the middle the two sides and their
bands (:class:`~jaxviz.ui.compare.diff_columns.DiffColumns`); at the bottom, what
changed in the row under the mouse (or the one clicked), in words.

:class:`CompareView` stands alone: :meth:`CompareView.set_diff` shows any
:class:`~jaxviz.views.compare.jaxpr_diff.JaxprDiff` (it carries the lines of both
variants' jaxpr texts it shows). In the window, :meth:`CompareView.show_result`
computes the diff of the chosen pair from a trace result, and the linking
controller (:mod:`jaxviz.ui.panes.linking`) ties its rows to the editor's source
lines through :meth:`set_links` / :meth:`set_active_line` and the
``sourceLine*`` signals.
"""

from __future__ import annotations

import importlib
import sys
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from jaxviz.model import VARIANTS, ErrorInfo, TraceResult
from jaxviz.ui.compare.diff_columns import DiffColumns, diff_colour
from jaxviz.ui.sliced import SlicedJob
from jaxviz.ui.text.elided import ElidedLabel
from jaxviz.ui.text.plain import plain
from jaxviz.ui.theme import style
from jaxviz.views.incremental import OWN_TURN, Steps, run_to_end

if TYPE_CHECKING:  # the diff's modules load with the first comparison, not with the window
    from jaxviz.views.compare.diff_layout import SideBySide
    from jaxviz.views.compare.jaxpr_diff import DiffRow, JaxprDiff

#: The legend's words for each colour, in its order (``{left}``/``{right}``: the variants).
LEGEND = {
    "batch": "gained the batch axis",
    "shapes": "shape changed",
    "params": "parameters changed",
    "added": "only in {right}",
    "removed": "only in {left}",
    "printed": "printed differently (not compared)",
}
_PRINTED_NOTE = ("the same primitive, types and parameters; the printed lines differ only in "
                 "what the records do not hold, e.g. {V:i}: the value varies over the "
                 "shard_map axis i")


#: The diff's modules, each imported in a step of its own by the first big comparison (the
#: three at once were a 14-20 ms step; difflib, which the alignment imports, is 2 ms of
#: its own).
_DIFF_MODULES = ("jaxviz.views.compare.jaxpr_shapes", "difflib",
                 "jaxviz.views.compare.jaxpr_align",
                 "jaxviz.views.compare.jaxpr_diff", "jaxviz.views.compare.diff_layout")

#: Jaxprs from this many characters on (a couple of hundred equations) are compared in
#: steps, a few milliseconds per event-loop turn (:class:`~jaxviz.ui.sliced.SlicedJob`);
#: at 20,000 a 300-equation chain's comparison held the GUI thread 160-500 ms at once.
BACKGROUND_CHARS = 8_000


class CompareView(QFrame):
    """Two variants side by side, aligned equation by equation, with what changed.

    Signals:
        pairChosen(str, str): the user picked another left or right variant.
        closeRequested(): the Close button.
        sourceLineHovered(int): the 1-based source line of the row under the
            mouse (0: none).
        sourceLineClicked(int): the source line of a clicked row (0: none).
    """

    pairChosen = Signal(str, str)
    closeRequested = Signal()
    sourceLineHovered = Signal(int)
    sourceLineClicked = Signal(int)

    def __init__(self, parent: QWidget | None = None, choosable: bool = True):
        super().__init__(parent)
        self.setObjectName("compare_view")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.diff: JaxprDiff | None = None
        self.layout_: SideBySide | None = None
        #: Bumped by every diff asked for: a diff in steps that is not the latest is dropped.
        self._generation = 0
        self._job: SlicedJob | None = None
        self.result: TraceResult | None = None
        self._pair: tuple[str, str] | None = None
        self._lines: dict[str, dict[int, int]] | None = None  # variant -> order -> source line
        self._colours: dict[int, QColor] = {}
        self._active = 0
        self._active_colour: QColor | None = None
        self._hovered_row = -1
        self._selected_row = -1
        self._build(choosable)

    def _build(self, choosable: bool) -> None:
        header = style.PaneHeader()
        self.title = QLabel("Compare")
        style.set_role(self.title, "pane-title")
        self.summary = plain(QLabel(""))
        self.summary.setObjectName("compare_summary")
        self.summary.setWordWrap(True)
        self.summary.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.close_button = QToolButton()
        self.close_button.setObjectName("compare_close")
        self.close_button.setText("✕ Close")
        self.close_button.setToolTip("Back to the variant panes (Ctrl+D)")
        self.close_button.clicked.connect(self.closeRequested.emit)
        self.close_button.setVisible(choosable)
        self.legend = QLabel("")
        style.set_role(self.legend, "legend")
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self.legend.setWordWrap(True)
        self.legend.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(self.title)
        top.addWidget(self.summary, 1)
        top.addWidget(self.close_button, 0, Qt.AlignmentFlag.AlignTop)
        head = QVBoxLayout(header)
        head.setContentsMargins(8, 4, 8, 4)
        head.setSpacing(2)
        head.addLayout(top)
        head.addWidget(self.legend)
        self.banner = plain(QLabel())
        style.set_role(self.banner, "banner", severity="error")
        self.banner.setWordWrap(True)
        self.banner.hide()
        self.columns = DiffColumns()
        self.pickers = {which: QComboBox() for which in ("left", "right")}
        self.calls = {which: ElidedLabel() for which in ("left", "right")}
        sides = QGridLayout()
        sides.setContentsMargins(0, 2, 0, 0)
        sides.setHorizontalSpacing(0)
        for column, which in ((0, "left"), (2, "right")):
            picker = self.pickers[which]
            picker.setObjectName(f"compare_{which}")
            picker.addItems(VARIANTS)
            picker.setToolTip(f"The variant on the {which}")
            picker.setEnabled(choosable)
            picker.currentTextChanged.connect(self._picked)
            style.set_role(self.calls[which], "pane-call")
            cell = QHBoxLayout()
            cell.setContentsMargins(6, 0, 6, 2)
            cell.addWidget(picker)
            cell.addWidget(self.calls[which], 1)
            sides.addLayout(cell, 0, column)
            sides.setColumnStretch(column, 1)
        sides.addWidget(self.columns, 1, 0, 1, 3)
        self._gutter_spacer = QWidget()
        sides.addWidget(self._gutter_spacer, 0, 1)
        self.note = QLabel("")
        self.note.setObjectName("compare_note")
        self.note.setWordWrap(True)
        style.set_role(self.note, "legend")
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        self.note.setContentsMargins(8, 4, 8, 4)
        self.note.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(header)
        layout.addWidget(self.banner)
        layout.addLayout(sides, 1)
        layout.addWidget(self.note)
        self.columns.describe_row = self.describe_row
        self.columns.rowHovered.connect(self._row_hovered)
        self.columns.rowClicked.connect(self._row_clicked)
        self._fit_spacer()

    # ------------------------------------------------------------- content
    @property
    def pair(self) -> tuple[str, str] | None:
        """The variants compared: ``(left, right)``."""
        return self._pair

    def set_pair(self, left: str, right: str) -> None:
        """Compare ``left`` with ``right`` (the pickers follow; no ``pairChosen``)."""
        self._show_pair(left, right)
        if self.result is not None:
            self.show_result(self.result)

    def _show_pair(self, left: str, right: str) -> None:
        self._pair = (left, right)
        for which, name in (("left", left), ("right", right)):
            picker = self.pickers[which]
            picker.blockSignals(True)
            picker.setCurrentText(name)
            picker.blockSignals(False)

    def show_result(self, result: TraceResult) -> None:
        """Show the diff of the chosen pair in ``result`` (or say why it cannot be shown)."""
        self.result = result
        if self._pair is None:
            return
        problems = []
        variants = {vr.variant: vr for vr in result.variants}
        for name in self._pair:
            vr = variants.get(name)
            if vr is None:
                problems.append(f"{name} is being traced…")
            elif vr.error is not None:
                problems.append(f"{name} failed to trace: {vr.error.message.splitlines()[0]}")
        if problems:
            self.show_error(ErrorInfo("compare", "; ".join(problems)))
            return
        left, right = (variants[name] for name in self._pair)
        self._generation += 1
        if self._job is not None:
            self._job.cancel()
            self._job = None
        size = max(len(left.jaxpr_text), len(right.jaxpr_text))
        if size < BACKGROUND_CHARS:
            from jaxviz.views.compare.jaxpr_diff import diff_variants

            self._show_calls(left, right)
            self.set_diff(diff_variants(left, right))
            return
        # a big program: diffed and laid out in steps, a few ms per event-loop turn (a
        # thread would hold the GIL the GUI thread needs for every Qt call: see
        # jaxviz.views.incremental); the window keeps painting meanwhile
        generation = self._generation
        self._job = SlicedJob(self._compare_steps(left, right, generation), parent=self)
        self._job.start()

    def _show_calls(self, left, right) -> None:
        self.calls["left"].setText(left.call)
        self.calls["right"].setText(right.call)

    def _compare_steps(self, left, right, generation: int) -> Steps[None]:
        """The diff of two variants, its side-by-side layout, and putting it on screen, in
        steps (each a few milliseconds of the GUI thread). First the calls and a line
        saying what is coming, in a turn of their own (painted in it, not on top of the
        turn the result came in, which every view spends on its first changes)."""
        yield OWN_TURN
        self._show_calls(left, right)
        self._say(f"comparing {left.variant} and {right.variant} "
                  f"({left.jaxpr_text.count(chr(10)) + 1} and "
                  f"{right.jaxpr_text.count(chr(10)) + 1} lines)…", "info")
        yield
        for module in _DIFF_MODULES:  # the first comparison loads them: one a step
            if module not in sys.modules:
                importlib.import_module(module)
                yield
        from jaxviz.views.compare.diff_layout import side_by_side_steps
        from jaxviz.views.compare.jaxpr_diff import diff_steps

        diff = yield from diff_steps(left, right)
        layout = yield from side_by_side_steps(diff)
        if generation == self._generation:
            yield from self._show_steps(diff, layout)

    @property
    def busy(self) -> bool:
        """A big diff is being computed or put on screen (in steps)."""
        return self._job is not None and self._job.busy

    def set_diff(self, diff: JaxprDiff, layout: SideBySide | None = None) -> None:
        """Show a diff: its rows aligned, its summary and legend (the standalone entry)."""
        from jaxviz.views.compare.gc_pause import paused_gc

        with paused_gc():  # thousands of Qt selections, none of them in a cycle
            run_to_end(self._show_steps(diff, layout))

    def _show_steps(self, diff: JaxprDiff, layout: SideBySide | None) -> Steps[None]:
        self.diff = diff
        from jaxviz.views.compare.diff_layout import side_by_side

        self.layout_ = layout if layout is not None else side_by_side(diff)
        self._show_pair(diff.left, diff.right)
        self.summary.setText(diff.summary)
        yield
        self._show_legend()
        yield
        self.banner.hide()
        self.columns.left.set_dimmed(False)
        self.columns.right.set_dimmed(False)
        self._selected_row = self._hovered_row = -1
        yield from self.columns.layout_steps(self.layout_)
        yield from self._links_steps()
        self._show_note()

    def show_error(self, error: ErrorInfo) -> None:
        """A banner over the last good diff, which stays, dimmed."""
        self._say(f"⚠ {error.message}", "error")
        self.columns.left.set_dimmed(True)
        self.columns.right.set_dimmed(True)

    def _say(self, text: str, severity: str) -> None:
        """The banner, in the style of its severity (``info``: work under way, ``error``)."""
        self.banner.setText(text)
        style.set_style_property(self.banner, "severity", severity)
        self.banner.show()

    @property
    def error_text(self) -> str:
        """The banner's text while it shows (a variant failed or is being traced), else ''."""
        return self.banner.text() if self.banner.isVisibleTo(self) else ""

    def _show_legend(self) -> None:
        assert self.layout_ is not None and self.diff is not None
        present = {b.category for b in self.layout_.blocks}
        if "replaced" in present:
            present |= {"added", "removed"}
        present |= {s.kind for side in (self.layout_.left, self.layout_.right)
                    for line in side for s in line.spans}
        parts = []
        for category, words in LEGEND.items():
            if category in present:
                colour = diff_colour(category, 0.35).name()
                words = words.format(left=self.diff.left, right=self.diff.right)
                parts.append(f"<span style='background:{colour}'>&nbsp;&nbsp;&nbsp;</span>"
                             f"&nbsp;{words}")
        self.legend.setText("&nbsp;&nbsp;&nbsp; ".join(parts) or "no differences")

    def _picked(self, _text: str) -> None:
        left, right = (self.pickers[w].currentText() for w in ("left", "right"))
        self.pairChosen.emit(left, right)

    # ------------------------------------------------------------- linking
    def set_links(self, lines: dict[str, dict[int, int]] | None,
                  colours: dict[int, QColor]) -> None:
        """The source line of every equation (``lines[variant][pre-order index]``; None: the
        diff's own) and each source line's link colour."""
        self._lines = lines
        self._colours = dict(colours)
        self._refresh_links()

    def source_line(self, row: int, which: str) -> int:
        """The 1-based source line of a row's side (``which`` ``""``: either side); 0 if none."""
        if self.diff is None or row < 0:
            return 0
        found = self.diff.rows[row]
        for name in (("left", "right") if not which else (which,)):
            side = getattr(found, name)
            if side is None:
                continue
            if self._lines is None:
                return side.line or 0
            variant = self.diff.left if name == "left" else self.diff.right
            return self._lines.get(variant, {}).get(side.order, 0)
        return 0

    def rows_of_line(self, line: int) -> list[int]:
        """The rows whose equations came from a source line (either side)."""
        if self.diff is None or not line:
            return []
        return [r for r in range(len(self.diff.rows))
                if line in (self.source_line(r, "left"), self.source_line(r, "right"))]

    def _refresh_links(self) -> None:
        run_to_end(self._links_steps())

    def _links_steps(self) -> Steps[None]:
        if self.layout_ is None:
            return
        chips: dict[str, dict[int, int]] = {"left": {}, "right": {}}
        for r in range(len(self.layout_.diff.rows)):
            for which in ("left", "right"):
                lines = self.layout_.lines_of(r, which)
                number = self.source_line(r, which)
                if lines and number:
                    chips[which][lines[0]] = number
            if r % 500 == 499:
                yield
        self.columns.set_chips(chips, self._colours)
        self.set_active_line(self._active, self._active_colour if self._active else None)

    def set_active_line(self, line: int, colour: QColor | None) -> None:
        """Light the rows of a source line in its strong link colour, framed (0: none)."""
        self._active = line if colour is not None else 0
        self._active_colour = colour
        if self.layout_ is None:
            return
        for which, view in (("left", self.columns.left), ("right", self.columns.right)):
            ranges, colours = [], {}
            for r in self.rows_of_line(self._active):
                lines = self.layout_.lines_of(r, which)
                if lines and self.source_line(r, which) == self._active:
                    ranges.append((lines[0], lines[-1]))
                    colours.update({n: colour for n in lines})
            view.set_line_backgrounds("active", colours)  # type: ignore[arg-type]
            view.set_outlined(ranges)
            view.active = (self._active, colour) if colour is not None else None
            view.refresh_gutter()

    def scroll_to_line(self, line: int) -> None:
        """Bring the first row of a source line into view."""
        rows = self.rows_of_line(line)
        if rows:
            self.columns.scroll_to_row(rows[0])

    def _row_hovered(self, row: int, which: str) -> None:
        self._hovered_row = row
        self._show_note()
        self.sourceLineHovered.emit(self.source_line(row, which))

    def _row_clicked(self, row: int, which: str) -> None:
        self._selected_row = row
        self._show_note()
        self.sourceLineClicked.emit(self.source_line(row, which))

    # ---------------------------------------------------------------- words
    def describe_row(self, row: int) -> str:
        """What changed in a row, in one line of words."""
        assert self.diff is not None
        from jaxviz.views.compare.diff_layout import row_category, row_notes

        found: DiffRow = self.diff.rows[row]
        side = found.right or found.left
        assert side is not None
        line = self.source_line(row, "")
        where = f"line {line} · " if line else ""
        category = row_category(found)
        if category in ("added", "removed"):
            variant = self.diff.right if category == "added" else self.diff.left
            return f"{where}{side.primitive}: only in {variant}"
        notes = row_notes(found, hidden_by_name=True)
        if not notes:
            printed = self.layout_ is not None and any(
                s.kind == "printed" for s in self._row_spans(row))
            notes = [_PRINTED_NOTE if printed else "unchanged"]
        return f"{where}{side.primitive}: " + "; ".join(notes)

    def _row_spans(self, row: int):
        assert self.layout_ is not None
        for which in ("left", "right"):
            for n in self.layout_.lines_of(row, which) or ():
                yield from self.layout_.side(which)[n].spans

    def _show_note(self) -> None:
        row = self._hovered_row if self._hovered_row >= 0 else self._selected_row
        if self.diff is None:
            self.note.setText("")
        elif row < 0:
            self.note.setText("Point at a row to see what changed; click it to find its "
                              "source line.")
        else:
            self.note.setText(self.describe_row(row))

    # --------------------------------------------------------------- sizes
    def set_zoom(self, zoom: int) -> None:
        """Both sides' text at a zoom level (points above the base code font; Ctrl+=)."""
        self.columns.set_zoom(zoom)
        self._fit_spacer()

    def _fit_spacer(self) -> None:
        self._gutter_spacer.setFixedWidth(self.columns.gutter.width())

