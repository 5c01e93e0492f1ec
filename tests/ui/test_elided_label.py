"""An elided label shows what Qt's own eliding of its whole text shows, long texts included
(a sharded variant's call runs to thousands of characters; the label cuts it first)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt


@pytest.mark.parametrize("text", [
    "f(x)",
    "jax.jit(train_step, in_shardings=(" + ", ".join(
        f"{{'w{k}': NamedSharding(mesh, P('data', 'model'))}}" for k in range(300)) + "))",
    "i" * 5000 + "W" * 50,
    "W" * 5000,
    "\u200a" * 5000 + "W" * 50,  # a hair space: narrower than any ASCII character
])
@pytest.mark.parametrize("width", [40, 300, 1500])
@pytest.mark.parametrize("points", [10, 12, 16])  # (a hair space: 1.3, 1.6, 2.1 px)
def test_the_label_shows_qts_elision_of_its_whole_text(qtbot, text, width, points):
    from PySide6.QtGui import QFont

    from jaxviz.ui.text.elided import ElidedLabel

    label = ElidedLabel()
    qtbot.addWidget(label)
    font = QFont(label.font())
    font.setPointSize(points)
    label.setFont(font)
    label.resize(width, 30)
    label.setText(text)
    expected = label.fontMetrics().elidedText(text, Qt.TextElideMode.ElideRight, width)
    assert label.text() == text  # the whole text, as asked
    assert _shown(label) == expected


def _shown(label) -> str:
    """What the QLabel itself shows (ElidedLabel.text is the whole text)."""
    from PySide6.QtWidgets import QLabel

    return QLabel.text(label)
