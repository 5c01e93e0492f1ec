"""The corpus of programs in JAX's documentation style (tests/corpus/): each file's ``CASES``
read without running it, the request jaxviz gets for a case, and values parsed from ``repr``."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np

from jaxviz.model import TraceRequest, TraceSettings
from jaxviz.model.sources import resolve_target

CORPUS = Path(__file__).resolve().parents[1] / "corpus"



def case_request(filename: str, name: str, want=("jaxpr", "value")) -> tuple[TraceRequest, str]:
    """The request for corpus case ``name`` of ``filename`` (its settings), and its variant."""
    case = next(c for f, n, c in CASES if f == filename and n == name)
    variant = case.get("variant", name)
    target, _ = resolve_target(f"{CORPUS / filename}:{case['function']}")
    settings = {k: case[k] for k in TraceSettings.names() if k in case}
    return TraceRequest(target=target, variants=[variant], want=list(want), **settings), variant



def parse_value(text: str):
    """A value as ``repr`` prints it (``Array([...], dtype=float32)``), as numpy arrays."""
    def array(value, dtype=None, weak_type=False):
        return np.asarray(value, dtype=dtype)

    names = {"Array": array, "array": array, "inf": np.inf, "nan": np.nan, "np": np}
    names.update({name: np.dtype(name) for name in
                  ("float32", "float64", "int32", "int64", "bool", "uint32", "float16")})
    return eval(text, names)  # noqa: S307 - our own repr text


def corpus_cases() -> list[tuple[str, str, dict]]:
    """(file name, case name, case) for every case of every corpus file."""
    out = []
    for path in sorted(CORPUS.glob("*.py")):
        tree = ast.parse(path.read_text())
        for node in tree.body:
            if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "CASES":
                for name, case in _literal(node.value).items():
                    out.append((path.name, name, case))
    return out


def _literal(node: ast.expr):
    """``CASES``' literal: dicts, ``dict(k=v)`` calls and constants."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict":
        return {kw.arg: _literal(kw.value) for kw in node.keywords}
    if isinstance(node, ast.Dict):
        return {_literal(k): _literal(v) for k, v in zip(node.keys, node.values)}
    return ast.literal_eval(node)


CASES = corpus_cases()
