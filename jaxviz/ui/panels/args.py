"""The arguments panel: argument specs and parallel settings, validated as they are typed.

Every field is parsed on each keystroke (:func:`~jaxviz.model.window_state.find_field_errors`:
pure Python, no engine round trip); a fault is shown right under its field with the
message and a caret at the position, and the field gets a red frame. The
engine's own complaints about a field (``ErrorInfo.field``) land in the same
place. The device count is not sent with requests: changing it restarts the
engine (``devicesChanged``).

Bound to the window's :class:`~jaxviz.model.window_state.WindowState`
(:meth:`ArgsPanel.bind`), the panel writes what is typed into its trace
settings and shows settings set elsewhere (an example opened, a file's
remembered fields).
"""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QTextDocumentFragment
from PySide6.QtWidgets import (
    QCheckBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from jaxviz.model import TraceSettings
from jaxviz.model.window_state import WindowState, find_field_errors, settings_from

#: name -> (label, placeholder, tooltip) for the text fields, in panel order.
TEXT_FIELDS = {
    "args": ("Args", "f32[5], f32[3]  or  x, w",
             "The arguments of one call, as abstract types (f32[5]) or Python "
             "expressions evaluated in the file (jnp.arange(5.))."),
    "batched_args": ("Batched", "from the arguments",
                     "Already-batched arguments for vmap, pmap and the sharded variants "
                     "(default: the arguments with a batch axis added)."),
    "in_axes": ("in_axes", "0 for every argument",
                "The batch axis of each argument for vmap and pmap, e.g. 0, None."),
    "axis_name": ("Axis", "i", "The name collectives (psum, all_gather ...) use for the "
                                    "mapped axis."),
    "mesh": ("Mesh", "i=<devices>", "Device mesh axes and sizes for the sharded and "
                                    "shard_map variants, e.g. data=4,model=2."),
    "specs": ("Specs", "P('i') per argument",
              "A PartitionSpec per argument, e.g. P('data', None), P(None, 'model')."),
    "out_specs": ("Out specs", "inferred", "The output PartitionSpecs for shard_map."),
}


class _Field(QWidget):
    """An input with its error message underneath (hidden while the input is fine)."""

    def __init__(self, editor: QWidget, parent: QWidget | None = None):
        super().__init__(parent)
        self.editor = editor
        self.error = QLabel()
        self.error.setProperty("role", "field-error")
        self.error.setTextFormat(Qt.TextFormat.RichText)
        self.error.setWordWrap(True)
        self.error.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(editor)
        layout.addWidget(self.error)

    def show_error(self, message: str, text: str = "", position: int | None = None) -> None:
        body = f"✖ {html.escape(message)}"
        if position is not None and text and "\n" not in text:
            body += ("<pre style='margin:0'>" + html.escape(text) + "\n"
                     + " " * position + "^</pre>")
        self.error.setText(body)
        self.error.show()
        self.editor.setProperty("error", True)
        self._repolish()

    def clear_error(self) -> None:
        self.error.hide()
        self.error.clear()
        self.editor.setProperty("error", False)
        self._repolish()

    def _repolish(self) -> None:
        self.editor.style().unpolish(self.editor)
        self.editor.style().polish(self.editor)
        self.editor.update()


class ArgsPanel(QScrollArea):
    """Argument specs, batch, in_axes, axis name, mesh, partition specs and the device count."""

    #: Some field changed and every field is valid: time to re-trace.
    changed = Signal()
    #: The device count changed (debounced): the engine must restart.
    devicesChanged = Signal(int)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWidgetResizable(True)
        self.setFrameShape(QScrollArea.Shape.NoFrame)
        inner = QWidget()
        form = QFormLayout(inner)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        form.setLabelAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop)
        self.fields: dict[str, _Field] = {}
        self.edits: dict[str, QLineEdit] = {}
        for name, (label, placeholder, tip) in TEXT_FIELDS.items():
            edit = QLineEdit()
            edit.setObjectName(f"field_{name}")
            edit.setPlaceholderText(placeholder)
            edit.setToolTip(tip)
            edit.setClearButtonEnabled(True)
            edit.textEdited.connect(self._edited)
            self.edits[name] = edit
            self.fields[name] = _Field(edit)
            form.addRow(label, self.fields[name])
            if name == "args":
                self.batch = QSpinBox()
                self.batch.setObjectName("field_batch")
                self.batch.setRange(0, 1 << 16)
                self.batch.setSpecialValueText("= devices")
                self.batch.setToolTip("Batch size for vmap, pmap and sharding "
                                      "(default: the device count).")
                self.batch.valueChanged.connect(self._edited)
                self.fields["batch"] = _Field(self.batch)
                form.addRow("Batch", self.fields["batch"])
        self.check_vma = QCheckBox("check_vma")
        self.check_vma.setObjectName("field_check_vma")
        self.check_vma.setChecked(True)
        self.check_vma.setToolTip(
            "shard_map's check_vma: JAX tracks which mesh axes each value varies over "
            "(psum_invariant, pvary and {V:axis} in the jaxpr). With it, jax.grad with respect "
            "to an argument replicated by P() sums its gradient over the mesh axis. Off: "
            "shard_map is traced as pmap traces it.")
        self.check_vma.toggled.connect(self._edited)
        self.fields["check_vma"] = _Field(self.check_vma)
        form.addRow("shard_map", self.fields["check_vma"])
        self.devices = QSpinBox()
        self.devices.setObjectName("field_devices")
        self.devices.setRange(1, 512)
        self.devices.setValue(8)
        self.devices.setToolTip("How many devices JAX starts with. Changing it restarts the "
                                "engine (simulated CPU devices when there is no accelerator).")
        self.fields["devices"] = _Field(self.devices)
        form.addRow("Devices", self.fields["devices"])
        self.setWidget(inner)
        self._devices_timer = QTimer(self, singleShot=True, interval=700)
        self._devices_timer.timeout.connect(self._devices_settled)
        self.devices.valueChanged.connect(self._devices_edited)
        self._quiet = False
        self._state: WindowState | None = None

    # ------------------------------------------------------------ binding
    def bind(self, state: WindowState, settings_changed: Any, devices_changed: Any) -> None:
        """Write what is typed into ``state`` and show what it holds from now on.

        Args:
            state: the window state.
            settings_changed, devices_changed: the Qt signals announcing its
                ``settings`` and ``devices`` changes (see
                :class:`~jaxviz.ui.window.state_binding.StateBinding`).
        """
        self._state = state
        settings_changed.connect(self._follow_settings)
        devices_changed.connect(self._follow_devices)
        self.set_values(state.settings.settings(), devices=state.devices)

    def _write_state(self) -> None:
        if self._state is not None:
            self._state.set_settings(self.values())

    def _follow_settings(self, settings: TraceSettings) -> None:
        if self._state is not None and settings_from(self.values()) != settings:
            self.set_values(settings.settings())

    def _follow_devices(self, devices: int) -> None:
        if devices != self.devices.value():
            self.devices.blockSignals(True)
            self.devices.setValue(devices)
            self.devices.blockSignals(False)
            self.validate()

    def _devices_settled(self) -> None:
        if self._state is not None:
            self._state.devices = self.devices.value()
        self.devicesChanged.emit(self.devices.value())

    # ------------------------------------------------------------- values
    def values(self) -> dict:
        """The request fields as typed (empty texts are ``None``; batch 0 is ``None``)."""
        out: dict = {name: (edit.text().strip() or None) for name, edit in self.edits.items()}
        out["batch"] = self.batch.value() or None
        out["axis_name"] = out["axis_name"] or "i"
        out["check_vma"] = self.check_vma.isChecked()
        return out

    def set_values(self, values: dict, devices: int | None = None) -> None:
        """Fill the fields (e.g. from an example's settings) without emitting ``changed``."""
        self._quiet = True
        try:
            for name, edit in self.edits.items():
                value = values.get(name)
                edit.setText("" if value is None else str(value))
            self.batch.setValue(int(values.get("batch") or 0))
            self.check_vma.setChecked(values.get("check_vma") is not False)
            if devices is not None:
                self.devices.blockSignals(True)
                self.devices.setValue(devices)
                self.devices.blockSignals(False)
        finally:
            self._quiet = False
        self._write_state()
        self.validate()

    def device_count(self) -> int:
        return self.devices.value()

    # --------------------------------------------------------- validation
    def _edited(self, *_args) -> None:
        if self._quiet:
            return
        self._write_state()
        if self.validate():
            self.changed.emit()

    def _devices_edited(self, _value: int) -> None:
        self.validate()
        self._devices_timer.start()

    def validate(self) -> bool:
        """Check every field; show each fault under its field. True when all are fine."""
        errors = self.find_errors()
        for name, field in self.fields.items():
            if name in errors:
                message, position = errors[name]
                text = self.edits[name].text() if name in self.edits else ""
                field.show_error(message, text, position)
            else:
                field.clear_error()
        return not errors

    def find_errors(self) -> dict[str, tuple[str, int | None]]:
        """``field -> (message, position)`` for every field that does not parse (positions
        point into the text as typed; see :func:`~jaxviz.model.window_state.find_field_errors`)."""
        texts = {name: edit.text() for name, edit in self.edits.items()}
        return find_field_errors(texts, self.devices.value())

    def set_field_error(self, name: str, message: str, position: int | None = None) -> bool:
        """Show an error the engine reported for a field; False if there is no such field."""
        field = self.fields.get(name)
        if field is None:
            return False
        text = self.edits[name].text() if name in self.edits else ""
        field.show_error(message, text, position)
        return True

    def field_error(self, name: str) -> str:
        """The error shown under a field, as plain text ('' when none)."""
        field = self.fields[name]
        if not field.error.isVisibleTo(self):
            return ""
        return QTextDocumentFragment.fromHtml(field.error.text()).toPlainText()

    def set_zoom(self, zoom: int) -> None:
        """Fonts follow the application font; nothing to do beyond a relayout."""
        inner = self.widget()
        if inner is not None:
            inner.adjustSize()

