"""The source-link colours are told apart with the common colour-vision deficiencies.

Each pair of link colours (and of their strong forms) is compared as seen with normal
vision and as simulated for protanopia, deuteranopia and tritanopia (Machado, Oliveira
and Fernandes 2009, severity 1), by CIEDE2000 -- all computed with colour-science, not
by jaxviz. About 10 is needed to tell two background colours apart at a glance.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

from jaxviz.views import palette

# colour-science switches NumPy to its 1.13 legacy printing when it is imported (at
# collection, for the whole session): every later repr of an array would change.
_printoptions = np.get_printoptions()
colour = pytest.importorskip("colour")
np.set_printoptions(**_printoptions)

DEFICIENCIES = {"normal vision": None, "protanopia": "Protanomaly",
                "deuteranopia": "Deuteranomaly", "tritanopia": "Tritanomaly"}
MIN_DELTA_E = 10.0


def lab(hex_colour: str, deficiency: str | None) -> np.ndarray:
    srgb = np.array([int(hex_colour[i:i + 2], 16) for i in (1, 3, 5)]) / 255
    linear = colour.models.eotf_sRGB(srgb)
    if deficiency is not None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            matrix = colour.blindness.matrix_cvd_Machado2009(deficiency, 1.0)
        linear = np.clip(linear @ matrix.T, 0, 1)
    xyz = colour.RGB_to_XYZ(linear, colour.models.RGB_COLOURSPACE_sRGB,
                            apply_cctf_decoding=False)
    return colour.XYZ_to_Lab(xyz)


@pytest.mark.parametrize("name", ["LINK_COLOURS", "LINK_STRONG"])
@pytest.mark.parametrize("vision", list(DEFICIENCIES))
def test_any_two_link_colours_differ_by_ciede2000_of_at_least_10(name, vision):
    colours = getattr(palette, name)
    labs = {c: lab(c, DEFICIENCIES[vision]) for c in colours}
    close = [(a, b, round(float(colour.delta_E(labs[a], labs[b], method="CIE 2000")), 1))
             for a, b in itertools.combinations(colours, 2)
             if colour.delta_E(labs[a], labs[b], method="CIE 2000") < MIN_DELTA_E]
    assert not close, f"{name} under {vision}: {close}"


def test_the_simulation_tells_the_old_blue_and_purple_apart_no_better_than_the_issue_said():
    """The oracle itself: the earlier pastels' blue and purple were 1.2 apart under
    deuteranopia (issue 27) -- the simulation must find them that close."""
    d = colour.delta_E(lab("#cfe3fa", "Deuteranomaly"), lab("#e2d7f5", "Deuteranomaly"),
                       method="CIE 2000")
    assert d < 2.0
    assert colour.delta_E(lab("#cfe3fa", None), lab("#e2d7f5", None), method="CIE 2000") > 5


def test_link_colours_stay_light_enough_for_dark_text():
    assert all(lab(c, None)[0] >= 70 for c in palette.LINK_COLOURS)
