"""The moving parts of a phase at time ``t`` in 0..1 (no Qt).

Tiles fly from the host to the devices that hold them (the destinations are
the blocks of each device's mini-map, from the storyboard's holders), devices
fill their progress bars, collectives send packets along curved links within
each of the storyboard's device groups (a permute along its source-target
pairs), and output tiles fly to the assembled output. Called by
:class:`jaxviz.views.devices.frames.FrameBuilder`, described here by the
:class:`FrameParts` protocol.
"""

from __future__ import annotations

import math
from typing import Protocol

from jaxviz.model.storyboard import Step
from jaxviz.views.devices.boxes import DevicePlace, held_rect
from jaxviz.views.devices.geometry import ArrayPlace, CanvasGeometry
from jaxviz.views.devices.items import Box, Item, Path, Stripes, Text
from jaxviz.views.devices.measure import Rect, inset
from jaxviz.views.devices.scene import Scene
from jaxviz.views.devices.tiles import Block, TileGrid
from jaxviz.views.palette import DeviceViewColours

#: A point on the canvas.
Point = tuple[float, float]


class FrameParts(Protocol):
    """What the moving parts need of :class:`jaxviz.views.devices.frames.FrameBuilder`.

    Declared here so that motion depends on a description of the frame
    builder, not on its module (which calls into this one).
    """

    scene: Scene
    lay: CanvasGeometry
    th: DeviceViewColours
    u: float
    kinds: list[str]
    colour: dict[int, str]
    order: dict[int, int]
    n: int
    i_outputs: int
    placed_keys: set[str]
    #: What the frames of a phase share, worked out by its first frame (see _in_paths).
    memo: dict[str, object]

    def host_inputs(self, split: float, fade: float, labels: bool = True) -> list[Item]: ...

    def block_fill(self, rect: Rect, block: Block, g: TileGrid, strength: float = 1.0,
                   alpha: float = 1.0, tag: str = "") -> list[Item]: ...

    def tile_gap(self, place: ArrayPlace) -> float: ...

    def device_box(self, place: DevicePlace, filled: bool = False, active: bool = False,
                   labelled: frozenset[str] = frozenset()) -> list[Item]: ...

    def mini_fills(self, place: DevicePlace, grids: list[TileGrid],
                   alpha: float = 1.0) -> list[Item]: ...

#: Groups up to this size exchange along every pair; bigger ones draw a ring.
PAIRWISE_MAX = 8
#: The token a device shows after a collective, by kind (reductions by their name).
SYMBOLS = {"all-gather": "all", "collective-permute": "↻", "all-to-all": "⇄",
           "collective-broadcast": "↓"}
REDUCE_SYMBOLS = {"sum": "Σ", "max": "max", "min": "min", "product": "Π"}


def ease(t: float) -> float:
    t = min(max(t, 0.0), 1.0)
    return t * t * (3 - 2 * t)


def window(t: float, start: float, length: float) -> float:
    """Progress (0..1) of a sub-animation running from ``start`` for ``length``."""
    return min(max((t - start) / length, 0.0), 1.0) if length > 0 else float(t >= start)


def lerp_rect(a: Rect, b: Rect, p: float) -> Rect:
    return tuple(x + (y - x) * p for x, y in zip(a, b))  # type: ignore[return-value]


def moving(fb: FrameParts, i: int, t: float) -> list[Item]:
    """Every moving item of phase ``i`` at time ``t``."""
    kind = fb.kinds[i]
    if kind == "split":
        return fb.host_inputs(ease(t), 0.0, labels=False)  # (the labels: static)
    if kind == "transfer":
        return _in_flights(fb, t)
    if kind == "compute":
        return _compute(fb, t, outputs=(i == fb.i_outputs))
    if kind == "collective":
        return _packets(fb, fb.scene.phases[i].step, t)
    if kind in ("assemble", "result"):
        return _out_flights(fb, t)
    if kind == "loop":
        return _loop(fb, t)
    if kind == "no_loop":
        return [_counter(fb, "no Python loop: one call has no batch axis")]
    if kind == "vectorized":
        return _vectorized(fb, t)
    return []


# --------------------------------------------------------------------------- #
# tiles flying
# --------------------------------------------------------------------------- #


def _target(fb: FrameParts, device: int, grid: TileGrid, block: Block) -> Rect | None:
    place = fb.lay.devices.get(device)
    if place is None:
        return None
    tile = place.minis.get(grid.key)
    if tile is not None:
        return held_rect(tile, grid, device, block)
    x, y, w, h = place.rect
    return x + w * 0.3, y + h * 0.3, w * 0.4, h * 0.4


