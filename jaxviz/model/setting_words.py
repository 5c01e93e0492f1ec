"""How a message names a trace setting: a CLI flag on the command line, a field in the window.

Messages the core writes name the setting at fault the command line's way
(``--in-axes 0``), as ``jaxviz run`` prints them. The window has no flags: there
the same setting is its field in Arguments (``in_axes``, ``Specs``, ``Batch``).
:func:`for_window` renders an :class:`~jaxviz.model.records.ErrorInfo` (and every
error of a :class:`~jaxviz.model.records.TraceResult`) for the window, with the
window's own field names (given by the window, which owns its labels).

Example:
    >>> window_text("--specs without --in-axes shard them (e.g. --in-axes 0)",
    ...             {"specs": "Specs", "in_axes": "in_axes"})
    'Specs without in_axes shard them (e.g. in_axes 0)'
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from jaxviz.model.records import ErrorInfo, TraceResult
from jaxviz.model.settings_table import TRACE_SETTINGS

#: The settings a flag sets, by flag: ``--in-axes`` -> ``in_axes`` (from the one table of
#: trace settings; ``--devices`` too, the engine's setting beside them).
FLAG_SETTINGS = {**{s.flag: s.name for s in TRACE_SETTINGS}, "--devices": "devices"}
_FLAG = re.compile(r"--([a-z][a-z-]*)")


def window_text(message: str, labels: Mapping[str, str]) -> str:
    """``message`` with each setting's flag replaced by the window field's label."""
    def name(match: re.Match[str]) -> str:
        setting = FLAG_SETTINGS.get(match.group(0))
        if setting is None or setting not in labels:
            return match.group(0)
        return labels[setting]
    return _FLAG.sub(name, message)


def for_window(error: ErrorInfo, labels: Mapping[str, str]) -> ErrorInfo:
    """The error with its message in the window's words (the record itself, changed)."""
    error.message = window_text(error.message, labels)
    return error


def result_for_window(result: TraceResult, labels: Mapping[str, str]) -> TraceResult:
    """Every error of a result in the window's words."""
    if result.error is not None:
        for_window(result.error, labels)
    for vr in result.variants:
        if vr.error is not None:
            for_window(vr.error, labels)
    return result
