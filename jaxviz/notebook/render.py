"""Inline pictures for notebooks: the jaxpr with source colours as HTML, device-view
frames as PNG, animations as GIF, all drawn by the same renderers as ``jaxviz animate``.

Qt paints offscreen in the kernel's process (no window, no display needed); JAX
is not used here: everything is drawn from the engine's result records.
"""

from __future__ import annotations

import base64
import html
import tempfile
from pathlib import Path
from typing import Any

from jaxviz.model import TraceResult, VariantResult, files
from jaxviz.views import palette
from jaxviz.views.panes.link_index import LinkIndex

#: The inline device-view size: readable in a notebook column, 16:9 like the slides.
FRAME_SIZE = (960, 540)
#: Frames of a contact sheet per row.
SHEET_COLUMNS = 2

_STYLE = ("font-family: 'DejaVu Sans Mono', Menlo, Consolas, monospace; font-size: 12px; "
          f"line-height: 1.35; margin: 0; padding: 6px; background: {palette.WHITE}; "
          f"color: {palette.INK}; "
          f"border: 1px solid {palette.PANE_HEADER_LINE}; border-radius: 4px; overflow-x: auto; "
          "white-space: pre")


def esc(text: str) -> str:
    return html.escape(text, quote=True)


def data_uri(kind: str, data: bytes) -> str:
    return f"data:{kind};base64,{base64.b64encode(data).decode('ascii')}"


def jaxpr_html(result: TraceResult, variant: VariantResult, source: str, filename: str,
               first: int, last: int) -> str:
    """The function's source lines ``first..last`` beside the variant's jaxpr, each jaxpr
    line on the colour of the source line its equation came from (as the window's panes)."""
    index = LinkIndex(result, filename)
    owners = index.owners(variant.variant)

    def colour(line: int | None) -> str | None:
        n = index.colour_index(line)
        return None if n is None else palette.LINK_COLOURS[n % len(palette.LINK_COLOURS)]

    src_rows = []
    lines = source.splitlines()
    for number in range(first, min(last, len(lines)) + 1):
        bg = colour(number)
        style = f"display:block;background:{bg}" if bg else "display:block"
        src_rows.append(f"<span style='{style}'>"
                        f"<span style='color:{palette.GUTTER_TEXT}'>{number:>4}  </span>"
                        f"{esc(lines[number - 1])}</span>")
    jax_rows = []
    for n, text in enumerate(variant.jaxpr_text.splitlines()):
        owner = owners[n] if n < len(owners) else None
        bg = colour(owner.line if owner is not None else None)
        style = f"display:block;background:{bg}" if bg else "display:block"
        title = f" title='line {owner.line}: {esc(owner.primitive)}'" if owner and owner.line \
            else ""
        jax_rows.append(f"<span style='{style}'{title}>{esc(text) or '&#8203;'}</span>")
    return ("<div style='display:flex; gap:10px; align-items:flex-start; flex-wrap:wrap'>"
            f"<div style='flex:0 1 auto; max-width:40%'><b>source</b>"
            f"<pre style=\"{_STYLE}\">{''.join(src_rows)}</pre></div>"
            f"<div style='flex:1 1 50%; min-width:0'><b>jaxpr ({esc(variant.variant)})</b>"
            f"<pre class='jaxviz-jaxpr' style=\"{_STYLE}\">{''.join(jax_rows)}</pre>"
            "</div></div>")


def qt_app() -> Any:
    """The kernel's Qt application for painting offscreen: a ``QApplication`` from the
    first, since the timing plots are widgets (a ``QGuiApplication`` made first would
    leave them none)."""
    from jaxviz.ui.theme.qt_guard import ensure_app

    return ensure_app(widgets=True)


def renderer(result: TraceResult, variant: str, size: tuple[int, int] = FRAME_SIZE,
             theme: str = "light", font_scale: float = 1.0) -> Any:
    """The device view's offscreen renderer of one traced variant.

    Raises:
        ValueError: the variant has no device view (its reason).
    """
    qt_app()
    from jaxviz.ui.devices.export import Renderer
    from jaxviz.views.devices import build_scene

    scene = build_scene(result, variant)
    if scene.error:
        raise ValueError(f"no device view of {variant}: {scene.error}")
    return Renderer(scene, size[0], size[1], theme, font_scale)


