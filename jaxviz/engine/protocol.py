"""The wire format between the engine client and the engine process.

One message is one line of JSON (``json.dumps`` escapes every newline inside
strings, so a line break always ends a message). Records inside messages are
encoded with :func:`jaxviz.model.to_plain`, which tags them with the record
schema version. Messages:

client -> engine
    ``{"op": "hello", "token": T}`` first, then ``{"op": "request", "id": N,
    "record": PLAIN}``; end of input asks the engine to exit.

engine -> client
    ``{"op": "ready", "schema": S, "jaxviz": V, "info": PLAIN, "log": TEXT}`` once,
    when the devices are up (``log``: what start-up printed);
    ``{"op": "failed", "message": TEXT, "details": TEXT}`` instead of ``ready``
    when the engine cannot start;
    ``{"op": "begin", "id": N}`` when it starts on a request;
    ``{"op": "progress", "id": N, "record": PLAIN}`` for streamed partial records;
    ``{"op": "reply", "id": N, "reply": PLAIN}`` with a :class:`~jaxviz.model.engine.Reply`.

The other children speak it too: the async-off timing child
(:mod:`jaxviz.worker.timing_child`: one ``request`` with ``devices`` and
``origin_ns`` beside the record, then ``progress`` messages and a ``reply``)
and the multi-host workers (:mod:`jaxviz.worker.multihost_worker`: one
``reply`` with a ``report`` dict).

The handshake's ``schema`` and ``jaxviz`` fields are plain values on purpose:
a client reads them before it trusts anything else the engine sends.

Every message a child sends carries ``"token": T``: a random token its parent
made for that one process and sent in the ``hello`` line on its stdin (never
on the command line or in the environment, which other processes can read).
The parent refuses any line without it (:func:`receive_signed` raises
:class:`ForgedMessage`): user code that writes into the channel's file
descriptors cannot pass its lines off as jaxviz's. (Code running inside the
child could still read the token from that process's memory; the token
stops lines written blindly, by a subprocess or by mistake, not a
deliberate attack from within -- the engine runs the user's own code.)

This module imports nothing from JAX: both sides use it.
"""

from __future__ import annotations

import hmac
import json
import secrets
from typing import IO, Any

HELLO = "hello"
REQUEST = "request"
READY = "ready"
FAILED = "failed"
BEGIN = "begin"
PROGRESS = "progress"
REPLY = "reply"


class ProtocolError(ValueError):
    """A line from the other side is not a protocol message."""


class ForgedMessage(ProtocolError):
    """A line on a child's channel that the child's jaxviz did not write (no valid token)."""


def new_token() -> str:
    """A fresh random token for one child process."""
    return secrets.token_hex(16)


def hello(token: str) -> bytes:
    """The first line a parent sends a child: the token the child signs its messages with."""
    return encode({"op": HELLO, "token": token})


def signed(message: dict[str, Any], token: str) -> bool:
    """True when ``message`` carries ``token`` (compared in constant time)."""
    theirs = message.get("token")
    return isinstance(theirs, str) and hmac.compare_digest(theirs, token)


def forged(line: bytes) -> ForgedMessage:
    """The error for a line that did not carry the child's token (quoting its start)."""
    text = line[:200].rstrip(b"\n")
    return ForgedMessage(
        f"refused a forged message: a line on jaxviz's private channel did not carry the "
        f"process's token, so jaxviz did not write it (code running there wrote into the "
        f"channel?): {text!r}")


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
    except RecursionError:  # a line nested deeper than any message jaxviz writes
        raise ProtocolError(f"not a protocol message (nested too deeply): "
                            f"{line[:200]!r}") from None
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


def receive_signed(stream: IO[bytes], token: str) -> dict[str, Any] | None:
    """Read one message from a child and check its token; None at end of input.

    Raises:
        ForgedMessage: the line is not a protocol message, or lacks the token.
    """
    line = stream.readline()
    if not line:
        return None
    try:
        message = decode(line)
    except ProtocolError:
        raise forged(line) from None
    if not signed(message, token):
        raise forged(line)
    return message
