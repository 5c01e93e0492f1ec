"""Compiler-Explorer-style linking between the editor and every jaxpr pane.

Each source line that produced equations gets a pastel colour; its line in the
editor and its equations in every pane share it. Hovering (or clicking, which
sticks) an equation or a source line lights up, in the stronger shade of the
same hue and with a frame, the source line and every equation it produced in
every pane. The device view can light up equations too (:meth:`LinkController.show_equations`).
The compare layout (:class:`~jaxviz.ui.compare.compare_view.CompareView`) is linked
the same way: its rows' source line chips share the colours, and a row hovered or
clicked there lights (or selects) its source line, and the other way round. So are
the panes' compiled programs (HLO, StableHLO; :meth:`LinkController.set_details`):
their instructions that keep a location in the user's file
(``source_file="NAME.py" source_line=N``) share that line's colour and light up with it.

The controller holds no Qt widgets of its own; it paints through the
editor's and the panes' background layers.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QColor

from jaxviz.model import TraceResult
from jaxviz.ui.panes.area import JaxprArea
from jaxviz.ui.sliced import SlicedJob
from jaxviz.ui.text.editor import CodeEditor
from jaxviz.ui.theme import style
from jaxviz.views.panes.link_index import LinkIndex, program_source_lines

#: Results with more jaxpr lines than this (all variants) get their link index in steps.
BIG_LINES = 2000


def _palette() -> Callable[[int], QColor]:
    """``slot -> link colour``, each colour made once (a big result colours thousands of
    lines from a dozen colours)."""
    made: dict[int, QColor] = {}

    def colour(slot: int) -> QColor:
        found = made.get(slot)
        if found is None:
            found = made[slot] = style.link_colour(slot)
        return found
    return colour


def _ranges(lines: list[int]) -> list[tuple[int, int]]:
    """Consecutive runs of sorted line numbers as ``(first, last)``."""
    runs: list[tuple[int, int]] = []
    for n in sorted(lines):
        if runs and n == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], n)
        else:
            runs.append((n, n))
    return runs


class LinkController(QObject):
    """Keeps the editor and the panes' link colours and active highlight in step."""

    #: The active (hovered, else selected) 1-based source line; 0 when none.
    activeLineChanged = Signal(int)

    def __init__(self, editor: CodeEditor, area: JaxprArea, parent: QObject | None = None):
        super().__init__(parent)
        self.editor = editor
        self.area = area
        self.index: LinkIndex | None = None
        self._hovered = 0
        self._selected = 0
        self._explicit: dict[str, list[int]] = {}
        #: variant -> program view (``HLO``...) -> {0-based program line: source line}.
        self.programs: dict[str, dict[str, dict[int, int]]] = {}
        self._job: SlicedJob | None = None  # a big result's index, built in steps
        editor.sourceLineHovered.connect(self._editor_hovered)
        editor.sourceLineClicked.connect(self._editor_clicked)
        for pane in area.panes.values():
            pane.lineHovered.connect(self._pane_hovered)
            pane.lineClicked.connect(self._pane_clicked)
            pane.programLineHovered.connect(self._program_hovered)
            pane.programLineClicked.connect(self._program_clicked)
            pane.programsFilled.connect(lambda _v: self.refresh())
        area.compare.sourceLineHovered.connect(self._editor_hovered)
        area.compare.sourceLineClicked.connect(self._compare_clicked)

    # ------------------------------------------------------------- results
    def set_result(self, result: TraceResult | None) -> None:
        """Colour the editor and every pane for a new result (None: clear the colours).

        A big result's index (over :data:`BIG_LINES` jaxpr lines in all: a train step's
        ~5,000 equations took 40 ms) is built in steps of a few milliseconds per event-loop
        turn; its colours come when it is done (:attr:`indexing` until then)."""
        if self._job is not None:
            self._job.cancel()
            self._job = None
        self._explicit = {}
        self.programs = {}  # until this result's compiled programs come (set_details)
        lines = sum(vr.jaxpr_text.count("\n") for vr in result.variants) if result else 0
        if result is None or lines <= BIG_LINES:
            self.index = LinkIndex(result) if result is not None else None
            self.refresh()
            return
        self.index = None  # the last result's colours go at once
        self.refresh()
        job = self._job = SlicedJob(LinkIndex.in_steps(result), parent=self)
        job.finished.connect(lambda index: self._indexed(job, index))
        job.start()

    @property
    def indexing(self) -> bool:
        """A big result's index is being built (its colours are not shown yet)."""
        return self._job is not None

    def _indexed(self, job: SlicedJob, index: LinkIndex) -> None:
        if job is not self._job:
            return
        self._job = None
        self.index = index
        self.refresh()

    def set_details(self, details: TraceResult | None) -> None:
        """Link the compiled programs of a result's details (None: unlink them)."""
        self.programs = {}
        if details is not None:
            for vr in details.variants:
                if vr.error is None:
                    self.programs[vr.variant] = {
                        "StableHLO": program_source_lines(vr.stablehlo, details.filename),
                        "HLO": program_source_lines(vr.hlo, details.filename)}
        self.refresh()

    def clear_editor_colours(self) -> None:
        """The source changed: its old colours would point at the wrong lines."""
        self.editor.set_link_colours({})
        self.editor.set_active_line(0)

    def refresh(self) -> None:
        """Repaint every link colour and the active highlight."""
        index = self.index
        if index is None:
            self.editor.set_link_colours({})
            for pane in self.area.panes.values():
                for view in (pane.jaxpr_view, *pane.program_views().values()):
                    view.set_line_backgrounds("link", {})
            self.area.compare.set_links({}, {})
            self._paint_active()
            return
        colour = _palette()
        by_line = {line: colour(index.colour_index(line) or 0) for line in index.source_lines}
        self.editor.set_link_colours(by_line)
        self.area.compare.set_links(
            {v: {ref.order: ref.line for ref in index.refs(v) if ref.line is not None}
             for v in index.variants}, by_line)
        per_pane: dict[str, dict[int, QColor]] = {variant: {} for variant in self.area.panes}
        for line, found in by_line.items():  # each jaxpr line owned by an equation from it
            for variant, lines in index.text_lines_for(line).items():
                if variant in per_pane:
                    per_pane[variant].update(dict.fromkeys(lines, found))
        for variant, pane in self.area.panes.items():
            pane.jaxpr_view.set_line_backgrounds("link", per_pane[variant])
            for name, view in pane.program_views().items():
                located = self._located(variant, name)
                view.set_line_backgrounds("link", {
                    n: colour(slot) for n, line in located.items()
                    if (slot := index.colour_index(line)) is not None})
        self._paint_active()

    def _located(self, variant: str, view: str) -> dict[int, int]:
        """The program lines of a pane's view that point into the source (see
        :attr:`programs`): none while the view shows no text."""
        pane = self.area.panes.get(variant)
        shown = pane.program_views().get(view) if pane is not None else None
        if shown is None or shown.document().isEmpty():
            return {}
        return self.programs.get(variant, {}).get(view, {})

    # -------------------------------------------------------------- state
    @property
    def active_line(self) -> int:
        """The source line lit up now: the hovered one, else the selected one."""
        return self._hovered or self._selected

    @property
    def selected_line(self) -> int:
        return self._selected

    def select_source_line(self, line: int, reveal: bool = True) -> None:
        """Stick the highlight on a 1-based source line (0 clears it)."""
        if self.index is not None and line not in self.index.source_lines:
            line = 0
        self._selected = line
        self._explicit = {}
        self._paint_active()
        if reveal and line and self.index is not None:
            self.editor.reveal_line(line)
            self._reveal_in_panes(line)
            self.area.compare.scroll_to_line(line)

    def show_equations(self, variant: str, orders: list[int]) -> None:
        """Light up equations of one pane by pre-order index (see :class:`EqnRef`)."""
        if self.index is None:
            return
        ranges = []
        for order in orders:
            ref = self.index.by_order(variant, order)
            if ref is not None:
                ranges.append((variant, ref.start, ref.end))
        self.show_lines(ranges)

    def show_lines(self, ranges: list[tuple[str, int, int]]) -> None:
        """Light up ``(variant, first line, last line)`` ranges of the panes' jaxprs.

        This is how the device view shows which equations its current phase is
        about; an empty list returns to the source-line highlight.
        """
        explicit: dict[str, list[int]] = {}
        for variant, first, last in ranges:
            if variant in self.area.panes:
                explicit.setdefault(variant, []).extend(range(first, last + 1))
        self._explicit = explicit
        self._paint_active()
        for variant, lines in explicit.items():
            self.area.panes[variant].jaxpr_view.scroll_to_line(min(lines))

    @property
    def phase_lines(self) -> dict[str, list[int]]:
        """The jaxpr lines lit by :meth:`show_lines` (the device view's phase), by variant."""
        return {variant: list(lines) for variant, lines in self._explicit.items()}

    def show_step(self, variant: str, first: int, last: int, line: int) -> None:
        """Light one equation of one pane (the stepper's step) and its 1-based source line.

        The pane's lines ``first..last`` get the current-step background and a
        frame; the editor's ``line`` (0: none) its strong link colour. Both are
        scrolled into view.
        """
        index = self.index
        self._selected = line if index is not None and line in index.source_lines else 0
        self._explicit = ({variant: list(range(first, last + 1))}
                          if variant in self.area.panes else {})
        self._hovered = 0
        self._paint_active()
        if self._selected:
            self.editor.reveal_line(self._selected)
        if variant in self.area.panes:
            self.area.panes[variant].jaxpr_view.scroll_to_line(first)

    def _editor_hovered(self, line: int) -> None:
        if self.index is not None and line not in self.index.source_lines:
            line = 0
        self._set_hovered(line)

    def _editor_clicked(self, line: int) -> None:
        if self.index is None:
            return
        line = line if line in self.index.source_lines else 0
        self._selected = line
        self._explicit = {}
        self._paint_active()
        if line:
            self._reveal_in_panes(line)

    def _reveal_in_panes(self, line: int) -> None:
        """Scroll every pane's jaxpr and compiled programs to the first lines from ``line``."""
        if self.index is not None:
            for variant, lines in self.index.text_lines_for(line).items():
                if lines:
                    self.area.panes[variant].jaxpr_view.scroll_to_line(lines[0])
        for variant, pane in self.area.panes.items():
            for name, view in pane.program_views().items():
                program = self.program_lines_for(variant, name, line)
                if program:
                    view.scroll_to_line(program[0])

    def _compare_clicked(self, line: int) -> None:
        """A row of the compare layout was clicked: select its source line and show it."""
        self._selected = line if self.index is not None and line in self.index.source_lines else 0
        self._explicit = {}
        self._paint_active()
        if self._selected:
            self.editor.reveal_line(self._selected)

    def _pane_hovered(self, variant: str, text_line: int) -> None:
        ref = self.index.owner(variant, text_line) if self.index and text_line >= 0 else None
        self._set_hovered(ref.line if ref is not None and ref.line else 0)

    def _pane_clicked(self, variant: str, text_line: int) -> None:
        ref = self.index.owner(variant, text_line) if self.index else None
        line = ref.line if ref is not None and ref.line else 0
        self._selected = line
        self._explicit = {}
        self._paint_active()
        if line:
            self.editor.reveal_line(line)

    def _program_hovered(self, variant: str, view: str, text_line: int) -> None:
        line = self._located(variant, view).get(text_line, 0)
        self._set_hovered(line if self.index and line in self.index.source_lines else 0)

    def _program_clicked(self, variant: str, view: str, text_line: int) -> None:
        line = self._located(variant, view).get(text_line, 0)
        self._selected = line if self.index and line in self.index.source_lines else 0
        self._explicit = {}
        self._paint_active()
        if self._selected:
            self.editor.reveal_line(self._selected)

    def program_lines_for(self, variant: str, view: str, source_line: int) -> list[int]:
        """The lines of a pane's compiled program (``HLO``...) from a source line."""
        return sorted(n for n, line in self._located(variant, view).items()
                      if line == source_line)

    def _set_hovered(self, line: int) -> None:
        if line != self._hovered:
            self._hovered = line
            self._paint_active()

    def _paint_active(self) -> None:
        line = self.active_line
        index = self.index
        slot = index.colour_index(line) if index is not None and line else None
        strong = style.link_colour(slot, strong=True) if slot is not None else None
        self.editor.set_active_line(line if strong is not None else 0, strong)
        explicit = bool(self._explicit) and not self._hovered
        per_pane = dict(self._explicit) if explicit else {}
        if not explicit and strong is not None and index is not None:
            per_pane = index.text_lines_for(line)
        for variant, pane in self.area.panes.items():
            lines = per_pane.get(variant, [])
            colour = strong if strong is not None and not explicit else style.PHASE_COLOUR
            pane.jaxpr_view.set_line_backgrounds("active", {n: colour for n in lines})
            pane.jaxpr_view.set_outlined(_ranges(lines))
            for name, view in pane.program_views().items():
                program = (self.program_lines_for(variant, name, line)
                           if strong is not None and not explicit else [])
                view.set_line_backgrounds("active", {n: strong for n in program if strong})
                view.set_outlined(_ranges(program))
        self.area.compare.set_active_line(line if strong is not None else 0, strong)
        self.activeLineChanged.emit(line if strong is not None else 0)
