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

import collections
import contextlib
import functools
import importlib
import threading
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING

from pygments.token import Text, Whitespace, _TokenType
from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetricsF,
    QSyntaxHighlighter,
    QTextBlock,
    QTextCharFormat,
    QTextDocument,
    QTextLayout,
)

from jaxviz.ui.sliced import SlicedJob
from jaxviz.ui.theme import style
from jaxviz.views.incremental import Steps, run_to_end

if TYPE_CHECKING:
    from pygments.lexer import Lexer

    from jaxviz.ui.text.text_base import LinkedTextEdit

Span = tuple[int, int, _TokenType]

#: Read-only texts longer than this are lexed in steps and coloured in chunks
#: (a 5000-line HLO text lexed and coloured at once is about a second of the GUI
#: thread's time).
LONG_LINES = 300
#: Lines coloured per step (each line's formats are ~60 us of the GUI thread: 100 lines a
#: step were 6 ms, steps of the shared 8 ms turn that ran over it).
CHUNK_LINES = 30
#: Lines longer than this many characters are coloured only near the columns in view
#: (:meth:`PygmentsHighlighter.show_columns`): Qt lays out and draws every coloured run
#: of a line at each paint, on screen or not, and a sharded train step's ``in_shardings``
#: line (6,187 characters, 728 runs) made each paint of its view 8-15 ms.
WIDE_LINE = 400
#: Columns coloured left and right of those in view on such a line.
COLUMN_MARGIN = 300

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


@functools.cache
def lexers() -> _Lexers:
    """The process's lexers (made in the GUI thread on first use)."""
    return _Lexers()


def warm_lexers() -> threading.Thread:
    """Start making every highlighter's lexer in a background thread (idempotent)."""
    return lexers().warm()


