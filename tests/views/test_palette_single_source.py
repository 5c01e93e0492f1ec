"""Every colour jaxviz draws with comes from the palette: no colour literal elsewhere."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import jaxviz
from jaxviz.views import palette

PACKAGE = Path(jaxviz.__file__).parent
HEX = re.compile(r"#[0-9a-fA-F]{6}\b")


def _colour_literals(path: Path) -> list[str]:
    """Hex colours in string constants and ``QColor(r, g, b)`` calls with numbers."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            found += [f"{path.name}:{node.lineno}: {m}" for m in HEX.findall(node.value)]
        elif isinstance(node, ast.Call) and getattr(node.func, "id", "") == "QColor" \
                and node.args and all(isinstance(a, ast.Constant) for a in node.args):
            found.append(f"{path.name}:{node.lineno}: QColor{tuple(a.value for a in node.args)}")
    return found


def test_no_colour_is_written_outside_the_palette():
    palette_file = Path(palette.__file__)
    offenders = [hit for path in sorted(PACKAGE.rglob("*.py")) if path != palette_file
                 for hit in _colour_literals(path)]
    assert offenders == []


def test_the_scan_finds_what_it_looks_for(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text('A = "color: #12ab3C;"\nB = QColor(30, 30, 30)\nC = QColor(palette.INK)\n')
    assert _colour_literals(sample) == ["sample.py:1: #12ab3C", "sample.py:2: QColor(30, 30, 30)"]
