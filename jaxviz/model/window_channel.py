"""The message a notebook or script sends to an open jaxviz window (``jaxviz.show``).

One JSON object per line over a Unix socket in a directory only its user can
enter (mode 0700); the window answers one JSON line. Plain data, no Qt, no JAX:
:mod:`jaxviz.notebook.channel` writes it, :mod:`jaxviz.ui.window.channel` reads it.

The message carries the token the window was started with (the environment
variable :data:`TOKEN_ENV` of the process ``jaxviz.show`` launched): a message
with that token is the caller's own say to run the function, as a command
line is; any other message opens the function as an unknown file is opened,
shown and not run until the user presses Trace (F5) -- the window's trust rule.
"""

from __future__ import annotations

import hmac
import json
from dataclasses import dataclass, field
from typing import Any

from jaxviz.model.records import VARIANTS, TraceSettings

#: The environment variable the launched window reads its token from.
TOKEN_ENV = "JAXVIZ_WINDOW_TOKEN"
#: The largest message the window reads (bytes): a function's source and its arguments.
MAX_MESSAGE = 256 * 1024 * 1024


@dataclass
class OpenMessage:
    """Open ``function`` of ``source`` in the window, with these settings and panes."""

    source: str
    filename: str
    function: str
    settings: dict[str, Any] = field(default_factory=dict)
    variants: list[str] = field(default_factory=list)
    token: str = ""


def encode(message: OpenMessage) -> bytes:
    return (json.dumps({"open": {
        "source": message.source, "filename": message.filename, "function": message.function,
        "settings": message.settings, "variants": message.variants, "token": message.token,
    }}) + "\n").encode("utf-8")


def decode(line: bytes) -> OpenMessage:
    """The message in one line.

    Raises:
        ValueError: it is not a well-formed open message (the reason).
    """
    try:
        data = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"not a JSON line: {exc}") from None
    body = data.get("open") if isinstance(data, dict) else None
    if not isinstance(body, dict):
        raise ValueError("expected {\"open\": {...}}")
    for name in ("source", "filename", "function", "token"):
        if not isinstance(body.get(name), str):
            raise ValueError(f"{name} must be a string")
    if not body["function"].isidentifier():
        raise ValueError(f"function {body['function']!r} is not a Python name")
    settings = body.get("settings") or {}
    known = set(TraceSettings.names())
    if not isinstance(settings, dict) or not set(settings) <= known:
        raise ValueError(f"settings must be a dict of {', '.join(sorted(known))}")
    variants = body.get("variants") or []
    if not isinstance(variants, list) or not all(v in VARIANTS for v in variants):
        raise ValueError(f"variants must be a list of {', '.join(VARIANTS)}")
    return OpenMessage(body["source"], body["filename"], body["function"], settings,
                       list(variants), body["token"])


def trusted(message: OpenMessage, token: str) -> bool:
    """Whether the message carries the window's token (compared in constant time)."""
    return bool(token) and hmac.compare_digest(message.token.encode(), token.encode())


def reply(ok: bool, text: str) -> bytes:
    return (json.dumps({"ok": ok, "message": text}) + "\n").encode("utf-8")
