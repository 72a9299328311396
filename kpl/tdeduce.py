"""Template argument deduction from a call's arguments, as nvcc does it for the simple
cases that occur in kernels: ``scale<<<g, b>>>(d_x, a)`` with ``float *d_x`` gives
``T = float`` for a parameter ``T *x``; ``max_of(a, b)`` with ``float a, b`` gives
``T = float``.  Only TYPE parameters are deduced; a non-type parameter takes its value from
an explicit ``<...>``, a default, or ``-D`` (as in C++, where an ``int N`` is deducible only
from array bounds, which kernels do not use).

The argument types come from a shallow scan of the declarations that precede the call
(parameters and locals of the enclosing function, globals): the last declaration of a name
wins, which is C's scoping for the straight-line code around a launch.  When an argument's
type is not known the parameter stays undeduced and the caller reports "cannot deduce".

Used by :mod:`kpl.templates`; a separate module because it is one idea (types of
expressions at token level) that the expander only consumes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kpl.tokens import Tok

#: base type words a declaration may start with (after qualifiers)
_BASE = {"float", "double", "int", "unsigned", "signed", "char", "short", "long", "bool", "size_t",
         "half", "__half", "uint", "uchar", "ushort", "ulong", "int8_t", "int16_t", "int32_t", "int64_t",
         "uint8_t", "uint16_t", "uint32_t", "uint64_t"}
_VEC = re.compile(r"^(u?char|u?short|u?int|u?long|longlong|ulonglong|float|double)[1-4]$")
_QUALS = {"const", "volatile", "__restrict__", "__restrict", "restrict", "__shared__", "__device__",
          "__constant__", "static", "extern", "register"}
_INT_LIT = re.compile(r"^(0[xX][0-9a-fA-F]+|\d+)([uU]?[lL]{0,2}|[lL]{1,2}[uU]?)$")
_FLOAT_LIT = re.compile(r"^(\d+\.\d*|\.\d+|\d+)([eE][-+]?\d+)?[fF]$")
_DOUBLE_LIT = re.compile(r"^(\d+\.\d*|\.\d+|\d+[eE][-+]?\d+)([eE][-+]?\d+)?$")


@dataclass(frozen=True)
class CType:
    """A scanned type: the base words (``unsigned int``) and the pointer depth."""

    base: str
    stars: int

    def text(self) -> str:
        return self.base + " " + "*" * self.stars if self.stars else self.base


def _is_base(v: str, extra: frozenset[str]) -> bool:
    return v in _BASE or bool(_VEC.match(v)) or v in extra


def declared_types(toks: list[Tok], upto: int, extra: frozenset[str] = frozenset()) -> dict[str, CType]:
    """Names declared in ``toks[:upto]`` with their types (the last declaration wins).  Handles
    ``T a, *b = ..., c[4]`` lists and function parameters; ``extra`` adds type names (typedefs,
    structs) to the known base words."""
    env: dict[str, CType] = {}
    i = 0
    while i < upto:
        t = toks[i]
        if not _is_base(t.v, extra) or (i > 0 and toks[i - 1].v in (".", "->", "(") and
                                        i + 1 < upto and toks[i + 1].v == ")"):
            i += 1
            continue
        # base words: e.g. `unsigned long long`
        j = i
        words = []
        while j < upto and (_is_base(toks[j].v, extra) or toks[j].v in _QUALS):
            if toks[j].v not in _QUALS:
                words.append(toks[j].v)
            j += 1
        base = " ".join(words)
        # declarator list
        while j < upto:
            stars = 0
            while j < upto and toks[j].v in ("*", "&", "const", "__restrict__", "__restrict", "restrict"):
                stars += toks[j].v == "*"
                j += 1
            if j >= upto or toks[j].kind != "id":
                break
            name = toks[j].v
            j += 1
            if j < upto and toks[j].v == "[":
                stars += 1
            if j < upto and toks[j].v in (",", ";", "=", ")", "["):
                env[name] = CType(base, stars)
            elif j + 1 < upto and toks[j].v == "(":
                if _is_base(toks[j + 1].v, extra) or toks[j + 1].v in (")", "void", "const"):
                    # a function: `float dot(float3 a, ...)`; overloads that disagree on
                    # the return type make it unknown
                    key = name + "()"
                    ret = CType(base, stars)
                    env[key] = ret if env.get(key, ret) == ret else CType("?", 0)
                    j += 1  # go on with its parameters
                    break
                else:  # C++ direct initialisation `float3 L(a - b);`
                    env[name] = CType(base, stars)
            # skip to the next declarator of this declaration, or stop
            depth = 0
            while j < upto:
                v = toks[j].v
                if v == "{" and depth == 0 and toks[j - 1].v != "=":
                    break  # a function body (`operator+(...) {`): scan it, do not skip it
                if v in "([{":
                    depth += 1
                elif v in ")]}":
                    if depth == 0:
                        break
                    depth -= 1
                elif depth == 0 and v in (",", ";"):
                    break
                j += 1
            if j < upto and toks[j].v == "," and j + 1 < upto and not _is_base(toks[j + 1].v, extra):
                j += 1
                continue
            break
        i = max(j, i + 1)
    return env


def arg_type(toks: list[Tok], a: int, b: int, env: dict[str, CType]) -> CType | None:
    """The type of the argument ``toks[a:b]`` when it is a name, a name indexed ``x[i]``, an
    address ``&x``, a literal, a call of a function declared before it (its return type:
    ``f(quarter(x))`` deduces through the nested call) or a function-style cast; else None."""
    vals = [t.v for t in toks[a:b]]
    if len(vals) == 1:
        v = vals[0]
        if v in env:
            return env[v]
        if _FLOAT_LIT.match(v):
            return CType("float", 0)
        if _DOUBLE_LIT.match(v) and not _INT_LIT.match(v):
            return CType("double", 0)
        if _INT_LIT.match(v):
            return CType("unsigned int" if "u" in v.lower() else "int", 0)
        return None
    if len(vals) >= 3 and vals[1] == "(" and vals[-1] == ")" and _one_group(vals[1:]):
        # a call whose return type is known, or a function-style cast `float(k)`
        if _is_base(vals[0], frozenset()):
            return CType(vals[0], 0)
        ret = env.get(vals[0] + "()")
        return ret if ret is not None and ret.base != "?" else None
    if len(vals) >= 3 and vals[0] in env and vals[1] == "[" and vals[-1] == "]":
        ty = env[vals[0]]
        return CType(ty.base, ty.stars - 1) if ty.stars > 0 else None
    if len(vals) == 2 and vals[0] == "&" and vals[1] in env:
        ty = env[vals[1]]
        return CType(ty.base, ty.stars + 1)
    return None


def _one_group(vals: list[str]) -> bool:
    """``vals`` is one bracketed group: its first bracket closes at its last token."""
    depth = 0
    for n, v in enumerate(vals):
        depth += v in ("(", "[", "{")
        depth -= v in (")", "]", "}")
        if depth == 0:
            return n == len(vals) - 1
    return False


def match_param(pattern: list[str], arg: CType, tparams: set[str], out: dict[str, str]) -> None:
    """Deduce from one function parameter's type tokens ``pattern`` (e.g. ``const T *``) and
    the argument type; binds into ``out`` the type parameters it determines (first binding
    wins, as a conflicting one makes the call ill-formed in C++ and nvcc rejects it)."""
    words = [w for w in pattern if w not in _QUALS and w != "&"]
    stars = words.count("*")
    names = [w for w in words if w != "*"]
    if len(names) != 1 or names[0] not in tparams:
        return
    extra = arg.stars - stars
    if extra < 0:
        return
    out.setdefault(names[0], CType(arg.base, extra).text())