def png_bytes(image: Any) -> bytes:
    """A ``QImage`` as PNG file bytes."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice

    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    buffer.close()
    return bytes(data.data())


def phase_pngs(render: Any) -> list[bytes]:
    """Every phase's final frame as PNG bytes."""
    return [png_bytes(render.image(i, 1.0)) for i in range(render.phase_count)]


def contact_sheet(render: Any, columns: int = SHEET_COLUMNS, scale: float = 0.75) -> bytes:
    """Every phase's final frame in a grid, numbered, as one PNG."""
    from PySide6.QtCore import QRectF, Qt
    from PySide6.QtGui import QColor, QFont, QImage, QPainter

    count = render.phase_count
    w, h = int(render.width * scale), int(render.height * scale)
    gap = 8
    rows = (count + columns - 1) // columns
    cols = min(columns, count)
    sheet = QImage(cols * w + (cols + 1) * gap, rows * h + (rows + 1) * gap,
                   QImage.Format.Format_RGB32)
    sheet.fill(QColor(palette.PANE_HEADER_LINE))
    p = QPainter(sheet)
    p.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
    font = QFont()
    font.setPixelSize(14)
    font.setBold(True)
    p.setFont(font)
    for i in range(count):
        x = gap + (i % columns) * (w + gap)
        y = gap + (i // columns) * (h + gap)
        frame = render.image(i, 1.0).scaled(w, h, Qt.AspectRatioMode.IgnoreAspectRatio,
                                            Qt.TransformationMode.SmoothTransformation)
        p.drawImage(x, y, frame)
        badge = QRectF(x + w - 32, y + 4, 28, 22)
        p.fillRect(badge, QColor(palette.ACTIVE_OUTLINE))
        p.setPen(QColor(palette.WHITE))
        p.drawText(badge, Qt.AlignmentFlag.AlignCenter, str(i + 1))
    p.end()
    return png_bytes(sheet)


def animation_gif(render: Any, frames_per_phase: int = 6) -> bytes:
    """The whole animation as GIF bytes (the exporter ``jaxviz animate --out x.gif`` uses)."""
    from jaxviz.ui.devices.formats import find

    with tempfile.TemporaryDirectory(prefix="jaxviz-nb-") as tmp:
        path = Path(tmp) / "animation.gif"
        find("animation", "gif").write(render, path, frames_per_phase=frames_per_phase)
        return files.read_bytes(path, limit=files.RECORDING_BYTES)


def phases_html(render: Any, phases: list[Any], animation: bytes | None) -> str:
    """The animation (an animated GIF: no script needed) and a strip of every phase's
    frame with its title and caption."""
    parts = []
    if animation is not None:
        parts.append(f"<img class='jaxviz-animation' alt='device view animation' "
                     f"style='max-width:100%; border:1px solid {palette.PANE_HEADER_LINE}' "
                     f"src='{data_uri('image/gif', animation)}'/>")
    cells = []
    for i, (png, phase) in enumerate(zip(phase_pngs(render), phases)):
        cells.append(
            "<figure style='flex:0 0 auto; width:640px; margin:0'>"
            f"<img alt='phase {i + 1}' style='width:640px; "
            f"border:1px solid {palette.PANE_HEADER_LINE}' "
            f"src='{data_uri('image/png', png)}'/>"
            f"<figcaption style='font-size:12px'><b>{i + 1}. {esc(phase.title)}</b><br/>"
            f"{esc(phase.caption)}</figcaption></figure>")
    parts.append("<details><summary>every phase, one frame each "
                 f"({len(cells)})</summary><div style='display:flex; gap:8px; "
                 f"overflow-x:auto; padding:4px'>{''.join(cells)}</div></details>")
    return "".join(parts)
