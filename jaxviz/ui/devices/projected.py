"""The device view's captions with each phase's projected time on a chosen chip (issue 29.3).

Only when a chip is chosen (the Collectives tab's picker, the window state's ``chip``)
and the variant's costs are there (``VariantResult.program``: the window asks for
"cost" once that tab is shown). The words come from
:func:`jaxviz.views.collectives.rows.phase_cost_text`, the numbers from
:mod:`jaxviz.model.cost_model`.
"""

from __future__ import annotations

from functools import cache

from jaxviz.model import TraceResult
from jaxviz.model.chips import Chip, ChipFileError, load_chips
from jaxviz.model.cost_model import project
from jaxviz.views.collectives.rows import phase_cost_text
from jaxviz.views.devices import Scene


@cache
def _presets() -> dict[str, Chip]:
    try:
        return load_chips()
    except ChipFileError:
        return {}


def chip_preset(key: str) -> Chip | None:
    """jaxviz's preset ``key`` (None for "" or a key it does not have)."""
    return _presets().get(key) if key else None


def with_projections(scene: Scene, result: TraceResult, chip: Chip) -> None:
    """Begin the caption of every compute and collective phase of ``scene`` with its
    projected time (the variant's note stays last)."""
    vr = next((v for v in result.variants if v.variant == scene.variant), None)
    costs = vr.program if vr is not None and vr.ok else None
    if costs is None:
        return
    projection = project(costs, chip)
    for phase in scene.phases:
        if phase.step_index is None:
            continue
        text = phase_cost_text(projection, costs, phase.step_index)
        if not text:
            continue
        # first: the caption is cut at its end on small screens, and the chip was asked for
        sentence = f"Projected for {len(costs.devices)} chips (a roofline): {text}."
        phase.caption = " ".join(p for p in (sentence, phase.caption) if p)
