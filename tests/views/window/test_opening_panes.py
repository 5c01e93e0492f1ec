"""Which panes a document opens with (issue 27): an example's most telling pair first.

batched_matmul -- NumPy versus jnp versus pmap -- opened at 1280x720 on its plain and
vmap panes, without the pmap one it is about. An example may name its telling panes
(``JAXVIZ["panes"]``); a window with room for two opens those, and a larger one opens
the same four panes it always did.
"""

from __future__ import annotations

import pytest

from jaxviz.model import list_examples
from jaxviz.model.gallery import GalleryError, load_example
from jaxviz.views.window.opening_panes import front_pane, opening_panes

#: The order the window chose panes in before examples could name theirs (issue 27).
OLD_ORDER = ("as_written", "plain", "vmap", "pmap", "sharded", "shard_map", "jit")


def test_batched_matmul_opens_on_its_plain_and_pmap_panes_where_two_fit():
    ex = next(e for e in list_examples() if e.name == "batched_matmul")
    assert sorted(opening_panes(ex.variants, ex.panes, 2)) == ["plain", "pmap"]
    assert front_pane(ex.variants, ex.panes) == "pmap"


@pytest.mark.parametrize("example", list_examples(), ids=lambda e: e.name)
def test_a_large_window_opens_the_panes_it_always_did(example):
    before = [v for v in OLD_ORDER if v in example.variants][:4]
    assert sorted(opening_panes(example.variants, example.panes, 4)) == sorted(before)
    opened = opening_panes(example.variants, example.panes, 2)
    assert len(opened) == min(2, len(before)) and set(opened) <= set(example.variants)
    # an example that names its telling panes opens on them where only two fit
    assert set(example.panes[:2]) <= set(opened)


def test_a_document_without_telling_panes_opens_by_priority():
    variants = ["jit", "shard_map", "pmap", "plain"]
    assert opening_panes(variants, (), 2) == ["plain", "pmap"]
    assert opening_panes(variants, ["shard_map"], 2) == ["shard_map", "plain"]
    assert opening_panes(variants, ["nonsense", "jit"], 1) == ["jit"]  # (undeclared: skipped)
    assert front_pane(variants, ()) is None


def test_an_example_naming_a_pane_it_does_not_declare_is_refused(tmp_path):
    path = tmp_path / "bad.py"
    path.write_text('"""Bad.\n\nBad."""\nJAXVIZ = {"topic": "t", "function": "f", '
                    '"args": "f32[4]", "variants": ["plain", "jit"], "panes": ["plain", "pmap"]}\n'
                    "def f(x):\n    return x\n")
    with pytest.raises(GalleryError, match="'pmap'.*not among its variants"):
        load_example(path)
