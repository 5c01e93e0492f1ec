"""The values panel's model on every gallery example x variant, as the window steps them.

Every step of every stepping becomes a panel whose cells say what the records
hold: written-out numbers parse back to the recorded values, heat maps are the
recorded matrices, per-device steps have one column per device that ran them.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from jaxviz.model import list_examples
from jaxviz.views.stepper.panel import build_panel
from tests.helpers.stepping import step_example

# Not in the fast tier: every gallery example (or the corpus) through JAX.
pytestmark = pytest.mark.slow

CASES = [(ex.name, v) for ex in list_examples() for v in ex.variants]
#: The window's stepping limits (ui.stepper.controller).
WINDOW = {"value_limit": 256, "record_limit_mb": 8.0}


def _numbers(text: str) -> list[float]:
    words = text.replace("[", " ").replace("]", " ").split()
    return [1.0 if w == "true" else 0.0 if w == "false" else float(w) for w in words]


def _flat(x):
    return [y for item in x for y in _flat(item)] if isinstance(x, list) else [x]


@pytest.mark.parametrize("name, variant", CASES, ids=[f"{n}-{v}" for n, v in CASES])
def test_every_step_becomes_a_panel_that_shows_its_records(name, variant):
    result = step_example(name, variant, **WINDOW).result
    if result.error is not None:
        assert result.error.kind == "size" and "summary" in result.error.message
        return
    for index, step in enumerate(result.steps):
        panel = build_panel(result, index)
        assert len(panel.columns) == len(step.lanes)
        by_device = {lane.device: lane for lane in step.lanes}
        for column in panel.columns:
            lane = by_device[column.device]
            for cells, values in ((column.inputs, lane.inputs), (column.outputs, lane.outputs)):
                assert len(cells) == len(values)
                for c, value in zip(cells, values):
                    if c.kind == "numbers" and value.dtype[:1] in "fiub":
                        assert _numbers(c.text) == pytest.approx(
                            [float(x) for x in _flat(value.exact)], rel=1e-3, abs=1e-6)
                    elif c.kind == "heatmap":
                        assert np.array_equal(np.asarray(c.matrix, float),
                                              np.asarray(value.exact, float))
                        low, high = panel.scale
                        assert all(low <= x <= high for x in _flat(c.matrix) if math.isfinite(x))
        if variant == "sharded":
            assert any("stepped on the host" in n for n in panel.notes)
