"""CUDA's device libraries beyond the prelude: cooperative groups, curand, half precision.

Our headers (``kpl/frontend/include``) declare these WITHOUT bodies; this mixin says what each call
does, as the old front end did (:mod:`kpl.lower_coop`, ``kpl.fe.calls.curand``):

* cooperative groups: a block's ``sync()`` (also ``cg::sync(b)``, ``cg::synchronize(b)``) is
  ``__syncthreads()``; a grid's is a barrier of kind ``GRID``; a 32-thread tile's is
  ``__syncwarp()``, any other tile's ``SYNCWARP_MASKED`` (the oracles answer "unknown").
  ``thread_rank()``, ``size()``, ``meta_group_rank()``, ... are exact expressions of
  ``threadIdx``/``blockDim``/``blockIdx``/``gridDim`` (races depend on them), a tile's
  shuffles and votes the warp intrinsics (a fresh value per call, ``__shfl``...),
  ``cg::reduce`` a fresh value per call (``__reduce...``).  A ``thread_group`` (a tile whose
  size is a run-time value) carries its size in a field; its ``sync()`` needs the size known
  statically (the group's declaration), else it is an error.  ``memcpy_async`` is an error.
* curand: ``curand_init`` writes the generator state; a draw reads the state and writes it
  back advanced, and returns a fresh value (the oracles treat ``curand*`` as impure).  An
  MTGP32 state serves a block: each thread draws through its own word of it.
* a member function of ``__half``/``__nv_bfloat16`` (a conversion) is a pure function of the
  object and its arguments.

Any other bodiless member of our headers is an error: a call is never silently ignored.

Why one piece of this size: the models of one family of bundled headers (cooperative
groups, curand, half), each a few lines, dispatched by one qualified-name table.
"""

from __future__ import annotations

import re

from kpl import ast as K
from kpl.ctypes import sizeof
from kpl.frontend import tree
from kpl.frontend.access import decl_id, peel
from kpl.frontend.dims import add as _add
from kpl.frontend.dims import block_threads, grid_blocks, linear_block, linear_thread
from kpl.frontend.dims import builtin_dim as _b
from kpl.frontend.dims import mul as _mul
from kpl.frontend.opencl_builtins import OpenCLTranslation
from kpl.frontend.state import Alias, PointerBinding, Scope
from kpl.frontend.tree import Node
from kpl.placement import BarrierKind

CG = "cooperative_groups::"
_TILE = re.compile(r"thread_block_tile<\s*(\d+)")
#: value-type records of our headers whose bodiless members are pure functions of the object
_VALUE_RECORDS = {"__half", "__half2", "__nv_bfloat16", "__nv_bfloat162"}
#: the shuffles and votes of a tile / coalesced group: the warp intrinsic each one is
_WARP_OPS = {"shfl": "__shfl_sync", "shfl_down": "__shfl_down_sync", "shfl_up": "__shfl_up_sync",
             "shfl_xor": "__shfl_xor_sync", "any": "__any_sync", "all": "__all_sync",
             "ballot": "__ballot_sync"}
_REDUCE_OPS = {"plus": "add", "less": "min", "greater": "max", "bit_and": "and",
               "bit_or": "or", "bit_xor": "xor"}
_FULL = 0xFFFFFFFF
#: the MTGP32 generator's state type, and how many threads of a block may share one state
_MTGP32 = ("curandStateMtgp32", "curandStateMtgp32_t")
_MTGP32_THREADS = 256


class Group:
    """What a cooperative group is, statically: ``kind`` is block, grid, tile, coalesced or
    group (a ``thread_group``); ``size`` the tile size when known."""

    def __init__(self, kind: str, size: int | None = None) -> None:
        self.kind = kind
        self.size = size


