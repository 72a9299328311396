"""Template expansion: the second text-level stage (after :mod:`kpl.preprocess`).

Templates are instantiated as nvcc does: each explicit instantiation
(``template __global__ void k<32>(float *);``), each ``--kernel 'k<32>'``, each call or host
launch (``k<<<g, b>>>(d_x, n)``, type arguments deduced from the argument types by
:mod:`kpl.tdeduce`), and -- our extension -- each ``-D`` binding of a parameter becomes one C
function with a mangled name (``reduce__int_256_false``); several instantiations of a
``__global__`` template are several kernels, named ``k<32>`` in messages.  A kernel template
that nothing instantiates is an error (it is no kernel for nvcc either).  Explicit
specialisations (``template <> __device__ float op<float>(float)``) replace the primary text
for their arguments; function-template overloads are told apart by arity.  Class templates
are :mod:`kpl.tclasses`.  Parameters are replaced token-wise; the instantiated text is
re-emitted after the definition under ``#line`` directives, so coordinates (and so messages
and ``fix``, which renders into the ORIGINAL template text, once for all instantiations)
name the template's original lines.

One piece over 400 lines because scanning the template items, binding their arguments and
rewriting the calls share one state (the definitions and the instantiation worklist); the
independent parts (deduction, class templates) are their own modules.

Stage: preprocessed text -> :class:`Expanded` (text + one :class:`InstInfo` per instance).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from kpl.errors import KplError
from kpl.spans import Locator, directive
from kpl.tclasses import ClassTemplates, mangle
from kpl.tdeduce import arg_type, declared_types, match_param
from kpl.tokens import (
    ATTR_FUNCS,
    Edits,
    Tok,
    error_at,
    match_angle,
    match_brackets,
    norm,
    split_commas,
    tokenize,
)


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
    #: the function parameters: (type tokens without the name, has a default argument)
    fparams: list[tuple[list[str], bool]] = field(default_factory=list)
    suffix: str = ""  # mangling suffix telling overloads apart ("" for the first)
    insts: list[str] = field(default_factory=list)  # mangled names, in request order
    #: (offset the ``#line`` names, instantiated text), one per instance
    chunks: list[tuple[int, str]] = field(default_factory=list)
    #: explicit specialisations: mangled name -> (start of the function text, end, offset of
    #: the name, offset just past ``name<args>``)
    specs: dict[str, tuple[int, int, int, int]] = field(default_factory=dict)

    def arity_ok(self, nargs: int) -> bool:
        required = sum(1 for _, has_default in self.fparams if not has_default)
        return required <= nargs <= len(self.fparams)


@dataclass
class InstInfo:
    display: str
    base: str
    file: str
    line: int
    col: int


@dataclass
class Expanded:
    """The template stage's output: C-with-CUDA text without templates."""

    text: str
    instances: dict[str, InstInfo]  # mangled name -> where and what it instantiates


