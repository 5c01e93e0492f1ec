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
import sys
from collections.abc import Callable

from jaxviz.model import VARIANTS, TraceRequest
from jaxviz.model.limits import BATCH, DEVICES, TIMEOUT, Limit, argument_type
from jaxviz.model.sizes import SizeRange, parse_size
from jaxviz.model.specs import SpecError, axis_name_problem

EXIT_OK = 0
EXIT_FAILED = 1  # the user's function ran and failed, or the engine did
EXIT_USAGE = 2   # what was typed (or the file named, before its function ran) is at fault

#: Variants that call the function on a batch (the others call it once, on --args).
BATCHED_VARIANTS = ("vmap", "pmap", "sharded", "shard_map")

#: Trace settings checked before the engine starts, and the option that sets each.
SETTING_OPTIONS = {"args": "--args", "batched_args": "--batched-args", "in_axes": "--in-axes",
                   "axis_name": "--axis-name", "mesh": "--mesh", "specs": "--specs",
                   "out_specs": "--out-specs", "axis_types": "--axis-types",
                   "out_axes": "--out-axes", "static": "--static",
                   "devices_order": "--devices-order"}


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
    """An argparse ``type=`` for files and folders to write: not empty, one line."""
    return one_line(text)


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
    parser.add_argument("--devices", type=number(DEVICES), default=8, metavar="N",
                        help="number of simulated CPU devices when there is no accelerator "
                             f"(default 8, at most {DEVICES.high:g}); on GPUs/TPUs, use the "
                             "first N")
    parser.add_argument("--timeout", type=number(TIMEOUT), default=60.0, metavar="SECONDS",
                        help="give up on the request after this long (default 60, at most "
                             f"{TIMEOUT.high:g})")
    parser.add_argument("--debug", action="store_true",
                        help="show full Python tracebacks for errors")


