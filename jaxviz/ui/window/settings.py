"""What the window remembers between runs (QSettings) and where it keeps recovery copies.

Remembered: zoom, window geometry and dock layout, visible panes and their
layout, the device count, recent files (newest first), the function open last
(``jaxviz`` started without a target, e.g. from the applications menu, opens
it again), and per file the function and argument fields last used with it.
Unsaved editor text is copied to the user's data folder
(``QStandardPaths.AppDataLocation``/recovery) while the user types, and removed
when it is saved or deliberately discarded; a crash leaves it there for the
next start to offer back.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import time
from pathlib import Path

from PySide6.QtCore import QByteArray, QSettings, QStandardPaths

MAX_RECENT = 10


class Settings:
    """Typed access to the window's QSettings (organisation and application ``jaxviz``)."""

    def __init__(self, qsettings: QSettings | None = None):
        self.q = qsettings or QSettings("jaxviz", "jaxviz")

    # ----------------------------------------------------------- plain values
    @property
    def zoom(self) -> int:
        return _int(self.q.value("view/zoom", 0), 0)

    @zoom.setter
    def zoom(self, value: int) -> None:
        self.q.setValue("view/zoom", int(value))

    @property
    def devices(self) -> int:
        return _int(self.q.value("engine/devices", 8), 8)

    @devices.setter
    def devices(self, value: int) -> None:
        self.q.setValue("engine/devices", int(value))

    @property
    def visible_variants(self) -> list[str] | None:
        value = self.q.value("view/variants")
        if not value:
            return None
        return [value] if isinstance(value, str) else list(value)

    @visible_variants.setter
    def visible_variants(self, variants: list[str]) -> None:
        self.q.setValue("view/variants", list(variants))

    @property
    def pane_layout(self) -> str:
        return str(self.q.value("view/pane_layout", "auto"))

    @pane_layout.setter
    def pane_layout(self, mode: str) -> None:
        self.q.setValue("view/pane_layout", mode)

    @property
    def last_target(self) -> str:
        """The function open last, as a target (``example:NAME``, ``path.py:function``)."""
        return str(self.q.value("session/last_target", "") or "")

    @last_target.setter
    def last_target(self, target: str) -> None:
        self.q.setValue("session/last_target", target)

    # ----------------------------------------------------------- window state
    def save_window(self, geometry: QByteArray, state: QByteArray, splitter: QByteArray) -> None:
        self.q.setValue("window/geometry", geometry)
        self.q.setValue("window/state", state)
        self.q.setValue("window/splitter", splitter)

    def window(self) -> tuple[QByteArray | None, QByteArray | None, QByteArray | None]:
        return (self.q.value("window/geometry"), self.q.value("window/state"),
                self.q.value("window/splitter"))

    # ------------------------------------------------------------ recent files
    def recent_files(self) -> list[str]:
        value = self.q.value("files/recent") or []
        files = [value] if isinstance(value, str) else list(value)
        return [f for f in files if f]

    def add_recent_file(self, path: str) -> list[str]:
        files = [path] + [f for f in self.recent_files() if f != path]
        files = files[:MAX_RECENT]
        self.q.setValue("files/recent", files)
        return files

    def clear_recent_files(self) -> None:
        self.q.setValue("files/recent", [])

    # -------------------------------------------------------- per-file fields
    def file_fields(self, path: str) -> dict:
        """The function and argument fields last used with a file."""
        raw = self.q.value(f"file_fields/{_key(path)}")
        try:
            return json.loads(raw) if raw else {}
        except (TypeError, ValueError):
            return {}

    def set_file_fields(self, path: str, fields: dict) -> None:
        self.q.setValue(f"file_fields/{_key(path)}", json.dumps(fields))

    def sync(self) -> None:
        self.q.sync()


def _int(value: object, default: int) -> int:
    """A stored whole number (QSettings may hand it back as a string); ``default`` if unreadable."""
    try:
        return int(str(value))
    except ValueError:
        return default


def _key(path: str) -> str:
    return hashlib.sha1(path.encode("utf-8")).hexdigest()[:16]


# --------------------------------------------------------------------------- #
# Crash recovery
# --------------------------------------------------------------------------- #


def recovery_dir() -> Path:
    """Where unsaved editor text is kept: ``<AppDataLocation>/recovery``."""
    base = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation)
    return Path(base or Path.home() / ".jaxviz") / "recovery"


class Recovery:
    """The recovery copy of one editor's unsaved text.

    The copy is ``<recovery_dir>/<key>.py`` with a ``<key>.json`` beside it
    saying what it was (the file's path or the example's name, the function,
    when it was written).
    """

    def __init__(self, directory: Path | None = None):
        self.dir = directory or recovery_dir()

    def save(self, key: str, text: str, meta: dict) -> Path:
        """Write (or overwrite) the copy for ``key``; returns its path."""
        self.dir.mkdir(parents=True, exist_ok=True)
        name = _key(key)
        path = self.dir / f"{name}.py"
        tmp = path.with_suffix(".py.tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
        info = dict(meta, key=key, saved=time.time())
        (self.dir / f"{name}.json").write_text(json.dumps(info), encoding="utf-8")
        return path

    def discard(self, key: str) -> None:
        name = _key(key)
        for suffix in (".py", ".json"):
            with contextlib.suppress(FileNotFoundError):
                (self.dir / f"{name}{suffix}").unlink()

    def pending(self) -> list[tuple[dict, str]]:
        """Every copy left behind (``(meta, text)``), newest first."""
        if not self.dir.is_dir():
            return []
        found = []
        for meta_path in self.dir.glob("*.json"):
            try:
                meta = json.loads(meta_path.read_text(encoding="utf-8"))
                text = meta_path.with_suffix(".py").read_text(encoding="utf-8")
            except (OSError, ValueError):
                continue
            found.append((meta, text))
        return sorted(found, key=lambda item: -float(item[0].get("saved", 0)))
