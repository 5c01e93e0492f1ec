"""Which phase of the animation runs a given equation: how the device view follows a stepper.

The stepper names its current equation by its pre-order position in the
variant's equations (:func:`jaxviz.views.panes.link_index.walk`, the order the
device view's storyboard uses too). :func:`phase_of_equation` finds the phase
whose highlighted jaxpr lines hold that equation's first line, preferring the
compute and collective phases (where equations run) over the phases around
them (host, split, transfer, assemble), which highlight the wrapper's lines.

Example:
    >>> from jaxviz.views.devices.scene import Phase
    >>> phases = [Phase("host", "", "", [("pmap", 0, 0)]),
    ...           Phase("compute", "", "", [("pmap", 3, 4)]),
    ...           Phase("collective", "", "", [("pmap", 5, 5)])]
    >>> phase_of_lines(phases, "pmap", 5), phase_of_lines(phases, "pmap", 9)
    (2, None)
"""

from __future__ import annotations

from jaxviz.model import VariantResult
from jaxviz.views.devices.scene import Phase
from jaxviz.views.panes.link_index import walk

#: Phases in which equations run, preferred when several phases highlight a line.
RUNNING_KINDS = ("compute", "collective", "vectorized")


def phase_of_lines(phases: list[Phase], variant: str, line: int) -> int | None:
    """The index of the phase highlighting jaxpr ``line`` of ``variant`` (None: no phase)."""
    holding = [k for k, phase in enumerate(phases)
               if any(v == variant and first <= line <= last
                      for v, first, last in phase.highlights)]
    running = [k for k in holding if phases[k].kind in RUNNING_KINDS]
    chosen = running or holding
    return chosen[0] if chosen else None


def phase_of_equation(phases: list[Phase], result: VariantResult, order: int) -> int | None:
    """The phase that runs equation ``order`` (pre-order position) of ``result``'s jaxpr."""
    for k, (_path, equation) in enumerate(walk(result.equations)):
        if k == order:
            if equation.text_start is None:
                return None
            return phase_of_lines(phases, result.variant, equation.text_start)
    return None
