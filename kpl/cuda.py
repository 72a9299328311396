"""CUDA -> C99 lowering and parsing: the first half of the front end.

``parse_cuda`` turns a ``.cu`` file's text into a pycparser ``FileAST`` plus side tables
(kernels, memory spaces, textures).  The steps:

1. header comments (:mod:`kpl.header`), merged ``-D`` defines;
2. pcpp preprocessing with line-preserving output (:mod:`kpl.preprocess`);
3. template expansion: each explicit instantiation (or ``-D`` binding) of a function
   template becomes one C function with a mangled name (``reduce__int_256_false``); calls
   ``f<args>(...)`` are rewritten to the mangled name and instantiate ``f`` on demand;
4. lowering of the CUDA dialect at token level: qualifiers are replaced by spaces of the
   same length (so columns of untouched code stay put, DESIGN.md "Labels" renders fixes into
   the original text), inline PTX barriers become ``__kpl_bar_sync``/``__kpl_bar_arrive``
   calls (named barriers, papers/000 Sec. 3), C++ casts become C casts, ...;
5. pycparser over ``stub + lowered text``; ``#line`` directives make its coordinates the
   original file/line.

Everything that the lowering removes from the text but the verifier needs (``__shared__``
etc.) is recorded in :class:`~kpl.preprocess.ParsedSource`'s side tables.
"""

from __future__ import annotations

import ast as pyast
import os
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import NoReturn

from pycparser import c_parser
from pycparser.c_parser import Coord, ParseError

from kpl.errors import KplError
from kpl.header import parse_header
from kpl.lineindex import LineIndex
from kpl.preprocess import (
    FunctionInfo,
    ParsedSource,
    directive,
    line_map,
    preprocess,
)

__all__ = ["FunctionInfo", "ParsedSource", "parse_cuda", "STUB_FILE", "STUB_PATH"]

STUB_PATH = os.path.join(os.path.dirname(__file__), "stubs", "cuda.h")
#: ``coord.file`` of every AST node that comes from the bundled stub (skip these).
STUB_FILE = "<kpl-stub>/cuda.h"

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


def mangle_arg(a: str) -> str:
    s = a.replace("*", "p").replace("&", "r").replace("-", "m").replace(".", "d")
    return re.sub(r"\W+", "_", s).strip("_") or "x"


def mangle(base: str, args: list[str]) -> str:
    return base + "__" + "_".join(mangle_arg(a) for a in args)


class _Edits:
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


class _Locator:
    """Maps offsets of a text with ``#line`` directives to original (file, line, col)."""

    def __init__(self, text: str, default_file: str) -> None:
        self.index = LineIndex(text)
        self.map = line_map(text, default_file)
        self.default_file = default_file

    def __call__(self, pos: int) -> tuple[str, int, int]:
        line, col = self.index.line_col(pos)
        loc = self.map[line - 1] if line - 1 < len(self.map) else None
        if loc is None:
            return self.default_file, line, col
        return loc[0], loc[1], col

    def line_start(self, pos: int) -> int:
        return self.index.line_start(pos)


def _err(msg: str, loc: _Locator, pos: int) -> KplError:
    f, ln, col = loc(pos)
    return KplError(msg, f, ln, col)


_ATTR_FUNCS = {"__launch_bounds__", "__attribute__", "__align__", "__declspec", "__maxnreg__",
               "__cluster_dims__"}
_FUNC_QUALS = {"__global__", "__device__", "__host__"}
_SPACE_QUALS = {"__shared__": "shared", "__constant__": "constant", "__device__": "device",
                "__managed__": "device"}
_REMOVE_KW = {"__global__", "__device__", "__host__", "__forceinline__", "__noinline__", "static",
              "inline", "__inline__", "__inline", "__restrict__", "__restrict", "__shared__",
              "__constant__", "__managed__", "__grid_constant__", "constexpr"}
_CASTS = {"static_cast", "reinterpret_cast", "const_cast", "dynamic_cast"}
_TEX_FUNCS = {"tex1D", "tex2D", "tex3D", "tex1Dfetch", "tex2DLayered", "tex1DLayered", "texCubemap",
              "tex2DGather", "surf2Dread", "surf1Dread"}
_C_KEYWORDS = {"auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
               "enum", "extern", "float", "for", "goto", "if", "int", "long", "register", "return",
               "short", "signed", "sizeof", "struct", "switch", "typedef", "union", "unsigned", "void",
               "volatile", "while", "_Bool", "bool", "restrict"} | set(_REMOVE_KW)
