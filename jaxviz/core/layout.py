"""The real device layout of a compiled variant's inputs and outputs.

Everything here is read off the shardings JAX chose for the compiled program
(``compiled.input_shardings`` / ``output_shardings``) through
``sharding.devices_indices_map(shape)``: nothing is guessed.
"""

from __future__ import annotations

from typing import Any

import jax

from jaxviz.core import hlo_program
from jaxviz.model import ArrayLayout, MeshInfo, ShardInfo


def array_layout(name: str, role: str, shape: tuple[int, ...], dtype: str,
                 sharding: Any) -> ArrayLayout:
    """Describe where each device's piece of one array lives."""
    shape = tuple(int(d) for d in shape)
    shards = [ShardInfo(device=d, index=ranges) for d, ranges in index_ranges(sharding, shape)]
    spec = getattr(sharding, "spec", None)
    return ArrayLayout(
        name=name, role=role, shape=list(shape), dtype=dtype,
        sharding=describe_sharding(sharding), spec=str(spec) if spec is not None else None,
        replicated=bool(sharding.is_fully_replicated),
        shard_shape=[b - a for a, b in shards[0].index] if shards else list(shape),
        shards=shards)


def index_ranges(sharding: Any, shape: tuple[int, ...]) -> list[tuple[int, list[list[int]]]]:
    """``(device id, [[start, stop) per axis])`` of every device, by device id.

    Straight from ``sharding.devices_indices_map(shape)``.
    """
    out = []
    for device, index in sorted(sharding.devices_indices_map(shape).items(),
                                key=lambda kv: kv[0].id):
        ranges = [list(sl.indices(dim)[:2]) for dim, sl in zip(shape, index)]
        out.append((int(device.id), ranges))
    return out


def describe_sharding(sharding: Any) -> str:
    mesh = getattr(sharding, "mesh", None)
    if mesh is not None and hasattr(sharding, "spec"):
        axes = ", ".join(f"{n}={s}" for n, s in mesh.shape.items())
        return f"NamedSharding(mesh({axes}), {sharding.spec})"
    devices = sorted(d.id for d in sharding.device_set)
    if len(devices) == 1:
        return f"SingleDeviceSharding(device {devices[0]})"
    return f"{type(sharding).__name__}(devices {devices})"


def mesh_info(shardings: list[Any]) -> MeshInfo | None:
    """The mesh of the first named sharding among ``shardings``."""
    for sharding in shardings:
        mesh = getattr(sharding, "mesh", None)
        if mesh is not None and hasattr(mesh, "devices"):
            return MeshInfo(axis_names=[str(n) for n in mesh.axis_names],
                            axis_sizes=[int(s) for s in mesh.shape.values()],
                            device_ids=[int(d.id) for d in mesh.devices.flat])
    return None


def hlo_collectives(hlo_text: str) -> list[str]:
    """The collective operations in compiled HLO (inserted by the SPMD partitioner too)."""
    return hlo_program.collective_opcodes(hlo_text)


def layouts(compiled: Any, in_names: list[str], in_avals: list[Any], out_names: list[str],
            out_avals: list[Any]) -> tuple[list[ArrayLayout], MeshInfo | None]:
    """Layouts of every flat input and output of a compiled program."""
    in_shardings = jax.tree.leaves(compiled.input_shardings[0])
    out_shardings = jax.tree.leaves(compiled.output_shardings)
    arrays = []
    for name, aval, sharding in zip(in_names, in_avals, in_shardings):
        arrays.append(array_layout(name, "input", aval.shape, short_dtype(aval), sharding))
    for name, aval, sharding in zip(out_names, out_avals, out_shardings):
        arrays.append(array_layout(name, "output", aval.shape, short_dtype(aval), sharding))
    return arrays, mesh_info(in_shardings + out_shardings)


def short_dtype(aval: Any) -> str:
    """The short dtype name of an aval (``f32``)."""
    return aval.str_short(short_dtypes=True).split("[", 1)[0]
