"""The compare layout in the window: opening, choosing, closing, and making room for it.

:class:`CompareMode` follows the window state's ``compared`` pair
(:class:`~jaxviz.views.window.window_state.WindowState`): a pair shows the compare
layout in the panes' place (:meth:`~jaxviz.ui.panes.area.JaxprArea.show_compare`),
None brings the panes back. View ▸ Compare Variants (Ctrl+D) and each pane's
Compare button set it (:func:`~jaxviz.views.compare.diff_layout.default_pair` picks the
pair), the layout's pickers change it, its Close button clears it. A compared
variant the last result lacks is traced (the request includes it).

Two sides of jaxpr need width: when the panes area is narrower than
:data:`WANTED_CHARS` characters a side, the editor gives up width (down to
:data:`EDITOR_MIN_CHARS`) and, if that is not enough, the gallery and arguments
panels are hidden, until the comparison closes. They need height too: when the
panes area is shorter than :data:`WANTED_ROWS` lines of jaxpr (and the compare
layout's header and words), the docked console/devices/timing tabs step aside
as well (a 1280x720 projector: ~16 lines -> ~27).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QDockWidget, QMainWindow, QSplitter

from jaxviz.ui.binding import follow
from jaxviz.ui.panes.area import JaxprArea
from jaxviz.ui.text.editor import CodeEditor
from jaxviz.views.window.window_state import WindowState

#: Characters of jaxpr each side of the compare layout should show.
WANTED_CHARS = 46
#: The editor keeps at least this many characters while the comparison takes room.
EDITOR_MIN_CHARS = 28
#: The docks hidden (and shown again after) when the editor alone cannot make room.
SIDE_PANELS = ("Gallery", "Arguments")
#: Lines of jaxpr the compare layout should show one above the other.
WANTED_ROWS = 24
#: The dock hidden (and shown again after) when the panes area is too short for them.
TOOLS_PANEL = "Console · Devices · Timing"
#: The compare layout's own lines beside the jaxpr (summary, legend, pickers, words, bar).
CHROME_LINES = 6


class CompareMode(QObject):
    """Ties the compare layout to the window state, the session and the main splitter."""

    def __init__(self, state: WindowState, frame: QMainWindow, *, area: JaxprArea,
                 editor: CodeEditor, splitter: QSplitter, docks: Mapping[str, QDockWidget],
                 schedule: Callable[[], object], set_status: Callable[..., object],
                 parent: QObject | None = None):
        """The compare layout of ``state.compared`` in ``area``, making room in ``frame``
        (its ``docks`` step aside, its ``splitter`` narrows the ``editor``).

        Args:
            schedule: asks for a trace (a compared variant not traced yet).
            set_status: a message for the status bar.
        """
        super().__init__(parent)
        self.state, self.frame, self.area, self.editor = state, frame, area, editor
        self.splitter, self.docks = splitter, docks
        self.schedule, self.set_status = schedule, set_status
        self._saved_sizes: list[int] | None = None
        self._hidden_docks: list[QDockWidget] = []
        follow(state, "compared", self.follow)
        area.compare.pairChosen.connect(self._chosen)
        area.compare.closeRequested.connect(self.close)
        for pane in area.panes.values():
            pane.compareRequested.connect(self.open_from)

    # ---------------------------------------------------------------- state
    def toggle(self) -> None:
        """Ctrl+D: compare (from the focused pane's variant), or back to the panes."""
        if self.state.compared is not None:
            self.close()
        else:
            self.open_from(self.state.focused_variant)

    def open_from(self, variant: str | None) -> None:
        """Compare ``variant`` (a pane's; None: the most telling) with its base variant."""
        from jaxviz.views.compare.diff_layout import default_pair  # on first use

        state = self.state
        result = state.result
        traced = [vr.variant for vr in result.variants if vr.ok] if result is not None else []
        pair = default_pair(variant, traced, state.visible_variants)
        if pair is None:
            self.set_status("Compare needs two variants that traced; show another "
                                   "pane (View ▸ Panes) and trace again.", error=True)
            return
        state.compared = pair

    def close(self) -> None:
        self.state.compared = None

    def _chosen(self, left: str, right: str) -> None:
        self.state.compared = (left, right)

    def follow(self, pair: tuple[str, str] | None) -> None:
        """Show the compare layout of ``pair``, or the panes (the state changed)."""
        if pair is None:
            if self.area.comparing:
                self._give_back_room()  # first: the panes lay out for the width they get back
                self.area.close_compare()
            return
        if not self.area.comparing:
            self._make_room()
        self.area.show_compare(*pair)
        result = self.state.result
        if result is not None:
            self.area.show_compare_result(result)  # the state's result, none kept from before
        if result is None or any(v not in [r.variant for r in result.variants] for v in pair):
            self.schedule()
        hidden = [what for what, hid in (("side panels", self.hid_side_panels),
                                         ("console tabs", self.hid_tools)) if hid]
        hidden_words = f" · {' and '.join(hidden)} hidden meanwhile" if hidden else ""
        self.set_status(f"comparing {pair[0]} with {pair[1]} · Ctrl+D: back to the panes"
                     f"{hidden_words}")

    # ---------------------------------------------------------------- room
    def _make_room(self) -> None:
        """Narrow the editor (and, if that is not enough, hide the side panels) for the sides;
        on a short window the tool tabs step aside too."""
        self._make_height()
        self._make_width()

    def _make_height(self) -> None:
        dock = self.docks.get(TOOLS_PANEL)
        if dock is None or not dock.isVisible() or dock.isFloating():
            return
        line = self.area.compare.columns.left.fontMetrics().lineSpacing()
        wanted = (WANTED_ROWS + CHROME_LINES) * line
        if self.splitter.height() >= wanted:
            return
        dock.hide()
        self._hidden_docks.append(dock)
        layout = self.frame.layout()
        if layout is not None:
            layout.activate()  # the splitter gets the dock's height now

    def _make_width(self) -> None:
        columns = self.area.compare.columns
        char = columns.left.fontMetrics().horizontalAdvance("m")
        wanted = 2 * (WANTED_CHARS * char + columns.left.gutter_width()) + columns.gutter.width()
        editor_min = EDITOR_MIN_CHARS * self.editor.fontMetrics().horizontalAdvance("m") \
            + self.editor.gutter_width()
        sizes = self.splitter.sizes()
        if len(sizes) != 2 or sizes[1] >= wanted:
            return
        self._saved_sizes = sizes
        if sizes[1] + sizes[0] - editor_min < wanted:
            side = [self.docks[name] for name in SIDE_PANELS
                    if name in self.docks and self.docks[name].isVisible()
                    and not self.docks[name].isFloating()]
            for dock in side:
                dock.hide()
            self._hidden_docks += side
            layout = self.frame.layout()
            if layout is not None:
                layout.activate()  # the splitter gets the docks' width now
            sizes = self.splitter.sizes()
        total = sum(sizes)
        editor = max(editor_min, min(sizes[0], total - wanted))
        self.splitter.setSizes([editor, total - editor])

    def _give_back_room(self) -> None:
        for dock in self._hidden_docks:
            dock.show()
        if self._hidden_docks:
            layout = self.frame.layout()
            if layout is not None:
                layout.activate()  # the docks take their width back before the split is set
        self._hidden_docks = []
        if self._saved_sizes is not None:
            self.splitter.setSizes(self._saved_sizes)
            self._saved_sizes = None

    @property
    def hid_side_panels(self) -> bool:
        """Whether the comparison hid the side panels to make room (it shows them again)."""
        return any(d is not self.docks.get(TOOLS_PANEL) for d in self._hidden_docks)

    @property
    def hid_tools(self) -> bool:
        """Whether the comparison hid the console/devices/timing tabs (it shows them again)."""
        return any(d is self.docks.get(TOOLS_PANEL) for d in self._hidden_docks)


def handlers(mode: CompareMode) -> Mapping[str, Any]:
    """The View menu's compare action (see :data:`~jaxviz.ui.window.actions.SHORTCUTS`)."""
    return {"compare": mode.toggle}