class TemplateExpander:
    """Textual template instantiation (one C function per
    instantiation, parameters replaced token-wise)."""

    MAX_INSTANCES = 256

    def __init__(self, text: str, path: str, defines: dict[str, str],
                 requested: list[str] | None = None) -> None:
        self.text = text
        self.path = path
        self.defines = defines
        self.requested = requested or []  # ``--kernel 'k<32>'``: instantiations asked for
        self.loc = Locator(text, path)
        self.defs: dict[str, _TemplateDef] = {}  # key (name, or name#2 for an overload) -> def
        self.overloads: dict[str, list[str]] = {}  # template name -> its def keys, in file order
        #: explicit specialisations: (name, args, spans, number of function parameters)
        self.specs: list[tuple[str, list[str], tuple[int, int, int, int], int | None]] = []
        self.info: dict[str, InstInfo] = {}
        self.work: list[tuple[str, list[str], str]] = []  # (def key, args, mangled)
        self.edits = Edits(text)
        self.classes = ClassTemplates(text, self.loc, self._bind_params, self._subst,
                                      lambda body, at: self.rewrite_calls(body, None, base=at)[0])
        self.class_marks: list[tuple[int, int]] = []  # (class item index, offset past its `;`)

    # ---- scanning
    def run(self) -> Expanded:
        toks = tokenize(self.text)
        if not any(t.v == "template" for t in toks) and not self.requested:
            return Expanded(self.text, {})
        match = match_brackets(toks)
        explicit: list[tuple[str, list[str], int, int | None]] = []  # name, args, offset, params
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
        for name, args, spans, nparams in self.specs:
            key = self._resolve(name, nparams, spans[2])
            d = self.defs[key]
            d.specs[mangle(name, self._bind(d, args, spans[2])) + d.suffix] = spans
        # explicit instantiations, --kernel 'k<...>', then calls and launches
        for name, args, pos, nparams in explicit:
            self.request(self._resolve(name, nparams, pos), args, pos)
        for req in self.requested:
            name, args = parse_instance(req, self.path)
            if not any(self.defs[k].is_global for k in self.overloads.get(name, [])):
                raise KplError(f"--kernel '{req}': '{name}' is not a kernel template in this file", self.path)
            self.request(self.overloads[name][0], args, self.defs[self.overloads[name][0]].name_off)
        text = self.classes.rewrite(self._marked_text(), None)
        text, _ = self.rewrite_calls(text, self.path_loc_for(text))
        for d in self.defs.values():
            if d.is_global and not d.insts:
                try:
                    self.request(self.overloads[d.name][0], [], d.name_off)
                except KplError:
                    raise error_at(f"unsupported: kernel template '{d.name}' is never instantiated (add an "
                                   f"explicit instantiation or --kernel '{d.name}<...>')", self.loc,
                                   d.name_off) from None
        while self.work:
            key, args, mangled = self.work.pop(0)
            self._instantiate(key, args, mangled)
        for idx, d in enumerate(self.defs.values()):
            text = text.replace(f"\x00T{idx}\x00", self._chunk_block(d))
        for idx, end in self.class_marks:
            block = self.classes.block(idx)
            if block:
                ef, eln, ecol = self.loc(end)
                block += directive(eln, ef) + "\n" + " " * (ecol - 1)
            text = text.replace(f"\x00C{idx}\x00", block)
        return Expanded(text, self.info)

    def _resolve(self, name: str, nargs: int | None, pos: int) -> str:
        """The def key of template ``name`` for a call with ``nargs`` arguments (overloads
        differ in arity here; None: the first)."""
        keys = self.overloads.get(name)
        if not keys:
            raise error_at(f"unknown template '{name}'", self.loc, pos)
        if nargs is None or len(keys) == 1:
            return keys[0]
        fits = [k for k in keys if self.defs[k].arity_ok(nargs)]
        if len(fits) != 1:
            raise error_at(f"unsupported construct: cannot choose among the overloads of '{name}' for "
                           f"{nargs} argument(s)", self.loc, pos)
        return fits[0]

    def path_loc_for(self, text: str) -> Locator:
        return Locator(text, self.path)

    def _template_item(self, toks: list[Tok], match: dict[int, int], i: int,
                       explicit: list[tuple[str, list[str], int, int | None]]) -> int:
        """Handle one top-level ``template ...`` item starting at token ``i``; return the index
        after it.  Definitions are blanked (instantiations are emitted after them)."""
        n = len(toks)
        start = toks[i].start
        if i + 1 < n and toks[i + 1].v == "<":
            gt = match_angle(toks, i + 1, match)
            if gt < 0:
                raise error_at("malformed template parameter list", self.loc, toks[i + 1].start)
            params = self._params(toks, i + 2, gt, match)
            k = gt + 1
            # class templates (kpl.tclasses); the SDK's SharedMemory<T> with a conversion
            # operator stays the expression idiom that kpl.lower_cuda lowers
            if k < n and toks[k].v in ("struct", "class", "union"):
                name = toks[k + 1].v if k + 1 < n else "?"
                end_i = self._item_end(toks, match, k)
                body_vals = {toks[x].v for x in range(k, end_i)}
                if "{" not in body_vals or (name == "SharedMemory" and "operator" in body_vals):
                    self.edits.blank(start, toks[end_i].end)  # a forward declaration / the idiom
                    return end_i + 1
                spec_args = None
                if not params:
                    gt = match_angle(toks, k + 2, match) if k + 2 < n and toks[k + 2].v == "<" else -1
                    if gt < 0:
                        raise error_at("unsupported construct: explicit specialization without template "
                                       "arguments", self.loc, start)
                    spec_args = [norm(self.text[toks[a].start:toks[b - 1].end])
                                 for a, b in split_commas(toks, k + 3, gt, match) if a < b]
                idx = self.classes.add(toks, match, k, end_i, params, spec_args)
                self.class_marks.append((idx, toks[end_i].end))
                self.edits.blank(start, toks[end_i].end)
                return end_i + 1
            # function template (or, with ``template <>``, an explicit specialisation)
            name_i = -1
            spec_gt = -1
            j = k
            while j < n and toks[j].v not in (";", "{"):
                if toks[j].v in ATTR_FUNCS and j + 1 < n and toks[j + 1].v == "(":
                    j = match.get(j + 1, j + 1) + 1
                    continue
                if toks[j].kind == "id" and name_i < 0 and j + 1 < n:
                    if toks[j + 1].v == "(":
                        name_i = j
                    elif not params and toks[j + 1].v == "<" and toks[j].v not in ATTR_FUNCS:
                        gt2 = match_angle(toks, j + 1, match)
                        if gt2 > 0 and gt2 + 1 < n and toks[gt2 + 1].v == "(":
                            name_i, spec_gt = j, gt2
                            j = gt2 + 1
                            continue
                if toks[j].v in "([" and j in match:
                    j = match[j]
                j += 1
            if name_i < 0 or j >= n:
                raise error_at("unsupported construct: template declaration", self.loc, start)
            head_vals = {toks[x].v for x in range(k, name_i)}
            if toks[j].v == ";":  # forward declaration
                self.edits.blank(start, toks[j].end)
                return j + 1
            end_i = match.get(j, n - 1)
            name = toks[name_i].v
            if not params:
                if spec_gt < 0:
                    raise error_at("unsupported construct: explicit template specialization without "
                                   "template arguments (write name<args>(...))", self.loc, start)
                args = [norm(self.text[toks[a].start:toks[b - 1].end])
                        for a, b in split_commas(toks, name_i + 2, spec_gt, match) if a < b]
                self.specs.append((name, args, (toks[k].start, toks[end_i].end, toks[name_i].start,
                                                 toks[spec_gt].end), len(self._fparams(toks, spec_gt + 1,
                                                                                       match))))
                self.edits.blank(start, toks[end_i].end)
                return end_i + 1
            d = _TemplateDef(name, params, start, toks[k].start, toks[end_i].end, toks[name_i].start,
                             "__global__" in head_vals, self._fparams(toks, name_i + 1, match))
            key = name
            if name in self.defs:
                key = f"{name}#{len(self.overloads[name]) + 1}"
                d.suffix = f"_o{len(self.overloads[name]) + 1}"
                if d.is_global or self.defs[name].is_global:
                    raise error_at(f"unsupported construct: overloaded kernel template '{name}'", self.loc,
                                   toks[name_i].start)
            self.overloads.setdefault(name, []).append(key)
            self.defs[key] = d
            self.edits.blank(start, d.end)
            return end_i + 1
        # explicit instantiation: template [quals] type NAME<args>(types);
        j = i + 1
        name_i = -1
        while j < n and toks[j].v != ";":
            if toks[j].kind == "id" and j + 1 < n and toks[j + 1].v == "<" and name_i < 0 \
                    and toks[j].v not in ATTR_FUNCS:
                name_i = j
            if toks[j].v in "([{" and j in match:
                j = match[j]
            j += 1
        if name_i < 0:
            raise error_at("unsupported construct: explicit instantiation without template arguments "
                       "(write name<args>(...))", self.loc, start)
        gt = match_angle(toks, name_i + 1, match)
        args = [norm(self.text[toks[a].start:toks[b - 1].end])
                for a, b in split_commas(toks, name_i + 2, gt, match) if a < b]
        lp = gt + 1
        nparams = len(self._fparams(toks, lp, match)) if lp < n and toks[lp].v == "(" else None
        explicit.append((toks[name_i].v, args, toks[name_i].start, nparams))
        self.edits.blank(start, toks[min(j, n - 1)].end)
        return j + 1

    def _fparams(self, toks: list[Tok], lp: int, match: dict[int, int]) -> list[tuple[list[str], bool]]:
        """The function parameter list opening at ``toks[lp]``: type tokens and default flag."""
        out: list[tuple[list[str], bool]] = []
        for s, e in split_commas(toks, lp + 1, match.get(lp, lp + 1), match):
            eq = next((x for x in range(s, e) if toks[x].v == "="), e)
            vals = [toks[x].v for x in range(s, eq)]
            if vals == ["void"] or not vals:
                continue
            if len(vals) > 1 and toks[eq - 1].kind == "id":
                vals = vals[:-1]
            out.append((vals, eq < e))
        return out

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
                raise error_at("malformed template parameter", self.loc, toks[s].start)
            pname = toks[names[-1]].v
            kind = "type" if toks[s].v in ("typename", "class") else "value"
            default = norm(self.text[toks[eq + 1].start:toks[e - 1].end]) if eq < e - 1 else None
            out.append(_TParam(kind, pname, default))
        return out

    def _marked_text(self) -> str:
        for idx, d in enumerate(self.defs.values()):
            self.edits.replace(d.end, d.end, f"\x00T{idx}\x00")
        for idx, end in self.class_marks:
            self.edits.replace(end, end, f"\x00C{idx}\x00")
        return self.edits.apply()

    # ---- instantiation
    def request(self, key: str, args: list[str], pos: int, deduced: dict[str, str] | None = None) -> str:
        d = self.defs[key]
        bound = self._bind(d, args, pos, deduced or {})
        mangled = mangle(d.name, bound) + d.suffix
        if mangled not in d.insts:
            if sum(len(x.insts) for x in self.defs.values()) >= self.MAX_INSTANCES:
                raise error_at(f"too many template instantiations (recursive template '{d.name}'?)", self.loc,
                               d.name_off)
            d.insts.append(mangled)
            self.work.append((key, bound, mangled))
            f, ln, col = self.loc(d.name_off)
            self.info[mangled] = InstInfo(f"{d.name}<{', '.join(bound)}>", d.name, f, ln, col)
        return mangled

    def _bind(self, d: _TemplateDef, args: list[str], pos: int, deduced: dict[str, str] | None = None) -> list[str]:
        """C++'s order: explicit arguments, then deduced ones, then (ours) ``-D``, then defaults."""
        return self._bind_params(d.params, args, d.name, pos, deduced, d.name_off)

    def _bind_params(self, params: list[_TParam], args: list[str], name: str, pos: int,
                     deduced: dict[str, str] | None = None, where: int | None = None) -> list[str]:
        if len(args) > len(params):
            raise error_at(f"too many template arguments for '{name}'", self.loc, pos)
        bound: list[str] = []
        env: dict[str, str] = {}
        for i, p in enumerate(params):
            if i < len(args):
                val = args[i]
            elif deduced and p.name in deduced:
                val = deduced[p.name]
            elif p.name in self.defines:
                val = norm(self.defines[p.name])
            elif p.default is not None:
                val = self._subst(p.default, env)
            else:
                f, ln, col = self.loc(pos if where is None else where)
                raise KplError(f"template parameter '{p.name}' of '{name}' has no value: add an explicit "
                               f"instantiation or pass -D {p.name}=VALUE", f, ln, col)
            bound.append(val)
            env[p.name] = val
        return bound

    @staticmethod
    def _subst(text: str, env: dict[str, str]) -> str:
        toks = tokenize(text)
        edits = Edits(text)
        for t in toks:
            if t.kind == "id" and t.v in env:
                val = env[t.v]
                if len(tokenize(val)) > 1 and not re.fullmatch(r"[\w\s\*]+", val):
                    val = f"({val})"
                edits.replace(t.start, t.end, val)
        return edits.apply()

    def _instantiate(self, key: str, args: list[str], mangled: str) -> None:
        d = self.defs[key]
        if mangled in d.specs:  # an explicit specialisation: its own text, nothing to substitute
            fs, end, name_off, name_end = d.specs[mangled]
            body = self.text[fs:name_off] + mangled + self.text[name_end:end]
            body, _ = self.rewrite_calls(body, None, base=fs)
            d.chunks.append((fs, body))
            return
        body = self.text[d.func_start:d.end]
        name_rel = d.name_off - d.func_start
        # rename first: the name token is at a known offset
        body = body[:name_rel] + "\x01" + body[name_rel + len(d.name):]
        env = {p.name: a for p, a in zip(d.params, args, strict=False)}
        body = self.classes.rewrite(self._subst(body, env), d.func_start)
        body = body.replace("\x01", mangled, 1)
        body, _ = self.rewrite_calls(body, None, base=d.func_start)
        d.chunks.append((d.func_start, body))

    def _chunk_block(self, d: _TemplateDef) -> str:
        if not d.chunks:
            return ""
        ef, eln, ecol = self.loc(d.end)
        parts = []
        for start, ch in d.chunks:
            f, ln, col = self.loc(start)
            parts.append("\n" + directive(ln, f) + "\n" + " " * (col - 1) + ch)
        parts.append("\n" + directive(eln, ef) + "\n" + " " * (ecol - 1))
        return "".join(parts)

    def rewrite_calls(self, text: str, loc: Locator | None, base: int = 0) -> tuple[str, int]:
        """Replace ``f<args>(``, ``f(`` and ``f<<<...>>>(`` by the mangled instantiation,
        requesting it; arguments not written are deduced from the call's arguments
        (:mod:`kpl.tdeduce`), else taken from ``-D`` or the defaults."""
        toks = tokenize(text)
        match = match_brackets(toks)
        edits = Edits(text)
        count = 0
        for i, t in enumerate(toks):
            if t.kind != "id" or t.v not in self.overloads or i + 1 >= len(toks):
                continue
            if i > 0 and toks[i - 1].v in (".", "->"):
                continue
            args: list[str] = []
            end = t.end
            lp = i + 1
            if toks[i + 1].v == "<":
                gt = match_angle(toks, i + 1, match)
                if gt < 0:
                    continue
                args = [norm(text[toks[a].start:toks[b - 1].end])
                        for a, b in split_commas(toks, i + 2, gt, match) if a < b]
                end, lp = toks[gt].end, gt + 1
            if lp < len(toks) and toks[lp].v == "<<":  # a launch: the arguments follow `>>>`
                lp = next((x + 2 for x in range(lp, len(toks) - 2)
                           if toks[x].v == ">>" and toks[x + 1].v == ">"), len(toks))
            if lp >= len(toks) or (toks[lp].v != "(" and not args):
                continue
            call_args = split_commas(toks, lp + 1, match[lp], match) if toks[lp].v == "(" and lp in match else []
            call_args = [(a, b) for a, b in call_args if a < b]
            pos = base + t.start if loc is None else None
            key = self._resolve(t.v, len(call_args) if toks[lp].v == "(" else None,
                                pos if pos is not None else self.d_pos(t.v))
            d = self.defs[key]
            deduced: dict[str, str] = {}
            if toks[lp].v == "(":
                env = declared_types(toks, i)
                tparams = {p.name for p in d.params[len(args):] if p.kind == "type"}
                for (pattern, _), (a, b) in zip(d.fparams, call_args, strict=False):
                    ty = arg_type(toks, a, b, env)
                    if ty is not None:
                        match_param(pattern, ty, tparams, deduced)
            try:
                mangled = self.request(key, args, pos if pos is not None else d.name_off, deduced)
            except KplError as exc:
                f, ln, col = loc(t.start) if loc is not None else self.loc(pos if pos is not None else d.name_off)
                raise KplError(f"cannot deduce the template arguments of '{t.v}' in this call: write "
                               f"{t.v}<...>(...) ({exc.message})", f, ln, col) from None
            edits.replace(t.start, end, mangled)
            count += 1
        return edits.apply(), count

    def d_pos(self, name: str) -> int:
        return self.defs[self.overloads[name][0]].name_off


