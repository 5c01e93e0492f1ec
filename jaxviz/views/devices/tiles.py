"""Arrays as grids of tiles, read off the storyboard (no Qt).

A *block* is one distinct index range of an array and the exact devices that
hold it (a :class:`~jaxviz.model.storyboard.Tile` of the storyboard, which the
core read from ``devices_indices_map``). One holder: the block is that
device's piece of a split. Several holders: each of them holds the block
*whole* (a shared tile), which is drawn once, never as a split. An array is
drawn as a 2-D grid: rank 1 as a column (axis 0 runs down, like the batch
axis of a matrix), rank 2 directly, and higher ranks with the partitioned
axes shown and the others summarized in the label.

The words for layouts are defined here once (:func:`holders_text`,
:meth:`TileGrid.describe`) and used by the captions and the legend alike.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from jaxviz.model.storyboard import ArrayTiles

#: Where a block sits in its array: ``(start, stop)`` along every axis.
Index = tuple[tuple[int, int], ...]

#: The legend's words for the three ways a tile can be drawn (the captions say the same).
WORDS = {
    "shared": "ringed: held whole by each device of its ring",
    "split": "one colour: that device's piece of a split",
    "equal": "alike, ringed by its device: the same values on every device",
    "host": "grey: on the host",
}


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
    """An input or output array (or a folded group of pytree leaves), ready to be drawn.

    Attributes:
        members: for a folded pytree group, the leaves it stands for (they
            all have the same holders, tile by tile); empty for an array.
    """

    name: str
    role: str
    shape: list[int]
    dtype: str
    spec: str
    replicated: bool
    shard_shape: list[int]
    row_axes: list[int]
    col_axes: list[int]
    partitioned: list[int]
    blocks: list[Block]
    split_by: list[list[str]] = field(default_factory=list)
    by_device: dict[int, list[Block]] = field(default_factory=dict)
    members: list[TileGrid] = field(default_factory=list)
    #: The real run found every device's block holding the same values (identical
    #: copies in distinct blocks, e.g. parameters after a pmean): drawn alike.
    equal: bool = False
    #: Drawing figures derived from the fields above once they are complete (see
    #: :func:`jaxviz.views.devices.boxes.map_mode`): a train step's hundred arrays are
    #: measured once, not again for every device box of every layout.
    memo: dict[str, float] = field(default_factory=dict, repr=False, compare=False)

    @property
    def key(self) -> str:
        """``role:name``: unique among a scene's drawn arrays."""
        return f"{self.role}:{self.name}"

    @property
    def type_str(self) -> str:
        if self.members:
            return f"{len(self.members)} arrays"
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
        """Width / height of the drawn rectangle (cells kept square within limits).

        The limits keep every tile big enough to show its holders: a 64 x 32
        matrix is drawn a little wider than it is, never as a sliver.
        """
        rows, cols = self.cells
        if len(self.shape) <= 1:
            return min(max(cols / max(rows, 1), 0.22), 1.0)
        return min(max(cols / max(rows, 1), 0.6), 2.0)

    @property
    def shared(self) -> bool:
        """Some block is held whole by more than one device."""
        return any(len(b.holders) > 1 for b in self.blocks)

    @property
    def partially_replicated(self) -> bool:
        return not self.replicated and self.shared

    def describe(self) -> str:
        """How the array is laid out, in the legend's words."""
        if self.replicated:
            return f"replicated on all {len(self.by_device)}"
        if len(self.blocks) == 1:
            return f"whole on device {holders_text(self.blocks[0].holders)}" if len(
                self.blocks[0].holders) == 1 else (
                f"held whole by devices {holders_text(self.blocks[0].holders)}")
        cuts = []
        for axis in self.partitioned:
            over = self.split_by[axis] if axis < len(self.split_by) else []
            named = [a for a in over if a != "?"]
            cuts.append(f"axis {axis}" + (f" (over {' x '.join(repr(a) for a in named)})"
                                          if named else ""))
        text = f"split along {' and '.join(cuts)} into {len(self.blocks)} tiles"
        if self.shared:
            counts = sorted({len(b.holders) for b in self.blocks})
            text += f", each held whole by {'/'.join(map(str, counts))} devices"
        return text

    def summary_note(self) -> str:
        """Which axes the drawing shows, for ranks above 2 (else empty)."""
        if len(self.shape) <= 2 or self.members:
            return ""
        shown = self.row_axes + self.col_axes
        return "axes " + " x ".join(str(a) for a in shown) + " drawn"


