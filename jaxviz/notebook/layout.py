"""``jaxviz.sharding(x)``: how a live array lies on its devices, drawn as SVG.

Runs in the kernel, on the array itself: the tiles are read from
``x.sharding.devices_indices_map(x.shape)`` (which device holds which index
range), so nothing is guessed and any rank works: the last two dimensions are
drawn as a grid, the dimensions before them as facets (one panel per distinct
range of the leading dimensions the shards cut). A tile held by one device is
filled with that device's colour; a tile held whole by several devices (a
replica) is pale, ringed and labelled with all its holders -- drawn once,
never as a split.

Inside ``shard_map`` the value is each device's own *block*: ``sharding(x)``
draws the mesh, one block per device, labelled with the block's shape; the
blocks of devices that differ along a mesh axis the value varies over (its
``vma``, JAX's varying-manual-axes type) are different pieces, those along the
other axes copies of one piece. (``jax.debug.visualize_array_sharding`` draws
such a block as replicated on every device.)
"""

from __future__ import annotations

import html
import itertools
from dataclasses import dataclass, field
from typing import Any

from jaxviz.views import palette

#: The drawing's largest panel side, in pixels.
PANEL = 280
#: Pale fill of a replicated tile.
REPLICA_FILL = palette.GUTTER_BACKGROUND


@dataclass
class Tile:
    """One distinct index range of the array and the devices that hold it whole.

    Attributes:
        index: ``(start, stop)`` per dimension.
        devices: the ids of the devices holding it, in the sharding's order.
    """

    index: tuple[tuple[int, int], ...]
    devices: list[int]


@dataclass
class Layout:
    """The drawing of one array's sharding (displayed inline in Jupyter as SVG).

    Attributes:
        shape, dtype: the array's.
        tiles: every distinct piece and its holders (from ``devices_indices_map``).
        type_text: ``jax.typeof(x)`` (``f32[4@X,8]`` under an explicit mesh).
        sharding_text: the sharding's repr.
        mesh: axis name -> size of the sharding's mesh, if it has one.
        colours: device id -> colour.
    """

    shape: tuple[int, ...]
    dtype: str
    tiles: list[Tile]
    type_text: str = ""
    sharding_text: str = ""
    mesh: dict[str, int] = field(default_factory=dict)
    colours: dict[int, str] = field(default_factory=dict)
    device_count: int = 0

    def caption(self) -> str:
        replicas = [t for t in self.tiles if len(t.devices) > 1]
        split = len(self.tiles)
        words = f"{split} piece{'s' if split != 1 else ''} on {self.device_count} " \
                f"device{'s' if self.device_count != 1 else ''}"
        if replicas:
            most = max(len(t.devices) for t in replicas)
            words += f"; each piece held whole by {most} devices" if \
                all(len(t.devices) == most for t in self.tiles) else "; some pieces replicated"
        return f"{self.type_text or self.dtype + str(list(self.shape))}: {words}"

    def _repr_svg_(self) -> str:
        return draw_layout(self)

    def _repr_html_(self) -> str:
        return (f"<div class='jaxviz-sharding'>{draw_layout(self)}<div style='font-size:12px'>"
                f"{html.escape(self.sharding_text)}</div></div>")


