"""Untrusted text is plain text, everywhere.

A ``QLabel`` (and a tooltip) guesses whether its text is HTML
(``Qt.mightBeRichText``): a variant name, a host field, a file name or an
error message that happens to read ``<img src=...>`` would be rendered, and Qt
would try to load the image. Text that came from outside jaxviz -- a timing
recording, a lecture, a file, the user's code, JAX's messages -- is shown
with :func:`plain` labels and :func:`plain_tooltip`; only text jaxviz wrote
itself, with untrusted parts escaped (``html.escape``), is ever rich text.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel


def plain(label: QLabel) -> QLabel:
    """Make ``label`` show its text as plain text, never as HTML; returns it."""
    label.setTextFormat(Qt.TextFormat.PlainText)
    return label


def plain_tooltip(text: str) -> str:
    """A tooltip that shows ``text`` as written (escaped inside rich text Qt cannot guess)."""
    if not text:
        return ""
    return f"<p style='white-space:pre-wrap'>{html.escape(text)}</p>"