def _flight(rect: Rect, colour: str, fb: FrameParts, alpha: float = 1.0) -> Box:
    small = min(rect[2], rect[3]) < 0.4 * fb.u  # no outline on a speck (and faster)
    return Box(rect, colour, None if small else fb.th.fg, 0.8, alpha=alpha)


#: A tile's flight: from, to, its device's colour, the device and its start (0..1 of the
#: phase's time).
Flight = tuple[Rect, Rect, str, int, float]


def _in_paths(fb: FrameParts) -> list[Flight]:
    """Every input tile's flight from the host to a device that holds it, in drawing order
    (worked out once per layout: a train step's transfer moves hundreds of tiles a frame)."""
    hit = fb.memo.get("in_paths")
    if hit is not None:
        return hit  # type: ignore[return-value]
    paths: list[Flight] = []
    n = max(fb.n - 1, 1)
    for place in fb.lay.inputs:
        g = place.grid
        if g.key in fb.placed_keys:
            continue  # already on its devices: nothing travels
        gap = fb.tile_gap(place) if fb.scene.parallel else 0.0
        for block, rect in zip(g.blocks, place.blocks):
            src = inset(rect, gap / 2)
            for d in block.holders:
                dst = _target(fb, d, g, block)
                if dst is not None:
                    paths.append((src, dst, fb.colour[d], d, 0.45 * fb.order.get(d, 0) / n))
    fb.memo["in_paths"] = paths
    return paths


def _in_flights(fb: FrameParts, t: float) -> list[Item]:
    items: list[Item] = []
    landed: set[int] = set()
    for src, dst, colour, d, start in _in_paths(fb):
        p = window(t, start, 0.55)
        if p <= 0:
            continue
        if p >= 1 and fb.lay.devices[d].detail == 0:
            landed.add(d)
            continue
        items.append(_flight(lerp_rect(src, dst, ease(p)), colour, fb))
    for d in landed:
        items += fb.device_box(fb.lay.devices[d], filled=True)
    return items


#: An output tile on its way back: where it lands, what it looks like there, and each
#: holder's flight to it (the device, its start, where it leaves from if the device
#: shows the tile).
OutTile = tuple[Rect, list[Item], list[tuple[int, float, Rect | None]]]


def _out_paths(fb: FrameParts) -> list[OutTile]:
    """Every output tile's flights from its holders, in drawing order (once per layout)."""
    hit = fb.memo.get("out_paths")
    if hit is not None:
        return hit  # type: ignore[return-value]
    tiles: list[OutTile] = []
    n = max(fb.n - 1, 1)
    for place in fb.lay.outputs:
        g = place.grid
        gap = fb.tile_gap(place) if fb.scene.parallel else 0.0
        for k, (block, rect) in enumerate(zip(g.blocks, place.blocks)):
            dst = inset(rect, gap / 2)
            landed = fb.block_fill(dst, block, g, tag=f"tile {g.key} {k}")
            tiles.append((dst, landed, [(d, 0.4 * fb.order.get(d, 0) / n,
                                         _target(fb, d, g, block)) for d in block.holders]))
    fb.memo["out_paths"] = tiles
    return tiles


def _out_flights(fb: FrameParts, t: float) -> list[Item]:
    items: list[Item] = []
    for dst, landed, holders in _out_paths(fb):
        ps = [(d, window(t, start, 0.6), src) for d, start, src in holders]
        if ps and all(p >= 1 for _, p, _ in ps):
            items += landed
            continue
        for d, p, src in ps:
            if src is not None and p < 1:
                items.append(_flight(lerp_rect(src, dst, ease(p)), fb.colour[d], fb))
    return items


# --------------------------------------------------------------------------- #
# computing
# --------------------------------------------------------------------------- #


def _compute(fb: FrameParts, t: float, outputs: bool) -> list[Item]:
    items: list[Item] = []
    p = ease(t)
    for place in fb.lay.devices.values():
        if place.bar is not None:
            x, y, w, h = place.bar
            items.append(Box((x, y, w * p, h), fb.th.accent, None))
        if outputs:
            items += fb.mini_fills(place, fb.lay.shown_outputs, alpha=p)
    return items


