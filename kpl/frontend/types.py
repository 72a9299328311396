"""clang's types as KPL types (:class:`kpl.ast.CType`).

clang prints every type as a string (``qualType``) and gives the desugared form of typedefs;
it has already instantiated templates, so the strings are concrete (``float[128]``,
``ns::Packed<float> *``).  Records (structs, classes, unions, template specialisations) are
found by the names clang prints for them, their members read from their ``FieldDecl``\\ s and
laid out by :mod:`kpl.ctypes`.  CUDA's vector types (``float4``) and ``dim3`` are vector
values with named components (:func:`vector_type`).

Why one piece (over 400 lines): finding a record by any name clang prints for it (qualified,
with or without default template arguments, nested in a specialisation, local to a function)
and turning it into a laid-out type are one table and one recursion -- a member's type is
looked up by the same names while its record is being built."""

from __future__ import annotations

import re

from kpl import ast as K
from kpl.ctypes import leaf_paths
from kpl.frontend import tree
from kpl.frontend.tree import Node

VECTOR_FIELDS = ("x", "y", "z", "w")

_INTS: dict[str, tuple[int, bool]] = {
    "char": (8, True), "signed char": (8, True), "unsigned char": (8, False),
    "short": (16, True), "unsigned short": (16, False), "int": (32, True), "unsigned int": (32, False),
    "long": (64, True), "unsigned long": (64, False), "long long": (64, True),
    "unsigned long long": (64, False), "__int128": (128, True), "unsigned __int128": (128, False),
    "wchar_t": (32, True), "char16_t": (16, False), "char32_t": (32, False), "char8_t": (8, False),
    "short int": (16, True), "unsigned short int": (16, False), "long int": (64, True),
    "unsigned long int": (64, False), "long long int": (64, True),
    "unsigned long long int": (64, False), "signed": (32, True), "unsigned": (32, False),
    "event_t": (64, False),  # OpenCL C: an asynchronous copy's handle (kpl.frontend.opencl)
}
_OPAQUE = frozenset({"image1d_t", "image2d_t", "image3d_t", "sampler_t"})  # OpenCL C: opaque handles
#: qualifiers that do not change a value's type; OpenCL C's address spaces among them (where a
#: variable lives is read from its declaration, :func:`kpl.frontend.opencl.own_space`)
_QUALIFIERS = re.compile(r"\b(const|volatile|__restrict|restrict|struct|class|union|enum|typename"
                         r"|__private|__global|__local|__constant|__generic|__(?:read|write)_only|__read_write)\b\s*")
#: an OpenCL C vector type as clang desugars it: ``float __attribute__((ext_vector_type(4)))``
_EXT_VECTOR = re.compile(r"^(.*?)\s*__attribute__\(\(ext_vector_type\((\d+)\)\)\)\s*(.*)$")
_EXT_ELEMS = {"char": "char", "signed char": "char", "unsigned char": "uchar", "uchar": "uchar",
              "short": "short", "unsigned short": "ushort", "ushort": "ushort", "int": "int",
              "unsigned int": "uint", "uint": "uint", "long": "long", "unsigned long": "ulong",
              "ulong": "ulong", "float": "float", "double": "double"}
_ARRAY = re.compile(r"^(.*?)\s*((?:\[[^\]]*\])+)$")


def int_type(bits: int, signed: bool) -> K.CType:
    names = {(8, True): "char", (8, False): "unsigned char", (16, True): "short",
             (16, False): "unsigned short", (32, True): "int", (32, False): "unsigned int",
             (64, True): "long long", (64, False): "unsigned long long"}
    return K.CType("int", bits, signed, names.get((bits, signed), f"int{bits}"))


def vector_type(name: str) -> K.CType | None:
    """CUDA vector types: ``float4`` → vec of float with fields x,y,z,w."""
    for base, elem in (("ulonglong", K.ULONG), ("longlong", K.LONG), ("uchar", int_type(8, False)),
                       ("char", int_type(8, True)), ("ushort", int_type(16, False)),
                       ("short", int_type(16, True)), ("uint", K.UINT), ("int", K.INT),
                       ("ulong", K.ULONG), ("long", K.LONG), ("float", K.FLOAT),
                       ("double", K.DOUBLE)):
        if name.startswith(base) and name[len(base):] in ("1", "2", "3", "4"):
            n = int(name[len(base):])
            return K.CType("vec", elem.bits, elem.signed, name, elem, VECTOR_FIELDS[:n])
    if name == "dim3":
        return K.CType("vec", 32, False, "dim3", K.UINT, ("x", "y", "z"))
    return None


