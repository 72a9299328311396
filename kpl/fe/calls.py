"""Calls: barriers (plain and named, [WEFT]), atomics, textures, annotations, builtins and
``__device__`` functions, which are inlined at the call site (recursion is an error)."""

from __future__ import annotations

from pycparser import c_ast, c_parser

from kpl import ast as K
from kpl.ctypes import common_type
from kpl.errors import KplError
from kpl.fe.annotations import AnnotationsLowering
from kpl.fe.base import PointerBinding, Scope
from kpl.fe.memops import MEMORY_FUNCTIONS, MemOpsLowering
from kpl.fe.names import (
    ANNOTATIONS,
    ASSUMPTIONS,
    ATOMICS,
    BARRIER_CALLS,
    NAMED_BARRIERS,
    TEXTURE_FETCHES,
)
from kpl.fe.types import vector_type
from kpl.placement import BarrierKind


class CallsLowering(MemOpsLowering, AnnotationsLowering):
    """Calls, in statement position (``stmt_FuncCall``) and as values (``expr_FuncCall``)."""

    def _call_name(self, node: c_ast.FuncCall) -> str:
        return node.name.name if isinstance(node.name, c_ast.ID) else ""

    def _is_device(self, name: str) -> bool:
        info = self.parsed.functions.get(name)
        return info is None or info.kind in ("device", "global", "host")

    def inline_call(self, node: c_ast.FuncCall, scope: Scope, result_type: K.CType | None,
                    callee: str | None = None) -> list[K.Stmt]:
        """Inline a ``__device__`` function (``callee``, by default the one ``node`` names) at
        its call site (DESIGN: procedures are inlined; the paper does not support them at
        all)."""
        name = callee or self._call_name(node)
        if name in self.call_stack:
            raise self.error(f"recursion is not supported: '{name}' calls itself "
                             f"(via {' -> '.join(self.call_stack + [name])})", node)
        func = self.functions[name]
        out: list[K.Stmt] = []
        args = list(node.args.exprs) if node.args is not None else []
        params = self._params(func.decl)
        info = self.parsed.functions.get(name)
        for n in range(len(args), len(params)):
            if info is None or n not in info.defaults:
                break
            args.append(self._default_argument(info.defaults[n], node))
        if len(args) != len(params):
            raise self.error(f"call to '{name}' with {len(args)} arguments, expected {len(params)}",
                             node)
        inner = Scope(self.globals)
        binds: list[K.Stmt] = []
        for param, arg in zip(params, args, strict=True):
            if self.parsed.var_spaces.get((name, param.name)) == "reference":
                inner.names[param.name] = self.reference(arg, scope, out)
                continue
            ptype = K.INT if self.is_function_pointer(param.type) else self.ctype(param.type, param)
            if ptype.kind == "ptr" and self._is_null(arg):
                # NULL: a stand-in memory; `if (p)` on it is false (ExprsLowering.null_test)
                mem = K.Memory(self.unique(f"{name}.{param.name}.null"), K.Space.GLOBAL,
                               ptype.elem or K.INT, (None,))
                self.memories[mem.name] = mem
                self.null_memories.add(mem.name)
                inner.names[param.name] = PointerBinding(mem, K.Const(0))
            elif ptype.kind == "ptr":
                binding = self.pointer(arg, scope)
                if binding is None:
                    raise self.error(f"unsupported: argument for pointer parameter '{param.name}' "
                                     f"of '{name}' does not point into a known array", node)
                inner.names[param.name] = binding
            else:
                value = self._convert(self.expr(arg, scope, out), ptype)
                var = K.Var(self.unique(f"{name}.{param.name}"), ptype)
                inner.names[param.name] = var
                binds.append(K.Decl(var, value, label=self.label(), placeable=False,
                                    synthetic=True))
        ret_type = self.ctype(func.decl.type.type, func)
        result = None
        if ret_type.kind != "void":
            result = K.Var(self.unique(f"{name}.ret"), ret_type)
        label = self.label()
        self.call_stack.append(name)
        self.inline_depth += 1
        self.result_vars.append(result)
        saved_func, saved_gotos = self.current_func, self.goto_targets
        self.current_func, self.goto_targets = name, []
        self.enter_function()
        try:
            body = self.block(func.body, inner)
            self.leave_function(body)
        finally:
            self.current_func, self.goto_targets = saved_func, saved_gotos
            self.result_vars.pop()
            self.inline_depth -= 1
            self.call_stack.pop()
        body.label = label
        if result is not None:
            binds.insert(0, K.Decl(result, None, label=self.label(), placeable=False,
                                   synthetic=True))
        call_span = self.spans.span_of(node)
        for bind in binds:  # the argument reads happen at the call
            bind.span = bind.span or call_span
        body.stmts[:0] = binds
        body.placeable_start = False
        out.append(K.Inline(name, body, result, label=label))
        return out

    # ------------------------------------------------------------------ function pointers
    # A function pointer is an int variable holding a function's number (0 is NULL); a call
    # through it is a chain `if (p == n_f) f(...) else if ...` over every function whose
    # address is taken anywhere in the file: the same accesses as the call, under the
    # condition that selects them, and infeasible arms are pruned by the oracle.

    def _address_taken(self) -> list[str]:
        taken: set[str] = set()
        callees: set[int] = set()

        class Finder(c_ast.NodeVisitor):
            def visit_FuncCall(self, n: c_ast.FuncCall) -> None:
                callees.add(id(n.name))
                self.generic_visit(n)

            def visit_ID(self, n: c_ast.ID) -> None:
                if id(n) not in callees:
                    taken.add(n.name)

        Finder().visit(self.parsed.ast)
        return sorted(n for n in taken if n in self.functions and self._is_device(n))

    def _pointer_call(self, node: c_ast.FuncCall, var: K.Var, scope: Scope,
                      pre: list[K.Stmt]) -> K.Expr:
        nargs = len(node.args.exprs) if node.args is not None else 0
        # only functions the call could be well-typed for: the same number of parameters
        targets = [f for f in self._address_taken()
                   if len(self._params(self.functions[f].decl)) == nargs]
        if not targets:
            raise self.error("unsupported: call through a function pointer whose target is not "
                             "known statically", node)
        first = self.functions[targets[0]]
        ret_type = self.ctype(first.decl.type.type, first)
        result = None if ret_type.kind == "void" else self.temp(ret_type, "fp")
        if result is not None:
            pre.append(K.Decl(result, None, label=self.label(), placeable=False, synthetic=True))
        chain: list[K.Stmt] = []  # no arm for NULL: calling it is undefined
        for name in reversed(targets):
            label = self.label()
            arm = self.inline_call(node, scope, ret_type, callee=name)
            inline = arm[-1]
            assert isinstance(inline, K.Inline)
            if result is not None and inline.result is not None:
                arm.append(K.Assign(result, self._convert(inline.result, ret_type),
                                    label=self.label(), placeable=False, synthetic=True))
            for stmt in arm:
                stmt.placeable = False
                stmt.span = stmt.span or self.spans.span_of(node)
            then = K.Block(arm, label, self.label(), K.BlockSource(), placeable_start=False)
            els = K.Block(chain, self.label(), self.label(), K.BlockSource(),
                          placeable_start=False) if chain else None
            cond = K.Binary("==", var, K.Const(self.function_number(name)), K.BOOL)
            chain = [K.If(cond, then, els, label=label, placeable=False, synthetic=True)]
        pre.extend(chain)
        return result if result is not None else K.Const(0)

    def _default_argument(self, text: str, call: c_ast.FuncCall) -> c_ast.Node:
        """A default argument's text (kpl.lower_cuda) as a C expression at the call."""
        try:
            tree = c_parser.CParser().parse(f"void __kpl_default(void) {{ ({text}); }}")
        except Exception:  # noqa: BLE001 - pycparser's ParseError and lexer errors
            raise self.error(f"unsupported: default argument '{text}'", call) from None
        fdef = tree.ext[0]
        assert isinstance(fdef, c_ast.FuncDef)
        expr: c_ast.Node = fdef.body.block_items[0]
        expr.coord = call.coord
        return expr

    def expr_FuncCall(self, node: c_ast.FuncCall, scope: Scope, pre: list[K.Stmt]) -> K.Expr:
        name = self._call_name(node)
        args = list(node.args.exprs) if node.args is not None else []
        callee: c_ast.Node = node.name
        while isinstance(callee, c_ast.UnaryOp) and callee.op == "*":  # (*op)(a, b)
            callee = callee.expr
        pointer = scope.lookup(callee.name) if isinstance(callee, c_ast.ID) else None
        if isinstance(pointer, K.Var):
            return self._pointer_call(node, pointer, scope, pre)
        if not name or pointer is not None:
            raise self.error("unsupported: call through a function pointer whose target is not "
                             "known statically", node)
        if name in BARRIER_CALLS:
            raise self.error(f"'{name}()' must be a statement of its own", node)
        if name in ATOMICS:
            if not args:
                raise self.error(f"'{name}' needs an address", node)
            binding = self.pointer(args[0], scope)
            if binding is None:
                raise self.error(f"unsupported: the address given to '{name}' does not point "
                                 "into a known array", node)
            rest = tuple(self.expr(a, scope, pre) for a in args[1:])
            self.check_writable(self.location(binding.mem, binding.offset), node)
            return self.atomic(name, binding, rest)
        if name in TEXTURE_FETCHES:
            if not args or not isinstance(args[0], c_ast.ID):
                raise self.error(f"'{name}' needs a texture", node)
            mem = scope.lookup(args[0].name)
            if isinstance(mem, K.Var):  # a texture object: read-only, so no race; any value
                coords = tuple(self.expr(a, scope, pre) for a in args[1:])
                return K.Call(name, (mem,) + coords, K.FLOAT)
            if not isinstance(mem, K.Memory):
                raise self.error(f"'{args[0].name}' is not a texture", node)
            coords = tuple(self.expr(a, scope, pre) for a in args[1:])
            return self.load(mem, K.Call("__texel", coords, K.INT))
        if name.startswith("make_"):
            typ = vector_type(name[len("make_"):])
            if typ is not None:
                parts = tuple(self._convert(self.expr(a, scope, pre), typ.elem or K.FLOAT)
                              for a in args)
                return K.VecInit(typ, parts)
        if name in ANNOTATIONS or name in ASSUMPTIONS:
            return self.annotation_value(node, name, args, scope, pre)
        if name in MEMORY_FUNCTIONS and name not in self.functions:
            return self.memory_function(node, name, scope, pre)
        if name.startswith("curand") and name not in self.functions:
            return self.curand(node, name, args, scope, pre)
        if name in self.functions and self._is_device(name):
            func = self.functions[name]
            ret_type = self.ctype(func.decl.type.type, func)
            stmts = self.inline_call(node, scope, ret_type)
            pre.extend(stmts)
            inline = stmts[-1]
            assert isinstance(inline, K.Inline)
            if inline.result is None:
                raise self.error(f"'{name}' returns void but its value is used", node)
            return inline.result
        values = tuple(self.expr(a, scope, pre) for a in args)
        return K.Call(name, values, self._call_type(name, values))

    def curand(self, node: c_ast.FuncCall, name: str, args: list[c_ast.Node], scope: Scope,
               pre: list[K.Stmt]) -> K.Expr:
        """The curand device API with its memory effects: ``curand_init(seed, seq, off, &st)``
        writes the generator state; a draw ``curand*(&st, ...)`` reads the state and writes it
        back advanced, and returns a value the verifier knows nothing about (the oracles
        treat ``curand*`` calls as impure: a fresh value per call).  So threads that share
        one state race on it, as they do on a GPU.  MTGP32 states are modelled the same way
        (conservatively: its block-cooperative draws would be reported as races)."""
        at = args[-1] if name == "curand_init" else (args[0] if args else None)
        state: K.LValue | None = None
        if isinstance(at, c_ast.UnaryOp) and at.op == "&" and isinstance(at.expr, c_ast.ID):
            local = scope.lookup(at.expr.name)  # a state in a register: `curandState st;`
            state = local if isinstance(local, K.Var) else None
        if state is None:
            binding = self.pointer(at, scope) if at is not None else None
            if binding is None:
                raise self.error(f"unsupported: the generator state given to '{name}' does not "
                                 "point into a known array or variable", node)
            state = self.location(binding.mem, binding.offset)
        others = args[:-1] if name == "curand_init" else args[1:]
        values = tuple(self.expr(a, scope, pre) for a in others)
        elem = self._lvalue_type(state)
        if name == "curand_init":
            pre.append(K.Assign(state, K.Call("curand_init_state", values, elem), label=self.label()))
            return K.Const(0)
        old = self.temp(elem, "rng")
        pre.append(K.Decl(old, self.read_lvalue(state), label=self.label()))
        pre.append(K.Assign(state, K.Call("curand_next_state", (old,), elem), label=self.label()))
        if name in ("curand", "curand_poisson"):
            typ = K.UINT
        elif name.endswith(("2", "4")) and "double" not in name:
            typ = vector_type("float" + name[-1]) or K.FLOAT
        else:
            typ = K.DOUBLE if "double" in name else K.FLOAT
        return K.Call(name, (old,) + values, typ)

    def _call_type(self, name: str, args: tuple[K.Expr, ...]) -> K.CType:
        float_like = ("f", "sqrt", "exp", "log", "sin", "cos", "tan", "pow", "fabs", "floor",
                      "ceil", "rsqrt", "fmin", "fmax", "__fdividef", "__expf", "__logf",
                      "__saturatef", "__int_as_float", "__fmul", "__fadd", "fma")
        int_like = ("__popc", "__ffs", "__clz", "__ballot", "__any", "__all", "__mul24",
                    "__umul24", "__float_as_int", "__brev", "__activemask", "abs")
        if name.startswith(int_like):
            return K.UINT if name.startswith(("__ballot", "__activemask", "__umul24", "__brev")) else K.INT
        if name.startswith("__shfl") or name in ("min", "max", "umin", "umax"):
            data = [a.type for a in args if a.type.kind != "void"]
            if name.startswith("__shfl") and len(args) >= 2:
                return args[1].type if name.endswith("_sync") else args[0].type
            return common_type(data[0], data[-1]) if data else K.INT
        if name.startswith(float_like) or name.endswith("f"):
            return K.FLOAT
        for ext in self.parsed.ast.ext:
            if isinstance(ext, c_ast.Decl) and ext.name == name and isinstance(ext.type, c_ast.FuncDecl):
                try:
                    return self.ctype(ext.type.type, ext)
                except KplError:
                    return K.INT
        return K.INT

    def stmt_FuncCall(self, node: c_ast.FuncCall, scope: Scope) -> list[K.Stmt]:
        name = self._call_name(node)
        args = list(node.args.exprs) if node.args is not None else []
        if name in BARRIER_CALLS or name in ("__syncthreads_count", "__syncthreads_and",
                                             "__syncthreads_or"):
            return [K.Barrier(spelling=self._barrier_spelling(node), label=self.label())]
        if name in NAMED_BARRIERS:
            self.uses_named = True
            if not args:
                raise self.error("named barrier without a barrier id", node)
            pre: list[K.Stmt] = []
            bid = self.expr(args[0], scope, pre)
            count = self.expr(args[1], scope, pre) if len(args) > 1 else None
            return pre + [K.NamedBarrier(NAMED_BARRIERS[name], bid, count, label=self.label())]
        if name in ANNOTATIONS or name in ASSUMPTIONS:
            checked = self.annotation_stmt(node, name, args, scope)
            return checked if checked is not None else [K.Annotation(name, label=self.label())]
        if name == "__syncwarp":
            return [self._syncwarp(node, args, scope)]
        if name == "__kpl_grid_sync":  # cooperative groups' grid_group::sync (kpl.lower_coop)
            return [K.Barrier(spelling=self._barrier_spelling(node), kind=BarrierKind.GRID,
                              label=self.label())]
        if name in ("__threadfence", "__threadfence_block", "__threadfence_system",
                    "mem_fence", "read_mem_fence", "write_mem_fence"):
            return []
        if name in ("printf", "assert"):  # no effect of their own, but their arguments ARE read
            return self.effects(node, scope)
        return self.effects(node, scope)

    def _syncwarp(self, node: c_ast.FuncCall, args: list[c_ast.Node], scope: Scope) -> K.Stmt:
        """``__syncwarp()`` / ``__syncwarp(0xffffffff)``: a warp barrier over all 32 lanes.  Any
        other mask is ``SYNCWARP_MASKED`` (the oracles answer "unknown" for it: a partial mask
        orders only the named lanes, which they do not model)."""
        kind = BarrierKind.SYNCWARP
        if args:
            pre: list[K.Stmt] = []
            mask = self.expr(args[0], scope, pre)
            folded = self._fold(mask) if not pre else None
            if not (isinstance(folded, int) and folded & 0xFFFFFFFF == 0xFFFFFFFF):
                kind = BarrierKind.SYNCWARP_MASKED
        return K.Barrier(spelling=self._barrier_spelling(node), kind=kind, label=self.label())

    def _barrier_spelling(self, node: c_ast.FuncCall) -> str:
        span = self.spans.span_of(node)
        if span is not None and span.start >= 0 and span.end > span.start:
            text = self.source.text[span.start:span.end].rstrip(";").strip()
            if text:
                return text
        return self._call_name(node) + "()"
