"""Test programs at full size, and variants of them written out for the tests.

``gpt_train.py`` is a GPT-style train step (see its docstring). :func:`gpt_source`
returns its text with another layer count, scan or unrolled layers and another
mesh; :func:`gpt_specs` the partition specs a user types for it
(``--specs``), one per leaf of its parameter pytree.
"""

from __future__ import annotations

import re
from pathlib import Path

GPT_FILE = Path(__file__).with_name("gpt_train.py")
_WEIGHTS = ("wqkv", "wo", "w1", "w2")
_TRANSPOSED = ("wo", "w2")


def gpt_source(layers: int = 12, scanned: bool = False,
               mesh: tuple[int, ...] = (4, 2)) -> str:
    """The train step's source with ``layers`` blocks, scanned or unrolled, on ``mesh``."""
    text = GPT_FILE.read_text(encoding="utf-8")
    text = re.sub(r"^LAYERS = \d+$", f"LAYERS = {layers}", text, count=1, flags=re.M)
    text = re.sub(r"^SCANNED = \w+$", f"SCANNED = {scanned}", text, count=1, flags=re.M)
    return re.sub(r"^MESH_SHAPE = .*$", f"MESH_SHAPE = {tuple(mesh)!r}", text, count=1,
                  flags=re.M)


def gpt_specs(layers: int = 12, scanned: bool = False, two_d: bool = True) -> str:
    """``--specs`` for ``train_step(params, tokens, targets)``: FSDP x tensor parallel.

    On a 1-D mesh (``two_d=False``, one axis 'data') the weights are split over
    'data' only (FSDP).
    """
    def spec(name: str) -> str:
        axes = ["'data'", "'model'"] if two_d else ["'data'", "None"]
        if name in _TRANSPOSED:
            axes.reverse()
        return f"P({'None, ' if scanned else ''}{', '.join(axes)})"

    layer = "{" + ", ".join(f"'{w}': {spec(w)}" for w in _WEIGHTS) + "}"
    stacked = layer if scanned else "[" + ", ".join([layer] * layers) + "]"
    model = "'model'" if two_d else "None"
    return (f"{{'embed': P(None, {model}), 'layers': {stacked}, 'unembed': P({model}, None)}}, "
            f"P('data'), P('data')")


def gpt_mesh(two_d: bool = True) -> str:
    """``--mesh`` for the train step: 4x2 ('data', 'model') or 8 along 'data'."""
    return "data=4,model=2" if two_d else "data=8"
