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


def target_of(record: Any) -> Any:
    """The :class:`~jaxviz.model.Target` a request works on (a timing request's is in its
    trace request), or None."""
    target = getattr(record, "target", None)
    if target is None:
        target = getattr(getattr(record, "trace", None), "target", None)
    return target


def doing(record: Any) -> str:
    """What the engine was doing with a request: ``tracing `f```, ``handling a DevicesRequest``."""
    name = type(record).__name__
    function = getattr(target_of(record), "function", None)
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
    target = target_of(record)
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
    target = target_of(record)
    if target is not None and stderr:
        _locate_in_traceback(info, target, stderr)
    return _located(info, record)


def forged(message: str, record: Any) -> ErrorInfo:
    """The engine was killed because its channel carried a line it did not write.

    Args:
        message: what was refused (:func:`jaxviz.engine.protocol.forged`).
        record: the request in flight, or None.
    """
    where = f"while {doing(record)}" if record is not None else "while idle"
    return _located(ErrorInfo(kind="forgery", message=(
        f"refused a forged reply {where}: a line on the engine's private channel did not "
        f"carry the engine's token, so jaxviz did not write it (did the code being run "
        f"write into a file descriptor it did not open?); the engine was restarted"),
        details=message), record)


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
    if theirs == schema and "token" in ready:
        return None
    if theirs == schema:
        return (f"refused the engine started with {python or sys.executable}: its jaxviz "
                f"{ready.get('jaxviz', '?')} does not sign its messages as this jaxviz "
                f"{version} expects; install the same jaxviz version for both")
    return (f"refused the engine started with {python or sys.executable}: it speaks record "
            f"schema {theirs!r} (jaxviz {ready.get('jaxviz', '?')}) but this jaxviz {version} "
            f"speaks schema {schema}; install the same jaxviz version for both")


def ready_message(info: Any) -> str:
    """A status line for an engine that is ready."""
    kind = "simulated CPU" if info.simulated else info.platform.upper()
    return (f"engine ready: {len(info.devices)} {kind} devices, JAX {info.jax_version} "
            f"(pid {info.pid}, started in {info.start_seconds:.2f} s)")


#: Lines that start the engine's last words (a faulthandler dump), not what user code printed.
_DUMP_START = re.compile(r"^(Fatal Python error: |Stack \(most recent call first\):|"
                         r"(Current thread|Thread) 0x[0-9a-f]+ \(most recent call first\):)",
                         re.MULTILINE)


def without_dump(stderr: str) -> str:
    """What the code printed to fd 2, without the engine's faulthandler dump after it.

    A timeout asks the engine for its stack, and a crash makes it write one
    (with the extension module list): both go to ``ErrorInfo.details``, shown
    with ``--debug``; the one-line error already names the user's line.
    """
    found = _DUMP_START.search(stderr)
    return stderr if found is None else stderr[:found.start()]


def _located(info: ErrorInfo, record: Any) -> ErrorInfo:
    target = target_of(record)
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
