"""Options shared by the subcommands, their checks, and building requests from them.

Every value typed on the command line is checked here before anything
starts: numbers by the argparse ``type=`` functions below (ranges from
:mod:`jaxviz.model.limits`), names by :func:`axis_name`, paths by
:func:`output_path`, and the trace settings (arguments, ``in_axes``, mesh,
partition specs) by the window's own field checks
(:func:`jaxviz.views.window.window_state.find_field_errors`) in :func:`build_request`.
A bad value exits with :data:`EXIT_USAGE` and one message.

Exit codes (the README's rule): 0 done; 2 (:data:`EXIT_USAGE`) what you gave
is at fault -- an option, a target, or your file before its function ran (not
readable, a syntax error, an exception at its top level, no such function,
arguments that do not fit it, settings that do not fit the devices); 1
(:data:`EXIT_FAILED`) your function ran (JAX traced or called it) and failed,
or the engine timed out, crashed or was refused; 130 interrupted.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import keyword
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from jaxviz.model import VARIANTS, TraceRequest
from jaxviz.model.limits import (
    BATCH,
    DEFAULT_DEVICES,
    DEFAULT_TIMEOUT,
    DEVICES,
    TIMEOUT,
    Limit,
    argument_type,
)
from jaxviz.model.settings_table import SETTINGS, TRACE_SETTINGS, TraceSetting, settings_values
from jaxviz.model.sizes import SizeRange, parse_size
from jaxviz.model.specs import SpecError, axis_name_problem

EXIT_OK = 0
EXIT_FAILED = 1  # the user's function ran and failed, or the engine did
EXIT_USAGE = 2   # what was typed (or the file named, before its function ran) is at fault

#: Variants that call the function on a batch (the others call it once, on --args).
BATCHED_VARIANTS = ("vmap", "pmap", "sharded", "shard_map")

#: Trace settings checked before the engine starts, and the option that sets each.
SETTING_OPTIONS = {s.name: s.flag for s in TRACE_SETTINGS if s.typed_as_text}


def number(limit: Limit) -> Callable[[str], int | float]:
    """An argparse ``type=`` that accepts what ``limit`` allows (finite, in range)."""
    return argument_type(limit)


def axis_name(text: str) -> str:
    """An argparse ``type=`` for axis names: a Python identifier, not a keyword."""
    problem = axis_name_problem(text)
    if problem:
        raise argparse.ArgumentTypeError(problem)
    return text


def function_name(text: str) -> str:
    """An argparse ``type=`` for the name of a function in the target's file."""
    if not text.isidentifier() or keyword.iskeyword(text):
        raise argparse.ArgumentTypeError(f"a function name is a Python identifier, "
                                         f"not {text!r}")
    return text


def one_line(text: str) -> str:
    """An argparse ``type=`` for a value typed as text: not empty, on one line.

    (An empty value would silently mean "the default"; a newline or another
    control character is a paste gone wrong.)
    """
    if not text.strip():
        raise argparse.ArgumentTypeError("the value is empty: give one, or leave the option "
                                         "out for its default")
    bad = next((c for c in text if not c.isprintable()), None)
    if bad is not None:
        raise argparse.ArgumentTypeError(f"{text!r} holds {bad!r}: give the value on one line")
    return text


def output_path(text: str) -> str:
    """An argparse ``type=`` for files and folders to write: not empty, one line, and not a
    name that is only an extension (``.mp4`` is a hidden file without a suffix)."""
    text = one_line(text)
    name = Path(text).name
    if name.startswith(".") and name.count(".") == 1 and len(name) > 1 \
            and not text.endswith(("/", os.sep)):
        raise argparse.ArgumentTypeError(
            f"{text!r} is only an extension: name the file, e.g. "
            f"{str(Path(text).with_name('out' + name))!r}")
    return text


def image_size(allowed: SizeRange) -> Callable[[str], tuple[int, int]]:
    """An argparse ``type=`` for ``WIDTHxHEIGHT`` within ``allowed`` (:mod:`jaxviz.model.sizes`)."""

    def parse(text: str) -> tuple[int, int]:
        try:
            return parse_size(text, allowed, "the size")
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    parse.__name__ = "size"
    return parse


def add_device_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--devices", type=number(DEVICES), default=DEFAULT_DEVICES, metavar="N",
                        help="number of simulated CPU devices when there is no accelerator "
                             f"(default {DEFAULT_DEVICES}, at most {DEVICES.high:g}); on "
                             "GPUs/TPUs, use the first N")
    parser.add_argument("--timeout", type=number(TIMEOUT), default=DEFAULT_TIMEOUT,
                        metavar="SECONDS",
                        help=f"give up on the request after this long (default "
                             f"{DEFAULT_TIMEOUT:g}, at most {TIMEOUT.high:g})")
    parser.add_argument("--debug", action="store_true",
                        help="show full Python tracebacks for errors")


def add_target_options(parser: argparse.ArgumentParser, variant: bool = True) -> None:
    parser.add_argument("target", help="path/to/file.py:function, path/to/file.py or "
                                       "example:NAME (see `jaxviz examples`)")
    if variant:
        parser.add_argument("--variant", choices=VARIANTS,
                            help="which variant (default: as_written when the function is "
                                 "already jitted/shard_mapped or the file sets a mesh; else "
                                 "plain, or the example's first)")
    for setting in TRACE_SETTINGS:
        parser.add_argument(setting.flag, help=setting.help, **_argparse_kind(setting))
    add_device_options(parser)


