"""The jaxpr panes side by side, or as tabs when the window is too narrow for them.

One :class:`~jaxviz.ui.panes.jaxpr_pane.JaxprPane` exists per variant for the
window's whole life, and every one of them lives in one splitter for that whole
life: the area only decides which are shown and whether they sit side by side or
as tabs. "Tabs" are a tab bar above the same splitter, showing the one pane its
current tab names -- so a change of layout only shows and hides panes, and no pane
is ever moved to another parent (a moved pane restyles every widget it holds, about
6 ms a pane: switching examples between layouts cost 60 ms of one event-loop turn).
In "auto" layout the panes go into tabs when each would be narrower than
:data:`MIN_PANE_CHARS` characters of code. The ``two panes`` layout shows two chosen
variants side by side whatever panes are visible (:meth:`JaxprArea.set_two_panes`):
wide enough to read at a projector's 1280x720. While two variants are compared, the
compare layout (:class:`~jaxviz.ui.compare.compare_view.CompareView`) takes the
panes' place.

What goes into a pane goes through :meth:`JaxprArea.fill`: a clear of a pane on screen
at once; a result in the turns after the one it arrives in, one pane a turn, alone, the
panes in view first (a :class:`~jaxviz.ui.sliced.SlicedJob`), and a pane not shown (a
tab behind, a pane hidden) when it is first shown if that comes sooner.

While an example opens, the area is *covered* (:meth:`JaxprArea.cover`): one plain
surface saying the new document is not traced yet hides every pane, so the turn that
opens it neither clears the panes in view nor paints them (3 ms of a 12 ms turn on a
2-core machine); they are cleared behind it, laid out for the new document, and shown
again by :meth:`JaxprArea.uncover`, a turn later -- nothing of the last document is seen
meanwhile.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

from PySide6.QtCore import QCoreApplication, QEvent, Qt, Signal
from PySide6.QtGui import QKeySequence, QPalette, QShortcut
from PySide6.QtWidgets import (
    QLabel,
    QSizePolicy,
    QSplitter,
    QStackedWidget,
    QTabBar,
    QVBoxLayout,
    QWidget,
)

from jaxviz.model import VARIANTS, TraceResult, variant_label
from jaxviz.ui.compare.compare_view import CompareView
from jaxviz.ui.panes.jaxpr_pane import JaxprPane
from jaxviz.ui.sliced import SlicedJob
from jaxviz.ui.text.text_base import laid_out_once
from jaxviz.ui.theme import style
from jaxviz.views.incremental import OWN_TURN, Steps
from jaxviz.views.window.pane_layouts import PANE_LAYOUTS, TWO_PANES
from jaxviz.views.window.window_state import pane_order

#: Narrower panes than this many code characters switch "auto" layout to tabs.
MIN_PANE_CHARS = 26
LAYOUTS = PANE_LAYOUTS


class JaxprArea(QStackedWidget):
    """Holds the variant panes; shows the chosen ones side by side or as tabs."""

    #: The set of visible variants changed (by the user or an example).
    visibleChanged = Signal(list)
    #: The panes in view have everything they were given (after the fill that did it).
    inViewFilled = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.panes: dict[str, JaxprPane] = {v: JaxprPane(v) for v in VARIANTS}
        self._splitter = QSplitter(Qt.Orientation.Horizontal)
        self._splitter.setChildrenCollapsible(False)
        for pane in self.panes.values():  # each pane's place for the window's whole life
            self._splitter.addWidget(pane)
            pane.hide()
        #: In tabs, the tab bar above the splitter: its current tab is the one pane shown.
        self._tabs = style.style_tabs(QTabBar())
        self._tabs.setObjectName("pane_tabs")
        self._tabs.setExpanding(False)
        self._tabs.setDrawBase(True)
        self._tabs.setUsesScrollButtons(True)
        self._tabs.currentChanged.connect(self._tab_chosen)
        self._tabs.hide()
        # what a QTabWidget gives: Ctrl+Tab / Ctrl+Shift+Tab bring the next / previous tab
        # to the front while the focus is in the panes
        for keys, step in (("Ctrl+Tab", 1), ("Ctrl+Shift+Tab", -1)):
            shortcut = QShortcut(QKeySequence(keys), self)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.activated.connect(lambda step=step: self._next_tab(step))
        self._page = QWidget()  # the panes' page: the tab bar (in tabs) over the splitter
        page = QVBoxLayout(self._page)
        page.setContentsMargins(0, 0, 0, 0)
        page.setSpacing(0)
        page.addWidget(self._tabs)
        page.addWidget(self._splitter, 1)
        self.compare = CompareView()
        self.addWidget(self._page)
        self.addWidget(self.compare)
        self._comparing = False
        self._panes_need_room(True)
        self._visible: list[str] = ["plain", "vmap", "pmap", "sharded"]
        #: Each pane's header minimum as last laid out side by side (see effective_mode).
        self._side_min: dict[str, int] = {}
        self._layout = "auto"
        self._two: tuple[str, str] = ("plain", "vmap")
        self._current: tuple | None = None
        self._compact: bool | None = None
        self._zoom = 0
        #: What each pane not shown is still to be given (see :meth:`fill`), in order.
        self._pending: dict[str, list[Callable[[JaxprPane], None]]] = {}
        self._filling: SlicedJob | None = None
        self._held = 0  # inside holding(): no pane is filled until it ends
        #: Over every pane while a document opens (see :meth:`cover`).
        self._cover = QLabel(self)
        self._cover.setObjectName("panes_cover")
        self._cover.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._cover.setWordWrap(True)
        self._cover.setAutoFillBackground(True)  # opaque: Qt paints nothing under it
        self._cover.setBackgroundRole(QPalette.ColorRole.Base)
        style.set_role(self._cover, "pane-note")
        self._cover.hide()
        self.set_zoom(0)  # lays the panes out

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
        self._page.setSizePolicy(shown if need else hidden, shown if need else hidden)
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
        if not self.in_tabs():  # the panes side by side now: their headers as laid out
            for v in visible:
                if self.is_shown(v):
                    self._side_min[v] = self.panes[v].minimumSizeHint().width()
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
        self._cover.setGeometry(self.rect())
        self._relayout()

    def _relayout(self) -> None:
        mode = self.effective_mode()
        shown = self.shown_variants()
        key = (mode, tuple(shown))
        if key == self._current:
            return
        self._current = key
        with self._laid_out_once():
            self._lay_out(mode == "tabs", shown)

    @contextlib.contextmanager
    def _laid_out_once(self) -> Iterator[None]:
        """Each text view resized by the block laid out once, at its last size: the layouts
        Qt posts meanwhile (the splitter's, with the handles between the panes shown) done
        in the block, not a turn later (see :func:`~jaxviz.ui.text.text_base.laid_out_once`)."""
        with laid_out_once():
            yield
            QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)

    def _lay_out(self, tabs: bool, shown: list[str]) -> None:
        if tabs != self._compact:
            self._compact = tabs
            for pane in self.panes.values():
                pane.set_compact(tabs)  # the tab names the variant
        # The shown panes first, in order (a move within the splitter keeps the parent).
        for i, variant in enumerate(shown):
            if self._splitter.indexOf(self.panes[variant]) != i:
                self._splitter.insertWidget(i, self.panes[variant])
        if tabs:
            if self._tabs.isHidden():  # tabs anew: the first in front (files may choose)
                while self._tabs.count():
                    self._tabs.removeTab(0)
            front = self._sync_tabs(shown)
            self._show_only([front] if front else [])
            self._tabs.show()
        else:
            self._tabs.hide()
            self._show_only(shown)
        self.refresh_tab_titles()
        self._fit_minimum_width()
        self.setCurrentWidget(self.compare if self._comparing else self._page)

    def _sync_tabs(self, shown: list[str]) -> str | None:
        """The tab bar's tabs become ``shown``'s (in order); returns the variant in front
        (the one in front before, if it is still a tab)."""
        bar = self._tabs
        front = self.front_variant()
        bar.blockSignals(True)
        try:
            for i, variant in enumerate(shown):
                at = self._tab_index(variant)
                if at < 0:
                    bar.insertTab(i, variant_label(variant))
                    bar.setTabData(i, variant)
                elif at != i:
                    bar.moveTab(at, i)
            while bar.count() > len(shown):
                bar.removeTab(bar.count() - 1)
            if front not in shown:
                front = shown[0] if shown else None
            if front is not None:
                bar.setCurrentIndex(shown.index(front))
        finally:
            bar.blockSignals(False)
        return front

    def _tab_index(self, variant: str) -> int:
        return next((i for i in range(self._tabs.count())
                     if self._tabs.tabData(i) == variant), -1)

    def front_variant(self) -> str | None:
        """The variant of the tab in front (None without tabs)."""
        index = self._tabs.currentIndex()
        return self._tabs.tabData(index) if index >= 0 else None

    def in_tabs(self) -> bool:
        """Whether the panes are laid out as tabs now (the tab bar is up)."""
        return not self._tabs.isHidden()

    def tab_names(self) -> list[str]:
        """The tabs' titles, in order ([] side by side)."""
        return [self._tabs.tabText(i) for i in range(self._tabs.count())] \
            if self.in_tabs() else []

    def _next_tab(self, step: int) -> None:
        count = self._tabs.count()
        if self.in_tabs() and count > 1:
            self._tabs.setCurrentIndex((self._tabs.currentIndex() + step) % count)
            front = self.front_variant()
            if front is not None:  # the keys go on working from the pane now in front
                self.panes[front].jaxpr_view.setFocus()

    def _tab_chosen(self, index: int) -> None:
        variant = self._tabs.tabData(index) if index >= 0 else None
        if self.in_tabs() and isinstance(variant, str):
            with self._laid_out_once():
                self._show_only([variant])

    def _show_only(self, variants: list[str]) -> None:
        """Show the panes of ``variants`` (given what they still lack first), hide the rest."""
        for variant, pane in self.panes.items():
            if variant not in variants and not pane.isHidden():
                pane.hide()
        for variant in variants:
            if not self._held and not self.covered:
                self._fill_now(variant)
            self.panes[variant].show()
        # the shown panes share the width equally (a hidden one keeps none)
        self._splitter.setSizes([1000 if isinstance(w, JaxprPane) and w.variant in variants
                                 else 0 for w in (self._splitter.widget(i)
                                                  for i in range(self._splitter.count()))])
        self._splitter.updateGeometry()  # its minimum is the shown panes' (even unshown)
        for variant in variants:  # laid out at their new width now, not a turn later
            layout = self.panes[variant].layout()
            if layout is not None:
                layout.activate()

    def is_shown(self, variant: str) -> bool:
        """Whether ``variant``'s pane is laid out to be seen now (side by side, or the tab
        in front)."""
        return not self.panes[variant].isHidden()

    def in_view(self, variant: str) -> bool:
        """Whether ``variant``'s pane is seen now: laid out to be, and not covered."""
        return self._cover.isHidden() and self.is_shown(variant)

    # ---------------------------------------------------------------- cover
    def cover(self, message: str) -> None:
        """Hide every pane behind one plain surface saying ``message`` (a document opens):
        the panes are cleared, given and laid out behind it, and painted only when
        :meth:`uncover` shows them."""
        self._cover.setText(message)
        self._cover.setGeometry(self.rect())
        self._cover.raise_()
        self._cover.show()

    def uncover(self) -> None:
        """Show the panes again, the ones in view given what they wait for first."""
        if self._cover.isHidden():
            return
        self._cover.hide()
        if not self._held:  # (else the held block's end does it)
            self._fill_in_view()

    @property
    def covered(self) -> bool:
        """Whether the panes are hidden behind the cover (a document opening)."""
        return not self._cover.isHidden()

    # ----------------------------------------------------------------- fill
    def fill(self, variant: str, put: Callable[[JaxprPane], None], fresh: bool = False,
             small: bool = False) -> None:
        """Give ``variant``'s pane new content, after what it was given before (``fresh``:
        ``put`` replaces it all, e.g. a clear). A clear runs now if the pane is shown
        (nothing of the last document stays in view); other content in the next turns of
        the event loop, one pane a turn, alone, the panes in view first -- or when the pane
        is shown. A pane's new jaxpr and its first paint are most of a frame (5-35 ms with
        its marks, folds and colours): the turn a result comes in, which every view spends
        on its first changes, does not fill one too. A ``small`` change (a banner, dimming)
        is made now unless the pane still waits for earlier content."""
        pane = self.panes.get(variant)
        if pane is None:
            return
        if small and variant not in self._pending and not self._held:
            put(pane)
            return
        queue = self._pending.setdefault(variant, [])
        if fresh:
            queue.clear()
        queue.append(put)
        if fresh and not self._held and self.in_view(variant):
            self._fill_now(variant)
        else:
            self._fill_later()

    def _fill_later(self) -> None:
        if self._pending and (self._filling is None or not self._filling.busy):
            self._filling = SlicedJob(self._fill_steps(), parent=self)
            self._filling.start()

    @contextlib.contextmanager
    def holding(self) -> Iterator[None]:
        """Fill no pane until the block ends, then the panes in view: a document opened and
        its panes laid out in the block, each pane in view does only what it shows at the
        end (not the last document's clear, then its own layout's)."""
        self._held += 1
        try:
            yield
        finally:
            self._held -= 1
            if not self._held:
                self._fill_in_view()

    def _fill_in_view(self) -> None:
        """The panes in view get what they wait for now; the others in later turns."""
        for variant in [v for v in self._pending if self.in_view(v)]:
            self._fill_now(variant)
        self._fill_later()

    @property
    def filling(self) -> bool:
        """Whether a pane is still to get what it was given."""
        return bool(self._pending)

    def in_view_waiting(self) -> bool:
        """Whether a pane in view is still to get what it was given."""
        return any(self.in_view(v) for v in self._pending)

    def _fill_now(self, variant: str) -> None:
        for put in self._pending.pop(variant, ()):
            put(self.panes[variant])
        if self._tabs.count():
            self.refresh_tab_titles()
        if not self.in_view_waiting():
            self.inViewFilled.emit()

    def _fill_steps(self) -> Steps[None]:
        """The panes waiting for content get it, one pane a step, those in view first, each
        alone in a turn of the event loop (its paint follows it)."""
        while self._pending:
            yield OWN_TURN
            if not self._pending:
                return  # (filled meanwhile: shown, or in a held block's end)
            # in view first, then laid out (behind the cover), then the rest, in order
            self._fill_now(min(self._pending,
                               key=lambda v: (not self.in_view(v), not self.is_shown(v))))

    def _splitter_panes(self) -> list[JaxprPane]:
        return [w for w in (self._splitter.widget(i) for i in range(self._splitter.count()))
                if isinstance(w, JaxprPane)]

    def refresh_tab_titles(self) -> None:
        """Tab titles carry a warning sign for variants that failed."""
        for i in range(self._tabs.count()):
            variant = self._tabs.tabData(i)
            pane = self.panes.get(variant) if isinstance(variant, str) else None
            if pane is not None:
                title = ("⚠ " if pane.error_text else "") + variant_label(pane.variant)
                if self._tabs.tabText(i) != title:
                    self._tabs.setTabText(i, title)

    def show_pane(self, variant: str) -> None:
        """Bring a pane to the front (in tabs mode)."""
        at = self._tab_index(variant)
        if at >= 0:
            self._tabs.setCurrentIndex(at)

    def set_zoom(self, zoom: int) -> None:
        self._zoom = zoom
        self._side_min.clear()  # measured again at this text size
        for pane in self.panes.values():
            pane.set_zoom(zoom)
        self.compare.set_zoom(zoom)
        self._current = None
        self._relayout()
        self._fit_minimum_width()

    def _fit_minimum_width(self) -> None:
        # Zoomed in, the area may be as narrow as one pane (the panes become tabs): on a
        # small screen the window still fits it. Unzoomed, the panes' headers keep theirs.
        # (0: no explicit minimum, the layout's own applies again)
        self.setMinimumWidth(max((self.panes[v].minimumSizeHint().width()
                                  for v in self._visible), default=0) if self._zoom > 0 else 0)
