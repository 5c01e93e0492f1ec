"""The plain-data codec every record crosses a process boundary with.

:func:`to_plain` turns a registered dataclass record into JSON-compatible data
tagged with its type name and :data:`SCHEMA_VERSION`; :func:`from_plain` turns
it back. A reader refuses data written under another schema version instead of
misreading it. Record modules call :func:`register` for each record class (this
module imports none of them, so any record module can use it).
"""

from __future__ import annotations

import dataclasses
import functools
import math
import types
import typing
from collections.abc import Generator
from typing import Any

#: Bumped whenever a record gains, loses or changes a field, or a record type comes or
#: goes (3: the stepper's records, its ``Step`` became ``EvalStep`` beside the
#: storyboard's ``Step``; the storyboard's phases and vmap batch; 4: variant notes
#: and call code, ``TraceSettings.check_vma``; 5: the ``as_written`` variant's settings
#: ``axis_types``, ``out_axes``, ``static``, ``devices_order`` and ``VarInfo.sharding``;
#: 6: the storyboard's ``claims``).
SCHEMA_VERSION = 6


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
    _record_class.cache_clear()  # (the same class defined again: a module reloaded)
    return cls


def _find_record_class(name: str) -> type | None:
    """The record class called ``name`` when its module was not imported yet: records
    register as their module is imported, and ``jaxviz.model`` loads its modules on first
    use, so every module of the package is imported once, then the name looked up again."""
    import importlib
    import pkgutil

    package = importlib.import_module(__name__.rpartition(".")[0])
    for module in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"{package.__name__}.{module.name}")
    return _REGISTRY.get(name)


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


@functools.cache
def _record_class(name: str) -> tuple[type, frozenset[str]]:
    """The record class tagged ``name`` and its field names (looked up once a name: a
    train step's reply holds some 10,000 records)."""
    cls = _REGISTRY.get(name) or _find_record_class(name)
    if cls is None:
        raise SchemaMismatch(f"unknown record type {name!r}")
    return cls, frozenset(f.name for f in dataclasses.fields(cls))


def _make_record(cls: type, name: str, kwargs: dict[str, Any], check: bool) -> Any:
    if check:
        hints = _hints(cls)
        for key, value in kwargs.items():
            if not _fits(value, hints[key]):
                raise SchemaMismatch(f"a malformed jaxviz record: {name}.{key} should be "
                                     f"{_hint_text(hints[key])}, not {_short(value)}")
    return cls(**kwargs)


#: A step of :func:`from_plain_steps` decodes about this many values (the items of the
#: dicts and lists it meets): well under a millisecond.
STEP_VALUES = 1000


def _decode(data: Any, check: bool) -> Any:
    """The records, lists and dicts ``data`` encodes, in one go."""
    steps = _decode_steps(data, check, [math.inf])
    try:
        next(steps)
    except StopIteration as done:
        return done.value
    raise AssertionError("decoding with unlimited room took a step")


def _decode_steps(data: Any, check: bool, room: list[float]) -> Generator[None, None, Any]:
    """:func:`_decode` in steps: ``room`` holds how many more values (the items of every
    dict and list met) this step may decode; when they run out it yields, even in the
    middle of a long list, and the next step has :data:`STEP_VALUES` again. One pass over
    the data: no part is counted apart first or decoded twice (both were most of the time
    a nested program's reply took)."""
    if isinstance(data, dict):
        name = data.get("__type__")
        names = None if name is None else _record_class(name)[1]
        out = {}
        for key, value in data.items():
            room[0] -= 1
            if room[0] < 0:
                room[0] = STEP_VALUES
                yield
            if names is None or key in names:
                out[key] = ((yield from _decode_steps(value, check, room))
                            if isinstance(value, (dict, list)) else value)
        if name is None:
            return out
        return _make_record(_record_class(name)[0], name, out, check)
    if isinstance(data, list):
        items = []
        for value in data:
            room[0] -= 1
            if room[0] < 0:
                room[0] = STEP_VALUES
                yield
            items.append((yield from _decode_steps(value, check, room))
                         if isinstance(value, (dict, list)) else value)
        return items
    return data


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _fits(value: Any, hint: Any) -> bool:
    """True when decoded ``value`` is what the annotation ``hint`` says (as JSON carries it:
    a tuple or set as a list, an int where a float is meant)."""
    if hint is Any or hint is object:
        return True
    if hint is None or hint is type(None):
        return value is None
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return any(_fits(value, h) for h in args)
    if origin is typing.Literal:
        return value in args
    if hint in (int, float):
        kinds = (int,) if hint is int else (int, float)
        return isinstance(value, kinds) and not isinstance(value, bool)
    if origin in (list, tuple, set, frozenset) or hint in (list, tuple, set, frozenset):
        if not isinstance(value, (list, tuple)):
            return False
        if origin is tuple and args and args[-1] is not Ellipsis:
            return len(value) == len(args) and all(_fits(v, h) for v, h in zip(value, args))
        return not args or all(_fits(v, args[0]) for v in value)
    if origin is dict or hint is dict:
        return isinstance(value, dict) and (not args or all(
            _fits(k, args[0]) and _fits(v, args[1]) for k, v in value.items()))
    if isinstance(hint, type):
        return isinstance(value, hint)
    return True  # an annotation of another kind is not checked


def _hint_text(hint: Any) -> str:
    return hint.__name__ if isinstance(hint, type) else str(hint).replace("typing.", "")


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def to_plain(record: Any) -> dict[str, Any]:
    """Encode a record as JSON-compatible data, tagged with the schema version."""
    return {"schema": SCHEMA_VERSION, "record": _encode(record)}


def from_plain(data: dict[str, Any], check_types: bool = False) -> Any:
    """Decode data made by :func:`to_plain`.

    Args:
        data: what :func:`to_plain` made (after a trip through JSON).
        check_types: check every field against its annotation -- for data from a
            file, which anyone may have written; messages between jaxviz's own
            processes are signed and skip the cost.

    Raises:
        SchemaMismatch: the data was not written by :func:`to_plain` (it says so:
            not jaxviz data at all, another jaxviz version, or a malformed record).
    """
    _check_envelope(data)
    try:
        return _decode(data["record"], check_types)
    except (TypeError, ValueError, AttributeError) as exc:  # fields missing or of a wrong kind
        raise SchemaMismatch(f"a malformed jaxviz record: {exc}") from None


def from_plain_steps(data: dict[str, Any], check_types: bool = False
                     ) -> Generator[None, None, Any]:
    """:func:`from_plain` in steps (see :mod:`jaxviz.views.incremental`) of about
    :data:`STEP_VALUES` values each, so a window can decode a 12-layer train step's reply
    a few milliseconds per event-loop turn. The result and the errors are
    :func:`from_plain`'s."""
    _check_envelope(data)
    try:
        return (yield from _decode_steps(data["record"], check_types, [STEP_VALUES]))
    except (TypeError, ValueError, AttributeError) as exc:
        raise SchemaMismatch(f"a malformed jaxviz record: {exc}") from None


def _check_envelope(data: Any) -> None:
    if not isinstance(data, dict) or "record" not in data or not isinstance(
            data.get("schema"), int) or isinstance(data.get("schema"), bool):
        raise SchemaMismatch("this is not jaxviz data (jaxviz writes an object with a "
                             "record schema number and a record)")
    version = data["schema"]
    if version != SCHEMA_VERSION:
        raise SchemaMismatch(
            f"record schema {version!r} does not match this jaxviz's schema "
            f"{SCHEMA_VERSION}: it was written by another jaxviz version")
