"""The models of OpenCL C's built-in functions: a translator layer (see :mod:`kpl.frontend.opencl`
for what each one is and why).

Our OpenCL headers (``include/__autosync_opencl_c*.h``) declare these WITHOUT bodies; the
library layer (:mod:`kpl.frontend.library`) asks this one first when the file is OpenCL C.
"""

from __future__ import annotations

import re

from kpl import ast as K
from kpl.frontend import tree
from kpl.frontend.access import decl_id, peel
from kpl.frontend.dims import add, builtin_dim, linear_thread, mul
from kpl.frontend.memops import MemOpsTranslation
from kpl.frontend.opencl import fence_spaces
from kpl.frontend.opencl_events import partial_waits
from kpl.frontend.state import PointerBinding, Scope
from kpl.frontend.tree import Node
from kpl.placement import BarrierKind

_DIMS = {"get_local_id": ("threadIdx", 0), "get_group_id": ("blockIdx", 0),
         "get_local_size": ("blockDim", 1), "get_enqueued_local_size": ("blockDim", 1),
         "get_num_groups": ("gridDim", 1)}
_ATOMICS = {"add": "atomicAdd", "sub": "atomicSub", "xchg": "atomicExch", "min": "atomicMin",
            "max": "atomicMax", "and": "atomicAnd", "or": "atomicOr", "xor": "atomicXor",
            "cmpxchg": "atomicCAS", "inc": "atomicAdd", "dec": "atomicSub"}
_FETCH = {"atomic_fetch_add": "atomicAdd", "atomic_fetch_sub": "atomicSub",
          "atomic_fetch_min": "atomicMin", "atomic_fetch_max": "atomicMax",
          "atomic_fetch_and": "atomicAnd", "atomic_fetch_or": "atomicOr",
          "atomic_fetch_xor": "atomicXor", "atomic_exchange": "atomicExch"}
_FENCE_ONLY = {"mem_fence", "read_mem_fence", "write_mem_fence", "atomic_work_item_fence"}
_BARRIERS = {"barrier", "work_group_barrier"}
_SUB_GROUP = {"get_sub_group_id", "get_sub_group_local_id"}
_UNIFORM = {"get_work_dim", "get_sub_group_size", "get_max_sub_group_size", "get_num_sub_groups",
            "get_enqueued_num_sub_groups"}
#: built-ins of vectors computed component by component (``opencl_elementwise``)
_ELEMENTWISE = {"min", "max", "clamp", "abs", "fmin", "fmax"}
_IMAGE_WRITES = {"write_imagef", "write_imagei", "write_imageui"}
_COPIES = {"async_work_group_copy", "async_work_group_strided_copy"}
#: OpenCL 2.0's work-group collectives (:meth:`OpenCLTranslation.collective_result`) and the
#: sub-group ones (values)
_WORK_GROUP = re.compile(r"work_group_(all|any|broadcast|reduce_(add|min|max)|scan_(ex|in)clusive_(add|min|max))")
_SUB_GROUP_VALUES = re.compile(r"sub_group_(all|any|broadcast|reduce_(add|min|max)|scan_(ex|in)clusive_(add|min|max))")
_VLOAD = re.compile(r"vload(2|3|4|8|16)")
_VSTORE = re.compile(r"vstore(2|3|4|8|16)")

