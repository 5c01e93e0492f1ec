"""A :class:`~PySide6.QtGui.QSyntaxHighlighter` driven by a Pygments lexer.

Qt highlights one block (line) at a time, but Pygments needs the whole text to
lex multi-line constructs (a triple-quoted string opened ten lines up). So the
highlighter lexes the whole document once per change, keeps the token spans of
every line, and answers Qt's per-line calls from that cache. Each line's block
state is a hash of its spans and of the token it ends in, so when an edit turns
the rest of the file into a string, Qt keeps re-highlighting the following
lines until they stop changing.

The lexers are made off the GUI thread: a Pygments lexer class compiles its
dozens of regular expressions when its first instance is made (about 0.1 s of
CPU for Python's), which would otherwise run before the window paints or when
the first example opens. :func:`warm_lexers` (called once the window is on
screen) makes them all in one background thread; a highlighter whose lexer is
not ready yet leaves its text plain and colours it when the lexer arrives
(a queued Qt signal), so the GUI thread never waits for one. :meth:`spans`,
the query used by tests and tools, makes the lexer at once when asked.

Example:
    >>> hl = PygmentsHighlighter(editor.document(), "python")  # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import importlib
import threading
from typing import TYPE_CHECKING

from pygments.token import Text, Whitespace, _TokenType
from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtGui import (
    QColor,
    QFont,
    QSyntaxHighlighter,
    QTextCharFormat,
    QTextDocument,
    QTextLayout,
)

from jaxviz.ui.sliced import SlicedJob
from jaxviz.ui.theme import style
from jaxviz.views.incremental import Steps, run_to_end

if TYPE_CHECKING:
    from pygments.lexer import Lexer

Span = tuple[int, int, _TokenType]

#: Read-only texts longer than this are lexed in steps and coloured in chunks
#: (a 5000-line HLO text lexed and coloured at once is about a second of the GUI
#: thread's time).
LONG_LINES = 300
#: Lines coloured per event-loop turn (a few ms of the GUI thread each).
CHUNK_LINES = 100

#: Lexer kind -> (module, class); made in this order by :func:`warm_lexers`.
LEXERS = {
    "python": ("pygments.lexers.python", "PythonLexer"),
    "jaxpr": ("jaxviz.views.text.lexers", "JaxprLexer"),
    "stablehlo": ("jaxviz.views.text.lexers", "StableHloLexer"),
    "hlo": ("jaxviz.views.text.lexers", "HloLexer"),
}


class _Lexers(QObject):
    """One shared lexer per kind (Pygments lexers keep no state between texts), made
    once under a lock by whichever thread asks first."""

    #: A lexer kind was made (emitted from the warm-up thread: queued to the GUI's).
    made = Signal(str)

    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.Lock()
        self._made: dict[str, Lexer] = {}
        self.worker: threading.Thread | None = None

    def ready(self, kind: str) -> Lexer | None:
        """The lexer if it is made, else None (never waits)."""
        return self._made.get(kind)

    def make(self, kind: str) -> Lexer:
        """The lexer, made now if need be (waits for the warm-up thread's current one)."""
        with self._lock:
            lexer = self._made.get(kind)
            if lexer is None:
                module, name = LEXERS[kind]
                cls = getattr(importlib.import_module(module), name)
                lexer = self._made[kind] = cls(stripnl=False, ensurenl=False)
        return lexer

    def warm(self) -> threading.Thread:
        """Make every lexer in a background thread (once); returns that thread."""
        if self.worker is None:
            self.worker = threading.Thread(target=self._warm, name="jaxviz-lexers", daemon=True)
            self.worker.start()
        return self.worker

    def _warm(self) -> None:
        for kind in LEXERS:
            if kind not in self._made:
                self.make(kind)
                self.made.emit(kind)


_LEXERS: _Lexers | None = None


def lexers() -> _Lexers:
    """The process's lexers (made in the GUI thread on first use)."""
    global _LEXERS
    if _LEXERS is None:
        _LEXERS = _Lexers()
    return _LEXERS


def warm_lexers() -> threading.Thread:
    """Start making every highlighter's lexer in a background thread (idempotent)."""
    return lexers().warm()


class PygmentsHighlighter(QSyntaxHighlighter):
    """Colours a document with a Pygments lexer and the colours of :mod:`jaxviz.ui.theme.style`.

    A read-only view (``chunked``) that calls :meth:`prepare_for` before it puts a long
    text (over :data:`LONG_LINES` lines) into its document gets it coloured off the
    GUI thread's critical path: the highlighter steps off the document (so Qt does not
    call :meth:`highlightBlock` on every line at once), the text is lexed in steps of a
    few milliseconds per event-loop turn (:class:`~jaxviz.ui.sliced.SlicedJob`; a
    thread would hold the GIL the GUI thread needs), and its formats are set
    :data:`CHUNK_LINES` lines per event-loop turn.

    Signals:
        coloured(): a long text's last chunk was coloured.
    """

    coloured = Signal()

    def __init__(self, document: QTextDocument, lexer: Lexer | str):
        super().__init__(None)  # type: ignore[call-overload]  # the document is set below
        self._kind = lexer if isinstance(lexer, str) else ""
        self._lexer: Lexer | None = None if isinstance(lexer, str) else lexer
        if self._kind and lexers().ready(self._kind) is None:
            lexers().made.connect(self._lexer_made)
        self._formats: dict[_TokenType, QTextCharFormat | None] = {}
        self._lines: list[list[Span]] = []
        self._ends: list[_TokenType] = []
        self._dirty = True
        self._doc = document
        #: Whether :meth:`prepare_for` may colour long texts in chunks (read-only views).
        self.chunked = False
        #: A long text's lexing or colouring is under way.
        self.lexing = False
        self._long = False  # stepped off the document for a long text
        self._generation = 0
        self._applying = False
        self._recheck_pending = False
        self._job: SlicedJob | None = None  # a long text's lexing, in steps
        # Connected before the highlighter's own slot, so the cache is invalid
        # by the time Qt asks for the changed lines.
        document.contentsChange.connect(self._invalidate)
        self.setDocument(document)
        self.setParent(document)  # goes with its document (and off the lexers' signal)

    def _invalidate(self, *_args) -> None:
        if self._applying:  # the formats of our own chunks
            return
        self._dirty = True
        self._generation += 1  # a lexing or chunk still under way is out of date
        if self._long and not self._recheck_pending:
            self._recheck_pending = True
            QTimer.singleShot(0, self, self._recheck)

    def _lexer_made(self, kind: str) -> None:
        with contextlib.suppress(RuntimeError):  # its document was deleted meanwhile
            self._use_lexer(kind)

    def _use_lexer(self, kind: str) -> None:
        if kind == self._kind and self._lexer is None:
            lexers().made.disconnect(self._lexer_made)
            self._lexer = lexers().ready(kind)
            self._dirty = True
            if self._long:
                self._lex_later()
            elif not self._doc.isEmpty():
                self.rehighlight()

    def _current_lexer(self, wait: bool) -> Lexer | None:
        if self._lexer is None and self._kind:
            self._lexer = lexers().make(self._kind) if wait else lexers().ready(self._kind)
            if self._lexer is None:
                lexers().warm()  # arrives through _lexer_made
        return self._lexer

    def _relex(self, wait: bool = True) -> None:
        text = self._doc.toPlainText()
        lexer = self._current_lexer(wait) if text else None
        if lexer is None and text:  # not made yet: plain for now, coloured when it is
            self._lines, self._ends = [[] for _ in text.split("\n")], []
            self._dirty = False
            return
        self._lines, self._ends = lex_spans(lexer, text)
        self._dirty = False

    # ------------------------------------------------- long texts, in chunks
    def prepare_for(self, text: str) -> None:
        """Call before the document's text becomes ``text``: a long text in a ``chunked``
        highlighter is lexed in steps and coloured in chunks."""
        if self.chunked and text.count("\n") >= LONG_LINES and not self._long:
            self._long = True
            self.lexing = True
            self.setDocument(None)  # type: ignore[arg-type]  # Qt accepts no document

    def _recheck(self) -> None:
        self._recheck_pending = False
        if not self._long:
            return
        if self._doc.blockCount() > LONG_LINES:
            self._lex_later()
        else:  # short again: Qt's own highlighting (one pass on the next turn)
            self._long = False
            self.lexing = False
            self.setDocument(self._doc)

    def _lex_later(self) -> None:
        self._generation += 1
        generation = self._generation
        text = self._doc.toPlainText()
        lexer = self._current_lexer(wait=False)
        if lexer is None:
            return  # its arrival (_lexer_made) comes back here
        self.lexing = True
        if self._job is not None:
            self._job.cancel()
        # in steps on the GUI thread, a few ms per turn: a lexing thread would hold the GIL
        # the GUI thread needs for each Qt call (see jaxviz.views.incremental)
        self._job = SlicedJob(lex_steps(lexer, text), parent=self)
        self._job.finished.connect(lambda found: self._on_lexed(generation, found))
        self._job.start()

    def _on_lexed(self, generation: int, found: tuple) -> None:
        self._job = None
        if generation != self._generation or not self._long:
            return  # the text changed since: its own lexing is on its way
        self._lines, self._ends = found
        self._dirty = False
        self._apply_from(0, generation)

    def _apply_from(self, first: int, generation: int) -> None:
        if generation != self._generation or not self._long:
            return
        doc = self._doc
        block = doc.findBlockByNumber(first)
        start = block.position()
        end = start
        self._applying = True
        try:
            for _ in range(CHUNK_LINES):
                if not block.isValid():
                    break
                ranges = []
                for col, length, ttype in self._lines[block.blockNumber()]:
                    fmt = self._format(ttype)
                    if fmt is not None:
                        ranges.append(_format_range(col, length, fmt))
                block.layout().setFormats(ranges)
                end = block.position() + block.length()
                block = block.next()
            if end > start:
                doc.markContentsDirty(start, end - start)
        finally:
            self._applying = False
        if block.isValid():
            QTimer.singleShot(0, self, lambda: self._apply_from(first + CHUNK_LINES, generation))
        else:
            self.lexing = False
            self.coloured.emit()

    def _format(self, ttype: _TokenType) -> QTextCharFormat | None:
        if ttype not in self._formats:
            found = style.style_for(ttype)
            fmt = None
            if found is not None:
                colour, bold, italic = found
                fmt = QTextCharFormat()
                fmt.setForeground(QColor(colour))
                if bold:
                    fmt.setFontWeight(QFont.Weight.Bold)
                if italic:
                    fmt.setFontItalic(True)
            self._formats[ttype] = fmt
        return self._formats[ttype]

    def spans(self, line: int) -> list[Span]:
        """The coloured token spans of a 0-based line: ``(column, length, token type)``
        (makes the lexer now if the warm-up thread has not yet)."""
        if self._lexer is None and self._kind:
            self._relex()
            if not self._doc.isEmpty() and not self._long:
                self.rehighlight()  # the blocks coloured plain while it was missing
        elif self._dirty:
            self._relex()
        return self._lines[line] if 0 <= line < len(self._lines) else []

    def highlightBlock(self, text: str) -> None:  # noqa: N802 - Qt's name
        line = self.currentBlock().blockNumber()
        if self._dirty:
            self._relex(wait=False)
        spans = self._lines[line] if 0 <= line < len(self._lines) else []
        for col, length, ttype in spans:
            fmt = self._format(ttype)
            if fmt is not None:
                self.setFormat(col, length, fmt)
        end = self._ends[line] if line < len(self._ends) else Text
        self.setCurrentBlockState(hash((tuple(spans), end)) & 0x3FFFFFFF)


def _format_range(start: int, length: int, fmt: QTextCharFormat) -> QTextLayout.FormatRange:
    found = QTextLayout.FormatRange()
    found.start, found.length, found.format = start, length, fmt
    return found


def lex_spans(lexer: Lexer | None, text: str) -> tuple[list[list[Span]], list[_TokenType]]:
    """Each line's coloured spans ``(column, length, token type)`` and the token each line
    ends in (plain Python: runs in any thread)."""
    return run_to_end(lex_steps(lexer, text))


#: Tokens lexed per step of :func:`lex_steps`.
STEP_TOKENS = 200


def lex_steps(lexer: Lexer | None, text: str
              ) -> Steps[tuple[list[list[Span]], list[_TokenType]]]:
    """:func:`lex_spans` in steps of :data:`STEP_TOKENS` tokens (Pygments lexes lazily)."""
    lines: list[list[Span]] = [[]]
    ends: list[_TokenType] = []
    col = 0
    last: _TokenType = Text
    tokens = lexer.get_tokens_unprocessed(text) if lexer is not None else ()
    for count, (_index, ttype, value) in enumerate(tokens, 1):
        parts = value.split("\n")
        for n, part in enumerate(parts):
            if n:
                ends.append(ttype)
                lines.append([])
                col = 0
            if part and ttype not in (Text, Whitespace):
                lines[-1].append((col, len(part), ttype))
            col += len(part)
        last = ttype
        if count % STEP_TOKENS == 0:
            yield
    ends.append(last)
    return lines, ends


def python_highlighter(document: QTextDocument) -> PygmentsHighlighter:
    """Python source colouring for the editor."""
    return PygmentsHighlighter(document, "python")


def jaxpr_highlighter(document: QTextDocument) -> PygmentsHighlighter:
    """Jaxpr colouring: primitives, variables, shapes, dtypes, collectives in red."""
    return PygmentsHighlighter(document, "jaxpr")


def stablehlo_highlighter(document: QTextDocument) -> PygmentsHighlighter:
    return PygmentsHighlighter(document, "stablehlo")


def hlo_highlighter(document: QTextDocument) -> PygmentsHighlighter:
    return PygmentsHighlighter(document, "hlo")
