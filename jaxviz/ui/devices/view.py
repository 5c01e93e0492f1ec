"""``DeviceView``: the animated device view widget (canvas + controls).

Example (docking it; the main window owns the result and the jaxpr panes):
    >>> view = DeviceView()                                        # doctest: +SKIP
    >>> view.phaseChanged.connect(jaxpr_panes.highlight_lines)     # doctest: +SKIP
    >>> view.set_result(result, "pmap")                            # doctest: +SKIP
    >>> view.play()                                                # doctest: +SKIP
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import cast

from PySide6.QtCore import QElapsedTimer, QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication, QKeyEvent, QMouseEvent, QPainter, QPixmap
from PySide6.QtWidgets import QFrame, QScrollArea, QSizePolicy, QSplitter, QVBoxLayout, QWidget

from jaxviz.model import TraceResult
from jaxviz.model.chips import Chip
from jaxviz.model.sizes import ANIMATION_SIZES, parse_size
from jaxviz.ui import gc_policy
from jaxviz.ui.devices.controls import ControlBar
from jaxviz.ui.devices.export import Renderer
from jaxviz.ui.devices.exporting import ViewExports
from jaxviz.ui.devices.multiprocess import VARIANT, MultiprocessRuns, multiprocess_example
from jaxviz.ui.devices.overview import GroupTree, ProgramStrip
from jaxviz.ui.devices.painter import ItemPainter
from jaxviz.ui.devices.projected import chip_preset, with_projections
from jaxviz.ui.exporters import find, for_suffix
from jaxviz.ui.keys import name_of
from jaxviz.ui.sliced import SlicedJob
from jaxviz.ui.text.plain import plain_tooltip
from jaxviz.views import palette
from jaxviz.views.devices import Phase, Scene, build_scene, empty_scene, geometry
from jaxviz.views.devices.build import scene_steps
from jaxviz.views.devices.follow import phase_of_equation
from jaxviz.views.devices.frames import FrameBuilder
from jaxviz.views.devices.overview import OVERVIEW_PHASES, build_overview
from jaxviz.views.incremental import OWN_TURN, Steps, run_to_end
from jaxviz.views.keys import CLICKER_MOVES, END, HOME

FRAME_MS = 16
#: Static layers kept (one is 3.7 MB at 1280x720; a train step has hundreds of phases).
KEPT_LAYERS = 6
#: Items of a static layer drawn between two looks at the clock while it is prepared in
#: steps, and the GUI thread's time one step draws for, at most (plus one batch): 150
#: items a step, as before, were 7-10 ms where they held the phase's caption and labels.
LAYER_ITEMS = 25
LAYER_STEP_MS = 1.5
#: Storyboards of this many steps on have their scene built in steps (see set_result),
#: and their layers drawn in steps (see _Canvas.in_steps).
STEPPED_SCENE = 200
#: The GUI thread's time given to drawing a layer ahead per turn of the event loop (ms):
#: a turn is this plus the step that crosses it (a new layout, up to 8 ms on a train step).
LAYER_SLICE_MS = 3.0


def _story_steps(result: TraceResult, variant: str) -> list:
    """The storyboard steps of a variant (empty without one)."""
    vr = next((v for v in result.variants if v.variant == variant), None)
    story = vr.storyboard if vr is not None else None
    return story.steps if story is not None else []


class _Canvas(QWidget):
    """Paints the current frame: a cached static layer per phase, then the moving parts."""

    def __init__(self, view: DeviceView):
        super().__init__(view)
        self.view = view
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMinimumSize(320, 200)
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent, True)
        self.setMouseTracking(True)
        self._key: tuple | None = None
        self._builder: FrameBuilder | None = None
        #: The static layers of the phases shown last (at most KEPT_LAYERS), oldest first.
        self._static: dict[int, QPixmap] = {}
        #: The phase whose layer is being drawn in steps (-1: none), and that job.
        self._prefetching = -1
        self._job: SlicedJob | None = None
        self._job_key: tuple | None = None
        #: The frame painted last: its static layer, the builder it was drawn by, its phase
        #: and time. A big program's frame whose layer is still being drawn in steps shows
        #: this one meanwhile (see :meth:`in_steps`).
        self._last: tuple[QPixmap, FrameBuilder, int, float] | None = None
        #: The view is arranging itself (the overview coming or going): the viewport's
        #: resizes meanwhile do not fit the height, the invalidate() that follows does.
        self.holding = False
        self.painter = ItemPainter()

    def invalidate(self) -> None:
        self._key = None
        self._static.clear()
        self._cancel_prefetch()
        self.fit_height()
        self.update()

    def body_px(self) -> float:
        """The window's body text in pixels (the view's font: the app font at the zoom),
        the smallest text the canvas draws."""
        font = self.view.font()
        px: float = font.pixelSize()
        if px <= 0:
            px = font.pointSizeF() * self.logicalDpiY() / 72.0
        return float(math.ceil(px - 0.01))

    def fit_height(self) -> None:
        """As tall as the view shows, or taller -- and then the view scrolls -- where the
        devices would otherwise get less than a text line of height each."""
        v = self.view
        if getattr(v, "scroller", None) is None:  # (the view is still being built)
            return
        width = max(v.scroller.viewport().width(), self.minimumWidth())
        height = max(v.scroller.viewport().height(), 1)
        px = self.body_px()
        unit = geometry.default_unit(width, height, px, v.font_scale)
        floor = max(min(px, unit), geometry.MIN_UNIT)
        need = geometry.needed_height(v.scene, width, floor, v.expanded, px, start=height)
        self.setMinimumHeight(max(int(need), 200))

    def _key_now(self) -> tuple:
        """What the builder and the layers drawn depend on, as they are now."""
        v = self.view
        return (self.width(), self.height(), v.theme, v.font_scale, self.body_px(),
                id(v.scene), self.devicePixelRatioF(), v.expanded)

    def builder(self) -> FrameBuilder:
        key = self._key_now()
        if key != self._key or self._builder is None:
            self._cancel_prefetch()
            self._rebuild(key)
        assert self._builder is not None
        return self._builder

    def _rebuild(self, key: tuple, lay: geometry.CanvasGeometry | None = None) -> None:
        """A new builder (the layout at the canvas's size, or ``lay`` made in steps by
        :meth:`_layout_steps`) for ``key``; no layer kept."""
        v = self.view
        px = self.body_px()
        if lay is None:
            lay = run_to_end(self._layout_steps())
        self._builder = FrameBuilder(v.scene, lay, palette.theme(v.theme).device_view)
        self.painter.family = v.font().family()
        self.painter.floor = px
        self._static.clear()
        self._key = key

    def _layout_steps(self) -> Steps[geometry.CanvasGeometry]:
        """The layout at the canvas's size, in steps (one per size tried)."""
        v = self.view
        px = self.body_px()
        unit = geometry.default_unit(self.width(), self.height(), px, v.font_scale)
        return (yield from geometry.fitted_geometry_steps(
            v.scene, self.width(), self.height(), unit, v.expanded, min_text=px))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        if event.type() == QEvent.Type.Resize and not self.holding:  # the viewport's
            self.fit_height()
        return False

    def in_steps(self) -> bool:
        """A big program's frames: a layer not drawn yet is drawn in steps, a few ms per
        turn of the event loop, and the frame shown last stays on screen meanwhile (a
        train step's layer alone is 20-50 ms of drawing, its first paint was 55-100 ms)."""
        return len(self.view.phases) >= STEPPED_SCENE

    @property
    def preparing(self) -> bool:
        """A big program's current phase has no layer yet: it is being drawn in steps, or
        will be from the next paint (the last frame is shown meanwhile)."""
        return self.in_steps() and self.isVisible() and (
            self._key_now() != self._key or self.view.current_phase not in self._static)

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt's name
        p = QPainter(self)
        try:
            phase, t = self.view.current_phase, self.view.current_time
            if self._last is not None and self.in_steps() and (
                    self._key_now() != self._key or phase not in self._static):
                self._draw_ahead(phase)  # (shown when drawn: see _draw_ahead)
                self._paint_last(p)
                return
            fb = self.builder()
            pix = self._static.pop(phase, None)
            if pix is None:
                if self._prefetching == phase:  # not ready in time: drawn here and now
                    self._cancel_prefetch()
                pix = run_to_end(self._layer_steps(fb, phase))
            self._static[phase] = pix  # the most recently used last
            while len(self._static) > KEPT_LAYERS:
                del self._static[next(iter(self._static))]
            p.drawPixmap(0, 0, pix)
            self.painter.draw(p, fb.dynamic(phase, t))
            self._last = (pix, fb, phase, t)
        finally:
            p.end()
        if self.view.playing:
            self._draw_ahead(phase + 1)

    def _paint_last(self, p: QPainter) -> None:
        """The frame painted last, again (on a canvas of another size: at its top left)."""
        assert self._last is not None
        pix, fb, phase, t = self._last
        dpr = pix.devicePixelRatio()
        if pix.width() / dpr < self.width() or pix.height() / dpr < self.height():
            p.fillRect(self.rect(), self.painter.colour(fb.th.bg))
        p.drawPixmap(0, 0, pix)
        self.painter.draw(p, fb.dynamic(phase, t))

    def _layer_steps(self, fb: FrameBuilder, phase: int) -> Steps[QPixmap]:
        """A phase's static layer drawn into a pixmap, in steps (its items, then as many of
        them per step as :data:`LAYER_STEP_MS` draws, :data:`LAYER_ITEMS` at a time: a
        caption's words fitted to its band cost a hundred boxes' time)."""
        items = yield from fb.static_steps(phase)
        dpr = self.devicePixelRatioF()
        pix = QPixmap(int(self.width() * dpr), int(self.height() * dpr))
        pix.setDevicePixelRatio(dpr)
        start = 0
        while start < len(items):
            q = QPainter(pix)
            until = time.perf_counter() + LAYER_STEP_MS / 1000.0
            try:
                while start < len(items):
                    self.painter.draw(q, items[start:start + LAYER_ITEMS])
                    start += LAYER_ITEMS
                    if time.perf_counter() >= until:
                        break
            finally:
                q.end()
            yield
        return pix

    def _draw_ahead(self, phase: int) -> None:
        """Draw a phase's static layer in steps (a few ms per turn of the event loop): while
        playing, the next phase's, so that the frame which starts that phase does not build
        it (on a train step that was 50-100 ms, a stall at every phase); a big program's
        current phase, while its last frame stays on screen (:meth:`in_steps`) -- after a
        new layout first where the canvas changed (its size, the scene, the theme)."""
        key = self._key_now()
        if phase >= len(self.view.phases) or (key == self._key and phase in self._static) \
                or (self._prefetching == phase and self._job_key == key):
            return
        self._cancel_prefetch()

        def steps() -> Steps[QPixmap]:
            if key != self._key or self._builder is None:
                lay = yield from self._layout_steps()
                yield  # (the last size tried is a whole layout: the builder in a step of
                self._rebuild(key, lay)  # its own)
                yield
            assert self._builder is not None
            return (yield from self._layer_steps(self._builder, phase))

        def store(pix: object) -> None:
            if self._job is job:
                self._job, self._prefetching = None, -1
                if self._key == key:
                    self._static[phase] = cast(QPixmap, pix)
                    if phase == self.view.current_phase:  # (the last frame was shown)
                        self.update()
            job.deleteLater()

        self._prefetching, self._job_key = phase, key
        job = self._job = SlicedJob(steps(), slice_ms=LAYER_SLICE_MS, parent=self)
        job.finished.connect(store)
        job.start()

    def _cancel_prefetch(self) -> None:
        if self._job is not None:
            self._job.cancel()
            self._job.deleteLater()
            self._job = None
        self._prefetching = -1

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt's name
        pos = event.position()
        group = self.builder().lay.group_at(pos.x(), pos.y())
        if group and event.button() == Qt.MouseButton.LeftButton:
            self.view.toggle_group(group)
            event.accept()
            return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt's name
        pos = event.position()
        group = self.builder().lay.group_at(pos.x(), pos.y())
        if group:
            self.setCursor(Qt.CursorShape.PointingHandCursor)
            what = ("fold its arrays into one entry" if group in self.view.expanded
                    else "show each of its arrays")
            self.setToolTip(f"{group}: click to {what}")
        else:
            self.unsetCursor()
            self.setToolTip(plain_tooltip(self.caption_tip(pos.x(), pos.y())))
        super().mouseMoveEvent(event)

    def caption_tip(self, x: float, y: float) -> str:
        """The current phase's whole title and caption when (x, y) is on the caption band
        (a short canvas wraps, shrinks and may cut it), else ""."""
        cx, cy, cw, ch = self.builder().lay.caption
        phases = self.view.scene.phases
        if not phases or not (cx <= x <= cx + cw and cy <= y <= cy + ch):
            return ""
        phase = phases[min(max(self.view.current_phase, 0), len(phases) - 1)]
        return f"{phase.title}\n\n{phase.caption}"


