"""Declarations: locals (scalars, structs, arrays, references, pointers), ``__shared__``,
``__constant__`` and ``__device__`` memories.

A memory's name is the variable's (made unique within the kernel), its element type and
extents come from clang's type; ``extern __shared__ T s[]`` has an unknown extent."""

from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import replace

from kpl import ast as K
from kpl.ctypes import sizeof
from kpl.frontend import tree
from kpl.frontend.access import peel
from kpl.frontend.consteval import ConstEval
from kpl.frontend.members import MembersTranslation
from kpl.frontend.opencl import own_space
from kpl.frontend.pointers import NULL_VALUE
from kpl.frontend.state import (
    ObjectBinding,
    PointerBinding,
    ScalarMemory,
    Scope,
    UnboundPointer,
    UnknownPointer,
)
from kpl.frontend.tree import Node

#: elements of a local array of pointers kept as pointer values, one each (more: memory)
POINTER_ARRAY_LIMIT = 16

#: bytes of static ``__shared__`` memory one block may use: ptxas rejects more
STATIC_SHARED_LIMIT = 0xC000


def memory_space(decl: Node) -> K.Space | None:
    """The memory a variable lives in, from its CUDA attribute (None: a register, or a
    file-scope ``const`` scalar, which clang marks ``__constant__`` implicitly but whose value
    the kernel reads as a constant)."""
    found: set[str] = set()
    for c in tree.children(decl):
        if c.get("implicit") and "[" not in tree.qual_type(decl):
            continue
        found.add(tree.kind(c))
    # ``__device__ __shared__`` / ``__device__ __constant__``: the second qualifier decides
    if "CUDASharedAttr" in found:
        return K.Space.SHARED
    if "CUDAConstantAttr" in found:
        return K.Space.CONSTANT
    if "CUDADeviceAttr" in found:
        return K.Space.GLOBAL
    space = own_space(tree.qual_type(decl))  # OpenCL C: the address space is in the type
    return space if space in (K.Space.SHARED, K.Space.CONSTANT, K.Space.GLOBAL) else None


def initializer(decl: Node) -> Node | None:
    init = [c for c in tree.children(decl) if not tree.kind(c).endswith("Attr")]
    return init[0] if init and decl.get("init") else None


def constant_contents(decl: Node, space: K.Space, elem: K.CType, dims: tuple[int | None, ...],
                      language: str, index: tree.DeclIndex) -> tuple[int, ...] | None:
    """The elements of an OpenCL C program-scope ``__constant`` integer array with a constant
    initialiser (the elements it leaves out are 0): the host cannot change them, so the
    oracles may read them (``Memory.init``).  (CUDA's ``__constant__`` may be rewritten by the
    host: not known.)  None for anything else, or over 4096 elements."""
    if language != "opencl" or space != K.Space.CONSTANT or elem.kind != "int" \
            or len(dims) != 1 or dims[0] is None or dims[0] > 4096:
        return None
    init = initializer(decl)
    if init is None or tree.kind(peel(init)) != "InitListExpr":
        return None
    # with elements left out, clang's JSON lists the items after the filler in ``array_filler``
    listed = peel(init)
    items = tree.children(listed) or list(listed.get("array_filler") or [])[1:]
    if len(items) > dims[0]:
        return None
    values = [ConstEval(index).value(c) for c in items]
    if any(v is None for v in values):
        return None
    return tuple(v for v in values if v is not None) + (0,) * (dims[0] - len(values))


