"""No label of the device view is cut or overlaps another, at 1280x720 and 1920x1080.

Every phase of every gallery example's variants is drawn; each text item is
measured with Qt's own font metrics (not jaxviz's width estimate): it must fit
its rectangle (the painter would otherwise elide it), lie on the canvas, and
not overlap any other text.
"""

from __future__ import annotations

import pytest

from jaxviz.model import list_examples
from jaxviz.views.devices.items import Text
from tests.helpers.device_cases import engine_traced, matmul, multihost, traced

#: Variants that differ from the others: their captions carry the note that says so.
DIFFER = [("normalize-16", "pmap"), ("data_parallel-check_vma", "shard_map")]
CASES = ([(ex.name, v) for ex in list_examples() for v in ex.variants] + [("matmul", "sharded")]
         + DIFFER)
#: Layouts the gallery's 8 devices of one process do not show.
WIDE = [("normalize-32", "pmap"), ("multi_host-2-processes", "shard_map")]


def _case(name: str, variant: str):
    if name == "matmul":
        return matmul(variant)
    if name == "normalize-16":
        return traced("normalize", variant, batched_args="jnp.arange(16.)")
    if name == "data_parallel-check_vma":
        return traced("data_parallel", variant, check_vma=True)
    if name == "normalize-32":
        return engine_traced("normalize", variant, 32)
    if name == "multi_host-2-processes":
        return multihost()
    return traced(name, variant)
#: (width, height, font scale): the last two are the docked tab at 1280x720, with the
#: window's own larger font as well.
SIZES = [(1280, 720, 1.0), (1920, 1080, 1.0), (1020, 272, 1.0), (1020, 272, 1.35)]


@pytest.fixture(autouse=True)
def platform_font(qapp):
    """The platform's own font, as a fresh process has it before the window's theme (the
    headless renderer's, and what these layouts were sized with), whatever an earlier
    test left; put back afterwards."""
    from PySide6.QtGui import QFont, QFontDatabase

    before = QFont(qapp.font())
    qapp.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.GeneralFont))
    yield
    qapp.setFont(before)


def ink(painter, t: Text):
    """The rectangle the text's glyphs cover, from Qt's metrics (one line)."""
    from PySide6.QtGui import QFontMetricsF

    metrics = QFontMetricsF(painter.font(t.size, t.bold, t.mono))
    width, height = metrics.horizontalAdvance(t.text), metrics.ascent() + metrics.descent()
    x, y, w, h = t.rect
    left = {"left": x, "center": x + (w - width) / 2, "right": x + w - width}[t.align]
    top = y + (h - height) / 2 if t.valign == "center" else y
    return left, top, width, height


def overlap(a, b) -> float:
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    return max(0.0, min(ax + aw, bx + bw) - max(ax, bx)) * max(0.0, min(ay + ah, by + bh) -
                                                              max(ay, by))


@pytest.mark.parametrize("name, variant", CASES + [pytest.param(*c, marks=pytest.mark.slow)
                                                   for c in WIDE],
                         ids=[f"{n}-{v}" for n, v in CASES + WIDE])
def test_no_label_is_cut_or_overlaps(qapp, name, variant):
    from jaxviz.ui.devices.export import Renderer
    from jaxviz.views.devices import build_scene

    result = _case(name, variant)
    scene = build_scene(result, variant)
    problems = []
    for width, height, scale in SIZES:
        r = Renderer(scene, width, height, font_scale=scale)
        cap = r.layout.caption
        for i, phase in enumerate(scene.phases):
            for t in (0.5, 1.0):
                r.image(i, t)  # paints: the painter records every text it had to cut
                texts = [it for it in r.items(i, t) if isinstance(it, Text)]
                boxes = []
                for it in texts:
                    if it.wrap:
                        continue  # wrapped (caption, long call): the painter's cut list says
                    x, y, w, h = box = ink(r.painter, it)
                    if w > it.rect[2] + 0.5:
                        problems.append(f"{width}x{height} {phase.kind}: {it.text!r} is "
                                        f"{w:.0f} px wide in {it.rect[2]:.0f}")
                    if x < -0.5 or y < -0.5 or x + w > width + 0.5 or y + h > height + 0.5:
                        problems.append(f"{width}x{height} {phase.kind}: {it.text!r} is off "
                                        f"the canvas")
                    inside = (it.rect[1] >= cap[1] - 0.5
                              and it.rect[1] + it.rect[3] <= cap[1] + cap[3] + 0.5)
                    if not inside and overlap(box, cap) > 2.0:
                        problems.append(f"{width}x{height} {phase.kind}: {it.text!r} "
                                        f"covers the caption")
                    for other, obox in boxes:
                        if overlap(box, obox) > 2.0:
                            problems.append(f"{width}x{height} {phase.kind}: {it.text!r} "
                                            f"overlaps {other.text!r}")
                    boxes.append((it, box))
        if scale == 1.0:  # at the window's larger font a long caption may end in "…"
            problems += [f"{width}x{height}: cut {text!r}"
                         for text in dict.fromkeys(r.painter.cut)]
    assert not problems, "\n".join(dict.fromkeys(problems))