def _argparse_kind(setting: TraceSetting) -> dict[str, Any]:
    """How argparse reads a setting of this kind (its value checked as it is parsed)."""
    if setting.kind == "flag":
        return {"action": argparse.BooleanOptionalAction, "default": None}
    types: dict[str, Callable[[str], Any] | None] = {
        "spec": None, "text": one_line, "list": one_line, "axis": axis_name,
        "count": number(BATCH)}
    out: dict[str, Any] = {"metavar": setting.metavar, "type": types[setting.kind]}
    if setting.kind == "list":
        out["action"] = "append"
    return out


def build_request(ns: argparse.Namespace, want: list[str],
                  variants: list[str] | None = None) -> tuple[TraceRequest, dict]:
    """A trace request from parsed options; an example's settings fill what is not given.

    Raises:
        jaxviz.model.errors.UserError: the target cannot be resolved.
    """
    from jaxviz.model.sources import resolve_target

    target, defaults = resolve_target(ns.target)
    if variants is None:
        chosen = getattr(ns, "variant", None)
        if chosen is None:
            chosen = default_variant(target.source, target.function,
                                     defaults.get("variants") or [])
        variants = [chosen]
    given = {name: getattr(ns, name, None) for name in SETTINGS}
    given["static"] = ", ".join(ns.static) if getattr(ns, "static", None) else None
    merged = {**defaults, **{k: v for k, v in given.items() if v is not None}}
    if ns.batched_args is None and (ns.args is not None or getattr(ns, "batch", None) is not None):
        # the example's batched arguments fit its own args and batch; --args or --batch
        # asks for arguments built anew
        merged["batched_args"] = None
    if merged.get("args") is None:
        from jaxviz.model.gallery import declared_problem

        problem = declared_problem(target.source)
        raise SystemExit(usage_error(f"say what arguments {target.function} takes, e.g. "
                                     f"--args \"f32[5], f32[3]\""
                                     + (f" ({problem})" if problem else "")))
    unbatched = [v for v in variants if v not in BATCHED_VARIANTS]
    if ns.batched_args is not None and unbatched and len(unbatched) == len(variants):
        # the batch would be dropped without a word: the variant calls the function once
        raise SystemExit(usage_error(
            f"--batched-args is for the batched variants ({', '.join(BATCHED_VARIANTS)}); "
            f"the {unbatched[0]} variant calls {target.function} once, on --args: give "
            f"--variant vmap (or pmap, sharded, shard_map) to map over the batch, or "
            f"drop --batched-args"))
    req = TraceRequest(target=target, variants=variants, want=want,
                       **settings_values(merged))
    # a setting the file's JAXVIZ gave (not the command line) is named as the file gives it
    from_file = "" if ns.target.startswith("example:") else (
        ns.target.rpartition(".py:")[0] + ".py" if ".py:" in ns.target else ns.target)
    named = {name: f"{from_file}: JAXVIZ {name!r}" for name in SETTING_OPTIONS
             if from_file and given.get(name) is None and name in defaults}
    check_settings(ns, req, named)
    # the engine's errors name their setting as the user gave it (common.report)
    ns.setting_names = {s.name: named.get(s.name, s.flag) for s in TRACE_SETTINGS}
    return req, defaults


def default_variant(source: str, function: str, declared: list[str]) -> str:
    """The variant shown when none is asked for: ``as_written`` for a function that is
    already transformed as its module defines it, else plain (or the example's first)."""
    from jaxviz.model.as_written import transformed_reason

    if (not declared or "as_written" in declared) and transformed_reason(source, function):
        return "as_written"
    return "plain" if "plain" in declared or not declared else declared[0]


def check_settings(ns: argparse.Namespace, req: TraceRequest,
                   named: dict[str, str] | None = None) -> None:
    """Refuse trace settings that do not parse, with the window's own checks (no engine).
    ``named``: how the message names a setting not given by its option (a file's
    ``JAXVIZ`` key).

    Raises:
        SystemExit: (:data:`EXIT_USAGE`) after one message naming the option,
            what is wrong and where (a caret under the column).
    """
    from jaxviz.views.window.window_state import call_arity_problem, find_field_errors

    named = named or {}
    texts = {name: getattr(req, name) or "" for name in SETTING_OPTIONS}
    with contextlib.suppress(SpecError, SyntaxError, ValueError):  # reported below / by JAX
        wrong = call_arity_problem(ast.parse(req.target.source), req.target.function,
                                   texts["args"], texts["static"])
        if wrong:
            raise SystemExit(usage_error(f"{named.get('args', '--args')}: {wrong}"))
    errors = find_field_errors(texts, ns.devices)
    if errors:
        name, (message, position) = next(iter(errors.items()))
        where = ""
        if position is not None and texts[name].isprintable():
            caret = SpecError(message, texts[name], position).pretty().splitlines()[1:]
            where = "\n" + "\n".join(caret)
        raise SystemExit(usage_error(f"{named.get(name, SETTING_OPTIONS[name])}: "
                                     f"{message}{where}"))


def usage_error(message: str) -> int:
    print(f"jaxviz: error: {message}", file=sys.stderr)
    return EXIT_USAGE
