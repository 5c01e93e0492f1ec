"""``jaxviz cost --what-if``: the program compiled at several device counts, projected.

The engine is started with ``max(counts)`` simulated CPU devices and compiles
the variants once per count (:mod:`jaxviz.core.what_if`); every row is its own
compiled program projected onto the chip (:mod:`jaxviz.model.what_if`).
"""

from __future__ import annotations

import json
from pathlib import Path

from jaxviz.cli.common import report
from jaxviz.cli.options import EXIT_FAILED, build_request, usage_error
from jaxviz.model.chips import Chip
from jaxviz.model.cost_model import byte_size, quantity, seconds
from jaxviz.model.what_if import (
    DEFAULT_COUNTS,
    MULTI_DEVICE,
    WhatIfRequest,
    WhatIfResult,
    WhatIfRow,
    comm_bound_at,
    hbm_exceeded_at,
    parse_counts,
    rows_json,
    variants_of,
    what_if_rows,
)

#: Seconds a what-if may take in the engine (one compile per variant and count).
WHAT_IF_TIMEOUT = 900.0


def what_if_variants(ns, declared: list[str]) -> list[str]:
    """``--variant``, else the example's multi-device variants and vmap (one device)."""
    if ns.variant is not None:
        return [ns.variant]
    chosen = [v for v in ("vmap", *MULTI_DEVICE) if v in declared]
    return chosen or ["sharded"]


def run_what_if(ns, chip: Chip) -> int:
    from jaxviz.cli.runner import EngineError, run_request
    from jaxviz.model.errors import UserError
    from jaxviz.model.sources import resolve_target

    if ns.what_if_plot is not None and Path(ns.what_if_plot).suffix.lower() not in (".png",
                                                                                     ".svg"):
        return usage_error(f"--what-if-plot: {ns.what_if_plot} is neither .png nor .svg")
    try:
        counts = parse_counts(ns.what_if) if ns.what_if else list(DEFAULT_COUNTS)
    except ValueError as exc:
        return usage_error(f"--what-if: {exc}")
    try:
        _, defaults = resolve_target(ns.target)
        variants = what_if_variants(ns, defaults.get("variants") or [])
        req, _ = build_request(ns, ["jaxpr", "cost"], variants)
    except UserError as exc:
        return report(exc.info, ns)
    try:
        result = run_request(WhatIfRequest(req, counts), max(counts),
                             max(ns.timeout, WHAT_IF_TIMEOUT))
    except EngineError as exc:
        print(f"jaxviz: error: --what-if: {exc.info.message}")
        return EXIT_FAILED
    assert isinstance(result, WhatIfResult)
    if result.error:
        print(f"jaxviz: error: --what-if: {result.error}")
        return EXIT_FAILED
    rows = what_if_rows(result, chip)
    if ns.what_if_plot is not None:
        from jaxviz.ui.timing.cost_figures import write_what_if

        write_what_if(result, chip, ns.what_if_plot)
    if ns.json:
        print(json.dumps(what_if_json(result, rows, chip), indent=1))
    else:
        print(what_if_text(result, rows, chip))
        if ns.what_if_plot is not None:
            print(f"wrote {ns.what_if_plot}")
    return 0


def what_if_json(result: WhatIfResult, rows: list[WhatIfRow], chip: Chip) -> dict[str, object]:
    """The ``--what-if --json`` object."""
    return {"chip": chip.key, "chip_name": chip.name, "function": result.function,
            "counts": result.counts, "method": result.method, "per": "device",
            "rows": rows_json(rows),
            "xla_flops": [{"devices": p.devices, "variant": p.variant,
                           "xla_flops": p.xla_flops} for p in result.points],
            "comm_bound_at": {v: comm_bound_at(rows, v) for v in variants_of(rows)},
            "hbm_exceeded_at": {v: hbm_exceeded_at(rows, v) for v in variants_of(rows)},
            "hbm_bytes": chip.hbm_bytes}


def what_if_text(result: WhatIfResult, rows: list[WhatIfRow], chip: Chip) -> str:
    """The table: one block per variant, one line per device count."""
    out = [f"what-if: {result.function} projected on {chip.name} (per device; {result.method})"]
    head = (f"{'N':>4}  {'mesh':<16} {'FLOPs':>9} {'comm B':>9} {'T_compute':>10} "
            f"{'T_memory':>10} {'T_comm':>10} {'step (max..sum)':>22} {'memory':>9}  bound")
    for v in variants_of(rows):
        out += ["", f"{v}:", head]
        for r in (r for r in rows if r.variant == v):
            if r.error:
                out.append(f"{r.devices:>4}  {r.error}")
                continue
            mem = quantity(r.memory_bytes) if r.memory_bytes is not None else "?"
            fits = "" if r.fits is not False else " > HBM"
            out.append(f"{r.devices:>4}  {r.mesh or 'one device':<16} {quantity(r.flops):>9} "
                       f"{quantity(r.comm_bytes):>9} {seconds(r.t_compute):>10} "
                       f"{seconds(r.t_memory):>10} {seconds(r.t_comm):>10} "
                       f"{seconds(r.t_lower) + '..' + seconds(r.t_upper):>22} {mem:>9}  "
                       f"{r.bound}{fits}")
        at = comm_bound_at(rows, v)
        full = hbm_exceeded_at(rows, v)
        out.append("  communication-bound (T_comm > T_compute) from N = " + str(at)
                   if at is not None else "  never communication-bound (T_comm <= T_compute)")
        out.append(f"  stops fitting in {byte_size(chip.hbm_bytes)} of HBM at N = {full}"
                   if full is not None else f"  fits in {byte_size(chip.hbm_bytes)} of HBM at "
                                            f"every N")
    return "\n".join(out)
