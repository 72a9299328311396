"""Tokens of CUDA source text, for what is read from the raw text rather than from clang's
AST: host launches (``k<<<grid, block>>>``, :mod:`autosync.pipeline.launch`) and integer
constants of the project configuration.  The tokenizer, bracket matching, top-level comma
splitting and a small constant evaluator.
"""

from __future__ import annotations

import ast as pyast
import re
from dataclasses import dataclass

# --------------------------------------------------------------------------- tokens

_TOKEN_RE = re.compile(
    r"""
    (?P<dir>^[ \t]*\#[^\n]*)
    |(?P<nl>\n)
    |(?P<ws>[ \t\r\f\v]+)
    |(?P<comment>//[^\n]*|/\*.*?\*/)
    |(?P<str>L?"(?:\\.|[^"\\\n])*")
    |(?P<chr>L?'(?:\\.|[^'\\\n])*')
    |(?P<id>[A-Za-z_$][A-Za-z0-9_$]*)
    |(?P<num>\.?[0-9](?:[eEpP][+-]|[A-Za-z0-9_.])*)
    |(?P<punct>\.\.\.|<<=|>>=|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^]=|::
        |[{}()\[\];,.<>=!~?:+\-*/%&|^\#])
    |(?P<other>.)
    """,
    re.X | re.M | re.S,
)


@dataclass
class Tok:
    kind: str
    v: str
    start: int
    end: int


def tokenize(text: str) -> list[Tok]:
    """Significant tokens of ``text`` (no whitespace, comments or directive lines)."""
    out: list[Tok] = []
    for m in _TOKEN_RE.finditer(text):
        kind = m.lastgroup or "other"
        if kind in ("dir", "nl", "ws", "comment"):
            continue
        out.append(Tok(kind, m.group(0), m.start(), m.end()))
    return out


def match_brackets(toks: list[Tok]) -> dict[int, int]:
    """Index of the matching bracket for every ``( [ {`` and ``) ] }`` (unbalanced ignored)."""
    pairs = {")": "(", "]": "[", "}": "{"}
    stack: list[int] = []
    out: dict[int, int] = {}
    for i, t in enumerate(toks):
        if t.v in "([{" and t.kind == "punct":
            stack.append(i)
        elif t.v in pairs and t.kind == "punct":
            while stack and toks[stack[-1]].v != pairs[t.v]:
                stack.pop()
            if stack:
                j = stack.pop()
                out[i] = j
                out[j] = i
    return out


def match_angle(toks: list[Tok], i: int, match: dict[int, int]) -> int:
    """Index of the ``>`` (or ``>>``) closing the ``<`` at ``i``; -1 if there is none."""
    depth = 0
    k = i
    while k < len(toks):
        v = toks[k].v
        if v == "<":
            depth += 1
        elif v == ">":
            depth -= 1
        elif v == ">>":
            depth -= 2
        elif v in "([{" and k in match:
            k = match[k]
        elif v in (";", "{", "}", ")", "]"):
            return -1
        if depth <= 0:
            return k
        k += 1
    return -1


def split_commas(toks: list[Tok], a: int, b: int, match: dict[int, int]) -> list[tuple[int, int]]:
    """Split token range [a, b) at top-level commas (brackets and angle brackets nest)."""
    out: list[tuple[int, int]] = []
    s = a
    k = a
    angle = 0
    while k < b:
        v = toks[k].v
        if v in "([{" and k in match:
            k = match[k] + 1
            continue
        if v == "<":
            angle += 1
        elif v == ">" and angle:
            angle -= 1
        elif v == ">>" and angle:
            angle = max(0, angle - 2)
        elif v == "," and angle == 0:
            out.append((s, k))
            s = k + 1
        k += 1
    if s < b or out:
        out.append((s, b))
    return out


def eval_int(text: str) -> int | None:
    """Evaluate a small integer constant expression (``256``, ``4*64``, ``1u<<8``)."""
    t = re.sub(r"(?<=\d)[uUlL]+\b", "", text).replace("&&", " and ").replace("||", " or ")
    try:
        node = pyast.parse(t, mode="eval")
    except (SyntaxError, ValueError):  # ValueError: a NUL, or an undecodable byte of the file
        return None
    ok = (pyast.Expression, pyast.BinOp, pyast.UnaryOp, pyast.Constant, pyast.operator, pyast.unaryop)
    if not all(isinstance(n, ok) for n in pyast.walk(node)):
        return None
    try:
        value = eval(compile(node, "<expr>", "eval"), {"__builtins__": {}})  # noqa: S307 - arithmetic only
    except Exception:
        return None
    return int(value) if isinstance(value, (int, bool)) or (isinstance(value, float) and value.is_integer()) \
        else None

