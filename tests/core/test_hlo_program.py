"""jaxviz's HLO reader on literal HLO text: every replica-group form, permutes, loops, tables.

The expected groups are worked out by hand from XLA's definitions (in the
comments); each form is also read by the tests' own reader (hlo_oracle) and
the two must agree.
"""

from __future__ import annotations

import pytest

from jaxviz.core import hlo_program, hlo_steps
from jaxviz.core.hlo_program import HloReadError, parse_instruction, read_module, replica_groups
from tests.helpers import hlo_oracle

GROUP_FORMS = [
    # explicit lists
    ("replica_groups={{0,1},{2,3},{4,5},{6,7}}", [[0, 1], [2, 3], [4, 5], [6, 7]]),
    ("replica_groups={{0,4},{1,5},{2,6},{3,7}}", [[0, 4], [1, 5], [2, 6], [3, 7]]),
    ("replica_groups={}", [list(range(8))]),
    # iota: arange(8).reshape(dims).transpose(perm) cut into groups
    ("replica_groups=[2,4]<=[8]", [[0, 1, 2, 3], [4, 5, 6, 7]]),
    ("replica_groups=[2,4]<=[4,2]T(1,0)", [[0, 2, 4, 6], [1, 3, 5, 7]]),
    ("replica_groups=[4,2]<=[2,2,2]T(0,2,1)", [[0, 2], [1, 3], [4, 6], [5, 7]]),
    # mesh axes: devices along the named axes, the others fixed
    ("replica_groups=mesh['axis_0'=4,'axis_1'=2] {'axis_1'}", [[0, 1], [2, 3], [4, 5], [6, 7]]),
    ("replica_groups=mesh['axis_0'=4,'axis_1'=2] {'axis_0'}", [[0, 2, 4, 6], [1, 3, 5, 7]]),
    ("replica_groups=mesh['a'=2,'b'=2,'c'=2] {'a','c'}", [[0, 1, 4, 5], [2, 3, 6, 7]]),
    # device order [4,2]T(1,0) = [0,2,4,6,1,3,5,7] laid on the mesh [1,2,4]
    ("replica_groups=mesh['axis_0'=1,'axis_1'=2,'axis_2'=4], device_ids=([4,2]T(1,0)) "
     "{'axis_1'}", [[0, 1], [2, 3], [4, 5], [6, 7]]),
    # the minor 2 of axis_1 (pre-size 2): rows [0,2,4,6] and [1,3,5,7] cut in pairs
    ("replica_groups=mesh['axis_0'=2,'axis_1'=4], device_ids=([4,2]T(1,0)) {'axis_1':(2)2}",
     [[0, 2], [4, 6], [1, 3], [5, 7]]),
    # the major 2 of axis_1: rows cut into [0,4],[2,6] / [1,5],[3,7]
    ("replica_groups=mesh['axis_0'=2,'axis_1'=4], device_ids=([4,2]T(1,0)) {'axis_1':(1)2}",
     [[0, 4], [2, 6], [1, 5], [3, 7]]),
]


@pytest.mark.parametrize("attrs, groups", GROUP_FORMS, ids=[a[15:60] for a, _ in GROUP_FORMS])
def test_every_replica_group_form(attrs, groups):
    line = f"channel_id=1, {attrs}, dimensions={{0}}, use_global_device_ids=true"
    assert replica_groups(line, 8) == groups
    assert hlo_oracle.groups_of(line, 8) == groups


def test_no_replica_groups_is_one_group_of_everyone():
    assert replica_groups("channel_id=1, to_apply=%add", 4) == [[0, 1, 2, 3]]


def test_an_unknown_form_is_an_error_not_an_empty_list():
    with pytest.raises(HloReadError, match="unknown replica_groups"):
        replica_groups("replica_groups=something_new(0,1)", 8)


def test_source_target_pairs():
    attrs = "channel_id=1, source_target_pairs={{0,2},{2,0},{1,3},{3,1}}"
    assert hlo_program.source_target_pairs(attrs) == [(0, 2), (2, 0), (1, 3), (3, 1)]


def test_tuple_types_lose_layouts_and_index_comments():
    ins = parse_instruction(
        "  %all-to-all = (f32[1,2]{1,0}, f32[1,2]{1,0}, f32[1,2]{1,0}, f32[1,2]{1,0}, "
        "f32[1,2]{1,0}, /*index=5*/f32[1,2]{1,0}) all-to-all(%a, %b, %c, %d, %e, %f), "
        "channel_id=2, replica_groups={{0,1,2,3,4,5}}")
    assert ins.opcode == "all-to-all"
    assert ins.types == ["f32[1,2]"] * 6
    assert ins.operands == ["a", "b", "c", "d", "e", "f"]


