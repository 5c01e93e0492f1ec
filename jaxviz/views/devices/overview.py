"""The overview of a scene's phases: the storyboard's step groups, as rows to fold and unfold.

The core groups a program's steps by where they come from (the train step's
forward / backward / update parts, loops, functions called, named scopes,
repeated stretches collapsed with a count:
:class:`~jaxviz.model.storyboard.StepGroup`). Here those groups become rows
over the scene's *phases*: each row spans the phases of its steps; the phases
about the arrays (on the host, split, sent to the devices) and the result get
a row of their own before and after the program, so every phase lies in
exactly one innermost row. A ``repeat`` row's repetitions are its children;
folded, it reads ``block (line 56) x12``.

Example:
    >>> rows = build_overview(scene)                      # doctest: +SKIP
    >>> [r.title for r in rows if r.depth == 1]           # doctest: +SKIP
    ['forward pass (jvp)', '84 all-gathers in a row: 7 x12', ...]
"""

from __future__ import annotations

from dataclasses import dataclass, field

from jaxviz.views.devices.scene import Scene

#: From this many phases on, the device view shows the overview (strip and group tree).
OVERVIEW_PHASES = 24


@dataclass
class OverviewRow:
    """One group of phases.

    Attributes:
        name: the group's unique name (``forward/loss_fn/block``), ``arrays``
            or ``result`` for the rows about the arrays.
        title: its words (``block (line 56) x12``).
        kind: the group's kind (``part``, ``loop``, ``call``, ``scope``,
            ``run``, ``repeat``), ``program`` or ``arrays``.
        first, last: the phases it spans (inclusive).
        depth: 0 for the whole program and the array rows, then one deeper
            per enclosing group.
        parent: the index of the enclosing row (``None`` at depth 0).
        children: the rows directly inside, in order.
        repeat: identical repetitions collapsed into it (1: none).
        line: the user's source line where it starts, if known.
    """

    name: str
    title: str
    kind: str
    first: int
    last: int
    depth: int = 0
    parent: int | None = None
    children: list[int] = field(default_factory=list)
    repeat: int = 1
    line: int | None = None

    @property
    def count(self) -> int:
        """The number of phases it spans."""
        return self.last - self.first + 1


def build_overview(scene: Scene) -> list[OverviewRow]:
    """The rows of a scene's overview, parents before children (pre-order)."""
    phases = scene.phases
    if not phases:
        return []
    story = scene.story
    steps = [k for k, p in enumerate(phases) if p.step_index is not None]
    groups = story.groups if story is not None else []
    rows: list[OverviewRow] = []
    if not steps or not groups:
        rows.append(OverviewRow("program", "the whole animation", "program", 0, len(phases) - 1))
        return rows
    first_step, last_step = steps[0], steps[-1]
    if first_step > 0:
        rows.append(OverviewRow("arrays", "the arrays go to the devices", "arrays", 0,
                                first_step - 1))
    phase_of_step = {p.step_index: k for k, p in enumerate(phases) if p.step_index is not None}
    index: dict[int, int] = {}
    for g_index, g in enumerate(groups):
        first = phase_of_step.get(g.first)
        last = phase_of_step.get(g.last)
        if first is None or last is None:  # a vmap scene shows only the collective steps
            first = min((phase_of_step[s] for s in range(g.first, g.last + 1)
                         if s in phase_of_step), default=None)
            last = max((phase_of_step[s] for s in range(g.first, g.last + 1)
                        if s in phase_of_step), default=None)
            if first is None or last is None:
                continue
        parent = index.get(g.parent) if g.parent is not None else None
        if g.parent is not None and parent is None:
            continue
        row = OverviewRow(g.name, g.title, g.kind, first, last,
                          rows[parent].depth + 1 if parent is not None else 0, parent,
                          repeat=g.repeat, line=g.line)
        rows.append(row)
        index[g_index] = len(rows) - 1
        if parent is not None:
            rows[parent].children.append(len(rows) - 1)
    if last_step < len(phases) - 1:
        rows.append(OverviewRow("result", "the result leaves the program", "arrays",
                                last_step + 1, len(phases) - 1))
    top = index.get(0)
    if top is not None:  # the program row spans the phases between the array rows too
        rows[top].first = min(rows[top].first, first_step)
        rows[top].last = max(rows[top].last, last_step)
    return rows


def innermost_row(rows: list[OverviewRow], phase: int) -> int | None:
    """The deepest row spanning ``phase`` (rows nest, so this is its one innermost group)."""
    spanning = [k for k, row in enumerate(rows) if row.first <= phase <= row.last]
    return max(spanning, key=lambda k: rows[k].depth, default=None)


def row_path(rows: list[OverviewRow], row: int | None) -> list[int]:
    """``row`` and its ancestors, outermost first."""
    path: list[int] = []
    while row is not None:
        path.append(row)
        row = rows[row].parent
    return path[::-1]


def find_rows(rows: list[OverviewRow], name: str) -> list[int]:
    """Rows a user's group name picks: the exact name, else every row whose name ends
    with it as whole path parts (``block`` picks ``forward/loss_fn/block``), or whose
    title starts with it; in program order."""
    exact = [k for k, r in enumerate(rows) if r.name == name]
    if exact:
        return exact
    tail = [k for k, r in enumerate(rows) if r.name.endswith("/" + name)
            or r.name.split("#")[0].endswith("/" + name) or r.name.split("#")[0] == name]
    if tail:
        return tail
    return [k for k, r in enumerate(rows) if r.title.startswith(name)]


def visible_rows(rows: list[OverviewRow], unfolded: set[str]) -> list[int]:
    """The rows a folded overview lists: depth 0 and 1, and the children of unfolded rows."""
    out: list[int] = []

    def add(k: int) -> None:
        out.append(k)
        if rows[k].depth == 0 or rows[k].name in unfolded:
            for c in rows[k].children:
                add(c)

    for k, row in enumerate(rows):
        if row.parent is None:
            add(k)
    return out