def shared_template(kernel: str, others: list[str]) -> str | None:
    """Why a patch cannot serve instantiation ``kernel`` (``k<32>``) when its placement is the
    union of those of the other instantiations of the same template in ``others`` (``fix``
    renders one barrier set into the one template text); None when no other shares it."""
    base = kernel.split("<", 1)[0]
    twins = [o for o in others if "<" in kernel and o.split("<", 1)[0] == base]
    if not twins:
        return None
    return (f"kernel '{kernel}': its template text is shared with {', '.join(twins)}; the union of "
            f"their barrier placements does not verify for '{kernel}'")


def parse_instance(spec: str, path: str) -> tuple[str, list[str]]:
    """``'k<float, 256>'`` (a ``--kernel`` value) -> ``('k', ['float', '256'])``."""
    toks = tokenize(spec)
    match = match_brackets(toks)
    if len(toks) < 3 or toks[0].kind != "id" or toks[1].v != "<" or match_angle(toks, 1, match) != len(toks) - 1:
        raise KplError(f"bad --kernel value '{spec}': expected NAME or NAME<ARGS>", path)
    return toks[0].v, [norm(spec[toks[a].start:toks[b - 1].end])
                       for a, b in split_commas(toks, 2, len(toks) - 1, match) if a < b]


# --------------------------------------------------------------------------- lowering


_TEMPLATE_HEAD = re.compile(r"\btemplate\s*<([^<>]*(?:<[^<>]*>[^<>]*)*)>")


def template_param_names(text: str) -> set[str]:
    names: set[str] = set()
    for m in _TEMPLATE_HEAD.finditer(text):
        for part in m.group(1).split(","):
            lhs = part.split("=")[0]
            ids = re.findall(r"[A-Za-z_]\w*", lhs)
            if ids:
                names.add(ids[-1])
    return names
