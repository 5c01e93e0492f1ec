"""The display list of one frame: a static layer per phase plus moving parts (no Qt).

:class:`FrameBuilder` draws a :class:`~jaxviz.scene.scene.Scene`
placed by a :class:`~jaxviz.scene.geometry.Layout` in a theme.
``static(i)`` is everything that does not move during phase ``i`` (the view
caches it as a pixmap); ``dynamic(i, t)`` is what moves at time ``t`` (0..1)
of that phase, computed by :mod:`~jaxviz.scene.motion`.
"""

from __future__ import annotations

from jaxviz.model.palette import DeviceViewColours, mix, text_on
from jaxviz.scene import motion
from jaxviz.scene.geometry import (
    ArrayPlace,
    DevicePlace,
    Layout,
    Rect,
    _key,
    held_rect,
    inset,
    map_mode,
    slice_text,
    text_width,
)
from jaxviz.scene.items import Box, Grid, Item, Stripes, Text
from jaxviz.scene.scene import Scene
from jaxviz.scene.tiles import Block, TileGrid

#: Most stripes drawn in one shared tile (more holders are summarized).
MAX_STRIPES = 16
#: Advance of a monospaced character, as a fraction of the font size.
MONO_W = 0.61


class FrameBuilder:
    """Builds the items of any frame of one scene, layout and theme."""

    def __init__(self, scene: Scene, layout: Layout, theme: DeviceViewColours):
        self.scene, self.lay, self.th = scene, layout, theme
        self.u = layout.unit
        kinds = [p.kind for p in scene.phases]
        self.kinds = kinds
        self.colour = scene.colour_of
        self.order = {d.id: k for k, d in enumerate(scene.devices)}
        self.n = len(scene.devices)

        def first(*names: str) -> int:
            return next((k for k, kind in enumerate(kinds) if kind in names), -1)

        def last(*names: str) -> int:
            hits = [k for k, kind in enumerate(kinds) if kind in names]
            return hits[-1] if hits else -1

        self.i_split = first("split")
        self.i_transfer = first("transfer", "vectorized")
        self.i_outputs = last("compute", "vectorized")
        self.i_assemble = first("assemble", "result")
        self.collective_at = [k for k, kind in enumerate(kinds) if kind == "collective"]

    # ------------------------------------------------------------------ #
    # public
    # ------------------------------------------------------------------ #

    def frame(self, i: int, t: float) -> list[Item]:
        """Every item of phase ``i`` at time ``t``."""
        return self.static(i) + self.dynamic(i, t)

    def static(self, i: int) -> list[Item]:
        """What does not move during phase ``i``."""
        items: list[Item] = [Box((0, 0, self.lay.width, self.lay.height), self.th.bg)]
        items += self._header()
        if self.scene.error:
            items.append(Text(self.lay.panels["devices"], self.scene.error, self.u,
                              self.th.fg, "center", wrap=True))
            return items
        items += self._column_titles()
        kind = self.kinds[i] if 0 <= i < len(self.kinds) else "host"
        if kind not in ("split", "transfer"):
            split = 1.0 if self.scene.parallel and i > self.i_split >= 0 else 0.0
            fade = 1.0 if self.scene.parallel and i > self.i_transfer >= 0 else 0.0
            items += self.host_inputs(split, fade)
        items += self._mesh_decor()
        items += self._devices(i, kind)
        items += self._host_outputs(i)
        items += self._legend()
        items += self._caption(i)
        if kind == "collective":
            items += motion.links(self, self.scene.phases[i].collective)
        return items

    def dynamic(self, i: int, t: float) -> list[Item]:
        """What moves at time ``t`` of phase ``i``."""
        if self.scene.error or not 0 <= i < len(self.kinds):
            return []
        t = min(max(t, 0.0), 1.0)
        x, y, w, h = self.lay.caption
        r = 0.4 * self.u
        progress = Box((x + r, y + h - 0.22 * self.u, (w - 2 * r) * t, 0.22 * self.u),
                       self.th.accent, None, alpha=0.7)
        return motion.moving(self, i, t) + [progress]

    # ------------------------------------------------------------------ #
    # host arrays
    # ------------------------------------------------------------------ #

    def host_inputs(self, split: float, fade: float) -> list[Item]:
        """The input arrays on the host, ``split`` (0..1) apart and ``fade`` (0..1) sent."""
        items: list[Item] = []
        for place in self.lay.inputs:
            items += self._array_labels(place)
            items += self.tiles(place, split, 1.0 - 0.55 * fade)
        return items

    def tiles(self, place: ArrayPlace, split: float, alpha: float = 1.0) -> list[Item]:
        """An array's tiles: neutral and whole at ``split`` 0, coloured and apart at 1."""
        g, th = place.grid, self.th
        items: list[Item] = []
        if split <= 0.0:
            items.append(Box(place.rect, th.neutral, th.frame, 1.0, alpha=alpha))
            items += self._cells(place.rect, g)
            if len(g.blocks) > 1 and not self.scene.parallel:  # vmap: examples
                items += [Box(r, None, th.grid, 1.0, alpha=0.8 * alpha) for r in place.blocks]
            return items
        gap = self.tile_gap(place) * split
        for block, rect in zip(g.blocks, place.blocks):
            r = inset(rect, gap / 2)
            items += self.block_fill(r, block, g, split, alpha)
        if g.replicated and self.n > 1:
            items.append(Text(place.rect, f"copy ×{self.n}", 0.8 * self.u,
                              mix(th.fg, th.neutral, 1 - split), "center", bold=True))
        return items

    def block_fill(self, rect: Rect, block: Block, g: TileGrid, strength: float = 1.0,
                   alpha: float = 1.0) -> list[Item]:
        """One tile coloured by its holders: a colour, stripes, or neutral if everywhere."""
        th = self.th
        holders = block.holders
        if len(holders) == 1:
            colour = self.colour.get(holders[0], th.neutral)
            return [Box(rect, mix(th.neutral, colour, strength), th.frame, 1.0, alpha=alpha)]
        if g.replicated and len(holders) >= self.n:
            return [Box(rect, th.neutral, th.frame, 1.0, alpha=alpha)] + self._cells(rect, g)
        shown = holders[:MAX_STRIPES]
        colours = [mix(th.neutral, self.colour.get(d, th.neutral), strength) for d in shown]
        return [Stripes(rect, colours, th.frame, alpha=alpha)]

    def tile_gap(self, place: ArrayPlace) -> float:
        smallest = min((min(r[2], r[3]) for r in place.blocks), default=0.0)
        return min(0.3 * self.u, smallest * 0.25)

    def _cells(self, rect: Rect, g: TileGrid) -> list[Item]:
        rows, cols = g.cells
        if rows * cols <= 1 or rows > 40 or cols > 40:
            return []
        if rect[3] / rows < 5 or rect[2] / max(cols, 1) < 5:
            return []
        return [Grid(rect, rows, cols, self.th.grid, 0.3)]

    def _array_labels(self, place: ArrayPlace) -> list[Item]:
        g, u, th = place.grid, self.u, self.th
        items: list[Item] = []
        x, y, w, h = place.label
        name_w = min(text_width(g.name, 0.9 * u, bold=True) + 0.5 * u, w * 0.55)
        items.append(Text((x, y, name_w, h), g.name, 0.9 * u, th.fg, bold=True))
        items.append(Text((x + name_w, y, w - name_w, h), g.type_str, 0.8 * u, th.fg,
                          mono=True))
        if place.note is not None:
            note = g.spec or ""
            if self.scene.variant == "vmap" and len(g.blocks) > 1:
                note = f"{len(g.blocks)} examples"
            elif self.scene.variant == "vmap":
                note = "shared by every example"
            elif g.replicated and self.n > 1:
                note = (note + "  replicated").strip()
            extra = g.summary_note()
            if extra:
                note = f"{note}  ({extra})" if note else extra
            items.append(Text(place.note, note, 0.72 * u, th.muted, mono=True))
        return items

    def _host_outputs(self, i: int) -> list[Item]:
        items: list[Item] = []
        done = i > self.i_assemble >= 0
        for place in self.lay.outputs:
            items += self._array_labels(place)
            if done:
                items += self.output_tiles(place)
            else:
                items.append(Box(place.rect, None, self.th.frame, 1.2, dashed=True))
        return items

    def output_tiles(self, place: ArrayPlace) -> list[Item]:
        """An output array assembled from its devices' tiles."""
        gap = self.tile_gap(place) if self.scene.parallel else 0.0
        items: list[Item] = []
        for block, rect in zip(place.grid.blocks, place.blocks):
            items += self.block_fill(inset(rect, gap / 2), block, place.grid)
        return items

    # ------------------------------------------------------------------ #
    # devices
    # ------------------------------------------------------------------ #

    def _devices(self, i: int, kind: str) -> list[Item]:
        items: list[Item] = []
        inputs_in = self.i_transfer >= 0 and i > self.i_transfer
        if kind in ("loop", "vectorized"):
            inputs_in = False
        outputs_in = self.i_outputs >= 0 and i > self.i_outputs
        badge_from = max((c for c in self.collective_at if c < i), default=None)
        phase = self.scene.phases[i] if 0 <= i < len(self.scene.phases) else None
        computing = kind in ("compute", "vectorized", "loop")
        for place in self.lay.devices.values():
            items += self.device_box(place, filled=inputs_in, active=computing)
            if inputs_in:
                items += self.mini_fills(place, self.scene.inputs)
            if outputs_in:
                items += self.mini_fills(place, self.scene.outputs)
            if computing and place.label is not None and phase and phase.compute_label:
                items.append(Text(place.label, phase.compute_label, 0.72 * self.u, self.th.fg,
                                  "center", mono=True))
            elif place.label is not None and kind != "collective" and badge_from is None:
                items.append(Text(place.label, "→", 1.1 * self.u, self.th.muted, "center"))
            if computing and place.bar is not None:
                items.append(Box(place.bar, self.th.frame, None, alpha=0.45))
            if badge_from is not None and kind not in ("loop", "vectorized"):
                items += motion.badge(self, place, self.scene.phases[badge_from].collective)
        return items

    def device_box(self, place: DevicePlace, filled: bool = False,
                   active: bool = False) -> list[Item]:
        """A device's box, header and empty mini-maps."""
        th, u, d = self.th, self.u, place.slot
        stroke = th.accent if active else th.frame
        width = 2.0 if active else 1.0
        if place.detail == 0:
            fill = d.colour if filled else th.panel
            items: list[Item] = [Box(place.rect, fill, d.colour, 2.0)]
            size = min(place.rect[3] * 0.55, place.rect[2] / max(len(str(d.id)), 1) / 0.62)
            if size >= 7:
                colour = text_on(d.colour) if filled else th.fg
                items.append(Text(place.rect, str(d.id), size, colour, "center", bold=True))
            return items
        items = [Box(place.rect, th.panel, stroke, width, radius=0.2 * u)]
        items.append(Box(place.header, d.colour, None, radius=0.2 * u))
        hx, hy, hw, hh = place.header
        on = text_on(d.colour)
        kind = d.kind if d.kind != d.platform else d.platform
        if hw < hh * 1.5:  # a band on the left: id over kind
            items.append(Text((hx, hy, hw, hh * 0.6), str(d.id), min(1.15 * u, hh * 0.45), on,
                              "center", bold=True))
            if place.detail == 2:
                items.append(Text((hx, hy + hh * 0.52, hw, hh * 0.4), kind, 0.68 * u, on,
                                  "center"))
        else:
            size = min(0.85 * u, hh * 0.8)
            label = f"{d.id} · {kind}" if place.detail == 2 else str(d.id)
            items.append(Text((hx + 0.3 * u, hy, hw - 0.4 * u, hh), label, size, on, bold=True))
        for g in self.scene.inputs + self.scene.outputs:
            tile = place.minis.get(_key(g))
            if tile is None or d.id not in g.by_device:
                continue
            items.append(Box(tile, None, th.grid, 1.0, dashed=True))
            if place.detail == 2:
                items += self.tile_label(place, g, th.muted)
        return items

    def tile_label(self, place: DevicePlace, g: TileGrid, colour: str) -> list[Item]:
        """The index range a device holds, inside its tile: shortened or left out to fit."""
        tile = place.minis.get(_key(g))
        if tile is None or map_mode(g):
            return []
        full = slice_text(g, place.slot.id)
        short = full[len(g.name):] or g.name
        for text, scale in ((full, 0.72), (full, 0.62), (short, 0.62)):
            size = min(scale * self.u, tile[3] * 0.8)
            if size >= 8 and len(text) * size * MONO_W <= tile[2] - 0.2 * self.u:
                return [Text(tile, text, size, colour, "center", mono=True)]
        return []

    def mini_fills(self, place: DevicePlace, grids: list[TileGrid],
                   alpha: float = 1.0) -> list[Item]:
        """The device's own tiles, filled with its colour and labelled."""
        items: list[Item] = []
        colour = place.slot.colour
        d = place.slot.id
        for g in grids:
            tile = place.minis.get(_key(g))
            if tile is None:
                continue
            for b in g.by_device.get(d, []):
                items.append(Box(held_rect(tile, g, d, b), colour, self.th.fg, 1.0, alpha=alpha))
            if place.detail == 2 and alpha >= 0.5:
                items += self.tile_label(place, g, text_on(colour))
        return items

    def _mesh_decor(self) -> list[Item]:
        th, u, lay = self.th, self.u, self.lay
        items: list[Item] = []
        for rect, label in lay.frames:
            items.append(Box(rect, None, th.frame, 1.2, radius=0.35 * u, dashed=True))
            x, y, w, h = rect
            items.append(Text((x + 0.4 * u, y + h - 1.25 * u, w - 0.8 * u, 1.1 * u), label,
                              0.72 * u, th.muted))
        tick_px = min(0.72 * u, max(min((r[3] for r, _ in lay.row_ticks), default=u) * 0.8, 7))
        for rect, text in lay.row_ticks:
            items.append(Text(rect, text, tick_px, th.muted, "right"))
        col_px = 0.72 * u
        if lay.col_ticks:
            widest = max(text_width(t, col_px) for _, t in lay.col_ticks)
            col_px = min(col_px, max(lay.col_ticks[0][0][2] / max(widest / col_px, 1), 7))
        for rect, text in lay.col_ticks:
            items.append(Text(rect, text, col_px, th.muted, "center"))
        if lay.row_axis is not None:
            arrow = " ↓" if self.scene.rows > 1 else ""
            label = f"mesh axis {self.scene.row_label}{arrow}"
            if lay.col_axis is not None:
                label = f"{self.scene.row_label} ↓"
            items.append(Text(lay.row_axis, label, 0.78 * u, th.fg, bold=True))
        if lay.col_axis is not None:
            items.append(Text(lay.col_axis, f"{self.scene.col_label} →", 0.78 * u, th.fg,
                              "center", bold=True))
        return items

    # ------------------------------------------------------------------ #
    # header, column titles, legend, caption
    # ------------------------------------------------------------------ #

    def _header(self) -> list[Item]:
        th, u, lay = self.th, self.u, self.lay
        x, y, w, h = lay.title
        name = self.scene.variant
        name_w = text_width(name, 1.15 * u, bold=True) + 0.8 * u
        items: list[Item] = [Text((x, y, name_w, h), name, 1.15 * u, th.accent, bold=True),
                             Text((x + name_w, y, w - name_w, h), self.scene.call, 0.8 * u,
                                  th.fg, mono=True)]
        if lay.banner is not None:
            from jaxviz.scene.geometry import _banner_text

            items.append(Box(lay.banner, th.banner_bg, None, radius=lay.banner[3] / 2))
            items.append(Text(lay.banner, _banner_text(self.scene), 0.78 * u, th.banner_fg,
                              "center", bold=True))
        return items

    def _column_titles(self) -> list[Item]:
        th, u = self.th, self.u
        titles = {"inputs": "Inputs (host)", "devices": "Devices",
                  "outputs": "Output" if len(self.scene.outputs) == 1 else "Outputs"}
        items: list[Item] = []
        for key, text in titles.items():
            x, y, w, _ = self.lay.panels[key]
            items.append(Text((x, y, w, 1.1 * u), text.upper(), 0.7 * u, th.muted, "center",
                              bold=True))
        return items

    def _legend(self) -> list[Item]:
        th, u = self.th, self.u
        x, y, w, h = self.lay.legend
        items: list[Item] = []
        label = "colour = device"
        lw = text_width(label, 0.75 * u) + 0.6 * u
        items.append(Text((x, y, lw, h), label, 0.75 * u, th.muted, bold=True))
        cx = x + lw
        sw = 0.9 * u
        if self.n <= 16:
            for d in self.scene.devices:
                items.append(Box((cx, y + (h - sw) / 2, sw, sw), d.colour, th.frame, 1.0))
                tw = text_width(str(d.id), 0.75 * u) + 0.6 * u
                items.append(Text((cx + sw + 0.2 * u, y, tw, h), str(d.id), 0.75 * u, th.fg))
                cx += sw + tw + 0.3 * u
        else:
            step = max(1, self.scene.cols)
            firsts = self.scene.devices[::step][:24]
            for d in firsts:
                items.append(Box((cx, y + (h - sw) / 2, sw * 0.7, sw), d.colour, None))
                cx += sw * 0.7
            text = (f"  hue: {self.scene.row_label or 'row'} (down), lightness: "
                    f"{self.scene.col_label or 'column'} (across); ids in the boxes")
            tw = text_width(text, 0.72 * u)
            items.append(Text((cx, y, tw, h), text, 0.72 * u, th.muted))
            cx += tw
        extras = []
        if any(g.partially_replicated for g in self.scene.arrays):
            extras.append(("stripes", "striped = tile shared by several devices"))
        if any(g.replicated for g in self.scene.arrays) and self.n > 1 or self.i_split >= 0:
            extras.append((th.neutral, "grey = on the host, not split"))
        for swatch, text in extras:
            cx += 0.8 * u
            if cx + sw + text_width(text, 0.72 * u) > x + w:
                break  # no room left on the line: leave it out rather than clip it
            rect = (cx, y + (h - sw) / 2, sw, sw)
            if swatch == "stripes":
                cols = [d.colour for d in self.scene.devices[:2]] or [th.neutral]
                items.append(Stripes(rect, cols, th.frame))
            else:
                items.append(Box(rect, swatch, th.frame, 1.0))
            tw = text_width(text, 0.72 * u) + 0.4 * u
            items.append(Text((cx + sw + 0.25 * u, y, tw, h), text, 0.72 * u, th.muted))
            cx += sw + tw
        return items

    def _caption(self, i: int) -> list[Item]:
        th, u = self.th, self.u
        x, y, w, h = self.lay.caption
        items: list[Item] = [Box((x, y, w, h), th.caption_bg, None, radius=0.4 * u)]
        phases = self.scene.phases
        if not phases:
            return items
        phase = phases[min(max(i, 0), len(phases) - 1)]
        step = f"{i + 1}/{len(phases)}"
        bw = max(text_width(step, 0.95 * u) + 1.0 * u, 3.0 * u)
        items.append(Box((x + 0.5 * u, y + 0.45 * u, bw, 1.5 * u), th.accent, None,
                         radius=0.75 * u))
        items.append(Text((x + 0.5 * u, y + 0.45 * u, bw, 1.5 * u), step, 0.95 * u,
                          text_on(th.accent), "center", bold=True))
        tx = x + bw + 1.1 * u
        items.append(Text((tx, y + 0.35 * u, w - (tx - x) - 0.5 * u, 1.7 * u), phase.title,
                          1.15 * u, th.fg, bold=True))
        items.append(Text((tx, y + 2.05 * u, w - (tx - x) - 0.5 * u, h - 2.3 * u),
                          phase.caption, 0.92 * u, th.fg, wrap=True, valign="top"))
        return items

