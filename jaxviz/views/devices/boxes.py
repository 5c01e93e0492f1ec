"""One device's box: its header, the tiles it holds, its label and badge places (no Qt).

A wide box (a 1-D strip lying down) has its header band on the left and its
tiles in a row; a tall one (a strip lying across) its tiles stacked; a grid
cell its header on top. A device's tile of an array is either a map of the
whole array with the held part marked, or the held piece alone
(:func:`map_mode`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from jaxviz.views.devices.measure import MONO_W, Rect, sub_rect
from jaxviz.views.devices.scene import DeviceSlot, Scene
from jaxviz.views.devices.tiles import Block, TileGrid


@dataclass
class DevicePlace:
    """One device box and what is drawn inside it."""

    slot: DeviceSlot
    rect: Rect
    header: Rect
    detail: int  # 2 rich, 1 compact, 0 tiny
    #: Each array's tile: the device's own piece, drawn with its local shape.
    minis: dict[str, Rect] = field(default_factory=dict)
    label: Rect | None = None
    bar: Rect | None = None
    badge: Rect | None = None

    @property
    def centre(self) -> tuple[float, float]:
        x, y, w, h = self.rect
        return x + w / 2, y + h / 2


def device_box(slot: DeviceSlot, rect: Rect, scene: Scene, ins: list[TileGrid],
               outs: list[TileGrid], u: float, label_chars: int | None = None) -> DevicePlace:
    """Where the header, tiles, label and badge of a device's box go (``ins``, ``outs`` drawn).

    ``label_chars``: the longest compute label of the scene's phases (measured here when
    not given; a layout of many boxes measures it once, see :func:`longest_label`)."""
    x, y, w, h = rect
    wide = w > 4.5 * h  # a 1-D strip: header band on the left, contents in a row
    if h >= 1.9 * u and w >= 8 * u:
        detail = 2
    elif (h >= 1.5 * u and w >= 2.6 * u) or (wide and h >= 0.5 * u and w >= 8 * u):
        detail = 1
    else:
        detail = 0
    if detail == 0:
        return DevicePlace(slot=slot, rect=rect, header=rect, detail=0)
    tall = h > 1.3 * w and detail >= 1
    if wide:
        band = min(max(2.6 * u, h * 0.8), w * 0.2) if detail == 2 else min(2.2 * u, w * 0.3)
        header = (x, y, band, h)
        body = (x + band, y, w - band, h)
    elif tall:
        hh = min(1.5 * u, h * 0.25)
        header = (x, y, w, hh)
        body = (x, y + hh, w, h - hh)
        return _tall_box(DevicePlace(slot=slot, rect=rect, header=header, detail=1), body,
                         ins + outs, u)
    else:
        hh = min(1.3 * u if detail == 2 else 0.95 * u, h * 0.5)
        header = (x, y, w, hh)
        body = (x, y + hh, w, h - hh)
    place = DevicePlace(slot=slot, rect=rect, header=header, detail=detail)
    p = 0.3 * u if detail == 2 else max(min(0.12 * u, h * 0.08), 1.0)
    bx, by, bw, bh = body[0] + p, body[1] + p, body[2] - 2 * p, body[3] - 2 * p
    if bh >= 1.2 * u:  # room for a progress bar under the tiles
        bar_h = max(0.2 * u, 2.0)
        place.bar = (bx, by + bh - bar_h, bw, bar_h)
        bh -= bar_h + p * 0.7
    label_w = 0.0
    if detail == 2:
        longest = longest_label(scene) if label_chars is None else label_chars
        want = longest * 0.7 * u * MONO_W + 1.2 * u
        if wide and bw - want > 3 * u * (len(ins) + len(outs)):
            label_w = want
        elif bh > 4.5 * u:
            lh = 1.1 * u
            place.label = (bx, by + bh - lh, bw, lh)
            bh -= lh
    gap = 0.5 * u if detail == 2 else 0.2 * u
    arrow = 1.0 * u if outs and not label_w and detail == 2 else 0.0
    grids = ins + outs
    room = bw - label_w - arrow - gap * max(len(grids) - 1, 0)
    wanted = [min(local_aspect(g) * bh, 12 * u) for g in grids]
    if detail == 2:  # room for the index label, e.g. "x[4:5]"
        wanted = [max(w_, min(label_room(g, u), 12 * u)) for w_, g in zip(wanted, grids)]
    scale = min(1.0, room / max(sum(wanted), 1.0))
    cursor = bx + max((room - sum(wanted) * scale) / 2, 0.0)
    for k, g in enumerate(grids):
        if k == len(ins) and k > 0:
            if label_w:
                place.label = (cursor, by, label_w, bh)
                cursor += label_w
            else:
                cursor += arrow
        tw = max(wanted[k] * scale, 2.0)
        th = min(bh, tw / local_aspect(g)) if map_mode(g) else min(bh, max(tw / local_aspect(g),
                                                                          min(bh, 1.4 * u)))
        place.minis[g.key] = (cursor, by + (bh - th) / 2, tw, th)
        cursor += tw + gap
    size = min(1.5 * u, bh, bw * 0.3)
    if place.label is not None and label_w:
        lx, ly, lw, lh = place.label
        place.badge = (lx + (lw - size) / 2, ly + (lh - size) / 2, size, size)
    elif place.label is not None:
        lx, ly, lw, lh = place.label
        size = min(size, lh)
        place.badge = (lx + (lw - size) / 2, ly + (lh - size) / 2, size, size)
    elif not wide and header[3] >= 0.9 * u:  # in the header band, clear of the tiles
        hx, hy, hw, hh = header
        side = hh - 2
        place.badge = (hx + hw - 1.4 * side - 2, hy + 1, 1.4 * side, side)
    elif size >= 0.9 * u:
        place.badge = (bx + bw - size, by, size, size)
    return place


def longest_label(scene: Scene) -> int:
    """Characters of the longest compute label of ``scene``'s phases (0 if none)."""
    return max((len(ph.compute_label) for ph in scene.phases), default=0)


