"""Local declarations: scalars, local arrays, ``__shared__``/``__constant__`` memories,
pointers."""

from __future__ import annotations

from dataclasses import replace

from pycparser import c_ast

from kpl import ast as K
from kpl.fe.base import PointerBinding, ScalarMemory, Scope, UnboundPointer
from kpl.fe.members import MembersLowering


class DeclsLowering(MembersLowering):
    """Local declarations; memories declared inside the kernel join ``self.memories``."""

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
