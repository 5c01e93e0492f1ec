"""Costs per device read from the compiled program, against XLA and the tests' own HLO reading.

* FLOPs (and bytes) of loop-free programs equal XLA's ``compiled.cost_analysis()``;
  with loops counted once, they equal it for programs with while loops too.
* A 12-layer train step run by ``lax.scan`` costs what the same layers unrolled
  cost, within 5% (``cost_analysis()`` alone counts the loop body once).
* Collective counts and bytes per kind equal the tests' own reading of the
  compiled HLO text (tests/core/collective_counts_oracle.py), trip counts
  included, on generated N-layer train steps, unrolled and scanned, on two meshes.
"""

from __future__ import annotations

from pathlib import Path

import jax
import pytest
from jax.sharding import AxisType, NamedSharding
from jax.sharding import PartitionSpec as P

from jaxviz.core import hlo_program, program_analysis
from jaxviz.core.hlo_cost import CostModel
from jaxviz.core.trace import load, trace_request
from jaxviz.model import TraceRequest
from jaxviz.model.sources import resolve_target
from tests.helpers import collective_counts_oracle as oracle
from tests.helpers.jax_requests import example_request
from tests.programs import gpt_train_step as gpt_train

# Not in the fast tier: compiles N-layer train steps.
pytestmark = pytest.mark.slow

PROGRAM = gpt_train.__file__


def compiled_variant(req: TraceRequest, variant: str):
    prepared = load(req).builder.prepare(variant)
    fn = prepared.fn if hasattr(prepared.fn, "lower") else jax.jit(prepared.fn)
    return fn.lower(*prepared.args).compile()


def train_request(layers: int, scanned: bool, mesh: str = gpt_train.MESH_TEXT,
                  variant: str = "sharded") -> TraceRequest:
    name = "train_step_scanned" if scanned else "train_step_unrolled"
    target, _ = resolve_target(f"{PROGRAM}:{name}")
    return TraceRequest(target=target, args=gpt_train.args_text(layers, scanned),
                        variants=[variant], mesh=mesh if variant == "sharded" else None,
                        specs=gpt_train.specs_text(layers, scanned) if variant == "sharded"
                        else None, want=["jaxpr", "cost"])


def jax_train_step(layers: int, scanned: bool, shape=(4, 2)):
    """The train step compiled by plain JAX (jit with in_shardings on a data x model mesh)."""
    mesh = jax.make_mesh(shape, ("data", "model"), axis_types=(AxisType.Auto,) * 2)
    namespace = {**vars(gpt_train), "P": P}
    args = eval(gpt_train.args_text(layers, scanned), namespace)  # noqa: S307 - our own text
    specs = eval(gpt_train.specs_text(layers, scanned), namespace)  # noqa: S307
    shardings = jax.tree.map(lambda s: NamedSharding(mesh, s), specs,
                             is_leaf=lambda s: isinstance(s, P))
    fn = gpt_train.train_step_scanned if scanned else gpt_train.train_step_unrolled
    return jax.jit(fn, in_shardings=shardings).lower(*args).compile()


def xla(compiled) -> dict:
    cost = compiled.cost_analysis()
    return cost[0] if isinstance(cost, list) else cost


# --------------------------------------------------------------------------- #
# FLOPs and bytes against XLA's cost analysis
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize("name, variant", [("tensor_parallel", "sharded"),
                                           ("data_parallel", "shard_map"),
                                           ("mlp_predict", "sharded"), ("normalize", "pmap"),
                                           ("batched_matmul", "vmap"),
                                           ("convolve", "sharded"), ("jit_composition", "jit"),
                                           ("explicit_sharding", "sharded")])
def test_gallery_flops_equal_xla_cost_analysis(name, variant):
    from jaxviz.model import get_example

    if variant not in get_example(name).variants:
        pytest.skip(f"{name} has no {variant} variant")
    compiled = compiled_variant(example_request(name, [variant]), variant)
    module = hlo_program.read_module(compiled.as_text())
    ours = CostModel(module).program()
    want = xla(compiled)
    assert not CostModel(module).unknown_trip_counts
    assert ours.flops == pytest.approx(want["flops"], rel=1e-6, abs=0.5)
    assert ours.transcendentals == pytest.approx(want.get("transcendentals", 0), abs=0.5)
    assert ours.bytes == pytest.approx(want["bytes accessed"], rel=0.01)


@pytest.mark.parametrize("scanned", [False, True])
def test_train_step_flops_equal_xla_with_loops_counted_once(scanned):
    compiled = jax_train_step(2, scanned)
    module = hlo_program.read_module(compiled.as_text())
    once = CostModel(module, loops="once").program()
    want = xla(compiled)
    assert once.flops == pytest.approx(want["flops"], rel=1e-6)
    assert once.transcendentals == pytest.approx(want["transcendentals"], rel=1e-6)
    assert once.bytes == pytest.approx(want["bytes accessed"], rel=0.01)
    looped = CostModel(module, loops="trip").program()
    if scanned:  # the forward and backward loops run twice: more than XLA's count
        assert looped.flops > 1.3 * want["flops"]
    else:
        assert looped.flops == once.flops


