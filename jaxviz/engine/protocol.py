"""The wire format between the engine client and the engine process.

One message is one line of JSON (``json.dumps`` escapes every newline inside
strings, so a line break always ends a message). Records inside messages are
encoded with :func:`jaxviz.model.to_plain`, which tags them with the record
schema version. Messages:

client -> engine
    ``{"op": "request", "id": N, "record": PLAIN}``; end of input asks the
    engine to exit.

engine -> client
    ``{"op": "ready", "schema": S, "jaxviz": V, "info": PLAIN, "log": TEXT}`` once,
    when the devices are up (``log``: what start-up printed);
    ``{"op": "failed", "message": TEXT, "details": TEXT}`` instead of ``ready``
    when the engine cannot start;
    ``{"op": "begin", "id": N}`` when it starts on a request;
    ``{"op": "progress", "id": N, "record": PLAIN}`` for streamed partial records;
    ``{"op": "reply", "id": N, "reply": PLAIN}`` with a :class:`~jaxviz.model.engine.Reply`.

The other children speak it too: the async-off timing child
(:mod:`jaxviz.engine.timing_child`: one ``request`` with ``devices`` and
``origin_ns`` beside the record, then ``progress`` messages and a ``reply``)
and the multi-host workers (:mod:`jaxviz.engine.multihost_worker`: one
``reply`` with a ``report`` dict).

The handshake's ``schema`` and ``jaxviz`` fields are plain values on purpose:
a client reads them before it trusts anything else the engine sends.

This module imports nothing from JAX: both sides use it.
"""

from __future__ import annotations

import json
from typing import IO, Any

REQUEST = "request"
READY = "ready"
FAILED = "failed"
BEGIN = "begin"
PROGRESS = "progress"
REPLY = "reply"


class ProtocolError(ValueError):
    """A line from the other side is not a protocol message."""


def encode(message: dict[str, Any]) -> bytes:
    """One message as a line of UTF-8 JSON, newline included."""
    text = json.dumps(message, separators=(",", ":"), ensure_ascii=False)
    return text.encode("utf-8", "surrogatepass") + b"\n"


def decode(line: bytes) -> dict[str, Any]:
    """The message in one line.

    Raises:
        ProtocolError: the line is not a JSON object with an ``op`` field.
    """
    try:
        message = json.loads(line.decode("utf-8", "surrogatepass"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise ProtocolError(f"not a protocol message ({exc}): {line[:200]!r}") from None
    if not isinstance(message, dict) or "op" not in message:
        raise ProtocolError(f"not a protocol message (no 'op'): {line[:200]!r}")
    return message


def send(stream: IO[bytes], message: dict[str, Any]) -> None:
    """Write one message and flush it."""
    stream.write(encode(message))
    stream.flush()


def receive(stream: IO[bytes]) -> dict[str, Any] | None:
    """Read one message; None at end of input.

    Raises:
        ProtocolError: the line read is not a protocol message.
    """
    line = stream.readline()
    if not line:
        return None
    return decode(line)