_UNSUPPORTED = {"class": "C++ class", "namespace": "C++ namespace", "operator": "C++ operator overloading",
                "typename": "C++ typename outside a template header", "template": "C++ template",
                "::": "C++ scope operator '::'", "virtual": "C++ virtual function",
                "private": "C++ access specifier", "public": "C++ access specifier"}


def _eval_int(text: str) -> int | None:
    """Evaluate a small integer constant expression (``256``, ``4*64``, ``1u<<8``)."""
    t = re.sub(r"(?<=\d)[uUlL]+\b", "", text).replace("&&", " and ").replace("||", " or ")
    try:
        node = pyast.parse(t, mode="eval")
    except SyntaxError:
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


# --------------------------------------------------------------------------- templates


@dataclass
class _TParam:
    kind: str  # 'type' | 'value'
    name: str
    default: str | None


@dataclass
class _TemplateDef:
    name: str
    params: list[_TParam]
    start: int  # offset of `template`
    func_start: int  # offset of the first token after `template<...>`
    end: int  # offset just past the closing `}`
    name_off: int  # offset of the function name (relative to the text)
    is_global: bool
    insts: list[str] = field(default_factory=list)  # mangled names, in request order
    chunks: list[str] = field(default_factory=list)


@dataclass
class _InstInfo:
    display: str
    base: str
    file: str
    line: int
    col: int


