"""The Qt-free half of the Collectives tab: its rows, its memory line, its projections.

Everything here is computed from a compiled variant's :class:`~jaxviz.model.program.ProgramCosts`
(read by the core from the compiled HLO) and, for the projected column and the device
view's captions, a chip preset and :mod:`jaxviz.model.cost_model`. ``jaxviz collectives``
prints the same cells (:mod:`jaxviz.cli.cost_text` imports them from here).
"""

from jaxviz.views.collectives.rows import (
    CollectiveRow,
    axes_text,
    collective_rows,
    groups_text,
    human_bytes,
    line_text,
    memory_lines,
    phase_cost_text,
    projected_time,
    projection_label,
    shapes_text,
)

__all__ = ["CollectiveRow", "axes_text", "collective_rows", "groups_text", "human_bytes",
           "line_text", "memory_lines", "phase_cost_text", "projected_time",
           "projection_label", "shapes_text"]
