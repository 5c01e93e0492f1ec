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

A message longer than :data:`PIECE_CHARS` characters of JSON (a 12-layer train
step's reply is 4.3 MB) is sent in pieces (:func:`split`): first
``{"op": "piece", "items": [...]}`` lines, each a run of items of one long list,
then the message itself with every such list replaced by
``{"__pieces__": [i, j, ...]}`` (the indices of the pieces holding its items, in
order), ``"pieces": N`` (how many pieces came before it) and ``"refs"``: the
paths (keys and indices) of those references; a piece lists the references in
its own items the same way. Pieces of one message are written together;
:func:`join` puts the message back, visiting only the listed paths. Why: the
reader decodes each line in one ``json.loads`` call, which holds the GIL, and
for that reply it held it 150 ms -- a frozen window.

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

import json
import os

# CPython's constant-time comparison (what hmac.compare_digest is when hashlib has no
# OpenSSL), without hmac's import of OpenSSL's libcrypto: 4 MB resident in the window's
# process, which hashes nothing.
from _operator import _compare_digest as compare_digest
from typing import IO, Any

HELLO = "hello"
REQUEST = "request"
READY = "ready"
FAILED = "failed"
BEGIN = "begin"
PROGRESS = "progress"
REPLY = "reply"
PIECE = "piece"

#: A message whose JSON is longer than this (characters, about) is sent in pieces.
PIECE_CHARS = 128 * 1024
#: The key of a list sent in pieces: ``{"__pieces__": [piece indices]}``.
PIECES_REF = "__pieces__"


class ProtocolError(ValueError):
    """A line from the other side is not a protocol message."""


class ForgedMessage(ProtocolError):
    """A line on a child's channel that the child's jaxviz did not write (no valid token)."""


def new_token() -> str:
    """A fresh random token for one child process (``secrets.token_hex(16)``: 16 bytes of
    the operating system's randomness, in hex)."""
    return os.urandom(16).hex()


def hello(token: str) -> bytes:
    """The first line a parent sends a child: the token the child signs its messages with."""
    return encode({"op": HELLO, "token": token})


def signed(message: dict[str, Any], token: str) -> bool:
    """True when ``message`` carries ``token`` (compared in constant time)."""
    theirs = message.get("token")
    return isinstance(theirs, str) and compare_digest(theirs, token)


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


def receive_signed(stream: IO[bytes], token: str,
                   unsigned_ready: bool = False) -> dict[str, Any] | None:
    """Read one message from a child and check its token; None at end of input. A
    message sent in pieces (:func:`split`) is read whole.

    Args:
        unsigned_ready: let an unsigned ``ready`` through (an engine of a jaxviz
            without tokens says it so: the client then refuses it as another version).

    Raises:
        ForgedMessage: a line is not a protocol message, or lacks the token.
        ProtocolError: pieces that do not fit their message.
    """
    assembler = Assembler()
    while True:
        line = stream.readline()
        if not line:
            return None
        try:
            message = decode(line)
        except ProtocolError:
            raise forged(line) from None
        if not signed(message, token):
            if unsigned_ready and message.get("op") == READY and "token" not in message:
                return message
            raise forged(line)
        whole = assembler.add(message)
        if whole is not None:
            return whole


def split(message: dict[str, Any], limit: int = PIECE_CHARS) -> list[dict[str, Any]]:
    """``message`` as the messages to send: itself when its JSON is short, else its
    pieces and then itself, its long lists replaced by references (see the module's
    docstring). Sizes are estimated (a string's length, 8 characters for any other
    value), so a piece may be somewhat longer than ``limit``."""
    pieces: list[dict[str, Any]] = []
    shrunk, _size, refs = _shrink(message, limit, pieces)
    if not pieces:
        return [message]
    return [*pieces, {**shrunk, "pieces": len(pieces), "refs": refs}]


Path = list[Any]


def _shrink(value: Any, limit: int, pieces: list[dict[str, Any]]
            ) -> tuple[Any, int, list[Path]]:
    """``value`` with its long lists sent to ``pieces``, its estimated JSON length, and
    the paths (keys and indices, from ``value``) of the references put in it."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        size = 2
        refs: list[Path] = []
        for key, item in value.items():
            out[key], n, inner = _shrink(item, limit, pieces)
            size += n + len(key) + 4
            refs.extend([key, *path] for path in inner)
        return out, size, refs
    if isinstance(value, list):
        shrunk = [_shrink(item, limit, pieces) for item in value]
        size = sum(n + 1 for _, n, _ in shrunk) + 2
        if size <= limit:
            return ([item for item, _, _ in shrunk], size,
                    [[i, *path] for i, (_, _, inner) in enumerate(shrunk) for path in inner])
        indices: list[int] = []
        run: list[tuple[Any, int, list[Path]]] = []
        run_size = 0
        for entry in shrunk + [(None, limit + 1, [])]:  # the sentinel ends the last run
            if run and run_size + entry[1] > limit:
                indices.append(len(pieces))
                pieces.append({"op": PIECE, "items": [item for item, _, _ in run],
                               "refs": [[i, *path] for i, (_, _, inner) in enumerate(run)
                                        for path in inner]})
                run, run_size = [], 0
            run.append(entry)
            run_size += entry[1] + 1
        return {PIECES_REF: indices}, 16 + 8 * len(indices), [[]]
    if isinstance(value, str):
        return value, len(value) + 2, []
    return value, 8, []


def join(message: dict[str, Any], pieces: list[dict[str, Any]]) -> dict[str, Any]:
    """The message :func:`split` cut, whole again, from the ``pieces`` that came before it
    (``message`` itself when it was not cut). Only the places the sender listed are
    visited: putting a 4.3 MB reply back takes under a millisecond.

    Raises:
        ProtocolError: the pieces or the references do not fit together.
    """
    if "pieces" not in message:
        if pieces:
            raise ProtocolError(f"{len(pieces)} pieces came before a message not in pieces")
        return message
    if len(pieces) != message["pieces"]:
        raise ProtocolError(f"a message in {message['pieces']} pieces came with "
                            f"{len(pieces)} of them")
    whole: list[list[Any]] = []
    for piece in pieces:  # a piece refers only to pieces before it
        items = piece.get("items")
        if not isinstance(items, list):
            raise ProtocolError("a piece without items")
        refs = piece.get("refs", [])
        paths = [["items", *p] for p in refs] if isinstance(refs, list) else refs
        whole.append(_put_back({"items": items}, paths, whole)["items"])
    rest = {k: v for k, v in message.items() if k not in ("pieces", "refs")}
    return _put_back(rest, message.get("refs", []), whole)  # type: ignore[no-any-return]


class Assembler:
    """Puts messages sent in pieces back together, for a reader that gets one line at a time.

    Example:
        >>> parts = split({"op": "reply", "id": 1, "reply": list(range(50))}, limit=64)
        >>> assembler = Assembler()
        >>> [assembler.add(part) for part in parts][-1]["reply"] == list(range(50))
        True
    """

    def __init__(self) -> None:
        self._pieces: list[dict[str, Any]] = []

    def add(self, message: dict[str, Any]) -> dict[str, Any] | None:
        """None for a piece (kept until its message comes); else the whole message.

        Raises:
            ProtocolError: the pieces and the message do not fit together.
        """
        if message.get("op") == PIECE:
            self._pieces.append(message)
            return None
        pieces, self._pieces = self._pieces, []
        return join(message, pieces)


def _put_back(root: Any, refs: Any, whole: list[list[Any]]) -> Any:
    """``root`` with the reference at each path of ``refs`` replaced by its pieces' items."""
    if not isinstance(refs, list):
        raise ProtocolError("the references are not a list of paths")
    for path in refs:
        if not isinstance(path, list) or not path:
            raise ProtocolError(f"not a path to a reference: {path!r}")
        try:
            parent = root
            for step in path[:-1]:
                parent = parent[step]
            ref = parent[path[-1]]
            indices = ref[PIECES_REF]
            if not all(isinstance(i, int) and 0 <= i < len(whole) for i in indices):
                raise ProtocolError(f"a reference to pieces that did not come: {indices!r}")
            parent[path[-1]] = [item for i in indices for item in whole[i]]
        except (KeyError, IndexError, TypeError) as exc:
            raise ProtocolError(f"no reference at {path!r} ({exc})") from None
    return root
