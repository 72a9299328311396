"""C types, file-scope declarations, constant folding and conversions."""

from __future__ import annotations

from pycparser import c_ast

from kpl import ast as K
from kpl.ctypes import leaf_paths
from kpl.errors import KplError
from kpl.fe.base import LowererBase, ScalarMemory
from kpl.fe.names import VECTOR_FIELDS
from kpl.source import FunctionInfo, ParsedSource

INT_NAMES: dict[str, tuple[int, bool]] = {
    "char": (8, True), "signed char": (8, True), "unsigned char": (8, False),
    "short": (16, True), "unsigned short": (16, False),
    "int": (32, True), "signed": (32, True), "unsigned": (32, False),
    "long": (64, True), "unsigned long": (64, False),
    "long long": (64, True), "unsigned long long": (64, False),
    "size_t": (64, False), "uint": (32, False), "uchar": (8, False), "ushort": (16, False),
}


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


def array_type(elem: K.CType, dims: tuple[int | None, ...], where: c_ast.Node,
               lowering: LowererBase) -> K.CType:
    """An array MEMBER of a struct (``float v[4]``) as a struct-like type whose members are
    its elements ``0``, ``1``, ... (row-major for several dimensions), so that kpl.ctypes
    lays it out like any member; its name ends in ``]``."""
    if any(d is None for d in dims):
        raise lowering.error("unsupported: struct member array of unknown extent", where)
    inner = elem
    for d in reversed(dims[1:]):
        assert d is not None
        inner = K.CType("vec", 32, True, f"{inner}[{d}]", K.FLOAT, (),
                        parts=tuple((str(i), inner) for i in range(d)))
        inner = K.CType(inner.kind, 32, True, inner.name, K.FLOAT, leaf_paths(inner.parts),
                        parts=inner.parts)
    n = dims[0]
    assert n is not None
    parts = tuple((str(i), inner) for i in range(n))
    return K.CType("vec", 32, True, f"{inner}[{n}]", K.FLOAT, leaf_paths(parts), parts=parts)