def ext_vector(text: str) -> K.CType | None:
    """An OpenCL C vector (clang's ``ext_vector_type``) of 2, 3, 4, 8 or 16 components: the
    components of the first four are ``x y z w``, of the wider ones ``s0`` … ``sf``."""
    m = _EXT_VECTOR.match(text.strip())
    if m is None or strip_qualifiers(m.group(3)):
        return None
    base = re.sub(r"\s+", " ", strip_qualifiers(m.group(1)))
    n = int(m.group(2))
    name = _EXT_ELEMS.get(base)
    if name is None:
        return None
    if n <= 4:
        return vector_type(f"{name}{n}")
    small = vector_type(f"{name}4")
    if small is None or small.elem is None or n not in (8, 16):
        return None
    return K.CType("vec", small.bits, small.signed, f"{name}{n}", small.elem,
                   tuple(f"s{i:x}" for i in range(n)))


def strip_qualifiers(text: str) -> str:
    return _QUALIFIERS.sub("", text).strip()


def array_member(elem: K.CType, dims: tuple[int, ...]) -> K.CType:
    """An array MEMBER of a struct (``float v[4]``) as a struct-like type whose members are
    its elements ``0``, ``1``, ... (row-major), so that kpl.ctypes lays it out like any
    member; its name ends in ``]``."""
    inner = elem
    for d in reversed(dims[1:]):
        parts = tuple((str(i), inner) for i in range(d))
        inner = K.CType("vec", 32, True, f"{inner}[{d}]", K.FLOAT, leaf_paths(parts), parts=parts)
    parts = tuple((str(i), inner) for i in range(dims[0]))
    return K.CType("vec", 32, True, f"{inner}[{dims[0]}]", K.FLOAT, leaf_paths(parts), parts=parts)


def _bitfield_width(field: Node) -> int | None:
    for n in tree.walk(field):
        if tree.kind(n) == "ConstantExpr" and "value" in n:
            try:
                return int(n["value"])
            except ValueError:
                return None
    return None


class UnsupportedType(Exception):
    """A type the translator cannot model (the caller turns it into a located KplError)."""


