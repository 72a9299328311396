"""clang's JSON AST as the translator reads it: nodes, their source positions, and the
declarations they refer to.

clang prints a node as a JSON object (``kind``, ``inner`` children, ``range``, ``type`` …);
we keep those dicts as they are (no wrapper per node: a file has 10^5 of them) and give the
translator three things clang's format leaves implicit:

* **where a node is.**  clang prints a location's ``file`` only when it differs from the
  location printed just before it; :func:`decode` fills it into every location, in print
  order, while the JSON is read.  Offsets are byte offsets into that file; :class:`Position`
  turns them into the user's character offsets, lines and columns (files are read as UTF-8
  with surrogate escapes, :mod:`kpl.textio`).  A location inside a macro expansion has a
  ``spellingLoc`` and an ``expansionLoc``; we report the expansion (where the user wrote it).
* **what a name refers to.**  ``DeclRefExpr`` and ``MemberExpr`` carry the id of the
  declaration; :class:`DeclIndex` maps ids to the declarations at namespace and class scope,
  and a function's declaration to the redeclaration that has its body.
* **what a type is**, as the string clang prints (``qualType``) and its desugared form.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

Node = dict[str, Any]

#: declaration contexts whose members the index walks (not function bodies)
_CONTEXTS = {"TranslationUnitDecl", "NamespaceDecl", "LinkageSpecDecl", "CXXRecordDecl",
             "ClassTemplateDecl", "ClassTemplateSpecializationDecl", "FunctionTemplateDecl",
             "ClassTemplatePartialSpecializationDecl", "RecordDecl", "ExportDecl", "EnumDecl"}
_FUNCTIONS = {"FunctionDecl", "CXXMethodDecl", "CXXConstructorDecl", "CXXDestructorDecl",
              "CXXConversionDecl"}


def decode(data: bytes | str) -> Node:
    """Read clang's JSON AST, filling the elided ``file`` into every location."""
    last: list[Any] = ["", 0]  # the file and line clang printed last

    def hook(obj: dict[str, Any]) -> dict[str, Any]:
        if "offset" in obj:
            f = obj.get("file")
            if f is None:
                obj["file"] = last[0]
            else:
                last[0] = f
            line = obj.get("line")
            if line is None:
                obj["line"] = last[1]
            else:
                last[1] = line
        return obj

    result: Node = json.loads(data, object_hook=hook)
    return result


def children(node: Node) -> list[Node]:
    inner: list[Node] = node.get("inner", [])
    return inner


def kind(node: Node) -> str:
    k: str = node.get("kind", "")
    return k


def qual_type(node: Node) -> str:
    """The type clang printed for ``node`` (desugared when clang gave both)."""
    t = node.get("type") or {}
    return str(t.get("desugaredQualType") or t.get("qualType") or "")


def written_type(node: Node) -> str:
    t = node.get("type") or {}
    return str(t.get("qualType") or "")


def has_attr(node: Node, attr: str) -> bool:
    return any(kind(c) == attr for c in children(node))


def body_of(func: Node) -> Node | None:
    for c in children(func):
        if kind(c) == "CompoundStmt":
            return c
    return None


def params_of(func: Node) -> list[Node]:
    return [c for c in children(func) if kind(c) == "ParmVarDecl"]


def walk(node: Node) -> Iterator[Node]:
    """``node`` and every node under it, pre-order."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        inner = n.get("inner")
        if inner:
            stack.extend(reversed(inner))


# --------------------------------------------------------------------------- positions


def location(loc: dict[str, Any] | None) -> dict[str, Any] | None:
    """The bare location where the user wrote something: a macro's expansion site."""
    if not loc:
        return None
    if "expansionLoc" in loc:
        return loc["expansionLoc"]  # type: ignore[no-any-return]
    return loc if "offset" in loc else None


def in_macro(loc: dict[str, Any] | None) -> bool:
    return bool(loc) and "spellingLoc" in loc  # type: ignore[operator]


@dataclass
class Position:
    """Byte offsets of one file (as clang counts them) to character offsets of its text."""

    text: str
    _map: list[int] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if not self.text.isascii():
            from kpl.textio import encode_source

            table: list[int] = []
            for i, ch in enumerate(self.text):
                table.extend([i] * len(encode_source(ch)))
            table.append(len(self.text))
            self._map = table

    def char(self, byte_offset: int) -> int:
        if self._map is None:
            return byte_offset
        if byte_offset >= len(self._map):
            return len(self.text)
        return self._map[byte_offset]


# --------------------------------------------------------------------------- declarations