class LibraryTranslation(OpenCLTranslation):
    """Models of library functions declared without a body in our headers."""

    # ------------------------------------------------------------------ from kpl.frontend.calls

    def callee(self, node: Node) -> tuple[Node | None, Node | None]:
        raise NotImplementedError

    def arguments(self, node: Node, func: Node | None) -> list[Node]:
        raise NotImplementedError

    def _barrier_spelling(self, node: Node, name: str) -> str:
        raise NotImplementedError

    # ------------------------------------------------------------------ hooks

    def library_statement(self, node: Node, func: Node, name: str, args: list[Node],
                          scope: Scope) -> list[K.Stmt] | None:
        """A library call that is a statement of its own kind (a group's ``sync()``), or None."""
        if self.unit.language == "opencl":
            return self.opencl_statement(node, name, args, scope)
        qual = self.index.qualified_name(func)
        if not qual.startswith(CG):
            return None
        if name == "sync" and tree.kind(func) == "CXXMethodDecl":
            _func, obj = self.callee(node)
            if obj is None:
                raise self.error(f"unsupported: '{qual}' without its group", node)
            return [self.group_barrier(node, obj, scope)]
        if qual in (CG + "sync", CG + "synchronize"):
            if not args:
                raise self.error(f"'{name}' needs a group", node)
            return [self.group_barrier(node, args[0], scope)]
        if name in ("memcpy_async", "wait", "wait_prior"):
            raise self.error(f"unsupported: cooperative_groups::{name} (an asynchronous group "
                             "copy is not modelled)", node)
        return None

    def library_value(self, node: Node, func: Node, name: str, args: list[Node], scope: Scope,
                      pre: list[K.Stmt]) -> K.Expr | None:
        """The value of a library call with a model of its own (curand draws), or None."""
        if self.unit.language == "opencl":
            return self.opencl_value(node, name, args, scope, pre)
        qual = self.index.qualified_name(func)
        if qual.startswith(CG):
            return self.cg_value(node, func, qual, name, args, scope, pre)
        if name.startswith("curand"):
            return self.curand(node, name, args, scope, pre)
        if tree.kind(func) in ("CXXMethodDecl", "CXXConversionDecl", "CXXConstructorDecl"):
            record = self.index.record_of(func)
            if record is not None and record.get("name") in _VALUE_RECORDS:
                _func, obj = self.callee(node)
                values = [] if obj is None else [self.expr(obj, scope, pre)]
                values += [self.expr(a, scope, pre) for a in args]
                return K.Call(qual, tuple(values), self.type_of(node))
            raise self.error(f"unsupported: '{qual}' (no model for this member function)", node)
        return None

    # ------------------------------------------------------------------ cooperative groups

    def group_of(self, obj: Node) -> Group:
        """The group an expression of a cooperative-groups type stands for."""
        text = tree.qual_type(peel(obj))
        m = _TILE.search(text)
        if m is not None:
            return Group("tile", int(m.group(1)))
        base = re.sub(r"\b(const|volatile)\b|[&*]", "", text).strip().split("::")[-1]
        kinds = {"thread_block": "block", "grid_group": "grid", "coalesced_group": "coalesced",
                 "thread_group": "group"}
        if base not in kinds:
            raise self.error(f"unsupported: cooperative group of type '{text}'", obj)
        return Group(kinds[base])

    def group_barrier(self, node: Node, obj: Node, scope: Scope) -> K.Stmt:
        """``g.sync()`` / ``cg::sync(g)``: the barrier the group's kind stands for."""
        group = self.group_of(obj)
        spelling = self._barrier_spelling(node, "sync")
        if group.kind == "group":
            group = self.static_group(obj)
        if group.kind == "block":
            return K.Barrier(spelling=spelling, label=self.label())
        if group.kind == "grid":
            return K.Barrier(spelling=spelling, kind=BarrierKind.GRID, label=self.label())
        if group.kind == "tile" and group.size == 32:
            return K.Barrier(spelling=spelling, kind=BarrierKind.SYNCWARP, label=self.label())
        # a tile narrower (or wider) than a warp, or the lanes that happen to be active: a
        # barrier over some threads only, which the oracles answer "unknown" for
        return K.Barrier(spelling=spelling, kind=BarrierKind.SYNCWARP_MASKED, label=self.label())

    def static_group(self, obj: Node) -> Group:
        """A ``thread_group``'s kind and size from its declaration: ``thread_group g =
        tiled_partition(parent, 4)`` or ``= this_thread_block()`` (never reassigned)."""
        found = self._group_origin(obj)
        if found is not None:
            return found
        raise self.error("unsupported: sync() of a thread_group whose size is not known "
                         "statically (declare it as thread_block or thread_block_tile<N>)", obj)

    def _origin_call(self, obj: Node) -> Node | None:
        """The call of our headers that initialised the group variable ``obj`` names (a local
        never reassigned), or None."""
        ident = decl_id(obj)
        decl = self._local_decl(ident) if ident else None
        if decl is None or not decl.get("init") or not tree.children(decl) or \
                self._reassigned(ident or ""):
            return None
        value = peel(tree.children(decl)[-1])
        while tree.kind(value) == "CXXConstructExpr" and len(tree.children(value)) == 1:
            value = peel(tree.children(value)[0])
        if tree.kind(value) not in ("CallExpr", "CXXMemberCallExpr"):
            return None
        func, _obj = self.callee(value)
        if func is None or not self.is_bundled(func):
            return None
        return value

    def _group_origin(self, obj: Node) -> Group | None:
        value = self._origin_call(obj)
        if value is None:
            return None
        func, inner = self.callee(value)
        assert func is not None
        if tree.kind(func) == "CXXConversionDecl" and inner is not None:
            group = self.group_of(inner)
            return group if group.kind in ("block", "tile") else None
        args = self.arguments(value, func)
        if self.index.qualified_name(func) == CG + "tiled_partition" and len(args) == 2 \
                and not self._has_decl_refs(args[1]):
            size = self.fold(self.expr_pure(args[1], self.unit.globals))
            if isinstance(size, int) and size > 0:
                return Group("tile", size)
        return None

    def _tile_parent(self, obj: Node) -> Group | None:
        """The parent group of the tile variable ``obj`` (``tiled_partition<N>(parent)``)."""
        value = self._origin_call(obj)
        if value is None:
            return None
        func, _inner = self.callee(value)
        assert func is not None
        args = self.arguments(value, func)
        if self.index.qualified_name(func) != CG + "tiled_partition" or len(args) != 1:
            return None
        return self.group_of(args[0])

    def _has_decl_refs(self, node: Node) -> bool:
        return any(tree.kind(n) == "DeclRefExpr" and (n.get("referencedDecl") or {}).get("kind")
                   in ("VarDecl", "ParmVarDecl") and not self._is_const_decl(n) for n in tree.walk(node))

    def _is_const_decl(self, ref: Node) -> bool:
        decl = self.index.get((ref.get("referencedDecl") or {}).get("id"))
        return decl is not None and decl.get("constexpr") is True

    def _function_bodies(self) -> list[Node]:
        bodies = []
        for fid in self.call_stack:
            func = self.index.function(fid) or (self.func if fid == str(self.func.get("id")) else None)
            body = tree.body_of(func) if func is not None else None
            if body is not None:
                bodies.append(body)
        return bodies

    def _local_decl(self, ident: str) -> Node | None:
        for body in self._function_bodies():
            for n in tree.walk(body):
                if n.get("id") == ident and tree.kind(n) == "VarDecl":
                    return n
        return None

    def _reassigned(self, ident: str) -> bool:
        for body in self._function_bodies():
            for n in tree.walk(body):
                k = tree.kind(n)
                if (k == "BinaryOperator" and n.get("opcode") == "=") or (
                        k == "CXXOperatorCallExpr" and len(tree.children(n)) > 1
                        and "operator=" in str((peel(tree.children(n)[0]).get("referencedDecl")
                                                or {}).get("name", ""))):
                    target = tree.children(n)[0] if k == "BinaryOperator" else tree.children(n)[1]
                    if decl_id(target) == ident:
                        return True
        return False

    def _field(self, obj: Node, name: str, scope: Scope, pre: list[K.Stmt]) -> K.Expr:
        """Field ``name`` of a group object (a local struct value)."""
        bound = self.reference(obj, scope, pre)
        if isinstance(bound, Alias):
            bound = bound.target  # type: ignore[assignment]
        if isinstance(bound, K.Var):
            return K.Field(bound, name, K.UINT)
        if isinstance(bound, K.MemElem) and bound.field is None and bound.view is None:
            return K.Load(bound.mem, bound.index, K.UINT, name)
        raise self.error("unsupported: a cooperative group that is not a local variable", obj)

    def cg_value(self, node: Node, func: Node, qual: str, name: str, args: list[Node],
                 scope: Scope, pre: list[K.Stmt]) -> K.Expr:
        typ = self.type_of(node) if tree.qual_type(node) != "void" else K.VOID
        if tree.kind(func) in ("CXXMethodDecl", "CXXConversionDecl"):
            _func, obj = self.callee(node)
            if obj is None:
                raise self.error(f"unsupported: '{qual}' without its group", node)
            value = self.group_method(node, obj, name, args, typ, scope, pre)
            if value is None:
                raise self.error(f"unsupported: cooperative group method '{qual}'", node)
            return self.convert(value, typ) if typ.kind in ("int", "float") else value
        if name == "sync" or name == "synchronize":
            raise self.error(f"'{qual}' must be a statement of its own", node)
        if name == "this_thread_block":
            return K.VecInit(typ, (block_threads(),))
        if name == "this_grid":
            return K.VecInit(typ, (K.Cast(K.ULONG, _mul(grid_blocks(), block_threads())),))
        if name == "coalesced_threads":
            return K.VecInit(typ, (K.Call("__popc", (K.Call("__activemask", (), K.UINT),), K.UINT),))
        if name == "tiled_partition":
            return self.tiled_partition(node, args, typ, scope, pre)
        if name == "reduce":
            return self.cg_reduce(node, args, typ, scope, pre)
        if name in ("memcpy_async", "wait", "wait_prior"):
            raise self.error(f"unsupported: cooperative_groups::{name} (an asynchronous group "
                             "copy is not modelled)", node)
        raise self.error(f"unsupported: '{qual}'", node)

    def tiled_partition(self, node: Node, args: list[Node], typ: K.CType, scope: Scope,
                        pre: list[K.Stmt]) -> K.Expr:
        """``tiled_partition<N>(parent)``: a tile with its meta-group rank and count;
        ``tiled_partition(parent, n)``: a ``thread_group`` of ``n`` threads."""
        if not args:
            raise self.error("tiled_partition needs a parent group", node)
        parent = self.group_of(args[0])
        if len(args) == 2:
            return K.VecInit(typ, (self.convert(self.expr(args[1], scope, pre), K.UINT),))
        m = _TILE.search(tree.qual_type(node))
        if m is None:
            raise self.error("unsupported: tiled_partition of an unknown size", node)
        meta = self.meta_group(parent, K.Const(int(m.group(1)), K.UINT))
        if meta is None:
            raise self.error("unsupported: tiled_partition<N> of this parent group", node)
        return K.VecInit(typ, meta)

    def meta_group(self, parent: Group, size: K.Expr) -> tuple[K.Expr, K.Expr] | None:
        """(meta_group_rank, meta_group_size) of a tile of ``size`` threads of ``parent``."""
        if parent.kind == "block":
            rank, count = linear_thread(), block_threads()
        elif parent.kind == "tile" and parent.size is not None:
            rank = K.Binary("%", linear_thread(), K.Const(parent.size, K.UINT), K.UINT)
            count = K.Const(parent.size, K.UINT)
        else:
            return None
        return K.Binary("/", rank, size, K.UINT), K.Binary("/", count, size, K.UINT)

    def group_method(self, node: Node, obj: Node, name: str, args: list[Node], typ: K.CType,
                     scope: Scope, pre: list[K.Stmt]) -> K.Expr | None:
        group = self.group_of(obj)
        if name == "sync":
            raise self.error(f"'{name}()' must be a statement of its own", node)
        if name.startswith("operator "):  # a block or tile as a thread_group: its size
            count = self.group_method(node, obj, "size", [], K.UINT, scope, pre)
            return K.VecInit(typ, (count,)) if count is not None else None
        if group.kind == "block":
            if name == "thread_rank":
                return linear_thread()
            if name in ("size", "num_threads"):
                return block_threads()
            dims = {"group_index": "blockIdx", "thread_index": "threadIdx", "group_dim": "blockDim",
                    "dim_threads": "blockDim"}.get(name)
            if dims is not None:
                return K.VecInit(typ, tuple(_b(dims, d) for d in "xyz"))
            return None
        if group.kind == "grid":
            if name == "thread_rank":
                return _add(_mul(linear_block(), block_threads()), linear_thread())
            if name in ("size", "num_threads"):
                return _mul(grid_blocks(), block_threads())
            if name == "block_rank":
                return linear_block()
            if name == "num_blocks":
                return grid_blocks()
            if name == "is_valid":
                return K.Const(1, typ)
            dims = {"group_dim": "gridDim", "dim_blocks": "gridDim", "block_index": "blockIdx"}.get(name)
            if dims is not None:
                return K.VecInit(typ, tuple(_b(dims, d) for d in "xyz"))
            return None
        if group.kind == "group":
            known = self._group_origin(obj)
            if known is not None and known.kind == "tile" and known.size is not None:
                threads: K.Expr = K.Const(known.size, K.UINT)
            elif known is not None and known.kind == "block":
                threads = block_threads()
            else:  # a group passed in (a parameter): the size it carries
                threads = self._field(obj, "__size", scope, pre)
            if name == "thread_rank":
                return K.Binary("%", linear_thread(), threads, K.UINT)
            if name in ("size", "num_threads"):
                return threads
            return None
        if group.kind == "coalesced":
            active = K.Call("__activemask", (), K.UINT)
            if name == "thread_rank":
                below = K.Binary("&", active, K.Call("__lanemask_lt", (), K.UINT), K.UINT)
                return K.Call("__popc", (below,), K.INT)
            if name in ("size", "num_threads"):
                return self._field(obj, "__size", scope, pre)
            if name in _WARP_OPS:
                return self.warp_op(node, name, args, active, None, typ, scope, pre)
            return None
        assert group.size is not None
        size = K.Const(group.size, K.UINT)
        if name == "thread_rank":
            return K.Binary("%", linear_thread(), size, K.UINT)
        if name in ("size", "num_threads"):
            return size
        if name in ("meta_group_rank", "meta_group_size"):
            parent = self._tile_parent(obj)
            meta = self.meta_group(parent, size) if parent is not None else None
            if meta is not None:  # exact, from the tile's declaration
                return meta[0] if name == "meta_group_rank" else meta[1]
            # a tile passed in (a parameter): what tiled_partition stored in it
            return self._field(obj, "__meta_rank" if name == "meta_group_rank" else "__meta_size",
                               scope, pre)
        if name in _WARP_OPS:
            return self.warp_op(node, name, args, K.Const(_FULL, K.UINT), group.size, typ, scope, pre)
        return None

    def warp_op(self, node: Node, name: str, args: list[Node], mask: K.Expr, width: int | None,
                typ: K.CType, scope: Scope, pre: list[K.Stmt]) -> K.Expr:
        """``tile.shfl_down(v, d)`` as ``__shfl_down_sync(mask, v, d, width)``; ``tile.any(p)``
        as ``__any_sync(mask, p)``: a fresh value per call for the oracles."""
        values = [self.expr(a, scope, pre) for a in args]
        if width is not None and name.startswith("shfl"):
            values.append(K.Const(width, K.INT))
        return K.Call(_WARP_OPS[name], (mask, *values), typ)

    def cg_reduce(self, node: Node, args: list[Node], typ: K.CType, scope: Scope,
                  pre: list[K.Stmt]) -> K.Expr:
        """``cg::reduce(g, v, cg::plus<T>())``: every thread of the group gets the combination
        of all their values, which the verifier does not know (a fresh value per call)."""
        if len(args) != 3:
            raise self.error("cooperative_groups::reduce needs a group, a value and an operator",
                             node)
        group = self.group_of(args[0])
        if group.kind not in ("tile", "coalesced"):
            raise self.error("unsupported: cooperative_groups::reduce over a group that is not "
                             "a tile", node)
        op_text = tree.qual_type(peel(args[2]))
        op = re.sub(r"<.*", "", op_text).replace("const", "").strip().split("::")[-1]
        if op not in _REDUCE_OPS:
            raise self.error(f"unsupported: cooperative_groups::reduce with the operator "
                             f"'{op_text}'", node)
        value = self.expr(args[1], scope, pre)
        mask = K.Const(_FULL, K.UINT) if group.kind == "tile" else K.Call("__activemask", (), K.UINT)
        return K.Call(f"__reduce_{_REDUCE_OPS[op]}_sync", (mask, value), typ)

    # ------------------------------------------------------------------ curand

    def _mtgp32_word(self, binding: PointerBinding, node: Node) -> K.MemElem:
        """An MTGP32 generator is shared by the threads of one block, up to 256 of them, each
        drawing through its own word of the state (our header's ``__word[256]``, picked by the
        thread's linear index in its block): one state per block is race-free, while two
        blocks sharing one, or a thread 256 further, race on it, as on a GPU."""
        state = binding.view or binding.mem.elem
        size = sizeof(state)
        if size is None or state.kind != "vec" or not state.parts or state.parts[0][0] != "__word":
            raise self.error("unsupported: the layout of this curandStateMtgp32 state", node)
        start = binding.offset if binding.view is not None else \
            _mul(binding.offset, K.Const(size, binding.offset.type))
        word = _mul(K.Binary("%", linear_thread(), K.Const(_MTGP32_THREADS, K.UINT), K.UINT),
                    K.Const(4, K.UINT))
        return self.location(binding.mem, _add(start, word), None, K.UINT)

    def curand(self, node: Node, name: str, args: list[Node], scope: Scope,
               pre: list[K.Stmt]) -> K.Expr:
        """The curand device API with its memory effects: ``curand_init(seed, seq, off, &st)``
        writes the generator state; a draw ``curand*(&st, ...)`` reads the state and writes it
        back advanced, and returns a value the verifier knows nothing about (the oracles
        treat ``curand*`` calls as impure: a fresh value per call).  So threads that share
        one state race on it, as they do on a GPU."""
        if not args:
            raise self.error(f"'{name}' needs a generator state", node)
        at = args[-1] if name == "curand_init" else args[0]
        state: K.LValue | None = None
        target = peel(at)
        if tree.kind(target) == "UnaryOperator" and target.get("opcode") == "&" and \
                tree.kind(peel(tree.children(target)[0])) == "DeclRefExpr":
            local = scope.lookup(decl_id(tree.children(target)[0]) or "")
            if isinstance(local, K.Var):  # a state in a register: `curandState st;`
                state = local
            elif isinstance(local, Alias):
                state = local.target
        if state is None:
            binding = self.pointer(at, scope)
            if binding is None:
                raise self.error(f"unsupported: the generator state given to '{name}' does not "
                                 "point into a known array or variable", node)
            state = self.location(binding.mem, binding.offset, None, binding.view)
            if name != "curand_init" and self.lvalue_type(state).name.split()[-1] in _MTGP32:
                state = self._mtgp32_word(binding, node)
        others = args[:-1] if name == "curand_init" else args[1:]
        values = tuple(self.expr(a, scope, pre) for a in others)
        elem = self.lvalue_type(state)
        if isinstance(state, K.MemElem):
            self.check_writable(state, node)
        if name == "curand_init":
            pre.append(K.Assign(state, K.Call("curand_init_state", values, elem),
                                label=self.label()))
            return K.Const(0)
        old = self.temp(elem, "rng")
        pre.append(K.Decl(old, self.read_lvalue(state), label=self.label()))
        pre.append(K.Assign(state, K.Call("curand_next_state", (old,), elem), label=self.label()))
        return K.Call(name, (old, *values), self.type_of(node))
