"""``jaxviz run``: call a variant once and print its result (as in the lecture notes)."""

from __future__ import annotations

from jaxviz.cli.common import trace_one
from jaxviz.cli.options import add_target_options


def add_parser(sub) -> None:
    p = sub.add_parser("run", help="call a variant once and print what it returns",
                       description="Call one variant of a function on its arguments and print "
                                   "the call and the result, as the lecture notes show them, "
                                   "then the variant's notes (where it computes something "
                                   "else than the others, and why).")
    add_target_options(p)
    p.add_argument("--code", action="store_true",
                   help="print the call as a Python program that runs as written in a fresh "
                        "interpreter (the function's source, the arguments, the mesh, the "
                        "call) instead of running it")


def run(ns) -> int:
    _, variant, code = trace_one(ns, ["jaxpr"] if ns.code else ["jaxpr", "value"])
    if code:
        return code
    assert variant is not None  # traced: code 0
    if ns.code:
        from jaxviz.model.sources import resolve_target

        assert variant.code is not None
        print(variant.code.script(resolve_target(ns.target)[0].source), end="")
        return 0
    print(f">>> {variant.call}")
    print(variant.value)
    if variant.value_args:
        print(f"# arguments: {variant.value_args}")
    for note in variant.notes:
        print(f"# {note.line()}")
    return 0
