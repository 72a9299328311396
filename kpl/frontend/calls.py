"""Calls: functions with a body are inlined at the call site (recursion is an error); a
function without a body is one of the built-ins our headers declare, translated by its
model (:data:`MODELS`: a barrier, an atomic, a vector constructor, a texture read, or a pure
function of its arguments); a user's function with no body is, in a file written for
GPUVerify, an arbitrary value (:mod:`kpl.frontend.bodiless`), and elsewhere an error: a call
is never ignored.

Why one piece of this size: callee resolution, the models of built-ins and inlining are one
dispatch over a call; split, each would re-derive which function a call reaches.
"""

from __future__ import annotations

from dataclasses import dataclass

from kpl import ast as K
from kpl.frontend import tree
from kpl.frontend.access import decl_id, peel
from kpl.frontend.bodiless import BodilessTranslation
from kpl.frontend.consteval import ConstEval
from kpl.frontend.decls import has_array_member, initializer
from kpl.frontend.memops import MEMORY_FUNCTIONS
from kpl.frontend.overrides import user_override
from kpl.frontend.state import (
    Alias,
    Binding,
    ObjectBinding,
    PointerBinding,
    ScalarMemory,
    Scope,
    UnknownPointer,
)
from kpl.frontend.tree import Node
from kpl.frontend.types import vector_type
from kpl.placement import BarrierKind


@dataclass
class PointerResult:
    """Where the ``return`` of an inlined pointer-returning function puts its binding."""

    binding: PointerBinding | None = None


@dataclass
class ReferenceResult:
    """Where the ``return`` of an inlined reference-returning function (``T &operator[]``)
    puts what it refers to."""

    binding: Binding | None = None
    returns: int = 0


BARRIERS = {"__syncthreads", "__syncthreads_count", "__syncthreads_and", "__syncthreads_or", "barrier"}
#: barriers with a result: a value where they are used as one (Calls.predicate_barrier)
PREDICATE_BARRIERS = {"__syncthreads_count", "__syncthreads_and", "__syncthreads_or"}
FENCES = {"__threadfence", "__threadfence_block", "__threadfence_system", "__nanosleep"}
ATOMIC_OPS = {"atomicAdd", "atomicSub", "atomicExch", "atomicMin", "atomicMax", "atomicInc",
              "atomicDec", "atomicCAS", "atomicAnd", "atomicOr", "atomicXor"}
TEXTURE_FETCHES = {"tex1D", "tex2D", "tex3D", "tex1Dfetch", "tex2DLayered", "tex1DLayered"}
#: built-ins whose value is not a function of their arguments (a fresh value per call)
IMPURE = {"clock", "clock64", "__activemask", "malloc"}
#: the families of our headers whose remaining bodiless functions are values: a pure
#: function of the arguments (math, conversions, half precision), or -- for the names the
#: oracles treat as impure (``__shfl*``, votes, ``clock``) -- a fresh value per call.  A
#: bodiless function of any other header that no model above claims is an error (issue 28,
#: item 1: a call is never ignored; a barrier-like call hidden there would be unsound).
VALUE_HEADERS = {"__autosync_math.h": "math", "__autosync_warp.h": "warp intrinsic",
                 "cuda_fp16.h": "half precision", "cuda_bf16.h": "half precision",
                 "assert.h": "assert", "__autosync_opencl_c_math.h": "math",
                 "__autosync_opencl_c_images.h": "image read"}
#: the family each of our other headers declares (for the error naming an unmodelled call)
HEADER_FAMILY = {"__autosync_cuda.h": "CUDA intrinsic", "__autosync_atomics.h": "atomic",
                 "__autosync_textures.h": "texture", "__autosync_runtime.h": "CUDA runtime",
                 "cooperative_groups.h": "cooperative groups", "curand_kernel.h": "curand",
                 "__autosync_gpuverify.h": "GPUVerify annotation",
                 "__autosync_opencl.h": "OpenCL built-in", "__autosync_opencl_c.h": "OpenCL built-in",
                 "__autosync_opencl_c_atomics.h": "atomic",
                 "__autosync_opencl_c_async.h": "asynchronous copy",
                 "__autosync_opencl_c_gpuverify.h": "GPUVerify annotation",
                 "__autosync_opencl_c_image_writes.h": "image write"}
