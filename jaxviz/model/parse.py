"""A Python source's syntax tree, parsed once for the several readers of one text.

Opening a file reads it several ways without running it -- its ``JAXVIZ`` settings, its
functions, the one to open, that function's arguments, whether the document can be
traced, whether it is already transformed -- and a keystroke asks some of them again.
Each ``ast.parse`` of a file of a few hundred lines is milliseconds of the GUI thread
(6 ms for 400 lines on a loaded 2-core machine), so the last two texts' trees are kept
(a keystroke makes a new text: more would hold the trees of the last few versions of a
long file, a megabyte or so each).
A tree is shared by every reader: read it, never change it.
"""

from __future__ import annotations

import ast
import functools


@functools.lru_cache(maxsize=2)
def parse_module(source: str) -> ast.Module:
    """``ast.parse(source)`` for a module, the same tree again for the same text.

    Raises:
        SyntaxError: the source does not parse (not remembered: raised each time).
        ValueError: it holds a NUL character.
    """
    return ast.parse(source)