def add_target_options(parser: argparse.ArgumentParser, variant: bool = True) -> None:
    parser.add_argument("target", help="path/to/file.py:function, path/to/file.py or "
                                       "example:NAME (see `jaxviz examples`)")
    parser.add_argument("--args", metavar="SPEC",
                        help="arguments of one unbatched call, e.g. \"f32[5], f32[3]\" or "
                             "\"jnp.arange(5.), init(jax.random.key(0))\"")
    parser.add_argument("--batched-args", type=one_line, metavar="SPEC",
                        help="already-batched arguments for vmap/pmap/sharded/shard_map "
                             "(default: built from --args with a batch axis per --in-axes)")
    if variant:
        parser.add_argument("--variant", choices=VARIANTS,
                            help="which variant (default: as_written when the function is "
                                 "already jitted/shard_mapped or the file sets a mesh; else "
                                 "plain, or the example's first)")
    parser.add_argument("--batch", type=number(BATCH), metavar="B",
                        help="batch size for vmap/pmap/sharding (default: the device count)")
    parser.add_argument("--in-axes", type=one_line, metavar="AXES",
                        help="batch axis of each argument, e.g. \"0, None\" (default 0)")
    parser.add_argument("--axis-name", type=axis_name, metavar="NAME",
                        help="name of the mapped axis that collectives use (default i)")
    parser.add_argument("--mesh", type=one_line, metavar="MESH",
                        help="device mesh for sharded/shard_map, e.g. \"data=4,model=2\"")
    parser.add_argument("--specs", type=one_line, metavar="SPECS",
                        help="a PartitionSpec per argument, e.g. \"P('data', None), P()\"")
    parser.add_argument("--out-specs", type=one_line, metavar="SPECS",
                        help="output PartitionSpecs: shard_map's out_specs (default: "
                             "inferred) and the sharded variant's out_shardings")
    parser.add_argument("--axis-types", type=one_line, metavar="TYPES",
                        help="the mesh axes' types: explicit or auto (default), or one per "
                             "axis, e.g. \"explicit,auto\"; under an explicit mesh the "
                             "variants run inside jax.set_mesh and types carry their sharding")
    parser.add_argument("--out-axes", type=one_line, metavar="AXES",
                        help="vmap's out_axes, e.g. 1, or \"0, None\" for two outputs")
    parser.add_argument("--static", type=one_line, metavar="NAME=VALUE", action="append",
                        help="a static argument, passed by name and never traced (repeat the "
                             "flag, or \"n=3, mode='sum'\"); also: name=value in --args")
    parser.add_argument("--devices-order", type=one_line, metavar="IDS",
                        help="the device ids the mesh (and pmap) uses, in order, e.g. "
                             "\"0,2,4,6,1,3,5,7\" (default: JAX's order)")
    parser.add_argument("--check-vma", action=argparse.BooleanOptionalAction, default=None,
                        help="shard_map's check_vma (default: on, or the example's setting); "
                             "--no-check-vma traces shard_map as pmap does, without "
                             "varying-axes types (no psum_invariant)")
    add_device_options(parser)


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
    args = ns.args if ns.args is not None else defaults.get("args")
    if args is None:
        raise SystemExit(usage_error(f"say what arguments {target.function} takes, e.g. "
                                     f"--args \"f32[5], f32[3]\""))

    def pick(name: str, fallback=None):
        value = getattr(ns, name, None)
        return value if value is not None else defaults.get(name, fallback)

    batched_args = ns.batched_args
    unbatched = [v for v in variants if v not in BATCHED_VARIANTS]
    if batched_args is not None and unbatched and len(unbatched) == len(variants):
        # the batch would be dropped without a word: the variant calls the function once
        raise SystemExit(usage_error(
            f"--batched-args is for the batched variants ({', '.join(BATCHED_VARIANTS)}); "
            f"the {unbatched[0]} variant calls {target.function} once, on --args: give "
            f"--variant vmap (or pmap, sharded, shard_map) to map over the batch, or "
            f"drop --batched-args"))
    if batched_args is None and ns.args is None:
        batched_args = defaults.get("batched_args")
    static = ", ".join(ns.static) if getattr(ns, "static", None) else None
    req = TraceRequest(
        target=target, args=args, batched_args=batched_args, variants=variants,
        batch=pick("batch"), in_axes=pick("in_axes"), axis_name=pick("axis_name") or "i",
        mesh=pick("mesh"), specs=pick("specs"), out_specs=pick("out_specs"),
        check_vma=pick("check_vma", True), axis_types=pick("axis_types"),
        out_axes=pick("out_axes"), static=static or defaults.get("static"),
        devices_order=pick("devices_order"), want=want)
    check_settings(ns, req)
    return req, defaults


def default_variant(source: str, function: str, declared: list[str]) -> str:
    """The variant shown when none is asked for: ``as_written`` for a function that is
    already transformed as its module defines it, else plain (or the example's first)."""
    from jaxviz.model.as_written import transformed_reason

    if (not declared or "as_written" in declared) and transformed_reason(source, function):
        return "as_written"
    return "plain" if "plain" in declared or not declared else declared[0]


def check_settings(ns: argparse.Namespace, req: TraceRequest) -> None:
    """Refuse trace settings that do not parse, with the window's own checks (no engine).

    Raises:
        SystemExit: (:data:`EXIT_USAGE`) after one message naming the option,
            what is wrong and where (a caret under the column).
    """
    from jaxviz.views.window.window_state import call_arity_problem, find_field_errors

    texts = {name: getattr(req, name) or "" for name in SETTING_OPTIONS}
    with contextlib.suppress(SpecError, SyntaxError, ValueError):  # reported below / by JAX
        wrong = call_arity_problem(ast.parse(req.target.source), req.target.function,
                                   texts["args"], texts["static"])
        if wrong:
            raise SystemExit(usage_error(f"--args: {wrong}"))
    errors = find_field_errors(texts, ns.devices)
    if errors:
        name, (message, position) = next(iter(errors.items()))
        where = ""
        if position is not None and texts[name].isprintable():
            caret = SpecError(message, texts[name], position).pretty().splitlines()[1:]
            where = "\n" + "\n".join(caret)
        raise SystemExit(usage_error(f"{SETTING_OPTIONS[name]}: {message}{where}"))


def usage_error(message: str) -> int:
    print(f"jaxviz: error: {message}", file=sys.stderr)
    return EXIT_USAGE
