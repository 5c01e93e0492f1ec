"""Presenter keys: which key steps what, and the registry of views that step (no Qt).

A lecturer's clicker sends Right/Left, Page Down/Up (and some send Space). In
jaxviz these keys are *window-level*: they step whatever clicker view is shown
-- the device animation, step mode, a presentation -- whichever widget has the
keyboard focus. The one exception is typing: while a text field (the editor, a
line edit) has the focus, it keeps Right, Left and Space (they move the cursor
and type); Page Down/Up still step, since no one pages through a one-line field
during a lecture and a clicker sends them.

A view that steps implements :class:`ClickerView` (two methods) and registers
itself with the window's :class:`ClickerViews`, with a predicate saying when
it is shown and a priority (the highest shown one gets the keys)::

    registry.register("devices", device_view, shown=lambda: tab_is_current(), priority=10)

Example:
    >>> class Counter:
    ...     def __init__(self): self.at = 0
    ...     def step_forward(self): self.at += 1; return True
    ...     def step_back(self): self.at -= 1; return True
    >>> views, c = ClickerViews(), Counter()
    >>> views.register("counter", c, shown=lambda: True)
    >>> presenter_move("PgDown", typing=True), presenter_move("Right", typing=True)
    (1, None)
    >>> views.step(presenter_move("Right", typing=False) or 0), c.at
    (True, 1)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from jaxviz.views.keys import CLICKER_MOVES, TEXT_FIELD_KEYS

#: The presenter keys (Qt's key names) and the way each one steps.
PRESENTER_KEYS = CLICKER_MOVES


def presenter_move(key: str, typing: bool, modified: bool = False) -> int | None:
    """How a presenter key steps: +1 on, -1 back, None when it is not the presenter's.

    Args:
        key: the key's name (``"Right"``, ``"PgDown"`` ...).
        typing: a text field has the keyboard focus (it keeps :data:`TEXT_FIELD_KEYS`).
        modified: Ctrl, Alt, Shift or Meta is held (a shortcut or a selection, never a
            clicker).
    """
    if modified or key not in PRESENTER_KEYS or (typing and key in TEXT_FIELD_KEYS):
        return None
    return PRESENTER_KEYS[key]


@runtime_checkable
class ClickerView(Protocol):
    """A view a presenter's clicker steps: its two buttons, forward and back."""

    def step_forward(self) -> bool:
        """One step on; False when there is none (at the end, nothing to show)."""
        ...

    def step_back(self) -> bool:
        """One step back; False when there is none."""
        ...


@dataclass
class _Entry:
    view: ClickerView
    shown: Callable[[], bool]
    priority: int
    order: int


class ClickerViews:
    """The window's views that step, each with when it is shown; the keys go to one."""

    def __init__(self) -> None:
        self._entries: dict[str, _Entry] = {}
        self._added = 0

    def register(self, name: str, view: ClickerView, shown: Callable[[], bool],
                 priority: int = 0) -> None:
        """Let ``view`` take the presenter keys while ``shown()`` holds.

        Args:
            name: what it is (registering a name again replaces it).
            view: what steps.
            shown: whether the view is on screen now (a tab is current, a mode is on).
            priority: among several shown views the highest takes the keys (equal
                priorities: the one registered last).
        """
        self._added += 1
        self._entries[name] = _Entry(view, shown, priority, self._added)

    def unregister(self, name: str) -> None:
        """Forget a view (nothing happens for a name never registered)."""
        self._entries.pop(name, None)

    def names(self) -> list[str]:
        """The registered names, in the order they were registered."""
        return sorted(self._entries, key=lambda n: self._entries[n].order)

    def current_name(self) -> str | None:
        """The name of the view that takes the keys now; None when none is shown."""
        shown = [(e.priority, e.order, n) for n, e in self._entries.items() if e.shown()]
        return max(shown)[2] if shown else None

    def current(self) -> ClickerView | None:
        """The view that takes the keys now; None when none is shown."""
        name = self.current_name()
        return self._entries[name].view if name is not None else None

    def step(self, direction: int) -> bool:
        """Step the current view on (``direction`` > 0) or back; False when no view is
        shown or it could not step."""
        view = self.current()
        if view is None or direction == 0:
            return False
        return view.step_forward() if direction > 0 else view.step_back()
