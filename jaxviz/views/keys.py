"""The presenter's keys, once (no Qt).

Keys are named as Qt's ``QKeySequence(key).toString()`` spells them (``PgDown``,
``Right``, ``Space``, ``Esc``, ``Return``): the presentation, the window-level
presenter keys (:mod:`jaxviz.views.window.clicker_views`) and the device view all
read a key press by that name (:func:`jaxviz.ui.theme.keys.key_name`) and look it up
here.

Example:
    >>> CLICKER_MOVES["PgDown"], CLICKER_MOVES["Left"]
    (1, -1)
"""

from __future__ import annotations

#: The keys a lecturer's clicker sends and the way each steps (+1 on, -1 back).
CLICKER_MOVES: dict[str, int] = {"Right": 1, "PgDown": 1, "Space": 1, "Left": -1, "PgUp": -1}
#: Clicker keys a text field keeps while it has the focus (they move the cursor, type).
TEXT_FIELD_KEYS = frozenset({"Right", "Left", "Space"})
#: A clicker's blank-screen keys (B, period): they step nothing, and code that gives up
#: the clicker's keys (step mode, a maximized view) does not type them either.
BLANK_KEYS = frozenset({"B", "."})
#: More keys that step a presentation on and back (slide programs' own).
SLIDE_MOVES: dict[str, int] = {**CLICKER_MOVES, "Down": 1, "N": 1,
                               "Up": -1, "Backspace": -1, "P": -1}
#: The first and last slide or phase.
HOME, END = "Home", "End"
#: How a key is written for people (help texts), where Qt's name is an abbreviation.
KEY_LABELS = {"PgDown": "PageDown", "PgUp": "PageUp"}


def key_label(name: str) -> str:
    """A key's name as help texts write it (``PageDown`` for ``PgDown``)."""
    return KEY_LABELS.get(name, name)
