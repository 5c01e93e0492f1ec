"""The storyboard against JAX: the compiled program built by the test, the collectives read
from its HLO by the tests' own reader (hlo_oracle), tiles against ``devices_indices_map``."""

from __future__ import annotations

import jax
import numpy as np

from jaxviz import core
from jaxviz.core import arguments
from jaxviz.core.trace import load
from jaxviz.model import TraceRequest
from jaxviz.model.errors import format_error
from tests.helpers import hlo_oracle


def oracle_collectives(compiled) -> list[hlo_oracle.Found]:
    devices = [d.id for d in compiled.runtime_executable().local_devices()]
    return hlo_oracle.read(compiled.as_text(), devices)



def assert_collectives_match(storyboard, found: list[hlo_oracle.Found]) -> None:
    steps = storyboard.collectives
    assert [s.collective.kind for s in steps] == [f.kind for f in found]
    for step, f in zip(steps, found):
        c = step.collective
        assert c.groups == f.groups, (c.kind, f.name)
        assert sorted(map(tuple, c.pairs)) == sorted(f.pairs), (c.kind, f.name)
        assert step.input_shapes == f.operands, (c.kind, f.name)
        assert step.output_shapes == f.results, (c.kind, f.name)
        if c.kind == "collective-permute":
            assert c.pairs
        else:
            assert c.groups and all(c.groups)



def index_holders(sharding, shape) -> dict[tuple, set[int]]:
    """Index ranges -> the devices holding them, straight from JAX."""
    out: dict[tuple, set[int]] = {}
    for device, index in sharding.devices_indices_map(tuple(shape)).items():
        key = tuple(tuple(sl.indices(n)[:2]) for sl, n in zip(index, shape))
        out.setdefault(key, set()).add(device.id)
    return out



def check_variant(req: TraceRequest, variant: str, allow_user_error: bool = False):
    """Trace with jaxviz and check its storyboard against JAX; return the storyboard."""
    vr = core.trace_request(req).variant(variant)
    if allow_user_error and vr.error is not None and vr.error.kind == "trace":
        return None  # the function itself fails on per-shard operands: nothing to draw
    if allow_user_error and vr.error is not None and vr.error.field == "out_specs":
        # shard_map's per-device outputs differ across an axis no output dimension is
        # split along: no out_specs lays them out, and the message says so
        assert "--out-specs" in vr.error.message or "lax.psum" in vr.error.message
        return None
    assert vr.error is None, format_error(vr.error, debug=True)
    sb = vr.storyboard
    prepared, compiled = compiled_program(req, variant)
    assert_collectives_match(sb, oracle_collectives(compiled))
    in_shardings = jax.tree.leaves(compiled.input_shardings[0])
    assert len(sb.inputs) == len(in_shardings)
    for tiles, sharding in zip(sb.inputs, in_shardings):
        assert tile_holders(tiles) == index_holders(sharding, tiles.shape), tiles.name
    out = prepared.fn(*arguments.concrete(prepared.args))
    for tiles, real in zip(sb.outputs, jax.tree.leaves(out)):
        assert tile_holders(tiles) == index_holders(real.sharding, real.shape), tiles.name
        assert tiles.replicated == (real.sharding.is_fully_replicated and len(tiles.devices) > 1)
    assert_outputs_assemble(sb, out)
    return sb


def compiled_program(req: TraceRequest, variant: str):
    """The variant's compiled program, built by the test with JAX (jit where JAX would)."""
    prepared = load(req).builder.prepare(variant)
    fn = prepared.fn if hasattr(prepared.fn, "lower") else jax.jit(prepared.fn)
    return prepared, fn.lower(*prepared.args).compile()



def tile_holders(array_tiles) -> dict[tuple, set[int]]:
    return {tuple(tuple(r) for r in t.index): set(t.devices) for t in array_tiles.tiles}



def assert_outputs_assemble(storyboard, out) -> None:
    """Each output, put together from the real per-device shards at the storyboard's tiles."""
    leaves = jax.tree.leaves(out)
    outputs = storyboard.outputs
    assert len(outputs) == len(leaves)
    for tiles, real in zip(outputs, leaves):
        want = np.asarray(real)
        assert tiles.shape == list(want.shape)
        by_device = {s.device.id: np.asarray(s.data) for s in real.addressable_shards}
        assembled = np.full(want.shape, np.nan, dtype=np.float64)
        for tile in tiles.tiles:
            where = tuple(slice(a, b) for a, b in tile.index)
            pieces = [by_device[d] for d in tile.devices]
            for piece in pieces[1:]:  # a shared tile is the same on every holder
                np.testing.assert_array_equal(piece, pieces[0])
            assembled[where] = pieces[0]
        np.testing.assert_allclose(assembled, want, rtol=1e-6, atol=1e-6)
