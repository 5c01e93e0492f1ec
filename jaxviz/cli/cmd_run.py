"""``jaxviz run``: call a variant once and print its result (as in the lecture notes)."""

from __future__ import annotations

from jaxviz.cli.common import trace_one
from jaxviz.cli.options import add_target_options


def add_parser(sub) -> None:
    p = sub.add_parser("run", help="call a variant once and print what it returns",
                       description="Call one variant of a function on its arguments and print "
                                   "the call and the result, as the lecture notes show them.")
    add_target_options(p)


def run(ns) -> int:
    _, variant, code = trace_one(ns, ["jaxpr", "value"])
    if code:
        return code
    assert variant is not None  # traced: code 0
    print(f">>> {variant.call}")
    print(variant.value)
    if variant.value_args:
        print(f"# arguments: {variant.value_args}")
    return 0
