"""Which jaxpr panes a document opens with, and which of them is in front (no Qt).

A document (an example, a file with a ``JAXVIZ`` dict) declares the variants it is
meant to show (``"variants"``) and may name its most telling ones (``"panes"``: e.g.
batched_matmul, the NumPy-vs-jnp-vs-pmap example, names ``["plain", "pmap"]``). A
window with room for ``room`` panes side by side opens the telling ones first, then
the others in :data:`PANE_PRIORITY`; when even those would be tabs, every declared
variant gets a tab, and the last telling one is the tab in front -- the example's
point is on screen either way, and every variant it declares is one click away.

Example:
    >>> opening_panes(["plain", "jit", "vmap", "pmap", "sharded"], ["plain", "pmap"], 2)
    ['plain', 'pmap']
    >>> opening_panes(["plain", "jit", "vmap", "pmap", "sharded"], [], 2)
    ['plain', 'vmap']
    >>> front_pane(["plain", "jit", "vmap", "pmap", "sharded"], ["plain", "pmap"])
    'pmap'
"""

from __future__ import annotations

from collections.abc import Sequence

#: The order in which a document's variants get the panes side by side, when it names no
#: telling ones (or after them).
PANE_PRIORITY = ("as_written", "plain", "vmap", "pmap", "sharded", "shard_map", "jit")


def declared_panes(variants: Sequence[str]) -> list[str]:
    """The declared ``variants`` that have panes, in :data:`PANE_PRIORITY`."""
    return [v for v in PANE_PRIORITY if v in variants]


def telling_panes(variants: Sequence[str], telling: Sequence[str]) -> list[str]:
    """The ``telling`` panes (as the document names them) that it also declares."""
    declared = declared_panes(variants)
    out: list[str] = []
    for v in telling:
        if v in declared and v not in out:
            out.append(v)
    return out


def opening_panes(variants: Sequence[str], telling: Sequence[str], room: int) -> list[str]:
    """The (at most ``room``) panes a document opens with side by side: its telling
    panes first, then its other declared variants in :data:`PANE_PRIORITY`."""
    first = telling_panes(variants, telling)
    rest = [v for v in declared_panes(variants) if v not in first]
    return (first + rest)[:max(room, 1)]


def front_pane(variants: Sequence[str], telling: Sequence[str]) -> str | None:
    """The tab in front when the panes are tabs: the last telling pane (the one the
    example is about), else None (the tabs keep the one in front)."""
    first = telling_panes(variants, telling)
    return first[-1] if first else None