class OpenCLTranslation(MemOpsTranslation):
    """The models of OpenCL C's built-in functions (module docstring).  Asked first for every
    bodiless function of our headers when the file is OpenCL C (``Unit.language``)."""

    #: the kernel's waits that complete no copy (:mod:`kpl.frontend.opencl_events`), once
    partial_waits: frozenset[str] | None = None

    def _barrier_spelling(self, node: Node, name: str) -> str:
        raise NotImplementedError  # kpl.frontend.calls

    def opencl_statement(self, node: Node, name: str, args: list[Node],
                         scope: Scope) -> list[K.Stmt] | None:
        """A built-in in statement position that is a statement of its own kind, or None."""
        spelling = self._barrier_spelling(node, name)
        if name in _BARRIERS:
            flag_stmts, flags = self._barrier_flags(node, name, args, scope)
            return [*flag_stmts, K.Barrier(spelling=spelling, fences=fence_spaces(flags), label=self.label())]
        if name == "sub_group_barrier":
            return [K.Barrier(spelling=spelling, kind=BarrierKind.SYNCWARP, fences=frozenset(),
                              label=self.label())]
        if name in _IMAGE_WRITES:
            return self._image_write(node, name, args, scope)
        if name == "wait_group_events":
            stmts = self.effects(args[0], scope) if args else []  # the list: handles only
            if self.partial_waits is None:
                self.partial_waits = partial_waits(self.func, self.index)
            return [*stmts, K.WaitEvents(spelling=spelling, label=self.label(),
                                         completes=str(node.get("id")) not in self.partial_waits)]
        if name in _FENCE_ONLY:
            return []
        if _WORK_GROUP.fullmatch(name):  # its result unused: still a point all must reach
            out: list[K.Stmt] = []
            self.opencl_value(node, name, args, scope, out)
            return out
        m = _VSTORE.fullmatch(name)
        if m is not None and len(args) == 3:  # vstoreN(data, offset, p): N element writes
            n = int(m.group(1))
            pre: list[K.Stmt] = []
            data, base = self.expr(args[0], scope, pre), self._vector_base(node, name, args, 1, n, scope, pre)
            binding, at = base
            fields = data.type.fields if data.type.kind == "vec" else ()
            if len(fields) != n:
                raise self.error(f"unsupported: '{name}' of a value that is not a {n}-vector", node)
            self.check_writable(self.location(binding.mem, binding.offset), node)
            elem = data.type.elem or K.FLOAT
            for i, f in enumerate(fields):
                where = self.location(binding.mem, self._add(at, K.Const(i, K.ULONG)), None, binding.view)
                pre.append(K.Assign(where, K.Field(data, f, elem), label=self.label()))
            return pre
        return None

    def opencl_value(self, node: Node, name: str, args: list[Node], scope: Scope,
                     pre: list[K.Stmt]) -> K.Expr | None:
        """The value of a built-in with a model of its own, or None (a pure function)."""
        if name in _BARRIERS or name in _FENCE_ONLY or name in ("sub_group_barrier",
                                                                 "wait_group_events"):
            raise self.error(f"'{name}()' must be a statement of its own", node)
        if name in _DIMS or name in ("get_global_id", "get_global_size", "get_global_offset"):
            # computed in 32 bits as CUDA's blockIdx.x * blockDim.x + threadIdx.x, then size_t
            return self.convert(self._dimension(node, name, args, scope, pre), self.type_of(node))
        if name == "get_local_linear_id":
            return linear_thread()
        if name == "get_global_linear_id":
            gid = [self._global_id(d) for d in range(3)]
            size = [self._global_size(d) for d in range(3)]
            return add(gid[0], mul(size[0], add(gid[1], mul(size[1], gid[2]))))
        if name in _SUB_GROUP:
            return K.Call(name, (linear_thread(),), K.UINT)  # any value, per work-item
        if name == "get_work_dim" and self.unit.work_dim:  # the header's block size says it
            return K.Const(self.unit.work_dim, K.UINT)
        if name in _UNIFORM:
            return K.Call(name, (), K.UINT)
        if _WORK_GROUP.fullmatch(name):
            operands = [self.expr(a, scope, pre) for a in args]
            return self.collective_result(node, name, operands, pre, fences=frozenset(),
                                          per_thread="scan" in name, typ=self.type_of(node))
        if _SUB_GROUP_VALUES.fullmatch(name):  # any value, per work-item (its arguments read)
            return K.Call(name, (linear_thread(), *(self.expr(a, scope, pre) for a in args)), self.type_of(node))
        op = _atomic_op(name)
        if op is not None:
            return self._opencl_atomic(node, name, op, args, scope, pre)
        if name in _COPIES:
            return self._async_copy(node, name, args, scope, pre)
        m = _VLOAD.fullmatch(name)
        if m is not None and len(args) == 2:  # vloadN(offset, p): N element reads
            n = int(m.group(1))
            binding, at = self._vector_base(node, name, args, 0, n, scope, pre)
            typ = self.type_of(node)
            parts = tuple(self.load(binding.mem, self._add(at, K.Const(i, K.ULONG)), None, binding.view)
                          for i in range(n))
            return K.VecInit(typ, parts)
        if name in ("mul24", "mad24") and len(args) >= 2:
            # CUDA's __mul24/__umul24: the oracles model these (24-bit operands)
            typ = self.type_of(node)
            values = [self.expr(a, scope, pre) for a in args]
            product = K.Call("__mul24" if typ.signed else "__umul24", (values[0], values[1]), typ)
            return product if name == "mul24" else K.Binary("+", product, values[2], typ)
        return None

    def collective_result(self, node: Node, name: str, operands: list[K.Expr], pre: list[K.Stmt], *,
                          fences: frozenset[K.Space] = K.ALL_FENCES, per_thread: bool = False,
                          typ: K.CType = K.INT) -> K.Expr:
        """A barrier with a result (CUDA's ``__syncthreads_or``, OpenCL's ``work_group_reduce_add``
        & co.): the operands are read, then the block synchronizes (the barrier orders
        ``fences``; it is part of the expression, so synthesis never moves it), then each
        thread gets an opaque function of the call site and of how many such barriers it has
        passed -- the same count in every thread, or the barrier diverges -- so the result is
        uniform and new at each call (a loop ``while (__syncthreads_or(changed))`` may stop
        after any round); ``per_thread`` (a scan) makes it each thread's own."""
        for value in operands:
            pre.append(K.Decl(self.temp(value.type, "operand"), value, label=self.label()))
        if self.sync_epoch is None:
            self.sync_epoch = K.Var(self.unique("__sync_epoch"), K.UINT)
        epoch = self.sync_epoch
        pre.append(K.Barrier(spelling=self._barrier_spelling(node, name), fences=fences,
                             label=self.label(), fixed=True))
        pre.append(K.Assign(epoch, K.Binary("+", epoch, K.Const(1, K.UINT), K.UINT), label=self.label(),
                            placeable=False, synthetic=True))
        site = K.Const(int(node.get("range", {}).get("begin", {}).get("offset", 0) or 0))
        key: tuple[K.Expr, ...] = (site, epoch, linear_thread()) if per_thread else (site, epoch)
        return K.Call(f"{name.lstrip('_')}.result", key, typ)  # not a barrier's name

    @staticmethod
    def opencl_elementwise(name: str, values: tuple[K.Expr, ...], typ: K.CType) -> K.Expr | None:
        """``min``/``max``/``clamp``/``abs``/``fmin``/``fmax`` of vectors, component by
        component (a scalar argument applies to every component), so that the oracles compute
        each component as the scalar function (``min(a, b).x`` is ``min(a.x, b.x)``); None
        for any other function (one opaque value of all the arguments)."""
        if name not in _ELEMENTWISE or typ.kind != "vec":
            return None
        elem = typ.elem or K.FLOAT
        parts = tuple(K.Call(name, tuple(K.Field(v, f, v.type.elem or elem) if v.type.kind == "vec" else v
                                         for v in values), elem) for f in typ.fields)
        return K.VecInit(typ, parts)

    # ------------------------------------------------------------------ helpers

    def _image_write(self, node: Node, name: str, args: list[Node], scope: Scope) -> list[K.Stmt]:
        """``write_imagef(img, coord, color)``: a write of ``color`` to element ``coord`` of
        the image, global memory named after the kernel's image parameter (one element per
        pixel; a 2D/3D coordinate is packed into one index, equal exactly when the coordinates
        are, for coordinates below 2^21).  An image the kernel may also read (``read_write``)
        is refused: its reads are values that race with nothing (``read_image*``)."""
        if len(args) != 3:
            raise self.error(f"'{name}' needs an image, a coordinate and a colour", node)
        did = decl_id(args[0])
        param = next((p for p in tree.params_of(self.func) if str(p.get("id")) == did), None)
        if param is None:
            raise self.error(f"unsupported: '{name}' of an image that is not one of the kernel's "
                             "parameters", args[0])
        if "read_write" in tree.qual_type(param):
            raise self.error(f"unsupported: '{name}' of a read_write image (its reads are not "
                             "modelled as accesses)", args[0])
        pre: list[K.Stmt] = []
        coord = self.expr(args[1], scope, pre)
        color = self.expr(args[2], scope, pre)
        img = str(param.get("name") or "image")
        mem = self.memories.get(img)
        if mem is None:
            mem = self.memories[img] = K.Memory(img, K.Space.GLOBAL, color.type, (None,))
        elif mem.elem != color.type:
            raise self.error(f"unsupported: image '{img}' written with colours of two types", node)
        index: K.Expr = K.Const(0, K.ULONG)
        parts = coord.type.fields[:3] if coord.type.kind == "vec" else (None,)
        for i, f in enumerate(parts):
            c = coord if f is None else K.Field(coord, f, coord.type.elem or K.INT)
            c = self.convert(self.convert(c, K.UINT), K.ULONG)
            if len(parts) > 1:
                c = K.Binary("&", c, K.Const((1 << 21) - 1, K.ULONG), K.ULONG) if len(parts) > 2 else c
                c = K.Binary("<<", c, K.Const(i * (21 if len(parts) > 2 else 32), K.ULONG), K.ULONG)
            index = c if i == 0 else K.Binary("|", index, c, K.ULONG)
        pre.append(K.Assign(self.location(mem, index), color, label=self.label()))
        return pre

    def _barrier_flags(self, node: Node, name: str, args: list[Node],
                       scope: Scope) -> tuple[list[K.Stmt], int]:
        """The fence flags of a barrier and the statements computing them.  Flags known only
        at run time (a variable, a parameter: they may differ between work-items) fence only
        what every value certainly fences: nothing.  The barrier still synchronises every
        work-item; said once in a note."""
        if not args:
            raise self.error(f"'{name}' needs its flags", node)
        pre: list[K.Stmt] = []
        value = self.fold(self.expr(args[0], scope, pre))
        if isinstance(value, int):
            return pre, value
        _, line, col = self.where(args[0])
        self.unit.note(f"the flags of '{name}' are not a constant: the barrier is taken to "
                       "order no memory (only what every value of them fences is certain)",
                       line, col)
        return pre, 0

    def _vector_base(self, node: Node, name: str, args: list[Node], at: int, n: int, scope: Scope,
                     pre: list[K.Stmt]) -> tuple[PointerBinding, K.Expr]:
        """``vloadN``/``vstoreN``'s pointer (argument ``at + 1``) and the offset of element
        ``offset * N`` (argument ``at``) from where it points."""
        binding = self.pointer(args[at + 1], scope)
        if binding is None:
            raise self.error(f"unsupported: the address given to '{name}' does not point into a "
                             "known array", node)
        offset = self.convert(self.expr(args[at], scope, pre), K.ULONG)
        return binding, self._add(binding.offset, K.Binary("*", offset, K.Const(n, K.ULONG), K.ULONG))

    def _dimension(self, node: Node, name: str, args: list[Node], scope: Scope,
                   pre: list[K.Stmt]) -> K.Expr:
        """``get_local_id(d)`` & co.: the built-in of dimension ``d``; for a ``d`` known only
        at run time, the choice among the three (out of range: 0 for an id, 1 for a size)."""
        if name == "get_global_offset":
            return K.Const(0, K.ULONG)
        if not args:
            raise self.error(f"'{name}' needs a dimension", node)
        d = self.expr(args[0], scope, pre)
        folded = self.fold(d)
        outside: K.Expr = K.Const(1 if name in ("get_local_size", "get_enqueued_local_size",
                                                "get_num_groups", "get_global_size") else 0, K.UINT)
        if isinstance(folded, int):
            return self._dim(name, folded) if 0 <= folded < 3 else outside
        out = outside
        for dim in (2, 1, 0):
            out = K.Cond(K.Binary("==", d, K.Const(dim, d.type), K.BOOL), self._dim(name, dim), out,
                         K.UINT)
        return out

    def _dim(self, name: str, dim: int) -> K.Expr:
        if name == "get_global_id":
            return self._global_id(dim)
        if name == "get_global_size":
            return self._global_size(dim)
        return _b(_DIMS[name][0], dim)

    @staticmethod
    def _global_id(dim: int) -> K.Expr:
        return add(mul(_b("blockIdx", dim), _b("blockDim", dim)), _b("threadIdx", dim))

    @staticmethod
    def _global_size(dim: int) -> K.Expr:
        return mul(_b("gridDim", dim), _b("blockDim", dim))

    def _opencl_atomic(self, node: Node, name: str, op: str, args: list[Node], scope: Scope,
                       pre: list[K.Stmt]) -> K.Expr:
        binding = self.pointer(args[0], scope) if args else None
        if binding is None:
            raise self.error(f"unsupported: the address given to '{name}' does not point "
                             "into a known array", node)
        rest = tuple(self.expr(a, scope, pre) for a in args[1:])
        if name.endswith(("_inc", "_dec")):
            rest = (K.Const(1, binding.view or binding.mem.elem),)
        self.check_writable(self.location(binding.mem, binding.offset), node)
        return self.atomic(op, binding, rest)

    def _async_copy(self, node: Node, name: str, args: list[Node], scope: Scope,
                    pre: list[K.Stmt]) -> K.Expr:
        """The group's copy (module docstring): this work-item copies element ``k`` of any
        index below ``n`` (a value the oracles do not know), ``src[k*stride]`` to ``dst[k]``
        (local destination) or ``src[k]`` to ``dst[k*stride]`` (global destination)."""
        if len(args) < 4:
            raise self.error(f"'{name}' needs its arguments", node)
        dst, src = self.pointer(args[0], scope), self.pointer(args[1], scope)
        if dst is None or src is None:
            raise self.error(f"unsupported: an address given to '{name}' does not point into "
                             "a known array", node)
        count = self.expr(args[2], scope, pre)
        stride: K.Expr = K.Const(1, K.ULONG)
        if name == "async_work_group_strided_copy":
            stride = self.expr(args[3], scope, pre)
        pre.extend(self.effects(args[-1], scope))
        # any index below n (0 when n is 0: a copy of nothing then writes one element,
        # which can only add races): the remainder of a value the oracles do not know
        k = self.temp(K.ULONG, "copy")
        count = self.convert(count, K.ULONG)
        site = K.Const(int(node.get("range", {}).get("begin", {}).get("offset", 0) or 0))
        some = K.Call("__autosync_copy_slot", (site, linear_thread(), count), K.ULONG)
        modulus = K.Cond(K.Binary(">", count, K.Const(0, K.ULONG), K.BOOL), count,
                         K.Const(1, K.ULONG), K.ULONG)
        pre.append(K.Decl(k, K.Binary("%", some, modulus, K.ULONG), label=self.label(),
                          placeable=False, synthetic=True))
        far = K.Binary("*", k, stride, K.ULONG)
        src_at, dst_at = (far, k) if dst.mem.space == K.Space.SHARED else (k, far)
        # an index that reads memory (``in + idx[g]``) first, as a plain statement: that read
        # is the work-item's own, not the copy's, and no wait completes it
        at: list[K.Expr] = []
        for offset, extra in ((src.offset, src_at), (dst.offset, dst_at)):
            where = self._add(offset, extra)
            if any(isinstance(x, (K.Load, K.Atomic)) for x in K.walk_expr(where)):
                v = self.temp(where.type, "copy")
                pre.append(K.Decl(v, where, label=self.label(), placeable=False, synthetic=True))
                where = v
            at.append(where)
        value = self.load(src.mem, at[0], None, src.view)
        self.check_writable(self.location(dst.mem, dst.offset), node)
        pre.append(K.Assign(self.location(dst.mem, at[1], None, dst.view), value,
                            label=self.label(), async_copy=True))
        return K.Const(0, K.ULONG)

    def swizzle_assignment(self, node: Node, scope: Scope) -> list[K.Stmt]:
        """``v.wy = u.zy`` / ``v.xy += d``: the value once, then one store per component
        named on the left, in order (a component named twice is clang's error)."""
        out: list[K.Stmt] = []
        lhs, rhs = tree.children(node)[:2]
        op = str(node.get("opcode"))
        parts = tree.children(peel(lhs))
        value = self.expr(rhs, scope, out)
        if value.type.kind == "vec":
            if len(value.type.fields) != len(parts):
                raise self.error("unsupported: a vector of another width assigned to components", node)
            tmp = self.temp(value.type, "swizzle")
            out.append(K.Decl(tmp, value, label=self.label(), placeable=False, synthetic=True))
        for i, part in enumerate(parts):
            target = self.lvalue(part, scope, out)
            elem = self.lvalue_type(target)
            piece: K.Expr = K.Field(tmp, value.type.fields[i], value.type.elem or elem) \
                if value.type.kind == "vec" else value
            if op != "=":
                piece = self.binary(op[:-1], self.read_lvalue(target), piece, part)
            self.check_writable(target, node)
            out.append(K.Assign(target, self.convert(piece, elem), label=self.label(),
                                placeable=i == len(parts) - 1))  # one C statement
        return out


def _b(name: str, dim: int) -> K.Expr:
    return builtin_dim(name, "xyz"[dim])


def _atomic_op(name: str) -> str | None:
    if name in _FETCH:
        return _FETCH[name]
    for prefix in ("atomic_", "atom_"):
        if name.startswith(prefix) and name[len(prefix):] in _ATOMICS:
            return _ATOMICS[name[len(prefix):]]
    return None


__all__ = ["OpenCLTranslation"]