class _TemplateExpander:
    """Alg.-free textual template instantiation (Sec. VI of the brief: one C function per
    instantiation, parameters replaced token-wise)."""

    MAX_INSTANCES = 256

    def __init__(self, text: str, path: str, defines: dict[str, str]) -> None:
        self.text = text
        self.path = path
        self.defines = defines
        self.loc = _Locator(text, path)
        self.defs: dict[str, _TemplateDef] = {}
        self.info: dict[str, _InstInfo] = {}
        self.work: list[tuple[str, list[str], str]] = []  # (template, args, mangled)
        self.edits = _Edits(text)

    # ---- scanning
    def run(self) -> tuple[str, dict[str, _InstInfo]]:
        toks = tokenize(self.text)
        if not any(t.v == "template" for t in toks):
            return self.text, {}
        match = match_brackets(toks)
        explicit: list[tuple[str, list[str], int]] = []
        depth = 0
        i = 0
        n = len(toks)
        while i < n:
            t = toks[i]
            if t.v == "{":
                depth += 1
            elif t.v == "}":
                depth -= 1
            elif t.v == "template" and depth == 0:
                i = self._template_item(toks, match, i, explicit)
                continue
            i += 1
        # explicit instantiations + -D bound kernels
        for name, args, pos in explicit:
            if name not in self.defs:
                raise _err(f"explicit instantiation of unknown template '{name}'", self.loc, pos)
            self.request(name, args, pos)
        text = self._marked_text()
        text, _ = self.rewrite_calls(text, self.path_loc_for(text))
        for d in self.defs.values():
            if d.is_global and not d.insts:
                self.request(d.name, [], d.name_off)
        while self.work:
            tname, args, mangled = self.work.pop(0)
            self._instantiate(tname, args, mangled)
        for idx, d in enumerate(self.defs.values()):
            text = text.replace(f"\x00T{idx}\x00", self._chunk_block(d))
        return text, self.info

    def path_loc_for(self, text: str) -> _Locator:
        return _Locator(text, self.path)

    def _template_item(self, toks: list[Tok], match: dict[int, int], i: int,
                       explicit: list[tuple[str, list[str], int]]) -> int:
        """Handle one top-level ``template ...`` item starting at token ``i``; return the index
        after it.  Definitions are blanked (instantiations are emitted after them)."""
        n = len(toks)
        start = toks[i].start
        if i + 1 < n and toks[i + 1].v == "<":
            gt = match_angle(toks, i + 1, match)
            if gt < 0:
                raise _err("malformed template parameter list", self.loc, toks[i + 1].start)
            params = self._params(toks, i + 2, gt, match)
            k = gt + 1
            # struct/class templates: only the SharedMemory idiom is supported
            if k < n and toks[k].v in ("struct", "class", "union"):
                name = toks[k + 1].v if k + 1 < n else "?"
                end_i = self._item_end(toks, match, k)
                if name == "SharedMemory":
                    self.edits.blank(start, toks[end_i].end)
                    return end_i + 1
                raise _err(f"unsupported construct: C++ class template '{name}'", self.loc, toks[k].start)
            if not params:
                raise _err("unsupported construct: explicit template specialization", self.loc, start)
            # function template
            name_i = -1
            j = k
            while j < n and toks[j].v not in (";", "{"):
                if toks[j].v in _ATTR_FUNCS and j + 1 < n and toks[j + 1].v == "(":
                    j = match.get(j + 1, j + 1) + 1
                    continue
                if toks[j].kind == "id" and j + 1 < n and toks[j + 1].v == "(" and name_i < 0:
                    name_i = j
                if toks[j].v in "([" and j in match:
                    j = match[j]
                j += 1
            if name_i < 0 or j >= n:
                raise _err("unsupported construct: template declaration", self.loc, start)
            head_vals = {toks[x].v for x in range(k, name_i)}
            if toks[j].v == ";":  # forward declaration
                self.edits.blank(start, toks[j].end)
                return j + 1
            end_i = match.get(j, n - 1)
            name = toks[name_i].v
            d = _TemplateDef(name, params, start, toks[k].start, toks[end_i].end, toks[name_i].start,
                             "__global__" in head_vals)
            if name in self.defs:
                raise _err(f"unsupported construct: overloaded function template '{name}'", self.loc,
                           toks[name_i].start)
            self.defs[name] = d
            self.edits.blank(start, d.end)
            return end_i + 1
        # explicit instantiation: template [quals] type NAME<args>(types);
        j = i + 1
        name_i = -1
        while j < n and toks[j].v != ";":
            if toks[j].kind == "id" and j + 1 < n and toks[j + 1].v == "<" and name_i < 0 \
                    and toks[j].v not in _ATTR_FUNCS:
                name_i = j
            if toks[j].v in "([{" and j in match:
                j = match[j]
            j += 1
        if name_i < 0:
            raise _err("unsupported construct: explicit instantiation without template arguments "
                       "(write name<args>(...))", self.loc, start)
        gt = match_angle(toks, name_i + 1, match)
        args = [norm(self.text[toks[a].start:toks[b - 1].end])
                for a, b in split_commas(toks, name_i + 2, gt, match) if a < b]
        explicit.append((toks[name_i].v, args, toks[name_i].start))
        self.edits.blank(start, toks[min(j, n - 1)].end)
        return j + 1

    def _item_end(self, toks: list[Tok], match: dict[int, int], k: int) -> int:
        j = k
        while j < len(toks) and toks[j].v != ";":
            if toks[j].v in "([{" and j in match:
                j = match[j]
            j += 1
        return min(j, len(toks) - 1)

    def _params(self, toks: list[Tok], a: int, b: int, match: dict[int, int]) -> list[_TParam]:
        out: list[_TParam] = []
        for s, e in split_commas(toks, a, b, match):
            if s >= e:
                continue
            eq = next((x for x in range(s, e) if toks[x].v == "="), e)
            names = [x for x in range(s, eq) if toks[x].kind == "id"]
            if not names:
                raise _err("malformed template parameter", self.loc, toks[s].start)
            pname = toks[names[-1]].v
            kind = "type" if toks[s].v in ("typename", "class") else "value"
            default = norm(self.text[toks[eq + 1].start:toks[e - 1].end]) if eq < e - 1 else None
            out.append(_TParam(kind, pname, default))
        return out

    def _marked_text(self) -> str:
        for idx, d in enumerate(self.defs.values()):
            self.edits.replace(d.end, d.end, f"\x00T{idx}\x00")
        return self.edits.apply()

    # ---- instantiation
    def request(self, name: str, args: list[str], pos: int) -> str:
        d = self.defs[name]
        bound = self._bind(d, args, pos)
        mangled = mangle(name, bound)
        if mangled not in d.insts:
            if sum(len(x.insts) for x in self.defs.values()) >= self.MAX_INSTANCES:
                raise _err(f"too many template instantiations (recursive template '{name}'?)", self.loc,
                           d.name_off)
            d.insts.append(mangled)
            self.work.append((name, bound, mangled))
            f, ln, col = self.loc(d.name_off)
            self.info[mangled] = _InstInfo(f"{name}<{', '.join(bound)}>", name, f, ln, col)
        return mangled

    def _bind(self, d: _TemplateDef, args: list[str], pos: int) -> list[str]:
        if len(args) > len(d.params):
            raise _err(f"too many template arguments for '{d.name}'", self.loc, pos)
        bound: list[str] = []
        env: dict[str, str] = {}
        for i, p in enumerate(d.params):
            if i < len(args):
                val = args[i]
            elif p.name in self.defines:
                val = norm(self.defines[p.name])
            elif p.default is not None:
                val = self._subst(p.default, env)
            else:
                f, ln, col = self.loc(d.name_off)
                raise KplError(f"template parameter '{p.name}' of '{d.name}' has no value: add an explicit "
                               f"instantiation or pass -D {p.name}=VALUE", f, ln, col)
            bound.append(val)
            env[p.name] = val
        return bound

    @staticmethod
    def _subst(text: str, env: dict[str, str]) -> str:
        toks = tokenize(text)
        edits = _Edits(text)
        for t in toks:
            if t.kind == "id" and t.v in env:
                val = env[t.v]
                if len(tokenize(val)) > 1 and not re.fullmatch(r"[\w\s\*]+", val):
                    val = f"({val})"
                edits.replace(t.start, t.end, val)
        return edits.apply()

    def _instantiate(self, tname: str, args: list[str], mangled: str) -> None:
        d = self.defs[tname]
        body = self.text[d.func_start:d.end]
        name_rel = d.name_off - d.func_start
        # rename first: the name token is at a known offset
        body = body[:name_rel] + "\x01" + body[name_rel + len(tname):]
        env = {p.name: a for p, a in zip(d.params, args, strict=False)}
        body = self._subst(body, env)
        body = body.replace("\x01", mangled, 1)
        body, _ = self.rewrite_calls(body, None, base=d.func_start)
        d.chunks.append(body)

    def _chunk_block(self, d: _TemplateDef) -> str:
        if not d.chunks:
            return ""
        f, ln, col = self.loc(d.func_start)
        ef, eln, ecol = self.loc(d.end)
        parts = []
        for ch in d.chunks:
            parts.append("\n" + directive(ln, f) + "\n" + " " * (col - 1) + ch)
        parts.append("\n" + directive(eln, ef) + "\n" + " " * (ecol - 1))
        return "".join(parts)

    def rewrite_calls(self, text: str, loc: _Locator | None, base: int = 0) -> tuple[str, int]:
        """Replace ``f<args>(`` (and ``f(`` for templates whose parameters all have values)
        by the mangled instantiation, requesting it."""
        toks = tokenize(text)
        match = match_brackets(toks)
        edits = _Edits(text)
        count = 0
        for i, t in enumerate(toks):
            if t.kind != "id" or t.v not in self.defs or i + 1 >= len(toks):
                continue
            if i > 0 and toks[i - 1].v in (".", "->"):
                continue
            pos = base + t.start if loc is None else t.start
            if toks[i + 1].v == "<":
                gt = match_angle(toks, i + 1, match)
                if gt < 0:
                    continue
                args = [norm(text[toks[a].start:toks[b - 1].end])
                        for a, b in split_commas(toks, i + 2, gt, match) if a < b]
                mangled = self.request(t.v, args, pos if loc is None else self.d_pos(t.v))
                edits.replace(t.start, toks[gt].end, mangled)
                count += 1
            elif toks[i + 1].v == "(":
                try:
                    mangled = self.request(t.v, [], pos if loc is None else self.d_pos(t.v))
                except KplError as exc:
                    f, ln, col = loc(t.start) if loc is not None else self.loc(self.d_pos(t.v))
                    raise KplError(f"cannot deduce the template arguments of '{t.v}' in this call: write "
                                   f"{t.v}<...>(...) ({exc.message})", f, ln, col) from None
                edits.replace(t.start, t.end, mangled)
                count += 1
        return edits.apply(), count

    def d_pos(self, name: str) -> int:
        return self.defs[name].name_off


