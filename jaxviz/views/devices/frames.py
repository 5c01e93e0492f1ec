"""The display list of one frame: a static layer per phase plus moving parts (no Qt).

:class:`FrameBuilder` draws a :class:`~jaxviz.views.devices.scene.Scene`
placed by a :class:`~jaxviz.views.devices.geometry.CanvasGeometry` in a theme.
``static(i)`` is everything that does not move during phase ``i`` (the view
caches it as a pixmap); ``dynamic(i, t)`` is what moves at time ``t`` (0..1)
of that phase, computed by :mod:`~jaxviz.views.devices.motion`.

A tile has one of three looks, and only these: grey while the array is on
the host before the call; one device's colour when that device alone holds it
(a piece of a split, drawn with gaps between the pieces); a pale fill ringed
by its holders' colours and labelled with them (``0,1``, ``replicated on all
8``) when several devices each hold it whole.
"""

from __future__ import annotations

from functools import lru_cache

from jaxviz.model.storyboard import Step
from jaxviz.views.devices import decor, motion, words
from jaxviz.views.devices.boxes import DevicePlace, held_rect, map_mode, slice_text
from jaxviz.views.devices.geometry import ArrayPlace, CanvasGeometry
from jaxviz.views.devices.items import Box, Grid, Item, Ring, Text, at_least
from jaxviz.views.devices.measure import MONO_W, Rect, fit_size, inset, text_width
from jaxviz.views.devices.scene import Scene
from jaxviz.views.devices.tiles import Block, TileGrid, holders_text
from jaxviz.views.incremental import Steps, run_to_end
from jaxviz.views.palette import DeviceViewColours, text_on
from jaxviz.views.palette import mix as _mix

#: Most holders' colours around one shared tile (its label names them all).
MAX_RING = 8


@lru_cache(maxsize=4096)
def mix(a: str, b: str, t: float) -> str:
    """:func:`jaxviz.views.palette.mix`, remembered: every tile of a frame of the split
    blends the same few colours (a train step's hundred arrays, each frame)."""
    return _mix(a, b, t)


