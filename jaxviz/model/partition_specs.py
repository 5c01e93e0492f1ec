"""Parse partition specs as people write them: one per argument, or a pytree of them.

``jax.jit``'s ``in_shardings`` and ``shard_map``'s ``in_specs`` take, per
argument, a ``PartitionSpec`` or a *pytree* of them: a spec for every leaf of
a pytree argument, or a *prefix* -- one spec standing for a whole subtree.
What is typed reads the same way::

    P('data', None), P()
    [(P(), P()), (P(None, 'model'), P('model'))], P('data')
    {'w': P(None, 'model'), 'b': P('model')}, P('data')

A spec is a tuple of entries (an axis name, ``None`` or a tuple of names, as
in ``P(('data', 'model'))``); a tree of specs nests them in :class:`SpecSeq`
(list or tuple) and :class:`SpecDict`. Pure Python (no JAX): the window
checks the field while it is typed; the core turns the tree into
``PartitionSpec`` objects.

Example:
    >>> parse_partition_specs("[P(), (P('m'), P())], P('d')")
    [SpecSeq(kind='list', items=((), SpecSeq(kind='tuple', items=(('m',), ())))), ('d',)]
    >>> format_spec_tree(parse_partition_specs("{'w': P(None, 'm')}")[0])
    "{'w': P(None, 'm')}"
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass

from jaxviz.model.specs import SpecError, call_nodes, refuse_keywords

PartitionEntry = str | None | tuple[str, ...]
#: One ``PartitionSpec``: its entries.
PartitionSpecTuple = tuple[PartitionEntry, ...]


@dataclass(frozen=True)
class SpecSeq:
    """A list or tuple of spec trees (for a list or tuple argument)."""

    kind: str  # "list" | "tuple"
    items: tuple[SpecTree, ...]


@dataclass(frozen=True)
class SpecDict:
    """A dict of spec trees (for a dict argument), keys as typed."""

    items: tuple[tuple[object, SpecTree], ...]


SpecTree = PartitionSpecTuple | SpecSeq | SpecDict
Offset = Callable[[ast.expr | ast.keyword], int]


def parse_partition_specs(text: str) -> list[SpecTree]:
    """Parse ``"P('data', None), P()"`` into one spec tree per argument (or output).

    ``P`` and ``PartitionSpec`` are both accepted; lists, tuples and dicts of
    them make pytrees.

    Raises:
        SpecError: with the position of the fault.
    """
    if not text.strip():
        return []
    call, offset = call_nodes(text)
    refuse_keywords(call, text, offset, "partition specs")
    return [_tree(node, text, offset) for node in call.args]


def _tree(node: ast.expr, text: str, offset: Offset) -> SpecTree:
    if isinstance(node, (ast.List, ast.Tuple)):
        kind = "list" if isinstance(node, ast.List) else "tuple"
        return SpecSeq(kind, tuple(_tree(e, text, offset) for e in node.elts))
    if isinstance(node, ast.Dict):
        items = []
        for key, value in zip(node.keys, node.values):
            if not isinstance(key, ast.Constant):
                raise SpecError("dict keys must be constants such as 'w'", text,
                                offset(key if key is not None else value))
            items.append((key.value, _tree(value, text, offset)))
        return SpecDict(tuple(items))
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id in ("P", "PartitionSpec") and not node.keywords):
        raise SpecError("each partition spec must look like P('data', None) (or a list, "
                        "tuple or dict of them for a pytree argument)", text, offset(node))
    entries: list[PartitionEntry] = []
    for arg in node.args:
        try:
            value = ast.literal_eval(arg)
        except ValueError:
            raise SpecError("partition spec entries must be axis names in quotes, "
                            "None, or a tuple of names", text, offset(arg)) from None
        names = isinstance(value, tuple) and all(isinstance(v, str) for v in value)
        if names or value is None or isinstance(value, str):
            entries.append(value)
        else:
            raise SpecError(f"bad partition spec entry {value!r}", text, offset(arg))
    return tuple(entries)


def is_spec(tree: SpecTree) -> bool:
    """True for one ``PartitionSpec`` (a leaf of a spec tree)."""
    return isinstance(tree, tuple)


def spec_leaves(tree: SpecTree) -> list[PartitionSpecTuple]:
    """The ``PartitionSpec`` leaves of a spec tree, in order."""
    if isinstance(tree, SpecSeq):
        return [leaf for item in tree.items for leaf in spec_leaves(item)]
    if isinstance(tree, SpecDict):
        return [leaf for _, item in tree.items for leaf in spec_leaves(item)]
    return [tree]


def format_partition_spec(spec: PartitionSpecTuple) -> str:
    """``P('data', None)``."""
    return "P(" + ", ".join(repr(e) for e in spec) + ")"


def format_spec_tree(tree: SpecTree) -> str:
    """The canonical text of a spec tree (it parses back to ``tree``)."""
    if isinstance(tree, SpecSeq):
        inner = ", ".join(format_spec_tree(t) for t in tree.items)
        if tree.kind == "list":
            return f"[{inner}]"
        return f"({inner},)" if len(tree.items) == 1 else f"({inner})"
    if isinstance(tree, SpecDict):
        return "{" + ", ".join(f"{k!r}: {format_spec_tree(v)}" for k, v in tree.items) + "}"
    return format_partition_spec(tree)


def partition_axis_names(spec: PartitionSpecTuple | SpecTree) -> list[str]:
    """The mesh axes a spec (or every spec of a tree) names, in order, repeats kept."""
    names: list[str] = []
    for leaf in spec_leaves(spec):
        for e in leaf:
            if isinstance(e, str):
                names.append(e)
            elif isinstance(e, tuple):
                names.extend(e)
    return names
