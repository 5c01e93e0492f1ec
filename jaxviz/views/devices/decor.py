"""The parts of a frame around the data: header, column titles, mesh labels, legend, caption.

Every label is sized to fit its place (:func:`~jaxviz.views.devices.measure.fit_size`)
or left out, never cut. The legend uses the words of
:data:`jaxviz.views.devices.tiles.WORDS`, the same as the captions.
"""

from __future__ import annotations

from jaxviz.model.records import variant_label
from jaxviz.views.devices.geometry import NOTE_PX, CanvasGeometry
from jaxviz.views.devices.items import Box, Item, Ring, Text
from jaxviz.views.devices.measure import Rect, fit_size, inset, text_width
from jaxviz.views.devices.scene import Scene
from jaxviz.views.devices.tiles import WORDS
from jaxviz.views.palette import DeviceViewColours, text_on

#: The name ``jax.pmap`` gives its axis when the user gives none (jax/_src/pmap.py,
#: JAX 0.10): the user never wrote it, so the mesh label does not quote it.
PMAP_UNNAMED_AXIS = "_internal_pmap_axis_name"


def axis_words(name: str) -> str:
    """``mesh axis 'batch'``; for an unnamed ``pmap`` axis, what it is."""
    if name == PMAP_UNNAMED_AXIS:
        return "pmap's axis (no axis_name given)"
    return f"mesh axis {name!r}"


def fitted(rect: Rect, text: str, px: float, colour: str, align: str = "left",
           bold: bool = False, mono: bool = False, floor: float = 0.75) -> list[Item]:
    """A one-line label at the largest size that fits ``rect`` (nothing if none does)."""
    size = min(fit_size(text, px, rect[2], bold, mono, floor), rect[3] * 0.9)
    if size < min(7.0, px * floor):
        return []
    return [Text(rect, text, size, colour, align, bold=bold, mono=mono)]


def header(scene: Scene, lay: CanvasGeometry, th: DeviceViewColours) -> list[Item]:
    """The variant's name and its call (wrapped onto two lines when long)."""
    u = lay.unit
    x, y, w, h = lay.title
    name = variant_label(scene.variant)
    name_w = text_width(name, 1.15 * u, bold=True) + 0.8 * u
    items: list[Item] = [Text((x, y, name_w, h), name, 1.15 * u, th.accent, bold=True)]
    call = scene.call or scene.function
    room = (x + name_w, y, w - name_w, h)
    one = fit_size(call, 0.8 * u, room[2], mono=True, floor=0.85)
    if one:
        items.append(Text(room, call, one, th.fg, mono=True))
    else:
        size = wrapped_size(call, 0.8 * u, room[2], h)
        shown = elided_to_lines(call, size, room[2], h)
        if shown != call:  # too long even that small: its start, at a size one can read
            size = 0.75 * 0.8 * u
            shown = elided_to_lines(call, size, room[2], h)
        items.append(Text(room, shown, size, th.fg, mono=True, wrap=True))
    return items


#: Line height of wrapped text, as a multiple of its font size.
LINE_HEIGHT = 1.25
#: The share of a line that word wrapping fills, at worst, with a call's words.
WRAP_FILL = 0.88