# --------------------------------------------------------------------------- lowering


@dataclass
class _Lowered:
    text: str
    functions: dict[str, FunctionInfo]
    var_spaces: dict[tuple[str | None, str], str]
    extern_shared: set[tuple[str | None, str]]
    textures: dict[str, tuple[str, int]]
    dynsmem: dict[str, str]  # C array name -> element type


class _Lowerer:
    """Token-level CUDA -> C99 rewriting of the (template-expanded) text."""

    def __init__(self, text: str, path: str, inst: dict[str, _InstInfo]) -> None:
        self.text = text
        self.path = path
        self.inst = inst
        self.loc = _Locator(text, path)
        self.toks = tokenize(text)
        self.match = match_brackets(self.toks)
        self.edits = _Edits(text)
        self.dead = [False] * len(self.toks)
        self.fn_spans: list[tuple[int, int, str]] = []
        self.head_quals: set[int] = set()
        self.out = _Lowered(text, {}, {}, set(), {}, {})

    def err(self, msg: str, i: int) -> KplError:
        return _err(msg, self.loc, self.toks[min(i, len(self.toks) - 1)].start)

    def kill(self, a: int, b: int) -> None:
        """Blank tokens a..b inclusive."""
        self.edits.blank(self.toks[a].start, self.toks[b].end)
        for k in range(a, b + 1):
            self.dead[k] = True

    def run(self) -> _Lowered:
        self._top_level()
        self._bodies()
        self._sweep()
        self.out.text = self.edits.apply()
        return self.out

    # ---- structure
    def _skip_to(self, i: int, stops: tuple[str, ...]) -> int:
        toks, n = self.toks, len(self.toks)
        while i < n and toks[i].v not in stops:
            if toks[i].v in "([" and i in self.match:
                i = self.match[i]
            i += 1
        return i

    def _top_level(self) -> None:
        toks, n = self.toks, len(self.toks)
        extern_c_close: set[int] = set()
        i = 0
        while i < n:
            if i in extern_c_close or toks[i].v == ";":
                i += 1
                continue
            if toks[i].v == "extern" and i + 1 < n and toks[i + 1].kind == "str":
                self.kill(i, i + 1)
                i += 2
                if i < n and toks[i].v == "{" and i in self.match:
                    extern_c_close.add(self.match[i])
                    self.kill(i, i)
                    self.kill(self.match[i], self.match[i])
                    i += 1
                continue
            if toks[i].v == "using":
                j = self._skip_to(i, (";",))
                self.kill(i, min(j, n - 1))
                i = j + 1
                continue
            j = self._skip_to(i, (";", "{"))
            if j >= n:
                break
            vals = [t.v for t in toks[i:j]]
            if toks[j].v == ";":
                self._top_decl(i, j)
                i = j + 1
                continue
            for bad in ("namespace", "class"):
                if bad in vals:
                    raise self.err(f"unsupported construct: {_UNSUPPORTED[bad]}", i + vals.index(bad))
            close = self.match.get(j, n - 1)
            if "=" in vals or any(v in ("struct", "union", "enum") for v in vals):
                e = self._skip_to(close + 1, (";",))
                if "=" in vals:
                    self._top_decl(i, min(e, n - 1))
                i = e + 1
                continue
            if "(" in vals:
                self._function(i, j, close)
                i = close + 1
                continue
            i = close + 1

    def _head_name(self, a: int, b: int) -> tuple[int, tuple[int, ...] | None]:
        """Index of the declarator name in head tokens [a, b) and the launch bounds seen."""
        toks = self.toks
        bounds: tuple[int, ...] | None = None
        k = a
        while k < b:
            t = toks[k]
            if t.v in _ATTR_FUNCS and k + 1 < b and toks[k + 1].v == "(":
                close = self.match.get(k + 1, k + 1)
                if t.v == "__launch_bounds__":
                    vals = []
                    for s, e in split_commas(toks, k + 2, close, self.match):
                        if s >= e:
                            continue
                        v = _eval_int(self.text[toks[s].start:toks[e - 1].end])
                        if v is None:
                            raise self.err("cannot evaluate __launch_bounds__ argument", s)
                        vals.append(v)
                    bounds = tuple(vals)
                k = close + 1
                continue
            if t.kind == "id" and k + 1 < b and toks[k + 1].v == "(" and t.v not in _C_KEYWORDS:
                return k, bounds
            if t.v == "=":
                return -1, bounds
            k += 1
        return -1, bounds

    def _kind(self, a: int, b: int) -> str:
        vals = {t.v for t in self.toks[a:b]}
        if "__global__" in vals:
            return "global"
        if "__device__" in vals:
            return "device"
        return "host"

    def _record_function(self, name_i: int, kind: str, bounds: tuple[int, ...] | None, body: bool) -> str:
        cname = self.toks[name_i].v
        info = self.inst.get(cname)
        if info is not None:
            fi = FunctionInfo(cname, info.display, info.base, kind, bounds, body, info.file, info.line, info.col)
        else:
            f, ln, col = self.loc(self.toks[name_i].start)
            fi = FunctionInfo(cname, cname, cname, kind, bounds, body, f, ln, col)
        old = self.out.functions.get(cname)
        if old is None or (body and not old.has_body):
            if old is not None and old.launch_bounds and not fi.launch_bounds:
                fi.launch_bounds = old.launch_bounds
            self.out.functions[cname] = fi
        return cname

    def _function(self, a: int, j: int, close: int) -> None:
        name_i, bounds = self._head_name(a, j)
        if name_i < 0:
            return
        kind = self._kind(a, j)
        cname = self._record_function(name_i, kind, bounds, True)
        if kind == "host":
            # host code may hold any C++ (<<<>>> launches, std::, new): it is not verified
            self.kill(a, close)
            return
        for k in range(a, j):
            if self.toks[k].v in _FUNC_QUALS:
                self.head_quals.add(k)
        self.fn_spans.append((j, close, cname))

    def _top_decl(self, a: int, e: int) -> None:
        """A file-scope declaration ending at token ``e`` (';')."""
        toks = self.toks
        vals = [t.v for t in toks[a:e]]
        if "texture" in vals:
            t = a + vals.index("texture")
            if t + 1 < e and toks[t + 1].v == "<":
                self._texture(a, t, e)
                return
        if vals and vals[0] == "typedef":
            return
        name_i, bounds = self._head_name(a, e)
        if name_i >= 0:  # prototype
            kind = self._kind(a, e)
            self._record_function(name_i, kind, bounds, False)
            for k in range(a, e):
                if toks[k].v in _FUNC_QUALS:
                    self.head_quals.add(k)
            return
        if any(v in _SPACE_QUALS for v in vals):
            self._record_vars(a, e, None)

    def _texture(self, a: int, t: int, e: int) -> None:
        toks = self.toks
        gt = match_angle(toks, t + 1, self.match)
        if gt < 0:
            raise self.err("malformed texture declaration", t)
        args = [norm(self.text[toks[s].start:toks[x - 1].end])
                for s, x in split_commas(toks, t + 2, gt, self.match) if s < x]
        elem = args[0] if args else "int"
        dim = _eval_int(args[1]) if len(args) > 1 else 1
        if dim is None:
            raise self.err(f"malformed texture dimensionality '{args[1]}'", t)
        for s, x in split_commas(toks, gt + 1, e, self.match):
            ids = [k for k in range(s, x) if toks[k].kind == "id"]
            if ids:
                self.out.textures[toks[ids[0]].v] = (elem, dim)
        self.edits.replace(toks[a].start, toks[gt].end,
                           "extern int".ljust(toks[gt].end - toks[a].start))
        for k in range(a, gt + 1):
            self.dead[k] = True

    def _record_vars(self, a: int, e: int, func: str | None) -> None:
        """Record every declarator of the declaration [a, e) with its memory space."""
        toks = self.toks
        vals = [t.v for t in toks[a:e]]
        space = next(_SPACE_QUALS[v] for v in vals if v in _SPACE_QUALS)
        is_extern = "extern" in vals
        for s, x in split_commas(toks, a, e, self.match):
            name: str | None = None
            k = s
            while k < x:
                v = toks[k].v
                if v in _ATTR_FUNCS and k + 1 < x and toks[k + 1].v == "(":
                    k = self.match.get(k + 1, k + 1) + 1
                    continue
                if v in ("[", "=", ":"):
                    break
                if toks[k].kind == "id" and v not in _C_KEYWORDS:
                    name = v
                k += 1
            if name is not None:
                self.out.var_spaces[(func, name)] = space
                if is_extern and space == "shared":
                    self.out.extern_shared.add((func, name))

    def _bodies(self) -> None:
        toks = self.toks
        for j, close, cname in self.fn_spans:
            k = j + 1
            while k < close:
                if toks[k].v in _SPACE_QUALS:
                    s = k
                    while s - 1 > j and toks[s - 1].v not in (";", "{", "}"):
                        s -= 1
                    e = self._skip_to(k, (";",))
                    self._record_vars(s, min(e, close), cname)
                    k = e
                k += 1

    # ---- token rewrites
    def _sweep(self) -> None:
        toks, n = self.toks, len(self.toks)
        i = 0
        while i < n:
            if self.dead[i]:
                i += 1
                continue
            t = toks[i]
            v = t.v
            nxt = toks[i + 1].v if i + 1 < n else ""
            if v in _REMOVE_KW:
                self.kill(i, i)
            elif v in _ATTR_FUNCS and nxt == "(":
                close = self.match.get(i + 1, i + 1)
                self.kill(i, close)
                i = close
            elif v in _CASTS and nxt == "<":
                i = self._cast(i)
                continue
            elif v == "nullptr":
                self.edits.replace(t.start, t.end, "0".ljust(len(v)))
            elif v == "SharedMemory":
                i = self._shared_memory(i)
                continue
            elif v in ("asm", "__asm__", "__asm"):
                i = self._asm(i)
                continue
            elif v in _TEX_FUNCS and nxt == "<":
                gt = match_angle(toks, i + 1, self.match)
                if gt > 0:
                    self.kill(i + 1, gt)
                    i = gt
            elif v in _UNSUPPORTED and (t.kind == "id" or v == "::"):
                raise self.err(f"unsupported construct: {_UNSUPPORTED[v]}", i)
            i += 1

    def _cast(self, i: int) -> int:
        toks = self.toks
        gt = match_angle(toks, i + 1, self.match)
        if gt < 0 or gt + 1 >= len(toks) or toks[gt + 1].v != "(" or gt + 1 not in self.match:
            raise self.err(f"malformed {toks[i].v}", i)
        close = self.match[gt + 1]
        ty = self.text[toks[i + 2].start:toks[gt - 1].end] if gt > i + 2 else "int"
        self.edits.replace(toks[i].start, toks[gt + 1].end, f"(({ty})(")
        self.edits.replace(toks[close].start, toks[close].end, "))")
        for k in range(i, gt + 2):
            self.dead[k] = True
        return gt + 2

    def _shared_memory(self, i: int) -> int:
        toks = self.toks
        if i + 1 < len(toks) and toks[i + 1].v == "<":
            gt = match_angle(toks, i + 1, self.match)
            if gt > 0 and gt + 2 < len(toks) and toks[gt + 1].v == "(" and toks[gt + 2].v == ")":
                ty = norm(self.text[toks[i + 2].start:toks[gt - 1].end])
                name = "__kpl_dynsmem_" + mangle_arg(ty)
                self.out.dynsmem[name] = ty
                self.out.var_spaces[(None, name)] = "shared"
                self.out.extern_shared.add((None, name))
                self.edits.replace(toks[i].start, toks[gt + 2].end, name)
                for k in range(i, gt + 3):
                    self.dead[k] = True
                return gt + 3
        raise self.err("unsupported construct: SharedMemory<T> other than the expression SharedMemory<T>()", i)

    def _asm(self, i: int) -> int:
        toks = self.toks
        k = i + 1
        while k < len(toks) and toks[k].v in ("volatile", "__volatile__", "__volatile", "goto", "inline"):
            k += 1
        if k >= len(toks) or toks[k].v != "(" or k not in self.match:
            raise self.err("malformed asm statement", i)
        close = self.match[k]
        # sections split at top-level ':' (a '::' token counts as two)
        sections: list[list[int]] = [[]]
        x = k + 1
        while x < close:
            v = toks[x].v
            if v in "([" and x in self.match:
                sections[-1].extend(range(x, self.match[x] + 1))
                x = self.match[x] + 1
                continue
            if v == ":":
                sections.append([])
            elif v == "::":
                sections.append([])
                sections.append([])
            else:
                sections[-1].append(x)
            x += 1
        template = "".join(_unescape(toks[x].v) for x in sections[0] if toks[x].kind == "str")
        operands: list[str] = []
        names: dict[str, str] = {}
        for sec in sections[1:3]:
            if not sec:
                continue
            for s, e in split_commas(toks, sec[0], sec[-1] + 1, self.match):
                par = next((y for y in range(s, e) if toks[y].v == "(" and y in self.match), None)
                expr = norm(self.text[toks[par + 1].start:toks[self.match[par] - 1].end]) \
                    if par is not None and self.match[par] > par + 1 else ""
                if toks[s].v == "[" and s + 1 < e:
                    names[toks[s + 1].v] = expr
                operands.append(expr)
        n_out = 0
        if len(sections) > 1 and sections[1]:
            n_out = len(split_commas(toks, sections[1][0], sections[1][-1] + 1, self.match))
        calls: list[str] = []
        others: list[str] = []
        for instr in re.split(r"[;\n]", template):
            ins = instr.strip().strip("{}").strip()
            if not ins:
                continue
            m = re.match(r"(?:bar|barrier)(?:\.cta)?\.(sync|arrive)(?:\.aligned)?\s+(.*)$", ins)
            if m and not n_out:
                ops = [self._asm_operand(o.strip(), operands, names) for o in m.group(2).split(",")]
                calls.append(f"__kpl_bar_{m.group(1)}({', '.join(ops)})")
            else:
                others.append(ins)
        if others:
            calls = [f"__kpl_asm({_c_string(template)})"]
        rep = "; ".join(calls) if calls else "__kpl_asm(\"\")"
        span = self.text[toks[i].start:toks[close].end]
        rep += "\n" * span.count("\n")
        self.edits.replace(toks[i].start, toks[close].end, rep)
        for y in range(i, close + 1):
            self.dead[y] = True
        return close + 1

    @staticmethod
    def _asm_operand(op: str, operands: list[str], names: dict[str, str]) -> str:
        def sub(m: re.Match[str]) -> str:
            if m.group(1) is not None:
                idx = int(m.group(1))
                return operands[idx] if idx < len(operands) else m.group(0)
            return names.get(m.group(2), m.group(0))

        return re.sub(r"%(\d+)|%\[(\w+)\]", sub, op)


