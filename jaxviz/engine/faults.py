"""The words for what went wrong in the engine: timeouts, crashes, cancels, refusals.

Each function returns an :class:`~jaxviz.model.ErrorInfo` (or a message) that
says what happened and where: the signal or exit code, the function the
request was working on, the user's line when a crash traceback names it.

This module imports nothing from JAX.
"""

from __future__ import annotations

import re
import sys
from typing import Any

from jaxviz.engine.process import EngineProcess, exit_reason
from jaxviz.model import ErrorInfo

#: What the engine does with each kind of request, for messages.
VERBS = {"TraceRequest": "tracing", "TimingRequest": "timing"}


def doing(record: Any) -> str:
    """What the engine was doing with a request: ``tracing `f```, ``handling a DevicesRequest``."""
    name = type(record).__name__
    function = getattr(getattr(record, "target", None), "function", None)
    if function:
        return f"{VERBS.get(name, 'running')} `{function}`"
    return f"handling a {name}"


def cancelled(record: Any, message: str) -> ErrorInfo:
    """A request that was cancelled (or whose engine was restarted or stopped)."""
    return _located(ErrorInfo(kind="cancelled", message=message), record)


def timed_out(record: Any, seconds: float, stderr: str = "") -> ErrorInfo:
    """A request that ran longer than its timeout.

    Args:
        record: the request.
        seconds: its timeout.
        stderr: what it printed to fd 2, ending with the engine's Python stack
            at the timeout if it could write it: the user's line is taken
            from there (where an endless loop is).
    """
    info = ErrorInfo(kind="timeout", message=(
        f"timed out after {seconds:g} s while {doing(record)}; the engine was restarted"),
        details=stderr.strip() or None)
    target = getattr(record, "target", None)
    if target is not None and stderr:
        _locate_in_traceback(info, target, stderr)
    return _located(info, record)


def crash(returncode: int | None, record: Any, stderr: str) -> ErrorInfo:
    """The engine died: the signal or exit code, and what it was doing.

    Args:
        returncode: the process's return code (negative: killed by a signal).
        record: the request in flight, or None when the engine was idle.
        stderr: what the request printed to fd 2 (the abort message, the
            faulthandler traceback); kept as ``details``, and used to find the
            user's line.
    """
    reason = exit_reason(returncode)
    if reason == "SIGKILL":
        reason += " (killed from outside, or out of memory)"
    where = f"while {doing(record)}" if record is not None else "while idle"
    info = ErrorInfo(kind="crash", message=f"engine crashed: {reason} {where}",
                     details=stderr.strip() or None)
    target = getattr(record, "target", None)
    if target is not None and stderr:
        _locate_in_traceback(info, target, stderr)
    return _located(info, record)


def start_failure(engine: EngineProcess, returncode: int | None, stderr: str) -> ErrorInfo:
    """The engine ended before its ready message (or was refused)."""
    if engine.refusal:
        return ErrorInfo(kind="engine", message=engine.refusal)
    if engine.failure:
        message, details = engine.failure
        return ErrorInfo(kind="crash", message=f"the engine could not start: {message}",
                         details=details or stderr.strip() or None)
    last = next((line for line in reversed(stderr.strip().splitlines()) if line.strip()), "")
    message = f"the engine could not start: it ended with {exit_reason(returncode)}"
    return ErrorInfo(kind="crash", message=f"{message}: {last}" if last else message,
                     details=stderr.strip() or None)


def refusal(ready: dict[str, Any], schema: int, version: str, python: str | None) -> str | None:
    """Why an engine's ready message is unacceptable (another record schema), or None."""
    theirs = ready.get("schema")
    if theirs == schema:
        return None
    return (f"refused the engine started with {python or sys.executable}: it speaks record "
            f"schema {theirs!r} (jaxviz {ready.get('jaxviz', '?')}) but this jaxviz {version} "
            f"speaks schema {schema}; install the same jaxviz version for both")


def ready_message(info: Any) -> str:
    """A status line for an engine that is ready."""
    kind = "simulated CPU" if info.simulated else info.platform.upper()
    return (f"engine ready: {len(info.devices)} {kind} devices, JAX {info.jax_version} "
            f"(pid {info.pid}, started in {info.start_seconds:.2f} s)")


def _located(info: ErrorInfo, record: Any) -> ErrorInfo:
    target = getattr(record, "target", None)
    if target is not None and info.file is None:
        info.file = getattr(target, "filename", None)
    return info


def _locate_in_traceback(info: ErrorInfo, target: Any, stderr: str) -> None:
    """Set the user's line from a faulthandler or Python traceback naming their file."""
    pattern = re.compile(r'File "' + re.escape(target.filename) + r'", line (\d+)')
    # A faulthandler stack (the engine's last words) lists the innermost frame
    # first; a Python traceback the code printed lists it last.
    dump = stderr.find("(most recent call first)")
    found = pattern.findall(stderr[dump:])[:1] if dump >= 0 else pattern.findall(stderr)[-1:]
    if not found:
        return
    line = int(found[0])
    info.file, info.line = target.filename, line
    lines = target.source.splitlines()
    if 0 < line <= len(lines):
        info.source_line = lines[line - 1]
