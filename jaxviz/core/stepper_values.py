"""Concrete arrays as :class:`~jaxviz.model.stepping.Value` records, within a size budget.

Small values are kept exactly (nested lists); larger ones as a summary (shape,
dtype, min/max/mean over the finite elements, how many are not finite, the
first few elements and a histogram). In summary mode every value is kept as
its statistics only. :class:`Recorder` also counts what it keeps, so a
stepping that would record too much stops and says how much.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxviz.core import jax_internals
from jaxviz.model.stepping import HISTOGRAM_BINS, Value, ValueSummary

#: Elements of a summarised value shown as its sample.
SAMPLE_SIZE = 8
#: Recently recorded values remembered (a step's inputs are mostly earlier outputs).
CACHE_SIZE = 256
#: Bytes a value record costs besides its numbers (shape, dtype, field names).
_OVERHEAD = 64
#: Bytes one kept number costs (as JSON text, roughly).
_NUMBER = 10


class TooMuchToRecord(Exception):
    """Recording went over the budget (the message says how far it got)."""


def short_dtype(dtype: Any) -> str:
    """The dtype name a jaxpr prints: ``f32``, ``i32``, ``u8``, ``bf16``, ``bool``, ``c64``."""
    name = np.dtype(dtype).name
    for long, short in (("complex", "c"), ("float", "f"), ("uint", "u"), ("int", "i")):
        name = name.replace(long, short)
    return name


def as_numpy(value: Any) -> tuple[np.ndarray, str]:
    """A value as a NumPy array of plain numbers, and the short dtype to call it by.

    PRNG keys become their raw key data (their dtype keeps the key's name);
    low-precision floats (``bf16``, ``f8``) become ``float32`` numbers.
    """
    if jax_internals.is_key_array(value):
        return np.asarray(jax.random.key_data(value)), str(value.dtype)
    arr = np.asarray(value)
    dtype = short_dtype(arr.dtype)
    if jnp.issubdtype(arr.dtype, jnp.floating) and arr.dtype not in (np.float16, np.float32,
                                                                      np.float64):
        arr = arr.astype(np.float32)
    return arr, dtype


def _plain(arr: np.ndarray) -> Any:
    """Nested lists of Python numbers (complex elements as ``[real, imaginary]``).

    ``f16``/``f32`` elements are written with the fewest digits that give the
    same number back in their own precision (``0.035714287``, not the double
    ``0.0357142873108387``).
    """
    if np.iscomplexobj(arr):
        return _plain(np.stack([arr.real, arr.imag], axis=-1))
    if arr.dtype in (np.float16, np.float32):
        return shortest(arr).tolist()
    return arr.tolist()


def shortest(arr: np.ndarray) -> np.ndarray:
    """``f16``/``f32`` elements as the float64 of their shortest round-tripping decimal.

    NumPy's Dragon4 with ``unique=True`` gives that decimal, whatever print options a
    library or the user's code has set (``str(x)`` follows ``np.set_printoptions``).
    """
    values = [float(np.format_float_positional(x, unique=True)) for x in arr.reshape(-1)]
    return np.array(values, dtype=np.float64).reshape(arr.shape)


def summarise(arr: np.ndarray, light: bool) -> ValueSummary:
    """Statistics of an array; ``light`` leaves out the sample and the histogram."""
    flat = arr.reshape(-1)
    if np.iscomplexobj(flat):
        flat = np.abs(flat)
    summary = ValueSummary()
    if flat.dtype.kind == "b":
        numbers = flat.astype(np.int64)
    elif flat.dtype.kind in "iuf":
        numbers = flat
    else:
        return summary
    finite = numbers[np.isfinite(numbers)] if numbers.dtype.kind == "f" else numbers
    summary.nonfinite = int(numbers.size - finite.size)
    if finite.size:
        summary.min = float(finite.min())
        summary.max = float(finite.max())
        summary.mean = float(finite.astype(np.float64).mean())
    if light:
        return summary
    summary.sample = _plain(arr.reshape(-1)[:SAMPLE_SIZE])
    if finite.size:
        low, high = float(finite.min()), float(finite.max())
        if low == high:
            low, high = low - 0.5, high + 0.5
        counts, edges = np.histogram(finite.astype(np.float64), bins=HISTOGRAM_BINS,
                                     range=(low, high))
        summary.histogram = [int(c) for c in counts]
        summary.edges = [float(e) for e in edges]
    return summary


def record_size(value: Value) -> int:
    """Roughly how many bytes a value record takes once encoded."""
    if value.summary is None:
        return _OVERHEAD + _NUMBER * max(value.size, 1)
    s = value.summary
    return _OVERHEAD + _NUMBER * (5 + len(s.sample) + len(s.histogram) + len(s.edges))


def estimated_size(shape: tuple[int, ...], limit: int, light: bool) -> int:
    """The :func:`record_size` a value of this shape will have (before it exists)."""
    size = int(np.prod(shape)) if shape else 1
    if light:
        return _OVERHEAD + _NUMBER * 5
    if size <= limit:
        return _OVERHEAD + _NUMBER * max(size, 1)
    return _OVERHEAD + _NUMBER * (5 + SAMPLE_SIZE + 2 * HISTOGRAM_BINS + 1)


class Recorder:
    """Makes value records and keeps count of their size.

    Args:
        limit: values with at most this many elements are kept exactly.
        light: summary mode (statistics only, nothing kept exactly).
        budget: the most bytes of records; going over raises :class:`TooMuchToRecord`.
    """

    def __init__(self, limit: int, light: bool, budget: int):
        self.limit = limit
        self.light = light
        self.budget = budget
        self.used = 0
        self._cache: OrderedDict[int, tuple[Any, Value]] = OrderedDict()

    def value(self, value: Any) -> Value:
        """The record of one value (an object seen recently is not recorded again)."""
        hit = self._cache.get(id(value))
        if hit is not None and hit[0] is value:
            self._cache.move_to_end(id(value))
            return hit[1]
        arr, dtype = as_numpy(value)
        shape = [int(d) for d in arr.shape]
        if not self.light and arr.size <= self.limit:
            out = Value(shape, dtype, exact=_plain(arr))
        else:
            out = Value(shape, dtype, summary=summarise(arr, self.light))
        self.used += record_size(out)
        self._cache[id(value)] = (value, out)  # holding the value keeps its id unique
        if len(self._cache) > CACHE_SIZE:
            self._cache.popitem(last=False)
        return out

    def end_step(self) -> None:
        """Raise if the records went over the budget."""
        if self.used > self.budget:
            raise TooMuchToRecord(f"{self.used / 1e6:.1f} MB")
