"""Text, titles and descriptions with XML's special characters come out of the SVG intact.

The oracle is an XML parser (ElementTree): what it reads back equals what was painted.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from PySide6.QtCore import QPointF
from PySide6.QtGui import QPainter

from jaxviz.ui.vector.svg import SvgDevice

SVG = "{http://www.w3.org/2000/svg}"
AWKWARD = """x < y & "z" 'w' > 0"""


def test_special_characters_survive_in_text_title_and_description(qapp):
    device = SvgDevice(320, 120, title=f"title {AWKWARD}", description=f"desc {AWKWARD}")
    painter = QPainter(device)
    painter.drawText(QPointF(10, 60), AWKWARD)
    painter.end()
    root = ET.fromstring(device.svg())
    assert root.find(f"{SVG}title").text == f"title {AWKWARD}"
    assert root.find(f"{SVG}desc").text == f"desc {AWKWARD}"
    texts = list(root.iter(f"{SVG}text"))
    assert [t.text for t in texts] == [AWKWARD]
