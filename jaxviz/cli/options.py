"""Options shared by the subcommands that trace a target, and building requests from them."""

from __future__ import annotations

import argparse
import sys

from jaxviz.model import VARIANTS, TraceRequest

EXIT_OK = 0
EXIT_FAILED = 1  # the user's code or JAX failed
EXIT_USAGE = 2   # bad command-line input


def add_device_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--devices", type=int, default=8, metavar="N",
                        help="number of simulated CPU devices when there is no accelerator "
                             "(default 8); on GPUs/TPUs, use the first N")
    parser.add_argument("--timeout", type=float, default=60.0, metavar="SECONDS",
                        help="give up on the request after this long (default 60)")
    parser.add_argument("--debug", action="store_true",
                        help="show full Python tracebacks for errors")


def add_target_options(parser: argparse.ArgumentParser, variant: bool = True) -> None:
    parser.add_argument("target", help="path/to/file.py:function, path/to/file.py or "
                                       "example:NAME (see `jaxviz examples`)")
    parser.add_argument("--args", metavar="SPEC",
                        help="arguments of one unbatched call, e.g. \"f32[5], f32[3]\" or "
                             "\"jnp.arange(5.), init(jax.random.key(0))\"")
    parser.add_argument("--batched-args", metavar="SPEC",
                        help="already-batched arguments for vmap/pmap/sharded/shard_map "
                             "(default: built from --args with a batch axis per --in-axes)")
    if variant:
        parser.add_argument("--variant", choices=VARIANTS,
                            help="which variant (default: plain, or the example's first)")
    parser.add_argument("--batch", type=int, metavar="B",
                        help="batch size for vmap/pmap/sharding (default: the device count)")
    parser.add_argument("--in-axes", metavar="AXES",
                        help="batch axis of each argument, e.g. \"0, None\" (default 0)")
    parser.add_argument("--axis-name", metavar="NAME",
                        help="name of the mapped axis that collectives use (default i)")
    parser.add_argument("--mesh", metavar="MESH",
                        help="device mesh for sharded/shard_map, e.g. \"data=4,model=2\"")
    parser.add_argument("--specs", metavar="SPECS",
                        help="a PartitionSpec per argument, e.g. \"P('data', None), P()\"")
    parser.add_argument("--out-specs", metavar="SPECS",
                        help="output PartitionSpecs for shard_map (default: inferred)")
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
            declared = defaults.get("variants") or ["plain"]
            chosen = "plain" if "plain" in declared else declared[0]
        variants = [chosen]
    args = ns.args if ns.args is not None else defaults.get("args")
    if args is None:
        raise SystemExit(usage_error(f"say what arguments {target.function} takes, e.g. "
                                     f"--args \"f32[5], f32[3]\""))

    def pick(name: str, fallback=None):
        value = getattr(ns, name, None)
        return value if value is not None else defaults.get(name, fallback)

    batched_args = ns.batched_args
    if batched_args is None and ns.args is None:
        batched_args = defaults.get("batched_args")
    req = TraceRequest(
        target=target, args=args, batched_args=batched_args, variants=variants,
        batch=pick("batch"), in_axes=pick("in_axes"), axis_name=pick("axis_name") or "i",
        mesh=pick("mesh"), specs=pick("specs"), out_specs=pick("out_specs"),
        check_vma=pick("check_vma", True), want=want)
    return req, defaults


def usage_error(message: str) -> int:
    print(f"jaxviz: error: {message}", file=sys.stderr)
    return EXIT_USAGE
