"""A text lexed lately is not lexed again (an example opened again, a pane's unchanged
jaxpr after an edit elsewhere): the spans are Pygments' own, and the lexer is not asked."""

from __future__ import annotations

from pygments.token import Text, Whitespace

from jaxviz.ui.text import highlighters
from jaxviz.ui.text.highlighters import REMEMBERED_CHARS, REMEMBERED_TOTAL, lex_spans, lexers


class _Counting:
    """A lexer that counts how often it is asked (and lexes as Pygments' Python lexer)."""

    def __init__(self, inner):
        self.inner, self.calls = inner, 0

    def get_tokens_unprocessed(self, text):
        self.calls += 1
        return self.inner.get_tokens_unprocessed(text)


def _spans_from_pygments(lexer, text):
    """The oracle: each line's (column, length, token) straight from Pygments' tokens."""
    lines, col = [[]], 0
    for _index, ttype, value in lexer.get_tokens_unprocessed(text):
        for n, part in enumerate(value.split("\n")):
            if n:
                lines.append([])
                col = 0
            if part and ttype not in (Text, Whitespace):
                lines[-1].append((col, len(part), ttype))
            col += len(part)
    return lines


def test_a_text_lexed_again_is_remembered_and_equals_pygments():
    python = lexers().make("python")
    lexer = _Counting(python)
    text = "def f(x):\n    return x * 2  # twice\n"
    first = lex_spans(lexer, text)
    again = lex_spans(lexer, text)
    assert lexer.calls == 1  # the second time from memory
    assert again[0] == first[0] == _spans_from_pygments(python, text)
    other = text.replace("2", "3")
    assert lex_spans(lexer, other)[0] == _spans_from_pygments(python, other)
    assert lexer.calls == 2  # another text: lexed


def test_a_long_text_is_not_remembered():
    lexer = _Counting(lexers().make("python"))
    text = "x = 1\n" * (REMEMBERED_CHARS // 6 + 10)
    lex_spans(lexer, text)
    lex_spans(lexer, text)
    assert lexer.calls == 2


def test_keystrokes_in_the_editor_do_not_push_a_panes_jaxpr_out():
    jaxpr = _Counting(lexers().make("jaxpr"))
    python = _Counting(lexers().make("python"))
    text = "{ lambda ; a:f32[8]. let b:f32[8] = sin a in (b,) }"
    lex_spans(jaxpr, text)
    typed = "def f(x):\n    return x"
    for n in range(1, len(typed) * 2):  # a text per keystroke
        lex_spans(python, typed[:n % len(typed) + 1] + " " * (n // len(typed)))
    lex_spans(jaxpr, text)
    assert jaxpr.calls == 1


def test_a_round_of_many_short_jaxprs_stays_remembered_within_a_budget():
    """A lecture going round the gallery (33 jaxprs of a few thousand characters): the
    second round lexes none again; texts beyond the budget push the oldest out, and what
    is kept never exceeds it."""
    lexer = _Counting(lexers().make("jaxpr"))
    texts = [f"{{ lambda ; a:f32[{n}]. let\n" + "    b:f32[8] = sin a\n" * 80 + "  in (b,) }"
             for n in range(40)]
    for _round in range(2):
        for text in texts:
            lex_spans(lexer, text)
    assert lexer.calls == len(texts)
    assert sum(map(len, highlighters._remembered[lexer])) <= REMEMBERED_TOTAL
    big = [f"# {n}\n" + "x = 1\n" * (REMEMBERED_CHARS // 8) for n in range(40)]
    for text in big:  # (each under the longest remembered, together far over the budget)
        lex_spans(lexer, text)
    kept = highlighters._remembered[lexer]
    assert sum(map(len, kept)) <= REMEMBERED_TOTAL
    assert list(kept)[-1] == big[-1] and texts[0] not in kept
