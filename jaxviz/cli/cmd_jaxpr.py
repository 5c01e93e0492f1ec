"""``jaxviz jaxpr``: print a variant's jaxpr, StableHLO, HLO or the structured result."""

from __future__ import annotations

import json

from jaxviz.cli.common import trace_one
from jaxviz.cli.options import add_target_options


def add_parser(sub) -> None:
    p = sub.add_parser("jaxpr", help="print the jaxpr of a function's variant",
                       description="Trace a function and print the jaxpr of one variant "
                                   "(or its StableHLO, compiled HLO, or everything as JSON).")
    add_target_options(p)
    p.add_argument("--format", choices=("text", "json", "stablehlo", "hlo"), default="text",
                   help="text: the jaxpr as JAX prints it (default); json: the structured "
                        "result (equations, source lines, HLO, costs, layout)")


def run(ns) -> int:
    want = {"text": ["jaxpr"], "json": ["jaxpr", "hlo", "layout"],
            "stablehlo": ["jaxpr", "hlo"], "hlo": ["jaxpr", "hlo"]}[ns.format]
    result, variant, code = trace_one(ns, want)
    if code:
        return code
    assert result is not None and variant is not None  # traced: code 0
    if ns.format == "text":
        print(variant.jaxpr_text)
    elif ns.format == "stablehlo":
        print(variant.stablehlo)
    elif ns.format == "hlo":
        print(variant.hlo)
    else:
        from jaxviz.model import to_plain

        print(json.dumps(to_plain(result), indent=1))
    return 0
