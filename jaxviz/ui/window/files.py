"""Opening, saving and leaving documents: the file side of the main window.

A mixin for :class:`~jaxviz.ui.window.main_window.MainWindow` (it uses the window's
``document`` controller, ``args_panel``, ``area``, ``gallery``, ``settings``
and ``session``), kept apart so each module stays small.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QFileDialog, QMessageBox

from jaxviz.ui.window.parts import WindowParts
from jaxviz.views.window.opening_panes import declared_panes, front_pane, opening_panes
from jaxviz.views.window.screen_fit import panes_for

if TYPE_CHECKING:  # the records, the gallery and the document load with the window's parts
    from jaxviz.model import TraceRequest
    from jaxviz.ui.window.document import Document

#: The variants of a file that declares none.
DEFAULT_VARIANTS = ("plain", "vmap", "pmap", "sharded")


#: What a document just opened still waits for: its variants and its telling ones.
_Opening = tuple[list[str] | tuple[str, ...], list[str] | tuple[str, ...]]


class WindowFilesMixin(WindowParts):
    """Open example/file/target, New, Open…, Save, Save As, unsaved-edit questions."""

    #: The panes of the document just opened, still to be laid out (see
    #: :meth:`_lay_out_after_paint`), its step after the layout ("show" its panes, then
    #: "trace"; "" none), and the timer that does each in a turn of its own.
    _opening: _Opening | None = None
    _opening_step = ""
    _opening_timer: QTimer | None = None

    # ----------------------------------------------------------- documents
    def open_target(self, target: str) -> None:
        """Open ``example:NAME``, ``file.py``, ``file.py:function`` or a timing ``.json``."""
        if target.startswith("example:"):
            self.open_example(target[len("example:"):])
        elif target.endswith(".json"):
            if not self.tools.open_timing_recording(target):
                self.set_status(f"cannot show {target}: the timing view is not available",
                                error=True)
        else:
            path, function = target, ""
            if ".py:" in target:
                path, _, function = target.rpartition(":")
            self.open_file(path, function)

    def open_example(self, name: str) -> None:
        from jaxviz.model.gallery import GalleryError

        if not self.confirm_leave():
            return
        self._remember_fields()
        with self.area.holding():  # each pane in view cleared once, in the layout it has
            try:
                ex = self.document.open_example(name)
            except GalleryError as exc:
                self.set_status(str(exc), error=True)
                return
            # The panes behind one plain surface until they are laid out for it: none is
            # cleared or painted in this turn (see JaxprArea.cover).
            self.area.cover(self.state.not_traced())
            self.gallery.select(name)
            self.state.set_settings(ex.settings())
            self.args_panel.suggest_args("")
            self.args_panel.validate()  # drops markers the engine set for the last document
        self._lay_out_after_paint(ex.variants, ex.panes)

    def _lay_out_after_paint(self, variants: list[str] | tuple[str, ...],
                             telling: list[str] | tuple[str, ...]) -> None:
        """The new document's panes, laid out in the next turn of the event loop (behind
        the cover), after Qt has painted the document, shown in the turn after that, and
        its trace asked for in the next: opening one is four turns of less than a frame
        each, not one of two (a document opened before then replaces what is to be laid
        out and traced)."""
        self._opening, self._opening_step = (variants, telling), ""
        if self._opening_timer is None:
            # A timer object, not QTimer.singleShot(0, ...): that is a posted call, run
            # before the paint Qt posted at low priority; a timer fires after it.
            self._opening_timer = QTimer(self)
            self._opening_timer.setSingleShot(True)
            self._opening_timer.setInterval(0)
            self._opening_timer.timeout.connect(self.finish_opening)
        self._opening_timer.start()

    @property
    def opening(self) -> bool:
        """Whether the document just opened still waits for its panes' layout, their
        showing or its trace."""
        return self._opening is not None or bool(self._opening_step)

    def finish_opening(self) -> None:
        """The next step of opening a document (its timer's turn): lay out its panes
        (behind the cover), then show them (in the next turn, after Qt has painted the
        rest), then (in the next, after Qt has painted them) ask for its trace."""
        pending, self._opening = self._opening, None
        step, self._opening_step = self._opening_step, ""
        if pending is not None:
            with self.area.holding():
                self._show_panes_of(*pending)
            self._opening_step = "show"
        elif step == "show":
            self.area.uncover()
            self._opening_step = "trace"
        else:
            if step == "trace":
                self.session.trace_now()
            return
        if self._opening_timer is not None:
            self._opening_timer.start()  # a timer's turn comes after the paint

    def _show_panes_of(self, variants: list[str] | tuple[str, ...],
                       telling: list[str] | tuple[str, ...] = ()) -> None:
        """The panes of a document's variants: as many side by side as the window has room
        for, its ``telling`` ones (its ``JAXVIZ`` ``"panes"``) first; every one it declares
        when even those would be tabs (a tab costs no room), the last telling one in
        front (:mod:`jaxviz.views.window.opening_panes`)."""
        from jaxviz.views.window.window_state import pane_order

        panes = panes_for(self.width(), self.height())  # two in a projector-sized window
        declared = declared_panes(variants)
        wanted = opening_panes(variants, telling, panes)
        if len(declared) > len(wanted) and self.area.effective_mode(wanted) == "tabs":
            wanted = declared  # once: each change of the panes lays them out again
        self.state.visible_variants = pane_order(wanted)
        front = front_pane(variants, telling)
        if front is not None:
            self.area.show_pane(front)

    def open_file(self, path: str, function: str = "") -> None:
        from jaxviz.model import VARIANTS
        from jaxviz.model.errors import UserError
        from jaxviz.model.gallery import declared_problem
        from jaxviz.views.window.entry_points import argument_hint

        if not self.confirm_leave():
            return
        self._remember_fields()
        remembered = self.settings.file_fields(str(Path(path).resolve()))
        try:
            declared = self.document.open_file(path, function, remembered.get("function") or "")
        except UserError as exc:
            self.set_status(exc.info.message, error=True)
            return
        doc = self.document.doc
        if remembered.get("fields") and remembered.get("function") == doc.function:
            fields = dict(remembered["fields"])
        elif declared and declared.get("function", doc.function) == doc.function:
            fields = dict(declared)
        else:
            fields = {}
        hint = argument_hint(self.document.text(), doc.function)
        if not fields.get("args") and hint.spec:
            fields["args"] = hint.spec
        self.state.set_settings(fields)
        self.args_panel.suggest_args(hint.placeholder)
        self.args_panel.validate()
        self.gallery.select(None)
        self.gallery.show_document(doc.display_name, self.document.text())
        declared_variants = (declared or {}).get("variants")
        telling = (declared or {}).get("panes")
        self._show_panes_of([v for v in declared_variants if v in VARIANTS]
                            if isinstance(declared_variants, (list, tuple)) else
                            DEFAULT_VARIANTS,
                            [v for v in telling if isinstance(v, str)]
                            if isinstance(telling, (list, tuple)) else ())
        self.show_as_written_if_transformed()  # after the panes it declares
        self.recent_files_changed(self.settings.add_recent_file(str(doc.path)))
        self.session.trace_now()
        self._say_why_opened(from_annotations=bool(hint.spec) and fields["args"] == hint.spec)
        problem = declared_problem(self.document.text())
        if problem:  # the settings it meant to declare are not used: not silently
            self.set_status(f"{doc.display_name}: {problem}", error=True)

    def _say_why_opened(self, from_annotations: bool) -> None:
        """Which function a file opened on and why (status bar, the picker's tooltip),
        with what its arguments still need."""
        choice = self.document.choice
        picker = self.editor_panel.function
        picker.setToolTip(f"The function of this file to trace (opened on {choice.name}: "
                          f"{choice.reason})" if choice.name else "The function to trace")
        if not choice.name or choice.reason == "asked for":
            return
        said = f"; its arguments from the annotations: {self.state.settings.args}" \
            if from_annotations else ""
        fault = self.args_panel.message_line
        waiting = self.waiting_for_say()  # the trust rule's word stays in the status bar
        not_run = f" — {waiting} is shown, not run: press Trace (F5) to run it" if waiting else ""
        self.set_status(f"opened {choice.name} ({choice.reason}){said}"
                        + (f" — {fault}" if fault else "") + not_run, error=bool(fault))

    def new_file(self) -> None:
        if self.confirm_leave():
            self._remember_fields()
            self.document.new_untitled("import jax\nimport jax.numpy as jnp\n\n\n"
                                       "def f(x):\n    return jnp.sin(x) * 2\n")
            self.state.set_settings({"args": "f32[8]"})
            self.args_panel.suggest_args("")
            self.args_panel.validate()
            self.gallery.select(None)
            self.gallery.show_document(self.document.doc.display_name, self.document.text())
            self.session.trace_now()

    def open_recorded_source(self, request: TraceRequest) -> None:
        """A recording's source: shown as an untitled document that runs only on Trace or Run.

        The recording holds the code that was measured, which may differ from
        any file on disk: it is put where the user can read it, not run.
        """
        from jaxviz.model import TraceSettings

        if not self.confirm_leave():
            return
        origin = f"recorded in {Path(request.target.filename).name}"
        self.document.new_untitled(request.target.source, function=request.target.function,
                                   trusted=False, origin=origin)
        self.state.set_settings({name: getattr(request, name)
                                 for name in TraceSettings.names()})
        self.args_panel.validate()
        self.gallery.select(None)
        self.gallery.show_document(self.document.doc.display_name, request.target.source)
        self.session.trace_now()  # not run: it shows why and sets the timing view's target

    def open_file_dialog(self) -> None:
        start = str(self.document.doc.path.parent) if self.document.doc.path else str(Path.cwd())
        path, _ = QFileDialog.getOpenFileName(self, "Open a Python file", start,
                                              "Python files (*.py);;All files (*)")
        if path:
            self.open_file(path)

    def save(self) -> bool:
        if self.document.doc.path is None:
            return self.save_as()
        return self._save_to(self.document.doc.path)

    def save_as(self) -> bool:
        doc = self.document.doc
        suggestion = str(doc.path or Path.cwd() / (f"{doc.example.name}.py" if doc.example
                                                     else "untitled.py"))
        path, _ = QFileDialog.getSaveFileName(self, "Save as", suggestion, "Python files (*.py)")
        return self._save_to(Path(path)) if path else False

    def _save_to(self, path: Path) -> bool:
        try:
            self.document.save_to(path)
        except OSError as exc:
            QMessageBox.warning(self, "Not saved", f"Could not save {path}:\n{exc}\n\n"
                                                   f"Your text is still in the editor.")
            return False
        return True

    def _on_saved(self, path: str) -> None:
        self.recent_files_changed(self.settings.add_recent_file(path))
        self._show_title()  # Save As: the title names the file now, not the example
        self.gallery.select(None)  # a file now: the example's explanation no longer fits
        self.gallery.show_document(self.document.doc.display_name, self.document.text())
        self._remember_fields()
        self._remember_target()

    def _show_title(self) -> None:
        # "convolve — jaxviz", with Qt's mark for unsaved edits at [*]; ending in the
        # application's display name, Qt appends nothing more.
        self.setWindowTitle(f"{self.document.doc.short_name}[*] — jaxviz")
        self.setWindowModified(self.document.modified)

    def forget_opening(self) -> None:
        """The document being opened is not laid out or traced after all (another one
        opened, or the window closes)."""
        self._opening, self._opening_step = None, ""
        if self._opening_timer is not None:
            self._opening_timer.stop()
        self.area.uncover()  # (none of its panes stays hidden behind the cover)

    def _on_document_opened(self, doc: Document) -> None:
        self.forget_opening()  # another document: the last one's steps are not taken
        self._show_title()
        self._remember_target()
        self.linking.set_result(None)

    def _on_function_chosen(self, name: str) -> None:
        """Another function of the file: its annotations' argument spec, if they give one
        (the fields typed for the last function are kept otherwise); remembered."""
        from jaxviz.views.window.entry_points import argument_hint

        self.document.set_function(name)
        hint = argument_hint(self.document.text(), name)
        self.args_panel.suggest_args(hint.placeholder)
        if hint.spec:
            self.state.set_setting("args", hint.spec)
        self.show_as_written_if_transformed()
        self._remember_fields()
        self._remember_target()
        self.session.trace_now()

    def show_as_written_if_transformed(self) -> None:
        """A function already jitted/shard_mapped (or a module that sets a mesh) opens with
        its "as written" pane: what it does as written is the first question."""
        from jaxviz.model.as_written import transformed_reason

        reason = transformed_reason(self.state.source, self.state.function)
        if reason and "as_written" not in self.state.visible_variants:
            self.state.set_variant_visible("as_written", True)
            self.set_status(f"showing {self.state.function} as written: {reason}")

    def _remember_target(self) -> None:
        """What ``jaxviz`` without a target opens next time: this example or file's function."""
        doc = self.document.doc
        if doc.path is not None and doc.function:
            self.settings.last_target = f"{doc.path}:{doc.function}"
        elif doc.example is not None:
            self.settings.last_target = f"example:{doc.example.name}"

    def last_target(self) -> str:
        """The target to open when none is given: the function open last, if its file is
        still there, else ``example:convolve``."""
        target = self.settings.last_target
        if target.startswith("example:") or (".py:" in target
                                              and Path(target.rpartition(":")[0]).is_file()):
            return target
        return "example:convolve"

    def _on_visible_changed(self, variants: list[str]) -> None:
        """New panes need their variants traced (the menus follow the state themselves)."""
        result = self.state.result
        if result is None or any(v not in [r.variant for r in result.variants]
                                 for v in variants):
            self.session.schedule()

    def _remember_fields(self) -> None:
        doc = self.document.doc
        if doc.path is not None:
            self.settings.set_file_fields(str(doc.path), {
                "function": doc.function, "fields": self.args_panel.values()})

    # ------------------------------------------------------------- leaving
    def confirm_leave(self) -> bool:
        """Unsaved edits are never dropped silently: ask Save / Discard / Cancel."""
        if not self.document.modified:
            return True
        answer = QMessageBox.question(
            self, "Unsaved edits",
            f"{self.document.doc.display_name} has unsaved edits. Save them first?",
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel, QMessageBox.StandardButton.Save)
        if answer == QMessageBox.StandardButton.Save:
            return self.save()
        if answer == QMessageBox.StandardButton.Discard:
            self.document.discard_recovery()
            return True
        return False
