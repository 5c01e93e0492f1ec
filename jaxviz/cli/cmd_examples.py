"""``jaxviz examples``: list the gallery."""

from __future__ import annotations

import json


def add_parser(sub) -> None:
    p = sub.add_parser("examples", help="list the example gallery",
                       description="List the gallery of examples, one line each.")
    p.add_argument("--json", action="store_true", help="print the gallery as JSON")


def run(ns) -> int:
    from jaxviz.model import list_examples

    examples = list_examples()
    if ns.json:
        print(json.dumps([{
            "name": e.name, "title": e.title, "topic": e.topic, "function": e.function,
            "args": e.args, "batched_args": e.batched_args, "variants": e.variants,
            "in_axes": e.in_axes, "axis_name": e.axis_name, "mesh": e.mesh, "specs": e.specs,
            "baseline": e.baseline, "explanation": e.explanation, "path": e.path,
        } for e in examples], indent=2))
        return 0
    width = max(len(e.name) for e in examples)
    for e in examples:
        print(f"{e.name:<{width}}  {e.title}  [{', '.join(e.variants)}]")
    print("\nopen one with: jaxviz jaxpr example:NAME --variant VARIANT")
    return 0
