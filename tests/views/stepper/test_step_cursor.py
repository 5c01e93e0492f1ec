"""The stepping cursor without Qt or JAX: the moves a debugger makes, on hand-made steppings.

The same moves on real steppings (scan, cond, while, calls, shard_map) are checked
in ``tests/core/test_step_cursor_on_steppings.py``.
"""

from __future__ import annotations

from jaxviz.model.records import SourceSpan
from jaxviz.model.stepping import EvalStep, StepResult
from jaxviz.views.stepper.cursor import StepCursor


def _eq(path: str, depth: int, primitive: str, line: int | None = None) -> EvalStep:
    source = SourceSpan("f.py", line, 0, line, 10, "f") if line else None
    return EvalStep("equation", path, depth, primitive, source=source)


def _program() -> StepResult:
    """jit { sin (line 3); shard_map { psum (line 4) }; cos (line 5) }; exp (line 6)"""
    steps = [
        EvalStep("enter", "0", 0, "jit", partner=6),
        _eq("jit[0] > 0", 1, "sin", 3),
        EvalStep("enter", "jit[0] > 1", 1, "shard_map", partner=4),
        _eq("jit[0] > shard_map[1] > 0", 2, "psum", 4),
        EvalStep("leave", "jit[0] > 1", 1, "shard_map", partner=2),
        _eq("jit[0] > 2", 1, "cos", 5),
        EvalStep("leave", "0", 0, "jit", partner=0),
        _eq("1", 0, "exp", 6),
    ]
    return StepResult("f", "f.py", "pmap", steps=steps)


def test_next_and_back_visit_every_step_in_order():
    cursor = StepCursor(_program())
    seen = [cursor.step.primitive]
    while cursor.next():
        seen.append(cursor.step.primitive)
    assert seen == ["jit", "sin", "shard_map", "psum", "shard_map", "cos", "jit", "exp"]
    assert cursor.at_end and not cursor.next() and cursor.problem == "this is the last step"
    while cursor.back():
        pass
    assert cursor.index == 0 and cursor.problem == "this is the first step"


def test_over_jumps_from_an_enter_to_its_leave_and_else_moves_one_step():
    cursor = StepCursor(_program())
    assert cursor.over() and cursor.index == 6 and cursor.step.kind == "leave"
    cursor.go(1)
    assert cursor.over() and cursor.index == 2  # sin: one step on, to the shard_map's enter
    assert cursor.over() and cursor.index == 4  # over the shard_map body


def test_out_goes_to_the_leave_of_the_enclosing_jaxpr():
    cursor = StepCursor(_program(), index=3)  # psum, inside shard_map inside jit
    assert cursor.enclosing() == 2
    assert cursor.out() and cursor.index == 4
    assert cursor.out() and cursor.index == 6
    assert not cursor.out() and cursor.index == 6
    assert "nothing to step out of" in cursor.problem


def test_run_to_line_finds_the_next_equation_of_the_line_and_wraps_around():
    cursor = StepCursor(_program())
    assert cursor.run_to_line(4) and cursor.step.primitive == "psum"
    assert cursor.run_to_line(3) and cursor.step.primitive == "sin"  # wrapped to the start
    assert not cursor.run_to_line(9) and cursor.step.primitive == "sin"
    assert cursor.problem == "no equation of the stepped pmap program comes from line 9"
    assert cursor.lines() == [3, 4, 5, 6]
    cursor.go(7)
    assert not cursor.run_to_line(6) and "only equation" in cursor.problem


def test_a_stepping_stopped_early_says_so_where_a_move_cannot_go():
    result = _program()
    result.steps = result.steps[:4]  # stopped after psum: no leaves
    for s in result.steps:
        s.partner = None
    result.complete, result.stopped = False, "stopped after the first equation of line 4"
    cursor = StepCursor(result)
    assert not cursor.over() and "did not finish" in cursor.problem
    cursor.go(3)
    assert not cursor.next() and "last step recorded" in cursor.problem
    assert not cursor.out() and "did not finish" in cursor.problem


def test_moves_are_announced_once_and_only_when_the_step_changed():
    cursor = StepCursor(_program())
    moved: list[int] = []
    cursor.on_move(moved.append)
    cursor.next()
    cursor.back()
    cursor.back()  # refused: nothing announced
    cursor.go(0)   # already there
    cursor.run_to_line(5)
    assert moved == [1, 0, 5]


def test_an_empty_stepping_has_nowhere_to_go():
    cursor = StepCursor(StepResult("f", "f.py", "plain"))
    assert cursor.step is None and cursor.count == 0
    assert not cursor.next() and cursor.problem == "there are no steps"