class PygmentsHighlighter(QSyntaxHighlighter):
    """Colours a document with a Pygments lexer and the colours of :mod:`jaxviz.ui.theme.style`.

    A read-only view (``chunked``) that calls :meth:`prepare_for` before it puts a long
    text (over :data:`LONG_LINES` lines) into its document gets it coloured off the
    GUI thread's critical path: the highlighter steps off the document (so Qt does not
    call :meth:`highlightBlock` on every line at once), the text is lexed in steps and its
    formats set :data:`CHUNK_LINES` lines a step (the lines in view first), every long
    text's steps together taking :data:`SLICE_MS` of an event-loop turn (one
    :class:`~jaxviz.ui.sliced.SlicedJob`; a thread would hold the GIL the GUI thread
    needs). Folded lines are coloured when unfolded (:meth:`colour_unfolded`).

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
        #: The view showing the document (set by the view: a long text's lines in view are
        #: coloured first, and texts on screen before those hidden).
        self._view: Callable[[], LinkedTextEdit | None] = lambda: None
        self._job: SlicedJob | None = None  # the job lexing and colouring a long text
        self._folded: set[int] = set()  # a long text's lines left uncoloured while folded
        #: The text a view is putting into the document in steps (see :meth:`begin_fill`).
        self._fill_text: str | None = None
        #: The columns a line longer than :data:`WIDE_LINE` is coloured in, and those lines.
        self._columns = (0, 2 * COLUMN_MARGIN)
        self._wide: set[int] = set()
        # Connected before the highlighter's own slot, so the cache is invalid
        # by the time Qt asks for the changed lines.
        document.contentsChange.connect(self._invalidate)
        self.setDocument(document)
        self.setParent(document)  # goes with its document (and off the lexers' signal)

    def _invalidate(self, *_args) -> None:
        if self._applying or self._fill_text is not None:  # our own chunks' formats; a fill
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
            if self._long and self._fill_text is None:  # (a fill lexes when it ends)
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

    def begin_fill(self, text: str) -> None:
        """The view puts ``text`` into the document in steps (:meth:`CodeView.fill_steps`):
        the changes on the way are not lexed; :meth:`end_fill` lexes the whole text once."""
        self.prepare_for(text)
        if not self._long:  # a short text: Qt's own per-line pass, as the lines come
            return
        self._fill_text = text
        self._generation += 1  # a lexing under way for the last text is out of date
        self.lexing = True

    def end_fill(self) -> None:
        """The long text :meth:`begin_fill` announced is in the document: lex it and colour
        it in steps."""
        if self._fill_text is None:
            return
        self._fill_text = None
        self._dirty = True
        self._generation += 1
        self._recheck()

    def colour_unfolded(self) -> None:
        """Colour the lines left uncoloured while folded that are shown now (the view calls
        this when it unfolds), the lines in view first, :data:`CHUNK_LINES` per turn."""
        if self._folded:
            _colouring().add(self, self._unfolded_steps(self._generation), part="unfolded")

    def _unfolded_steps(self, generation: int) -> Steps[None]:
        doc = self._doc
        shown = [n for n in sorted(self._folded) if doc.findBlockByNumber(n).isVisible()]
        view = self._view()
        top = view.firstVisibleBlock().blockNumber() if view is not None else 0
        shown = [n for n in shown if n >= top] + [n for n in shown if n < top]
        for k in range(0, len(shown), CHUNK_LINES):
            if generation != self._generation or not self._long:
                return
            for n in shown[k:k + CHUNK_LINES]:
                if n in self._folded:
                    self._apply(n, n + 1)
            yield

    def set_view(self, view: LinkedTextEdit) -> None:
        """The view showing the document (its lines in view are coloured first)."""
        self._view = weakref.ref(view)

    def on_screen(self) -> bool:
        """Whether the document's view is on screen (not in a hidden tab)."""
        view = self._view()
        return view is not None and view.isVisible()

    def _recheck(self) -> None:
        self._recheck_pending = False
        if not self._long or self._fill_text is not None:  # (a fill ends with a recheck)
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
        self._folded = set()
        # in steps on the GUI thread, a few ms per turn: a lexing thread would hold the GIL
        # the GUI thread needs for each Qt call (see jaxviz.views.incremental)
        _colouring().add(self, self._colour_steps(lexer, text, generation))

    def _colour_steps(self, lexer: Lexer, text: str, generation: int) -> Steps[None]:
        """Lex ``text`` in steps, then colour its lines :data:`CHUNK_LINES` at a time: the
        lines in view first, then the rest from the top."""
        found = yield from remembered_steps(lexer, text)
        if generation != self._generation or not self._long:
            return  # the text changed since: its own lexing is on its way
        self._lines, self._ends = found
        self._dirty = False
        self._wide = set()
        count = self._doc.blockCount()
        view = self._view()
        first = max(0, min(view.firstVisibleBlock().blockNumber(), count - 1)) if view else 0
        # the lines in view first, then the rest from there, then from the top; the lines
        # in view are laid out in the steps that colour them (see _apply), CHUNK_LINES a
        # step (60 in one step were 8-10 ms), so the paint that follows only draws them
        shown = view.viewport().height() // max(1, view.fontMetrics().lineSpacing()) + 2 \
            if view is not None else CHUNK_LINES
        in_view = min(count, first + max(shown, CHUNK_LINES))
        spans = [(start, min(start + CHUNK_LINES, in_view))
                 for start in range(first, in_view, CHUNK_LINES)] or [(first, in_view)]
        spans += [(start, min(start + CHUNK_LINES, count))
                  for start in range(in_view, count, CHUNK_LINES)]
        spans += [(start, min(start + CHUNK_LINES, first))
                  for start in range(0, first, CHUNK_LINES)]
        for start, stop in spans:
            yield
            if generation != self._generation or not self._long:
                return
            self._apply(start, stop)
        self.lexing = False
        self.coloured.emit()

    def _apply(self, first: int, stop: int) -> None:
        """Set the formats of lines ``first..stop-1``.

        The lines in view are laid out here and now, with their formats (in the step that
        colours them: laid out in the paint, the 60 lines of a tall view were 6-10 ms of a
        paint after the steps' turn, which their budget could not see); other lines Qt has
        laid out are laid out again when next shown, and lines never laid out get their
        formats when they first are, so colouring lines off screen repaints nothing.
        Folded lines are left for when they are unfolded (:meth:`colour_unfolded`): new
        formats drop a line's layout, and Qt lays out again every folded line a paint
        passes (a train step's pane: 4,000 lines, 245 ms in one paint). Not by marking the
        lines' contents dirty, as Qt's own highlighting does: that drops the layout of every
        line between the first and the last line coloured since the last time.
        """
        doc = self._doc
        view = self._view()
        block = doc.findBlockByNumber(first)
        dirty: tuple[int, int] | None = None
        shown = _lines_in_view(view) if view is not None and view.isVisible() else (0, -1)
        self._applying = True
        try:
            while block.isValid() and block.blockNumber() < stop:
                n = block.blockNumber()
                if not block.isVisible() and view is not None:
                    self._folded.add(n)  # coloured when unfolded (see colour_unfolded)
                    block = block.next()
                    continue
                self._folded.discard(n)
                ranges = []
                for col, length, ttype in self._shown_spans(n, block.length()):
                    fmt = self._format(ttype)
                    if fmt is not None:
                        ranges.append(_format_range(col, length, fmt))
                layout = block.layout()
                laid_out = layout.lineCount() > 0
                layout.setFormats(ranges)
                if laid_out and view is not None:
                    layout.clearLayout()  # laid out again, with its formats, when shown
                now = shown[0] <= n <= shown[1]
                if now:  # in view: laid out here, as Qt's paint would (it only draws it)
                    assert view is not None
                    view.blockBoundingRect(block)
                if laid_out or now:
                    end = block.position() + block.length()
                    dirty = (dirty[0] if dirty else block.position(), end)
                block = block.next()
            if dirty is not None:
                if view is not None:
                    if _in_view(view, dirty):  # (lines off screen: laid out when shown)
                        view.viewport().update()
                else:
                    doc.markContentsDirty(dirty[0], dirty[1] - dirty[0])
        finally:
            self._applying = False

    def _shown_spans(self, line: int, length: int) -> list[Span]:
        """A line's spans to colour: all of them, or on a line longer than
        :data:`WIDE_LINE` those within the columns near the view (:meth:`show_columns`)."""
        spans = self._lines[line] if 0 <= line < len(self._lines) else []
        if length <= WIDE_LINE:
            return spans
        self._wide.add(line)
        lo, hi = self._columns
        return [span for span in spans if span[0] < hi and span[0] + span[1] > lo]

    def show_columns(self, first: int, last: int) -> None:
        """The view shows the columns ``first..last``: lines longer than :data:`WIDE_LINE`
        are coloured from :data:`COLUMN_MARGIN` columns left of them to as many right
        (coloured anew when the view scrolls sideways out of those)."""
        lo, hi = self._columns
        if lo <= first and last <= hi:
            return
        self._columns = (max(0, first - COLUMN_MARGIN), last + COLUMN_MARGIN)
        count = self._doc.blockCount()
        for n in sorted(self._wide):
            if n >= count:
                self._wide.discard(n)
            elif self._long:
                if not self._dirty and n not in self._folded:
                    self._apply(n, n + 1)
            else:
                self.rehighlightBlock(self._doc.findBlockByNumber(n))

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
        for col, length, ttype in self._shown_spans(line, len(text)):
            fmt = self._format(ttype)
            if fmt is not None:
                self.setFormat(col, length, fmt)
        end = self._ends[line] if line < len(self._ends) else Text
        self.setCurrentBlockState(hash((tuple(spans), end)) & 0x3FFFFFFF)


