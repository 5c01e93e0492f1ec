"""The jaxpr panes side by side, or as tabs when the window is too narrow for them.

One :class:`~jaxviz.ui.panes.jaxpr_pane.JaxprPane` exists per variant for the
window's whole life; the area only decides which are visible and whether they
sit side by side in a splitter or in tabs. In "auto" layout the panes go into
tabs when each would be narrower than :data:`MIN_PANE_CHARS` characters of
code. The ``two panes`` layout shows two chosen variants side by side whatever
panes are visible (:meth:`JaxprArea.set_two_panes`): wide enough to read at a
projector's 1280x720. While two variants are compared, the compare layout
(:class:`~jaxviz.ui.compare.compare_view.CompareView`) takes the panes' place.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QSizePolicy, QSplitter, QStackedWidget, QTabWidget, QWidget

from jaxviz.model import VARIANTS, TraceResult, variant_label
from jaxviz.ui.compare.compare_view import CompareView
from jaxviz.ui.panes.jaxpr_pane import JaxprPane
from jaxviz.views.window.pane_layouts import PANE_LAYOUTS, TWO_PANES
from jaxviz.views.window.window_state import pane_order

#: Narrower panes than this many code characters switch "auto" layout to tabs.
MIN_PANE_CHARS = 26
LAYOUTS = PANE_LAYOUTS


class JaxprArea(QStackedWidget):
    """Holds the variant panes; shows the chosen ones side by side or as tabs."""

    #: The set of visible variants changed (by the user or an example).
    visibleChanged = Signal(list)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.panes: dict[str, JaxprPane] = {v: JaxprPane(v) for v in VARIANTS}
        self._splitter = QSplitter(Qt.Orientation.Horizontal)
        self._splitter.setChildrenCollapsible(False)
        self._tabs = QTabWidget()
        self._tabs.setObjectName("pane_tabs")
        self._parking = QWidget()  # holds hidden panes
        self._parking.hide()
        self.compare = CompareView()
        self.addWidget(self._splitter)
        self.addWidget(self._tabs)
        self.addWidget(self.compare)
        self._comparing = False
        self._panes_need_room(True)
        self._visible: list[str] = ["plain", "vmap", "pmap", "sharded"]
        #: Each pane's header minimum as last laid out side by side (see effective_mode).
        self._side_min: dict[str, int] = {}
        self._layout = "auto"
        self._two: tuple[str, str] = ("plain", "vmap")
        self._current: tuple | None = None
        self._zoom = 0
        self._relayout()

    # ----------------------------------------------------------- visibility
    @property
    def visible_variants(self) -> list[str]:
        """The visible variants, in pane order."""
        return list(self._visible)

    def set_visible_variants(self, variants: list[str]) -> None:
        chosen = pane_order(variants)
        if chosen != self._visible:
            self._visible = chosen
            self._relayout()
            self.visibleChanged.emit(list(chosen))

    def set_two_panes(self, left: str, right: str) -> None:
        """The two variants the ``two panes`` layout shows (left, right)."""
        if (left, right) != self._two:
            self._two = (left, right)
            self._relayout()

    def shown_variants(self) -> list[str]:
        """The variants whose panes are laid out now, in order."""
        return list(self._two) if self._layout == TWO_PANES else list(self._visible)

    def set_variant_visible(self, variant: str, visible: bool) -> None:
        wanted = set(self._visible)
        wanted.add(variant) if visible else wanted.discard(variant)
        self.set_visible_variants(list(wanted))

    # -------------------------------------------------------------- compare
    @property
    def comparing(self) -> bool:
        """Whether the compare layout shows instead of the panes."""
        return self._comparing

    def show_compare(self, left: str, right: str) -> None:
        """Show the compare layout of ``left`` and ``right`` in the panes' place."""
        self._comparing = True
        self._panes_need_room(False)
        self.compare.set_pair(left, right)
        self.setCurrentWidget(self.compare)

    def show_compare_result(self, result: TraceResult) -> None:
        """A new result: the compare layout shows its diff if open (else the window gives
        it the result when it opens)."""
        if self._comparing:
            self.compare.show_result(result)

    def close_compare(self) -> None:
        """Back to the panes."""
        self._comparing = False
        self._panes_need_room(True)
        self._current = None
        self._relayout()

    def _panes_need_room(self, need: bool) -> None:
        """Only the pages in use hold the window's size (a stack is as large as its largest
        page unless that page's size is ignored): the panes, or the comparison."""
        shown = QSizePolicy.Policy.Preferred
        hidden = QSizePolicy.Policy.Ignored
        for page in (self._splitter, self._tabs):
            page.setSizePolicy(shown if need else hidden, shown if need else hidden)
        self.compare.setSizePolicy(hidden if need else shown, hidden if need else shown)

    # --------------------------------------------------------------- layout
    @property
    def layout_mode(self) -> str:
        return self._layout

    def set_layout_mode(self, mode: str) -> None:
        """``auto``, ``side by side``, ``tabs`` or ``two panes``."""
        if mode in LAYOUTS and mode != self._layout:
            self._layout = mode
            self._relayout()

    def effective_mode(self, variants: list[str] | None = None) -> str:
        """``side by side`` or ``tabs``, as laid out now (two panes: side by side), or as
        ``variants`` would be laid out if they were the visible ones."""
        visible = self._visible if variants is None else pane_order(variants)
        if self._layout == TWO_PANES:
            return "side by side"
        if self._layout != "auto":
            return self._layout
        if len(visible) <= 1:
            return "side by side"
        char = self.panes["plain"].jaxpr_view.fontMetrics().horizontalAdvance("m")
        per_pane = self.width() / len(visible)
        if per_pane < MIN_PANE_CHARS * char:
            return "tabs"
        # Side by side, the panes' header minimums add up: more than the area can get
        # (its width, and what its splitter's siblings can give up) would widen the
        # window past the screen. Tabs before that.
        n = len(visible)
        headers = sum(max(self.panes[v].minimumSizeHint().width(), self._side_min.get(v, 0))
                      for v in visible) \
            + n * (self._splitter.handleWidth() + 4)  # the handles and the frames
        return "tabs" if headers > self.width() + self._room_beside() else "side by side"

    def _room_beside(self) -> int:
        """How much narrower the widgets beside the area in its splitter may get."""
        splitter = self.parentWidget()
        if not isinstance(splitter, QSplitter):
            return 0
        siblings = [splitter.widget(i) for i in range(splitter.count())]
        return sum(max(0, w.width() - w.minimumSizeHint().width())
                   for w in siblings if w is not None and w is not self)

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._relayout()

    def _relayout(self) -> None:
        mode = self.effective_mode()
        shown = self.shown_variants()
        key = (mode, tuple(shown))
        if key == self._current:
            return
        self._current = key
        wanted = [self.panes[v] for v in shown]
        for pane in self.panes.values():
            pane.set_compact(mode == "tabs")  # the tab names the variant
        # Only the panes that change place move: re-adding every pane on every change
        # cost a switch of examples 30 ms of reparenting and tab building per layout.
        if mode == "tabs":
            for pane in self._splitter_panes():
                pane.setParent(self._parking)
            for pane in [p for p in self._tab_panes() if p not in wanted]:
                self._tabs.removeTab(self._tabs.indexOf(pane))
                pane.setParent(self._parking)
            for i, pane in enumerate(wanted):
                at = self._tabs.indexOf(pane)
                if at < 0:
                    self._tabs.insertTab(i, pane, variant_label(pane.variant))
                elif at != i:
                    self._tabs.tabBar().moveTab(at, i)
                pane.show()
            self.setCurrentWidget(self._tabs)
        else:
            for pane in self._tab_panes():
                pane.setParent(self._parking)
            self._tabs.clear()
            # the panes not shown stay in the splitter, hidden (a hidden widget takes no room
            # there): moving a pane to another parent restyles its every widget, 6 ms a pane
            for i, pane in enumerate(wanted):
                if self._splitter.indexOf(pane) != i:
                    self._splitter.insertWidget(i, pane)
                pane.show()
                # its header's minimum side by side (in tabs it is compact, narrower)
                self._side_min[pane.variant] = pane.minimumSizeHint().width()
            for pane in self._splitter_panes()[len(wanted):]:
                pane.hide()
            self._splitter.setSizes([1000] * len(shown)
                                    + [0] * (self._splitter.count() - len(shown)))
            self.setCurrentWidget(self._splitter)
        self.refresh_tab_titles()
        self._apply_zoom()
        if self._comparing:
            self.setCurrentWidget(self.compare)

    def _tab_panes(self) -> list[JaxprPane]:
        return [w for w in (self._tabs.widget(i) for i in range(self._tabs.count()))
                if isinstance(w, JaxprPane)]

    def _splitter_panes(self) -> list[JaxprPane]:
        return [w for w in (self._splitter.widget(i) for i in range(self._splitter.count()))
                if isinstance(w, JaxprPane)]

    def refresh_tab_titles(self) -> None:
        """Tab titles carry a warning sign for variants that failed."""
        for i in range(self._tabs.count()):
            pane = self._tabs.widget(i)
            if isinstance(pane, JaxprPane):
                self._tabs.setTabText(i, ("⚠ " if pane.error_text else "")
                                     + variant_label(pane.variant))

    def show_pane(self, variant: str) -> None:
        """Bring a pane to the front (in tabs mode)."""
        pane = self.panes[variant]
        if self._tabs.indexOf(pane) >= 0:
            self._tabs.setCurrentWidget(pane)

    def set_zoom(self, zoom: int) -> None:
        self._zoom = zoom
        self._side_min.clear()  # measured again at this text size
        self._current = None
        self._relayout()
        self._apply_zoom()

    def _apply_zoom(self) -> None:
        # After every reparenting: under an application style sheet a moved widget
        # re-resolves its font from its new parent.
        for pane in self.panes.values():
            pane.set_zoom(self._zoom)
        # Zoomed in, the area may be as narrow as one pane (the panes become tabs): on a
        # small screen the window still fits it. Unzoomed, the panes' headers keep theirs.
        # (0: no explicit minimum, the layout's own applies again)
        self.setMinimumWidth(max((self.panes[v].minimumSizeHint().width()
                                  for v in self._visible), default=0) if self._zoom > 0 else 0)
        self.compare.set_zoom(self._zoom)
