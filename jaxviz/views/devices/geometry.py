"""Where everything sits on a canvas of a given size (no Qt).

The canvas reads left to right like the data: the inputs on the host, the
device mesh in the middle (a 1-D mesh as one strip, however long, so row k of
a batch lines up with device k; a 2-D or 3-D mesh as a grid with its axis
names along the sides; the devices of each process framed together), the
outputs on the host at the right. A header names the variant and its call,
the caption band at the bottom says in words what the current phase does, and
a legend maps colours to devices and tile patterns to their meaning.

All sizes derive from ``unit``, the body-text pixel size, so the picture
scales with the app font and the canvas. Text widths are estimated from
character classes (:func:`text_width`, a little wider than DejaVu Sans), so
labels are sized or left out here, never cut by the painter.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from jaxviz.views.devices.boxes import DevicePlace, device_box, held_rect, longest_label
from jaxviz.views.devices.measure import Rect, sub_rect, text_width
from jaxviz.views.devices.scene import Scene
from jaxviz.views.devices.tiles import Block, TileGrid, group_name
from jaxviz.views.incremental import Steps, run_to_end

#: Canvases less than this many text units high are laid out short (see :func:`canvas_geometry`).
SHORT = 30
#: The note that a variant differs: its font size and most lines (units; the painter
#: shrinks it further when the estimate was short).
NOTE_PX = 0.8
NOTE_LINES = 3
NOTE_LINES_SHORT = 2
#: The caption's lines (its longest phase's, at most this many; the painter shrinks or
#: cuts past them and the canvas shows the whole caption on hover).
CAPTION_LINES = 4
CAPTION_LINES_SHORT = 3
#: A device box is at least this many text units high, or the text shrinks (see
#: :func:`fitted_geometry`): the mesh never vanishes under a zoomed caption.
MIN_BOX_UNITS = 1.6
#: The smallest body text (px) :func:`fitted_geometry` shrinks to.
MIN_UNIT = 9.0
#: The tallest canvas :func:`needed_height` considers (px): past it the mesh is a
#: hopeless fit anyway, and the view scrolls that far at most.
MAX_CANVAS_H = 4000.0


@dataclass
class ArrayPlace:
    """An array (or a folded pytree group) on the host: its labels and its tiles."""

    grid: TileGrid
    label: Rect
    note: Rect | None
    rect: Rect
    blocks: list[Rect]
    #: The pytree group this entry can fold into or unfold from on a click ("" if none).
    group: str = ""


@dataclass
class CanvasGeometry:
    """Pixel positions of everything in a scene for one canvas size."""

    width: float
    height: float
    unit: float
    header: Rect
    title: Rect
    caption: Rect
    legend: Rect
    panels: dict[str, Rect]
    inputs: list[ArrayPlace]
    outputs: list[ArrayPlace]
    devices: dict[int, DevicePlace]
    frames: list[tuple[Rect, str]]
    row_ticks: list[tuple[Rect, str]]
    col_ticks: list[tuple[Rect, str]]
    row_axis: Rect | None
    col_axis: Rect | None
    grid_rect: Rect
    expanded: frozenset[str] = frozenset()
    #: A short canvas: slim header and caption, no column titles and no legend.
    short: bool = False
    #: A 1-D strip drawn across instead of down (see :func:`_cells`).
    flipped: bool = False
    #: Height of the band at the caption's foot that says the variant differs (0: none
    #: of the scene's phases has such a note).
    note_h: float = 0.0
    #: The smallest text (px) drawn on this canvas (0: no floor): on screen, the window's
    #: body text, so no label is smaller than the text around the view.
    min_text: float = 0.0

    @property
    def shown_inputs(self) -> list[TileGrid]:
        """The inputs as drawn (folded pytree groups as one entry)."""
        return [p.grid for p in self.inputs]

    @property
    def shown_outputs(self) -> list[TileGrid]:
        return [p.grid for p in self.outputs]

    def array(self, name: str, role: str | None = None) -> ArrayPlace:
        """The placed array called ``name`` (inputs first)."""
        for place in self.inputs + self.outputs:
            if place.grid.name == name and (role is None or place.grid.role == role):
                return place
        raise KeyError(name)

    def group_at(self, x: float, y: float) -> str:
        """The foldable pytree group whose entry is at ``(x, y)`` ("" if none)."""
        for place in self.inputs + self.outputs:
            if not place.group:
                continue
            for rx, ry, rw, rh in (place.label, place.rect, place.note or place.label):
                if rx <= x <= rx + rw and ry <= y <= ry + rh:
                    return place.group
        return ""

    def held_block(self, device: int, grid: TileGrid, block: Block) -> Rect | None:
        """Where ``block`` of ``grid`` sits inside device ``device``'s tile."""
        place = self.devices.get(device)
        tile = place.minis.get(grid.key) if place else None
        return held_rect(tile, grid, device, block) if tile else None


