"""Records the engine client and the engine process exchange about the engine itself.

The requests and results of the core (:class:`~jaxviz.model.TraceRequest`,
timing records, ...) travel inside these: every answer of the engine is a
:class:`Reply` carrying the handler's result record, or an
:class:`~jaxviz.model.ErrorInfo` when the request failed, plus whatever the
user's code printed meanwhile. :class:`EngineInfo` describes a running engine
(its devices and versions); :class:`EngineEvent` tells the client's owner
about the engine's life (starting, ready, crashed, restarting, stopped).

Error kinds the engine adds to those of the core: ``timeout`` (the request ran
longer than its timeout; the engine was restarted), ``crash`` (the engine
process died: a signal or an exit code), ``cancelled`` (cancelled, or the
engine was restarted under it), ``engine`` (no usable engine: it did not
start in time or speaks another record schema).
"""

from __future__ import annotations

import typing
from dataclasses import dataclass, field
from typing import Any

from jaxviz.model.records import DeviceInfo, ErrorInfo, register

#: The kinds of :class:`EngineEvent`.
EVENT_KINDS = ("starting", "ready", "crashed", "restarting", "stopped")

#: The :attr:`ErrorInfo.kind` values the engine itself produces.
ENGINE_ERROR_KINDS = ("timeout", "crash", "cancelled", "engine")


@register
@dataclass
class DevicesRequest:
    """Ask the engine for its device inventory; the answer is an :class:`EngineInfo`."""


@register
@dataclass
class EngineInfo:
    """A running engine: its devices, whether they are simulated, and its versions.

    Attributes:
        devices: the devices jaxviz uses (platform, kind, id, process index).
        simulated: True when they are CPU devices simulated on this machine's cores.
        jax_version, jaxlib_version: the versions the engine imported.
        platform: the devices' platform (``cpu``, ``gpu``, ``tpu``).
        pid: the engine's process id.
        start_seconds: wall time from spawning the process to its ready message.
    """

    devices: list[DeviceInfo] = field(default_factory=list)
    simulated: bool = True
    jax_version: str = ""
    jaxlib_version: str = ""
    platform: str = ""
    pid: int = 0
    start_seconds: float = 0.0


@register
@dataclass
class Reply:
    """The engine's answer to one request.

    Attributes:
        id: the request's id (ids increase in submission order).
        ok: True when the handler returned ``result``; False when the request
            failed and ``error`` says why (the user's code raised past the
            core, a timeout, a crash, a cancel).
        result: the handler's result record (e.g. a ``TraceResult``), or None.
        error: what went wrong, when not ``ok``.
        stdout, stderr: what the request printed (fds 1 and 2, so also C code
            and subprocesses), also when it failed.
        elapsed_s: wall time from sending the request to its end.
    """

    id: int
    ok: bool
    result: Any = None
    error: ErrorInfo | None = None
    stdout: str = ""
    stderr: str = ""
    elapsed_s: float = 0.0


@register
@dataclass
class EngineEvent:
    """Something happened to the engine process.

    Attributes:
        kind: one of :data:`EVENT_KINDS`.
        message: a sentence for a status bar or a log.
        info: the engine's description, for ``ready`` events.
    """

    kind: str
    message: str
    info: EngineInfo | None = None


for _cls in (DevicesRequest, EngineInfo, Reply, EngineEvent):
    typing.get_type_hints(_cls)