def _ranges(index: Any, shape: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    out = []
    for dim, part in zip(shape, index):
        start, stop, _ = part.indices(dim)
        out.append((start, stop))
    return tuple(out)


def layout_of(x: Any) -> Layout:
    """The :class:`Layout` of a live ``jax.Array``."""
    import jax

    shape = tuple(int(d) for d in x.shape)
    sharding = x.sharding
    index_map = sharding.devices_indices_map(shape)
    tiles: dict[tuple[tuple[int, int], ...], Tile] = {}
    for device, index in index_map.items():
        key = _ranges(index, shape)
        tiles.setdefault(key, Tile(key, [])).devices.append(int(device.id))
    mesh_obj = getattr(sharding, "mesh", None)
    mesh = {str(k): int(v) for k, v in mesh_obj.shape.items()} if mesh_obj is not None \
        and hasattr(mesh_obj, "shape") else {}
    ids = [int(d.id) for d in mesh_obj.devices.flat] if mesh_obj is not None and \
        hasattr(mesh_obj, "devices") else sorted(int(d.id) for d in index_map)
    colours = palette.device_colour_map(list(mesh.values()), ids)
    try:
        type_text = str(jax.typeof(x))
    except Exception:  # noqa: BLE001 - older types without typeof
        type_text = ""
    return Layout(shape=shape, dtype=str(x.dtype), tiles=sorted(tiles.values(),
                                                                key=lambda t: t.index),
                  type_text=type_text, sharding_text=repr(sharding), mesh=mesh,
                  colours=colours, device_count=len(index_map))


def _facets(layout: Layout) -> list[tuple[tuple[tuple[int, int], ...], list[Tile]]]:
    """Panels over the leading dimensions (all but the last two): one per combination of
    the ranges the tiles cut them into, with the tiles covering it."""
    lead = max(len(layout.shape) - 2, 0)
    if lead == 0:
        return [((), layout.tiles)]
    cuts = []
    for d in range(lead):
        points = sorted({p for t in layout.tiles for p in t.index[d]})
        cuts.append(list(zip(points, points[1:])))
    panels = []
    for combo in itertools.product(*cuts):
        inside = [t for t in layout.tiles
                  if all(t.index[d][0] <= combo[d][0] and combo[d][1] <= t.index[d][1]
                         for d in range(lead))]
        panels.append((combo, inside))
    return panels


def _label(devices: list[int], total: int) -> str:
    if len(devices) == total and total > 2:
        return f"all {total}"
    return ",".join(str(d) for d in devices)


def draw_layout(layout: Layout) -> str:
    """The layout as one plain SVG 1.1 drawing (text as text)."""
    shape = layout.shape
    rows, cols = (1, 1) if not shape else ((1, shape[0]) if len(shape) == 1 else shape[-2:])
    scale = PANEL / max(rows, cols, 1)
    pw, ph = max(cols * scale, 40.0), max(rows * scale, 28.0)
    panels = _facets(layout)
    per_row = max(1, min(len(panels), int(900 // (pw + 24))))
    title_h, facet_h, gap = 26, 18 if len(shape) > 2 else 0, 24
    n_rows = (len(panels) + per_row - 1) // per_row
    legend_h = 26
    width = int(max(per_row * (pw + gap) + gap, 8.2 * len(layout.caption()) + 2 * gap,
                    6.8 * 80 + 2 * gap))
    height = int(title_h + n_rows * (ph + facet_h + gap) + legend_h + 8)
    out = [f"<svg xmlns='http://www.w3.org/2000/svg' version='1.1' width='{width}' "
           f"height='{height}' viewBox='0 0 {width} {height}' font-family='DejaVu Sans, "
           f"Helvetica, Arial, sans-serif'>",
           f"<rect x='0' y='0' width='{width}' height='{height}' fill='{palette.WHITE}'/>",
           f"<text x='{gap}' y='18' font-size='14' font-weight='bold' fill='{palette.INK}'>"
           f"{html.escape(layout.caption())}</text>"]
    for n, (combo, tiles) in enumerate(panels):
        ox = gap + (n % per_row) * (pw + gap)
        oy = title_h + (n // per_row) * (ph + facet_h + gap) + facet_h
        if combo:
            where = ", ".join(f"{a}:{b}" if b - a > 1 else str(a) for a, b in combo)
            out.append(f"<text x='{ox:.1f}' y='{oy - 5:.1f}' font-size='12' "
                       f"fill='{palette.MUTED_INK}'>"
                       f"x[{where}, :, :]</text>")
        out.append(f"<g class='facet' data-facet='{html.escape(repr(combo))}'>")
        for tile in tiles:
            out.append(_tile_svg(layout, tile, ox, oy, scale, pw, ph))
        out.append("</g>")
    out.append(_legend(layout, gap, height - 12))
    out.append("</svg>")
    return "\n".join(out)


def _tile_svg(layout: Layout, tile: Tile, ox: float, oy: float, scale: float,
              pw: float, ph: float) -> str:
    shape = layout.shape
    if not shape:
        (r0, r1), (c0, c1) = (0, 1), (0, 1)
    elif len(shape) == 1:
        (r0, r1), (c0, c1) = (0, 1), tile.index[0]
    else:
        (r0, r1), (c0, c1) = tile.index[-2], tile.index[-1]
    rows = 1 if len(shape) < 2 else shape[-2]
    cols = 1 if not shape else shape[-1]
    sx, sy = pw / max(cols, 1), ph / max(rows, 1)
    x, y, w, h = ox + c0 * sx, oy + r0 * sy, (c1 - c0) * sx, (r1 - r0) * sy
    single = len(tile.devices) == 1
    fill = layout.colours.get(tile.devices[0], palette.DISABLED_INK) if single else REPLICA_FILL
    ink = palette.text_on(fill)
    parts = [f"<g class='tile' data-devices='{','.join(map(str, tile.devices))}' "
             f"data-index='{html.escape(repr(tile.index))}'>",
             f"<rect x='{x + 1:.1f}' y='{y + 1:.1f}' width='{max(w - 2, 1):.1f}' "
             f"height='{max(h - 2, 1):.1f}' fill='{fill}' stroke='{palette.WHITE}' "
             f"stroke-width='1'/>"]
    if not single:  # ringed by its holders' colours
        ring = min(3.0, max(w, h) / 20)
        for k, dev in enumerate(tile.devices[:8]):
            inset = 1 + ring * (k + 0.5)
            if 2 * inset >= min(w, h) - 4:
                break
            parts.append(f"<rect x='{x + inset:.1f}' y='{y + inset:.1f}' "
                         f"width='{w - 2 * inset:.1f}' height='{h - 2 * inset:.1f}' fill='none' "
                         f"stroke='{layout.colours.get(dev, palette.DISABLED_INK)}' "
                         f"stroke-width='{ring:.1f}'/>")
    label = _label(tile.devices, layout.device_count)
    size = max(8.0, min(14.0, h * 0.35, w / max(len(label) * 0.62, 1)))
    parts.append(f"<text x='{x + w / 2:.1f}' y='{y + h / 2 + size * 0.35:.1f}' "
                 f"font-size='{size:.1f}' text-anchor='middle' fill='{ink}'>"
                 f"{html.escape(label)}</text>")
    where = "[" + ", ".join(f"{a}:{b}" for a, b in tile.index) + "]"
    if h >= 3.2 * size and w >= 6.5 * len(where):
        parts.append(f"<text x='{x + w / 2:.1f}' y='{y + h / 2 + size * 1.6:.1f}' "
                     f"font-size='11' text-anchor='middle' fill='{ink}'>"
                     f"{html.escape(where)}</text>")
    parts.append("</g>")
    return "".join(parts)


def _legend(layout: Layout, x: float, y: float) -> str:
    mesh = " x ".join(f"{k}={v}" for k, v in layout.mesh.items())
    words = "colour = device; pale, ringed: one piece held whole by each device named"
    if mesh:
        words = f"mesh {mesh}; " + words
    return (f"<text x='{x}' y='{y}' font-size='12' fill='{palette.MUTED_INK}'>{html.escape(words)}"
            f"</text>")


@dataclass
class Blocks:
    """Inside ``shard_map``: each device's own block of a mesh (``vma``: the mesh axes the
    value varies over; along the others the blocks are copies)."""

    shape: tuple[int, ...]
    dtype: str
    mesh: dict[str, int]
    vma: tuple[str, ...]
    type_text: str = ""

    def pieces(self) -> dict[tuple[int, ...], int]:
        """Mesh coordinates -> which distinct piece that device's block is."""
        names = list(self.mesh)
        out: dict[tuple[int, ...], int] = {}
        seen: dict[tuple[int, ...], int] = {}
        for coords in itertools.product(*(range(s) for s in self.mesh.values())):
            key = tuple(c for c, n in zip(coords, names) if n in self.vma)
            out[coords] = seen.setdefault(key, len(seen))
        return out

    def _repr_svg_(self) -> str:
        pieces = self.pieces()
        count = len(set(pieces.values()))
        sizes = list(self.mesh.values())
        rows = sizes[0] if sizes else 1
        cols = max(1, len(pieces) // max(rows, 1))
        cw, ch = 110, 54
        colours = palette.device_colours(rows, cols, max(count, 1))
        block = f"{self.dtype}[{','.join(map(str, self.shape))}]"
        title = (f"inside shard_map: every device holds its own block {block}; "
                 f"{count} different piece{'s' if count != 1 else ''}"
                 + (f" (varies over {', '.join(self.vma)})" if self.vma else
                    " (the same on every device)"))
        width, height = cols * (cw + 8) + 24, rows * (ch + 8) + 64
        width = max(width, int(7.8 * (len(title) + 4)))
        out = [f"<svg xmlns='http://www.w3.org/2000/svg' version='1.1' width='{width}' "
               f"height='{height}' font-family='DejaVu Sans, Helvetica, Arial, sans-serif'>",
               f"<rect width='{width}' height='{height}' fill='{palette.WHITE}'/>",
               f"<text x='12' y='18' font-size='13' font-weight='bold'>{html.escape(title)}"
               f"</text>"]
        for n, (coords, piece) in enumerate(pieces.items()):
            x, y = 12 + (n % cols) * (cw + 8), 30 + (n // cols) * (ch + 8)
            fill = colours[piece % len(colours)]
            ink = palette.text_on(fill)
            out.append(f"<g class='block' data-coords='{coords}' data-piece='{piece}'>"
                       f"<rect x='{x}' y='{y}' width='{cw}' height='{ch}' fill='{fill}'/>"
                       f"<text x='{x + cw / 2}' y='{y + 22}' font-size='12' "
                       f"text-anchor='middle' fill='{ink}'>device {coords}</text>"
                       f"<text x='{x + cw / 2}' y='{y + 40}' font-size='12' "
                       f"text-anchor='middle' fill='{ink}'>piece {piece}</text></g>")
        names = " x ".join(f"{k}={v}" for k, v in self.mesh.items())
        out.append(f"<text x='12' y='{height - 10}' font-size='12' "
                   f"fill='{palette.MUTED_INK}'>mesh {names}"
                   f"; device = its mesh coordinates; one colour = one piece</text></svg>")
        return "".join(out)


def _typed(dtype: str, shape: list[int], sharding: list[str]) -> str:
    """``f32[4@x,8@y]``: a type with the sharding an explicit mesh gives it."""
    dims = (str(d) + (f"@{s}" if s else "") for d, s in zip(shape, sharding))
    return f"{dtype}[{','.join(dims)}]"


def layout_in_engine(x: Any, mesh: Any, spec: Any, devices: int, axis_types: Any = None,
                     timeout: float = 120.0) -> Layout:
    """The layout ``jax.device_put(x, NamedSharding(mesh, spec))`` would have, read by the
    engine (with ``devices`` devices) from ``devices_indices_map`` of the real placed array."""
    from jaxviz.model import Target, TraceRequest
    from jaxviz.notebook.requests import settings_text, spec_text
    from jaxviz.notebook.shipping import abstract_type, is_array, is_shape_dtype
    from jaxviz.notebook.view import JaxvizError

    if not (is_shape_dtype(x) or is_array(x)):
        raise TypeError(f"jaxviz.sharding with mesh= and spec= takes an array or a "
                        f"jax.ShapeDtypeStruct, not {type(x).__name__}")
    from jaxviz.notebook.view import check_numbers

    check_numbers(devices, timeout)
    shape = tuple(int(d) for d in x.shape)
    settings = settings_text({"mesh": mesh, "axis_types": axis_types})
    source = "def array(x):\n    return x\n"
    request = TraceRequest(target=Target(source, "<jaxviz.sharding>", "array"),
                           args=abstract_type(shape, x.dtype), variants=["sharded"],
                           specs=spec_text(spec), want=["layout"], **settings)
    from jaxviz.cli.runner import run_trace
    from jaxviz.model.errors import format_error

    result = run_trace(request, devices, timeout)
    error = result.error or (result.variants[0].error if result.variants else None)
    if error is not None:
        raise JaxvizError(format_error(error, False))
    vr = result.variants[0]
    placed = next(a for a in vr.arrays if a.role == "input")
    tiles: dict[tuple[tuple[int, int], ...], Tile] = {}
    for shard in placed.shards:
        key = tuple((int(a), int(b)) for a, b in shard.index)
        tiles.setdefault(key, Tile(key, [])).devices.append(int(shard.device))
    mesh_info = vr.mesh
    names = dict(zip(mesh_info.axis_names, mesh_info.axis_sizes)) if mesh_info else {}
    ids = mesh_info.device_ids if mesh_info else sorted({s.device for s in placed.shards})
    dtype = str(getattr(x.dtype, "name", x.dtype))
    type_text = next((_typed(v.dtype, v.shape, v.sharding) for v in vr.invars if v.sharding),
                     "")
    return Layout(shape=shape, dtype=dtype, tiles=sorted(tiles.values(), key=lambda t: t.index),
                  type_text=type_text or abstract_type(shape, x.dtype),
                  sharding_text=f"{placed.sharding} (laid out by jaxviz's engine on "
                                f"{len(result.devices)} devices)",
                  mesh=names, colours=palette.device_colour_map(list(names.values()), ids),
                  device_count=len(placed.shards))


def sharding(x: Any, mesh: Any = None, spec: Any = None, devices: int = 8,
             axis_types: Any = None) -> Layout | Blocks:
    """How ``x`` lies on its devices, as a drawing Jupyter shows inline.

    Args:
        x: a live ``jax.Array`` (any rank, any sharding, explicit-sharding types
            included; drawn from the kernel's own array), or a value inside
            ``shard_map`` (then each device's block). With ``mesh`` and ``spec``:
            an array or ``jax.ShapeDtypeStruct`` to place as
            ``NamedSharding(mesh, spec)`` on ``devices`` devices in jaxviz's engine
            (for a kernel whose JAX has fewer devices than the mesh).
        mesh: ``"a=2,b=2,c=2"``, ``{"a": 2, ...}`` or a ``jax.sharding.Mesh``.
        spec: a ``PartitionSpec`` or its text (``"P('a', 'b', 'c')"``).
        devices: the engine's device count (with ``mesh``).
        axis_types: ``explicit``/``auto`` (with ``mesh``).

    Returns:
        a :class:`Layout` (its ``tiles`` say which devices hold each index range) or,
        inside ``shard_map``, :class:`Blocks`.

    Raises:
        TypeError: ``x`` is not a JAX array.
    """
    if mesh is not None or spec is not None:
        if mesh is None or spec is None:
            raise TypeError("give both mesh= and spec= (or neither, for a live jax.Array)")
        return layout_in_engine(x, mesh, spec, devices, axis_types)
    import jax

    if isinstance(x, jax.core.Tracer):
        mesh = jax.sharding.get_abstract_mesh()
        from jaxviz.core.jax_internals import varying_axes

        aval = jax.typeof(x)
        vma = tuple(sorted(varying_axes(x)))
        if mesh.empty or not getattr(mesh, "manual_axes", ()):
            raise TypeError("jaxviz.sharding of a traced value draws a block inside "
                            "shard_map; elsewhere pass a concrete jax.Array (outside jit)")
        return Blocks(shape=tuple(aval.shape), dtype=str(aval.dtype),
                      mesh={str(k): int(v) for k, v in mesh.shape.items()}, vma=vma,
                      type_text=str(aval))
    if not isinstance(x, jax.Array):
        raise TypeError(f"jaxviz.sharding draws a jax.Array, not {type(x).__name__} "
                        f"(jax.device_put(x, sharding) makes one)")
    return layout_of(x)