class DeclsTranslation(MembersTranslation):
    """Local declarations; memories declared inside the kernel join ``self.memories``."""

    memory_decls: dict[str, Node]

    def check_static_shared(self, body: K.Block) -> None:
        """Static ``__shared__`` arrays of more than :data:`STATIC_SHARED_LIMIT` bytes (unused
        arrays do not count), which nvcc refuses, are analysed as written (issue 34): a note
        in a file written for GPUVerify (its convention), a warning elsewhere; at the
        declaration of the biggest array."""
        used = _memories_used(body)
        sized: list[tuple[int, str]] = []
        for name in used:
            mem = self.memories.get(name)
            if mem is None or mem.space != K.Space.SHARED or name not in self.memory_decls:
                continue
            elem = sizeof(mem.elem)
            if elem is None or any(d is None for d in mem.dims):
                continue
            sized.append((elem * math.prod(d or 0 for d in mem.dims), name))
        total = sum(size for size, _ in sized)
        if total > STATIC_SHARED_LIMIT:
            biggest = max(sized)[1]
            _, line, col = self.where(self.memory_decls[biggest])
            memory = "__local memory" if self.unit.language == "opencl" else "static __shared__ memory"
            limit = (f"past the {STATIC_SHARED_LIMIT} bytes (48 KB) a work-group commonly has"
                     if self.unit.language == "opencl" else
                     f"past CUDA's limit of {STATIC_SHARED_LIMIT} (48 KB) a block")
            if self.unit.gpuverify_style:
                self.unit.note(f"{total} bytes of {memory}, {limit}: analysed as written, as GPUVerify "
                               "does", line, col)
            else:
                self.unit.note(f"{total} bytes of {memory}, {limit} (use extern __shared__ for more): "
                               "analysed as written", line, col, kind="warning")

    def memory_of(self, decl: Node, space: K.Space, scope: Scope) -> None:
        """Declare the memory ``decl`` names (an array or a scalar cell)."""
        name = str(decl.get("name", ""))
        text = tree.qual_type(decl)
        elem, dims = self.types.shape(text) if "[" in text else (self.ctype(text, decl), (1,))
        if any(d is not None and d < 0 for d in dims):
            raise self.error(f"size of array '{name}' is negative", decl)
        unique = self.unique(name)
        mem = K.Memory(unique, space, elem, dims, init=constant_contents(decl, space, elem, dims, self.unit.language, self.index))
        self.memories[unique] = mem
        self.memory_decls[unique] = decl
        scope.names[str(decl["id"])] = mem if "[" in text else ScalarMemory(mem)

    def declaration(self, decl: Node, scope: Scope) -> list[K.Stmt]:
        k = tree.kind(decl)
        if k in ("TypedefDecl", "TypeAliasDecl") and decl.get("name"):
            self.types.local_alias(str(decl["name"]), tree.qual_type(decl))
            return []
        if k != "VarDecl":
            return []  # a local struct, using or static_assert: nothing runs
        ident = str(decl["id"])
        name = str(decl.get("name", ""))
        text = tree.qual_type(decl)
        init = initializer(decl)
        space = memory_space(decl)
        if space is not None or (decl.get("storageClass") == "extern" and "[" in text):
            self.memory_of(decl, space or K.Space.SHARED, scope)
            return []
        if decl.get("storageClass") == "static" and text.startswith("const") is False \
                and "[" in text:
            raise self.error(f"unsupported: static local array '{name}'", decl)
        if text.rstrip().endswith("&") or re.search(r"&\)?\s*\[", text):  # or to an array: T (&)[N]
            if init is None:
                raise self.error(f"reference '{name}' without an initialiser", decl)
            bind: list[K.Stmt] = []
            scope.names[ident] = self.reference(init, scope, bind)
            return bind
        if "[" in text and not self.types.is_function_pointer(text):
            elem, dims = self.types.shape(text)
            if elem.kind == "ptr" and len(dims) == 1 and dims[0] is not None \
                    and dims[0] <= POINTER_ARRAY_LIMIT and space is None:
                items = self._flat_items(peel(init)) if init is not None \
                    and tree.kind(peel(init)) == "InitListExpr" else []
                slots: list[K.Stmt] = []
                scope.names[ident] = self.pointer_array(ident, name, elem.elem or K.VOID, dims[0],
                                                        items, scope, slots)
                return slots
            mem = K.Memory(self.unique(name), K.Space.LOCAL, elem, dims)
            self.memories[mem.name] = mem
            scope.names[ident] = mem
            var = K.Var(mem.name, K.CType("ptr", 64, False, "pointer", elem))
            stmts: list[K.Stmt] = [K.Decl(var, None, array=mem, label=self.label())]
            if init is not None and tree.kind(peel(init)) == "InitListExpr":
                for n, item in enumerate(self._flat_items(peel(init))):
                    reads: list[K.Stmt] = []
                    element = self.expr(item, scope, reads)
                    stmts.extend(reads)
                    stmts.append(K.Assign(self.location(mem, K.Const(n)), element, label=self.label()))
            return stmts
        record = self.object_record(decl)
        if record is not None:  # `Reduce r(storage);`: members that are references
            inner = peel(init) if init is not None else None
            if inner is not None and self.is_aggregate_init(inner, record):
                built: list[K.Stmt] = []
                scope.names[ident] = self.aggregate_object(inner, record, scope, built)
                return built
            if inner is None or tree.kind(inner) not in ("CXXConstructExpr", "CXXTemporaryObjectExpr"):
                raise self.error(f"unsupported: object '{name}' of a class with reference members "
                                 "not built by a constructor", decl)
            out: list[K.Stmt] = []
            scope.names[ident] = self.construct_object(inner, record, scope, out)
            return out
        typ = self.ctype(text, decl)
        if typ.kind == "ptr":
            return self._pointer_decl(decl, ident, name, typ, init, scope)
        if typ.kind == "vec" and not typ.fields and not typ.parts:
            # an object of an empty class (`SharedMemory<T> smem;`): no state, no statement
            scope.names[ident] = K.Var(self.unique(name), typ)
            return []
        if has_array_member(typ) or ident in self.points_to.addressed:
            return self._local_object(decl, ident, name, typ, init, scope)
        pre: list[K.Stmt] = []
        value: K.Expr | None = None
        if init is not None and tree.kind(peel(init)) == "CXXConstructExpr" and not tree.children(peel(init)):
            value = None  # default construction: no initial value
        elif init is not None:
            value = self.convert(self.expr(init, scope, pre), typ)
        var = K.Var(self.unique(name), typ)
        scope.names[ident] = var
        return pre + [K.Decl(var, value, label=self.label())]

    def object_record(self, node: Node) -> Node | None:
        """The class of ``node``'s type when its objects hold references: :mod:`kpl.frontend.objects`."""
        raise NotImplementedError

    def is_aggregate_init(self, node: Node, record: Node) -> bool:
        """``{a, b}`` or a copy: :mod:`kpl.frontend.objects`."""
        raise NotImplementedError

    def aggregate_object(self, node: Node, record: Node, scope: Scope,
                         out: list[K.Stmt]) -> ObjectBinding:
        """An object with pointer members built by ``{a, b}`` or copied: :mod:`kpl.frontend.objects`."""
        raise NotImplementedError

    def construct_object(self, node: Node, record: Node, scope: Scope,
                         out: list[K.Stmt]) -> ObjectBinding:
        """Run a constructor on a new object: :mod:`kpl.frontend.objects`."""
        raise NotImplementedError

    def initialise_members(self, ctor: Node, this: ObjectBinding | PointerBinding | K.Var, scope: Scope,
                           out: list[K.Stmt]) -> None:
        """A constructor's member initialisers: :mod:`kpl.frontend.objects`."""
        raise NotImplementedError

    def _local_object(self, decl: Node, ident: str, name: str, typ: K.CType, init: Node | None,
                      scope: Scope) -> list[K.Stmt]:
        """A local struct with an array member (``Packed128 p;`` holding ``float lanes[4]``) is
        one cell of thread-local memory: its members are bytes, indexed by variables
        (``p.lanes[k]``), viewed through pointer casts (``*(float4 *)p.lanes``) and copied by
        ``memcpy`` like any memory, which a value with named components cannot be."""
        mem = K.Memory(self.unique(name), K.Space.LOCAL, typ, (1,))
        self.memories[mem.name] = mem
        scope.names[ident] = ScalarMemory(mem)
        var = K.Var(mem.name, K.CType("ptr", 64, False, "pointer", typ))
        stmts: list[K.Stmt] = [K.Decl(var, None, array=mem, label=self.label())]
        inner = peel(init) if init is not None else None
        if inner is not None and not (tree.kind(inner) == "CXXConstructExpr" and not tree.children(inner)):
            value = self.expr(init, scope, stmts)  # type: ignore[arg-type]
            stmts.append(K.Assign(self.location(mem, K.Const(0)), value, label=self.label()))
        return stmts

    def _flat_items(self, init: Node) -> list[Node]:
        out: list[Node] = []
        for item in tree.children(init):
            if tree.kind(peel(item)) == "InitListExpr":
                out.extend(self._flat_items(peel(item)))
            else:
                out.append(item)
        return out

    def _pointer_decl(self, decl: Node, ident: str, name: str, typ: K.CType, init: Node | None,
                      scope: Scope) -> list[K.Stmt]:
        self.pointer_bound(ident)
        pointee = typ.elem or K.VOID
        ref = self.pointer_ref(init, scope) if init is not None and pointee.kind == "ptr" else None
        if ref is not None:
            scope.names[ident] = ref
            return []
        local = self.local_pointer(init, scope) if init is not None else None
        if local is not None:
            scope.names[ident] = local
            return []
        if ident in self.points_to.dynamic or (
                init is not None and self.is_value(init, scope)):
            out: list[K.Stmt] = []
            value = self.pvalue(init, scope, out, pointee) if init is not None else NULL_VALUE
            if value is None:
                self.hold_in_memory(init, scope=scope)
                raise self.error(f"unsupported: pointer '{name}' cannot be bounded to known arrays: "
                                 f"{self.unbounded(init)}", decl)  # type: ignore[arg-type]
            scope.names[ident] = self.new_dyn(ident, name, pointee, value, out)
            return out
        if init is None or self.is_null(init):  # `T *p = nullptr;`: bound where it is set
            scope.names[ident] = UnboundPointer(name, null=init is not None)
            return []
        binding = self.pointer(init, scope)
        if binding is None:  # refused where it is used to reach memory, if it is
            self.hold_in_memory(init, scope=scope)
            scope.names[ident] = UnknownPointer(name, self.unbounded(init))
            return []
        if typ.elem is not None and binding.view is None and typ.elem != binding.mem.elem \
                and binding.mem.dims == (None,) and binding.mem.elem.kind == "void":
            binding = PointerBinding(replace(binding.mem, elem=typ.elem), binding.offset)
            self.memories[binding.mem.name] = binding.mem
        stable, stmts = self._stable(binding)
        scope.names[ident] = stable
        return stmts


def has_array_member(t: K.CType) -> bool:
    """Does struct ``t`` (or a struct member of it) have an array member?"""
    return any(m.name.endswith("]") or has_array_member(m) for _, m in t.parts)


def _memories_used(body: K.Block) -> set[str]:
    """Names of the memories that some statement under ``body`` reads, writes or updates."""
    out: set[str] = set()
    for s in K.walk_stmts(body):
        for f in dataclasses.fields(s):
            v = getattr(s, f.name)
            for e in v if isinstance(v, tuple) else (v,):
                if isinstance(e, K.MemElem):
                    out.add(e.mem.name)
                    e = e.index
                if isinstance(e, K.Expr):  # type: ignore[arg-type,misc]
                    out.update(x.mem.name for x in K.walk_expr(e) if isinstance(x, (K.Load, K.Atomic)))
    return out
