"""Pygments lexers for the texts jaxviz shows besides Python: jaxprs, StableHLO, HLO.

Pygments ships no lexer for these, so here are three small
:class:`~pygments.lexer.RegexLexer` subclasses. They emit the standard token
types, so one Pygments-driven highlighter (:mod:`jaxviz.ui.text.highlighters`)
colours Python source, jaxprs and HLO alike:

* primitives (``dot_general``, ``stablehlo.add``, ``all-reduce``) are
  ``Name.Function``; collectives are ``Name.Exception`` so they stand out;
* variables are ``Name.Variable``; dtypes are ``Keyword.Type``; shapes are
  ``Number``; parameter names are ``Name.Attribute``.

Example:
    >>> [t for t in JaxprLexer().get_tokens("c:f32[3] = sin b") if t[1].strip()][:3]
    [(Token.Name.Variable, 'c'), (Token.Punctuation, ':'), (Token.Keyword.Type, 'f32')]
"""

from __future__ import annotations

import re

from pygments.lexer import RegexLexer, bygroups
from pygments.token import (
    Comment,
    Keyword,
    Name,
    Number,
    Operator,
    Punctuation,
    String,
    Text,
    Whitespace,
)

#: Collective primitives, as jaxprs name them.
JAXPR_COLLECTIVES = (
    "psum", "pmax", "pmin", "pmean", "ppermute", "pshuffle", "all_gather", "all_to_all",
    "reduce_scatter", "psum_scatter", "axis_index", "pbroadcast", "psum_invariant",
    "all_gather_invariant",
)

#: Collective ops, as StableHLO and compiled HLO name them.
HLO_COLLECTIVES = (
    "all-reduce", "all-gather", "all-to-all", "collective-permute", "reduce-scatter",
    "all-reduce-start", "all-reduce-done", "all-gather-start", "all-gather-done",
    "collective-permute-start", "collective-permute-done", "collective-broadcast",
    "all_reduce", "all_gather", "all_to_all", "collective_permute", "reduce_scatter",
    "collective_broadcast",
)



def _alternatives(names: tuple[str, ...]) -> str:
    """A regex group matching any of ``names`` (longest first)."""
    return "(" + "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True)) + ")"


_DTYPE = r"(?:bf16|f8\w*|f16|f32|f64|i1|i4|i8|i16|i32|i64|u8|u16|u32|u64|s8|s16|s32|s64|" \
         r"c64|c128|bool|pred|key<\w+>|token)"


class JaxprLexer(RegexLexer):
    """Lexer for jaxprs as ``jax.make_jaxpr(...)`` prints them."""

    name = "Jaxpr"
    aliases = ["jaxpr"]
    filenames = ["*.jaxpr"]

    tokens = {
        "root": [
            (r"\s+", Whitespace),
            (r"\b(lambda|let|in)\b", Keyword),
            # an equation's primitive: the first name after " = "
            (r"(=)(\s+)" + _alternatives(JAXPR_COLLECTIVES) + r"\b",
             bygroups(Operator, Whitespace, Name.Exception)),
            (r"(=)(\s+)([A-Za-z_]\w*)", bygroups(Operator, Whitespace, Name.Function)),
            # a typed variable: name:dtype[shape]
            (r"([A-Za-z_]\w*)(:)(" + _DTYPE + r")(\[)([\d,]*)(\])",
             bygroups(Name.Variable, Punctuation, Keyword.Type, Punctuation, Number,
                      Punctuation)),
            (r"(" + _DTYPE + r")(\[)([\d,]*)(\])",
             bygroups(Keyword.Type, Punctuation, Number, Punctuation)),
            # a parameter: name=value (no spaces around "=")
            (r"([A-Za-z_]\w*)(=)", bygroups(Name.Attribute, Operator)),
            (r"\{V:[^}]*\}", Comment),  # varying-manual-axes annotations
            (r"'[^']*'|\"[^\"]*\"", String),
            (r"-?\d+\.\d*(e[+-]?\d+)?|-?\d+(e[+-]?\d+)?", Number),
            (r"\b(None|True|False)\b", Keyword.Constant),
            (r"[A-Za-z_]\w*", Name),
            (r"[{}\[\](),.;:]", Punctuation),
            (r".", Text),
        ],
    }


class StableHloLexer(RegexLexer):
    """Lexer for StableHLO / MLIR text as ``jit(f).lower(...).as_text()`` prints it."""

    name = "StableHLO"
    aliases = ["stablehlo"]
    filenames = ["*.mlir"]

    tokens = {
        "root": [
            (r"\s+", Whitespace),
            (r"//.*?$", Comment.Single),
            (r'"[^"]*"', String),
            (r"%[\w.#]+", Name.Variable),
            (r"@[\w.$]+", Name.Label),
            (r"#[\w.]+", Name.Decorator),
            (r"(stablehlo|sdy|mhlo)(\.)" + _alternatives(HLO_COLLECTIVES) + r"\b",
             bygroups(Name.Namespace, Punctuation, Name.Exception)),
            (r"(stablehlo|sdy|mhlo|func|chlo|shardy)(\.)([\w.]+)",
             bygroups(Name.Namespace, Punctuation, Name.Function)),
            (r"(tensor)(<)([\dx?]*?)(" + _DTYPE + r")(>)",
             bygroups(Keyword.Type, Punctuation, Number, Keyword.Type, Punctuation)),
            (r"\b(module|func|return|attributes|public|private)\b", Keyword),
            (r"\b" + _DTYPE + r"\b", Keyword.Type),
            (r"-?\d+\.\d*(e[+-]?\d+)?|-?\d+", Number),
            (r"[A-Za-z_][\w.]*", Name),
            (r"[{}\[\]()<>,:=\-]", Punctuation),
            (r".", Text),
        ],
    }


class HloLexer(RegexLexer):
    """Lexer for compiled HLO text as ``.compile().as_text()`` prints it."""

    name = "HLO"
    aliases = ["hlo"]
    filenames = ["*.hlo"]

    tokens = {
        "root": [
            (r"\s+", Whitespace),
            (r'"[^"]*"', String),
            (r"\b(HloModule|ENTRY|ROOT)\b", Keyword),
            (r"%[\w.\-]+", Name.Variable),
            (r"(" + _DTYPE + r")(\[)([\d,]*)(\])(\{[\d,]*\})?",
             bygroups(Keyword.Type, Punctuation, Number, Punctuation, Comment)),
            (_alternatives(HLO_COLLECTIVES) + r"(?=\()", Name.Exception),
            (r"[a-z][\w\-]*(?=\()", Name.Function),
            (r"([A-Za-z_]\w*)(=)", bygroups(Name.Attribute, Operator)),
            (r"-?\d+\.\d*(e[+-]?\d+)?|-?\d+", Number),
            (r"[A-Za-z_][\w.\-]*", Name),
            (r"[{}\[\](),:=>\-]", Punctuation),
            (r".", Text),
        ],
    }