def follow_columns(view: LinkedTextEdit, highlighter: PygmentsHighlighter) -> None:
    """Tell ``highlighter`` which columns ``view`` shows whenever it scrolls sideways or
    changes size (see :meth:`PygmentsHighlighter.show_columns`)."""
    bar = view.horizontalScrollBar()

    def shown(*_args) -> None:
        width = max(1.0, QFontMetricsF(view.font()).horizontalAdvance(" "))
        first = int(bar.value() / width)
        highlighter.show_columns(first, first + int(view.viewport().width() / width) + 1)

    bar.valueChanged.connect(shown)
    bar.rangeChanged.connect(shown)


def _in_view(view: LinkedTextEdit, span: tuple[int, int]) -> bool:
    """Whether the characters ``span`` (start, end) touch the lines a view shows (counted
    from its first line shown, folded ones skipped: not asked of Qt's layout, which would
    lay out every line in view to answer, the paint's work done twice)."""
    shown = _blocks_in_view(view)
    if shown is None:
        return True
    first, last = shown
    return span[0] < last.position() + last.length() and span[1] > first.position()


def _lines_in_view(view: LinkedTextEdit) -> tuple[int, int]:
    """The first and last line (block number) a view shows, counted as :func:`_in_view`
    does (folded lines skipped, not asked of Qt's layout)."""
    shown = _blocks_in_view(view)
    if shown is None:
        return (0, -1)
    return shown[0].blockNumber(), shown[1].blockNumber()


def _blocks_in_view(view: LinkedTextEdit) -> tuple[QTextBlock, QTextBlock] | None:
    """The first and last block a view shows (:meth:`LinkedTextEdit.shown_blocks`); None
    for an empty view."""
    shown = list(view.shown_blocks())
    return (shown[0], shown[-1]) if shown else None


