"""The variant ``jaxviz collectives`` and ``jaxviz cost`` show when none is named."""

from __future__ import annotations


def pick_variant(ns) -> None:
    """Without --variant: the example's own mapped variant, or sharded when --mesh is given."""
    if ns.variant is not None:
        return
    from jaxviz.model.errors import UserError
    from jaxviz.model.sources import resolve_target

    try:
        _, defaults = resolve_target(ns.target)
    except UserError:
        return  # trace_one reports it
    declared = defaults.get("variants") or []
    for v in ("as_written", "sharded", "shard_map", "pmap"):
        if v in declared:
            ns.variant = v
            return
    if ns.mesh is not None and not declared:
        ns.variant = "sharded"
