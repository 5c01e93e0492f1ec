"""The presentation's keys and its cursor over slides, as plain data (no Qt).

The keys are those presenter clickers and slide programs use. :data:`KEY_MAP`
maps a key's name (Qt's ``QKeySequence`` spelling: ``PgDown``, ``Right``,
``Space``, ``B``, ``.``, ``Return``, ``Esc``) to an action;
:meth:`PresentationCursor.press` applies an action and says what happened.

=================================  =====================================
keys                               action
=================================  =====================================
PgDown, Right, Space, Down, N      next slide
PgUp, Left, Backspace, Up, P       previous slide
Home / End                         first / last slide
B or . (period)                    black screen (again: back)
W or , (comma)                     white screen (again: back)
digits then Enter                  jump to that slide (1 = the first)
Enter without digits               next slide
Esc                                leave (a blank screen or typed digits first)
Z                                  the whole jaxpr / folded to what matters
M                                  measure a timing step live / back to the recording
E                                  edit the function, come back to this slide
=================================  =====================================

A blank screen is left by any move key, Enter or Esc, without moving (action
``unblank``, as slide programs do); Esc after digits forgets them (``forget``).
Only ``leave`` leaves.

Example:
    >>> c = PresentationCursor(12)
    >>> c.press("PgDown").action, c.index
    ('next', 1)
    >>> c.press("3").message, c.press("Return").action, c.index
    ('go to slide 3 (Enter)', 'jump', 2)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from jaxviz.views.keys import END, HOME, SLIDE_MOVES

#: Key name -> action (the moves from :data:`jaxviz.views.keys.SLIDE_MOVES`).
KEY_MAP: dict[str, str] = {
    **{key: "next" if move > 0 else "back" for key, move in SLIDE_MOVES.items()},
    HOME: "first", END: "last",
    "B": "black", ".": "black", "W": "white", ",": "white",
    "Return": "enter", "Enter": "enter",
    "Esc": "leave",
    "Z": "whole", "M": "measure", "E": "edit",
    **{str(d): "digit" for d in range(10)},
}
#: Actions that move the cursor.
MOVES = ("next", "back", "first", "last")


@dataclass
class Pressed:
    """What a key did: its action, whether anything changed, and a word for the status."""

    action: str
    changed: bool
    message: str = ""


class PresentationCursor:
    """Which slide is shown, whether the screen is blanked, and the digits typed.

    Args:
        count: how many slides (at least 1).
        index: the slide to start on (0-based).
    """

    def __init__(self, count: int, index: int = 0) -> None:
        self.count = max(1, count)
        self.index = min(max(0, index), self.count - 1)
        self.blank: str | None = None  # "black" | "white"
        self.typed = ""
        self.whole = False

    def press(self, key: str) -> Pressed:
        """Apply the key named ``key`` (see :data:`KEY_MAP`); unknown keys do nothing."""
        action = KEY_MAP.get(key)
        if action is None:
            return Pressed("", False)
        if action == "digit":
            if len(self.typed) < 4:
                self.typed += key
            return Pressed(action, True, f"go to slide {self.typed} (Enter)")
        if action == "enter" and self.typed:
            return self._jump()
        typed, self.typed = self.typed, ""
        if action in ("black", "white"):
            self.blank = None if self.blank == action else action
            return Pressed(action, True)
        if self.blank is not None and action in (*MOVES, "enter", "leave"):
            self.blank = None  # a blank screen is left without moving
            return Pressed("unblank", True)
        if action == "leave" and typed:
            return Pressed("forget", True)  # Esc forgets the digits first
        if action == "enter":
            action = "next"
        if action in MOVES:
            return self._move(action)
        if action == "whole":
            self.whole = not self.whole
            return Pressed(action, True)
        return Pressed(action, action in ("leave", "measure", "edit"))

    def go(self, index: int) -> bool:
        """Show slide ``index`` (clamped); True when it changed."""
        index = min(max(0, index), self.count - 1)
        changed = index != self.index
        self.index = index
        if changed:
            self.whole = False
        return changed

    def _move(self, action: str) -> Pressed:
        target = {"next": self.index + 1, "back": self.index - 1, "first": 0,
                  "last": self.count - 1}[action]
        if not 0 <= target < self.count:
            edge = "the last" if action == "next" else "the first"
            return Pressed(action, False, f"this is {edge} slide")
        return Pressed(action, self.go(target))

    def _jump(self) -> Pressed:
        number, self.typed = int(self.typed), ""
        if not 1 <= number <= self.count:
            return Pressed("jump", False, f"no slide {number}: slides 1 to {self.count}")
        return Pressed("jump", self.go(number - 1))


@dataclass(frozen=True)
class ScreenInfo:
    """A screen as the presentation sees it: its name, size and whether it is the primary."""

    name: str
    width: int
    height: int
    primary: bool = False


def choose_screens(screens: list[ScreenInfo]) -> tuple[int, int | None]:
    """Which screen the audience sees and which shows the presenter console (indices).

    With one screen the audience gets it and there is no console. With more,
    as slide programs do, the console stays on the primary screen (the
    laptop) and the audience gets the largest other screen (the projector).
    """
    if not screens:
        return 0, None
    if len(screens) == 1:
        return 0, None
    primary = next((i for i, s in enumerate(screens) if s.primary), 0)
    others = [i for i in range(len(screens)) if i != primary]
    audience = max(others, key=lambda i: screens[i].width * screens[i].height)
    return audience, primary


@dataclass(frozen=True)
class OnScreen:
    """What a window shows, to start a presentation of it on the matching slide.

    Attributes:
        view: ``device``, ``timing``, ``diff``, ``jaxpr`` or ``source`` (what the
            lecturer looks at: a maximized or current tool tab, the compare layout,
            a pane clicked, else the code).
        variant: the variant shown (the device view's, the pane's; "" none).
        phase: the device view's phase (0-based), or None.
        pair: the compared variants, for ``diff``.
    """

    view: str
    variant: str = ""
    phase: int | None = None
    pair: tuple[str, str] = ("", "")


def matching_slide(slides: Sequence[OnScreen], shown: OnScreen) -> int:
    """The slide to start on for what the window shows: its index in ``slides`` (each
    described as an :class:`OnScreen`), the first one otherwise past a title slide.

    The best match has the same view, variant and phase (a device slide's phase,
    else the nearest one before it); then the same view and variant; then the same
    view; a jaxpr pane matches a ``program`` slide of the variant as well (a parallel
    variant's jaxpr is its program slide).

    Example:
        >>> deck = [OnScreen("title"), OnScreen("source"), OnScreen("jaxpr", "plain"),
        ...         OnScreen("program", "pmap"), OnScreen("device", "pmap", 0),
        ...         OnScreen("device", "pmap", 1)]
        >>> matching_slide(deck, OnScreen("device", "pmap", 1))
        5
        >>> matching_slide(deck, OnScreen("jaxpr", "pmap")), matching_slide(deck, OnScreen("x"))
        (3, 1)
    """
    views = {shown.view} | ({"program"} if shown.view == "jaxpr" else set())

    def score(slide: OnScreen) -> tuple[int, int]:
        if slide.view not in views:
            return (0, 0)
        if shown.view == "diff":
            return (3 if slide.pair == shown.pair else 1, 0)
        if shown.variant and slide.variant != shown.variant:
            return (1, 0)
        if shown.phase is None or slide.phase is None:
            return (2, 0)
        if slide.phase > shown.phase:
            return (2, -slide.phase)
        return (3, slide.phase)  # the phase itself, else the nearest before it

    best = max(range(len(slides)), key=lambda i: (score(slides[i]), -i), default=0)
    if slides and score(slides[best])[0] > 0:
        return best
    return next((i for i, s in enumerate(slides) if s.view != "title"), 0)


def elapsed_text(seconds: float) -> str:
    """``12:05`` (minutes:seconds), or ``1:02:05`` past an hour."""
    total = max(0, int(seconds))
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


# --------------------------------------------------------------------------- #
# Folding long texts to what a slide can hold
# --------------------------------------------------------------------------- #


@dataclass(frozen=True)
class Row:
    """One row of a code block on a slide.

    ``line`` is the index of the text line it shows (``-1`` for a fold marker),
    ``text`` what is drawn, ``continued`` whether it is a wrapped line's
    continuation, ``folded`` how many lines a fold marker stands for.
    """

    line: int
    text: str
    continued: bool = False
    folded: int = 0


def wrap_line(text: str, width: int) -> list[str]:
    """A line wrapped at ``width`` characters (at spaces where it can), continuations indented."""
    width = max(8, width)
    if len(text) <= width:
        return [text]
    indent = len(text) - len(text.lstrip(" "))
    lead = " " * min(indent + 4, width // 2)
    out: list[str] = []
    rest = text
    while len(rest) > width:
        cut = rest.rfind(" ", len(lead) + 1 if out else indent + 1, width + 1)
        if cut <= (len(lead) if out else indent):
            cut = width
        out.append(rest[:cut].rstrip())
        rest = lead + rest[cut:].lstrip(" ")
    out.append(rest)
    return out


def fold_lines(lines: list[str], lit: list[int], rows: int, width: int,
               context: int = 1, ends: bool = True) -> list[Row]:
    """The rows of ``lines`` that fit ``rows`` rows of ``width`` characters.

    Everything when it fits (long lines wrapped, never cut). Otherwise the lit
    lines, the first and the last line (``ends``), as many lines around the lit
    ones as fit, nearest first (none with ``context=0``), and one fold marker
    (``⋯ N lines``) for each gap; as a last resort the rows past the room become
    one marker.
    """
    rows = max(1, rows)
    wrapped = [wrap_line(t, width) for t in lines]
    if sum(len(w) for w in wrapped) <= rows:
        return _rows(wrapped, range(len(lines)))
    lit_set = {i for i in lit if 0 <= i < len(lines)}
    keep = ({0, len(lines) - 1} if ends else set()) | lit_set
    shown = _rows(wrapped, sorted(keep))
    if len(shown) <= rows:
        # Context around the lit lines, nearest first, while it fits.
        def distance(i: int) -> int:
            return min((abs(i - j) for j in lit_set), default=i)

        for i in sorted(set(range(len(lines))) - keep, key=lambda i: (distance(i), i)):
            if context == 0:
                break
            trial = _rows(wrapped, sorted(keep | {i}))
            if len(trial) > rows:
                continue
            keep.add(i)
            shown = trial
        return shown
    # Too much is lit: the first rows, then one marker for the rest.
    head = shown[:rows - 1]
    rest = len({r.line for r in shown[rows - 1:] if r.line >= 0})
    return head + [Row(-1, f"⋯ {rest} more line{'' if rest == 1 else 's'}", folded=rest)]


def _rows(wrapped: list[list[str]], keep: Iterable[int]) -> list[Row]:
    out: list[Row] = []
    last = -1
    for i in keep:
        if i > last + 1:
            gap = i - last - 1
            out.append(Row(-1, f"⋯ {gap} line{'' if gap == 1 else 's'} folded (Z: all)",
                           folded=gap))
        out.extend(Row(i, seg, continued=n > 0) for n, seg in enumerate(wrapped[i]))
        last = i
    if wrapped and last < len(wrapped) - 1:
        gap = len(wrapped) - 1 - last
        out.append(Row(-1, f"⋯ {gap} line{'' if gap == 1 else 's'} folded (Z: all)",
                       folded=gap))
    return out
