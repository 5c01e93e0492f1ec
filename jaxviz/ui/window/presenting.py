"""Present from the window (Shift+F5): the window's function as a full-screen presentation.

The deck is the one ``jaxviz present TARGET`` builds
(:func:`~jaxviz.views.present.lecture.function_lecture`), made of what the window
shows: the editor's text (saved or not), its arguments and settings, its
visible variants, the device view's variant. It is traced in the window's
own engine (:meth:`~jaxviz.ui.qt_engine.QtEngine.worker_client`, on
the deck loader's thread: the GUI thread never waits for JAX) and starts on the
slide that matches what the window shows
(:func:`~jaxviz.views.present.presentation.matching_slide`): the device view's phase,
the compared pair, the pane last clicked, else the source.

Esc leaves back to the window as it was: the presentation is a window of its
own over it; nothing of the window changes, and the keyboard goes back to the
widget that had it. ``E`` leaves into the window's editor on the function; the
Present key again re-traces the edited text and comes back to the same slide.

The deck leaves the timing steps out: they would be measured (seconds of
runs) each time the lecturer presents; ``jaxviz present`` with a recording
shows them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QApplication, QWidget

from jaxviz.model import VARIANTS
from jaxviz.model.records import Target
from jaxviz.ui.qt_engine import QtEngine
from jaxviz.ui.window.parts import WindowParts

if TYPE_CHECKING:  # the lecture reader (tomllib) and the presentation load on Present
    from jaxviz.views.present.lecture import Lecture
    from jaxviz.views.present.presentation import OnScreen

#: Seconds one request of the deck (a trace with storyboards) may run.
DECK_TIMEOUT = 120.0


class WindowPresentation(QObject):
    """Opens the presentation of the window's function and brings the window back.

    Signals:
        opened(object): the presentation window is shown.
        closed(): the presentation was left (Esc) or left for the editor (E).
    """

    opened = Signal(object)
    closed = Signal()

    def __init__(self, window: WindowParts, engine: QtEngine) -> None:
        super().__init__(window)
        self.w, self.engine = window, engine
        self.presentation: Any = None
        self._console: Any = None
        self._focus: QWidget | None = None
        #: The slide E left from; the next Present (of the same function) comes back to it.
        self.return_to: tuple[str, int] | None = None

    @property
    def active(self) -> bool:
        return self.presentation is not None

    # --------------------------------------------------------------- opening
    def present(self) -> Any:
        """Open the presentation (or bring it to the front); None, with the reason in the
        status bar, when the window's function cannot be traced now."""
        if self.presentation is not None:
            self.presentation.activateWindow()
            return self.presentation
        state = self.w.state
        problem = state.request_problem()
        if problem is not None:
            self.w.set_status(f"cannot present: {problem.message}", error=True)
            return None
        waiting = self.w.waiting_for_say()
        if waiting:
            self.w.set_status(f"cannot present: {waiting} has not run — press Trace (F5) "
                              f"to run it first", error=True)
            return None
        from jaxviz.ui.present.loading import DeckLoader, blocking_run
        from jaxviz.ui.present.screens import show

        lecture, resolved = self.lecture()
        loader = DeckLoader(lecture, blocking_run(self.engine.worker_client(), DECK_TIMEOUT),
                            self, resolved=resolved)
        self._focus = QApplication.focusWidget()
        windows = show(lecture, loader, "light", 0, full_screen=True)
        presentation = windows[0]
        presentation.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        presentation.start_for = self._start_for(lecture.steps[0].target)
        presentation.edit_elsewhere = self._edit_in_window
        presentation.left.connect(lambda _index: self._back())
        self.presentation = presentation
        self._console = windows[1] if len(windows) > 1 else None
        loader.load()
        self.opened.emit(presentation)
        return presentation

    def lecture(self) -> tuple[Lecture, dict[str, tuple[Target, dict[str, Any]]]]:
        """The lecture of the window's function, and its target as the window has it."""
        from jaxviz.views.present.lecture import function_lecture

        state, doc = self.w.state, self.w.document.doc
        example = doc.example
        if example is not None and example.function == state.function:
            target_text, name = f"example:{example.name}", example.name
        else:
            name = doc.display_name
            target_text = f"{name}:{state.function}"
        shown = state.shown_variants()
        device, device_up = self.device_on_screen(), self.device_view_up()
        on_screen = {device} if device_up else set()  # the device view's, though no pane's
        if state.focused_variant is not None:
            on_screen.add(state.focused_variant)
        variants = [v for v in VARIANTS
                    if v in set(shown) | set(state.compared or ()) | on_screen]
        lecture = function_lecture(target_text, f"{state.function}: {name}", variants,
                                   devices=state.devices, timing=False)
        add_shown_steps(lecture, variants, device, device_up, state.focused_variant)
        defaults: dict[str, Any] = {**state.settings.settings(), "variants": variants}
        if example is not None:
            defaults.update(baseline=example.baseline, timing=example.timing)
        target = Target(source=state.source, filename=state.filename, function=state.function)
        return lecture, {target_text: (target, defaults)}

    def device_on_screen(self) -> str:
        """The variant the device view shows: its picker's (which may name a variant no
        pane shows), else the state's."""
        return str(self.w.tools.device_variant.currentData() or self.w.state.device_variant())

    def device_view_up(self) -> bool:
        """Whether the device view is on screen (maximized, or its tab current in the
        shown dock)."""
        w, state = self.w, self.w.state
        dock = w.docks["Console · Devices · Timing"]
        tab_shown = dock.isVisible() and not state.maximized
        return state.maximized == "devices" or (tab_shown and w.tools.currentWidget()
                                                is w.tools.devices)

    def on_screen(self) -> OnScreen:
        """What the window shows now, as the slide to start on would show it."""
        from jaxviz.views.present.presentation import OnScreen

        w, state = self.w, self.w.state
        tools = w.tools
        dock = w.docks["Console · Devices · Timing"]
        maximized = state.maximized
        tab_shown = dock.isVisible() and not maximized
        if self.device_view_up():
            view = tools.devices.view
            phase = view.current_phase if view is not None and view.phases else None
            return OnScreen("device", self.device_on_screen(), phase)
        if maximized == "timing" or (tab_shown and tools.currentWidget() is tools.timing):
            return OnScreen("timing")
        if state.compared is not None:
            return OnScreen("diff", pair=state.compared)
        if state.focused_variant is not None:
            return OnScreen("jaxpr", state.focused_variant)
        return OnScreen("source")

    def _start_for(self, target_text: str):
        shown = self.on_screen()
        back = self.return_to if self.return_to and self.return_to[0] == target_text else None
        self.return_to = None

        def start(slides: list) -> int:
            from jaxviz.views.present.presentation import OnScreen, matching_slide

            if back is not None:
                return min(back[1], len(slides) - 1)
            return matching_slide([OnScreen(s.view, s.variant, s.phase, s.pair)
                                   for s in slides], shown)

        return start

    # --------------------------------------------------------------- leaving
    def _edit_in_window(self, index: int) -> None:
        """E: into the window's editor on the function; Present again comes back here."""
        presentation = self.presentation
        if presentation is None:
            return
        slide = presentation.slide
        self.return_to = (presentation.lecture.steps[0].target, index)
        line = slide.first_line if slide is not None and slide.view == "source" else 0
        presentation.close()
        self._back(focus=self.w.editor)
        if line:
            self.w.editor.reveal_line(line)
        self.w.set_status(f"editing {self.w.state.function}: Shift+F5 presents it again, "
                          f"traced again, at slide {index + 1}")

    def _back(self, focus: QWidget | None = None) -> None:
        """The presentation is gone: the window (and its keyboard focus) as they were."""
        if self._console is not None:
            self._console.close()
        self.presentation, self._console = None, None
        self.w.activateWindow()
        self.w.raise_()
        target = focus or self._focus
        if target is not None:
            target.setFocus()
        self.closed.emit()


def add_shown_steps(lecture: Lecture, variants: list[str], device: str, device_up: bool,
                    focused: str | None) -> None:
    """Make the deck of the window's function hold what the window shows: the device
    view's variant animated (every phase: the device step of that variant, added when
    the function's steps have none; a plain one only when the device view is on
    screen), and the jaxpr of the pane last clicked (added when no jaxpr or
    program step shows it). Steps are inserted before the closing summary."""
    from jaxviz.views.present.lecture import LectureStep

    steps = lecture.steps
    target = steps[0].target
    end = next((i for i, s in enumerate(steps) if s.view == "summary"), len(steps))
    if focused is not None and focused in variants and not any(
            s.view in ("jaxpr", "program") and s.variant == focused for s in steps):
        after = max((i for i, s in enumerate(steps) if s.view in ("jaxpr", "program", "diff")),
                    default=end - 1)
        steps.insert(after + 1, LectureStep("jaxpr", target, variant=focused))
        end += 1
    wanted = device in variants and (device_up or device != "plain")
    if not wanted:
        return
    existing = [s for s in steps if s.view == "device"]
    if existing:
        existing[0].variant = device  # the variant the window's device view shows
    else:
        steps.insert(end, LectureStep("device", target, variant=device))

