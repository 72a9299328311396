"""Template expansion: the second text-level stage (after :mod:`kpl.preprocess`).

Each explicit instantiation (or ``-D`` binding) of a function template becomes one C
function with a mangled name (``reduce__int_256_false``); calls ``f<args>(...)`` are
rewritten to the mangled name and instantiate ``f`` on demand.  Parameters are replaced
token-wise; the instantiated text is re-emitted after the definition under ``#line``
directives, so coordinates still name the template's original lines.

Stage: preprocessed text -> :class:`Expanded` (text + one :class:`InstInfo` per instance).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from kpl.errors import KplError
from kpl.spans import Locator, directive
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


def mangle_arg(a: str) -> str:
    s = a.replace("*", "p").replace("&", "r").replace("-", "m").replace(".", "d")
    return re.sub(r"\W+", "_", s).strip("_") or "x"


def mangle(base: str, args: list[str]) -> str:
    return base + "__" + "_".join(mangle_arg(a) for a in args)


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

    def __init__(self, text: str, path: str, defines: dict[str, str]) -> None:
        self.text = text
        self.path = path
        self.defines = defines
        self.loc = Locator(text, path)
        self.defs: dict[str, _TemplateDef] = {}
        self.info: dict[str, InstInfo] = {}
        self.work: list[tuple[str, list[str], str]] = []  # (template, args, mangled)
        self.edits = Edits(text)

    # ---- scanning
    def run(self) -> Expanded:
        toks = tokenize(self.text)
        if not any(t.v == "template" for t in toks):
            return Expanded(self.text, {})
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
                raise error_at(f"explicit instantiation of unknown template '{name}'", self.loc, pos)
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
        return Expanded(text, self.info)

    def path_loc_for(self, text: str) -> Locator:
        return Locator(text, self.path)

    def _template_item(self, toks: list[Tok], match: dict[int, int], i: int,
                       explicit: list[tuple[str, list[str], int]]) -> int:
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
            # struct/class templates: only the SharedMemory idiom is supported
            if k < n and toks[k].v in ("struct", "class", "union"):
                name = toks[k + 1].v if k + 1 < n else "?"
                end_i = self._item_end(toks, match, k)
                if name == "SharedMemory":
                    self.edits.blank(start, toks[end_i].end)
                    return end_i + 1
                raise error_at(f"unsupported construct: C++ class template '{name}'", self.loc, toks[k].start)
            if not params:
                raise error_at("unsupported construct: explicit template specialization", self.loc, start)
            # function template
            name_i = -1
            j = k
            while j < n and toks[j].v not in (";", "{"):
                if toks[j].v in ATTR_FUNCS and j + 1 < n and toks[j + 1].v == "(":
                    j = match.get(j + 1, j + 1) + 1
                    continue
                if toks[j].kind == "id" and j + 1 < n and toks[j + 1].v == "(" and name_i < 0:
                    name_i = j
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
            d = _TemplateDef(name, params, start, toks[k].start, toks[end_i].end, toks[name_i].start,
                             "__global__" in head_vals)
            if name in self.defs:
                raise error_at(f"unsupported construct: overloaded function template '{name}'", self.loc,
                           toks[name_i].start)
            self.defs[name] = d
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
                raise error_at("malformed template parameter", self.loc, toks[s].start)
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
                raise error_at(f"too many template instantiations (recursive template '{name}'?)", self.loc,
                           d.name_off)
            d.insts.append(mangled)
            self.work.append((name, bound, mangled))
            f, ln, col = self.loc(d.name_off)
            self.info[mangled] = InstInfo(f"{name}<{', '.join(bound)}>", name, f, ln, col)
        return mangled

    def _bind(self, d: _TemplateDef, args: list[str], pos: int) -> list[str]:
        if len(args) > len(d.params):
            raise error_at(f"too many template arguments for '{d.name}'", self.loc, pos)
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
        edits = Edits(text)
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

    def rewrite_calls(self, text: str, loc: Locator | None, base: int = 0) -> tuple[str, int]:
        """Replace ``f<args>(`` (and ``f(`` for templates whose parameters all have values)
        by the mangled instantiation, requesting it."""
        toks = tokenize(text)
        match = match_brackets(toks)
        edits = Edits(text)
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