def _format_range(start: int, length: int, fmt: QTextCharFormat) -> QTextLayout.FormatRange:
    found = QTextLayout.FormatRange()
    found.start, found.length, found.format = start, length, fmt
    return found


#: The GUI thread's time per event-loop turn for every long text's lexing and colouring
#: together (one 60 Hz frame is 16.7 ms).
SLICE_MS = 4.0


class _Colouring(QObject):
    """The long texts' lexing and colouring, all views together, in one
    :class:`~jaxviz.ui.sliced.SlicedJob`: a turn of the event loop gives them
    :data:`SLICE_MS` in all, not that much to each (a train step's two panes and the
    compare layout's two columns, one job each, were 25-30 ms turns). A text shown on
    screen goes before those in hidden tabs."""

    def __init__(self) -> None:
        super().__init__()
        self._work: dict[tuple[int, str], tuple[PygmentsHighlighter, Steps[None]]] = {}
        #: The job running the work now (None when there is none).
        self.job: SlicedJob | None = None

    def add(self, highlighter: PygmentsHighlighter, steps: Steps[None],
            part: str = "text") -> None:
        """Run ``steps`` for ``highlighter`` (in place of its earlier work on the same
        ``part``, if any: its ``text``, lines ``unfolded``)."""
        old = self._work.pop((id(highlighter), part), None)
        if old is not None:
            old[1].close()
        self._work[(id(highlighter), part)] = (highlighter, steps)
        if self.job is None or not self.job.busy:
            self.job = SlicedJob(self._steps(), slice_ms=SLICE_MS, parent=self)
            self.job.start()
        highlighter._job = self.job

    def _next(self) -> tuple[int, str] | None:
        for key, (highlighter, _steps) in list(self._work.items()):
            try:
                if highlighter.on_screen():
                    return key
            except RuntimeError:  # its view (or document) was deleted meanwhile
                self._work.pop(key)[1].close()
        return next(iter(self._work), None)

    def _steps(self) -> Steps[None]:
        while self._work:
            key = self._next()
            if key is None:
                break
            steps = self._work[key][1]
            try:
                next(steps)
            except StopIteration:
                self._work.pop(key, None)
            except RuntimeError:  # its document (and highlighter) was deleted meanwhile
                self._work.pop(key, None)
            except Exception:
                self._work.pop(key, None)
                raise
            yield
        self.job = None


@functools.cache
def _colouring() -> _Colouring:
    return _Colouring()


def lex_spans(lexer: Lexer | None, text: str) -> tuple[list[list[Span]], list[_TokenType]]:
    """Each line's coloured spans ``(column, length, token type)`` and the token each line
    ends in (plain Python: runs in any thread); a text lexed lately is not lexed again
    (:func:`remembered_steps`)."""
    return run_to_end(remembered_steps(lexer, text))


#: The longest text whose spans are remembered, and how many characters of texts (the
#: latest) are remembered per lexer (the editor's keystrokes do not push the panes' jaxprs
#: out). A budget of characters, not of texts: the gallery's 33 jaxprs are a few thousand
#: characters each, and 24 texts held too few of them for a lecture going round the
#: examples (each pane lexed anew at each switch, 2-4 ms of the turn that fills it).
REMEMBERED_CHARS, REMEMBERED_TOTAL = 32 * 1024, 24 * 32 * 1024
_Found = tuple[list[list[Span]], list[_TokenType]]
_remembered: dict[Lexer | None, collections.OrderedDict[str, _Found]] = {}
_remembering = threading.Lock()


def remembered_steps(lexer: Lexer | None, text: str) -> Steps[_Found]:
    """:func:`lex_steps`, but a text of at most :data:`REMEMBERED_CHARS` lexed lately is
    not lexed again (an example opened again, a pane's unchanged jaxpr after an edit: 2-15
    ms each): its spans are shared, read only."""
    with _remembering:
        texts = _remembered.setdefault(lexer, collections.OrderedDict())
        found = texts.get(text)
        if found is not None:
            texts.move_to_end(text)
            return found
    found = yield from lex_steps(lexer, text)
    if len(text) <= REMEMBERED_CHARS:
        with _remembering:
            texts[text] = found
            total = sum(map(len, texts))
            while total > REMEMBERED_TOTAL:
                total -= len(texts.popitem(last=False)[0])
    return found


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