def _counter(fb: FrameParts, text: str) -> Text:
    x, y, w, h = fb.lay.grid_rect
    if fb.lay.frames:  # below the process frame and its label
        fx, fy, fw, fh = fb.lay.frames[0][0]
        y, h = fy, fh
    u = fb.u
    return Text((x - 2 * u, y + h + 0.3 * u, w + 4 * u, 1.4 * u), text, 1.0 * u, fb.th.accent,
                "center", bold=True)


def _loop(fb: FrameParts, t: float) -> list[Item]:
    """vmap's contrast: a Python loop sends one example at a time."""
    batch = fb.scene.batch
    assert batch is not None  # the loop contrast is drawn for a batched scene only
    trips = batch.trips
    k = min(int(t * trips), trips - 1)
    s = t * trips - k
    place = next(iter(fb.lay.devices.values()))
    dev = place.slot
    items: list[Item] = []
    for host in fb.lay.inputs:
        # shared by every call, or already on the device: each call reads it there
        if fb.scene.batch_axis(host.grid) is None or host.grid.key in fb.placed_keys:
            items += fb.mini_fills(place, [host.grid])
    for host in fb.lay.inputs:
        if fb.scene.batch_axis(host.grid) is None or k >= len(host.blocks) \
                or host.grid.key in fb.placed_keys:
            continue
        items.append(Box(host.blocks[k], None, fb.th.accent, 2.5))
        block = host.grid.blocks[k]
        dst = _target(fb, dev.id, host.grid, block)
        if dst is not None:
            items.append(_flight(lerp_rect(host.blocks[k], dst, ease(window(s, 0, 0.35))),
                                 dev.colour, fb))
    if place.bar is not None:
        x, y, w, h = place.bar
        items.append(Box((x, y, w * ease(window(s, 0.35, 0.3)), h), fb.th.accent, None))
    for out in fb.lay.outputs:
        for j, (block, rect) in enumerate(zip(out.grid.blocks, out.blocks)):
            if j < k:
                items += fb.block_fill(rect, block, out.grid)
            elif j == k and s > 0.65:
                src = _target(fb, dev.id, out.grid, block)
                if src is not None:
                    p = ease(window(s, 0.65, 0.35))
                    items.append(_flight(lerp_rect(src, rect, p), dev.colour, fb))
    per = -(-batch.size // trips)
    lo, hi = k * per + 1, min((k + 1) * per, batch.size)
    which = f"call {lo}" if per == 1 else f"calls {lo}–{hi}"
    items.append(_counter(fb, f"Python loop: {which} of {batch.size}"))
    return items


def _vectorized(fb: FrameParts, t: float) -> list[Item]:
    """vmap: the whole batch goes to one device and is computed in one program."""
    place = next(iter(fb.lay.devices.values()))
    dev = place.slot
    items: list[Item] = []
    for host in fb.lay.inputs:
        if host.grid.key in fb.placed_keys:  # already on the device: nothing travels
            items += fb.mini_fills(place, [host.grid])
            continue
        for block, rect in zip(host.grid.blocks, host.blocks):
            dst = _target(fb, dev.id, host.grid, block)
            if dst is not None:
                items.append(_flight(lerp_rect(rect, dst, ease(window(t, 0, 0.35))),
                                     dev.colour, fb))
    if place.bar is not None:
        x, y, w, h = place.bar
        items.append(Box((x, y, w * ease(window(t, 0.35, 0.35)), h), fb.th.accent, None))
    items += fb.mini_fills(place, fb.lay.shown_outputs, alpha=ease(window(t, 0.7, 0.3)))
    size = fb.scene.batch.size if fb.scene.batch is not None else 1
    how = "one program" if fb.scene.one_program else "one call, op by op"
    items.append(_counter(fb, f"vmap: {how}, all {size} examples at once"))
    return items


# --------------------------------------------------------------------------- #
# collectives
# --------------------------------------------------------------------------- #


def _groups(fb: FrameParts, step: Step) -> list[list[int]]:
    """The storyboard's device groups of a collective, as drawn (devices on screen only)."""
    c = step.collective
    if c is None:
        return []
    known = set(fb.lay.devices)
    groups = [[d for d in g if d in known] for g in c.groups]
    return [g for g in groups if len(g) > 1]


def pairs(fb: FrameParts, step: Step | None) -> list[tuple[int, int]]:
    """Who sends to whom in a collective, as drawn: within each group, or a permute's pairs."""
    c = step.collective if step is not None else None
    if c is None:
        return []
    known = set(fb.lay.devices)
    if c.kind == "collective-permute":
        return [(a, b) for a, b in c.pairs if a != b and a in known and b in known]
    out = []
    groups = _groups(fb, step) if step is not None else []
    pairwise = sum(len(g) * (len(g) - 1) for g in groups) <= PAIRWISE_MAX * (PAIRWISE_MAX - 1)
    for g in groups:
        if pairwise:
            out += [(a, b) for a in g for b in g if a != b]
        else:
            out += [(g[k], g[(k + 1) % len(g)]) for k in range(len(g))]
    return out


def _anchor(place: DevicePlace) -> tuple[float, float]:
    if place.badge is not None:
        x, y, w, h = place.badge
        return x + w / 2, y + h / 2
    return place.centre


def _control(a: tuple[float, float], b: tuple[float, float],
             limit: float) -> tuple[float, float]:
    """The bend of a link: a gentle arc, never further than ``limit`` from the straight line."""
    (x1, y1), (x2, y2) = a, b
    dx, dy = x2 - x1, y2 - y1
    dist = math.hypot(dx, dy) or 1.0
    bend = min(0.28 * dist, limit)
    return (x1 + x2) / 2 - dy / dist * bend, (y1 + y2) / 2 + dx / dist * bend


def _bezier(a: Point, c: Point, b: Point, p: float) -> Point:
    q = 1 - p
    return (q * q * a[0] + 2 * q * p * c[0] + p * p * b[0],
            q * q * a[1] + 2 * q * p * c[1] + p * p * b[1])


def links(fb: FrameParts, step: Step | None) -> list[Item]:
    """Faint curved links between the devices that talk in a collective (tagged ``link a->b``)."""
    if step is None or step.collective is None or len(fb.lay.devices) < 2:
        return []
    items: list[Item] = []
    for a, b in pairs(fb, step):
        pa, pb = _anchor(fb.lay.devices[a]), _anchor(fb.lay.devices[b])
        ctrl = _control(pa, pb, 2.5 * fb.u)
        pts = [_bezier(pa, ctrl, pb, k / 14) for k in range(15)]
        items.append(Path(pts, fb.th.muted, 1.0, alpha=0.35, tag=f"link {a}->{b}"))
    return items


def _packets(fb: FrameParts, step: Step | None, t: float) -> list[Item]:
    if step is None or step.collective is None:
        return []
    items: list[Item] = []
    size = max(0.45 * fb.u, 3.0)
    for a, b in pairs(fb, step):
        pa, pb = _anchor(fb.lay.devices[a]), _anchor(fb.lay.devices[b])
        p = window(t, 0.08, 0.6)
        if p <= 0 or p >= 1:
            continue
        x, y = _bezier(pa, _control(pa, pb, 2.5 * fb.u), pb, ease(p))
        items.append(Box((x - size / 2, y - size / 2, size, size), fb.colour[a], fb.th.fg, 0.8))
    alpha = window(t, 0.72, 0.28)
    if alpha > 0:
        for place in fb.lay.devices.values():
            items += badge(fb, place, step, alpha)
    return items


def badge(fb: FrameParts, place: DevicePlace, step: Step | None,
          alpha: float = 1.0) -> list[Item]:
    """The token a device holds after a collective: whose data went into it."""
    c = step.collective if step is not None else None
    if c is None:
        return []
    d = place.slot.id
    if c.kind == "collective-permute":
        senders = [a for a, b in c.pairs if b == d] or [d]
    else:
        senders = next((g for g in c.groups if d in g), [d])
    if len(senders) == 1 and senders == [d] and c.kind != "collective-permute":
        return []  # not in any exchanging group
    colours = [fb.colour.get(s, fb.th.neutral) for s in senders[:16]]
    if place.detail == 0 or place.badge is None:  # a small token at the box's right end
        x, y, w, h = place.rect
        side = min(h * 0.7, w * 0.3)
        return [Stripes((x + w - 1.8 * side - 2, y + (h - side) / 2, 1.6 * side, side),
                        colours, fb.th.frame, alpha)]
    x, y, w, h = place.badge
    symbol = REDUCE_SYMBOLS.get(c.reduction, "Σ") if c.reduction else SYMBOLS.get(c.kind, "·")
    return [Box((x, y, w, h), fb.th.bg, fb.th.fg, 1.2, radius=0.15 * w, alpha=alpha),
            Stripes((x + 1, y + h * 0.62, w - 2, h * 0.38 - 1), colours, None, alpha),
            Text((x, y, w, h * 0.62), symbol, min(h * 0.5, fb.u), fb.th.fg, "center",
                 bold=True)]