def _unescape(lit: str) -> str:
    body = lit[1:-1] if lit.startswith('"') else lit[2:-1]
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t", "\\": "\\", '"': '"'}.get(m.group(1), m.group(1)),
                  body)


def _c_string(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t") + '"'


# --------------------------------------------------------------------------- entry point


class _Parser(c_parser.CParser):  # type: ignore[misc]
    """pycparser 3.0 reports some errors ("Invalid expression", "At end of input") with the
    file name only; point them at the next token (or the last one at end of input)."""

    def _parse_error(self, msg: str, coord: object) -> NoReturn:
        if not isinstance(coord, Coord) or coord.line is None:
            tok = None
            try:
                buf = self._tokens._buffer
                idx = self._tokens._index
                tok = buf[idx] if idx < len(buf) and buf[idx] is not None else None
                if tok is None:
                    tok = next((t for t in reversed(buf[:idx]) if t is not None), None)
            except Exception:
                tok = None
            if tok is not None:
                coord = Coord(file=self.clex.filename, line=tok.lineno, column=tok.column)
                msg = f"{msg} at '{tok.value}'"
        raise ParseError(f"{coord}: {msg}")


@lru_cache(maxsize=1)
def _stub_text() -> str:
    with open(STUB_PATH, encoding="utf-8") as fh:
        text = fh.read()
    return re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)