class TypesLowering(LowererBase):
    """C types of declarations and casts, file-scope names, constant folding and the
    conversions of assignments and arithmetic."""

    def __init__(self, parsed: ParsedSource, func: c_ast.FuncDef, info: FunctionInfo,
                 launch: K.Launch) -> None:
        super().__init__(parsed, func, info, launch)
        self._collect_file_scope()

    def _collect_file_scope(self) -> None:
        for ext in self.parsed.ast.ext:
            if isinstance(ext, c_ast.FuncDef):
                self.functions[ext.decl.name] = ext
            elif isinstance(ext, c_ast.Typedef):
                self.typedefs[ext.name] = ext.type
            elif isinstance(ext, c_ast.Decl):
                if isinstance(ext.type, c_ast.FuncDecl):
                    self.declared_functions.add(ext.name)
                    continue
                if ext.name is None:
                    self._register_struct(ext.type)
                    continue
                self._declare_global(ext)

    def _register_struct(self, node: c_ast.Node) -> None:
        if isinstance(node, (c_ast.Struct, c_ast.Union)) and node.name and node.decls:
            self.structs[node.name] = self._struct_type(node, node.name)

    def _struct_type(self, node: c_ast.Struct | c_ast.Union, name: str | None) -> K.CType:
        """A struct or union with its members (``parts``; kpl.ctypes lays them out): base
        classes first (``struct B : A``, recorded by kpl.lower_cuda), as anonymous members,
        then the declared members.  Its value components (``fields``) are its leaf paths."""
        bases, align = self.parsed.structs.get(name or "", ((), 0))
        parts: list[tuple[str, K.CType]] = [("", self._named_type(b, node)) for b in bases]
        for d in node.decls or []:
            if isinstance(d.type, c_ast.ArrayDecl):
                elem, dims = self._array_shape(d.type, d)
                typ = array_type(elem, dims, d, self)
            else:
                typ = self.ctype(d.type, d)
            if d.bitsize is not None:
                self._bitfield(typ, d, parts)
                continue
            parts.append((d.name or "", typ))
        union = isinstance(node, c_ast.Union)
        label = name or ("union" if union else "struct")
        return K.CType("vec", 32, True, label, K.FLOAT, leaf_paths(tuple(parts)),
                       parts=tuple(parts), align=align, union=union)

    def _bitfield(self, typ: K.CType, d: c_ast.Decl, parts: list[tuple[str, K.CType]]) -> None:
        """Append bit-field ``d`` to ``parts``.  A bit-field is its whole storage unit (its
        declared type): a write to it writes every byte of the unit, so two threads writing
        different bit-fields of one unit race, as they do on a GPU (a store of bits is a
        read-modify-write of the unit).  Consecutive bit-fields of one type that fit in one
        unit share it: they are the members of an anonymous union (all at the unit's
        offset), whose members stay separate components of a struct VALUE."""
        if typ.kind not in ("int", "bool"):
            raise self.error(f"unsupported: bit-field of type '{typ}'", d)
        width = self._const_int(d.bitsize)
        if width is None:
            raise self.error("unsupported: bit-field width that is not a constant", d)
        unit_bits = max(8, typ.bits)
        last = parts[-1][1] if parts and not parts[-1][0] else None
        if last is not None and last.union and last.name == f"bits:{typ}" \
                and last.bits + width <= unit_bits and width > 0:
            grown = K.CType("vec", last.bits + width, True, last.name, K.FLOAT,
                            last.fields + ((d.name,) if d.name else ()),
                            parts=last.parts + (((d.name, typ),) if d.name else ()), union=True)
            parts[-1] = ("", grown)
            return
        if width == 0:
            return  # `int : 0;` ends the unit
        unit = K.CType("vec", width, True, f"bits:{typ}", K.FLOAT,
                       (d.name,) if d.name else (),
                       parts=((d.name or "__pad", typ),), union=True)
        parts.append(("", unit))

    def _declare_global(self, decl: c_ast.Decl) -> None:
        name = decl.name
        space = self.parsed.var_spaces.get((None, name))
        if name in self.parsed.textures:
            elem_name, _dims = self.parsed.textures[name]
            elem = vector_type(elem_name) or self._named_type(elem_name, decl)
            self.globals.names[name] = K.Memory(name, K.Space.TEXTURE, elem, (None,))
            return
        if space is None and not isinstance(decl.type, c_ast.ArrayDecl):
            return  # a host-side global or a placeholder: not visible to kernels as memory
        kind = {"shared": K.Space.SHARED, "constant": K.Space.CONSTANT,
                "device": K.Space.GLOBAL}.get(space or "", K.Space.GLOBAL)
        if space is None and "const" in (decl.quals or []):
            kind = K.Space.CONSTANT  # a file-scope `const` array: read-only, like __constant__
        elem, dims = self._array_shape(decl.type, decl)
        scalar = not isinstance(decl.type, (c_ast.ArrayDecl, c_ast.PtrDecl))
        mem = K.Memory(name, kind, elem, (1,) if scalar else dims)
        self.globals.names[name] = ScalarMemory(mem) if scalar else mem
        self.memories[name] = mem
        self.memory_decls[name] = decl

    def _named_type(self, name: str, node: c_ast.Node | None) -> K.CType:
        if name in ("float",):
            return K.FLOAT
        if name in ("double", "long double"):
            return K.DOUBLE
        if name in ("_Bool", "bool"):
            return K.BOOL
        if name == "void":
            return K.VOID
        if name in INT_NAMES:
            bits, signed = INT_NAMES[name]
            return int_type(bits, signed)
        vec = vector_type(name)
        if vec is not None:
            return vec
        if name in self.structs:
            return self.structs[name]
        if name in self.typedefs:
            return self.ctype(self.typedefs[name], node)
        raise self.error(f"unknown type '{name}'", node)

    def is_function_pointer(self, node: c_ast.Node) -> bool:
        while True:
            if isinstance(node, c_ast.TypeDecl) and isinstance(node.type, c_ast.IdentifierType):
                names = [n for n in node.type.names if n not in ("const", "volatile")]
                if len(names) == 1 and names[0] in self.typedefs:
                    node = self.typedefs[names[0]]
                    continue
                return False
            if isinstance(node, c_ast.Typedef):
                node = node.type
                continue
            return isinstance(node, c_ast.PtrDecl) and isinstance(node.type, c_ast.FuncDecl)

    def function_number(self, name: str) -> int:
        """The number of ``__device__`` function ``name`` as a function-pointer value."""
        return sorted(self.functions).index(name) + 1

    def ctype(self, node: c_ast.Node, where: c_ast.Node | None = None) -> K.CType:
        """The KPL type of a pycparser type node (arrays decay to pointers)."""
        if isinstance(node, c_ast.TypeDecl):
            return self.ctype(node.type, where)
        if isinstance(node, c_ast.IdentifierType):
            names = [n for n in node.names if n not in ("const", "volatile", "signed")]
            signed_kw = "signed" in node.names
            text = " ".join(names)
            text = text.replace("long int", "long").replace("short int", "short")
            text = text.replace("unsigned int", "unsigned").replace("long long int", "long long")
            if text == "" and signed_kw:
                text = "int"
            if text.startswith("unsigned "):
                rest = text[len("unsigned "):]
                bits = INT_NAMES.get(rest, (32, True))[0]
                return int_type(bits, False)
            return self._named_type(text, where)
        if isinstance(node, (c_ast.PtrDecl, c_ast.ArrayDecl)):
            return K.CType("ptr", 64, False, "pointer", self.ctype(node.type, where))
        if isinstance(node, (c_ast.Struct, c_ast.Union)):
            if node.name in self.structs:
                return self.structs[node.name]
            if node.decls and node.name is None:
                # `typedef struct { ... } T;`: anonymous, known by its typedef name only
                return self._struct_type(node, None)
            if node.decls:
                self._register_struct(node)
                return self.structs[node.name]
            vec = vector_type(node.name or "")
            if vec is not None:
                return vec
            raise self.error(f"unknown struct '{node.name}'", where)
        if isinstance(node, c_ast.Typename):
            return self.ctype(node.type, where)
        if isinstance(node, c_ast.FuncDecl):
            return self.ctype(node.type, where)
        if isinstance(node, (c_ast.Enum,)):
            return K.INT
        raise self.error(f"unsupported type: {type(node).__name__}", where)

    def _array_shape(self, node: c_ast.Node, where: c_ast.Node) -> tuple[K.CType, tuple[int | None, ...]]:
        dims: list[int | None] = []
        while isinstance(node, (c_ast.ArrayDecl, c_ast.PtrDecl)):
            if isinstance(node, c_ast.ArrayDecl):
                extent = self._const_int(node.dim) if node.dim is not None else None
                if extent is not None and extent < 0:  # C11 6.7.6.2p1; nvcc rejects it too
                    name = getattr(where, "name", None) or "?"
                    raise self.error(f"size of array '{name}' is negative ({extent})", where)
                dims.append(extent)
            else:
                dims.append(None)
            node = node.type
        return self.ctype(node, where), tuple(dims) if dims else (None,)

    def _params(self, decl: c_ast.Decl) -> list[c_ast.Decl]:
        args = decl.type.args
        if args is None:
            return []
        out = []
        for p in args.params:
            if isinstance(p, c_ast.EllipsisParam):
                continue
            if isinstance(p, c_ast.Typename):  # f(void)
                continue
            if not isinstance(p, c_ast.Decl):  # K&R ``f(a, b) int a; …`` or implicit int
                raise self.error("unsupported: K&R-style parameter list (declare each "
                                 "parameter's type inside the parentheses)", p)
            out.append(p)
        return out

    def _const_int(self, node: c_ast.Node) -> int | None:
        """Fold an integer constant expression (array extents after template substitution)."""
        try:
            value = self._fold(self.expr_pure(node))
        except KplError:
            return None
        return value if isinstance(value, int) else None

    def _fold(self, e: K.Expr) -> int | float | None:
        if isinstance(e, K.Const):
            return e.value if not isinstance(e.value, bool) else int(e.value)
        if isinstance(e, K.Builtin):
            table = {"blockDim": self.launch.block_dim, "gridDim": self.launch.grid_dim}
            if e.name in table:
                return table[e.name]["xyz".index(e.dim)]
            return None
        if isinstance(e, K.Cast):
            v = self._fold(e.operand)
            if v is None:
                return None
            return int(v) if e.type.kind == "int" else v
        if isinstance(e, K.Unary):
            v = self._fold(e.operand)
            if v is None:
                return None
            return {"-": lambda: -v, "+": lambda: v, "~": lambda: ~int(v),
                    "!": lambda: int(not v)}[e.op]()
        if isinstance(e, K.Binary):
            a, b = self._fold(e.left), self._fold(e.right)
            if a is None or b is None:
                return None
            ops = {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b,
                   "/": lambda: int(a / b) if isinstance(a, int) and isinstance(b, int) else a / b,
                   "%": lambda: int(a) - int(b) * int(int(a) / int(b)),
                   "<<": lambda: int(a) << int(b), ">>": lambda: int(a) >> int(b),
                   "&": lambda: int(a) & int(b), "|": lambda: int(a) | int(b),
                   "^": lambda: int(a) ^ int(b), "<": lambda: int(a < b), ">": lambda: int(a > b),
                   "<=": lambda: int(a <= b), ">=": lambda: int(a >= b),
                   "==": lambda: int(a == b), "!=": lambda: int(a != b),
                   "&&": lambda: int(bool(a) and bool(b)), "||": lambda: int(bool(a) or bool(b))}
            try:
                return ops[e.op]()
            except (KeyError, ZeroDivisionError):
                return None
        if isinstance(e, K.Cond):
            c = self._fold(e.cond)
            if c is None:
                return None
            return self._fold(e.then if c else e.els)
        return None

    def _file_constant(self, name: str) -> int | None:
        """The value of a file-scope ``const`` integer with a constant initialiser."""
        for ext in self.parsed.ast.ext:
            if (isinstance(ext, c_ast.Decl) and ext.name == name and "const" in (ext.quals or [])
                    and ext.init is not None and isinstance(ext.type, c_ast.TypeDecl)):
                return self._const_int(ext.init)
        return None

    def _enum_constant(self, name: str) -> int | None:
        for ext in self.parsed.ast.ext:
            enum = getattr(getattr(ext, "type", None), "values", None)
            node = getattr(ext, "type", None)
            if isinstance(node, c_ast.Enum) and enum is not None:
                value: int | None = -1
                for item in enum.enumerators:
                    if item.value is not None:
                        value = self._const_int(item.value)
                    elif value is not None:
                        value += 1
                    if value is None:
                        break
                    if item.name == name:
                        return value
        return None

    def _convert(self, value: K.Expr, typ: K.CType) -> K.Expr:
        if typ.kind in ("ptr", "void", "vec") or value.type == typ:
            return value
        if isinstance(value, K.Const) and typ.kind == "int" and isinstance(value.value, int):
            return K.Const(value.value, typ)
        return K.Cast(typ, value)