MODULE = """\
HloModule jit_f, is_scheduled=true, num_partitions=4

FileNames
1 "<editor:f.py>"

FunctionNames
1 "f"

FileLocations
1 {file_name_id=1 function_name_id=1 line=7 end_line=7 column=5 end_column=20}

StackFrames
1 {file_location_id=1 parent_frame_id=1}


%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %add.1 = f32[] add(%a, %b)
}

%max (a.1: f32[], b.1: f32[]) -> f32[] {
  %a.1 = f32[] parameter(0)
  %b.1 = f32[] parameter(1)
  ROOT %maximum = f32[] maximum(%a.1, %b.1)
}

%body (p: (s32[], f32[4])) -> (s32[], f32[4]) {
  %p = (s32[], f32[4]{0}) parameter(0)
  %i = s32[] get-tuple-element(%p), index=0
  %v = f32[4]{0} get-tuple-element(%p), index=1
  %psum.3 = f32[4]{0} all-reduce(%v), channel_id=1, replica_groups={{0,1},{2,3}}, use_global_device_ids=true, to_apply=%add, metadata={op_name="jit(f)/while/body/psum" stack_frame_id=1}
  %scaled = f32[4]{0} multiply(%psum.3, %psum.3)
  ROOT %t = (s32[], f32[4]{0}) tuple(%i, %scaled)
}

%cond (q: (s32[], f32[4])) -> pred[] {
  %q = (s32[], f32[4]{0}) parameter(0)
  %j = s32[] get-tuple-element(%q), index=0
  %three = s32[] constant(3)
  ROOT %lt = pred[] compare(%j, %three), direction=LT
}

%branch0 (r: f32[4]) -> f32[4] {
  ROOT %r = f32[4]{0} parameter(0)
}

%branch1 (s: f32[4]) -> f32[4] {
  %s = f32[4]{0} parameter(0)
  ROOT %pmax.1 = f32[4]{0} all-reduce(%s), channel_id=2, replica_groups=[2,2]<=[4], use_global_device_ids=true, to_apply=%max
}

ENTRY %main (x: f32[4]) -> f32[4] {
  %x = f32[4]{0} parameter(0)
  %zero = s32[] constant(0)
  %init = (s32[], f32[4]{0}) tuple(%zero, %x)
  %loop = (s32[], f32[4]{0}) while(%init), condition=%cond, body=%body, backend_config={"known_trip_count":{"n":"3"}}
  %out = f32[4]{0} get-tuple-element(%loop), index=1
  %k = s32[] constant(1)
  %pick = f32[4]{0} conditional(%k, %out, %out), branch_computations={%branch0, %branch1}
  %perm = f32[4]{0} collective-permute(%pick), channel_id=3, source_target_pairs={{0,1},{1,0},{2,3},{3,2}}
  ROOT %done = f32[4]{0} negate(%perm)
}
"""


def test_program_steps_follow_loops_and_branches_in_order():
    module = read_module(MODULE)
    assert module.entry == "main" and module.num_partitions == 4
    devices = [10, 11, 12, 13]  # partition p runs on device 10 + p
    steps = hlo_steps.program_steps(module, devices)
    kinds = [(s.kind, s.collective.kind if s.collective else "") for s in steps]
    assert kinds == [("collective", "all-reduce"), ("compute", ""),
                     ("collective", "all-reduce"), ("collective", "collective-permute"),
                     ("compute", "")]
    psum, square, pmax, perm, negate = steps
    assert [(c.kind, c.hlo, c.part, c.trip_count) for c in psum.within] == [
        ("while", "loop", "body", 3)]
    assert psum.collective.groups == [[10, 11], [12, 13]]
    assert psum.collective.reduction == "sum"
    assert module.source(psum.collective.instruction) == ("<editor:f.py>", 7)
    assert [i.name for i in square.instructions] == ["scaled"]
    assert square.input_types == ["f32[4]"] and square.output_types == ["f32[4]"]
    assert [(c.kind, c.part) for c in pmax.within] == [("conditional", "branch 1")]
    assert pmax.collective.reduction == "max"
    assert pmax.collective.groups == [[10, 11], [12, 13]]
    assert perm.collective.pairs == [[10, 11], [11, 10], [12, 13], [13, 12]]
    assert negate.input_types == ["f32[4]"] and negate.output_types == ["f32[4]"]


def test_the_schedule_orders_a_computation():
    text = MODULE.replace("ENTRY %main", "ENTRY %main")
    order = {"body": ["p", "v", "i", "psum.3", "scaled", "t"]}
    module = read_module(text, order)
    assert [i.name for i in module.computations["body"].instructions] == order["body"]
    # a schedule that does not list the computation's instructions is ignored
    module = read_module(text, {"body": ["p", "t"]})
    assert [i.name for i in module.computations["body"].instructions][:3] == ["p", "i", "v"]


def test_text_without_entry_is_refused():
    with pytest.raises(HloReadError, match="ENTRY"):
        read_module("HloModule m\n\n%c (a: f32[]) -> f32[] {\n  ROOT %a = f32[] parameter(0)\n}\n")