def _tall_box(place: DevicePlace, body: Rect, grids: list[TileGrid], u: float) -> DevicePlace:
    """A device box taller than wide (a strip lying across): its tiles stacked down."""
    bx, by, bw, bh = body
    p = max(0.15 * u, 1.0)
    bx, by, bw, bh = bx + p, by + p, bw - 2 * p, bh - 2 * p
    if bh >= 6 * u:
        bar_h = max(0.2 * u, 2.0)
        place.bar = (bx, by + bh - bar_h, bw, bar_h)
        bh -= bar_h + p
    gap = 0.25 * u
    slot_h = (bh - gap * max(len(grids) - 1, 0)) / max(len(grids), 1)
    for k, g in enumerate(grids):
        aspect = local_aspect(g)
        tw = min(bw, slot_h * aspect)
        th = min(slot_h, tw / aspect)
        top = by + k * (slot_h + gap)
        place.minis[g.key] = (bx + (bw - tw) / 2, top + (slot_h - th) / 2, tw, th)
    size = min(1.3 * u, place.header[3] * 0.9, bw * 0.35)
    hx, hy, hw, hh = place.header
    if size >= 0.8 * u:
        place.badge = (hx + hw - size - p, hy + (hh - size) / 2, size, size)
    return place


def label_room(g: TileGrid, u: float) -> float:
    """Width that the longest index label of ``g`` needs (0 for map-mode tiles)."""
    if map_mode(g) or not g.by_device:
        return 0.0
    longest = g.memo.get("longest_slice")
    if longest is None:
        longest = g.memo["longest_slice"] = max(
            len(slice_text(g, d)) for d in list(g.by_device)[:4])
    return longest * 0.72 * u * MONO_W + 0.6 * u


def map_mode(g: TileGrid) -> bool:
    """Draw a device's tile as a map of the whole array (True) or as its piece alone.

    A map shows *where* the piece sits; it is used when each device holds at
    least a quarter of the array along every drawn axis (a 2-D mesh's blocks,
    vmap's whole batch), so the held part stays big enough to see.
    """
    hit = g.memo.get("map_mode")
    if hit is None:
        hit = g.memo["map_mode"] = _map_mode(g)
    return bool(hit)


def _map_mode(g: TileGrid) -> bool:
    held = next(iter(g.by_device.values()), [])
    if not held:
        return True
    fy = max(b.y1 for b in held) - min(b.y0 for b in held)
    fx = max(b.x1 for b in held) - min(b.x0 for b in held)
    return min(fx, fy) >= 0.249


def local_aspect(g: TileGrid) -> float:
    """Width / height of one device's tile of ``g``, clamped for drawing."""
    hit = g.memo.get("local_aspect")
    if hit is None:
        hit = g.memo["local_aspect"] = _local_aspect(g)
    return hit


def _local_aspect(g: TileGrid) -> float:
    if map_mode(g):
        return min(max(g.aspect, 0.4), 5.0)
    shape = g.shard_shape
    rows = 1
    for a in g.row_axes:
        rows *= max(shape[a], 1) if a < len(shape) else 1
    cols = 1
    for a in g.col_axes:
        cols *= max(shape[a], 1) if a < len(shape) else 1
    return min(max(cols / rows, 0.6), 5.0)


def held_rect(tile: Rect, g: TileGrid, device: int, block: Block) -> Rect:
    """Where ``block`` sits inside ``device``'s tile of ``g``."""
    if map_mode(g):
        return sub_rect(tile, block)
    held = g.by_device.get(device) or [block]
    y0 = min(b.y0 for b in held)
    y1 = max(b.y1 for b in held)
    x0 = min(b.x0 for b in held)
    x1 = max(b.x1 for b in held)
    x, y, w, h = tile
    fy = (block.y0 - y0) / max(y1 - y0, 1e-9), (block.y1 - y0) / max(y1 - y0, 1e-9)
    fx = (block.x0 - x0) / max(x1 - x0, 1e-9), (block.x1 - x0) / max(x1 - x0, 1e-9)
    return x + fx[0] * w, y + fy[0] * h, (fx[1] - fx[0]) * w, (fy[1] - fy[0]) * h


def slice_text(g: TileGrid, device: int) -> str:
    """``x[4:8, :]`` -- the index range a device holds (``x`` alone when whole)."""
    held = g.by_device.get(device)
    if not held or not g.shape or g.members:
        return g.name
    lo = [min(b.index[a][0] for b in held) for a in range(len(g.shape))]
    hi = [max(b.index[a][1] for b in held) for a in range(len(g.shape))]
    parts = [":" if (lo[a], hi[a]) == (0, g.shape[a]) else f"{lo[a]}:{hi[a]}"
             for a in range(len(g.shape))]
    while parts and parts[-1] == ":":
        parts.pop()
    return f"{g.name}[{', '.join(parts)}]" if parts else g.name