class TypeTable:
    """Type strings → :class:`K.CType`, with the records of one translation unit."""

    def __init__(self, index: tree.DeclIndex) -> None:
        self.index = index
        self.records: dict[str, Node] = {}  # every name clang may print for a record -> its decl
        self.enums: set[str] = set()
        self.typedefs: dict[str, str] = {}  # typedef / using name -> the type it stands for
        self._cache: dict[str, K.CType] = {}
        self._building: set[str] = set()
        self._locals_added = False  # records declared in function bodies: added on demand
        self.ns_aliases: dict[str, str] = {}  # `namespace cg = cooperative_groups;`
        for node in index.by_id.values():
            k = tree.kind(node)
            if k == "NamespaceAliasDecl" and node.get("name"):
                target = index.get((node.get("aliasedNamespace") or {}).get("id"))
                if target is not None:
                    self.ns_aliases[str(node["name"])] = index.qualified_name(target)
            if k in ("CXXRecordDecl", "RecordDecl", "ClassTemplateSpecializationDecl") and \
                    node.get("completeDefinition"):
                if str(node.get("id")) in index.patterns:
                    continue  # a template's pattern: only its instantiations have types
                for name in self._names(node):
                    self.records.setdefault(name, node)
            elif k == "EnumDecl" and node.get("name"):
                self.enums.add(str(node["name"]))
                self.enums.add(index.qualified_name(node))
            elif k in ("TypedefDecl", "TypeAliasDecl") and node.get("name"):
                named = self._typedef_record(node)
                if named is not None:
                    self.records.setdefault(str(node["name"]), named)
                    self.records.setdefault(index.qualified_name(node), named)
                    continue
                aliased = tree.qual_type(node)
                self.typedefs.setdefault(str(node["name"]), aliased)
                self.typedefs.setdefault(index.qualified_name(node), aliased)

    def _typedef_record(self, node: Node) -> Node | None:
        """The struct a typedef names, when clang links it (``typedef struct {…} Pair;``)."""
        for n in tree.walk(node):
            if tree.kind(n) == "RecordType" and isinstance(n.get("decl"), dict):
                found = self.index.get(n["decl"].get("id"))
                if found is not None and found.get("completeDefinition"):
                    return found
        return None

    def _names(self, node: Node) -> list[str]:
        name = str(node.get("name", ""))
        if not name:
            loc = tree.location(node.get("loc")) or {}
            return [f"(unnamed at {loc.get('file')}:{loc.get('line')}:{loc.get('col')})",
                    f"(unnamed {node.get('tagUsed', 'struct')} at {loc.get('file')}:{loc.get('line')}:{loc.get('col')})"]
        chain = [self._spelled(node)]
        cur = self.index.parent.get(str(node.get("id")))
        while cur is not None:
            if cur.get("name"):
                chain.append(self._spelled(cur))
            cur = self.index.parent.get(str(cur.get("id")))
        # every suffix of the qualified name: clang prints `ns::A<1>::B`, or `A<1>::B` where a
        # `using namespace` or the enclosing scope made the prefix implicit
        return ["::".join(reversed(chain[:n])) for n in range(len(chain), 0, -1)]

    def _with_defaults(self, name: str) -> Node | None:
        """``V<float>`` of ``template <class T, int N = 4> struct V``: clang prints the
        arguments as written, the specialisation has the defaults too (``V<float, 4>``)."""
        if not name.endswith(">") or "<" not in name:
            return None
        prefix = name[:-1] + ", "
        found = [n for key, n in self.records.items() if key.startswith(prefix) and key.endswith(">")
                 and self._names(n)[0].endswith(">")]
        return found[0] if found and all(f is found[0] for f in found) else None

    def _nested_with_defaults(self, name: str) -> Node | None:
        """``BlockReduce<float, 256>::TempStorage``: a class nested in a specialisation that
        clang prints without its default arguments (the specialisation's own name has them)."""
        cut = name.rfind(">::")
        if cut < 0:
            return None
        outer = self.records.get(name[:cut + 1]) or self._with_defaults(name[:cut + 1])
        if outer is None:
            return None
        return self.records.get(f"{self._names(outer)[0]}::{name[cut + 3:]}")

    def _scoped(self, record: Node, text: str) -> str:
        """A member's type as written inside its class (``TempStorage &``) resolved in that
        class's scope first (``BlockReduce<float, 256>::TempStorage &``)."""
        name = strip_qualifiers(text).rstrip("&* ").strip()
        scoped = f"{self._names(record)[0]}::{name}"
        if name and "::" not in name and scoped in self.records:
            # the name as a whole word: `struct t` of a `struct t` nested in `s` is `struct s::t`
            return re.sub(rf"(?<![\w:]){re.escape(name)}(?![\w:])", lambda _: scoped, text, count=1)
        return text

    def _spelled(self, node: Node) -> str:
        """``Name<args>`` of a class template specialisation, ``Name`` of anything else."""
        if tree.kind(node) == "ClassTemplateSpecializationDecl":
            return f"{node.get('name', '')}<{', '.join(self.index.template_arguments(node))}>"
        return str(node.get("name", ""))

    @staticmethod
    def _template_arg(arg: Node) -> str:
        if "value" in arg:
            return str(arg["value"])
        if "type" in arg:
            return str(arg["type"].get("qualType", ""))
        return "?"

    # ------------------------------------------------------------------ public

    def ctype(self, text: str) -> K.CType:
        """The KPL type of clang's type string (arrays decay to pointers)."""
        cached = self._cache.get(text)
        if cached is None:
            cached = self._cache[text] = self._ctype(text)
        return cached

    def shape(self, text: str) -> tuple[K.CType, tuple[int | None, ...]]:
        """``float[16][16]`` → (float, (16, 16)); a pointer → (pointee, (None,))."""
        base, dims = self.split_array(text)
        if dims:
            return self.ctype(base), dims
        t = self.ctype(text)
        if t.kind == "ptr":
            return t.elem or K.INT, (None,)
        return t, (1,)

    def split_array(self, text: str) -> tuple[str, tuple[int | None, ...]]:
        m = _ARRAY.match(strip_qualifiers(text))
        if m is None:
            return text, ()
        dims: list[int | None] = []
        for d in re.findall(r"\[([^\]]*)\]", m.group(2)):
            d = d.strip()
            if not d:
                dims.append(None)
            elif re.fullmatch(r"\d+", d):
                dims.append(int(d))
            else:
                raise UnsupportedType(f"array extent '{d}' is not a constant")
        return m.group(1), tuple(dims)

    def local_alias(self, name: str, target: str) -> None:
        """``using R = BlockReduce<float, 256>;`` inside a function: later types may name it
        (``R::TempStorage``); a name given another meaning drops what was derived from it."""
        if self.typedefs.get(name) != target:
            self.typedefs[name] = target
            self._cache.clear()

    def is_function_pointer(self, text: str) -> bool:
        return "(*)" in text or "(&)" in text or bool(re.search(r"\(\*\s*\w*\)\s*\(", text))

    def record(self, text: str) -> Node | None:
        key = strip_qualifiers(text).rstrip("&").strip().removeprefix("::")
        return self._lookup(key)

    def _lookup(self, name: str) -> Node | None:
        found = self.records.get(name) or self._with_defaults(name) or self._nested_with_defaults(name)
        if found is None and not self._locals_added:
            self._add_local_records()
            found = self.records.get(name) or self._nested_with_defaults(name)
        return found

    def _add_local_records(self) -> None:
        """The structs and unions of function bodies (``__shared__ union { … } temp;``).  A
        name two functions both declare is left out -- the lookup fails with an error rather
        than take one function's layout for the other's."""
        self._locals_added = True
        seen: dict[str, list[Node]] = {}
        for node in self.index.local_records():
            if node.get("completeDefinition"):
                for name in self._names(node):
                    seen.setdefault(name, []).append(node)
        for name, nodes in seen.items():
            if len(nodes) == 1 and name not in self.records:
                self.records[name] = nodes[0]

    # ------------------------------------------------------------------ parsing

    def _ctype(self, text: str) -> K.CType:
        t = text.strip()
        if t.endswith("&&"):
            t = t[:-2].strip()
        elif t.endswith("&"):
            t = t[:-1].strip()
        if self.is_function_pointer(t):
            return K.CType("int", 64, False, "function pointer")
        if "ext_vector_type" in t:
            m = _EXT_VECTOR.match(t)
            rest = strip_qualifiers(m.group(3)) if m is not None else ""
            if m is not None and rest.startswith("*"):  # a pointer to vectors
                head = t[:m.start(3)] + rest[1:]
                return K.CType("ptr", 64, False, "pointer", self._ctype(head))
            vec = ext_vector(t)
            if vec is None:
                raise UnsupportedType(f"vector type '{text}'")
            return vec
        if "(" in t and t.endswith(")") and "lambda" not in t and "unnamed" not in t:
            raise UnsupportedType(f"function type '{text}'")
        bare = strip_qualifiers(t)
        bare = re.sub(r"\s+", " ", bare).removeprefix("::")  # `::cub::Sum`: the global scope
        while bare.endswith(("const", "volatile", "__restrict")):
            bare = strip_qualifiers(bare)
        if bare.endswith("*"):
            return K.CType("ptr", 64, False, "pointer", self._ctype(bare[:-1].strip()))
        m = _ARRAY.match(bare)
        if m is not None:
            return K.CType("ptr", 64, False, "pointer", self._ctype(m.group(1)))
        if bare in ("float", "__fp16", "_Float16", "__bf16"):
            return K.FLOAT if bare == "float" else K.CType("float", 16, True, bare)
        if bare in ("double", "long double"):
            return K.DOUBLE
        if bare in ("bool", "_Bool"):
            return K.BOOL
        if bare == "void":
            return K.VOID
        if bare in ("std::nullptr_t", "nullptr_t", "decltype(nullptr)"):
            return K.CType("ptr", 64, False, "pointer", K.VOID)
        if bare in _INTS:
            bits, signed = _INTS[bare]
            return int_type(bits, signed)
        if bare.startswith("__size_t") or bare in ("size_t", "std::size_t"):
            return K.ULONG
        vec = vector_type(bare)
        if vec is not None:
            return vec
        if bare in self.enums or bare.split("::")[-1] in self.enums:
            return K.INT
        if bare in self.typedefs and self.typedefs[bare] != bare:
            return self._ctype(self.typedefs[bare])
        record = self._lookup(bare)
        head, sep, rest = bare.partition("::")
        if record is None and sep and head in self.typedefs:  # `R::TempStorage`, `using R = …`
            spelled = f"{strip_qualifiers(self.typedefs[head])}::{rest}"
            if spelled != bare:
                return self._ctype(spelled)
        head = bare.split("::")[0]
        if record is None and head in self.ns_aliases:  # `cg::thread_block`
            return self._ctype(self.ns_aliases[head] + bare[len(head):])
        if record is not None:
            return self._record_type(bare, record)
        if bare in _OPAQUE:  # after the program's own types of that name
            return K.ULONG
        if bare.startswith("(lambda at") or bare.startswith("(unnamed"):
            return K.CType("vec", 32, True, bare, K.FLOAT, (), parts=())
        raise UnsupportedType(f"type '{text}'")

    def _bitfield(self, typ: K.CType, field: Node, parts: list[tuple[str, K.CType]]) -> None:
        """Append bit-field ``field`` to ``parts``.  A bit-field is its whole storage unit (its
        declared type): a write to it writes every byte of the unit, so two threads writing
        different bit-fields of one unit race, as they do on a GPU (a store of bits is a
        read-modify-write of the unit).  Consecutive bit-fields of one type that fit in one
        unit share it: they are the members of an anonymous union (all at the unit's
        offset), whose members stay separate components of a struct VALUE."""
        if typ.kind not in ("int", "bool"):
            raise UnsupportedType(f"bit-field of type '{typ}'")
        width = _bitfield_width(field)
        if width is None:
            raise UnsupportedType("bit-field width that is not a constant")
        name = str(field.get("name", ""))
        unit_bits = max(8, typ.bits)
        last = parts[-1][1] if parts and not parts[-1][0] else None
        if last is not None and last.union and last.name == f"bits:{typ}" \
                and last.bits + width <= unit_bits and width > 0:
            grown = K.CType("vec", last.bits + width, True, last.name, K.FLOAT,
                            last.fields + ((name,) if name else ()),
                            parts=last.parts + (((name, typ),) if name else ()), union=True)
            parts[-1] = ("", grown)
            return
        if width == 0:
            return  # `int : 0;` ends the unit
        unit = K.CType("vec", width, True, f"bits:{typ}", K.FLOAT, (name,) if name else (),
                       parts=((name or "__pad", typ),), union=True)
        parts.append(("", unit))

    def _record_type(self, name: str, node: Node) -> K.CType:
        """A struct, class or union with its members (``parts``, laid out by kpl.ctypes):
        base classes first, as anonymous members, then the fields in order."""
        if name in self._building:
            raise UnsupportedType(f"recursive type '{name}'")
        self._building.add(name)
        try:
            short = name.split("::")[-1]
            vec = vector_type(short)
            if vec is not None:
                return vec
            parts: list[tuple[str, K.CType]] = []
            for base in node.get("bases", []):
                parts.append(("", self.ctype(str(base.get("type", {}).get("qualType", "")))))
            for field in tree.children(node):
                if tree.kind(field) != "FieldDecl":
                    continue
                ftext = self._scoped(node, tree.qual_type(field))
                base_text, dims = self.split_array(ftext)
                if dims:
                    if any(d is None for d in dims):
                        raise UnsupportedType("struct member array of unknown extent")
                    typ = array_member(self.ctype(base_text), tuple(int(d) for d in dims if d is not None))
                else:
                    typ = self.ctype(ftext)
                if field.get("isBitfield"):
                    self._bitfield(typ, field, parts)
                    continue
                parts.append((str(field.get("name", "")), typ))
            union = node.get("tagUsed") == "union"
            align = 0
            for c in tree.children(node):
                if tree.kind(c) == "AlignedAttr":
                    for v in tree.walk(c):
                        if "value" in v:
                            try:
                                align = int(v["value"])
                            except ValueError:
                                pass
                            break
            return K.CType("vec", 32, True, short, K.FLOAT, leaf_paths(tuple(parts)),
                           parts=tuple(parts), align=align, union=union)
        finally:
            self._building.discard(name)
