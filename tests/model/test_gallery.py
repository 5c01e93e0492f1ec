"""The gallery: every example is well-formed and covers the teaching material."""

from pathlib import Path

import pytest

from jaxviz.model import VARIANTS, get_example, list_examples, list_functions
from jaxviz.model.gallery import GalleryError
from jaxviz.model.partition_specs import parse_partition_specs
from jaxviz.model.specs import parse_args, parse_in_axes, parse_mesh


def test_every_example_is_well_formed():
    examples = list_examples()
    assert len(examples) >= 8
    for ex in examples:
        source = Path(ex.path).read_text(encoding="utf-8")
        assert ex.function in list_functions(source), ex.name
        assert ex.title and len(ex.explanation) > 80, ex.name
        assert set(ex.variants) <= set(VARIANTS), ex.name
        nargs = len(parse_args(ex.args))
        parse_in_axes(ex.in_axes, nargs)
        if ex.mesh:
            parse_mesh(ex.mesh)
        if ex.specs:
            assert len(parse_partition_specs(ex.specs)) == nargs
        if ex.baseline:
            assert ex.baseline in list_functions(source)


def test_the_topics_of_the_teaching_material_are_covered():
    names = {e.name for e in list_examples()}
    assert {"async_dispatch", "convolve", "batched_matmul", "normalize", "psum_ones",
            "mlp_predict", "data_parallel", "tensor_parallel"} <= names
    assert get_example("mlp_predict").in_axes == "None, 0"
    assert get_example("tensor_parallel").mesh == "data=4,model=2"
    assert get_example("batched_matmul").baseline == "matmul_numpy"


def test_unknown_example_lists_the_gallery():
    with pytest.raises(GalleryError, match="convolve"):
        get_example("convolution")


def test_list_functions_is_static():
    src = "import os\ndef a(x):\n    return x\nb = lambda y: y\nclass C:\n    def m(self): ...\n"
    assert list_functions(src) == ["a", "b"]
    assert list_functions("def broken(:\n") == []


def test_an_example_added_or_removed_while_the_window_runs_is_found(tmp_path, monkeypatch):
    """The folder's listing is kept between openings, and read again when it changes."""
    import os

    from jaxviz.model import gallery

    monkeypatch.setattr(gallery, "_examples_folder", lambda: tmp_path)
    source = ('"""Double.\n\nTwice its input."""\n\nJAXVIZ = {"topic": "jit", '
              '"function": "double", "args": "f32[4]"}\n\n\ndef double(x):\n    return 2 * x\n')
    (tmp_path / "first.py").write_text(source, encoding="utf-8")
    assert list(gallery.example_paths()) == ["first"]
    assert gallery.get_example("first").function == "double"
    (tmp_path / "second.py").write_text(source, encoding="utf-8")
    os.utime(tmp_path, ns=(1, 1))  # (a folder changed within the clock's last tick)
    assert list(gallery.example_paths()) == ["first", "second"]
    assert gallery.get_example("second").title == "Double."
    (tmp_path / "first.py").unlink()
    os.utime(tmp_path, ns=(2, 2))
    assert list(gallery.example_paths()) == ["second"]
    with pytest.raises(GalleryError, match="no example named 'first'"):
        gallery.get_example("first")


def test_an_example_is_read_again_when_its_file_changes(tmp_path):
    """Opening an example reads it once; a changed file (a lecturer editing the gallery's
    copy) is read again, never the record of its last version."""
    import os

    from jaxviz.model.gallery import load_example

    path = tmp_path / "lesson.py"

    def write(title: str, args: str) -> None:
        path.write_text(f'"""{title}\n\nWhy."""\nJAXVIZ = {{"topic": "t", "function": "f", '
                        f'"args": "{args}"}}\ndef f(x):\n    return x\n')

    write("First version.", "f32[4]")
    first = load_example(path)
    assert load_example(path) is first  # unchanged: not read again
    stamp = path.stat().st_mtime_ns
    write("Second version.", "f32[8]")
    os.utime(path, ns=(stamp, stamp))  # written within one tick of the file system's clock
    second = load_example(path)
    assert (second.title, second.args) == ("Second version.", "f32[8]")