def type_str(dtype: str, shape: list[int]) -> str:
    """``f32[8,3]`` style text."""
    return f"{dtype}[{','.join(str(d) for d in shape)}]"


def holders_text(holders: list[int], limit: int = 6) -> str:
    """``0,1`` -- the devices holding a tile (``0,1,2,…,7 (8)`` when there are many)."""
    if len(holders) <= limit:
        return ",".join(map(str, holders))
    return ",".join(map(str, holders[:limit - 2])) + f",…,{holders[-1]} ({len(holders)})"


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


def tile_grid(array: ArrayTiles, device_order: list[int] | None = None,
              split: tuple[int, int] | None = None) -> TileGrid:
    """The tiles of one array of a storyboard.

    Args:
        array: the array's tiles with their holders.
        device_order: device ids in mesh order (holders are listed in it).
        split: ``(axis, pieces)`` to cut the blocks further along one axis --
            used for the vmap view, where the pieces are examples of the
            batch, not shards.
    """
    order = {d: i for i, d in enumerate(device_order or [])}
    groups: dict[Index, list[int]] = {
        tuple((int(r[0]), int(r[1])) for r in t.index): list(t.devices) for t in array.tiles}
    if split is not None:
        groups = _split(groups, array.shape, *split)
    for holders in groups.values():
        holders.sort(key=lambda d: (order.get(d, len(order)), d))
    starts = [sorted({k[a][0] for k in groups}) for a in range(len(array.shape))]
    partitioned = [a for a, s in enumerate(starts) if len(s) > 1]
    rows, cols = display_axes(array.shape, partitioned)
    blocks = []
    for key, holders in groups.items():
        y0, y1 = _span(key, rows, starts, array.shape)
        x0, x1 = _span(key, cols, starts, array.shape)
        blocks.append(Block(index=key, holders=holders, y0=y0, y1=y1, x0=x0, x1=x1))
    blocks.sort(key=lambda b: (b.y0, b.x0))
    grid = TileGrid(name=array.name, role=array.role, shape=list(array.shape),
                    dtype=array.dtype, spec=array.spec, replicated=array.replicated,
                    shard_shape=list(array.tile_shape), row_axes=rows, col_axes=cols,
                    partitioned=partitioned, blocks=blocks,
                    split_by=[list(a) for a in array.split_by])
    for b in blocks:
        for d in b.holders:
            grid.by_device.setdefault(d, []).append(b)
    return grid


def group_name(name: str) -> str:
    """The pytree argument a leaf belongs to: ``params`` for ``params[0][1]``."""
    for k, ch in enumerate(name):
        if ch in "[.":
            return name[:k] or name
    return name


def same_holders(grids: list[TileGrid]) -> bool:
    """True when every grid has the same holders, tile by tile (so one can stand for all)."""
    first = [b.holders for b in grids[0].blocks]
    return all([b.holders for b in g.blocks] == first for g in grids[1:])


def folded(name: str, members: list[TileGrid]) -> TileGrid:
    """One tile grid standing for a pytree group whose leaves all have the same holders."""
    head = members[0]
    return TileGrid(name=name, role=head.role, shape=list(head.shape), dtype=head.dtype,
                    spec=head.spec, replicated=all(m.replicated for m in members),
                    shard_shape=list(head.shard_shape), row_axes=list(head.row_axes),
                    col_axes=list(head.col_axes), partitioned=list(head.partitioned),
                    blocks=head.blocks, split_by=head.split_by, by_device=head.by_device,
                    members=list(members))


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
        if shape[a] == 0 or not split_axes:
            return 0.0, 1.0
        lo, hi = key[a]
        return lo / shape[a], hi / shape[a]
    # Several partitioned axes share one drawn direction: mixed radix of block numbers.
    pos, total = 0, 1
    for a in split_axes:
        n = len(starts[a])
        pos = pos * n + starts[a].index(key[a][0])
        total *= n
    return pos / total, (pos + 1) / total
