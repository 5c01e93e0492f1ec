"""Where a stepping is: a cursor over a :class:`~jaxviz.model.stepping.StepResult`'s steps.

Plain Python (no Qt, no JAX), so a window, a presenter's clicker or a test can
drive it. The moves are a debugger's:

* :meth:`StepCursor.next` / :meth:`StepCursor.back`: one step on or back, into
  nested jaxprs (every ``enter``/``leave`` marker and every equation);
* :meth:`StepCursor.over`: from an ``enter`` marker to its ``leave`` (the
  nested jaxpr's outputs, without its equations), else one step on;
* :meth:`StepCursor.out`: to the ``leave`` of the jaxpr the cursor is in;
* :meth:`StepCursor.run_to_line`: to the next equation that came from a source
  line (searching on from the cursor, then from the start).

Each move returns whether the cursor moved; a move that cannot be made leaves
it where it is and says why in :attr:`StepCursor.problem`.

Example:
    >>> from jaxviz.model.stepping import EvalStep, StepResult
    >>> steps = [EvalStep("enter", "0", 0, "jit", partner=2),
    ...          EvalStep("equation", "jit[0] > 0", 1, "sin"),
    ...          EvalStep("leave", "0", 0, "jit", partner=0)]
    >>> cursor = StepCursor(StepResult("f", "f.py", "jit", steps=steps))
    >>> cursor.over(), cursor.index
    (True, 2)
    >>> cursor.back(), cursor.step.primitive
    (True, 'sin')
"""

from __future__ import annotations

from collections.abc import Callable

from jaxviz.model.stepping import EvalStep, StepResult


class StepCursor:
    """The current step of a stepping, and the moves between steps.

    Args:
        result: the stepping (its ``steps`` may be empty: then nothing moves).
        index: where to start (clamped to the steps).
    """

    def __init__(self, result: StepResult, index: int = 0) -> None:
        self.result = result
        self.index = min(max(index, 0), max(len(result.steps) - 1, 0))
        #: Why the last move could not be made ('' after a move that was made).
        self.problem = ""
        self._listeners: list[Callable[[int], object]] = []

    # ------------------------------------------------------------------ state
    @property
    def count(self) -> int:
        """How many steps there are."""
        return len(self.result.steps)

    @property
    def step(self) -> EvalStep | None:
        """The current step (None when there are no steps)."""
        return self.result.steps[self.index] if self.result.steps else None

    @property
    def at_start(self) -> bool:
        return self.index == 0

    @property
    def at_end(self) -> bool:
        return self.index >= self.count - 1

    def on_move(self, callback: Callable[[int], object]) -> None:
        """Call ``callback(index)`` after every move that changed the step."""
        self._listeners.append(callback)

    # ------------------------------------------------------------------ moves
    def go(self, index: int) -> bool:
        """Go to a step by its index."""
        if not 0 <= index < self.count:
            return self._refuse(f"there is no step {index + 1} (the stepping has "
                                f"{self.count} steps)")
        return self._move(index)

    def next(self) -> bool:
        """One step on (into nested jaxprs)."""
        if self.at_end:
            return self._refuse(self._end_words())
        return self._move(self.index + 1)

    def back(self) -> bool:
        """One step back."""
        if self.at_start:
            return self._refuse("this is the first step")
        return self._move(self.index - 1)

    def over(self) -> bool:
        """Over a nested jaxpr: from its ``enter`` marker to its ``leave``; else one step on."""
        step = self.step
        if step is not None and step.kind == "enter":
            if step.partner is None:
                return self._refuse(f"{step.primitive} did not finish: stepping stopped "
                                    f"inside it ({self.result.stopped or 'early'})")
            return self._move(step.partner)
        return self.next()

    def out(self) -> bool:
        """Out of the nested jaxpr the cursor is in, to its ``leave`` marker."""
        enter = self.enclosing()
        if enter is None:
            return self._refuse("the cursor is in the variant's own jaxpr: there is "
                                "nothing to step out of")
        partner = self.result.steps[enter].partner
        if partner is None:
            return self._refuse(f"{self.result.steps[enter].primitive} did not finish: "
                                f"stepping stopped inside it ({self.result.stopped or 'early'})")
        return self._move(partner)

    def run_to_line(self, line: int) -> bool:
        """To the next equation from ``line`` of the stepped file (wrapping to the start)."""
        hits = [k for k, s in enumerate(self.result.steps) if self._from_line(s, line)]
        if not hits:
            return self._refuse(f"no equation of the stepped {self.result.variant} program "
                                f"comes from line {line}")
        after = [k for k in hits if k > self.index]
        target = after[0] if after else hits[0]
        if target == self.index:
            return self._refuse(f"this is the only equation that comes from line {line}")
        return self._move(target)

    # ---------------------------------------------------------------- queries
    def enclosing(self, index: int | None = None) -> int | None:
        """The index of the ``enter`` marker of the jaxpr holding a step (None at the top)."""
        at = self.index if index is None else index
        steps = self.result.steps
        if not steps or steps[at].depth == 0:
            return None
        depth = steps[at].depth - 1
        for k in range(at - 1, -1, -1):
            if steps[k].kind == "enter" and steps[k].depth == depth:
                return k
        return None

    def lines(self) -> list[int]:
        """The source lines of the stepped file that some equation came from, sorted."""
        return sorted({s.source.line for s in self.result.steps
                       if s.kind == "equation" and s.source is not None
                       and s.source.file == self.result.filename})

    # -------------------------------------------------------------- internals
    def _from_line(self, step: EvalStep, line: int) -> bool:
        return (step.kind == "equation" and step.source is not None
                and step.source.file == self.result.filename and step.source.line == line)

    def _end_words(self) -> str:
        if not self.result.complete:
            return f"this is the last step recorded ({self.result.stopped})"
        return "this is the last step"

    def _refuse(self, why: str) -> bool:
        self.problem = why if self.count else "there are no steps"
        return False

    def _move(self, index: int) -> bool:
        self.problem = ""
        if index == self.index:
            return False
        self.index = index
        for callback in list(self._listeners):
            callback(index)
        return True