_TEMPLATE_HEAD = re.compile(r"\btemplate\s*<([^<>]*(?:<[^<>]*>[^<>]*)*)>")


def _template_param_names(text: str) -> set[str]:
    names: set[str] = set()
    for m in _TEMPLATE_HEAD.finditer(text):
        for part in m.group(1).split(","):
            lhs = part.split("=")[0]
            ids = re.findall(r"[A-Za-z_]\w*", lhs)
            if ids:
                names.add(ids[-1])
    return names


def parse_cuda(path: str, text: str | None = None, *, defines: dict[str, str] | None = None,
               include_dirs: list[str] | None = None) -> ParsedSource:
    """Parse a ``.cu`` file into a pycparser AST plus side tables.

    ``defines`` (``-D``) are merged over the header's own ``-DNAME=VALUE`` flags.  A define
    whose name is a template parameter binds that parameter when the template has no explicit
    instantiation, and is NOT a preprocessor macro (it would clobber ``template<int N>``).
    Raises :class:`KplError` for every problem with the input.
    """
    if text is None:
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                text = fh.read()
        except OSError as exc:
            raise KplError(f"cannot read file: {exc.strerror}", path) from None
    header = parse_header(text, path)
    all_defs = dict(header.defines)
    all_defs.update(defines or {})
    tparams = _template_param_names(text)
    pp_defs = {k: v for k, v in all_defs.items() if k not in tparams}
    try:
        pre = preprocess(path, text, pp_defs, include_dirs)
    except KplError:
        raise
    except Exception as exc:  # pcpp's own failures on malformed input
        raise KplError(f"preprocessor error: {exc}", path) from None
    expanded, inst = _TemplateExpander(pre.text, path, all_defs).run()
    low = _Lowerer(expanded, path, inst).run()
    decls = "".join(f"extern {ty} {name}[];\n" for name, ty in low.dynsmem.items())
    body = low.text
    if not body.lstrip().startswith("#"):
        body = directive(1, path) + "\n" + body
    lowered = directive(1, STUB_FILE) + "\n" + _stub_text() + decls + body
    try:
        tree = _Parser().parse(lowered, filename=path)
    except ParseError as exc:
        raise _parse_error(str(exc), path) from None
    return ParsedSource(path=path, text=text, header=header, ast=tree, lowered=lowered,
                        functions=low.functions, var_spaces=low.var_spaces, extern_shared=low.extern_shared,
                        textures=low.textures, files=pre.files)


def _parse_error(msg: str, path: str) -> KplError:
    m = re.match(r"^(.*?):(\d+):(\d+):\s*(.*)$", msg, re.S) or re.match(r"^(.*?):(\d+):\s*(.*)$", msg, re.S)
    if m is None:
        return KplError(f"syntax error: {msg}", path)
    groups = m.groups()
    file, line = groups[0], int(groups[1])
    col = int(groups[2]) if len(groups) == 4 else None
    text = groups[-1].strip()
    if text.startswith("before:"):
        text = f"syntax error before '{text[7:].strip()}'"
    elif not text.lower().startswith("syntax"):
        text = f"syntax error: {text}"
    if file == STUB_FILE:
        text += " (in the bundled CUDA stub: a name in the kernel clashes with a CUDA builtin?)"
    return KplError(text, file, line, col)
