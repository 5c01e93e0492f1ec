"""The client side of the engine never imports JAX; the server never imports Qt."""

from __future__ import annotations

import subprocess
import sys


def run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)


def test_client_modules_never_import_jax():
    out = run("import sys, jaxviz.engine, jaxviz.engine.client, jaxviz.cli.runner\n"
              "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('jax', 'jaxlib')\n"
              "             or m.startswith('jaxviz.core') or m == 'jaxviz.worker.server')\n"
              "print(bad); sys.exit(1 if bad else 0)")
    assert out.returncode == 0, out.stdout + out.stderr


def test_server_never_imports_qt():
    # Start the devices and import everything a request needs, as the engine does.
    out = run("import sys\n"
              "from jaxviz.worker import server\n"
              "server.start_devices(server.parse_args(['--devices', '2']))\n"
              "server._warm_up()\n"
              "import jaxviz.core.service\n"
              "bad = sorted(m for m in sys.modules\n"
              "             if m.split('.')[0] in ('PySide6', 'pyqtgraph') or\n"
              "             m.startswith('jaxviz.ui'))\n"
              "print(bad); sys.exit(1 if bad else 0)")
    assert out.returncode == 0, out.stdout + out.stderr
