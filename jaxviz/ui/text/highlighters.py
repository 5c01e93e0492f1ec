"""A :class:`~PySide6.QtGui.QSyntaxHighlighter` driven by a Pygments lexer.

Qt highlights one block (line) at a time, but Pygments needs the whole text to
lex multi-line constructs (a triple-quoted string opened ten lines up). So the
highlighter lexes the whole document once per change, keeps the token spans of
every line, and answers Qt's per-line calls from that cache. Each line's block
state is a hash of its spans and of the token it ends in, so when an edit turns
the rest of the file into a string, Qt keeps re-highlighting the following
lines until they stop changing.

Example:
    >>> hl = PygmentsHighlighter(editor.document(), PythonLexer())  # doctest: +SKIP
"""

from __future__ import annotations

from pygments.lexer import Lexer
from pygments.lexers.python import PythonLexer
from pygments.token import Text, Whitespace, _TokenType
from PySide6.QtGui import QColor, QFont, QSyntaxHighlighter, QTextCharFormat, QTextDocument

from jaxviz.ui.theme import style
from jaxviz.views.text.lexers import HloLexer, JaxprLexer, StableHloLexer

Span = tuple[int, int, _TokenType]


class PygmentsHighlighter(QSyntaxHighlighter):
    """Colours a document with a Pygments lexer and the colours of :mod:`jaxviz.ui.theme.style`."""

    def __init__(self, document: QTextDocument, lexer: Lexer):
        super().__init__(None)  # type: ignore[call-overload]  # the document is set below
        self._lexer = lexer
        self._formats: dict[_TokenType, QTextCharFormat | None] = {}
        self._lines: list[list[Span]] = []
        self._ends: list[_TokenType] = []
        self._dirty = True
        # Connected before the highlighter's own slot, so the cache is invalid
        # by the time Qt asks for the changed lines.
        document.contentsChange.connect(self._invalidate)
        self.setDocument(document)

    def _invalidate(self, *_args) -> None:
        self._dirty = True

    def _relex(self) -> None:
        text = self.document().toPlainText()
        lines: list[list[Span]] = [[]]
        ends: list[_TokenType] = []
        col = 0
        last: _TokenType = Text
        for _index, ttype, value in self._lexer.get_tokens_unprocessed(text):
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
        ends.append(last)
        self._lines, self._ends = lines, ends
        self._dirty = False

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
        """The coloured token spans of a 0-based line: ``(column, length, token type)``."""
        if self._dirty:
            self._relex()
        return self._lines[line] if 0 <= line < len(self._lines) else []

    def highlightBlock(self, text: str) -> None:  # noqa: N802 - Qt's name
        line = self.currentBlock().blockNumber()
        spans = self.spans(line)
        for col, length, ttype in spans:
            fmt = self._format(ttype)
            if fmt is not None:
                self.setFormat(col, length, fmt)
        end = self._ends[line] if line < len(self._ends) else Text
        self.setCurrentBlockState(hash((tuple(spans), end)) & 0x3FFFFFFF)


def python_highlighter(document: QTextDocument) -> PygmentsHighlighter:
    """Python source colouring for the editor."""
    return PygmentsHighlighter(document, PythonLexer(stripnl=False, ensurenl=False))


def jaxpr_highlighter(document: QTextDocument) -> PygmentsHighlighter:
    """Jaxpr colouring: primitives, variables, shapes, dtypes, collectives in red."""
    return PygmentsHighlighter(document, JaxprLexer(stripnl=False, ensurenl=False))


def stablehlo_highlighter(document: QTextDocument) -> PygmentsHighlighter:
    return PygmentsHighlighter(document, StableHloLexer(stripnl=False, ensurenl=False))


def hlo_highlighter(document: QTextDocument) -> PygmentsHighlighter:
    return PygmentsHighlighter(document, HloLexer(stripnl=False, ensurenl=False))
