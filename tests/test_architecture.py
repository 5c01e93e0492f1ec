"""The layer boundaries of DESIGN.md, enforced with import-linter, and the wheel's contents."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


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
