"""The projection panel of the timing view: the projected timeline and the what-if plot.

Beside the measured plots, never on them. The panel asks the engine for each
timed variant's compiled costs (a :class:`~jaxviz.model.TraceRequest` wanting
``cost``; the engine compiles the variant and reads its HLO) and projects them
onto the chip picked here with :func:`jaxviz.model.cost_model.project` -- the
function ``jaxviz cost`` uses. The what-if tab starts its own engine with
``max(N)`` simulated CPU devices on demand and compiles the variants at each N
(:class:`~jaxviz.model.what_if.WhatIfRequest`). Nothing here waits: replies
arrive as Qt signals.
"""

from __future__ import annotations

import dataclasses
import math
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QPointF, Qt, Signal
from PySide6.QtGui import QFontInfo, QHelpEvent, QPainter
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QTabWidget,
    QToolButton,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from jaxviz.model.chips import Chip, load_chips
from jaxviz.model.engine import Reply
from jaxviz.model.program import ProgramCosts
from jaxviz.model.records import TraceRequest, TraceResult
from jaxviz.model.what_if import (
    DEFAULT_COUNTS,
    MULTI_DEVICE,
    WhatIfRequest,
    WhatIfResult,
    parse_counts,
)
from jaxviz.ui.theme import style
from jaxviz.ui.timing import cost_exports
from jaxviz.ui.timing.cost_figures import (
    WHAT_IF_LINES,
    paint_projected,
    paint_what_if,
    projected_height,
)
from jaxviz.views.timing.projected import TRACED, WHY_NOT, ProjectedTimeline, projected_timeline

#: Seconds the engine may take to compile the variants for the projection / the what-if.
PROJECT_TIMEOUT = 300.0
WHAT_IF_TIMEOUT = 900.0


class _Relay(QObject):
    """Carries a reply from the engine client's thread to the GUI thread."""

    arrived = Signal(object, object)  # (the request's token, its Reply)


def screen_px(widget: QWidget) -> float:
    """The pixel height of ``widget``'s font: the smallest text a figure draws on screen."""
    return float(QFontInfo(widget.font()).pixelSize())


def _scrolled(canvas: QWidget) -> QScrollArea:
    """``canvas`` in a frameless scroll area that gives it the width and scrolls its height."""
    area = QScrollArea()
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setWidget(canvas)
    return area


class ProjectedCanvas(QWidget):
    """Paints the projected timeline; the formula of a bar on hover."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("projected_canvas")
        self.timeline: ProjectedTimeline | None = None
        self.message = ("Run (or Project) to see what the ticked variants would take on the "
                        "chip picked above: a roofline of each compiled program, not a "
                        "measurement.")
        self.hits: list = []
        self.setMouseTracking(True)
        self.setMinimumHeight(160)

    def set_timeline(self, timeline: ProjectedTimeline | None, message: str = "") -> None:
        self.timeline = timeline
        self.message = message
        # on screen the figure's text is never smaller than the window's: it grows (and
        # its scroll area scrolls) rather than shrinking to fit a small screen
        variants = len(timeline.variants) if timeline is not None else 0
        self.setMinimumHeight(max(160, projected_height(variants, screen_px(self))))
        self.update()

    def paintEvent(self, _event) -> None:  # noqa: N802 - Qt's name
        p = QPainter(self)
        try:
            if self.timeline is None:
                p.fillRect(self.rect(), Qt.GlobalColor.white)
                p.drawText(self.rect(), int(Qt.AlignmentFlag.AlignCenter |
                                            Qt.TextFlag.TextWordWrap), self.message)
                self.hits = []
                return
            self.hits = paint_projected(p, (self.width(), self.height()), self.timeline,
                                        min_px=screen_px(self))
        finally:
            p.end()

    def hover_text(self, at: QPointF) -> str:
        for rect, text in self.hits:
            if rect.contains(at):
                return text
        return ""

    def event(self, e) -> bool:  # noqa: D102
        if e.type() == e.Type.ToolTip and isinstance(e, QHelpEvent):
            text = self.hover_text(QPointF(e.pos()))
            if text:
                QToolTip.showText(e.globalPos(), text, self)
            else:
                QToolTip.hideText()
            return True
        return super().event(e)


class WhatIfCanvas(QWidget):
    """Paints the what-if plot."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("what_if_canvas")
        self.result: WhatIfResult | None = None
        self.chip: Chip | None = None
        self.message = ("Press Compute: the variants are compiled again at each device count "
                        "(an engine with that many simulated CPU devices; compile only).")
        self.setMinimumHeight(160)

    def set_result(self, result: WhatIfResult | None, chip: Chip | None,
                   message: str = "") -> None:
        self.result, self.chip, self.message = result, chip, message or self.message
        if result is not None:
            self.setMinimumHeight(max(160, math.ceil(screen_px(self) * WHAT_IF_LINES)))
        self.update()

    def paintEvent(self, _event) -> None:  # noqa: N802 - Qt's name
        p = QPainter(self)
        try:
            if self.result is None or self.chip is None:
                p.fillRect(self.rect(), Qt.GlobalColor.white)
                p.drawText(self.rect(), int(Qt.AlignmentFlag.AlignCenter |
                                            Qt.TextFlag.TextWordWrap), self.message)
                return
            paint_what_if(p, (self.width(), self.height()), self.result, self.chip,
                          min_px=screen_px(self))
        finally:
            p.end()


