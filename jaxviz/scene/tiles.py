"""Arrays as grids of tiles, read off the real layout (no Qt).

A *block* is one distinct index range that some devices hold (from
``ArrayLayout.shards``, which core read from ``devices_indices_map``); the
devices holding the same range share the tile. An array is drawn as a 2-D
grid: rank 1 as a column (axis 0 runs down, like the batch axis of a matrix),
rank 2 directly, and higher ranks with the partitioned axes shown and the
others summarized in the label.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from jaxviz.model import ArrayLayout

#: Where a block sits in its array: ``(start, stop)`` along every axis.
Index = tuple[tuple[int, int], ...]


@dataclass
class Block:
    """One distinct piece of an array and the devices that hold it.

    ``y0, y1, x0, x1`` place the block inside the array's drawn rectangle as
    fractions (0..1) of its height and width.
    """

    index: Index
    holders: list[int]
    y0: float
    y1: float
    x0: float
    x1: float


@dataclass
class TileGrid:
    """An input or output array, ready to be drawn as tiles."""

    name: str
    role: str
    shape: list[int]
    dtype: str
    spec: str | None
    replicated: bool
    shard_shape: list[int]
    row_axes: list[int]
    col_axes: list[int]
    partitioned: list[int]
    blocks: list[Block]
    by_device: dict[int, list[Block]] = field(default_factory=dict)

    @property
    def type_str(self) -> str:
        return type_str(self.dtype, self.shape)

    @property
    def local_type_str(self) -> str:
        return type_str(self.dtype, self.shard_shape)

    @property
    def hidden_axes(self) -> list[int]:
        shown = set(self.row_axes) | set(self.col_axes)
        return [a for a in range(len(self.shape)) if a not in shown]

    @property
    def cells(self) -> tuple[int, int]:
        """Elements along the drawn rows and columns."""
        return _prod(self.shape[a] for a in self.row_axes), _prod(
            self.shape[a] for a in self.col_axes)

    @property
    def aspect(self) -> float:
        """Width / height of the drawn rectangle (cells kept square within limits)."""
        rows, cols = self.cells
        return min(max(cols / max(rows, 1), 0.22), 6.0)

    @property
    def partially_replicated(self) -> bool:
        return not self.replicated and any(len(b.holders) > 1 for b in self.blocks)

    def describe(self) -> str:
        """How the array is laid out, in a few plain words."""
        if self.replicated and len(self.by_device) > 1:
            return f"replicated: a copy on each of {len(self.by_device)} devices"
        if len(self.by_device) == 1:
            return f"whole on device {next(iter(self.by_device))}"
        axes = ", ".join(str(a) for a in self.partitioned)
        text = f"split on axis {axes} into {len(self.blocks)} tiles"
        if self.partially_replicated:
            share = len(self.blocks[0].holders)
            text += f", each on {share} devices"
        return text

    def summary_note(self) -> str:
        """Which axes the drawing shows, for ranks above 2 (else empty)."""
        if len(self.shape) <= 2:
            return ""
        shown = self.row_axes + self.col_axes
        return "grid shows axes " + " x ".join(str(a) for a in shown)


def type_str(dtype: str, shape: list[int]) -> str:
    """``f32[8,3]`` style text."""
    return f"{dtype}[{','.join(str(d) for d in shape)}]"


def _prod(values: Iterable[int]) -> int:
    out = 1
    for v in values:
        out *= int(v)
    return out


def display_axes(shape: list[int], partitioned: list[int]) -> tuple[list[int], list[int]]:
    """Which axes are drawn down the rows and across the columns."""
    rank = len(shape)
    if rank == 0:
        return [], []
    if rank == 1:
        return [0], []
    if rank == 2:
        return [0], [1]
    rows = [partitioned[0]] if partitioned else [0]
    if len(partitioned) > 1:
        cols = list(partitioned[1:])
    else:
        cols = [max(a for a in range(rank) if a not in rows)]
    return rows, cols


def tile_grid(layout: ArrayLayout, device_order: list[int] | None = None,
              split: tuple[int, int] | None = None) -> TileGrid:
    """The tiles of one array.

    Args:
        layout: the array's real layout.
        device_order: device ids in mesh order (holders are listed in it).
        split: ``(axis, pieces)`` to cut the blocks further along one axis --
            used for the vmap view, where the pieces are examples of the
            batch, not shards.
    """
    order = {d: i for i, d in enumerate(device_order or [])}
    groups: dict[Index, list[int]] = {}
    for shard in layout.shards:
        key: Index = tuple((int(r[0]), int(r[1])) for r in shard.index)
        groups.setdefault(key, []).append(shard.device)
    if split is not None:
        groups = _split(groups, layout.shape, *split)
    for holders in groups.values():
        holders.sort(key=lambda d: (order.get(d, len(order)), d))
    starts = [sorted({k[a][0] for k in groups}) for a in range(len(layout.shape))]
    partitioned = [a for a, s in enumerate(starts) if len(s) > 1]
    rows, cols = display_axes(layout.shape, partitioned)
    blocks = []
    for key, holders in groups.items():
        y0, y1 = _span(key, rows, starts, layout.shape)
        x0, x1 = _span(key, cols, starts, layout.shape)
        blocks.append(Block(index=key, holders=holders, y0=y0, y1=y1, x0=x0, x1=x1))
    blocks.sort(key=lambda b: (b.y0, b.x0))
    grid = TileGrid(name=layout.name, role=layout.role, shape=list(layout.shape),
                    dtype=layout.dtype, spec=layout.spec, replicated=layout.replicated,
                    shard_shape=list(layout.shard_shape), row_axes=rows, col_axes=cols,
                    partitioned=partitioned, blocks=blocks)
    for b in blocks:
        for d in b.holders:
            grid.by_device.setdefault(d, []).append(b)
    return grid


def _split(groups: dict[Index, list[int]], shape: list[int], axis: int,
           pieces: int) -> dict[Index, list[int]]:
    if axis >= len(shape) or shape[axis] < 2:
        return groups
    out: dict[Index, list[int]] = {}
    for key, holders in groups.items():
        lo, hi = key[axis]
        n = min(pieces, hi - lo)
        for p in range(n):
            a = lo + (hi - lo) * p // n
            b = lo + (hi - lo) * (p + 1) // n
            new = key[:axis] + ((a, b),) + key[axis + 1:]
            out[new] = list(holders)
    return out


def _span(key: Index, axes: list[int], starts: list[list[int]],
          shape: list[int]) -> tuple[float, float]:
    """The fraction of the drawn extent that a block covers along some axes."""
    if not axes:
        return 0.0, 1.0
    split_axes = [a for a in axes if len(starts[a]) > 1]
    if len(split_axes) <= 1:
        a = split_axes[0] if split_axes else axes[0]
        if shape[a] == 0:
            return 0.0, 1.0
        lo, hi = key[a]
        if not split_axes:
            return 0.0, 1.0
        return lo / shape[a], hi / shape[a]
    # Several partitioned axes share one drawn direction: mixed radix of block numbers.
    pos, total = 0, 1
    for a in split_axes:
        n = len(starts[a])
        pos = pos * n + starts[a].index(key[a][0])
        total *= n
    return pos / total, (pos + 1) / total
