"""Qt receivers following the window state: the thin Qt side of
:class:`~jaxviz.views.window.window_state.WindowState`.

The state's fields are psygnal signals (``state.events.function``); :func:`follow`
connects one to a Qt receiver so that the connection ends with the receiver (a
deleted widget is never called), with no list of Qt signals restating the fields.

Example:
    >>> follow(state, "function", label.setText)                   # doctest: +SKIP
    >>> state.function = "f"         # the label shows f            # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import shiboken6
from PySide6.QtCore import QObject

from jaxviz.views.window.window_state import WindowState


def follow(state: WindowState, name: str, slot: Callable[[Any], object],
           receiver: QObject | None = None) -> Callable[[Any], None]:
    """Call ``slot(value)`` after every change of ``state``'s field ``name``.

    Args:
        state: the window state.
        name: one of its fields (``function``, ``result`` ...).
        slot: called with the new value.
        receiver: the QObject whose life bounds the connection; by default the object
            of ``slot`` when it is a QObject's method. Once it is destroyed the slot is
            disconnected and never called.

    Returns:
        the callable connected to the state's signal (to disconnect it by hand).

    Raises:
        AttributeError: ``name`` is not a field of the state.
    """
    signal = getattr(state.events, name)
    owner = receiver if receiver is not None else getattr(slot, "__self__", None)
    if not isinstance(owner, QObject):
        owner = None

    def call(value: Any) -> None:
        if owner is not None and not shiboken6.isValid(owner):
            signal.disconnect(call, missing_ok=True)
            return
        slot(value)

    signal.connect(call)
    if owner is not None:
        owner.destroyed.connect(lambda *_: signal.disconnect(call, missing_ok=True))
    return call


def follow_now(state: WindowState, name: str, slot: Callable[[Any], object],
               receiver: QObject | None = None) -> Callable[[Any], None]:
    """:func:`follow`, and call ``slot`` with the field's value now."""
    call = follow(state, name, slot, receiver)
    slot(getattr(state, name))
    return call
