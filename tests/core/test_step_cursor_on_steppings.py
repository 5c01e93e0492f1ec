"""The stepping cursor's moves on real steppings: scan, cond, while, calls and shard_map.

The expected targets come from this file's own reading of the steps (a stack of
open ``enter`` markers), not from the cursor's code.
"""

from __future__ import annotations

import pytest

from jaxviz.core.stepper import step
from jaxviz.model import TraceRequest
from jaxviz.model.stepping import StepRequest
from jaxviz.views.stepper.cursor import StepCursor
from tests.helpers.stepping import HOST, step_example, stepping_file


def _enclosing_leaves(steps) -> list[int | None]:
    """For every step, the index of the ``leave`` closing the jaxpr it is in (None at the top)."""
    out: list[int | None] = []
    open_: list[int] = []
    for k, s in enumerate(steps):
        if s.kind == "leave":
            open_.pop()
        out.append(steps[open_[-1]].partner if open_ else None)
        if s.kind == "enter":
            open_.append(k)
    return out


def _steppings(tmp_path):
    target, _ = stepping_file(tmp_path, HOST)
    host = step(StepRequest(TraceRequest(target=target, args="f32[3], f32[]"), variant="jit"))
    pmap = step_example("data_parallel", "pmap")
    return [host.result, pmap.result]


@pytest.fixture(scope="module")
def steppings(tmp_path_factory):
    return _steppings(tmp_path_factory.mktemp("cursor"))


def test_over_from_every_enter_lands_on_its_own_leave(steppings):
    for result in steppings:
        enters = [k for k, s in enumerate(result.steps) if s.kind == "enter"]
        assert len(enters) >= 2
        for k in enters:
            cursor = StepCursor(result, k)
            assert cursor.over()
            here, there = result.steps[k], cursor.step
            assert there.kind == "leave" and (there.path, there.primitive) == \
                (here.path, here.primitive)
            between = result.steps[k + 1:cursor.index]
            assert all(s.depth > here.depth for s in between)


def test_out_from_every_nested_step_lands_on_the_leave_that_closes_it(steppings):
    for result in steppings:
        expected = _enclosing_leaves(result.steps)
        for k, leave in enumerate(expected):
            cursor = StepCursor(result, k)
            assert cursor.out() == (leave is not None and leave != k), (k, result.steps[k].path)
            if leave is not None:
                assert cursor.index == leave


def test_into_visits_a_scan_body_once_per_element(steppings):
    result = steppings[0]
    scan = next(k for k, s in enumerate(result.steps) if s.kind == "enter"
                and s.primitive == "scan")
    cursor = StepCursor(result, scan)
    sines = []
    while cursor.next() and cursor.index < result.steps[scan].partner:
        if cursor.step.primitive == "sin":
            sines.append(cursor.step.path)
    assert [p.split(" > ")[-2][-2:] for p in sines] == ["#0", "#1", "#2"]


def test_run_to_line_stops_at_the_next_equation_of_that_line(steppings):
    for result in steppings:
        lines = StepCursor(result).lines()
        assert lines
        for line in lines:
            cursor = StepCursor(result)
            hits = [k for k, s in enumerate(result.steps) if s.kind == "equation"
                    and s.source is not None and s.source.line == line]
            target = next((k for k in hits if k > 0), hits[0])
            assert cursor.run_to_line(line) == (target != 0)
            assert cursor.index == target
            assert cursor.step.source.line == line and cursor.step.kind == "equation"
