"""``jaxviz layout``: where each piece of every input and output lives."""

from __future__ import annotations

import json

from jaxviz.cli.common import trace_one
from jaxviz.cli.options import add_target_options
from jaxviz.model import TraceResult, VariantResult


def add_parser(sub) -> None:
    p = sub.add_parser("layout", help="print the device layout of a variant's arrays",
                       description="Compile a variant and print, for every input and output, "
                                   "which index ranges each device holds (read from the "
                                   "shardings JAX chose).")
    add_target_options(p)
    p.add_argument("--json", action="store_true", help="print the layout as JSON")


def layout_json(result: TraceResult, variant: VariantResult) -> dict:
    return {
        "variant": variant.variant,
        "call": variant.call,
        "simulated": result.simulated,
        "mesh": None if variant.mesh is None else {
            "axis_names": variant.mesh.axis_names, "axis_sizes": variant.mesh.axis_sizes,
            "device_ids": variant.mesh.device_ids},
        "devices": [{"id": d.id, "platform": d.platform, "kind": d.kind,
                     "process_index": d.process_index} for d in result.devices],
        "arrays": [{
            "name": a.name, "role": a.role, "shape": a.shape, "dtype": a.dtype,
            "sharding": a.sharding, "spec": a.spec, "replicated": a.replicated,
            "shard_shape": a.shard_shape,
            "shards": [{"device": s.device, "index": s.index} for s in a.shards],
        } for a in variant.arrays],
    }


def layout_text(result: TraceResult, variant: VariantResult) -> str:
    lines = [f"{variant.variant}: {variant.call}"]
    if variant.mesh is not None:
        m = variant.mesh
        axes = " x ".join(f"{n}={s}" for n, s in zip(m.axis_names, m.axis_sizes))
        lines.append(f"mesh: {axes}  (devices in mesh order: {' '.join(map(str, m.device_ids))})")
    kind = "simulated CPU devices" if result.simulated else "devices"
    lines.append(f"{len(result.devices)} {kind}")
    for a in variant.arrays:
        shape = f"{a.dtype}[{','.join(map(str, a.shape))}]"
        local = f"{a.dtype}[{','.join(map(str, a.shard_shape))}]"
        status = "replicated on every device" if a.replicated else f"each device holds {local}"
        lines.append("")
        lines.append(f"{a.role:<6} {a.name}  {shape}  {a.spec or a.sharding}  -- {status}")
        for s in a.shards:
            index = ", ".join(f"{lo}:{hi}" for lo, hi in s.index)
            lines.append(f"    device {s.device:>3}: [{index}]")
    return "\n".join(lines)


def run(ns) -> int:
    result, variant, code = trace_one(ns, ["jaxpr", "layout"])
    if code:
        return code
    assert result is not None and variant is not None  # traced: code 0
    if ns.json:
        print(json.dumps(layout_json(result, variant), indent=1))
    else:
        print(layout_text(result, variant))
    return 0
