"""The device view's control bar: restart, step, play/pause, speed, scrubber, Copy as code,
Export."""

from __future__ import annotations

import re

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QSlider,
    QStyle,
    QToolButton,
    QWidget,
)

from jaxviz.ui.devices.export_menu import DeviceExportMenu
from jaxviz.ui.text.plain import plain
from jaxviz.views import palette

#: Scrubber positions per phase.
TICKS = 1000
SPEEDS = (0.25, 0.5, 1.0, 1.5, 2.0, 4.0)


class ControlBar(QWidget):
    """Buttons and a scrubber; emits what the user asked for, holds no state of its own.

    Tab reaches every control (a click does not take the focus); the presenter
    keys step the view wherever the focus is (:mod:`jaxviz.ui.window.presenter_keys`).
    """

    restartRequested = Signal()
    stepRequested = Signal(int)
    playToggled = Signal()
    speedChanged = Signal(float)
    scrubbed = Signal(int, float)  # phase, t
    exportRequested = Signal(str, str)  # subject (frame, animation), format name
    stopExportRequested = Signal()
    copyRequested = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        style = self.style()
        row = QHBoxLayout(self)
        row.setContentsMargins(4, 2, 4, 2)
        row.setSpacing(4)
        self.restart_button = self._button(style.standardIcon(
            QStyle.StandardPixmap.SP_MediaSkipBackward), "Restart (Home)")
        self.back_button = self._button(style.standardIcon(
            QStyle.StandardPixmap.SP_MediaSeekBackward), "Previous phase (Left, Page Up)")
        self.play_button = self._button(style.standardIcon(
            QStyle.StandardPixmap.SP_MediaPlay), "Play / pause")
        self.forward_button = self._button(style.standardIcon(
            QStyle.StandardPixmap.SP_MediaSeekForward), "Next phase (Right, Page Down, Space)")
        self.restart_button.clicked.connect(self.restartRequested)
        self.back_button.clicked.connect(lambda: self.stepRequested.emit(-1))
        self.play_button.clicked.connect(self.playToggled)
        self.forward_button.clicked.connect(lambda: self.stepRequested.emit(1))
        for b in (self.restart_button, self.back_button, self.play_button, self.forward_button):
            row.addWidget(b)
        self.speed = QComboBox()
        self.speed.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        self.speed.setToolTip("Animation speed")
        for s in SPEEDS:
            self.speed.addItem(f"{s:g}×", s)
        self.speed.setCurrentIndex(SPEEDS.index(1.0))
        self.speed.currentIndexChanged.connect(
            lambda k: self.speedChanged.emit(float(self.speed.itemData(k))))
        row.addWidget(self.speed)
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        self.slider.setToolTip("Scrub through the phases")
        self.slider.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.slider.sliderMoved.connect(self._scrub)
        self.slider.actionTriggered.connect(lambda _: self._scrub(self.slider.sliderPosition()))
        row.addWidget(self.slider, 1)
        self.label = plain(QLabel())
        self.label.setMinimumWidth(90)
        row.addWidget(self.label)
        self.copy_button = QToolButton()
        self.copy_button.setObjectName("device_copy_code")
        self.copy_button.setText("Copy as code")
        self.copy_button.setToolTip("Copy the shown variant's call, with its arguments and mesh, "
                                    "as Python that runs as written")
        self.copy_button.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        self.copy_button.setEnabled(False)
        self.copy_button.clicked.connect(self.copyRequested)
        row.addWidget(self.copy_button)
        self.export_status = plain(QLabel())
        self.export_status.hide()
        row.addWidget(self.export_status)
        self.stop_export_button = QToolButton()
        self.stop_export_button.setText("Stop")
        self.stop_export_button.setToolTip("Stop the export (nothing is written)")
        self.stop_export_button.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        self.stop_export_button.clicked.connect(self.stopExportRequested)
        self.stop_export_button.hide()
        row.addWidget(self.stop_export_button)
        self.export_menu = DeviceExportMenu(self)
        self.export_menu.requested.connect(self.exportRequested)
        self.export_button = QToolButton()
        self.export_button.setText("Export ▾")
        self.export_button.setObjectName("device_export")
        self.export_button.setToolTip("Save this frame (PNG, SVG, PDF) or the whole animation "
                                      "(MP4, WebM, GIF, APNG, PDF pages)")
        self.export_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.export_button.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        self.export_button.setMenu(self.export_menu)
        row.addWidget(self.export_button)
        self._phases = 0

    def _button(self, icon, tip: str) -> QToolButton:
        b = QToolButton()
        b.setIcon(icon)
        b.setToolTip(tip)
        b.setAutoRaise(True)
        b.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        return b

    def _scrub(self, value: int) -> None:
        if self._phases == 0:
            return
        phase = min(value // TICKS, self._phases - 1)
        t = min((value - phase * TICKS) / TICKS, 1.0)
        self.scrubbed.emit(phase, t)

    def show_state(self, phase: int, t: float, phases: int, playing: bool) -> None:
        """Reflect the view's state (no signals are emitted)."""
        self._phases = phases
        self.slider.blockSignals(True)
        self.slider.setRange(0, max(phases * TICKS - 1, 0))
        self.slider.setValue(min(int(phase * TICKS + t * (TICKS - 1)), max(phases * TICKS - 1, 0)))
        self.slider.blockSignals(False)
        icon = (QStyle.StandardPixmap.SP_MediaPause if playing
                else QStyle.StandardPixmap.SP_MediaPlay)
        self.play_button.setIcon(self.style().standardIcon(icon))
        self.label.setText(f"phase {phase + 1}/{phases}" if phases else "no phases")
        for w in (self.restart_button, self.back_button, self.play_button, self.forward_button,
                  self.slider, self.export_button):
            w.setEnabled(phases > 0)

    def export_message(self) -> str:
        """The last export message, whole."""
        return self.export_status.toolTip()

    def show_export(self, text: str, running: bool = False, error: bool = False) -> None:
        """Say how an export goes (``running``: with a Stop button); empty text hides it.

        The whole text is the label's tooltip (:meth:`export_message`)."""
        # Long messages (a path, a reason) are elided here and shown whole as the tooltip.
        shown = self.export_status.fontMetrics().elidedText(
            text, Qt.TextElideMode.ElideMiddle, max(240, self.width() // 3))
        self.export_status.setText(shown)
        # While it runs, the label only grows (to its text with the widest digits), so the
        # scrubber beside it does not twitch as the frame count ticks.
        widest = self.export_status.fontMetrics().horizontalAdvance(re.sub(r"\d", "8", shown))
        self.export_status.setMinimumWidth(
            max(self.export_status.minimumWidth(), widest + 2) if running else 0)
        self.export_status.setToolTip(text)
        self.export_status.setStyleSheet(f"color: {palette.EXPORT_ERROR_INK};" if error else "")
        self.export_status.setVisible(bool(text))
        self.stop_export_button.setVisible(running)
