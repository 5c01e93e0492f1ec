"""The Values panel's colour maps, read from pyqtgraph's own colour files without importing
pyqtgraph.

The heat maps use two of pyqtgraph's maps (viridis, and CET-D1 for values either side of
zero) and nothing else of it: importing pyqtgraph for them made the first step of step
mode import its 145 modules (15-18 MB, 160-250 ms on the GUI thread) when no plot is on
screen. :class:`ColourMap` reads the same file (``pyqtgraph/colors/maps/NAME.csv``: one
colour a line, red, green and blue from 0 to 1, ``;`` comments) and maps as
``pyqtgraph.ColorMap`` does with its default linear, clipped mapping: evenly spaced stops,
each channel interpolated (``tests/ui/test_colour_maps.py`` compares the two).
"""

from __future__ import annotations

import importlib.util
from functools import lru_cache
from pathlib import Path

import numpy as np
from PySide6.QtGui import QColor

from jaxviz.model.files import OWN_FILE, SETTINGS_BYTES, read_text


def maps_dir() -> Path:
    """pyqtgraph's folder of colour files (found, not imported)."""
    spec = importlib.util.find_spec("pyqtgraph")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("pyqtgraph is not installed: its colour maps are not there")
    return Path(list(spec.submodule_search_locations)[0]) / "colors" / "maps"


class ColourMap:
    """One of pyqtgraph's colour maps by name (``viridis``, ``CET-D1``)."""

    def __init__(self, name: str):
        rows = []
        # an installed package's file, beside its modules: read as jaxviz's own (no thread)
        text = read_text(maps_dir() / f"{name}.csv", limit=SETTINGS_BYTES, timeout=OWN_FILE,
                         what="colour map")
        for line in text.splitlines():
            values = line.strip().split(";", 1)[0].split(",")
            if len(values) >= 3:  # (a comment or an empty line has none)
                rows.append([int(255 * float(v) + 0.5) for v in values[:3]])
        self.name = name
        #: The stops' positions, evenly from 0 to 1, and their colours as 0-1 floats and
        #: as bytes (what pyqtgraph makes of the file's values).
        self.positions = np.linspace(0.0, 1.0, len(rows))
        self.floats = np.array(rows, dtype=float) / 255.0
        self.bytes = (self.floats * 255).astype(np.ubyte)

    def floats_at(self, values: np.ndarray | float) -> np.ndarray:
        """Red, green and blue (0-1) at positions ``values`` (0-1, clipped): the last axis."""
        at = np.clip(np.asarray(values, dtype=float), 0.0, 1.0)
        return np.stack([np.interp(at, self.positions, self.floats[:, i]) for i in range(3)],
                        axis=-1)

    def colour(self, value: float) -> QColor:
        """The colour at position ``value`` (0-1, clipped)."""
        red, green, blue = self.floats_at(value).tolist()
        return QColor.fromRgbF(red, green, blue)

    def lookup_table(self, entries: int = 256) -> np.ndarray:
        """``entries`` colours evenly from 0 to 1 as bytes, shape ``(entries, 3)``."""
        at = np.linspace(0.0, 1.0, entries)
        table = np.empty((entries, 3), dtype=np.ubyte)
        for i in range(3):
            table[:, i] = np.interp(at, self.positions, self.bytes[:, i])
        return table


@lru_cache(maxsize=4)
def colour_map(name: str) -> ColourMap:
    """The colour map ``name``, read once."""
    return ColourMap(name)