@dataclass
class LayoutMemo:
    """What the tries of one search for a fitting height or unit share (see
    :func:`canvas_geometry`'s ``memo``): the bands by (width, unit, short, min_text), and
    the arrays shown with the foldable groups."""

    bands: dict[tuple[float, float, bool, float], tuple[float, float]] = field(
        default_factory=dict)
    shown: tuple[list[TileGrid], list[TileGrid], set[str]] | None = None


def default_unit(width: float, height: float, app_font_px: float = 0.0,
                 scale: float = 1.0) -> float:
    """Body-text size: the app font, but never smaller than a projector needs."""
    return max(app_font_px, min(height / 34.0, width / 60.0), 9.0) * scale


def note_band(scene: Scene, width: float, u: float, short: bool,
              min_text: float = 0.0) -> float:
    """Height of the caption's band for the longest note that the variant differs: as
    many lines as it needs at :data:`NOTE_PX` (at most :data:`NOTE_LINES`), 0 if none.
    ``min_text``: the smallest text size (px) the canvas draws."""
    notes = [p.note for p in scene.phases if p.note]
    if not notes:
        return 0.0
    px = max(NOTE_PX * u, min_text)
    room = width - 1.3 * u  # the band's margins and padding
    need = max(text_width(n, px) for n in notes) / max(room * 0.92, 1.0)  # word wrap
    lines = min(max(1, -(-need // 1)), NOTE_LINES_SHORT if short else NOTE_LINES)
    return lines * 1.3 * px + 0.85 * u


def measure_captions(scene: Scene, per_step: int = 100) -> Steps[None]:
    """Measure every phase's caption and note ahead, in steps of ``per_step`` phases: the
    widths are remembered (:func:`~jaxviz.views.devices.measure.text_width`), so the
    first layout of a big program's scene (:func:`caption_band`, :func:`note_band`) does
    not measure its hundreds of captions at once."""
    phases = scene.phases
    for start in range(0, len(phases), per_step):
        for p in phases[start:start + per_step]:
            text_width(p.caption_without_note, 1.0)
            if p.note:
                text_width(p.note, 1.0)
        yield


def caption_band(scene: Scene, width: float, u: float, short: bool,
                 min_text: float = 0.0) -> float:
    """Height of the caption band: the title line, then as many lines as the longest
    phase's caption needs at ``width`` (at most :data:`CAPTION_LINES`), the note's band.
    ``min_text``: the smallest text size (px) the canvas draws."""
    px = max(0.92 * u, min_text)
    room = width - 5.0 * u  # the step badge and the margins
    texts = [p.caption_without_note for p in scene.phases] or [""]
    need = max(text_width(t, px) for t in texts) / max(room * 0.9, 1.0)  # word wrap
    lines = min(max(2, -(-need // 1)), CAPTION_LINES_SHORT if short else CAPTION_LINES)
    title = 1.75 if short else 2.05
    return (title + 0.35) * u + lines * 1.2 * px + note_band(scene, width, u, short,
                                                              min_text)


def fitted_geometry(scene: Scene, width: float, height: float, unit: float,
                    expanded: frozenset[str] = frozenset(),
                    min_text: float = 0.0) -> CanvasGeometry:
    """:func:`canvas_geometry` at ``unit``, or at the largest smaller unit (down to
    ``min_text``, the smallest text the canvas may draw, and never below
    :data:`MIN_UNIT`) at which every device box is :data:`MIN_BOX_UNITS` units high. A
    canvas too short even then is made taller (:func:`needed_height`) and scrolls:
    a zoomed window's docked tab keeps its mesh and its text at the window's size."""
    return run_to_end(fitted_geometry_steps(scene, width, height, unit, expanded, min_text))


def fitted_geometry_steps(scene: Scene, width: float, height: float, unit: float,
                          expanded: frozenset[str] = frozenset(),
                          min_text: float = 0.0) -> Steps[CanvasGeometry]:
    """:func:`fitted_geometry` in steps: one per size tried (a train step's 8 devices and
    hundred arrays: 3-4 ms each; at once, the new layout of a resized canvas was a 7-11 ms
    step of the device view's drawing ahead)."""
    floor = max(min(min_text, unit), MIN_UNIT) if min_text else MIN_UNIT
    u = unit
    memo = LayoutMemo()
    while True:  # (the boxes alone tell whether they fit: the rest is placed once)
        lay = canvas_geometry(scene, width, height, u, expanded, min_text, boxes_only=True,
                              memo=memo)
        yield
        if u <= floor or _boxes_fit(lay):
            return canvas_geometry(scene, width, height, u, expanded, min_text)
        u = max(u * 0.92, floor)


def _boxes_fit(lay: CanvasGeometry) -> bool:
    boxes = [d.rect for d in lay.devices.values()]
    return not boxes or min(r[3] for r in boxes) >= MIN_BOX_UNITS * lay.unit - 0.01


def needed_height(scene: Scene, width: float, unit: float,
                  expanded: frozenset[str] = frozenset(), min_text: float = 0.0,
                  start: float = 1.0) -> float:
    """The least canvas height (px, whole, from ``start`` up) at which
    :func:`canvas_geometry` at ``unit`` gives every device box :data:`MIN_BOX_UNITS`
    units of height (0: ``start`` does, or no height up to :data:`MAX_CANVAS_H`). A view
    shorter than this scrolls. (Not a bisection: a 1-D strip lies across a short canvas
    and down a tall one, so a taller canvas can fit worse.)"""
    if not scene.devices:
        return 0.0
    step = max(unit / 2, 4.0)
    h = max(start, 1.0)
    memo = LayoutMemo()
    while h <= MAX_CANVAS_H:
        if _boxes_fit(canvas_geometry(scene, width, h, unit, expanded, min_text,
                                      boxes_only=True, memo=memo)):
            return 0.0 if h <= start else float(-(-h // 1))
        h += step
    return 0.0


def canvas_geometry(scene: Scene, width: float, height: float, unit: float,
           expanded: frozenset[str] = frozenset(), min_text: float = 0.0,
           boxes_only: bool = False, memo: LayoutMemo | None = None) -> CanvasGeometry:
    """Place ``scene`` on a ``width`` x ``height`` canvas with body text ``unit`` px.

    Args:
        expanded: pytree groups drawn leaf by leaf (the others are folded into
            one entry each, see :meth:`Scene.folds`).
        min_text: the smallest text (px) the canvas draws (the caption's band is
            as tall as its lines need at that size; 0: no floor).
        boxes_only: place the device boxes only (their rects, nothing inside them, no
            arrays on the host): enough to tell whether they fit (:func:`needed_height`),
            and a train step's hundred arrays are not placed for every height tried.
        memo: what does not depend on the height (the caption's and the note's bands,
            the arrays shown), kept across the calls of a search that share it.
    """
    u = unit
    m = 0.6 * u
    # A short canvas (the docked tab of a small window) keeps its height for the devices:
    # a slimmer header and caption, no column titles, no legend (the tiles say who holds
    # them in words, and the ids are in the boxes).
    short = height < SHORT * u
    header = (m, m * 0.6, width - 2 * m, (1.6 if short else 2.1) * u)
    title = header
    memo = LayoutMemo() if memo is None else memo
    bands = (width, u, short, min_text)
    if bands not in memo.bands:
        memo.bands[bands] = (note_band(scene, width - 2 * m, u, short, min_text),
                             caption_band(scene, width - 2 * m, u, short, min_text))
    note_h, cap_h = memo.bands[bands]
    caption = (m, height - m - cap_h, width - 2 * m, cap_h)
    top = header[1] + header[3] + 0.4 * u
    bottom = caption[1] - 0.4 * u
    legend_h = 0.0 if short else 1.5 * u
    legend = (m, bottom - legend_h, width - 2 * m, legend_h)
    main_bottom = legend[1] - (0.0 if short else 0.4 * u)
    main_h = main_bottom - top
    side = 0.22 * width
    gap = 1.4 * u
    left = (m, top, side - m, main_h)
    right = (width - side, top, side - m, main_h)
    middle = (left[0] + left[2] + gap, top, right[0] - gap - (left[0] + left[2] + gap), main_h)
    col_title = 0.0 if short else 1.3 * u
    if memo.shown is None:
        memo.shown = (scene.shown("input", expanded), scene.shown("output", expanded),
                         set(scene.folds("input")) | set(scene.folds("output")))
    shown_in, shown_out, groups = memo.shown
    slots = max(len(shown_in), len(shown_out), 2)
    inputs = [] if boxes_only else _place_arrays(shown_in, _below(left, col_title), u,
                                                 slots, groups)
    outputs = [] if boxes_only else _place_arrays(shown_out, _below(right, col_title), u,
                                                  slots, groups)
    lay = CanvasGeometry(width=width, height=height, unit=u, header=header, title=title,
                 caption=caption, legend=legend,
                 panels={"inputs": left, "devices": middle, "outputs": right},
                 inputs=inputs, outputs=outputs, devices={}, frames=[], row_ticks=[],
                 col_ticks=[], row_axis=None, col_axis=None, grid_rect=middle,
                 expanded=frozenset(expanded), short=short, note_h=note_h,
                 min_text=min_text)
    if scene.devices:
        _place_devices(scene, lay, _below(middle, col_title), u, boxes_only)
    return lay


def _below(rect: Rect, dy: float) -> Rect:
    x, y, w, h = rect
    return x, y + dy, w, max(h - dy, 1.0)


def _place_arrays(grids: list[TileGrid], area: Rect, u: float, slots: int,
                  groups: set[str]) -> list[ArrayPlace]:
    if not grids:
        return []
    x, y, w, h = area
    slot = h / max(slots, len(grids))
    label_h = 1.25 * u if slot > 2.2 * u else min(1.0 * u, slot * 0.45)
    note_h = 1.05 * u if slot > 4.2 * u else 0.0
    places = []
    for k, g in enumerate(grids):
        top = y + k * slot
        room_h = max(slot - label_h - note_h - 0.5 * u, 0.4 * u)
        aspect = g.aspect
        tw = min(w, room_h * aspect)
        th = tw / aspect
        if th > room_h:
            th, tw = room_h, room_h * aspect
        tw = max(tw, min(w, 3.0 * u))  # never a sliver: wide enough to show what it holds
        rect = (x + (w - tw) / 2, top + label_h + note_h, tw, th)
        note = (x, top + label_h, w, note_h) if note_h else None
        group = g.name if g.members else group_name(g.name)
        places.append(ArrayPlace(grid=g, label=(x, top, w, label_h), note=note, rect=rect,
                                 blocks=[sub_rect(rect, b) for b in g.blocks],
                                 group=group if group in groups else ""))
    return places


def _offsets(keys: list[tuple[int, ...]], extra: float) -> list[float]:
    """Extra space before each row (or column) where the set of processes changes."""
    out, total = [], 0.0
    for k, key in enumerate(keys):
        if k > 0 and key != keys[k - 1]:
            total += extra
        out.append(total)
    return out


def _cells(scene: Scene, area: Rect, u: float) -> tuple[int, int, dict[int, tuple[int, int]]]:
    """Rows, columns and each device's cell of the drawn grid.

    The scene's grid, except that a 1-D strip too short to show its devices
    (a docked tab of a small window) lies across instead of down: still one
    strip, in mesh order.
    """
    rows, cols = scene.rows, scene.cols
    cells = {d.id: (d.row, d.col) for d in scene.devices}
    if cols == 1 and rows > 1:
        down = (area[3] - 3.5 * u) / rows
        across = (area[2] - 1.0 * u) / rows
        if down < 1.5 * u and across >= 3.0 * u:
            return 1, rows, {d.id: (0, d.row) for d in scene.devices}
    return rows, cols, cells


def _place_devices(scene: Scene, lay: CanvasGeometry, area: Rect, u: float,
                   boxes_only: bool = False) -> None:
    x, y, w, h = area
    rows, cols, cells = _cells(scene, area, u)
    lay.flipped = rows != scene.rows
    has_cols = cols > 1 and not lay.flipped
    tick_px = 0.72 * u
    show_rows = bool(scene.row_ticks) and has_cols
    left_w = (max(text_width(t, tick_px) for t in scene.row_ticks) + 0.6 * u
              if show_rows else 0.0)
    axis_h = 1.2 * u if scene.row_label or scene.col_label else 0.0
    ticks_h = 1.0 * u if has_cols else 0.0
    footer = 1.3 * u
    pad = 0.35 * u
    procs = len(scene.processes) > 1
    row_procs = [tuple(sorted({d.process for d in scene.devices if cells[d.id][0] == r}))
                 for r in range(rows)]
    col_procs = [tuple(sorted({d.process for d in scene.devices if cells[d.id][1] == c}))
                 for c in range(cols)]
    split = footer + 2 * pad if procs else 0.0
    row_extra = _offsets(row_procs, split) if procs else [0.0] * rows
    col_extra = _offsets(col_procs, 2 * pad) if procs else [0.0] * cols
    gx = x + left_w + pad
    gy = y + axis_h + ticks_h + pad
    gw = w - left_w - 2 * pad - col_extra[-1]
    # a batched scene says under the devices how the batch runs (motion's counter line)
    counter_h = 1.8 * u if scene.batch is not None else 0.0
    gh = h - axis_h - ticks_h - footer - 2 * pad - row_extra[-1] - counter_h
    gap = max(min(0.35 * u, gw / cols * 0.08, gh / rows * 0.12), 1.0)
    bw = (gw - gap * (cols - 1)) / cols
    bh = (gh - gap * (rows - 1)) / rows
    bh = min(bh, 7 * u)  # a few devices: no giant boxes
    if cols == 1:
        bw = min(bw, 30 * u)
    total_w = cols * bw + (cols - 1) * gap + col_extra[-1]
    total_h = rows * bh + (rows - 1) * gap + row_extra[-1]
    gx += (gw + col_extra[-1] - total_w) / 2
    gy += (gh + row_extra[-1] - total_h) / 2 * 0.5
    lay.grid_rect = (gx, gy, total_w, total_h)

    def row_y(r: int) -> float:
        return gy + r * (bh + gap) + row_extra[r]

    def col_x(c: int) -> float:
        return gx + c * (bw + gap) + col_extra[c]

    chars = longest_label(scene)
    ins, outs = lay.shown_inputs, lay.shown_outputs
    for slot in scene.devices:
        r, c = cells[slot.id]
        rect = (col_x(c), row_y(r), bw, bh)
        lay.devices[slot.id] = (DevicePlace(slot=slot, rect=rect, header=rect, detail=0)
                                if boxes_only else
                                device_box(slot, rect, scene, ins, outs, u, chars))
    if show_rows:
        for r, text in enumerate(scene.row_ticks[:rows]):
            lay.row_ticks.append(((gx - left_w - pad, row_y(r), left_w, bh), text))
    if has_cols:
        for c, text in enumerate(scene.col_ticks[:cols]):
            lay.col_ticks.append(((col_x(c), gy - ticks_h - pad, bw, ticks_h), text))
    axis_y = gy - ticks_h - pad - axis_h
    if scene.row_label:
        lay.row_axis = (gx - left_w - pad, axis_y, max(left_w + pad + total_w, 1.0), axis_h)
    if has_cols and scene.col_label:
        lay.col_axis = (gx, axis_y, total_w, axis_h)
    _frames(scene, lay, footer, pad)


def _frames(scene: Scene, lay: CanvasGeometry, label_h: float, pad: float) -> None:
    """A frame around each process's devices, labelled underneath with what they are."""
    for proc in scene.processes:
        rects = [lay.devices[d.id].rect for d in scene.devices if d.process == proc]
        x0 = min(r[0] for r in rects) - pad
        y0 = min(r[1] for r in rects) - pad
        x1 = max(r[0] + r[2] for r in rects) + pad
        y1 = max(r[1] + r[3] for r in rects) + pad + label_h
        kinds = sorted({d.kind for d in scene.devices if d.process == proc})
        count = len(rects)
        what = "simulated CPU devices" if scene.simulated else f"{'/'.join(kinds)} devices"
        if count == 1:
            what = what.replace("devices", "device")
        label = f"process {proc}: {count} {what}"
        if scene.idle_devices and len(scene.processes) == 1:
            label += f" ({scene.idle_devices} more idle)"
        lay.frames.append(((x0, y0, x1 - x0, y1 - y0), label))
