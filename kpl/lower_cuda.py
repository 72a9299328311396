"""CUDA -> C99 lowering at token level: the third text-level stage.

Qualifiers are replaced by spaces of the same length (so columns of untouched code stay put,
CONTRIBUTING.md "Labels" renders fixes into the original text), inline PTX barriers become
``__kpl_bar_sync``/``__kpl_bar_arrive`` calls (named barriers, [WEFT]), C++ casts become C
casts, ...  Everything the lowering removes from the text but the verifier needs
(``__shared__``, kernels, textures) is recorded in :class:`Lowered`'s side tables.

Stage: template-expanded text -> :class:`Lowered`.

Over 400 lines because it is one left-to-right pass over one token list: the top-level scan,
the function-body sweep and the rewrites (casts, shared memory, asm) share the token
buffer, the bracket map and the edit list, and splitting them would only pass that state
around.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from kpl.errors import KplError
from kpl.lower_asm import AsmLowering
from kpl.lower_coop import COOP_TYPES, CoopGroupsLowering
from kpl.lower_cxx import CxxDeclsLowering
from kpl.source import FunctionInfo
from kpl.spans import Locator
from kpl.tclasses import mangle_arg
from kpl.templates import InstInfo
from kpl.tokens import (
    ATTR_FUNCS,
    C_KEYWORDS,
    CASTS,
    FUNC_QUALS,
    REMOVE_KW,
    SPACE_QUALS,
    TEX_FUNCS,
    UNSUPPORTED,
    Edits,
    Tok,
    error_at,
    eval_int,
    match_angle,
    match_brackets,
    norm,
    split_commas,
    tokenize,
)


@dataclass
class Lowered:
    text: str
    functions: dict[str, FunctionInfo]
    var_spaces: dict[tuple[str | None, str], str]
    extern_shared: set[tuple[str | None, str]]
    textures: dict[str, tuple[str, int]]
    dynsmem: dict[str, str]  # C array name -> element type
    #: C++ struct/union -> (its base structs, its ``__align__``/``alignas`` or 0): what the
    #: text loses when ``struct B : A`` and ``__align__(16)`` are blanked (kpl.fe.types
    #: lays the struct out from them)
    structs: dict[str, tuple[tuple[str, ...], int]] = field(default_factory=dict)



#: C type keywords that can start a function-style cast `float(x)` / a declaration
TYPE_WORDS = {"int", "float", "double", "char", "short", "long", "unsigned", "signed", "bool",
              "_Bool"}
#: words that can precede `name(...)` in a statement that is not a declaration
STMT_WORDS = {"return", "else", "case", "goto", "do", "throw", "delete", "new", "sizeof"}
_STUB = Path(__file__).resolve().parent / "stubs" / "cuda.h"


def _typedef_names(text: str) -> set[str]:
    """Names declared by ``typedef ... NAME;`` in ``text`` (and the bundled stub)."""
    names = set(TYPE_WORDS)
    for src in (text, _STUB.read_text(encoding="utf-8")):
        names.update(re.findall(r"\btypedef\b[^;{}]*?(?:\{[^{}]*\})?[^;{}]*?\b(\w+)\s*;", src))
    return names


class CudaLowerer(AsmLowering, CoopGroupsLowering, CxxDeclsLowering):
    """Token-level CUDA -> C99 rewriting of the (template-expanded) text."""

    def __init__(self, text: str, path: str, inst: dict[str, InstInfo]) -> None:
        self.text = text
        self.path = path
        self.inst = inst
        self.loc = Locator(text, path)
        self.toks = tokenize(text)
        self.match = match_brackets(self.toks)
        self.edits = Edits(text)
        self.dead = [False] * len(self.toks)
        self.fn_spans: list[tuple[int, int, str]] = []
        self.head_quals: set[int] = set()
        self.out = Lowered(text, {}, {}, set(), {}, {})
        self.ns_aliases: set[str] = {"cooperative_groups"}  # names of the cg namespace
        self.defaults: dict[str, dict[int, str]] = {}  # function -> parameter -> default text
        self.groups: dict[str, tuple[str, int]] = {}
        self.type_names = _typedef_names(text)  # for `T(x)` casts and `T x(v);` declarations  # cg group variable -> (type, tile size)

    def err(self, msg: str, i: int) -> KplError:
        return error_at(msg, self.loc, self.toks[min(i, len(self.toks) - 1)].start)

    def kill(self, a: int, b: int) -> None:
        """Blank tokens a..b inclusive."""
        self.edits.blank(self.toks[a].start, self.toks[b].end)
        for k in range(a, b + 1):
            self.dead[k] = True

    def run(self) -> Lowered:
        self._top_level()
        self._bodies()
        self._sweep()
        for cname, defaults in self.defaults.items():
            if cname in self.out.functions:
                self.out.functions[cname].defaults.update(defaults)
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
            if toks[i].v == "namespace" and i + 3 < n and toks[i + 2].v == "=":
                # `namespace cg = cooperative_groups;`: an alias, kept for `_coop`
                self.ns_aliases.add(toks[i + 1].v)
                j = self._skip_to(i, (";",))
                self.kill(i, min(j, n - 1))
                i = j + 1
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
                    raise self.err(f"unsupported construct: {UNSUPPORTED[bad]}", i + vals.index(bad))
            close = self.match.get(j, n - 1)
            # an initialiser `T x = {...};`, not a default argument `f(T p = 0) {...}`
            init = "=" in vals and ("(" not in vals or vals.index("=") < vals.index("("))
            if init or any(v in ("struct", "union", "enum") for v in vals):
                e = self._skip_to(close + 1, (";",))
                if not init and vals[0] in ("struct", "union") and e < n:
                    self._struct_head(i, j, e)
                if init:
                    self._top_decl(i, min(e, n - 1))
                i = e + 1
                continue
            if "operator" in vals and toks[j].v == "{":
                self._operator(i, i + vals.index("operator"), j, close)
                i = close + 1
                continue
            if "(" in vals:
                self._function(i, j, close)
                i = close + 1
                continue
            i = close + 1

    def _operator(self, a: int, op_at: int, lbrace: int, rbrace: int) -> None:
        """An ``operator`` definition of a helper_math.h-style header: blanked when it is
        CUDA's elementwise vector operator (``make_float3(a.x + b.x, a.y + b.y, ...)``, or
        ``a.x += b.x; ...``), which the front end models natively (kpl.ctypes: a vector
        operand makes the operation elementwise).  Any other operator is unsupported: its
        body could do anything, and dropping it could hide an access."""
        if not _elementwise_operator(self.toks, op_at, lbrace, rbrace, self.match):
            raise self.err("unsupported construct: C++ operator overloading (only the elementwise "
                           "vector operators of helper_math.h are understood)", op_at)
        self.kill(a, rbrace)

    def _head_name(self, a: int, b: int) -> tuple[int, tuple[int, ...] | None]:
        """Index of the declarator name in head tokens [a, b) and the launch bounds seen."""
        toks = self.toks
        bounds: tuple[int, ...] | None = None
        k = a
        while k < b:
            t = toks[k]
            if t.v in ATTR_FUNCS and k + 1 < b and toks[k + 1].v == "(":
                close = self.match.get(k + 1, k + 1)
                if t.v == "__launch_bounds__":
                    vals = []
                    for s, e in split_commas(toks, k + 2, close, self.match):
                        if s >= e:
                            continue
                        v = eval_int(self.text[toks[s].start:toks[e - 1].end])
                        if v is None:
                            raise self.err("cannot evaluate __launch_bounds__ argument", s)
                        vals.append(v)
                    bounds = tuple(vals)
                k = close + 1
                continue
            if t.kind == "id" and k + 1 < b and toks[k + 1].v == "(" and t.v not in C_KEYWORDS:
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
            if self.toks[k].v in FUNC_QUALS:
                self.head_quals.add(k)
        self.fn_spans.append((j, close, cname))
        self._references(a, j, close, cname)

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
            cname = self._record_function(name_i, kind, bounds, False)
            self._references(a, e, e, cname)
            for k in range(a, e):
                if toks[k].v in FUNC_QUALS:
                    self.head_quals.add(k)
            return
        if any(v in SPACE_QUALS for v in vals):
            self._record_vars(a, e, None)

    def _references(self, a: int, j: int, close: int, cname: str) -> None:
        """C++ references ``T &r``: parameters in the header ``a..j`` and locals ``T &r = e;``
        of the body ``j..close`` become pointer declarators ``T *r`` (same length) so that
        pycparser accepts them, and ``(cname, r)`` is recorded with the space ``"reference"``:
        the front end binds ``r`` as an alias of its argument or initialiser lvalue
        (``kpl.fe.access.reference``), never as a pointer.  In a body only a statement that
        starts ``words & name =`` is taken: as an expression it would not be valid C."""
        toks = self.toks
        self._default_arguments(a, j, cname)
        for k in range(a + 1, min(close, len(toks) - 2)):
            if toks[k].v != "&" or toks[k].kind != "punct" or toks[k + 1].kind != "id":
                continue
            prev, after = toks[k - 1], toks[k + 2].v
            if not (prev.kind == "id" or prev.v in (">", "*")) or prev.v in ("return", "case"):
                continue
            if k < j:
                if after not in (",", ")", "="):
                    continue
            else:
                s = k - 1
                while s > j and (toks[s].kind == "id" or toks[s].v in ("*", "::")):
                    s -= 1
                if after != "=" or toks[s].v not in (";", "{", "}") or s == k - 1:
                    continue
            self.edits.replace(toks[k].start, toks[k].end, "*")
            self.out.var_spaces[(cname, toks[k + 1].v)] = "reference"

    def _default_arguments(self, a: int, j: int, cname: str) -> None:
        """``T p = value`` in the parameter list of header ``a..j``: the default is blanked
        for pycparser and kept as text (``FunctionInfo.defaults``) for calls that omit it."""
        toks = self.toks
        opens = [k for k in range(a, j) if toks[k].v == "(" and toks[k - 1].v == cname]
        if not opens or opens[0] not in self.match:
            return
        o = opens[0]
        for n, (s, x) in enumerate(split_commas(toks, o + 1, self.match[o], self.match)):
            eq = next((k for k in range(s, x) if toks[k].v == "="), -1)
            if eq > 0 and x > eq + 1:
                self.defaults.setdefault(cname, {})[n] = self.text[toks[eq + 1].start:toks[x - 1].end]
                self.kill(eq, x - 1)

    def _texture(self, a: int, t: int, e: int) -> None:
        toks = self.toks
        gt = match_angle(toks, t + 1, self.match)
        if gt < 0:
            raise self.err("malformed texture declaration", t)
        args = [norm(self.text[toks[s].start:toks[x - 1].end])
                for s, x in split_commas(toks, t + 2, gt, self.match) if s < x]
        elem = args[0] if args else "int"
        dim = eval_int(args[1]) if len(args) > 1 else 1
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
        # ``__device__ __shared__`` is shared memory: the specific space wins over __device__
        spaces = [SPACE_QUALS[v] for v in vals if v in SPACE_QUALS]
        space = next((sp for sp in spaces if sp != "device"), spaces[0])
        is_extern = "extern" in vals
        for s, x in split_commas(toks, a, e, self.match):
            name: str | None = None
            k = s
            while k < x:
                v = toks[k].v
                if v in ATTR_FUNCS and k + 1 < x and toks[k + 1].v == "(":
                    k = self.match.get(k + 1, k + 1) + 1
                    continue
                if v in ("[", "=", ":"):
                    break
                if toks[k].kind == "id" and v not in C_KEYWORDS:
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
                if toks[k].v in SPACE_QUALS:
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
            if v in REMOVE_KW:
                self.kill(i, i)
            elif v in ATTR_FUNCS and nxt == "(":
                close = self.match.get(i + 1, i + 1)
                self.kill(i, close)
                i = close
            elif nxt == "(" and t.kind == "id" and (
                    (v in self.type_names and self._functional_cast(i)) or self._direct_init(i)):
                pass
            elif v in CASTS and nxt == "<":
                i = self._cast(i)
                continue
            elif v == "auto" and self._auto_function(i):
                pass
            elif v == "[" and t.kind == "punct" and self._lambda(i):
                pass
            elif v == "nullptr":
                self.edits.replace(t.start, t.end, "0".ljust(len(v)))
            elif v == "SharedMemory":
                i = self._shared_memory(i)
                continue
            elif v in ("asm", "__asm__", "__asm"):
                i = self._asm(i)
                continue
            elif v in TEX_FUNCS and nxt == "<":
                gt = match_angle(toks, i + 1, self.match)
                if gt > 0:
                    self.kill(i + 1, gt)
                    i = gt
            elif (v in self.ns_aliases and nxt == "::") or v in COOP_TYPES or v in self.groups \
                    or v == "tiled_partition" or (v == "sync" and nxt == "(" and i + 2 < n
                                                  and toks[i + 2].v in self.groups):
                i = self._coop(i)
                continue
            elif v in UNSUPPORTED and (t.kind == "id" or v == "::"):
                raise self.err(f"unsupported construct: {UNSUPPORTED[v]}", i)
            i += 1

    def _functional_cast(self, i: int) -> bool:
        """``T(x)`` in an expression (``T`` a type name) -> ``(T)(x)``.  True when rewritten."""
        toks = self.toks
        prev = toks[i - 1] if i > 0 else None
        after = toks[i + 2].v if i + 2 < len(toks) else ""
        if after in ("*", "&", "^", ")") or (prev is not None and (
                (prev.kind == "id" and prev.v not in STMT_WORDS) or prev.v in (")", "]"))):
            return False
        self.edits.replace(toks[i].start, toks[i].end, f"({toks[i].v})")
        return True

    def _direct_init(self, i: int) -> bool:
        """``T name(v);`` at the start of a statement in a function body -> ``T name = (v);``
        (C++ direct initialisation; ``i`` is ``name``).  Not a prototype: ``v`` must not
        start with a type name.  True when rewritten."""
        toks = self.toks
        prev = toks[i - 1] if i > 0 else None
        close = self.match.get(i + 1, -1)
        if (prev is None or prev.v not in self.type_names or close <= i + 2
                or close + 1 >= len(toks) or toks[close + 1].v not in (";", ",")
                or toks[i + 2].v in self.type_names or toks[i + 2].v in ("void", "const", "struct")
                or not any(j < i < c for j, c, _ in self.fn_spans)):
            return False
        s = i - 1
        while s > 0 and (toks[s].kind == "id" or toks[s].v == "*"):
            s -= 1
        if toks[s].v not in (";", "{", "}") or toks[s + 1].v in STMT_WORDS:
            return False
        self.edits.replace(toks[i + 1].start, toks[i + 1].end, "= (")
        return True

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


# --------------------------------------------------------------------------- entry point


_VEC = re.compile(r"(?:u?char|u?short|u?int|u?long|u?longlong|float|double)([234])$")


def _elementwise_operator(toks: list[Tok], op_at: int, lbrace: int, rbrace: int,
                          match: dict[int, int]) -> bool:
    """Is ``operator OP (params) { body }`` CUDA's elementwise vector operator?"""
    if op_at + 2 >= lbrace or toks[op_at + 1].kind != "punct":
        return False
    op = toks[op_at + 1].v
    paren = op_at + 2
    if toks[paren].v != "(" or paren not in match:
        return False
    params: list[tuple[str, str]] = []  # (type name, parameter name)
    for s, e in split_commas(toks, paren + 1, match[paren], match):
        words = [t.v for t in toks[s:e] if t.v not in ("const", "&", "__restrict__")]
        if len(words) != 2 or any(not w.replace("_", "a").isalnum() for w in words):
            return False
        params.append((words[0], words[1]))
    ret = [t.v for t in toks[:op_at] if t.kind == "id"][-1:] if op_at else []
    vec = next((_VEC.match(t) for t, _ in params if _VEC.match(t)), None)
    if vec is None:
        return False
    comps = "xyzw"[: int(vec.group(1))]
    vname = vec.group(0)
    body = "".join(t.v for t in toks[lbrace + 1:rbrace])

    def part(name: str, typ: str, c: str) -> str:
        return f"{name}.{c}" if _VEC.match(typ) else name

    if op in ("+", "-", "*", "/") and len(params) == 2 and ret == [vname]:
        (ta, a), (tb, b) = params
        want = ",".join(f"{part(a, ta, c)}{op}{part(b, tb, c)}" for c in comps)
        return body == f"returnmake_{vname}({want});"
    if op == "-" and len(params) == 1 and ret == [vname]:
        (_, a), = params
        return body == f"returnmake_{vname}({','.join(f'-{a}.{c}' for c in comps)});"
    if op in ("+=", "-=", "*=", "/=") and len(params) == 2 and _VEC.match(params[0][0]):
        (_, a), (tb, b) = params
        return body == "".join(f"{a}.{c}{op}{part(b, tb, c)};" for c in comps)
    return False
