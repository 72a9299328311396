"""Tokens of CUDA source text: the shared vocabulary of the text-level stages.

Both :mod:`kpl.templates` (template expansion) and :mod:`kpl.lower_cuda` (CUDA -> C99
lowering) work on significant tokens with their offsets, so that every edit they make is an
exact text replacement (columns of untouched code stay put, see :mod:`kpl.preprocess`).
This module holds the tokenizer, bracket matching, the text-edit buffer and the CUDA
keyword sets that both stages recognise.
"""

from __future__ import annotations

import ast as pyast
import re
from dataclasses import dataclass

from kpl.errors import KplError
from kpl.spans import Locator

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


def norm(text: str) -> str:
    """Collapse whitespace: the canonical spelling of a template argument."""
    return re.sub(r"\s+", " ", text).strip()


def blank_text(s: str) -> str:
    return re.sub(r"[^\n]", " ", s)


class Edits:
    """Non-overlapping text replacements, applied at once."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.items: list[tuple[int, int, str]] = []

    def replace(self, s: int, e: int, rep: str) -> None:
        self.items.append((s, e, rep))

    def blank(self, s: int, e: int) -> None:
        self.items.append((s, e, blank_text(self.text[s:e])))

    def apply(self) -> str:
        out: list[str] = []
        pos = 0
        for s, e, rep in sorted(self.items, key=lambda x: (x[0], x[1])):
            if s < pos:  # overlapping: the earlier (outer) edit wins
                continue
            out.append(self.text[pos:s])
            out.append(rep)
            pos = e
        out.append(self.text[pos:])
        return "".join(out)

def error_at(msg: str, loc: Locator, pos: int) -> KplError:
    f, ln, col = loc(pos)
    return KplError(msg, f, ln, col)


ATTR_FUNCS = {"__launch_bounds__", "__attribute__", "__align__", "__declspec", "__maxnreg__",
               "__cluster_dims__"}
FUNC_QUALS = {"__global__", "__device__", "__host__"}
SPACE_QUALS = {"__shared__": "shared", "__constant__": "constant", "__device__": "device",
                "__managed__": "device"}
REMOVE_KW = {"__global__", "__device__", "__host__", "__forceinline__", "__noinline__", "static",
              "inline", "__inline__", "__inline", "__restrict__", "__restrict", "__shared__",
              "__constant__", "__managed__", "__grid_constant__", "constexpr"}
CASTS = {"static_cast", "reinterpret_cast", "const_cast", "dynamic_cast"}
TEX_FUNCS = {"tex1D", "tex2D", "tex3D", "tex1Dfetch", "tex2DLayered", "tex1DLayered", "texCubemap",
              "tex2DGather", "surf2Dread", "surf1Dread"}
C_KEYWORDS = {"auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
               "enum", "extern", "float", "for", "goto", "if", "int", "long", "register", "return",
               "short", "signed", "sizeof", "struct", "switch", "typedef", "union", "unsigned", "void",
               "volatile", "while", "_Bool", "bool", "restrict"} | set(REMOVE_KW)
UNSUPPORTED = {"class": "C++ class", "namespace": "C++ namespace", "operator": "C++ operator overloading",
                "typename": "C++ typename outside a template header", "template": "C++ template",
                "::": "C++ scope operator '::'", "virtual": "C++ virtual function",
                "private": "C++ access specifier", "public": "C++ access specifier"}


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