class DeviceView(QWidget):
    """Shards on devices: an animated view of where JAX put every piece of data.

    Signals:
        phaseChanged(index, caption, highlights): the phase shown changed;
            ``highlights`` is a list of ``(variant, text_start, text_end)``
            line ranges of that variant's jaxpr text to highlight.
        playingChanged(bool): playback started or stopped.
    """

    phaseChanged = Signal(int, str, list)
    playingChanged = Signal(bool)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.scene: Scene = empty_scene("No result yet: trace a function to see its devices.")
        self.result: TraceResult | None = None
        self.theme = "light"
        self.font_scale = 1.0
        self.speed = 1.0
        #: Pytree groups drawn leaf by leaf (the others are folded into one entry each).
        self.expanded: frozenset[str] = frozenset()
        self._phase = 0
        self._t = 1.0
        #: The phases' kinds of the last scene that had phases (an error between two
        #: results of the same program keeps the phase).
        self._kinds: list[str] = []
        self._playing = False
        self._hold_at_end = False  # stepping: play this phase once, then stop
        gc_policy.busy_while(self, "playing")  # no full collection in the middle of playing
        self.canvas = _Canvas(self)
        self.controls = ControlBar(self)
        #: A big program's overview: the groups (folded) beside the canvas, the strip under it.
        self.tree = GroupTree(self)
        self.strip = ProgramStrip(self)
        #: The canvas scrolls (down) where the docked tab is too short for the devices
        #: at the window's text size (:meth:`_Canvas.fit_height`).
        self.scroller = QScrollArea(self)
        self.scroller.setWidgetResizable(True)
        self.scroller.setFrameShape(QFrame.Shape.NoFrame)
        self.scroller.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.scroller.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.scroller.setWidget(self.canvas)
        self.scroller.viewport().installEventFilter(self.canvas)
        self.split = QSplitter(Qt.Orientation.Horizontal, self)
        self.split.addWidget(self.scroller)
        self.split.addWidget(self.tree)
        self.split.setStretchFactor(0, 1)
        self.split.setCollapsible(0, False)
        self.tree.hide()
        self.strip.hide()
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(0)
        box.addWidget(self.split, 1)
        box.addWidget(self.strip)
        box.addWidget(self.controls)
        self.strip.phaseRequested.connect(self._jump)
        self.tree.phaseRequested.connect(self._jump)
        self.controls.restartRequested.connect(self.restart)
        self.controls.stepRequested.connect(self.step)
        self.controls.playToggled.connect(self.toggle_play)
        self.controls.speedChanged.connect(self.set_speed)
        self.controls.scrubbed.connect(self._scrub)
        self.controls.copyRequested.connect(self.copy_code)
        #: The Export menu's exports (the frame now, animations in the background).
        self.exports = ViewExports(self, dialog_parent=self)
        self._timer = QTimer(self)
        self._timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._timer.setInterval(FRAME_MS)
        self._timer.timeout.connect(self._tick)
        self._clock = QElapsedTimer()
        #: real multi-process runs of the examples meant for them, and the one awaited
        self.runs = MultiprocessRuns(self)
        self.runs.done.connect(self._multiprocess_done)
        self._waiting: object = None
        #: A big program's scene being built in steps (see set_result).
        self._scene_job: SlicedJob | None = None
        self.overview: list = []
        #: The chip the captions project onto (None: they do not).
        self.chip: Chip | None = None
        self._sync()

    # -- public API -------------------------------------------------------- #

    @property
    def phases(self) -> list[Phase]:
        """The phases of the current variant (empty without a usable result)."""
        return self.scene.phases

    @property
    def current_phase(self) -> int:
        return self._phase

    @property
    def current_time(self) -> float:
        """Progress (0..1) within the current phase."""
        return self._t

    @property
    def playing(self) -> bool:
        return self._playing

    def set_result(self, result: TraceResult, variant: str) -> None:
        """Show ``variant`` of ``result``; keeps the phase when the phases did not change kind.

        An example meant for several JAX processes shows a real run of them instead
        (:mod:`jaxviz.ui.devices.multiprocess`), once it has run.
        """
        example = multiprocess_example(result, variant)
        self._waiting = None
        if example is not None:
            key = self.runs.start(example, len(result.devices))
            cached = self.runs.cache.get(key)
            if cached is None:
                self._waiting = key
                self._show(result, empty_scene(
                    f"Running {example.function} in {example.processes} JAX processes (as "
                    f"the hosts of a cluster would) to show each process's devices…",
                    variant, "", result.function, result.simulated))
                return
            result = cached
        self._cancel_scene()
        if len(_story_steps(result, variant)) < STEPPED_SCENE:
            self._show(result, build_scene(result, variant))
            return
        # a big program (a train step: 600 phases, 0.1-0.3 s to build): its scene is built
        # in steps, a few ms per turn of the event loop; the last scene stays meanwhile
        # (the same program, usually, traced again), or a line says what is coming
        job = self._scene_job = SlicedJob(
            self._big_scene_steps(result, variant, announce=not self.scene.phases), parent=self)
        # shown in a turn of its own (the steps' last one asks for it)
        job.finished.connect(lambda built: self._scene_built(job, result, built))
        job.start()

    @property
    def busy(self) -> bool:
        """A big program's scene is being built, or the layer of the phase shown drawn, in
        steps (the last frame stays on screen meanwhile)."""
        return self._scene_job is not None or self.canvas.preparing

    def _big_scene_steps(self, result: TraceResult, variant: str,
                         announce: bool = False) -> Steps[tuple[Scene, list, list]]:
        """A big program's scene, its overview and its strip's marks, in steps; first
        (``announce``: no scene shown yet) a line saying what is coming, in a turn of its
        own (painted in it, not on top of the turn the result came in, which every view
        spends on its first changes). The result is shown in a turn of its own too."""
        if announce:
            yield OWN_TURN
            self._show(result, empty_scene(
                f"Preparing the {len(_story_steps(result, variant))} steps of the {variant} "
                f"program…", variant, "", result.function, result.simulated))
            yield
        scene = yield from scene_steps(result, variant)
        yield
        yield from geometry.measure_captions(scene)
        rows = build_overview(scene)
        yield
        items: list = []
        if len(scene.phases) >= OVERVIEW_PHASES:
            self.strip.theme = self.theme
            yield from self.strip.prepare(scene, rows, self.width())
            yield
            items = yield from self.tree.items_steps(rows)
        yield OWN_TURN
        return scene, rows, items

    def _scene_built(self, job: SlicedJob, result: TraceResult, built: object) -> None:
        if job is not self._scene_job:  # (cancelled by a newer result meanwhile)
            return
        self._scene_job = None
        job.deleteLater()
        scene, rows, items = cast(tuple[Scene, list, list], built)
        self._show(result, scene, rows, items or None)

    def _cancel_scene(self) -> None:
        if self._scene_job is not None:
            self._scene_job.cancel()
            self._scene_job.deleteLater()
            self._scene_job = None

    def _multiprocess_done(self, key: object, result: object, message: str) -> None:
        run = cast(tuple[str, int], key)
        self.runs.running.discard(run)
        if isinstance(result, TraceResult):
            self.runs.cache[run] = result
        if key != self._waiting or self.result is None:
            return
        self._waiting = None
        if not isinstance(result, TraceResult):
            self._show(self.result, empty_scene(message, VARIANT, "", self.result.function,
                                                self.result.simulated))
        else:
            self._show(result, build_scene(result, VARIANT))

    def set_chip(self, key: str) -> None:
        """Project each compute and collective phase onto chip ``key`` in its caption
        ("" or an unknown key: no projection); the Collectives tab chooses it."""
        chip = chip_preset(key)
        if chip == self.chip:
            return
        self.chip = chip
        if self.result is not None and self.scene.phases:
            self.set_result(self.result, self.scene.variant)

    def _show(self, result: TraceResult, scene: Scene, overview: list | None = None,
              items: list | None = None) -> None:
        self.result = result
        self.scene = scene
        if self.chip is not None:
            with_projections(scene, result, self.chip)
        self._show_overview(overview, items)
        new = [p.kind for p in self.scene.phases]
        if not new:  # an error (a typo being fixed): the phase is kept for the fix
            self.pause()
        else:
            if new != self._kinds:
                self._phase, self._t = 0, 1.0
            self._kinds = new
            self._phase = min(self._phase, len(new) - 1)
        self.canvas.invalidate()
        self._sync(emit=True)

    def clear(self, message: str) -> None:
        """Show no result, only ``message`` (a new document, not traced yet)."""
        self.pause()
        self._cancel_scene()
        self.result = None
        self._waiting = None  # a multi-process run still going belongs to the last document
        self.scene = empty_scene(message)
        self._phase, self._t, self._kinds = 0, 1.0, []
        self.canvas.invalidate()
        self._sync(emit=True)

    def start_over(self) -> None:
        """Another document: its first phase, whole, when its result comes (not the
        phase the last one was at)."""
        self.pause()
        self._phase, self._t = 0, 1.0

    def step_forward(self) -> bool:
        """One phase on (a presenter's clicker); False at the last phase or without one."""
        if not self.phases or (self._phase >= len(self.phases) - 1 and self._t >= 1.0):
            return False
        self.step(1)
        return True

    def step_back(self) -> bool:
        """One phase back; False at the first phase or without one."""
        if not self.phases or self._phase == 0:
            return False
        self.step(-1)
        return True

    def copy_code(self) -> str:
        """Put the shown variant's call, with its arguments and mesh, on the clipboard."""
        text = self.scene.code.snippet() if self.scene.code is not None else ""
        if text:
            QGuiApplication.clipboard().setText(text)
        return text

    def show_group(self, name: str) -> bool:
        """Show the first phase of the overview group ``name`` (see
        :func:`jaxviz.views.devices.overview.find_rows`); False if none matches."""
        from jaxviz.views.devices.overview import find_rows

        found = find_rows(self.overview, name)
        if not found:
            return False
        self._jump(self.overview[found[0]].first)
        return True

    def toggle_group(self, group: str) -> None:
        """Show each array of pytree group ``group``, or fold them back into one entry."""
        self.expanded = self.expanded ^ {group}
        self.canvas.invalidate()

    def step(self, delta: int = 1) -> None:
        """Go ``delta`` phases on (or back); going on plays that phase once, then holds."""
        if not self.phases:
            return
        target = min(max(self._phase + int(delta), 0), len(self.phases) - 1)
        if target == self._phase:
            self._t = 1.0
            self._sync()
            return
        self._phase = target
        if delta > 0:
            self._t = 0.0
            self._hold_at_end = not self._playing
            self._start_clock()
        else:
            self._t = 1.0
        self._sync(emit=True)

    def show_equation(self, order: int) -> bool:
        """Show the phase that runs equation ``order`` (pre-order position in the jaxpr).

        The hook a stepper drives the view by ("the device view shows the same
        step"). Returns False, leaving the view as it is, when no phase runs it.
        """
        if self.result is None or not self.phases:
            return False
        try:
            variant = self.result.variant(self.scene.variant)
        except KeyError:
            return False
        phase = phase_of_equation(self.phases, variant, order)
        if phase is None:
            return False
        self.pause()
        self.seek(phase, 1.0)
        return True

    def play(self) -> None:
        """Play from here to the end (from the start if at the end)."""
        if not self.phases:
            return
        if self._phase == len(self.phases) - 1 and self._t >= 1.0:
            self._phase, self._t = 0, 0.0
            self._sync(emit=True)
        self._hold_at_end = False
        self._playing = True
        self._start_clock()
        self.playingChanged.emit(True)
        self._sync()

    def pause(self) -> None:
        was = self._playing
        self._playing = False
        self._hold_at_end = False
        self._timer.stop()
        if was:
            self.playingChanged.emit(False)
        self._sync()

    def toggle_play(self) -> None:
        self.pause() if self._playing else self.play()

    def restart(self) -> None:
        """Back to the first phase, at its start."""
        self.seek(0, 0.0)
        if not self._playing:
            self._hold_at_end = True
            self._start_clock()

    def seek(self, phase: int, t: float = 1.0) -> None:
        """Show ``phase`` at time ``t`` (0..1)."""
        if not self.phases:
            return
        phase = min(max(int(phase), 0), len(self.phases) - 1)
        changed = phase != self._phase
        self._phase, self._t = phase, min(max(float(t), 0.0), 1.0)
        self._sync(emit=changed)

    def set_speed(self, speed: float) -> None:
        self.speed = max(float(speed), 0.05)

    def set_theme(self, theme: str) -> None:
        """``light`` or ``dark`` (projectors often want dark)."""
        palette.theme(theme)  # raises for an unknown name
        self.theme = theme
        self.strip.theme = theme
        self.strip.update()
        self.canvas.invalidate()

    def set_font_scale(self, scale: float) -> None:
        """Multiply the text size (1.0 follows the app font)."""
        self.font_scale = max(float(scale), 0.3)
        self.canvas.invalidate()

    def renderer(self, size: tuple[int, int] | str | None = None,
                 theme: str | None = None) -> Renderer:
        """What the view shows, drawn at ``size`` (default: as shown) in ``theme``."""
        w, h = self.picture_size(size)
        return Renderer(self.scene, w, h, theme or self.theme, self.font_scale,
                        self.expanded)

    def export_frame(self, path: str | Path, size: tuple[int, int] | str | None = None,
                     theme: str | None = None) -> Path:
        """Save the current frame as PNG, SVG or PDF (by suffix) at ``size`` (default: as
        shown)."""
        # A suffix without a registered format (.jpg, .bmp): the renderer still knows it.
        exporter = for_suffix("frame", Path(path).suffix) or find("frame", "png")
        return exporter.write(self.renderer(size, theme), path, phase=self._phase, t=self._t)

    def export_animation(self, path: str | Path, size: tuple[int, int] | str = (1280, 720),
                         theme: str | None = None, frames_per_phase: int = 6,
                         fps: float = 30) -> int:
        """Save every phase in the animation format of the file's suffix (GIF when it has
        none), here and now; returns the number of frames (pages) written. The Export
        menu writes in the background instead (:attr:`exports`)."""
        exporter = for_suffix("animation", Path(path).suffix) or find("animation", "gif")
        return exporter.write(self.renderer(size, theme), path,
                              frames_per_phase=frames_per_phase, fps=fps)

    # -- internals --------------------------------------------------------- #

    def picture_size(self, size: tuple[int, int] | str | None) -> tuple[int, int]:
        """``size`` in pixels (``WxH`` text is checked); None: the canvas as shown.

        Raises:
            ValueError: a ``WxH`` text out of range or malformed.
        """
        if size is None:
            return max(self.canvas.width(), 320), max(self.canvas.height(), 200)
        if isinstance(size, str):
            return parse_size(size, ANIMATION_SIZES)
        return int(size[0]), int(size[1])

    def _show_overview(self, rows: list | None = None, items: list | None = None) -> None:
        """The strip and the group tree, for a program of many phases only (``rows``: the
        scene's overview, if built already; ``items``: the tree's items for them, made
        ahead)."""
        self.overview = rows if rows is not None else build_overview(self.scene)
        self.canvas.holding = True  # (the caller's invalidate() fits the height, once)
        try:
            self._arrange_overview(items)
        finally:
            self.canvas.holding = False

    def _arrange_overview(self, items: list | None = None) -> None:
        big = len(self.scene.phases) >= OVERVIEW_PHASES
        self.strip.setVisible(big)
        self.tree.setVisible(big)
        if big:
            self.strip.theme = self.theme
            self.strip.set_scene(self.scene, self.overview)
            self.tree.set_rows(self.overview, items)
            width = self.split.width()
            side = min(max(width * 3 // 10, 260), 460)
            self.split.setSizes([max(width - side, 1), side])

    def _jump(self, phase: int) -> None:
        self.pause()
        self.seek(phase, 1.0)

    def _start_clock(self) -> None:
        self._clock.restart()
        if not self._timer.isActive():
            self._timer.start()

    def _tick(self) -> None:
        if not self.phases:
            self._timer.stop()
            return
        dt = self._clock.restart() / 1000.0
        duration = max(self.phases[self._phase].duration, 0.1)
        self._t = min(self._t + dt * self.speed / duration, 1.0)
        if self._t >= 1.0:
            if self._playing and self._phase < len(self.phases) - 1:
                self._phase, self._t = self._phase + 1, 0.0
                self._sync(emit=True)
                return
            self._timer.stop()
            if self._playing:
                self._playing = False
                self.playingChanged.emit(False)
            self._hold_at_end = False
        self._sync()

    def _scrub(self, phase: int, t: float) -> None:
        self.pause()
        self.seek(phase, t)

    def _sync(self, emit: bool = False) -> None:
        self.controls.show_state(self._phase, self._t, len(self.phases), self._playing)
        if self.strip.isVisible() or self.tree.isVisible():
            self.strip.set_current(self._phase)
            if emit:
                self.tree.show_phase(self._phase)
        self.controls.copy_button.setEnabled(self.scene.code is not None)
        self.canvas.update()
        if emit and self.phases:
            phase = self.phases[self._phase]
            self.phaseChanged.emit(self._phase, phase.caption, list(phase.highlights))

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt's name
        key = name_of(event.key())
        if key == "Space":  # here it plays and pauses; the window's presenter keys step
            self.toggle_play()
        elif key in CLICKER_MOVES:
            self.step(CLICKER_MOVES[key])
        elif key == HOME:
            self.restart()
        elif key == END:
            self.seek(len(self.phases) - 1, 1.0)
        else:
            super().keyPressEvent(event)
            return
        event.accept()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt's name
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.ApplicationFontChange):
            self.canvas.invalidate()
        super().changeEvent(event)
