"""Class templates, lowered to C at token level (part of the template stage,
:mod:`kpl.templates`).

Kernels use class templates in three shapes, and each has a C rendering:

* methods only (``template <class T> struct SharedMem { __device__ T *get() {...} };``, the
  per-type shared-buffer idiom): each method of ``SharedMem<float>`` becomes a free function
  ``SharedMem__float__get``; an object ``SharedMem<float> sm;`` disappears and ``sm.get(...)``
  calls that function (no ``this``: a method that uses data members is not this shape);
* data only (``template <typename T, int N> struct Vec { T v[N]; };``): ``Vec<float, 4>``
  becomes ``typedef struct {...} Vec__float_4;``;
* ``static const int`` members and member types (``typedef T value_type;``, either shape):
  ``Vec<float, 4>::SIZE`` becomes its value, ``typename Vec<float, 4>::value_type`` its type.

Explicit specialisations (``template <> struct SharedMem<double> {...}``) replace the
primary template for their arguments, as in C++.  Instances are emitted where their template
(or specialisation) was written, under ``#line``, so messages name the class's own lines.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from kpl.errors import KplError
from kpl.spans import Locator, directive
from kpl.tokens import Tok, match_angle, match_brackets, norm, split_commas, tokenize

#: binds a template's arguments: (params, args, name, offset) -> bound args
Binder = Callable[[list, list[str], str, int], list[str]]
#: substitutes template parameters in a text: (text, env) -> text
Subst = Callable[[str, dict[str, str]], str]


@dataclass
class _Member:
    kind: str  # 'method' | 'data' | 'static' (a static const value) | 'type' (a member type)
    start: int  # offsets in the file text
    end: int
    name: str = ""
    name_off: int = -1
    value: str = ""  # static const initializer


@dataclass
class _ClassItem:
    """A primary class template (``params``) or an explicit specialisation (``spec_args``)."""

    name: str
    params: list  # list[kpl.templates._TParam]
    spec_args: list[str] | None
    head: int  # offset of `struct`/`class` (the #line of its instances)
    members: list[_Member]
    chunks: list[str] = field(default_factory=list)


class ClassTemplates:
    """The class templates of one file and their instances (state of the template stage)."""

    def __init__(self, text: str, loc: Locator, bind: Binder, subst: Subst,
                 calls: Callable[[str, int], str]) -> None:
        self.text = text
        self.loc = loc
        self.bind = bind  # the expander's binding rules (explicit, -D, defaults)
        self.subst = subst
        self.calls = calls  # rewrites the function-template calls of a method (text, file offset)
        self.items: list[_ClassItem] = []  # in file order (placeholder index = position)
        self.primary: dict[str, _ClassItem] = {}
        self.specs: dict[str, dict[str, _ClassItem]] = {}  # name -> mangled -> specialisation
        self.done: dict[str, _ClassItem] = {}  # mangled instance -> the item it was made from
        self.statics: dict[str, dict[str, str]] = {}  # mangled instance -> static member values
        #: accessors inlined at their calls: method function name -> the array it returns
        self.inlined: dict[str, str] = {}

    def names(self) -> set[str]:
        return set(self.primary) | set(self.specs)

    # ---- definitions
    def add(self, toks: list[Tok], match: dict[int, int], k: int, end_i: int, params: list,
            spec_args: list[str] | None) -> int:
        """Record ``struct NAME[<args>] {...};`` starting at ``toks[k]``; return its item index."""
        name = toks[k + 1].v
        lb = next((x for x in range(k, end_i) if toks[x].v == "{"), -1)
        if lb < 0 or lb not in match:
            raise self._err(f"unsupported construct: class template '{name}' without a body", toks[k].start)
        item = _ClassItem(name, params, spec_args, toks[k].start, self._members(toks, match, lb + 1, match[lb]))
        kinds = {m.kind for m in item.members}
        if {"method", "data"} <= kinds:
            raise self._err(f"unsupported construct: C++ class template '{name}' with both data members and "
                            "methods (methods would need 'this')", toks[k].start)
        self.items.append(item)
        if spec_args is None:
            self.primary[name] = item
        else:
            self.specs.setdefault(name, {})[_mangle(name, spec_args)] = item
        return len(self.items) - 1

    def _members(self, toks: list[Tok], match: dict[int, int], a: int, b: int) -> list[_Member]:
        out: list[_Member] = []
        i = a
        while i < b:
            if toks[i].v in ("public", "private", "protected") and i + 1 < b and toks[i + 1].v == ":":
                i += 2
                continue
            j = i
            name_i = -1
            while j < b and toks[j].v not in (";", "{"):
                if toks[j].v == "(" and name_i < 0 and j > i and toks[j - 1].kind == "id":
                    name_i = j - 1
                if toks[j].v in "([" and j in match:
                    j = match[j]
                j += 1
            if j >= b:
                break
            vals = [toks[x].v for x in range(i, j)]
            if toks[j].v == "{":
                end = match.get(j, b)
                if name_i < 0:
                    raise self._err("unsupported construct: nested type in a class template", toks[i].start)
                out.append(_Member("method", toks[i].start, toks[end].end, toks[name_i].v, toks[name_i].start))
                j = end + 1
                if j < b and toks[j].v == ";":
                    j += 1
            elif vals and vals[0] in ("typedef", "using") and len(vals) >= 3:
                # a member type: `typedef T value_type;` / `using value_type = T;`
                if vals[0] == "typedef":
                    out.append(_Member("type", toks[i].start, toks[j].end, vals[-1],
                                       value=norm(self.text[toks[i + 1].start:toks[j - 2].end])))
                else:
                    out.append(_Member("type", toks[i].start, toks[j].end, vals[1],
                                       value=norm(self.text[toks[i + 3].start:toks[j - 1].end])))
                j += 1
            elif "static" in vals and "=" in vals:
                eq = i + vals.index("=")
                out.append(_Member("static", toks[i].start, toks[j].end, toks[eq - 1].v,
                                   value=norm(self.text[toks[eq + 1].start:toks[j - 1].end])))
                j += 1
            else:
                if name_i >= 0:
                    raise self._err("unsupported construct: method declared but not defined in a class "
                                    "template", toks[i].start)
                out.append(_Member("data", toks[i].start, toks[j].end))
                j += 1
            i = j
        return out

    # ---- instances
    def instance(self, name: str, args: list[str], pos: int) -> str:
        """The C name of ``name<args>``, emitting its text on first use."""
        prim = self.primary.get(name)
        bound = self.bind(prim.params, args, name, pos) if prim is not None else [norm(a) for a in args]
        mangled = _mangle(name, bound)
        if mangled in self.done:
            return mangled
        item = self.specs.get(name, {}).get(mangled) or prim
        if item is None:
            raise self._err(f"class template '{name}' has no definition for <{', '.join(bound)}>", pos)
        self.done[mangled] = item
        env = {} if item.spec_args is not None else {p.name: a for p, a in zip(item.params, bound, strict=False)}
        statics = {m.name: (f"({self.subst(m.value, env)})" if m.kind == "static" else self.subst(m.value, env))
                   for m in item.members if m.kind in ("static", "type")}
        self.statics[mangled] = statics  # the text that replaces `X<args>::NAME` (and NAME inside)
        env.update(statics)
        f, ln, col = self.loc(item.head)
        parts: list[str] = []
        data = [m for m in item.members if m.kind == "data"]
        if data:
            fields = " ".join(self.subst(self.text[m.start:m.end], env) for m in data)
            parts.append(f"typedef struct {mangled} {{ {fields} }} {mangled};")
        for m in item.members:
            if m.kind == "method":
                body = self.text[m.start:m.name_off] + "\x01" + self.text[m.name_off + len(m.name):m.end]
                body = self.subst(body, env).replace("\x01", f"{mangled}__{m.name}", 1)
                accessor = _shared_accessor(body)
                if accessor is not None:  # file-scope array, calls become its name
                    parts.append(accessor[0])
                    self.inlined[f"{mangled}__{m.name}"] = accessor[1]
                    continue
                if "__device__" not in body.split("(")[0]:
                    body = "__device__ " + body
                parts.append(self.calls(body, m.start))
        item.chunks.append("\n" + directive(ln, f) + "\n" + " ".join(parts) + "\n")
        return mangled

    def rewrite(self, text: str, base: int | None) -> str:
        """Replace the uses of class templates in ``text`` (see the module docstring);
        ``base`` maps positions to the file for messages (None: ``text`` is the file)."""
        names = self.names()
        toks = tokenize(text)
        if not any(t.v in names for t in toks):
            return text
        match = match_brackets(toks)
        out: list[str] = []
        last = 0
        objects: dict[str, str] = {}  # object of a methods-only class -> its instance
        i = 0
        n = len(toks)
        while i < n:
            t = toks[i]
            if t.v in names and i + 1 < n and toks[i + 1].v == "<" and (i == 0 or toks[i - 1].v not in (".", "->")):
                gt = match_angle(toks, i + 1, match)
                if gt > 0:
                    args = [norm(text[toks[a].start:toks[b - 1].end])
                            for a, b in split_commas(toks, i + 2, gt, match) if a < b]
                    mangled = self.instance(t.v, args, t.start + (base or 0))
                    item = self.done[mangled]
                    lead = toks[i - 1].start if i > 0 and toks[i - 1].v == "typename" else t.start
                    out.append(text[last:lead])
                    if gt + 2 < n and toks[gt + 1].v == "::" and toks[gt + 2].v in self.statics[mangled]:
                        out.append(self.statics[mangled][toks[gt + 2].v])
                        last, i = toks[gt + 2].end, gt + 3
                        continue
                    has_data = any(m.kind == "data" for m in item.members)
                    if (not has_data and gt + 6 < n and [x.v for x in toks[gt + 1:gt + 4]] == ["(", ")", "."]
                            and toks[gt + 5].v == "("):  # a temporary: `X<T>().m(...)`
                        fn = f"{mangled}__{toks[gt + 4].v}"
                        close = match.get(gt + 5, gt + 5)
                        if fn in self.inlined and close == gt + 6:
                            out.append(self.inlined[fn])
                            last, i = toks[close].end, close + 1
                        else:
                            out.append(fn)
                            last, i = toks[gt + 4].end, gt + 5
                        continue
                    if not has_data and gt + 2 < n and toks[gt + 1].kind == "id" and toks[gt + 2].v == ";":
                        objects[toks[gt + 1].v] = mangled
                        out.append(" " * 0)
                        last, i = toks[gt + 2].end, gt + 3
                        continue
                    out.append(mangled)
                    last, i = toks[gt].end, gt + 1
                    continue
            if t.v in objects and i + 3 < n and toks[i + 1].v == "." and toks[i + 3].v == "(":
                fn = f"{objects[t.v]}__{toks[i + 2].v}"
                close = match.get(i + 3, i + 3)
                if fn in self.inlined and close == i + 4:
                    out.append(text[last:t.start] + self.inlined[fn])
                    last, i = toks[close].end, close + 1
                    continue
                out.append(text[last:t.start] + fn)
                last, i = toks[i + 2].end, i + 3
                continue
            i += 1
        out.append(text[last:])
        return "".join(out)

    def block(self, idx: int) -> str:
        return "".join(self.items[idx].chunks)

    def _err(self, msg: str, pos: int) -> KplError:
        f, ln, col = self.loc(pos)
        return KplError(msg, f, ln, col)


def _shared_accessor(method: str) -> tuple[str, str] | None:
    """``T *get() { extern __shared__ T buf[]; return buf; }`` -> (the declaration, ``buf``):
    the per-type dynamic shared buffer idiom.  Such a method is inlined (the array declared at
    file scope, the call replaced by its name) because a pointer returned from a function is
    not followed by the KPL lowering, while the array itself is."""
    toks = tokenize(method)
    vals = [t.v for t in toks]
    try:
        lb = vals.index("{")
    except ValueError:
        return None
    body = vals[lb:]
    if body[1:3] != ["extern", "__shared__"] or body[-1] != "}" or body[-2] != ";" or body[-4] != "return":
        return None
    name = body[-3]
    semi = body.index(";")
    decl = body[1:semi]
    if semi != len(body) - 5 or decl[-3:] != [name, "[", "]"]:
        return None
    return method[toks[lb + 1].start:toks[lb + semi].end], name


def mangle_arg(a: str) -> str:
    s = a.replace("*", "p").replace("&", "r").replace("-", "m").replace(".", "d")
    return re.sub(r"\W+", "_", s).strip("_") or "x"


def mangle(base: str, args: list[str]) -> str:
    """The C name of a template instance (here, below :mod:`kpl.templates`, which uses it too)."""
    return base + "__" + "_".join(mangle_arg(a) for a in args)


def _mangle(name: str, args: list[str]) -> str:
    return mangle(name, [norm(a) for a in args])
