"""The projection figures' export formats, in the one export registry (:mod:`jaxviz.views.exports`).

Subjects ``projection`` (the projected timeline) and ``what-if`` (the what-if
plot), each as PNG, SVG and its raw data as JSON.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QWidget

from jaxviz.model.what_if import comm_bound_at, hbm_exceeded_at, variants_of, what_if_rows
from jaxviz.ui.exporters.menu import ExportMenu
from jaxviz.ui.timing.cost_figures import write_projected, write_what_if
from jaxviz.views.exports import Exporter, find, register
from jaxviz.views.timing.projected import timeline_json

SIZE = (1920, 1080)


def _json(data: Any, path: str | Path) -> Path:
    path = Path(path)
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")
    return path


def what_if_data(pair: Any) -> dict[str, object]:
    """The what-if's raw data: the rows projected onto the chip, and the markers."""
    from jaxviz.model.what_if import rows_json

    result, chip = pair
    rows = what_if_rows(result, chip)
    return {"projected": True, "chip": chip.key, "chip_name": chip.name,
            "function": result.function, "method": result.method, "per": "device",
            "rows": rows_json(rows),
            "comm_bound_at": {v: comm_bound_at(rows, v) for v in variants_of(rows)},
            "hbm_exceeded_at": {v: hbm_exceeded_at(rows, v) for v in variants_of(rows)}}


for _name, _ext, _desc, _kind in (("png", ".png", "as PNG image", "PNG images"),
                                  ("svg", ".svg", "as SVG (vector, for slides)", "SVG images")):
    register(Exporter("projection", _name, _ext, f"Projected timeline {_desc}", _kind,
                      f"projected{_ext}",
                      lambda t, path, size=SIZE, theme="light": write_projected(t, path, size,
                                                                                theme)))
    register(Exporter("what-if", _name, _ext, f"What-if plot {_desc}", _kind, f"what_if{_ext}",
                      lambda pair, path, size=SIZE, theme="light": write_what_if(
                          pair[0], pair[1], path, size, theme)))
register(Exporter("projection", "json", ".json", "Projected timeline's data as JSON",
                  "JSON files", "projected.json", lambda t, path: _json(timeline_json(t), path)))
register(Exporter("what-if", "json", ".json", "What-if data as JSON", "JSON files",
                  "what_if.json", lambda pair, path: _json(what_if_data(pair), path)))


def find_exporter(subject: str, name: str) -> Exporter:
    return find(subject, name)


def export_menu(parent: QWidget, chosen: Callable[[str, str], None]) -> ExportMenu:
    """The one Export menu (:class:`~jaxviz.ui.exporters.menu.ExportMenu`) of the
    projected timeline's and the what-if's formats."""
    menu = ExportMenu([("projection", "Projected timeline"), ("what-if", "What-if plot")],
                      parent)
    menu.requested.connect(chosen)
    return menu