@pytest.mark.slow
def test_scan_over_12_layers_costs_what_12_unrolled_layers_cost():
    p = gpt_train.init(jax.random.key(0), 12)
    unrolled = jax.jit(gpt_train.train_step_unrolled).lower(
        gpt_train.unstacked(p), gpt_train.tokens).compile()
    scanned = jax.jit(gpt_train.train_step_scanned).lower(p, gpt_train.tokens).compile()
    u = CostModel(hlo_program.read_module(unrolled.as_text())).program()
    s = CostModel(hlo_program.read_module(scanned.as_text())).program()
    assert s.flops == pytest.approx(u.flops, rel=0.05)
    # XLA's own analysis counts the scanned body once: far from the unrolled cost.
    assert xla(scanned)["flops"] < 0.2 * xla(unrolled)["flops"]
    assert u.flops == pytest.approx(xla(unrolled)["flops"], rel=1e-6)


# --------------------------------------------------------------------------- #
# Collectives against the tests' own reading of the HLO text
# --------------------------------------------------------------------------- #


def per_kind(costs) -> dict[str, oracle.Tally]:
    out: dict[str, oracle.Tally] = {}
    for c in costs.collectives:
        t = out.setdefault(c.kind, oracle.Tally())
        t.count += c.count
        t.operand_bytes += c.count * c.operand_bytes
        t.result_bytes += c.count * c.result_bytes
    return out


CASES = [(1, False, "data=4,model=2"), (3, False, "data=2,model=4"),
         (1, True, "data=4,model=2"), (5, True, "data=4,model=2"), (12, True, "data=2,model=4"),
         (24, True, "data=4,model=2")]


@pytest.mark.parametrize("layers, scanned, mesh", CASES)
def test_collective_counts_and_bytes_match_the_hlo(layers, scanned, mesh):
    req = train_request(layers, scanned, mesh)
    result = trace_request(req)
    vr = result.variants[0]
    assert vr.error is None, vr.error
    costs = vr.program
    compiled = compiled_variant(req, "sharded")
    want = oracle.tally(compiled.as_text())
    got = per_kind(costs)
    assert set(got) == set(want)
    for kind, t in want.items():
        assert (got[kind].count, got[kind].operand_bytes, got[kind].result_bytes) == (
            t.count, t.operand_bytes, t.result_bytes), kind
    if scanned and layers > 1:  # (XLA unrolls a scan of one iteration: no loop is left)
        looped = [c for c in costs.collectives if c.in_loop]
        assert looped and all(n % layers == 0 for c in looped for n in c.trip_counts)
    # every storyboard step is costed once, and the steps add up to the program
    assert [s.step for s in costs.steps] == list(range(len(vr.storyboard.steps)))
    assert sum(s.flops for s in costs.steps) + costs.unattributed_flops == pytest.approx(
        costs.flops)
    assert costs.memory is not None and costs.memory.argument_bytes > 0


def test_grouped_collectives_name_their_origin_and_line():
    result = trace_request(train_request(2, True))
    costs = result.variants[0].program
    lines = {c.source_lines[0] for c in costs.collectives if c.source_lines}
    source = Path(PROGRAM).read_text().splitlines()
    assert lines and all(1 <= n <= len(source) for n in lines)
    assert all(c.origin in ("jaxpr", "partitioner") for c in costs.collectives)
    # the train step has no psum of its own: every collective is the partitioner's
    assert {c.origin for c in costs.collectives} == {"partitioner"}
    assert all(c.why for c in costs.collectives if c.primitives)
    # memory analysis is XLA's own
    compiled = compiled_variant(train_request(2, True), "sharded")
    stats = compiled.memory_analysis()
    assert costs.memory.temp_bytes == stats.temp_size_in_bytes
    assert costs.memory.argument_bytes == stats.argument_size_in_bytes


def test_user_collectives_are_the_users():
    result = trace_request(example_request("data_parallel", ["shard_map"],
                                           want=("jaxpr", "cost")))
    costs = result.variants[0].program
    [c] = costs.collectives
    assert c.kind == "all-reduce" and c.origin == "jaxpr" and "psum" in c.primitives
    assert c.group_size == 8 and c.count == 1
    # ring all-reduce: 2 (n-1)/n of the operand bytes
    assert c.sent_bytes == pytest.approx(2 * 7 / 8 * c.operand_bytes)


def test_program_analysis_reads_xla_memory(monkeypatch):
    class Stats:
        argument_size_in_bytes, output_size_in_bytes, temp_size_in_bytes = 10, 20, 30
        alias_size_in_bytes, generated_code_size_in_bytes = 5, 0

    class Compiled:
        def memory_analysis(self):
            return Stats()

    mem = program_analysis.memory_of(Compiled())
    assert (mem.argument_bytes, mem.output_bytes, mem.temp_bytes, mem.peak_bytes) == (
        10, 20, 30, 55)
