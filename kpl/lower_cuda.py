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
from dataclasses import dataclass

from kpl.errors import KplError
from kpl.source import FunctionInfo
from kpl.spans import Locator
from kpl.templates import InstInfo, mangle_arg
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


class CudaLowerer:
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
                    raise self.err(f"unsupported construct: {UNSUPPORTED[bad]}", i + vals.index(bad))
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
                if toks[k].v in FUNC_QUALS:
                    self.head_quals.add(k)
            return
        if any(v in SPACE_QUALS for v in vals):
            self._record_vars(a, e, None)

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
            elif v in CASTS and nxt == "<":
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
            elif v in TEX_FUNCS and nxt == "<":
                gt = match_angle(toks, i + 1, self.match)
                if gt > 0:
                    self.kill(i + 1, gt)
                    i = gt
            elif v in UNSUPPORTED and (t.kind == "id" or v == "::"):
                raise self.err(f"unsupported construct: {UNSUPPORTED[v]}", i)
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
