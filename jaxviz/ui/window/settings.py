"""What the window remembers between runs (QSettings) and where it keeps recovery copies.

Remembered: zoom, window geometry and dock layout, visible panes and their
layout, the device count, recent files (newest first), the function open last
(``jaxviz`` started without a target, e.g. from the applications menu, opens
it again), per file the function and argument fields last used with it, and
the files the user has run (path and content hash: :class:`TrustedFiles`).
Unsaved editor text is copied to the user's data folder
(``QStandardPaths.AppDataLocation``/recovery) while the user types, and removed
when it is saved or deliberately discarded; a crash leaves it there for the
next start to offer back.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from pathlib import Path

from PySide6.QtCore import (
    QByteArray,
    QCoreApplication,
    QCryptographicHash,
    QEvent,
    QObject,
    QSettings,
    QStandardPaths,
    QTimer,
)

from jaxviz.model.files import SETTINGS_BYTES, SOURCE_BYTES, parse_json, read_text

MAX_RECENT = 10


class TrustedFiles:
    """Files the user has run in jaxviz, each with the SHA-256 of the content they ran.

    The trust rule (README, "What runs, and when"): a file opened in the
    window runs only once the user says so (Trace, F5, or Run in the timing
    view); jaxviz then remembers its path and content here, so it traces at
    once when it is opened again unchanged. Changed elsewhere since, it waits
    for the user's say again.
    """

    def __init__(self, q: QSettings):
        self.q = q

    def knows(self, path: str | Path, text: str) -> bool:
        """True when the user ran ``path`` with exactly this content before."""
        return self.q.value(f"trusted/{_key(str(path))}") == _digest(text)

    def remember(self, path: str | Path, text: str) -> None:
        """The user ran ``path`` with this content: trace it at once next time."""
        self.q.setValue(f"trusted/{_key(str(path))}", _digest(text))


def _hex_digest(data: bytes, algorithm: QCryptographicHash.Algorithm) -> str:
    """``hashlib``'s hexdigest of ``data``, from Qt's own hashing: the window's process does
    not load OpenSSL's libcrypto for it (``import hashlib`` is 4 MB resident)."""
    return bytes(QCryptographicHash.hash(QByteArray(data), algorithm).toHex().data()).decode()


def _digest(text: str) -> str:
    return _hex_digest(text.encode("utf-8", "surrogatepass"), QCryptographicHash.Algorithm.Sha256)


#: How long a change waits before Qt writes the settings file (ms). Qt writes it in the
#: next turn of the event loop, which is the turn that paints what the change came with
#: (the example just opened names itself the one to open next time): a file written and
#: flushed to disk, 0.5-4 ms on the clock in a turn that has no time to spare. Closing the
#: window writes at once (:meth:`RememberedSettings.sync`), and so does Qt when the
#: settings object goes.
WRITE_AFTER_MS = 1000


class _WriteLater(QObject):
    """Holds back a QSettings' own write (its ``UpdateRequest`` event, which Qt posts at
    the first change after a write) for :data:`WRITE_AFTER_MS`, then lets it through."""

    def __init__(self, q: QSettings):
        super().__init__(q)  # (no reference of its own to ``q``: its child would keep it)
        self._letting_through = False
        self._timer = QTimer(self, singleShot=True, interval=WRITE_AFTER_MS)
        self._timer.timeout.connect(self._write)
        q.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        if event.type() != QEvent.Type.UpdateRequest or self._letting_through:
            return False
        if not self._timer.isActive():
            self._timer.start()
        return True

    def _write(self) -> None:
        settings = self.parent()
        if settings is None:
            return
        self._letting_through = True
        try:
            QCoreApplication.sendEvent(settings, QEvent(QEvent.Type.UpdateRequest))
        finally:
            self._letting_through = False


class RememberedSettings:
    """Typed access to the window's QSettings (organisation and application ``jaxviz``),
    written to its file a second after a change (:data:`WRITE_AFTER_MS`)."""

    def __init__(self, qsettings: QSettings | None = None):
        self.q = qsettings or QSettings("jaxviz", "jaxviz")
        self._write_later = _WriteLater(self.q)
        #: Files the user has run, by path and content (see :class:`TrustedFiles`).
        self.trusted = TrustedFiles(self.q)

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
    def two_panes(self) -> tuple[str, str] | None:
        """The variants of the ``two panes`` layout, as last chosen (None: never chosen)."""
        value = self.q.value("view/two_panes")
        pair = [value] if isinstance(value, str) else list(value or [])
        return (str(pair[0]), str(pair[1])) if len(pair) == 2 else None

    @two_panes.setter
    def two_panes(self, pair: tuple[str, str]) -> None:
        self.q.setValue("view/two_panes", list(pair))

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
            fields = parse_json(raw, "file fields") if raw else {}
        except (TypeError, ValueError):  # FileProblem (nested too deeply) is a ValueError
            return {}
        return fields if isinstance(fields, dict) else {}

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
    return _hex_digest(path.encode("utf-8"), QCryptographicHash.Algorithm.Sha1)[:16]


# --------------------------------------------------------------------------- #
# Crash recovery
# --------------------------------------------------------------------------- #


def _write_private(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` as a file only its owner can read (0600), atomically."""
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        os.fchmod(f.fileno(), 0o600)  # an old .tmp may have had other bits
        f.write(text)
    tmp.replace(path)


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
        """Write (or overwrite) the copy for ``key``; returns its path.

        The copies are the user's unsaved code: readable by the user alone
        (files 0600 in a folder 0700, whatever the umask or an older jaxviz left).
        """
        self.dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.dir.chmod(0o700)
        name = _key(key)
        path = self.dir / f"{name}.py"
        _write_private(path, text)
        info = dict(meta, key=key, saved=time.time())
        _write_private(self.dir / f"{name}.json", json.dumps(info))
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
                meta = parse_json(read_text(meta_path, limit=SETTINGS_BYTES), str(meta_path))
                text = read_text(meta_path.with_suffix(".py"), limit=SOURCE_BYTES,
                                 what="Python source")
            except ValueError:  # unreadable (FileProblem), not JSON, nested too deeply
                continue
            if not isinstance(meta, dict):
                continue
            found.append((meta, text))
        return sorted(found, key=lambda item: -float(item[0].get("saved", 0)))
