"""The plain-data codec every record crosses a process boundary with.

:func:`to_plain` turns a registered dataclass record into JSON-compatible data
tagged with its type name and :data:`SCHEMA_VERSION`; :func:`from_plain` turns
it back. A reader refuses data written under another schema version instead of
misreading it. Record modules call :func:`register` for each record class (this
module imports none of them, so any record module can use it).
"""

from __future__ import annotations

import dataclasses
import typing
from typing import Any

#: Bumped whenever a record gains, loses or changes a field, or a record type comes or
#: goes (3: the stepper's records, its ``Step`` became ``EvalStep`` beside the
#: storyboard's ``Step``; the storyboard's phases and vmap batch; 4: variant notes
#: and call code, ``TraceSettings.check_vma``).
SCHEMA_VERSION = 4


class SchemaMismatch(ValueError):
    """Data was written by a jaxviz with another record schema."""


_REGISTRY: dict[str, type] = {}


def register(cls: type) -> type:
    """Make a dataclass known to :func:`from_plain` (usable as a decorator).

    Records are tagged by class name alone, so two record classes may not share
    one (the second would silently decode as the first).

    Raises:
        ValueError: another class of that name is registered already.
    """
    known = _REGISTRY.get(cls.__name__)
    if known is not None and _where(known) != _where(cls):
        raise ValueError(f"record name {cls.__name__!r} is taken by {_where(known)}; "
                         f"rename {_where(cls)}")
    _REGISTRY[cls.__name__] = cls
    return cls


def _where(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def check_annotations(*classes: type) -> None:
    """Resolve the string annotations of ``classes`` now, so typos fail at import."""
    for cls in classes:
        typing.get_type_hints(cls)


def _encode(obj: Any) -> Any:
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        out = {"__type__": type(obj).__name__}
        for f in dataclasses.fields(obj):
            out[f.name] = _encode(getattr(obj, f.name))
        return out
    if isinstance(obj, (list, tuple)):
        return [_encode(x) for x in obj]
    if isinstance(obj, dict):
        return {str(k): _encode(v) for k, v in obj.items()}
    if obj is None or isinstance(obj, (str, int, float, bool)):
        return obj
    raise TypeError(f"cannot encode {type(obj).__name__} as plain data")


def _decode(data: Any) -> Any:
    if isinstance(data, dict):
        name = data.get("__type__")
        if name is None:
            return {k: _decode(v) for k, v in data.items()}
        cls = _REGISTRY.get(name)
        if cls is None:
            raise SchemaMismatch(f"unknown record type {name!r}")
        names = {f.name for f in dataclasses.fields(cls)}
        kwargs = {k: _decode(v) for k, v in data.items() if k in names}
        return cls(**kwargs)
    if isinstance(data, list):
        return [_decode(x) for x in data]
    return data


def to_plain(record: Any) -> dict[str, Any]:
    """Encode a record as JSON-compatible data, tagged with the schema version."""
    return {"schema": SCHEMA_VERSION, "record": _encode(record)}


def from_plain(data: dict[str, Any]) -> Any:
    """Decode data made by :func:`to_plain`.

    Raises:
        SchemaMismatch: the data was written under another schema version.
    """
    version = data.get("schema") if isinstance(data, dict) else None
    if version != SCHEMA_VERSION:
        raise SchemaMismatch(
            f"record schema {version!r} does not match this jaxviz's schema "
            f"{SCHEMA_VERSION}: it was written by another jaxviz version")
    return _decode(data["record"])