#: built-ins with no effect a race or a barrier can observe: ``__brkpt()`` (a debugger
#: breakpoint), ``__trap()`` (aborts the kernel: taken as going on, which only adds
#: behaviours -- later accesses are still checked, so no race is hidden)
NO_EFFECT = {"__brkpt", "__trap"}


def atomic_name(name: str) -> str | None:
    """``atomicAdd_block`` → ``atomicAdd``: the scope suffix does not change the model."""
    for suffix in ("_block", "_system"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    return name if name in ATOMIC_OPS else None


class CallsTranslation(BodilessTranslation):
    """Calls in statement position (:meth:`call_statement`) and as values."""

    # ------------------------------------------------------------------ callee

    def callee(self, node: Node) -> tuple[Node | None, Node | None]:
        """(function declaration, object expression of a method call) of a call node."""
        k = tree.kind(node)
        first = tree.children(node)[0] if tree.children(node) else None
        if k == "CXXMemberCallExpr" and first is not None:
            member = peel(first)
            func = self.index.function(member.get("referencedMemberDecl"))
            obj = tree.children(member)[0] if tree.children(member) else None
            self._refuse_virtual(node, func)
            return func, obj
        if first is None:
            return None, None
        target = peel(first)
        ref = target.get("referencedDecl") or {}
        if tree.kind(target) == "DeclRefExpr" and ref.get("kind") in (
                "FunctionDecl", "CXXMethodDecl", "CXXConversionDecl"):
            func = self.index.function(ref.get("id"))
            if func is not None:  # the file's own definition of a built-in's signature wins
                func = user_override(self.unit, func) or func
            if k == "CXXOperatorCallExpr" and func is not None and tree.kind(func) == "CXXMethodDecl":
                self._refuse_virtual(node, func)
                return func, tree.children(node)[1]
            return func, None
        if tree.kind(target) == "MemberExpr":  # a static method called through `obj.f()`
            return self.index.function(target.get("referencedMemberDecl")), None
        return None, None

    def _refuse_virtual(self, node: Node, func: Node | None) -> None:
        """A method of a class with virtual methods: which body runs is decided at run time
        (an override may access other memory), so the call is refused, never guessed."""
        if func is None:
            return
        record = self.index.record_of(func)
        if func.get("virtual") or (record or {}).get("definitionData", {}).get("isPolymorphic"):
            raise self.error(f"unsupported: call of '{self.function_name(func)}', a method "
                             "of a class with virtual methods (dispatched at run time)", node)

    def arguments(self, node: Node, func: Node | None) -> list[Node]:
        if tree.kind(node) in ("CXXConstructExpr", "CXXTemporaryObjectExpr"):
            return tree.children(node)
        args = tree.children(node)[1:]
        if tree.kind(node) == "CXXOperatorCallExpr" and func is not None \
                and tree.kind(func) == "CXXMethodDecl":
            args = args[1:]
        return args

    def function_name(self, func: Node) -> str:
        return str(func.get("name", ""))

    def function_pointer_call(self, node: Node, var: K.Var, scope: Scope,
                              pre: list[K.Stmt]) -> K.Expr:
        """A call through a function pointer (an int holding a function's number, 0 is NULL):
        ``if (p == n_f) f(...) else if ...`` over every device function whose address the file
        takes and that has as many parameters: the same accesses as the call, under the
        condition that selects them; the oracle prunes the arms no execution takes.  A value
        naming none of them (NULL, a number cast to a function pointer, an unconstrained
        parameter; any value where the file takes no such function's address) fails an
        ``Assert`` of kind ``funcptr``: the call is undefined."""
        nargs = len(tree.children(node)) - 1
        targets = [f for f in self.address_taken()
                   if len(tree.params_of(self.index.by_id[f])) == nargs]
        unknown = self.bodiless_target(nargs)
        if unknown is not None:
            raise self.error(f"unsupported: call through a function pointer that may name "
                             f"'{unknown}', which has no body here", node)
        ret_type = self._return_type(node, node)
        result = None if ret_type.kind == "void" else self.temp(ret_type, "fp")
        if result is not None:
            pre.append(K.Decl(result, None, label=self.label(), placeable=False, synthetic=True))
        # calling NULL (or any value that names none of the targets) is undefined: a finding
        named: K.Expr = K.Const(False, K.BOOL)
        for fid in targets:
            test = K.Binary("==", var, K.Const(self.function_number(fid)), K.BOOL)
            named = test if isinstance(named, K.Const) else K.Binary("||", named, test, K.BOOL)
        pre.append(K.Assert(named, kind="funcptr", label=self.label(), span=self.span_of(node),
                            placeable=False, synthetic=True))
        chain: list[K.Stmt] = []  # no target at all: the call never names a function
        for fid in reversed(targets):
            label = self.label()
            arm = self.inline_call(node, self.index.by_id[fid], None, scope)
            inline = arm[-1]
            assert isinstance(inline, K.Inline)
            if result is not None and inline.result is not None:
                arm.append(K.Assign(result, self.convert(inline.result, ret_type),
                                    label=self.label(), placeable=False, synthetic=True))
            for stmt in arm:
                stmt.placeable = False
                stmt.span = stmt.span or self.span_of(node)
            then = K.Block(arm, label, self.label(), K.BlockSource(), placeable_start=False)
            els = K.Block(chain, self.label(), self.label(), K.BlockSource(),
                          placeable_start=False) if chain else None
            cond = K.Binary("==", var, K.Const(self.function_number(fid)), K.BOOL)
            chain = [K.If(cond, then, els, label=label, placeable=False, synthetic=True)]
        pre.extend(chain)
        return result if result is not None else K.Const(0)

    def is_trivial_assignment(self, func: Node) -> bool:
        """The copy/move assignment clang defines for a struct: a whole-value store."""
        return func.get("name") == "operator=" and bool(func.get("isImplicit") or func.get("explicitlyDefaulted"))

    def as_assignment(self, node: Node) -> Node:
        """``a = b`` through an implicit ``operator=`` as a plain assignment node."""
        args = tree.children(node)[1:]
        return {**node, "kind": "BinaryOperator", "opcode": "=", "inner": args[:2]}

    # ------------------------------------------------------------------ statements

    def call_statement(self, node: Node, scope: Scope) -> list[K.Stmt] | None:
        """A call in statement position that is a statement of its own kind (a barrier), or
        None (evaluate it for its effects)."""
        func, _obj = self.callee(node)
        if func is not None:
            self.prelude_note(func, node)
        if func is None or tree.body_of(func) is not None:
            return None
        name = self.function_name(func)
        args = self.arguments(node, func)
        if self.is_annotation_call(func, name):
            checked = self.annotation_stmt(node, name, args, scope)
            return checked if checked is not None else [K.Annotation(name, label=self.label())]
        if not self.is_bundled(func):
            return None
        own = self.library_statement(node, func, name, args, scope)
        if own is not None:
            return own
        if name in BARRIERS:  # the predicate of __syncthreads_or(p) & co. is read before it
            reads = [st for a in args if tree.kind(a) != "CXXDefaultArgExpr" for st in self.effects(a, scope)]
            return reads + [K.Barrier(spelling=self._barrier_spelling(node, name), label=self.label())]
        if name == "__syncwarp":
            return [self._syncwarp(node, args, scope)]
        if name in FENCES:
            return []
        return None

    def predicate_barrier(self, node: Node, name: str, args: list[Node], scope: Scope,
                          pre: list[K.Stmt]) -> K.Expr:
        """``v = __syncthreads_or(p)`` (``_and``, ``_count``): ``p`` is read, then the block
        synchronizes, then every thread gets the same result (:meth:`collective_result`)."""
        operands = [self.expr(args[0], scope, pre)] if args else []
        return self.collective_result(node, name, operands, pre)

    def _syncwarp(self, node: Node, args: list[Node], scope: Scope) -> K.Stmt:
        """``__syncwarp()`` / ``__syncwarp(0xffffffff)``: a warp barrier over all 32 lanes.  Any
        other mask is ``SYNCWARP_MASKED`` (the oracles answer "unknown" for it)."""
        kind = BarrierKind.SYNCWARP
        if args and tree.kind(args[0]) != "CXXDefaultArgExpr":
            pre: list[K.Stmt] = []
            mask = self.expr(args[0], scope, pre)
            folded = self.fold(mask) if not pre else None
            if not (isinstance(folded, int) and folded & 0xFFFFFFFF == 0xFFFFFFFF):
                kind = BarrierKind.SYNCWARP_MASKED
        return K.Barrier(spelling=self._barrier_spelling(node, "__syncwarp"), kind=kind,
                         label=self.label())

    def _barrier_spelling(self, node: Node, name: str) -> str:
        span = self.span_of(node)
        if span is not None and span.start >= 0 and span.end > span.start:
            text = self.source.text[span.start:span.end].rstrip(";").strip()
            if text:
                return text
        return name + "()"

    # ------------------------------------------------------------------ values

    def expr_CallExpr(self, node: Node, scope: Scope, pre: list[K.Stmt]) -> K.Expr:
        func, obj = self.callee(node)
        if func is not None:
            self.prelude_note(func, node)
        if func is None:
            target = peel(tree.children(node)[0]) if tree.children(node) else {}
            while tree.kind(target) == "UnaryOperator" and target.get("opcode") == "*":
                target = peel(tree.children(target)[0])  # (*op)(a, b)
            ident = decl_id(target)
            var = scope.lookup(ident) if ident else None
            if isinstance(var, K.Var):
                return self.function_pointer_call(node, var, scope, pre)
            called = str((target.get("referencedDecl") or {}).get("name", ""))
            if tree.kind(target) == "DeclRefExpr" and called.startswith("__builtin_"):
                raise self.error(f"unsupported: compiler built-in '{called}'", node)
            raise self.error("unsupported: call through a function pointer whose target is not "
                             "known statically", node)
        name = self.function_name(func)
        if self.is_trivial_assignment(func):
            pre.extend(self.assignment(self.as_assignment(node), scope))
            return self.expr(tree.children(node)[1], scope, pre)
        if func.get("constexpr") and obj is None and self.type_of(node).kind in ("int", "bool"):
            folded = ConstEval(self.index).value(node)  # a constant: no code to verify
            if folded is not None:
                return K.Const(folded, self.type_of(node))
        if tree.body_of(func) is not None:
            stmts = self.inline_call(node, func, obj, scope)
            pre.extend(stmts)
            inline = stmts[-1]
            assert isinstance(inline, K.Inline)
            if inline.result is None:
                return K.Const(0)
            return inline.result
        if self.is_annotation_call(func, name):
            return self.annotation_value(node, name, self.arguments(node, func), scope, pre)
        if name in MEMORY_FUNCTIONS and func.get("isImplicit"):  # clang's __builtin_memcpy & co.
            return self.memory_function(node, name, self.arguments(node, func), scope, pre)
        if not self.is_bundled(func) and self.unit.gpuverify_style:
            return self.arbitrary_call(node, func, name, scope, pre)
        if not self.is_bundled(func):
            raise self.error(f"call to '{name}', which has no body here and no model: AutoSync "
                             "cannot tell what it does (define it in a file the kernel includes)",
                             node)
        return self.model(node, func, name, scope, pre)

    expr_CXXMemberCallExpr = expr_CallExpr
    expr_CXXOperatorCallExpr = expr_CallExpr

    def model(self, node: Node, func: Node, name: str, scope: Scope, pre: list[K.Stmt]) -> K.Expr:
        """A built-in of our headers (module docstring)."""
        args = self.arguments(node, func)
        if name in PREDICATE_BARRIERS:
            return self.predicate_barrier(node, name, args, scope, pre)
        if name in BARRIERS or name == "__syncwarp":
            raise self.error(f"'{name}()' must be a statement of its own", node)
        if name in FENCES:
            return K.Const(0)
        if name in MEMORY_FUNCTIONS:
            return self.memory_function(node, name, args, scope, pre)
        own = self.library_value(node, func, name, args, scope, pre)
        if own is not None:
            return own
        op = atomic_name(name)
        if op is not None:
            binding = self.pointer(args[0], scope) if args else None
            if binding is None:
                raise self.error(f"unsupported: the address given to '{name}' does not point "
                                 "into a known array", node)
            rest = tuple(self.expr(a, scope, pre) for a in args[1:])
            self.check_writable(self.location(binding.mem, binding.offset), node)
            return self.atomic(op, binding, rest)
        if name.startswith("make_"):
            typ = vector_type(name[len("make_"):])
            if typ is not None:
                parts = tuple(self.convert(self.expr(a, scope, pre), typ.elem or K.FLOAT)
                              for a in args)
                return K.VecInit(typ, parts)
        if name in TEXTURE_FETCHES:
            return self.texture_fetch(node, name, args, scope, pre)
        if name in ("printf", "__assertfail"):
            for a in args:
                if not self._is_pointerish(a):
                    pre.extend(self.effects(a, scope))
            return K.Const(0)
        if name in NO_EFFECT:
            return K.Const(0)
        header = self.bundled_header(func) or ""
        if header not in VALUE_HEADERS and name not in IMPURE:
            family = HEADER_FAMILY.get(header, "built-in")
            raise self.error(f"unsupported: call to '{name}' ({family}), which AutoSync does not "
                             "model", node)
        values = tuple(self.expr(a, scope, pre) for a in args if not self._is_pointerish(a))
        if len(values) != len(args):
            raise self.error(f"unsupported: '{name}' with a pointer argument", node)
        typ = self.type_of(node)
        if self.unit.language == "opencl" and typ.kind == "vec":
            return self.opencl_elementwise(name, values, typ) or K.Call(name, values, typ)
        return K.Call(name, values, typ)

    def texture_fetch(self, node: Node, name: str, args: list[Node], scope: Scope,
                      pre: list[K.Stmt]) -> K.Expr:
        """A texture read: read-only memory, so it never races; any value."""
        coords = tuple(self.expr(a, scope, pre) for a in args[1:])
        ref = args[0] if args else None
        while ref is not None and tree.kind(ref) == "CXXConstructExpr" \
                and len(tree.children(ref)) == 1:
            ref = tree.children(ref)[0]  # the texture reference, copied into the parameter
        ident = decl_id(ref) if ref is not None else None
        found = scope.lookup(ident) if ident else None
        if isinstance(found, K.Memory):
            return self.load(found, K.Call("__texel", coords, K.INT))
        return K.Call(name, coords, self.type_of(node))

    # ------------------------------------------------------------------ inlining

    def inline_call(self, node: Node, func: Node, obj: Node | None, scope: Scope, *,
                    constructing: ObjectBinding | PointerBinding | K.Var | None = None) -> list[K.Stmt]:
        """Inline a function with a body at its call site (DESIGN: procedures are inlined;
        the paper does not support them at all)."""
        fid = str(func.get("id"))
        name = self.function_name(func)
        if fid in self.call_stack:
            raise self.error(f"recursion is not supported: '{name}' calls itself", node)
        out: list[K.Stmt] = []
        args = self.arguments(node, func)
        params = tree.params_of(func)
        if len(args) != len(params) and not any(tree.kind(a) == "CXXDefaultArgExpr" for a in args):
            if len(args) > len(params) and str(tree.written_type(func)).rstrip(")").endswith("..."):
                args = args[: len(params)]
            else:
                raise self.error(f"call to '{name}' with {len(args)} arguments, expected "
                                 f"{len(params)}", node)
        inner = Scope(scope if self._is_lambda(func) else self.unit.globals)
        binds: list[K.Stmt] = []
        this: PointerBinding | K.Var | Alias | ObjectBinding | None = constructing
        if obj is not None:
            this = self._object(obj, scope, out)
        for param, arg in zip(params, args, strict=False):
            if tree.kind(arg) == "CXXDefaultArgExpr" and not tree.children(arg):
                default = initializer(param)
                if default is None:
                    raise self.error(f"missing argument for '{param.get('name')}' of '{name}'", node)
                arg = default
            ptext = tree.qual_type(param)
            pid = str(param["id"])
            if ptext.rstrip().endswith("&") or ptext.rstrip().endswith("&&"):
                inner.names[pid] = self.reference(arg, scope, out)
                continue
            record = self.object_record(param) if not ptext.rstrip().endswith("*") else None
            if record is not None and self.is_aggregate_init(arg, record):  # a struct holding pointers, by value: a copy of the object
                inner.names[pid] = self.aggregate_object(arg, record, scope, binds)
                continue
            if self.types.is_function_pointer(ptext):
                ptype = K.INT
            else:
                ptype = self.ctype(ptext, param)
            if ptype.kind == "ptr" and self.local_pointer(arg, scope) is not None:
                inner.names[pid] = self.local_pointer(arg, scope)  # type: ignore[assignment]
            elif ptype.kind == "ptr" and ptype.elem is not None and ptype.elem.kind == "ptr" and \
                    self.pointer_ref(arg, scope) is not None:
                inner.names[pid] = self.pointer_ref(arg, scope)  # type: ignore[assignment]
            elif ptype.kind == "ptr" and (pid in self.points_to.dynamic or self.is_null(arg)
                                          or self.is_value(arg, scope)):
                pointed = self.pvalue(arg, scope, out, ptype.elem)
                if pointed is None:
                    raise self.error(f"unsupported: argument for pointer parameter "
                                     f"'{param.get('name', '?')}' of '{name}' does not point into "
                                     "a known array", node)
                self.pointer_depth[pid] = self.control_depth
                inner.names[pid] = self.new_dyn(pid, str(param.get("name", "p")), ptype.elem or K.VOID,
                                                pointed, binds)
            elif ptype.kind == "ptr":
                self.pointer_depth[pid] = self.control_depth
                pname = str(param.get("name", "?"))
                held = scope.lookup(decl_id(arg) or "") if tree.kind(peel(arg)) == "DeclRefExpr" else None
                if isinstance(held, UnknownPointer):  # passed on: still refused where it is used
                    inner.names[pid] = UnknownPointer(pname, held.why)
                    continue
                binding = self.pointer(arg, scope)
                if binding is None:  # refused where it is used: the function may not use it
                    self.hold_in_memory(arg, scope=scope)
                    inner.names[pid] = UnknownPointer(pname, f"{self.unbounded(arg)} (the "
                                                             f"argument of '{name}' for it)")
                    continue
                inner.names[pid] = binding
            elif has_array_member(ptype):  # a struct holding arrays: a cell of local memory
                value = self.expr(arg, scope, out)
                mem = K.Memory(self.unique(f"{name}.{param.get('name', 'arg')}"), K.Space.LOCAL,
                               ptype, (1,))
                self.memories[mem.name] = mem
                inner.names[pid] = ScalarMemory(mem)
                binds.append(K.Decl(K.Var(mem.name, K.CType("ptr", 64, False, "pointer", ptype)), None,
                                    array=mem, label=self.label(), placeable=False, synthetic=True))
                binds.append(K.Assign(self.location(mem, K.Const(0)), value, label=self.label(),
                                      placeable=False, synthetic=True))
            else:
                value = self.convert(self.expr(arg, scope, out), ptype)
                var = K.Var(self.unique(f"{name}.{param.get('name', 'arg')}"), ptype)
                inner.names[pid] = var
                binds.append(K.Decl(var, value, label=self.label(), placeable=False,
                                    synthetic=True))
        ret_text = tree.written_type(func).split("(")[0].strip()
        ret_type = self._return_type(node, func)
        result = None
        if self.pointer_results and ret_type.kind == "ptr":
            ret_type = K.VOID
        if ret_type.kind != "void" and not ret_text.endswith("&"):
            result = K.Var(self.unique(f"{name}.ret"), ret_type)
        label = self.label()
        self.call_stack.append(fid)
        self.inline_depth += 1
        self.result_vars.append(result)
        self.this_stack.append(this)
        saved_func, saved_gotos, saved_site = self.current_func, self.goto_targets, self.bundled_call
        self.current_func, self.goto_targets = name, []
        if saved_site is None and self.is_bundled(func):
            self.bundled_call = node
        self.enter_function(func)
        try:
            if constructing is not None:
                self.initialise_members(func, constructing, inner, binds)
            body = self.block(tree.body_of(func), inner)
            self.leave_function(body)
        finally:
            self.current_func, self.goto_targets, self.bundled_call = saved_func, saved_gotos, saved_site
            self.this_stack.pop()
            self.result_vars.pop()
            self.inline_depth -= 1
            self.call_stack.pop()
        body.label = label
        if result is not None:
            binds.insert(0, K.Decl(result, None, label=self.label(), placeable=False,
                                   synthetic=True))
        call_span = self.span_of(node)
        for bind in binds:  # the argument reads happen at the call
            bind.span = bind.span or call_span
        body.stmts[:0] = binds
        body.placeable_start = False
        out.append(K.Inline(name, body, result, label=label))
        return out

    def pointer_call(self, node: Node, scope: Scope) -> PointerBinding | None:
        """The pointer a call to a function with a body returns, when its body does nothing
        but return it (``SharedMemory<T>()`` returning an ``extern __shared__`` array, a
        conversion operator ``operator T *()``): the binding of its ``return``."""
        func, obj = self.callee(node)
        if func is None or tree.body_of(func) is None:
            return None
        slot = PointerResult()
        stmts = self._inline_into(slot, node, func, obj, scope)
        inline = stmts[-1]
        setup_reads = any(not isinstance(st, K.Decl) or (st.init is not None and any(
            isinstance(e, (K.Load, K.Atomic, K.Call)) for e in K.walk_expr(st.init))) for st in stmts[:-1])
        if setup_reads or not isinstance(inline, K.Inline) or any(
                not isinstance(st, (K.Decl, K.Return)) or (isinstance(st, K.Decl) and st.init is not None)
                for st in K.walk_stmts(inline.body)) or slot.binding is None:
            raise self.error(f"unsupported: the pointer '{self.function_name(func)}' returns "
                             "depends on what its body does", node)
        return slot.binding

    def _inline_into(self, slot: PointerResult | ReferenceResult, node: Node, func: Node,
                     obj: Node | None, scope: Scope) -> list[K.Stmt]:
        """Inline ``func`` with its ``return`` writing what it returns into ``slot``."""
        saved = self.result_vars
        self.result_vars = [*saved, None]
        self.pointer_results.append(slot)
        try:
            return self.inline_call(node, func, obj, scope)
        finally:
            self.pointer_results.pop()
            self.result_vars = saved

    def call_lvalue(self, node: Node, scope: Scope, pre: list[K.Stmt]) -> K.LValue:
        """The object a call returning a reference designates (``packed[k] = x`` through
        ``T &operator[](int)``): the function is inlined and its ``return`` names it."""
        func, obj = self.callee(node)
        if func is None or tree.body_of(func) is None:
            raise self.error("unsupported: assignment through a call with no body", node)
        slot = ReferenceResult()
        stmts = self._inline_into(slot, node, func, obj, scope)
        target = slot.binding
        if slot.returns != 1 or target is None:
            raise self.error(f"unsupported: '{self.function_name(func)}' returns a reference "
                             "from more than one place", node)
        pre.extend(stmts)
        if isinstance(target, K.Var):
            return target
        if isinstance(target, Alias):
            return target.target
        if isinstance(target, ScalarMemory):
            return self.location(target.mem, K.Const(0))
        raise self.error(f"unsupported: the reference '{self.function_name(func)}' returns", node)

    def _return_type(self, node: Node, func: Node) -> K.CType:
        text = tree.qual_type(node)
        if text == "void":
            return K.VOID
        return self.ctype(text, node)

    def _is_lambda(self, func: Node) -> bool:
        parent = self.index.parent.get(str(func.get("id")))
        return func.get("name") == "operator()" and (parent is None or parent.get("isLambda")
                                                     or not parent.get("name"))

    def _object(self, obj: Node, scope: Scope,
                pre: list[K.Stmt]) -> PointerBinding | K.Var | Alias | ObjectBinding | None:
        """What ``this`` is for a method called on ``obj``."""
        inner = peel(obj)
        while tree.kind(inner) == "CXXFunctionalCastExpr" and inner.get("castKind") == "ConstructorConversion":
            inner = peel(tree.children(inner)[0])  # `Reduce(storage)`: a constructor call
        if tree.kind(inner) == "CXXThisExpr":
            return self.this_stack[-1] if self.this_stack else None
        if tree.kind(inner) in ("CXXConstructExpr", "CXXTemporaryObjectExpr"):
            record = self.object_record(inner)
            if record is not None:
                return self.construct_object(inner, record, scope, pre)
        if self._is_pointerish(inner) and tree.qual_type(inner).rstrip().endswith("*"):
            return self.pointer(inner, scope)
        if tree.kind(inner) in ("DeclRefExpr", "ArraySubscriptExpr", "MemberExpr") or (
                tree.kind(inner) == "UnaryOperator" and inner.get("opcode") == "*"):
            bound = self.reference(inner, scope, pre)
            if isinstance(bound, (K.Var, Alias, PointerBinding, ObjectBinding)):
                return bound
            if isinstance(bound, ScalarMemory):  # an object in memory: `this` points at it
                return PointerBinding(bound.mem, K.Const(0))
            return None
        value = self.expr(inner, scope, pre)
        tmp = self.temp(value.type, "obj")
        pre.append(K.Decl(tmp, value, label=self.label(), placeable=False, synthetic=True))
        return tmp