class DeclIndex:
    """Declarations by id, at namespace and class scope (and template instantiations)."""

    def __init__(self, tu: Node) -> None:
        self.by_id: dict[str, Node] = {}
        self.parent: dict[str, Node] = {}  # decl id -> enclosing record / namespace node
        self.definition: dict[str, Node] = {}  # function decl id -> the decl with its body
        #: ids of declarations inside a template's pattern (not instantiated: never translated)
        self.patterns: set[str] = set()
        self.template_of: dict[str, Node] = {}  # instantiated function id -> its template
        self.tu = tu
        self._lambdas_indexed = False
        self._index(tu, None)
        for node in list(self.by_id.values()):
            if kind(node) in _FUNCTIONS and body_of(node) is not None:
                prev = node.get("previousDecl")
                seen = 0
                while prev and seen < 64:
                    self.definition.setdefault(prev, node)
                    prev = self.by_id.get(prev, {}).get("previousDecl")
                    seen += 1

    def _index(self, node: Node, parent: Node | None, pattern: bool = False) -> None:
        templated = kind(node) in ("FunctionTemplateDecl", "ClassTemplateDecl")
        first = True
        for c in children(node):
            cid = c.get("id")
            k = kind(c)
            # a template's first declaration is its pattern; the ones after it are instances
            in_pattern = pattern or (templated and first and k in (_FUNCTIONS | {"CXXRecordDecl"}))
            if templated and k in (_FUNCTIONS | {"CXXRecordDecl"}):
                first = False
            if cid is not None and cid in self.by_id and "loc" not in c and "range" not in c:
                # a bare mention (id, kind, name, type) of a declaration printed in full
                # elsewhere: clang lists a template's specializations under every declaration
                # of it, in full only under the first (``template __global__ void k<int>(int *);``
                # before the definition: the instance with its body sits under that first
                # declaration, and only its id under the definition's)
                continue
            if cid is not None and (k.endswith("Decl") or k == "LambdaExpr"):
                self.by_id[cid] = c
                if templated:
                    self.template_of[cid] = node
                if parent is not None:
                    self.parent[cid] = parent
                if in_pattern or k == "ClassTemplatePartialSpecializationDecl":
                    self.patterns.add(cid)
            if k in _CONTEXTS:
                self._index(c, c if k not in ("LinkageSpecDecl", "FunctionTemplateDecl",
                                              "ClassTemplateDecl", "ExportDecl") else parent,
                            in_pattern or k == "ClassTemplatePartialSpecializationDecl")

    def template_arguments(self, func: Node) -> list[str]:
        """The template arguments of an instantiated function as C++ spells them
        (``int``, ``256``, ``true``)."""
        args = [c for c in children(func) if kind(c) == "TemplateArgument"]
        template = self.template_of.get(str(func.get("id")))
        params = [c for c in children(template) if kind(c) in ("TemplateTypeParmDecl", "NonTypeTemplateParmDecl", "TemplateTemplateParmDecl")] \
            if template is not None else []
        out = []
        for n, arg in enumerate(args):
            if "value" in arg:
                value = arg["value"]
                ptype = str((params[n].get("type") or {}).get("qualType", "")) if n < len(params) else ""
                out.append(("true" if value else "false") if ptype == "bool" else str(value))
            elif "type" in arg:
                out.append(str(arg["type"].get("qualType", "")))
            else:
                out.append("?")
        return out

    def get(self, decl_id: str | None) -> Node | None:
        return self.by_id.get(decl_id) if decl_id else None

    def function(self, decl_id: str | None) -> Node | None:
        """The function declaration ``decl_id`` names, preferring the one with a body."""
        if not decl_id:
            return None
        found = self.definition.get(decl_id) or self.by_id.get(decl_id)
        if found is None and not self._lambdas_indexed:
            self._index_lambdas()
            found = self.by_id.get(decl_id)
        return found

    def _index_lambdas(self) -> None:
        """Lambdas' classes live inside function bodies, which the index does not walk; their
        call operators are indexed the first time a call names one."""
        self._lambdas_indexed = True
        for n in walk(self.tu):
            if kind(n) == "LambdaExpr":
                for record in children(n):
                    if kind(record) == "CXXRecordDecl":
                        self.by_id[str(record.get("id"))] = record
                        self._index(record, record)

    def local_records(self) -> list[Node]:
        """Structs and unions declared inside the bodies of functions that are not
        template patterns (``__shared__ union { … } temp;`` in a kernel): the index does not
        walk bodies, so they are indexed here, on the first type lookup that needs them."""
        found: list[Node] = []
        for func in [n for n in self.by_id.values() if kind(n) in _FUNCTIONS]:
            body = body_of(func)
            if body is None or str(func.get("id")) in self.patterns:
                continue
            for n in walk(body):
                if kind(n) != "DeclStmt":
                    continue
                for c in children(n):
                    if kind(c) in ("CXXRecordDecl", "RecordDecl") and c.get("id") is not None:
                        self.by_id[str(c["id"])] = c
                        found.append(c)
                        self._index(c, c)
        return found

    def qualified_name(self, node: Node) -> str:
        """``ns::Class::name`` of a declaration at namespace or class scope."""
        parts = [str(node.get("name", ""))]
        cur = self.parent.get(node.get("id", ""))
        while cur is not None:
            if cur.get("name"):
                parts.append(str(cur["name"]))
            cur = self.parent.get(cur.get("id", ""))
        return "::".join(reversed(parts))

    def record_of(self, node: Node) -> Node | None:
        """The class a method belongs to (for an out-of-line definition: through its
        declaration in the class)."""
        parent = self.parent.get(node.get("id", ""))
        if parent is not None and kind(parent) in ("CXXRecordDecl", "ClassTemplateSpecializationDecl"):
            return parent
        prev = node.get("previousDecl")
        if prev:
            decl = self.by_id.get(prev)
            if decl is not None and decl is not node:
                return self.record_of(decl)
        return None
