"""``jaxviz collectives``: every collective of a compiled variant, its bytes and its origin.

One row per collective, identical ones (same kind, groups, shapes, origin and
source line) grouped with a count that includes the trip counts of the while
loops around them: kind, mesh axes and device groups, what each device sends
and receives, whether the user's code asked for it or XLA's SPMD partitioner
inserted it, the jaxpr equation and source line it serves and why; then the
memory per device from XLA's memory analysis.
"""

from __future__ import annotations

import json

from jaxviz.cli.collectives_variant import pick_variant
from jaxviz.cli.common import trace_one
from jaxviz.cli.options import add_target_options


def add_parser(sub) -> None:
    p = sub.add_parser(
        "collectives", help="list a variant's collectives: bytes per device, counts, origin",
        description="Compile a variant and list every collective of the compiled, partitioned "
                    "program (identical ones grouped, loops counted by their trip counts): "
                    "kind, mesh axes, device groups, bytes each device sends and receives, "
                    "whether your code or XLA's partitioner put it there and the source line "
                    "it serves; and the memory per device (XLA's memory analysis).")
    add_target_options(p)
    p.add_argument("--json", action="store_true", help="print the table as JSON")


def run(ns) -> int:
    from jaxviz.cli.cost_text import collectives_json, collectives_text

    pick_variant(ns)
    result, variant, code = trace_one(ns, ["jaxpr", "cost"])
    if code:
        return code
    assert result is not None and variant is not None and variant.program is not None
    if ns.json:
        print(json.dumps(collectives_json(variant.program, variant.call, result.simulated),
                         indent=1))
    else:
        print(collectives_text(variant.program, variant.call, result.simulated))
    return 0
