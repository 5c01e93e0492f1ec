"""The layers (import-linter contracts in pyproject.toml), no import cycles (grimp),
and the wheel's contents."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parents[1]


def import_cycles(graph: grimp.ImportGraph, package: str) -> list[tuple[str, ...]]:
    """Every import cycle among ``package``'s modules, each once: ``(a, b, ..., a)``.

    Counts every import grimp sees: at module level, inside functions (lazy
    imports still tie the modules together), under ``TYPE_CHECKING``, and a
    package's ``__init__`` (its module is the package's own name).
    """
    cycles: dict[frozenset[str], tuple[str, ...]] = {}
    for importer in sorted(m for m in graph.modules if m.split(".")[0] == package):
        for imported in sorted(graph.find_modules_directly_imported_by(importer)):
            if imported.split(".")[0] != package:
                continue
            back = graph.find_shortest_chain(importer=imported, imported=importer)
            if back is not None:
                cycle = (importer, *back)
                cycles.setdefault(frozenset(cycle), cycle)
    return sorted(cycles.values())


def test_the_cycle_finder_finds_cycles_of_every_length():
    graph = grimp.ImportGraph()
    for importer, imported in [("p.a", "p.b"), ("p.b", "p.a"),                 # two modules
                               ("p.c", "p.d"), ("p.d", "p.e"), ("p.e", "p.c"),  # three
                               ("p.f", "p.a"), ("p.f", "q.x"), ("q.x", "p.f")]:  # not ours
        graph.add_import(importer=importer, imported=imported)
    found = {frozenset(c) for c in import_cycles(graph, "p")}
    assert found == {frozenset({"p.a", "p.b"}), frozenset({"p.c", "p.d", "p.e"})}


def test_jaxviz_has_no_import_cycles():
    graph = grimp.build_graph("jaxviz", cache_dir=None)
    cycles = import_cycles(graph, "jaxviz")
    assert cycles == [], "\n".join(" -> ".join(c) for c in cycles)


def folder_cycles(graph: grimp.ImportGraph, parent: str) -> list[tuple[str, str]]:
    """Pairs of ``parent``'s rooms (its subpackages and modules) that import each other,
    directly or through other modules: each room would need the other to be understood."""
    rooms = sorted({".".join(m.split(".")[:parent.count(".") + 2]) for m in graph.modules
                    if m.startswith(parent + ".")})
    return [(a, b) for i, a in enumerate(rooms) for b in rooms[i + 1:]
            if graph.chain_exists(importer=a, imported=b, as_packages=True)
            and graph.chain_exists(importer=b, imported=a, as_packages=True)]


def test_the_folder_cycle_finder_finds_rooms_that_import_each_other():
    graph = grimp.ImportGraph()
    for package in ("p", "p.ui", "p.ui.a", "p.ui.b", "p.ui.d"):
        graph.add_module(package)
    for importer, imported in [("p.ui.a.x", "p.ui.b.y"), ("p.ui.b.z", "p.ui.c"),
                               ("p.ui.c", "p.ui.a.w"), ("p.ui.d.x", "p.ui.a.x")]:
        graph.add_import(importer=importer, imported=imported)
    # a -> b directly, b -> a through c (module by module); c and d are one-way
    assert folder_cycles(graph, "p.ui") == [("p.ui.a", "p.ui.b")]


@pytest.mark.parametrize("parent", ["jaxviz.ui", "jaxviz.views", "jaxviz"])
def test_no_folder_level_cycles(parent):
    """Inside ui/ and views/ (and between jaxviz's top-level packages) no two rooms
    import each other, even through lazy imports in functions."""
    graph = grimp.build_graph("jaxviz", cache_dir=None)
    assert folder_cycles(graph, parent) == []


def test_import_contracts_hold():
    lint = shutil.which("lint-imports") or str(Path(sys.executable).parent / "lint-imports")
    out = subprocess.run([lint, "--no-cache"], cwd=ROOT, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "Contracts: " in out.stdout and " broken" in out.stdout
    assert "0 broken" in out.stdout


def test_model_imports_without_jax_or_qt():
    code = ("import sys, jaxviz.model, jaxviz.model.specs, jaxviz.model.gallery;"
            "bad = [m for m in ('jax', 'PySide6', 'pyqtgraph') if m in sys.modules];"
            "print(bad); sys.exit(1 if bad else 0)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr


@pytest.mark.slow
def test_wheel_ships_the_gallery(tmp_path):
    out = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w",
                          str(tmp_path / "dist"), str(ROOT)], capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr
    wheel = next((tmp_path / "dist").glob("jaxviz_desktop-*.whl"))
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        assert "jaxviz/resources/examples/convolve.py" in names
        assert any(n.endswith("entry_points.txt") for n in names)
        zf.extractall(tmp_path / "site")
    # The unpacked wheel, imported from elsewhere, finds its own gallery.
    code = ("import sys; sys.path.insert(0, sys.argv[1]);"
            "import jaxviz.model.gallery as g; print(g.resources_dir());"
            "print(len(g.list_examples()))")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "site")],
                         capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    where, count = out.stdout.split()
    assert where.startswith(str(tmp_path / "site")) and int(count) >= 8


#: Pieces of compiled-HLO syntax: code holding one of them in a string reads HLO text.
HLO_SYNTAX = ("replica_groups=", "source_target_pairs=", "op_name=", "channel_id=",
              "stack_frame_id", "known_trip_count", "HloModule", "all-reduce(", "all-gather(",
              "-start(", "ENTRY %", "ROOT %")


def hlo_strings(path: Path) -> list[str]:
    """The string constants of a module (docstrings left out) that contain HLO syntax."""
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                docstrings.add(id(body[0].value))
    return [node.value for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and id(node) not in docstrings and any(t in node.value for t in HLO_SYNTAX)]


#: Colours HLO text in the panes' HLO view (Pygments tokens); draws no conclusion from it.
HIGHLIGHTER = "jaxviz/views/text/lexers.py"


def test_only_core_hlo_program_reads_compiled_hlo():
    reader = ROOT / "jaxviz" / "core" / "hlo_program.py"
    assert hlo_strings(reader), "the reader itself must be found by this check"
    readers = {str(p.relative_to(ROOT)): found for p in sorted((ROOT / "jaxviz").rglob("*.py"))
               if p != reader and (found := hlo_strings(p))}
    assert readers.pop(HIGHLIGHTER, None) is not None  # the check sees the highlighter too
    assert readers == {}
    # The device view draws the storyboard: it never looks at a variant's HLO text.
    for path in (ROOT / "jaxviz" / "scene").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert ".hlo_collectives" not in text and "vr.hlo" not in text, path
