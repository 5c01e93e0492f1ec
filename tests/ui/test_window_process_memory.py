"""What the window's process keeps and loads (issue 31: the GUI process within 150 MB).

Structural, never RSS figures: which modules a fresh window process loads while it
does everything a session does (the window built, the engine client's protocol used,
a file remembered as trusted, the values panel and the timing view made), and that
what replaced a library gives that library's answers.
"""

from __future__ import annotations

import hashlib

import pytest

from jaxviz.engine import protocol
from jaxviz.ui.window import settings
from tests.helpers.fresh import fresh_json

#: Loaded by nothing the window needs: OpenSSL's libcrypto came with hashlib (4 MB
#: resident) for two digests Qt computes and for the engine token's comparison.
NEVER_IN_THE_WINDOW = ("hashlib", "_hashlib", "hmac", "ssl", "_ssl", "secrets")

SESSION = """
import json, sys, tempfile
from PySide6.QtWidgets import QApplication
app = QApplication(["x"])
from jaxviz.ui.window.main_window import MainWindow
from jaxviz.ui.window.settings import RememberedSettings, TrustedFiles
from jaxviz.engine import EngineClient, protocol
window = MainWindow()
window.resize(1280, 800)
window.show()
app.processEvents()
token = protocol.new_token()
signed = protocol.signed({"op": "ready", "token": token}, token)
TrustedFiles(RememberedSettings().q).remember("/tmp/f.py", "x = 1")
from jaxviz.ui.stepper.values_panel import ValuesPanel
from jaxviz.ui.timing.view import TimingView
print(json.dumps({"modules": sorted(sys.modules), "signed": signed}))
"""


@pytest.mark.slow
def test_the_window_process_never_loads_openssl(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    got = fresh_json(SESSION)
    assert got["signed"]
    # the session did load what it used (else the test proves nothing)
    assert {"jaxviz.engine.client", "jaxviz.ui.window.settings", "pyqtgraph"} <= set(got["modules"])
    assert [m for m in NEVER_IN_THE_WINDOW if m in got["modules"]] == []


@pytest.mark.parametrize("text", ["", "x = 1\n", "ünï \udc80 " * 3000])
def test_a_trusted_files_digest_is_sha256(text):
    assert settings._digest(text) == hashlib.sha256(
        text.encode("utf-8", "surrogatepass")).hexdigest()


@pytest.mark.parametrize("path", ["", "/home/me/model.py", "C:\\Users\\é\\train.py"])
def test_a_remembered_files_key_is_the_start_of_its_sha1(path):
    assert settings._key(path) == hashlib.sha1(path.encode("utf-8")).hexdigest()[:16]


def test_the_engine_token_is_16_random_bytes_and_only_it_signs():
    tokens = {protocol.new_token() for _ in range(50)}
    assert len(tokens) == 50
    assert all(len(t) == 32 and bytes.fromhex(t) for t in tokens)
    token = next(iter(tokens))
    assert protocol.signed({"token": token}, token)
    assert not protocol.signed({"token": token[:-1] + "x"}, token)
    assert not protocol.signed({"token": 7}, token)
    assert not protocol.signed({}, token)
