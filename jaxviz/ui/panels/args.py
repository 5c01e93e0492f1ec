"""The arguments panel: argument specs and parallel settings, validated as they are typed.

Every field is parsed on each keystroke
(:func:`~jaxviz.views.window.window_state.find_field_errors`:
pure Python, no engine round trip). A fault never moves the form: the field
gets a red frame and a ✖ icon whose tooltip says what is wrong, and the
message, with a caret under the fault, appears in a line reserved for it
under the form (its height is kept whether or not there is a message), and
in the status bar (``messageChanged``). The engine's own complaints about a
field (``ErrorInfo.field``) are shown the same way. The device count is not
sent with requests: changing it restarts the engine (``devicesChanged``).

Bound to the window's :class:`~jaxviz.views.window.window_state.WindowState`
(:meth:`ArgsPanel.bind`), the panel writes what is typed into its trace
settings and shows settings set elsewhere (an example opened, a file's
remembered fields).
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import (
    QAction,
    QFontDatabase,
    QFontMetrics,
    QIcon,
    QPainter,
    QPen,
    QPixmap,
)
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QScrollArea,
    QSizePolicy,
    QSpinBox,
    QStyle,
    QWidget,
)

from jaxviz.model import TraceSettings
from jaxviz.model.limits import BATCH, DEFAULT_DEVICES, DEVICES
from jaxviz.model.settings_table import DEFAULT_AXIS_NAME, SETTINGS, TRACE_SETTINGS, TraceSetting
from jaxviz.ui.binding import follow
from jaxviz.ui.theme import style
from jaxviz.views.window.window_state import WindowState, find_field_errors, settings_from

#: The mesh axis types the Mesh axes choice offers (``axis_types``; None is auto).
AXIS_TYPE_CHOICES = (("auto", None), ("explicit", "explicit"))


#: Lines of text the message under the form has room for (message, text, caret).
MESSAGE_LINES = 3


class _Field:
    """An input and its fault: a red frame, a ✖ icon with the message as its tooltip."""

    def __init__(self, label: str, editor: QLineEdit | QSpinBox | QCheckBox | QComboBox):
        self.label = label
        self.editor = editor
        self.tooltip = editor.toolTip()
        #: ``(message, text as typed, position)`` while the field is at fault.
        self.fault: tuple[str, str, int | None] | None = None
        self.icon: QAction | None = None
        if isinstance(editor, QLineEdit):
            self.icon = editor.addAction(_error_icon(), QLineEdit.ActionPosition.TrailingPosition)
            self.icon.setVisible(False)

    def show_error(self, message: str, text: str = "", position: int | None = None) -> None:
        self.fault = (message, text, position)
        self.editor.setToolTip(f"✖ {message}")
        if self.icon is not None:
            self.icon.setToolTip(f"✖ {message}")
            self.icon.setVisible(True)
        self._mark(True)

    def clear_error(self) -> None:
        if self.fault is None:  # (every field is checked at every change: most are fine)
            return
        self.fault = None
        self.editor.setToolTip(self.tooltip)
        if self.icon is not None:
            self.icon.setVisible(False)
        self._mark(False)

    def message_html(self, columns: int) -> str:
        """The fault for the line under the form: message, then an excerpt of the text
        with a caret under the fault (at most ``columns`` characters wide)."""
        if self.fault is None:
            return ""
        message, text, position = self.fault
        body = f"✖ <b>{html.escape(self.label)}</b>: {html.escape(message, quote=False)}"
        if position is not None and text and "\n" not in text:
            excerpt, column = caret_excerpt(text, position, columns)
            body += ("<pre style='margin:0'>" + html.escape(excerpt, quote=False) + "\n"
                     + " " * column + "^</pre>")
        return body

    def message_text(self) -> str:
        """The fault as plain text: the message, the text and a caret under the fault."""
        if self.fault is None:
            return ""
        message, text, position = self.fault
        out = f"✖ {message}"
        if position is not None and text and "\n" not in text:
            out += f"\n{text}\n{' ' * position}^"
        return out

    def _mark(self, error: bool) -> None:
        if style.set_style_property(self.editor, "error", error):
            self.editor.update()


def caret_excerpt(text: str, position: int, columns: int) -> tuple[str, int]:
    """A piece of ``text`` at most ``columns`` wide around ``position``, and the
    position's column in it (``…`` marks what was cut)."""
    columns = max(8, columns)
    if len(text) <= columns:
        return text, position
    start = max(0, min(position - columns // 2, len(text) - columns + 1))
    excerpt = text[start:start + columns - 1]
    column = position - start
    if start > 0:
        excerpt, column = "…" + excerpt[1:], column
    if start + columns - 1 < len(text):
        excerpt = excerpt[:-1] + "…"
    return excerpt, column


def _error_icon() -> QIcon:
    """A small red disc with a white cross, drawn at the line edit's icon size."""
    image = QPixmap(32, 32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(style.ERROR_COLOUR)
    painter.drawEllipse(2, 2, 28, 28)
    pen = QPen(Qt.GlobalColor.white, 4, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap)
    painter.setPen(pen)
    painter.drawLine(11, 11, 21, 21)
    painter.drawLine(21, 11, 11, 21)
    painter.end()
    return QIcon(image)


class ArgsPanel(QScrollArea):
    """Argument specs, batch, in_axes, axis name, mesh, partition specs and the device count."""

    #: Some field changed and every field is valid: time to re-trace.
    changed = Signal()
    #: The device count changed (debounced): the engine must restart.
    devicesChanged = Signal(int)
    #: The fault the line under the form shows, in one line ("" when every field is fine).
    messageChanged = Signal(str)

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
        for setting in TRACE_SETTINGS:
            self._add_field(form, setting.name, setting.label, self._editor(setting),
                            setting.tooltip)
        self.devices = QSpinBox()
        self.devices.setRange(int(DEVICES.low), int(DEVICES.high))
        self.devices.setValue(DEFAULT_DEVICES)
        self._add_field(form, "devices", "Devices", self.devices,
                        "How many devices JAX starts with. Changing it restarts the "
                        "engine (simulated CPU devices when there is no accelerator).")
        # The line reserved for a fault's message: always this high, never wider than the
        # form, so a message coming or going moves no field.
        self.message = QLabel()
        self.message.setObjectName("args_message")
        style.set_role(self.message, "field-error")
        self.message.setTextFormat(Qt.TextFormat.RichText)
        self.message.setWordWrap(True)
        self.message.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.message.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        form.addRow(self.message)
        self._reserve_message_room()
        self._default_args_placeholder = self.edits["args"].placeholderText()
        self.setWidget(inner)
        self._devices_timer = QTimer(self, singleShot=True, interval=700)
        self._devices_timer.timeout.connect(self._devices_settled)
        self.devices.valueChanged.connect(self._devices_edited)
        self._quiet = False
        self._message_line = ""
        self._state: WindowState | None = None

    def _editor(self, setting: TraceSetting) -> QLineEdit | QSpinBox | QCheckBox | QComboBox:
        """The input a setting is typed in (kept as ``self.NAME`` or in ``self.edits``)."""
        if setting.kind == "count":  # the batch
            self.batch = QSpinBox()
            self.batch.setRange(0, int(BATCH.high))  # 0: the default
            self.batch.setSpecialValueText("= devices")
            self.batch.valueChanged.connect(self._edited)
            return self.batch
        if setting.kind == "flag":  # check_vma
            self.check_vma = QCheckBox(setting.name)
            self.check_vma.setChecked(setting.default)
            self.check_vma.toggled.connect(self._edited)
            return self.check_vma
        if setting.name == "axis_types":
            self.axis_types = QComboBox()
            for label, value in AXIS_TYPE_CHOICES:
                self.axis_types.addItem(label, value)
            self.axis_types.currentIndexChanged.connect(self._edited)
            return self.axis_types
        edit = QLineEdit()
        edit.setPlaceholderText(setting.placeholder)
        edit.setClearButtonEnabled(True)
        edit.textEdited.connect(self._edited)
        self.edits[setting.name] = edit
        return edit

    # ------------------------------------------------------------ binding
    def _add_field(self, form: QFormLayout, name: str, label: str,
                   widget: QLineEdit | QSpinBox | QCheckBox | QComboBox, tip: str) -> None:
        """A row of the form: ``widget`` under ``label``, named ``field_NAME`` (tests and
        scripts find it by that), with its tooltip and its place for a fault's message."""
        widget.setObjectName(f"field_{name}")
        widget.setToolTip(tip)
        self.fields[name] = _Field(label, widget)
        form.addRow(label, widget)

    def bind(self, state: WindowState) -> None:
        """Write what is typed into ``state`` and show what it holds from now on."""
        self._state = state
        follow(state, "settings", self._follow_settings)
        follow(state, "devices", self._follow_devices)
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
        out["axis_name"] = out["axis_name"] or DEFAULT_AXIS_NAME
        out["check_vma"] = self.check_vma.isChecked()
        out["axis_types"] = self.axis_types.currentData()
        return out

    def set_values(self, values: dict, devices: int | None = None) -> None:
        """Fill the fields (e.g. from an example's settings) without emitting ``changed``."""
        self._quiet = True
        try:
            for name, edit in self.edits.items():
                value = values.get(name)
                edit.setText("" if value is None else str(value))
                edit.setCursorPosition(0)  # a long spec shows its start, not its end
            self.batch.setValue(int(values.get("batch") or 0))
            check_vma = values.get("check_vma")
            self.check_vma.setChecked(SETTINGS["check_vma"].default if check_vma is None
                                      else check_vma is not False)
            self._set_axis_types(values.get("axis_types"))
            if devices is not None:
                self.devices.blockSignals(True)
                self.devices.setValue(devices)
                self.devices.blockSignals(False)
        finally:
            self._quiet = False
        self._write_state()
        self.validate()

    def _set_axis_types(self, value: str | None) -> None:
        """Show ``value``: a choice, or a per-axis text (``explicit,auto``) as its own item."""
        index = self.axis_types.findData(value or None)
        if index < 0:
            self.axis_types.addItem(str(value), value)
            index = self.axis_types.count() - 1
        self.axis_types.setCurrentIndex(index)

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
        """Check every field and mark each fault (see the module's docstring). True when
        all are fine."""
        errors = self.find_errors()
        for name, field in self.fields.items():
            if name in errors:
                message, position = errors[name]
                text = self.edits[name].text() if name in self.edits else ""
                field.show_error(message, text, position)
            else:
                field.clear_error()
        self._show_message()
        return not errors

    def find_errors(self) -> dict[str, tuple[str, int | None]]:
        """``field -> (message, position)`` for every field that does not parse (positions
        point into the text as typed; see
        :func:`~jaxviz.views.window.window_state.find_field_errors`)."""
        texts = {name: edit.text() for name, edit in self.edits.items()}
        texts["axis_types"] = self.axis_types.currentData() or ""
        return find_field_errors(texts, self.devices.value())

    def labels(self) -> dict[str, str]:
        """Each setting's field label (``in_axes``, ``Specs``, ``Batch``): what the window's
        messages call the settings (see :mod:`jaxviz.model.setting_words`)."""
        return {name: field.label for name, field in self.fields.items()}

    def set_field_error(self, name: str, message: str, position: int | None = None) -> bool:
        """Show an error the engine reported for a field; False if there is no such field."""
        field = self.fields.get(name)
        if field is None:
            return False
        text = self.edits[name].text() if name in self.edits else ""
        field.show_error(message, text, position)
        self._show_message()
        return True

    def field_error(self, name: str) -> str:
        """A field's fault as plain text: the message, the text and a caret under the
        fault ('' when the field is fine)."""
        return self.fields[name].message_text()

    @property
    def message_line(self) -> str:
        """The fault the line under the form shows, in one line ("" when none)."""
        return self._message_line

    def suggest_args(self, placeholder: str) -> None:
        """What the empty Args field says: the function's parameters (``params, x: f32[8]``),
        or the usual example when ``placeholder`` is empty."""
        self.edits["args"].setPlaceholderText(placeholder or self._default_args_placeholder)

    def _show_message(self) -> None:
        """The line under the form: the fault of the field being typed in, else the first."""
        at_fault = [f for f in self.fields.values() if f.fault is not None]
        field = next(iter([f for f in at_fault if f.editor.hasFocus()] or at_fault), None)
        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        mono.setPointSizeF(self.message.font().pointSizeF())
        columns = self.message.width() // max(1, QFontMetrics(mono).horizontalAdvance("m")) - 1
        self.message.setText(field.message_html(columns) if field is not None else "")
        self.message.setToolTip("\n".join(f"{f.label}: {f.fault[0]}" for f in at_fault
                                          if f.fault is not None))
        line = ""
        if field is not None and field.fault is not None:
            more = len(at_fault) - 1
            line = f"Arguments ▸ {field.label}: {field.fault[0]}" + \
                (f" (and {more} more field{'s' if more > 1 else ''})" if more else "")
        if line != self._message_line:
            self._message_line = line
            self.messageChanged.emit(line)

    def _reserve_message_room(self) -> None:
        self.message.setFixedHeight(self.message.fontMetrics().lineSpacing() * MESSAGE_LINES + 6)

    def fit_fields(self, room: int) -> None:
        """Each field has room for its placeholder (and the clear button and the fault's
        ✖), up to ``room`` pixels: a narrow panel puts a field under its label rather than
        squeezing it to a few letters ("fr…")."""
        self._field_room = room
        inner = self.widget()
        layout = inner.layout() if inner is not None else None
        if layout is not None:  # never wider than the panel shows (no field cut at its right)
            margins = layout.contentsMargins()
            bar = self.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent)
            room = min(room, self.width() - bar - margins.left() - margins.right()
                       - 2 * self.frameWidth() - 2)
        room = max(room, 60)
        for edit in self.edits.values():
            need = edit.fontMetrics().horizontalAdvance(edit.placeholderText()) + 48
            edit.setMinimumWidth(min(need, room))
        if inner is not None and layout is not None:  # a field's holder adds a little too
            layout.invalidate()
            over = inner.minimumSizeHint().width() - (self.width() - bar - 2 * self.frameWidth())
            if over > 0 and room - over >= 60:
                for edit in self.edits.values():
                    edit.setMinimumWidth(min(edit.minimumWidth(), room - over))

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        room = getattr(self, "_field_room", None)
        if room is not None:
            self.fit_fields(room)

    def set_zoom(self, zoom: int) -> None:
        """Fonts follow the application font: the message line keeps room for its lines."""
        self._reserve_message_room()
        inner = self.widget()
        if inner is not None:
            inner.adjustSize()