class ProjectionPanel(QWidget):
    """A chip picker, the projected timeline and the what-if plot, with their exports.

    Signals:
        projected(ProjectedTimeline): a new projection is shown.
    """

    projected = Signal(object)
    #: The plots under the bar were shown (the timing view gives them height).
    unfolded = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("projection_panel")
        self.chips: dict[str, Chip] = load_chips()
        self.engine: Any = None
        self.what_if_engine: Any = None
        self._target: TraceRequest | None = None
        self._variants: list[str] = []
        self._programs: dict[str, ProgramCosts | str] = {}
        self._pending: object | None = None
        self._relay = _Relay(self)
        self._relay.arrived.connect(self._on_reply)
        self._what_if_pending: int | None = None
        self._stale = True
        #: Where Project reads the variants ticked now (the timing controls), if anywhere.
        self.current_variants: Callable[[], list[str]] | None = None
        self.timeline: ProjectedTimeline | None = None
        self.what_if: WhatIfResult | None = None
        self._build()

    def _build(self) -> None:
        bar = QHBoxLayout()
        bar.setContentsMargins(4, 2, 4, 2)
        bar.addWidget(QLabel("Projected on"))
        self.chip_box = QComboBox()
        self.chip_box.setObjectName("projection_chip")
        for key, chip in self.chips.items():
            self.chip_box.addItem(chip.name, key)
        self.chip_box.setCurrentIndex(max(0, self.chip_box.findData("h100")))
        self.chip_box.setToolTip("The chip preset the compiled programs are projected onto "
                                 "(a roofline from jaxviz's chips.toml, each number sourced)")
        bar.addWidget(self.chip_box)
        self.status = QLabel("")
        self.status.setObjectName("projection_status")
        self.status.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        bar.addWidget(self.status, 1)
        self.counts = QLineEdit(",".join(map(str, DEFAULT_COUNTS)))
        self.counts.setObjectName("what_if_counts")
        self.counts.setToolTip("The device counts the what-if compiles for")
        self.counts.setMinimumWidth(self.counts.fontMetrics().horizontalAdvance(
            self.counts.text()) + 16)
        self.compute = QPushButton("Compute what-if")
        self.compute.setObjectName("what_if_compute")
        self.export_button = QToolButton()
        self.export_button.setText("Export…")
        self.export_button.setObjectName("projection_export")
        self.export_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.export_button.setMenu(cost_exports.export_menu(self, self.export_dialog))
        self.project = QPushButton("Project")
        self.project.setObjectName("projection_project")
        self.project.setToolTip("Compile the ticked variants and project them onto the chip "
                                "(Run does this too, after measuring)")
        self.project.clicked.connect(lambda: self.request_costs())
        bar.addWidget(self.project)
        bar.addWidget(QLabel("N ="))
        bar.addWidget(self.counts)
        bar.addWidget(self.compute)
        bar.addWidget(self.export_button)
        self.tabs = QTabWidget()
        self.tabs.setObjectName("projection_tabs")
        style.style_tabs(self.tabs.tabBar())
        self.canvas = ProjectedCanvas()
        self.what_if_canvas = WhatIfCanvas()
        self.tabs.addTab(_scrolled(self.canvas), "Projected timeline")
        self.tabs.addTab(_scrolled(self.what_if_canvas), "What-if: N devices")
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(0)
        box.addLayout(bar)
        box.addWidget(self.tabs, 1)
        # Folded to its bar until a projection is asked for: the measured plots keep the
        # height (a docked view on a projector has little of it).
        self.tabs.hide()
        self.status.setText("not projected yet")
        self.status.setToolTip("Project (or Run) compiles the ticked variants and shows what "
                               "they would take on the chip picked here: a roofline, not a "
                               "measurement")
        self.setMaximumHeight(self.sizeHint().height())
        self.chip_box.currentIndexChanged.connect(self._reproject)
        self.compute.clicked.connect(self.run_what_if)

    @property
    def folded(self) -> bool:
        """Whether only the bar shows (nothing projected or asked for yet)."""
        return self.tabs.isHidden()

    def unfold(self) -> None:
        """Show the plots under the bar (a projection or a what-if was asked for)."""
        if not self.folded:
            return
        self.tabs.show()
        self.setMaximumHeight(16777215)  # QWIDGETSIZE_MAX
        self.unfolded.emit()

    # ------------------------------------------------------------ inputs
    @property
    def chip(self) -> Chip:
        return self.chips[self.chip_box.currentData()]

    def set_chip(self, key: str) -> None:
        self.chip_box.setCurrentIndex(self.chip_box.findData(key))

    def set_engine(self, engine) -> None:
        """Compile in ``engine`` (the window's :class:`~jaxviz.ui.qt_engine.QtEngine`)."""
        self.engine = engine

    def set_target(self, request: TraceRequest | None, variants: list[str]) -> None:
        """The function and the timing variants to project next (Run or Project asks the
        engine: nothing is compiled for a view nobody asked to project)."""
        key = (request, tuple(variants))
        if request is not None and key == (self._target, tuple(self._variants)):
            return
        self._target, self._variants = request, list(variants)
        self._stale = True

    # ------------------------------------------------------------ the projection
    def request_costs(self, ticked: bool = True, show: bool = True) -> bool:
        """Ask the engine to compile the variants and read their costs: those ticked now
        (``ticked``), else the ones last set (:meth:`set_target`: the run's). ``show``:
        unfold the panel for it (Project does; a Run's projection leaves the layout as it
        is and says in the bar that it is ready)."""
        if ticked and self.current_variants is not None:
            self._variants = list(self.current_variants())
        if self._target is None or self.engine is None:
            return False
        self._stale = False
        traced: list[str] = []
        self._programs = {}
        for v in self._variants:
            t = TRACED.get(v, v)
            if t is None:
                self._programs[v] = WHY_NOT.get(v, "no compiled program")
            elif t not in traced:
                traced.append(t)
        if not traced:
            self._show()
            return False
        req = dataclasses.replace(self._target, variants=traced, want=["jaxpr", "cost"])
        if show:
            self.unfold()
        self.status.setText("compiling the variants for the projection…")
        token = object()
        self._pending = token
        # Through the engine's worker client: the reply comes back here alone, never on
        # the engine's ``replied`` (the window's session and others never see it). Its
        # submit only queues; the short thread keeps the GUI thread from calling it.
        client = self.engine.worker_client()
        relay = self._relay
        threading.Thread(target=lambda: client.submit(
            req, lambda reply: relay.arrived.emit(token, reply), timeout=PROJECT_TIMEOUT),
            name="jaxviz-projection", daemon=True).start()
        return True

    def _on_reply(self, token: object, reply: Reply) -> None:
        if token is not self._pending:
            return
        self._pending = None
        result = reply.result
        if not reply.ok or not isinstance(result, TraceResult) or result.error is not None:
            why = (reply.error or (result.error if isinstance(result, TraceResult) else None))
            self.status.setText("")
            self.canvas.set_timeline(None, "No projection: " + (why.message if why else
                                                                  "the engine gave no reason"))
            return
        by_traced = {vr.variant: vr for vr in result.variants}
        programs: dict[str, ProgramCosts | str] = {}
        for v in self._variants:
            t = TRACED.get(v, v)
            if t is None:
                programs[v] = WHY_NOT.get(v, "no compiled program")
                continue
            vr = by_traced.get(t)
            if vr is None or vr.program is None:
                programs[v] = (vr.error.message if vr is not None and vr.error is not None
                               else "no costs")
            else:
                programs[v] = vr.program
        self._programs = programs
        self.status.setText(f"projected on {self.chip.name}: Project shows it" if self.folded
                            else "")
        self._show()

    def set_programs(self, programs: dict[str, ProgramCosts | str]) -> None:
        """Show these compiled costs (per timing variant, or why none)."""
        self._programs = dict(programs)
        self._stale = False
        self._show()

    def _reproject(self) -> None:
        if self.timeline is not None:
            self._show()
        if self.what_if is not None:
            self.what_if_canvas.set_result(self.what_if, self.chip)

    def _show(self) -> None:
        self.timeline = projected_timeline(self._programs, self.chip)
        self.canvas.set_timeline(self.timeline)
        self.projected.emit(self.timeline)

    # ------------------------------------------------------------ the what-if
    def run_what_if(self) -> bool:
        """Compile the multi-device variants at each N in an engine of max(N) devices."""
        if self._target is None:
            self.what_if_canvas.set_result(None, None, "Nothing to project yet: open an "
                                                       "example or a file.")
            return False
        try:
            counts = parse_counts(self.counts.text())
        except ValueError as exc:
            self.status.setText(f"N: {exc}")
            return False
        variants = [v for v in ("vmap", *MULTI_DEVICE) if v in self._target.variants] or \
            [v for v in MULTI_DEVICE if v in {TRACED.get(x) for x in self._variants}] or \
            ["sharded"]
        req = WhatIfRequest(dataclasses.replace(self._target, variants=variants,
                                                want=["jaxpr", "cost"]), counts)
        engine = self._what_if_engine(max(counts))
        self.unfold()
        self.status.setText(f"compiling for {', '.join(map(str, counts))} devices…")
        self.compute.setEnabled(False)
        self.tabs.setCurrentIndex(1)  # the what-if (in its scroll area)
        self._what_if_pending = engine.submit(req, timeout=WHAT_IF_TIMEOUT)
        return True

    def _what_if_engine(self, devices: int):
        from jaxviz.ui.qt_engine import QtEngine

        if self.what_if_engine is None:
            self.what_if_engine = QtEngine(devices=devices, parent=self)
            self.what_if_engine.replied.connect(self._on_what_if)
            self.what_if_engine.start()
        elif self.what_if_engine.devices != devices:
            self.what_if_engine.restart(devices)
        return self.what_if_engine

    def _on_what_if(self, reply: Reply) -> None:
        if reply.id != self._what_if_pending:
            return
        self._what_if_pending = None
        self.compute.setEnabled(True)
        self.status.setText("")
        result = reply.result
        if not reply.ok or not isinstance(result, WhatIfResult) or result.error:
            why = (reply.error.message if reply.error else
                   result.error if isinstance(result, WhatIfResult) else "no result")
            self.what_if_canvas.set_result(None, None, f"No what-if: {why}")
            return
        self.set_what_if(result)

    def set_what_if(self, result: WhatIfResult) -> None:
        self.what_if = result
        self.what_if_canvas.set_result(result, self.chip)
        self.unfold()

    def stop(self, wait: bool = False) -> None:
        """Stop the what-if engine, if one was started (``wait``: until it has)."""
        if self.what_if_engine is not None:
            self.what_if_engine.stop(wait=wait)

    # ------------------------------------------------------------ export
    def export_dialog(self, subject: str, name: str) -> None:
        exporter = cost_exports.find_exporter(subject, name)
        path, _ = QFileDialog.getSaveFileName(self, exporter.description,
                                              exporter.default_name, exporter.file_filter)
        if path:
            self.export(subject, name, exporter.with_extension(path))

    def export(self, subject: str, name: str, path: str | Path) -> Path | None:
        """Write the projected timeline or the what-if in a format of the registry."""
        exporter = cost_exports.find_exporter(subject, name)
        if subject == "projection":
            if self.timeline is None:
                return None
            return exporter.write(self.timeline, path)
        if self.what_if is None:
            return None
        return exporter.write((self.what_if, self.chip), path)
