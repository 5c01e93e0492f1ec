"""The device view's control bar: restart, step, play/pause, speed, scrubber, Copy as code."""

from __future__ import annotations

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

#: Scrubber positions per phase.
TICKS = 1000
SPEEDS = (0.25, 0.5, 1.0, 1.5, 2.0, 4.0)


class ControlBar(QWidget):
    """Buttons and a scrubber; emits what the user asked for, holds no state of its own.

    None of its widgets takes the keyboard focus, so the arrow and page keys
    (and a presenter's clicker) always reach the device view.
    """

    restartRequested = Signal()
    stepRequested = Signal(int)
    playToggled = Signal()
    speedChanged = Signal(float)
    scrubbed = Signal(int, float)  # phase, t
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
            QStyle.StandardPixmap.SP_MediaPlay), "Play / pause (Space)")
        self.forward_button = self._button(style.standardIcon(
            QStyle.StandardPixmap.SP_MediaSeekForward), "Next phase (Right, Page Down)")
        self.restart_button.clicked.connect(self.restartRequested)
        self.back_button.clicked.connect(lambda: self.stepRequested.emit(-1))
        self.play_button.clicked.connect(self.playToggled)
        self.forward_button.clicked.connect(lambda: self.stepRequested.emit(1))
        for b in (self.restart_button, self.back_button, self.play_button, self.forward_button):
            row.addWidget(b)
        self.speed = QComboBox()
        self.speed.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.speed.setToolTip("Animation speed")
        for s in SPEEDS:
            self.speed.addItem(f"{s:g}×", s)
        self.speed.setCurrentIndex(SPEEDS.index(1.0))
        self.speed.currentIndexChanged.connect(
            lambda k: self.speedChanged.emit(float(self.speed.itemData(k))))
        row.addWidget(self.speed)
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.slider.setToolTip("Scrub through the phases")
        self.slider.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.slider.sliderMoved.connect(self._scrub)
        self.slider.actionTriggered.connect(lambda _: self._scrub(self.slider.sliderPosition()))
        row.addWidget(self.slider, 1)
        self.label = QLabel()
        self.label.setMinimumWidth(90)
        row.addWidget(self.label)
        self.copy_button = QToolButton()
        self.copy_button.setObjectName("device_copy_code")
        self.copy_button.setText("Copy as code")
        self.copy_button.setToolTip("Copy the shown variant's call, with its arguments and mesh, "
                                    "as Python that runs as written")
        self.copy_button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.copy_button.setEnabled(False)
        self.copy_button.clicked.connect(self.copyRequested)
        row.addWidget(self.copy_button)
        self._phases = 0

    def _button(self, icon, tip: str) -> QToolButton:
        b = QToolButton()
        b.setIcon(icon)
        b.setToolTip(tip)
        b.setAutoRaise(True)
        b.setFocusPolicy(Qt.FocusPolicy.NoFocus)
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
                  self.slider):
            w.setEnabled(phases > 0)
