"""The numbers users type (device counts, timeouts, repetitions...): their ranges and one parser.

Every number jaxviz takes from a user is checked against a :class:`Limit`
here, by the command line (argparse ``type=`` functions in
:mod:`jaxviz.cli.options`) and by the window (spin box ranges), so the same
value is refused in the same words everywhere. A limit is finite on both
sides: ``nan``, ``inf`` and values too large for the machine never reach a
``sleep``, a ``Condition.wait`` or a device count.

Example:
    >>> parse_number("4", DEVICES)
    4
    >>> parse_number("nan", TIMEOUT)
    Traceback (most recent call last):
    ...
    ValueError: the timeout must be a number of seconds above 0 and at most 86400, not 'nan'
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Limit:
    """The values one kind of number may take.

    Attributes:
        what: how messages name it ("the device count").
        low, high: the smallest and largest value allowed.
        integer: whole numbers only.
        above_low: ``low`` itself is excluded (a timeout must be above 0).
        unit: what the number counts, for messages ("seconds").
    """

    what: str
    low: float
    high: float
    integer: bool = True
    above_low: bool = False
    unit: str = ""

    def describe(self) -> str:
        """The allowed range in words: ``a whole number from 1 to 512``."""
        low, high = _written(self.low), _written(self.high)
        if self.integer:
            return f"a whole number from {low} to {high}"
        unit = f" of {self.unit}" if self.unit else ""
        if self.above_low:
            return f"a number{unit} above {low} and at most {high}"
        return f"a number{unit} from {low} to {high}"

    def contains(self, value: float) -> bool:
        """True when ``value`` is allowed (finite, in range, whole when it must be)."""
        if isinstance(value, bool) or not math.isfinite(value):
            return False
        if self.integer and value != int(value):
            return False
        low_ok = value > self.low if self.above_low else value >= self.low
        return low_ok and value <= self.high


#: Simulated CPU devices of an engine (or the first N accelerators).
DEVICES = Limit("the device count", 1, 512)
#: The device count when none is given (simulated CPU devices without an accelerator).
DEFAULT_DEVICES = 8
#: Seconds a request may run.
TIMEOUT = Limit("the timeout", 0, 86400, integer=False, above_low=True, unit="seconds")
#: How long a request may take when no timeout is given, in seconds.
DEFAULT_TIMEOUT = 60.0
#: The batch added for vmap, pmap and sharding.
BATCH = Limit("the batch size", 1, 65536)
#: Measured calls per timing variant.
RUNS = Limit("the number of runs", 1, 100000)
#: Calls before the measured ones.
WARMUP = Limit("the number of warm-up calls", 0, 10000)
#: Calls dispatched back to back.
PIPELINE = Limit("the pipeline depth", 0, 1000)
#: GIF frames per device-view phase.
FRAMES_PER_PHASE = Limit("the number of frames per phase", 1, 120)
#: Video frames per second (``jaxviz animate --fps``).
FPS = Limit("the frame rate", 1, 120, integer=False, unit="frames per second")
#: The device view's text size factor.
FONT_SCALE = Limit("the font scale", 0.25, 8, integer=False)
#: A phase of the device view's animation, counted from 1 (``jaxviz animate --phase``).
PHASE = Limit("the phase", 1, 100_000)  # a 12-layer train step has about 700
#: Text width of ``jaxviz diff``.
WIDTH = Limit("the width", 40, 1000)
#: Processes of ``jaxviz multihost``.
PROCESSES = Limit("the number of processes", 1, 16)
#: A size of ``jaxviz time --sweep`` (the sweep plot's axis is logarithmic: 0 has no place).
SWEEP_SIZE = Limit("a sweep size", 1, 2**24)
#: A line of the user's file (``jaxviz step --until``).
LINE = Limit("the line number", 1, 1_000_000)
#: Elements of a value the stepper keeps whole (``jaxviz step --value-limit``).
VALUE_LIMIT = Limit("the value limit", 1, 1_000_000)
#: Seed of the stepper's random arguments (numpy's generators take any; 32 bits are plenty).
SEED = Limit("the seed", 0, 2**32 - 1)
#: Megabytes of values the stepper may record (``jaxviz step --record-limit``).
RECORD_LIMIT = Limit("the record limit", 0, 4096, integer=False, above_low=True,
                     unit="megabytes")


def _written(value: float) -> str:
    """A bound as a user would type it: ``4294967295``, ``0.25`` (never ``4.29e+09``)."""
    return str(int(value)) if value == int(value) else f"{value:g}"


def parse_number(text: str, limit: Limit) -> int | float:
    """The number in ``text``, if ``limit`` allows it.

    Raises:
        ValueError: saying what was typed and what ``limit`` allows.
    """
    value: int | float
    try:
        value = int(text) if limit.integer else float(text)
    except ValueError:
        value = math.nan
    if not limit.contains(value):
        raise ValueError(f"{limit.what} must be {limit.describe()}, not {text!r}")
    return value


def argument_type(limit: Limit) -> Callable[[str], int | float]:
    """An argparse ``type=`` that accepts what ``limit`` allows (the command line's and
    the window's ``--devices`` use it)."""

    def parse(text: str) -> int | float:
        try:
            return parse_number(text, limit)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    parse.__name__ = limit.what
    return parse
