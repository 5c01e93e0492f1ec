"""The public API: `import jaxviz` stays cheap (no JAX, no Qt), the four entry points
load on first use, and jaxviz.show works from a plain script (a real window process,
offscreen, reached over a Unix socket in a 0700 folder)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

# Not in the fast tier: starts a window process.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def _python(code: str, env: dict | None = None, cwd: Path | None = None):
    environ = dict(os.environ, PYTHONPATH=str(ROOT), **(env or {}))
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=240, env=environ, cwd=cwd)


def test_import_jaxviz_loads_neither_jax_nor_qt():
    proc = _python("""
        import sys
        import jaxviz
        heavy = sorted(m for m in sys.modules if m.split('.')[0] in
                       ('jax', 'jaxlib', 'PySide6', 'pyqtgraph', 'numpy'))
        print(heavy)
        print(sorted(n for n in dir(jaxviz) if not n.startswith('_')))
        print(callable(jaxviz.view), callable(jaxviz.sharding))
        print(sorted(m for m in sys.modules if m.split('.')[0] in ('jax', 'PySide6')))
    """)
    assert proc.returncode == 0, proc.stderr
    first, names, callables, after = proc.stdout.splitlines()
    assert first == "[]"
    assert names == str(["JaxvizError", "ShippingError", "sharding", "show", "timing", "view"])
    assert callables == "True True"
    assert after == "[]"  # the API's own modules load JAX and Qt only when they draw


def test_show_from_a_plain_script(tmp_path):
    script = tmp_path / "my_script.py"
    script.write_text(textwrap.dedent("""
        import os, stat
        import jax.numpy as jnp
        import jaxviz


        def scale(x, w):
            return x * w


        window = jaxviz.show(scale, jnp.ones(4), jnp.ones(4), wait=True)
        print(window.wait())
        print(oct(stat.S_IMODE(os.stat(window.folder).st_mode)))
        print(stat.S_ISSOCK(os.stat(window.socket_path).st_mode))
        again = jaxviz.show(scale, jnp.ones(4), jnp.ones(4), wait=True)
        print(again is window, again.wait()["ok"])
        window.close()
    """))
    environ = dict(os.environ, PYTHONPATH=str(ROOT), QT_QPA_PLATFORM="offscreen",
                   XDG_CONFIG_HOME=str(tmp_path / "config"),
                   XDG_DATA_HOME=str(tmp_path / "data"))
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=240, env=environ)
    assert proc.returncode == 0, proc.stderr
    reply, mode, is_socket, again = proc.stdout.splitlines()
    assert reply == "{'ok': True, 'message': 'opened scale in the window, tracing'}"
    assert mode == "0o700" and is_socket == "True" and again == "True True"
