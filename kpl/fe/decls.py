"""Local declarations: scalars, local arrays, ``__shared__``/``__constant__`` memories,
pointers."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import replace

from pycparser import c_ast

from kpl import ast as K
from kpl.ctypes import sizeof
from kpl.fe.base import PointerBinding, ScalarMemory, Scope, UnboundPointer
from kpl.fe.members import MembersLowering

#: bytes of static ``__shared__`` memory one block may use: ptxas rejects more ("uses too
#: much shared data (…, 0xc000 max)") on every architecture; more needs dynamic shared memory
STATIC_SHARED_LIMIT = 0xC000


class DeclsLowering(MembersLowering):
    """Local declarations; memories declared inside the kernel join ``self.memories``."""

    def check_static_shared(self, body: K.Block) -> None:
        """Reject a kernel whose static ``__shared__`` arrays that it uses take more than
        :data:`STATIC_SHARED_LIMIT` bytes, as nvcc does: such a kernel cannot run, and an
        array of a fuzzed size like ``s[2147483647]`` would otherwise cost minutes of
        unrolling.  Unused arrays do not count (ptxas drops them)."""
        used = _memories_used(body)
        sized: list[tuple[int, str]] = []
        for name in used:
            mem = self.memories.get(name)
            if mem is None or mem.space != K.Space.SHARED or name not in self.memory_decls:
                continue
            elem = sizeof(mem.elem)
            if elem is None or any(d is None for d in mem.dims):
                continue  # ``extern __shared__`` (dynamic) or a layout not modelled
            sized.append((elem * math.prod(d or 0 for d in mem.dims), name))
        total = sum(size for size, _ in sized)
        if total > STATIC_SHARED_LIMIT:
            biggest = max(sized)[1]
            raise self.error(
                f"too much static __shared__ memory: {total} bytes, CUDA allows "
                f"{STATIC_SHARED_LIMIT} (48 KB) per block; use extern __shared__ for more",
                self.memory_decls[biggest])

    def declaration(self, decl: c_ast.Decl, scope: Scope) -> list[K.Stmt]:
        if decl.name is None:
            if isinstance(decl.type, c_ast.Struct):
                self._register_struct(decl.type)
            return []
        if isinstance(decl.type, c_ast.FuncDecl):
            self.declared_functions.add(decl.name)
            return []
        name = decl.name
        space = self.parsed.var_spaces.get((self.current_func, name))
        if space == "reference":  # `T &r = lvalue;` (kpl.lower_cuda: C++ references)
            if decl.init is None:
                raise self.error(f"reference '{name}' without an initialiser", decl)
            bind: list[K.Stmt] = []
            scope.names[name] = self.reference(decl.init, scope, bind)
            return bind
        storage = decl.storage or []
        if space in ("shared", "constant", "device") or (
                "extern" in storage and isinstance(decl.type, c_ast.ArrayDecl)):
            elem, dims = self._array_shape(decl.type, decl)
            kind = {"constant": K.Space.CONSTANT, "device": K.Space.GLOBAL}.get(space or "",
                                                                              K.Space.SHARED)
            unique = self.unique(name)
            scalar = not isinstance(decl.type, (c_ast.ArrayDecl, c_ast.PtrDecl))
            mem = K.Memory(unique, kind, elem, (1,) if scalar else dims)
            self.memories[unique] = mem
            self.memory_decls[unique] = decl
            scope.names[name] = ScalarMemory(mem) if scalar else mem
            return []
        if isinstance(decl.type, c_ast.ArrayDecl):
            elem, dims = self._array_shape(decl.type, decl)
            mem = K.Memory(self.unique(name), K.Space.LOCAL, elem, dims)
            self.memories[mem.name] = mem
            scope.names[name] = mem
            var = K.Var(mem.name, K.CType("ptr", 64, False, "pointer", elem))
            stmts: list[K.Stmt] = [K.Decl(var, None, array=mem, label=self.label())]
            if isinstance(decl.init, c_ast.InitList):
                pre: list[K.Stmt] = []
                for n, item in enumerate(decl.init.exprs):
                    value = self.expr(item, scope, pre)
                    stmts.extend(pre)
                    pre = []
                    stmts.append(K.Assign(self.location(mem, K.Const(n)), value, label=self.label()))
            return stmts
        typ = K.INT if self.is_function_pointer(decl.type) else self.ctype(decl.type, decl)
        if typ.kind == "ptr":
            return self._pointer_decl(decl, typ, scope)
        pre = []
        init: K.Expr | None = None
        if isinstance(decl.init, c_ast.InitList):
            parts = tuple(self._convert(self.expr(e, scope, pre), typ.elem or K.FLOAT)
                          for e in decl.init.exprs)
            init = K.VecInit(typ, parts) if typ.kind == "vec" else (parts[0] if parts else None)
        elif decl.init is not None:
            init = self._convert(self.expr(decl.init, scope, pre), typ)
        var = K.Var(self.unique(name), typ)
        scope.names[name] = var
        return pre + [K.Decl(var, init, label=self.label())]

    def _pointer_decl(self, decl: c_ast.Decl, typ: K.CType, scope: Scope) -> list[K.Stmt]:
        if decl.init is None:
            scope.names[decl.name] = UnboundPointer(decl)
            return []
        binding = self.pointer(decl.init, scope)
        if binding is None:
            raise self.error(f"unsupported: pointer '{decl.name}' does not statically point into "
                             "one array", decl)
        if typ.elem is not None and binding.view is None and typ.elem != binding.mem.elem \
                and binding.mem.dims == (None,):
            # `T *s = (T *)smem;` with sizeof(T) == sizeof the buffer's element: view it with
            # the new type (a cast to another size is a byte view, see kpl.fe.access)
            binding = PointerBinding(replace(binding.mem, elem=typ.elem), binding.offset)
            self.memories[binding.mem.name] = binding.mem
        stable, stmts = self._stable(binding)
        scope.names[decl.name] = stable
        return stmts


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