def wrapped_size(text: str, px: float, width: float, height: float,
                 floor: float = 0.5) -> float:
    """The largest size down to ``floor * px`` at which ``text`` wraps into ``width`` x
    ``height`` (a long call -- shard_map with its specs and shardings -- on two or three
    lines); the smallest when none does (the painter then shrinks it a little more)."""
    size = min(px, height / (2 * LINE_HEIGHT))
    while size > floor * px:
        lines = -(-text_width(text, size, mono=True) // (width * WRAP_FILL))
        if lines * size * LINE_HEIGHT <= height:
            return size
        size *= 0.95
    return floor * px


def elided_to_lines(text: str, size: float, width: float, height: float) -> str:
    """``text`` cut, ending in "…", to what wraps into ``width`` x ``height`` at ``size``
    (a call whose shardings name every leaf of a 12-layer model's parameters is thousands
    of characters: shrunk to fit, it could not be read; its start, readable, says what it
    calls and how). Unchanged when it fits."""
    lines = max(1, int(height // (size * LINE_HEIGHT)))
    room = lines * max(1, int(width * WRAP_FILL // text_width("M", size, mono=True)))
    return text if len(text) <= room else text[:max(room - 1, 1)].rstrip() + "…"


def inputs_on_host(scene: Scene) -> str:
    """``all``, ``some`` or ``none``: how many inputs start on the host (from the claims:
    a ``jax.Array`` already on a device does not); ``all`` when nothing says otherwise."""
    claims = scene.story.claims if scene.story is not None else None
    if claims is None:
        return "all"
    starts = [a.starts for a in claims.arrays if a.role == "input"]
    host = [s in ("host", "") for s in starts]
    return "all" if all(host) else "some" if any(host) else "none"


def column_titles(scene: Scene, lay: CanvasGeometry, th: DeviceViewColours) -> list[Item]:
    if lay.short:
        return []
    u = lay.unit
    titles = {"inputs": "Inputs (host)" if inputs_on_host(scene) == "all" else "Inputs",
              "devices": "Devices",
              "outputs": "Output" if len(scene.outputs) == 1 else "Outputs"}
    items: list[Item] = []
    for key, text in titles.items():
        x, y, w, _ = lay.panels[key]
        items += fitted((x, y, w, 1.1 * u), text.upper(), 0.7 * u, th.muted, "center", True)
    return items


def mesh_labels(scene: Scene, lay: CanvasGeometry, th: DeviceViewColours) -> list[Item]:
    """Process frames with their labels, mesh axis names and ticks."""
    u = lay.unit
    items: list[Item] = []
    for rect, label in lay.frames:
        items.append(Box(rect, None, th.frame, 1.2, radius=0.35 * u, dashed=True))
        x, y, w, h = rect
        items += fitted((x + 0.4 * u, y + h - 1.25 * u, w - 0.8 * u, 1.1 * u), label,
                        0.72 * u, th.muted)
    for rect, text in lay.row_ticks:
        items += fitted(rect, text, min(0.72 * u, rect[3] * 0.8), th.muted, "right")
    for rect, text in lay.col_ticks:
        items += fitted(rect, text, 0.72 * u, th.muted, "center", floor=0.5)
    if lay.row_axis is not None:
        axis = axis_words(scene.row_label)
        if lay.col_axis is not None:
            label = f"{scene.row_label} ↓"
        elif lay.flipped:
            label = f"{axis} → ({scene.rows} devices)"
        elif scene.rows > 1:
            label = f"{axis} ↓ ({scene.rows} devices)"
        else:
            label = axis
        items += fitted(lay.row_axis, label, 0.78 * u, th.fg, bold=True)
    if lay.col_axis is not None:
        items += fitted(lay.col_axis, f"{scene.col_label} →", 0.78 * u, th.fg, "center", True)
    return items


def legend(scene: Scene, lay: CanvasGeometry, th: DeviceViewColours, kind: str) -> list[Item]:
    """Colour = device, then what the tile looks on screen in phase ``kind`` mean.

    In the captions' words: grey while the arrays are on the host (before a
    parallel variant splits them, or all along on one device), then a split's
    one-colour pieces and the ringed tiles held whole by several devices.
    """
    u = lay.unit
    x, y, w, h = lay.legend
    if h <= 0:
        return []
    items: list[Item] = []
    label = "colour = device"
    lw = text_width(label, 0.75 * u, bold=True) + 0.6 * u
    items.append(Text((x, y, lw, h), label, 0.75 * u, th.muted, bold=True))
    cx = x + lw
    sw = 0.9 * u
    n = len(scene.devices)
    if n <= 16:
        for d in scene.devices:
            tw = text_width(str(d.id), 0.75 * u) + 0.45 * u
            if cx + sw + tw > x + w * 0.55:
                break
            items.append(Box((cx, y + (h - sw) / 2, sw, sw), d.colour, th.frame, 1.0))
            items.append(Text((cx + sw + 0.15 * u, y, tw, h), str(d.id), 0.75 * u, th.fg))
            cx += sw + tw + 0.2 * u
    else:
        step = max(1, -(-n // 24))
        for d in scene.devices[::step][:24]:
            items.append(Box((cx, y + (h - sw) / 2, sw * 0.5, sw), d.colour, None))
            cx += sw * 0.5
        text = "  ids in the boxes"
        tw = text_width(text, 0.72 * u)
        items.append(Text((cx, y, tw, h), text, 0.72 * u, th.muted))
        cx += tw
    kinds = []
    tiled = scene.parallel and kind != "host"
    if tiled and any(g.shared for g in scene.arrays):
        kinds.append("shared")
    if tiled and any(g.equal for g in scene.arrays):
        kinds.append("equal")
    if tiled and any(len(b.holders) == 1 and len(g.blocks) > 1 and not g.equal
                     for g in scene.arrays for b in g.blocks):
        kinds.append("split")
    if (not tiled or kind == "split") and inputs_on_host(scene) != "none":
        kinds.append("host")
    for kind in kinds:
        text = WORDS[kind]
        cx += 0.8 * u
        if cx + sw + text_width(text, 0.72 * u) + 0.6 * u > x + w:
            break  # no room left on the line: leave it out rather than clip it
        rect = (cx, y + (h - sw) / 2, sw, sw)
        if kind in ("shared", "equal"):
            items.append(Box(rect, th.shared, th.frame, 1.0))
            colours = [d.colour for d in scene.devices[:2]] or [th.neutral]
            items.append(Ring(rect, colours, max(0.2 * sw, 2.0), sw / 2))
        elif kind == "split":
            items.append(Box(rect, scene.devices[0].colour if scene.devices else th.neutral,
                             th.frame, 1.0))
        else:
            items.append(Box(rect, th.neutral, th.frame, 1.0))
        tw = text_width(text, 0.72 * u) + 0.4 * u
        items.append(Text((cx + sw + 0.25 * u, y, tw, h), text, 0.72 * u, th.muted))
        cx += sw + tw
    return items


def caption(scene: Scene, lay: CanvasGeometry, th: DeviceViewColours, i: int) -> list[Item]:
    """The step counter, the phase's title and its caption."""
    u = lay.unit
    x, y, w, h = lay.caption
    items: list[Item] = [Box((x, y, w, h), th.caption_bg, None, radius=0.4 * u)]
    phases = scene.phases
    if not phases:
        return items
    phase = phases[min(max(i, 0), len(phases) - 1)]
    k = 0.8 if lay.short else 1.0  # a short canvas: a slimmer title line
    step = f"{i + 1}/{len(phases)}"
    bw = max(text_width(step, 0.95 * k * u, bold=True) + 1.0 * u, 3.0 * k * u)
    badge = (x + 0.5 * u, y + 0.4 * k * u, bw, 1.5 * k * u)
    items.append(Box(badge, th.accent, None, radius=0.75 * k * u))
    items.append(Text(badge, step, 0.95 * k * u, text_on(th.accent), "center", bold=True))
    tx = x + bw + 1.1 * u
    title = (tx, y + 0.3 * k * u, w - (tx - x) - 0.5 * u, 1.7 * k * u)
    size = fit_size(phase.title, 1.15 * k * u, title[2], bold=True, floor=0.7)
    if size:
        items.append(Text(title, phase.title, size, th.fg, bold=True))
    else:
        items.append(Text(title, phase.title, 0.95 * k * u, th.fg, bold=True, wrap=True))
    top = y + (2.05 if not lay.short else 1.75) * u
    bottom = y + h - lay.note_h
    items.append(Text((tx, top, w - (tx - x) - 0.5 * u, bottom - top - 0.25 * u),
                      phase.caption_without_note, 0.92 * u, th.fg, wrap=True, valign="top"))
    if phase.note and lay.note_h:
        band = (x + 0.35 * u, bottom - 0.1 * u, w - 0.7 * u, lay.note_h - 0.25 * u)
        items.append(Box(band, th.warning_bg, th.warning_fg, 1.0, radius=0.3 * u))
        items.append(Text(inset(band, 0.25 * u), phase.note, NOTE_PX * u, th.warning_fg,
                          wrap=True, valign="top"))
    return items