class FrameBuilder:
    """Builds the items of any frame of one scene, layout and theme."""

    def __init__(self, scene: Scene, layout: CanvasGeometry, theme: DeviceViewColours):
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
        #: a first phase "placed": the inputs are on the devices before the call
        self.placed = first("placed") == 0
        #: inputs already laid out on the devices as the program wants (never on the host)
        self.placed_keys = {g.key for g in words.placed_grids(
            layout.shown_inputs, scene.story.claims if scene.story is not None else None)}
        claims = scene.story.claims if scene.story is not None else None
        #: inputs that start whole on one device (not the host): that device's colour
        self.on_device = {g.key: d for g in layout.shown_inputs
                          if (d := words.starts_on_device(g, claims)) is not None}
        self.i_outputs = last("compute", "vectorized")
        self.i_assemble = first("assemble", "result")
        self.collective_at = [k for k, kind in enumerate(kinds) if kind == "collective"]
        #: What the frames of a phase share, worked out by the first (see motion).
        self.memo: dict[str, object] = {}

    # ------------------------------------------------------------------ #
    # public
    # ------------------------------------------------------------------ #

    def frame(self, i: int, t: float) -> list[Item]:
        """Every item of phase ``i`` at time ``t``."""
        return self.static(i) + self.dynamic(i, t)

    def static(self, i: int) -> list[Item]:
        """What does not move during phase ``i`` (no text smaller than the layout's
        ``min_text``)."""
        return run_to_end(self.static_steps(i))

    def static_steps(self, i: int) -> Steps[list[Item]]:
        """:meth:`static` in steps (one per part and per device; see
        :mod:`jaxviz.views.incremental`): the device view prepares the next phase's layer
        while this one plays."""
        items = yield from self._static_steps(i)
        return at_least(items, self.lay.min_text)

    def _static_steps(self, i: int) -> Steps[list[Item]]:
        items: list[Item] = [Box((0, 0, self.lay.width, self.lay.height), self.th.bg)]
        items += decor.header(self.scene, self.lay, self.th)
        if self.scene.error:
            items.append(Text(self.lay.panels["devices"], self.scene.error, self.u,
                              self.th.fg, "center", wrap=True))
            return items
        items += decor.column_titles(self.scene, self.lay, self.th)
        kind = self.kinds[i] if 0 <= i < len(self.kinds) else "host"
        if kind != "split" and not self.placed:  # (the split animates the host tiles)
            split = 1.0 if self.scene.parallel and i > self.i_split >= 0 else 0.0
            fade = 1.0 if self.scene.parallel and i > self.i_transfer >= 0 else 0.0
            items += self.host_inputs(split, fade)
            yield
        elif kind == "split":  # the names and types stay put while the tiles move apart
            items += self.host_labels()
            yield
        items += decor.mesh_labels(self.scene, self.lay, self.th)
        items += yield from self._devices_steps(i, kind)
        items += self._host_outputs(i)
        items += decor.legend(self.scene, self.lay, self.th, kind)
        yield
        items += decor.caption(self.scene, self.lay, self.th, i)
        if kind == "collective":
            items += motion.links(self, self.scene.phases[i].step)
        return items

    def dynamic(self, i: int, t: float) -> list[Item]:
        """What moves at time ``t`` of phase ``i`` (no text smaller than ``min_text``)."""
        return at_least(self._dynamic(i, t), self.lay.min_text)

    def _dynamic(self, i: int, t: float) -> list[Item]:
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

    def host_inputs(self, split: float, fade: float, labels: bool = True) -> list[Item]:
        """The input arrays on the host, ``split`` (0..1) apart and ``fade`` (0..1) sent
        (``labels``: with their names and types; the split phase draws those once, in
        its static layer, not in each of its frames: a train step has a hundred arrays)."""
        items: list[Item] = []
        for place in self.lay.inputs:
            if place.grid.key in self.placed_keys:
                continue  # already on its devices when the call starts
            if labels:
                items += self._array_labels(place)
            items += self.tiles(place, split, 1.0 - 0.4 * fade)
        return items

    def host_labels(self) -> list[Item]:
        """The names and types of the input arrays on the host (:meth:`host_inputs`'s)."""
        return [item for place in self.lay.inputs if place.grid.key not in self.placed_keys
                for item in self._array_labels(place)]

    def tiles(self, place: ArrayPlace, split: float, alpha: float = 1.0) -> list[Item]:
        """An array's tiles: grey and whole at ``split`` 0, in their holders' look at 1."""
        g, th = place.grid, self.th
        items: list[Item] = []
        if split <= 0.0:
            on = self.on_device.get(g.key)
            if on is not None and on in self.colour:  # a jax.Array whole on a device of its
                items.append(Box(place.rect, self.colour[on], th.frame, 1.0,  # program's
                                 alpha=alpha, tag=f"on device {on} {g.key}"))
            elif on is not None:  # on a device the program does not run on: no colour of
                items.append(Box(place.rect, th.neutral, th.frame, 1.5, alpha=alpha,  # its
                                 dashed=True, tag=f"on device {on} {g.key}"))
                x, y, w, h = place.rect
                label = f"on device {on}"
                size = fit_size(label, 0.8 * self.u, w * 0.9, bold=True, floor=0.5)
                if size:
                    items.append(Text((x, y + (h - 1.3 * size) / 2, w, 1.3 * size), label, size,
                                      th.fg, align="center", bold=True))
            else:
                items.append(Box(place.rect, th.neutral, th.frame, 1.0, alpha=alpha,
                                 tag=f"host {g.key}"))
            items += self._cells(place.rect, g)
            if len(g.blocks) > 1 and not self.scene.parallel:  # vmap: examples
                items += [Box(r, None, th.grid, 1.0, alpha=0.8 * alpha) for r in place.blocks]
            return items
        gap = self.tile_gap(place) * split
        for k, (block, rect) in enumerate(zip(g.blocks, place.blocks)):
            items += self.block_fill(inset(rect, gap / 2), block, g, split, alpha,
                                     tag=f"tile {g.key} {k}")
        return items

    def block_fill(self, rect: Rect, block: Block, g: TileGrid, strength: float = 1.0,
                   alpha: float = 1.0, tag: str = "") -> list[Item]:
        """One tile in its holders' look: their one colour, or a ring of theirs if shared."""
        th = self.th
        holders = block.holders
        if len(holders) == 1 and not g.equal:
            colour = self.colour.get(holders[0], th.neutral)
            return [Box(rect, mix(th.neutral, colour, strength), th.frame, 1.0, alpha=alpha,
                        tag=tag)]
        fill = mix(th.neutral, th.shared, strength)
        items: list[Item] = [Box(rect, fill, th.frame, 1.0, alpha=alpha, tag=tag)]
        band = max(min(0.28 * self.u, min(rect[2], rect[3]) * 0.22), 1.5)
        colours = [mix(th.neutral, self.colour.get(d, th.neutral), strength)
                   for d in holders[:MAX_RING]]
        # Each holder's colour two or three times around the edge, in dashes not too short.
        dash = max(0.6 * self.u, 3 * band, 2 * (rect[2] + rect[3]) / (3 * len(colours)))
        items.append(Ring(rect, colours, band, dash, alpha, tag=tag))
        if strength >= 0.5:
            inner = inset(rect, band)
            items += self.holders_label(inner, g, holders, th.fg)
        return items

    def holders_label(self, rect: Rect, g: TileGrid, holders: list[int],
                      colour: str) -> list[Item]:
        """``0,1`` or ``replicated on all 8`` inside a shared tile, if it fits."""
        every = g.replicated and len(holders) >= self.n
        if every:
            layouts = [[f"replicated on all {self.n}"], ["replicated", f"on all {self.n}"],
                       [f"all {self.n}"]]
        else:
            layouts = [[holders_text(holders)], [holders_text(holders, 3)]]
            if len(holders) <= 8:
                layouts.append([str(d) for d in holders])  # one id per line, in a tall tile
        x, y, w, h = rect
        for lines in layouts:
            px = min(0.72 * self.u, h / len(lines) * 0.85)
            size = min(fit_size(text, px, w - 2, bold=True, floor=0.8) for text in lines)
            if size < 8:
                continue
            line_h = size * 1.25
            top = y + (h - line_h * len(lines)) / 2
            return [Text((x, top + k * line_h, w, line_h), text, size, colour, "center",
                         bold=True) for k, text in enumerate(lines)]
        return []

    def tile_gap(self, place: ArrayPlace) -> float:
        smallest = min((min(r[2], r[3]) for r in place.blocks), default=0.0)
        return min(0.3 * self.u, smallest * 0.25)

    def _cells(self, rect: Rect, g: TileGrid) -> list[Item]:
        rows, cols = g.cells
        if g.members or rows * cols <= 1 or rows > 40 or cols > 40:
            return []
        if rect[3] / rows < 5 or rect[2] / max(cols, 1) < 5:
            return []
        return [Grid(rect, rows, cols, self.th.grid, 0.3)]

    def _array_labels(self, place: ArrayPlace) -> list[Item]:
        g, u, th = place.grid, self.u, self.th
        items: list[Item] = []
        x, y, w, h = place.label
        name = ("▸ " if g.members else "") + g.name
        px = min(0.9 * u, h * 0.85)
        size = fit_size(name, px, w * 0.6, bold=True, floor=0.7) or 0.63 * px
        name_w = min(text_width(name, size, bold=True) + 0.4 * u, w * 0.6)
        if text_width(name, size, bold=True) <= name_w:
            items.append(Text((x, y, name_w, h), name, size, th.fg, bold=True))
        else:
            name_w = 0.0
        items += decor.fitted((x + name_w, y, w - name_w, h), g.type_str, min(0.8 * u, px),
                              th.fg, mono=True, floor=0.7)
        if place.note is not None:
            items += decor.fitted(place.note, self._note(g), 0.72 * u, th.muted, floor=0.7)
        return items

    def _note(self, g: TileGrid) -> str:
        """The line under an array's name: its layout in the legend's words."""
        on = words.moved_from(g, self.scene.story.claims if self.scene.story else None)
        if on:
            return on
        if self.scene.variant == "vmap":
            if self.scene.batch_axis(g) is None:
                return "shared by every example"
            return f"{len(g.blocks)} examples along axis {self.scene.batch_axis(g)}"
        if g.members:
            kinds = sorted({m.type_str for m in g.members})
            return ", ".join(kinds) if len(kinds) <= 2 else g.describe()
        if len(self.scene.devices) == 1:
            return "whole, on one device"
        note = g.spec if g.spec.startswith("P(") else ""
        layout = g.describe()
        if g.replicated or len(g.blocks) == 1:
            return f"{note}  {layout}".strip()
        extra = g.summary_note()
        return "  ".join(t for t in (note, f"{len(g.blocks)} tiles", extra) if t)

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
        g = place.grid
        for k, (block, rect) in enumerate(zip(g.blocks, place.blocks)):
            items += self.block_fill(inset(rect, gap / 2), block, g, tag=f"tile {g.key} {k}")
        return items

    # ------------------------------------------------------------------ #
    # devices
    # ------------------------------------------------------------------ #

    def _devices_steps(self, i: int, kind: str) -> Steps[list[Item]]:
        items: list[Item] = []
        inputs_in = self.placed or (self.i_transfer >= 0 and i > self.i_transfer)
        if kind in ("loop", "no_loop", "vectorized"):
            inputs_in = False
        outputs_in = self.i_outputs >= 0 and i > self.i_outputs
        badge_from = max((c for c in self.collective_at if c < i), default=None)
        phase = self.scene.phases[i] if 0 <= i < len(self.scene.phases) else None
        computing = kind in ("compute", "vectorized", "loop")
        filling = outputs_in or i == self.i_outputs  # (the outputs fill during that phase)
        there = [] if inputs_in or kind in ("loop", "no_loop", "vectorized") else [
            g for g in self.lay.shown_inputs if g.key in self.placed_keys]
        filled = ([g.key for g in self.lay.shown_inputs] if inputs_in else
                  [g.key for g in there]) + (
            [g.key for g in self.lay.shown_outputs] if filling else [])
        for place in self.lay.devices.values():
            items += self.device_box(place, filled=inputs_in or bool(there), active=computing,
                                     labelled=frozenset(filled))
            if inputs_in:
                items += self.mini_fills(place, self.lay.shown_inputs)
            elif there:
                items += self.mini_fills(place, there)
            if outputs_in:
                items += self.mini_fills(place, self.lay.shown_outputs)
            label = phase.compute_label if computing and phase is not None else ""
            labelled = bool(label) and place.label is not None
            if labelled and place.label is not None:
                items += decor.fitted(place.label, label, 0.72 * self.u, self.th.fg, "center",
                                      mono=True, floor=0.7)
            elif place.label is not None and kind != "collective" and badge_from is None:
                items.append(Text(place.label, "→", 1.1 * self.u, self.th.muted, "center"))
            if computing and place.bar is not None:
                items.append(Box(place.bar, self.th.frame, None, alpha=0.45))
            # What a device holds after the last collective, until a label takes its place
            # or the next collective draws its own.
            if badge_from is not None and kind in ("compute", "assemble") and not labelled:
                items += motion.badge(self, place, self._step(badge_from))
            yield
        return items

    def _step(self, i: int) -> Step | None:
        return self.scene.phases[i].step if 0 <= i < len(self.scene.phases) else None

    def device_box(self, place: DevicePlace, filled: bool = False, active: bool = False,
                   labelled: frozenset[str] = frozenset()) -> list[Item]:
        """A device's box, header and empty mini-maps (``labelled``: tiles filled later)."""
        th, u, d = self.th, self.u, place.slot
        stroke = th.accent if active else th.frame
        width = 2.0 if active else 1.0
        if place.detail == 0:
            fill = d.colour if filled else th.panel
            items: list[Item] = [Box(place.rect, fill, d.colour, 2.0, tag=f"device {d.id}")]
            size = min(place.rect[3] * 0.6, fit_size(str(d.id), u, place.rect[2] - 2,
                                                      bold=True, floor=0.0))
            if size >= 7:
                colour = text_on(d.colour) if filled else th.fg
                items.append(Text(place.rect, str(d.id), size, colour, "center", bold=True))
            return items
        items = [Box(place.rect, th.panel, stroke, width, radius=0.2 * u, tag=f"device {d.id}")]
        items.append(Box(place.header, d.colour, None, radius=0.2 * u))
        hx, hy, hw, hh = place.header
        on = text_on(d.colour)
        kind = d.kind if d.kind != d.platform else d.platform
        if hw < hh * 1.5:  # a band on the left: id over kind
            two = place.detail == 2 and hh >= 2.2 * u
            id_h = hh * 0.55 if two else hh
            items += decor.fitted((hx, hy + (hh - id_h) / 2 if not two else hy + hh * 0.05,
                                   hw, id_h), str(d.id), min(1.15 * u, id_h / 1.3), on,
                                  "center", True, floor=0.5)
            if two:
                items += decor.fitted((hx, hy + hh * 0.58, hw, hh * 0.37), kind,
                                      min(0.68 * u, hh * 0.37 / 1.3), on, "center", floor=0.6)
        else:
            size = min(0.85 * u, hh * 0.85)
            label = f"{d.id} · {kind}" if place.detail == 2 else str(d.id)
            rect = (hx + 0.2 * u, hy, hw - 0.3 * u, hh)
            items += (decor.fitted(rect, label, size, on, bold=True, floor=0.8)
                      or decor.fitted(rect, str(d.id), size, on, bold=True, floor=0.5))
        for g in self.lay.shown_inputs + self.lay.shown_outputs:
            tile = place.minis.get(g.key)
            if tile is None or d.id not in g.by_device:
                continue
            items.append(Box(tile, None, th.grid, 1.0, dashed=True))
            if place.detail == 2 and g.key not in labelled:
                items += self.tile_label(place, g, th.muted)
        return items

    def tile_label(self, place: DevicePlace, g: TileGrid, colour: str) -> list[Item]:
        """The index range a device holds, inside its tile: shortened or left out to fit."""
        tile = place.minis.get(g.key)
        if tile is None or (map_mode(g) and not g.members):
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
            tile = place.minis.get(g.key)
            if tile is None:
                continue
            for b in g.by_device.get(d, []):
                items.append(Box(held_rect(tile, g, d, b), colour, self.th.fg, 1.0, alpha=alpha,
                                 tag=f"held {g.key} {d}"))
            if place.detail == 2 and alpha >= 0.5:
                items += self.tile_label(place, g, text_on(colour))
        return items
