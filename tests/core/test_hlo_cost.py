"""The cost of HLO instructions on hand-written modules: each rule of XLA's counting, and loops.

(The same rules are checked against XLA's own ``cost_analysis()`` on compiled programs in
tests/core/test_program_costs.py.)
"""

from __future__ import annotations

from jaxviz.core.hlo_cost import CostModel
from jaxviz.core.hlo_program import read_module

LOOP = """HloModule m, num_partitions=1

%body (p: (s32[], f32[8,16])) -> (s32[], f32[8,16]) {
  %p = (s32[], f32[8,16]{1,0}) parameter(0)
  %i = s32[] get-tuple-element(%p), index=0
  %x = f32[8,16]{1,0} get-tuple-element(%p), index=1
  %one = s32[] constant(1)
  %next = s32[] add(%i, %one)
  %w = f32[16,16]{1,0} constant({...})
  %y = f32[8,16]{1,0} dot(%x, %w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %e = f32[8,16]{1,0} exponential(%y)
  ROOT %t = (s32[], f32[8,16]{1,0}) tuple(%next, %e)
}

%cond (p: (s32[], f32[8,16])) -> pred[] {
  %p = (s32[], f32[8,16]{1,0}) parameter(0)
  %i = s32[] get-tuple-element(%p), index=0
  %n = s32[] constant(12)
  ROOT %lt = pred[] compare(%i, %n), direction=LT
}

%sum (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}

ENTRY %main (x: f32[8,16]) -> f32[8] {
  %x = f32[8,16]{1,0} parameter(0)
  %zero = s32[] constant(0)
  %init = (s32[], f32[8,16]{1,0}) tuple(%zero, %x)
  %loop = (s32[], f32[8,16]{1,0}) while(%init), condition=%cond, body=%body, backend_config={"known_trip_count":{"n":"12"}}
  %out = f32[8,16]{1,0} get-tuple-element(%loop), index=1
  %z = f32[] constant(0)
  ROOT %r = f32[8] reduce(%out, %z), dimensions={1}, to_apply=%sum
}
"""


def test_a_loop_body_runs_its_trip_count():
    module = read_module(LOOP)
    once = CostModel(module, loops="once").program()
    trip = CostModel(module, loops="trip").program()
    body = 2 * 8 * 16 * 16 + 1  # the dot, the counter's add
    cond = 1  # the compare
    reduce = 8 * 16 - 8  # one add per element folded in
    assert once.flops == body + cond + reduce
    assert trip.flops == 12 * (body + cond) + reduce
    assert trip.transcendentals == 12 * 8 * 16
    assert trip.flops_by_dtype["f32"] == 12 * (2 * 8 * 16 * 16) + reduce


def test_a_loop_without_a_known_trip_count_counts_once_and_says_so():
    module = read_module(LOOP.replace(', backend_config={"known_trip_count":{"n":"12"}}', ""))
    model = CostModel(module, loops="trip")
    assert model.program().flops == CostModel(module, loops="once").program().flops
    assert model.unknown_trip_counts == ["loop"]


def test_bytes_of_slices_and_fusions():
    text = """HloModule m, num_partitions=1

%fused (a: f32[64], b: f32[64]) -> f32[8] {
  %a = f32[64]{0} parameter(0)
  %b = f32[64]{0} parameter(1)
  %s = f32[8]{0} slice(%a), slice={[0:8]}
  %t = f32[8]{0} slice(%b), slice={[8:16]}
  ROOT %m = f32[8]{0} multiply(%s, %t)
}

ENTRY %main (a: f32[64], b: f32[64]) -> f32[8] {
  %a = f32[64]{0} parameter(0)
  %b = f32[64]{0} parameter(1)
  ROOT %f = f32[8]{0} fusion(%a, %b), kind=kLoop, calls=%fused
}
"""
    cost = CostModel(read_module(text)).program()
    assert cost.flops == 8
    assert cost.bytes == 3 * 8 * 4  # two slices read 8 floats each, 8 written
