"""Two-thread predicated lock-step symbolic execution of a KPL kernel (the engine of ``sdv``).

Semantics: SDV -- synchronous, delayed visibility (Sec. III-A and Fig. 9 of papers/003;
papers/002 for jumps).  Two arbitrary threads t1, t2 are executed *together*, statement by
statement, each with its own predicate; this is the two-thread reduction of GPUVerify
(papers/001 Sec. 2.3): a race or a divergent barrier between ANY two threads shows up for some
choice of the symbolic thread ids.

* ``if`` runs both arms, under ``p ∧ c`` and ``p ∧ ¬c``; a loop iterates while its guard holds
  for either thread; ``break``/``continue``/``return`` are per-thread masks (``continue`` is
  re-enabled before the loop's ``latch``; ``break`` leaves the loop (or the ``switch``);
  ``return`` leaves the kernel, or the ``Inline`` block).  ``&&``, ``||``, ``?:`` evaluate
  their right/arm operands under the predicate that they are evaluated.
* Every access of a shared/global array is logged with its predicate, its index, the barrier
  *epoch* (a counter bumped by each executed barrier; two accesses can race only in the same
  epoch) and the iteration numbers of its enclosing loops (for ``loop_depth``).  Reads of
  shared/global memory return fresh values (adversarial abstraction, papers/001 Sec. 2.3).

Two *modes* are run by :mod:`oracle.sdv`: ``same`` (t1, t2 distinct threads of one block --
shared and global memory, epochs matter, barrier divergence is checked) and ``cross`` (t1, t2
in different blocks -- only global memory; barriers order nothing, so epochs are ignored).

Loops (see :meth:`Executor.exec_loop`): unrolled exactly when the iteration count is decided
by the launch configuration (the guard only mentions constants and thread/block ids), up to
``max_unroll`` iterations; otherwise abstracted soundly, GPUVerify style
(:meth:`Executor.abstract_loop`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import z3

from kpl import ast as K
from kpl.ast import LONG, CType, Memory, Space
from oracle.base import OracleError
from oracle.sdv_encode import (
    FLOAT_SORT,
    Val,
    apply_uf,
    conv,
    fconst,
    fresh,
    index64,
    is_false,
    is_true,
    ite,
    resize,
    sort_of,
    to_bool,
    usual,
    values_equal,
    vec_elem,
    vec_fields,
)

READ, WRITE, ATOMIC = 0, 1, 2
KIND_NAMES = {READ: "read", WRITE: "write", ATOMIC: "atomic"}

#: calls whose value depends on other threads or on time: a fresh value per call and thread
IMPURE_PREFIXES = ("__shfl", "__ballot", "__any", "__all", "__activemask", "__match",
                   "__reduce", "clock", "__clock", "curand", "rand", "__lane", "__syncwarp",
                   "__threadfence", "__nanosleep", "atomic")
TRUE = z3.BoolVal(True)
FALSE = z3.BoolVal(False)


class Unsupported(Exception):
    """A construct the encoder does not model; becomes an :class:`oracle.base.Unknown`."""


@dataclass
class Access:
    label: int
    kind: int
    mem: Memory
    thread: int
    index: z3.BitVecRef
    pred: z3.BoolRef
    epoch: z3.ArithRef
    tags: tuple[tuple[int, z3.ArithRef], ...]
    field: str | None


@dataclass
class BarrierHit:
    label: int
    preds: tuple[z3.BoolRef, z3.BoolRef]


@dataclass
class ThreadState:
    vars: dict[str, Val]
    pred: z3.BoolRef = TRUE
    ret: z3.BoolRef = FALSE
    brk: z3.BoolRef = FALSE
    cont: z3.BoolRef = FALSE

    def copy(self) -> ThreadState:
        return ThreadState(dict(self.vars), self.pred, self.ret, self.brk, self.cont)


@dataclass
class LoopInfo:
    """Static facts about one loop, computed once."""

    modified: dict[str, CType]
    has_barrier: bool
    has_break: bool
    has_return: bool
    steps: dict[str, tuple[str, K.Expr]]
    invariants: list[K.Expr]


@dataclass
class Candidate:
    """A candidate loop invariant (Houdini-lite).  ``fn(vars, la, pe)`` gives its formulas for
    the two threads' states ``vars``, loop-activity flags ``la`` and entry predicates ``pe``."""

    name: str
    pair: bool
    fn: Callable[[list[dict[str, Val]], list[z3.BoolRef], list[z3.BoolRef]], list[z3.BoolRef]]


def simp(e: z3.ExprRef) -> Any:
    return z3.simplify(e)


def mk_and(*xs: z3.BoolRef) -> z3.BoolRef:
    parts: list[z3.BoolRef] = []
    for x in xs:
        if is_false(x):
            return FALSE
        if not is_true(x):
            parts.append(x)
    if not parts:
        return TRUE
    if len(parts) == 1:
        return parts[0]
    return simp(z3.And(parts))  # type: ignore[no-any-return]


def mk_or(*xs: z3.BoolRef) -> z3.BoolRef:
    parts: list[z3.BoolRef] = []
    for x in xs:
        if is_true(x):
            return TRUE
        if not is_false(x):
            parts.append(x)
    if not parts:
        return FALSE
    if len(parts) == 1:
        return parts[0]
    return simp(z3.Or(parts))  # type: ignore[no-any-return]


def mk_not(x: z3.BoolRef) -> z3.BoolRef:
    if is_true(x):
        return FALSE
    if is_false(x):
        return TRUE
    return simp(z3.Not(x))  # type: ignore[no-any-return]


def strip_casts(e: K.Expr) -> K.Expr:
    while isinstance(e, K.Cast):
        e = e.operand
    return e


def expr_vars(e: K.Expr) -> set[str]:
    return {x.name for x in K.walk_expr(e) if isinstance(x, K.Var)}


def expr_pure(e: K.Expr) -> bool:
    """No memory access and no impure call in ``e``."""
    for x in K.walk_expr(e):
        if isinstance(x, (K.Load, K.Atomic)):
            return False
        if isinstance(x, K.Call) and x.name.startswith(IMPURE_PREFIXES):
            return False
    return True


class QueryEngine:
    """The one z3 solver of a check, with resource limits, a query counter and a deadline."""

    def __init__(self, deadline: float | None, query_ms: int, rlimit: int | None) -> None:
        import time

        self._time = time.monotonic
        self.solver = z3.Solver()
        self.deadline = deadline
        self.query_ms = query_ms
        self.rlimit = rlimit
        if rlimit:
            self.solver.set("rlimit", rlimit)
        self.queries = 0

    def add(self, f: z3.BoolRef) -> None:
        if not is_true(f):
            self.solver.add(f)

    def check(self, *fs: z3.BoolRef) -> tuple[z3.CheckSatResult, z3.ModelRef | None]:
        ms = self.query_ms
        if self.deadline is not None:
            left = self.deadline - self._time()
            if left <= 0:
                raise OracleError("sdv: time limit reached", timeout=True)
            ms = max(1, min(ms, int(left * 1000)))
        self.solver.set("timeout", ms)
        self.queries += 1
        self.solver.push()
        for f in fs:
            self.solver.add(f)
        r = self.solver.check()
        model = self.solver.model() if r == z3.sat else None
        self.solver.pop()
        if r == z3.unknown and self.deadline is not None and self._time() >= self.deadline:
            raise OracleError("sdv: time limit reached", timeout=True)
        return r, model


class Executor:
    """Runs one kernel for two symbolic threads in one mode (``same`` or ``cross``)."""

    def __init__(self, kernel: K.Kernel, mode: str, engine: QueryEngine, *,
                 max_unroll: int = 64, unroll_budget: int = 512) -> None:
        self.kernel = kernel
        self.mode = mode
        self.same = mode == "same"
        self.q = engine
        self.max_unroll = max_unroll
        self.unroll_budget = unroll_budget
        launch = kernel.launch
        self.block_dim = launch.block_dim
        self.grid_dim = launch.grid_dim
        self.accesses: list[Access] = []
        self.barriers: list[BarrierHit] = []
        self.unknowns: list[tuple[str, int | None]] = []
        self.named: list[int] = []
        self.tags: list[tuple[int, z3.ArithRef]] = []
        self.epoch: z3.ArithRef = z3.IntVal(0)
        self.label: int = kernel.body.label
        self.inline_result: list[K.Var | None] = []
        self._loop_info: dict[int, LoopInfo] = {}
        self._fresh = 0
        dims = "xyz"
        self.tid = [tuple(z3.BitVec(f"t{t + 1}.{d}", 32) for d in dims) for t in range(2)]
        if self.same:
            b = tuple(z3.BitVec(f"b.{d}", 32) for d in dims)
            self.bid = [b, b]
        else:
            self.bid = [tuple(z3.BitVec(f"b{t + 1}.{d}", 32) for d in dims) for t in range(2)]
        self.launch_syms = {str(x) for ids in self.tid + self.bid for x in ids}
        self.th = [ThreadState({}), ThreadState({})]

    # ------------------------------------------------------------------ setup

    def base_constraints(self) -> list[z3.BoolRef]:
        cs: list[z3.BoolRef] = []
        for t in range(2):
            for x, n in zip(self.tid[t], self.block_dim, strict=False):
                cs.append(z3.ULT(x, n))
            for x, n in zip(self.bid[t], self.grid_dim, strict=False):
                cs.append(z3.ULT(x, n))
        cs.append(z3.Or([a != b for a, b in zip(self.tid[0], self.tid[1], strict=False)])
                  if self.same else
                  z3.Or([a != b for a, b in zip(self.bid[0], self.bid[1], strict=False)]))
        return cs

    def linear_tid(self, t: int) -> z3.BitVecRef:
        x, y, z = self.tid[t]
        bx, by, _ = self.block_dim
        return x + y * bx + z * (bx * by)  # type: ignore[no-any-return]

    def run(self) -> None:
        for c in self.base_constraints():
            self.q.add(c)
        for p in self.kernel.params:
            if p.var is not None:
                v = fresh(p.var.type, f"param.{p.name}")
                for t in range(2):
                    self.th[t].vars[p.var.name] = v
        in_body = {id(s.cond) for s in K.walk_stmts(self.kernel.body) if isinstance(s, K.Assume)}
        body_conds = [s.cond for s in K.walk_stmts(self.kernel.body) if isinstance(s, K.Assume)]
        for r in self.kernel.requires:
            if id(r) in in_body or r in body_conds:
                continue
            for t in range(2):
                try:
                    self.q.add(to_bool(self.ev(r, t, TRUE)))
                except (Unsupported, KeyError):
                    pass
        self.exec_block(self.kernel.body)

    def fresh_name(self, base: str) -> str:
        self._fresh += 1
        return f"{base}!{self._fresh}"

    # ------------------------------------------------------------------ snapshots

    def snapshot(self) -> tuple[Any, ...]:
        self.q.solver.push()
        return ([th.copy() for th in self.th], self.epoch, list(self.tags), len(self.accesses),
                len(self.barriers), len(self.unknowns), len(self.named), self.unroll_budget,
                self.q.solver.num_scopes())

    def restore(self, snap: tuple[Any, ...]) -> None:
        ths, epoch, tags, na, nb, nu, nn, budget, scopes = snap
        self.th = [th.copy() for th in ths]
        self.epoch = epoch
        self.tags = list(tags)
        del self.accesses[na:]
        del self.barriers[nb:]
        del self.unknowns[nu:]
        del self.named[nn:]
        self.unroll_budget = budget
        now = self.q.solver.num_scopes()
        self.q.solver.pop(now - scopes + 1)

    # ------------------------------------------------------------------ logging

    def log(self, kind: int, mem: Memory, idx: z3.BitVecRef, t: int, pred: z3.BoolRef,
            fld: str | None) -> None:
        if not mem.can_race or is_false(pred):
            return
        if not self.same and mem.space != Space.GLOBAL:
            return
        self.accesses.append(Access(self.label, kind, mem, t, simp(idx), pred, self.epoch,
                                    tuple(self.tags), fld))

    def unknown(self, reason: str, label: int | None = None) -> None:
        self.unknowns.append((reason, self.label if label is None else label))

    # ------------------------------------------------------------------ expressions

    def ev(self, e: K.Expr, t: int, pred: z3.BoolRef) -> Val:
        """Value of ``e`` for thread ``t``; memory reads are logged under ``pred``."""
        if isinstance(e, K.Const):
            return self.const(e.value, e.type)
        if isinstance(e, K.Var):
            vs = self.th[t].vars
            if e.name not in vs:
                vs[e.name] = fresh(e.type, f"undef.{e.name}")
            return vs[e.name]
        if isinstance(e, K.Builtin):
            return conv(self.builtin(e, t), K.UINT, e.type)
        if isinstance(e, K.Cast):
            return conv(self.ev(e.operand, t, pred), e.operand.type if hasattr(e.operand, "type")
                        else e.type, e.type)
        if isinstance(e, K.Unary):
            return self.unary(e, t, pred)
        if isinstance(e, K.Binary):
            return self.binary(e, t, pred)
        if isinstance(e, K.Cond):
            c = to_bool(self.ev(e.cond, t, pred))
            a = conv(self.ev(e.then, t, mk_and(pred, c)), e.then.type, e.type)
            b = conv(self.ev(e.els, t, mk_and(pred, mk_not(c))), e.els.type, e.type)
            return ite(c, a, b)
        if isinstance(e, K.Load):
            return self.load(e, t, pred)
        if isinstance(e, K.Atomic):
            idx = index64(self.ev(e.index, t, pred), e.index.type)
            for a in e.args:
                self.ev(a, t, pred)
            self.log(ATOMIC, e.mem, idx, t, pred, None)
            return fresh(e.type, f"atomic.{e.mem.name}")
        if isinstance(e, K.Call):
            return self.call(e, t, pred)
        if isinstance(e, K.Field):
            base = self.ev(e.base, t, pred)
            if isinstance(base, dict) and e.name in base:
                return base[e.name]
            return fresh(e.type, f"field.{e.name}")
        if isinstance(e, K.VecInit):
            fields = vec_fields(e.type)
            elem = vec_elem(e.type)
            out: dict[str, Val] = {}
            for i, f in enumerate(fields):
                if i < len(e.parts):
                    p = e.parts[i]
                    out[f] = conv(self.ev(p, t, pred), p.type, elem)
                else:
                    out[f] = fresh(elem, "vecinit")
            return out
        raise Unsupported(f"expression {type(e).__name__}")

    def const(self, value: object, ct: CType) -> Val:
        if ct.kind == "float" or isinstance(value, float):
            return fconst(float(value))  # type: ignore[arg-type]
        if ct.kind == "bool":
            return z3.BoolVal(bool(value))
        if ct.kind == "int":
            return z3.BitVecVal(int(value), ct.bits or 32)  # type: ignore[call-overload]
        if ct.kind == "ptr":
            return apply_uf(f"ptrconst{value}", [], sort_of(ct))  # type: ignore[arg-type]
        return z3.BitVecVal(int(value), 32)  # type: ignore[call-overload]

    def builtin(self, e: K.Builtin, t: int) -> z3.BitVecRef:
        i = "xyz".index(e.dim) if e.dim in "xyz" and e.dim else 0
        if e.name == "threadIdx":
            return self.tid[t][i]
        if e.name == "blockIdx":
            return self.bid[t][i]
        if e.name == "blockDim":
            return z3.BitVecVal(self.block_dim[i], 32)
        if e.name == "gridDim":
            return z3.BitVecVal(self.grid_dim[i], 32)
        if e.name == "warpSize":
            return z3.BitVecVal(32, 32)
        raise Unsupported(f"builtin {e.name}")

    def unary(self, e: K.Unary, t: int, pred: z3.BoolRef) -> Val:
        src = e.operand.type
        v = self.ev(e.operand, t, pred)
        if e.op == "!":
            return conv(mk_not(to_bool(v)), K.BOOL, e.type)
        if isinstance(v, dict):
            return {k: self._unary_scalar(e.op, x, vec_elem(src), vec_elem(e.type))
                    for k, x in v.items()}
        return self._unary_scalar(e.op, v, src, e.type)

    def _unary_scalar(self, op: str, v: Val, src: CType, dst: CType) -> Val:
        if dst.kind == "float" or (src.kind == "float"):
            x = conv(v, src, K.FLOAT if dst.kind != "float" else dst)
            if op == "+":
                return conv(x, K.FLOAT, dst)
            return conv(apply_uf(f"f{op}", [x], FLOAT_SORT), K.FLOAT, dst)  # type: ignore[list-item]
        ct = dst if dst.kind == "int" else usual(src, src)
        x = conv(v, src, ct)
        if not isinstance(x, z3.BitVecRef):
            return fresh(dst, "unary")
        if op == "-":
            r: z3.ExprRef = -x
        elif op == "~":
            r = ~x
        elif op == "+":
            r = x
        else:
            raise Unsupported(f"unary operator {op}")
        return conv(r, ct, dst)

    def binary(self, e: K.Binary, t: int, pred: z3.BoolRef) -> Val:
        op = e.op
        if op in ("&&", "||"):
            a = to_bool(self.ev(e.left, t, pred))
            rp = mk_and(pred, a) if op == "&&" else mk_and(pred, mk_not(a))
            b = to_bool(self.ev(e.right, t, rp))
            r = mk_and(a, b) if op == "&&" else mk_or(a, b)
            return conv(r, K.BOOL, e.type)
        lt, rt = e.left.type, e.right.type
        a = self.ev(e.left, t, pred)
        b = self.ev(e.right, t, pred)
        if op == ",":
            return b
        if isinstance(a, dict) or isinstance(b, dict):
            da = a if isinstance(a, dict) else None
            db = b if isinstance(b, dict) else None
            keys = list((da or db or {}).keys())
            out = {}
            for k in keys:
                out[k] = self._binary_scalar(op, da[k] if da else a, db[k] if db else b,
                                             vec_elem(lt) if da else lt,
                                             vec_elem(rt) if db else rt,
                                             vec_elem(e.type) if e.type.kind == "vec" else e.type)
            if op in ("<", "<=", ">", ">=", "==", "!="):
                return fresh(e.type, "veccmp")
            return out
        return self._binary_scalar(op, a, b, lt, rt, e.type)

    def _binary_scalar(self, op: str, a: Val, b: Val, lt: CType, rt: CType, dst: CType) -> Val:
        cmp = op in ("<", "<=", ">", ">=", "==", "!=")
        if op in ("<<", ">>"):
            ct = usual(lt, lt)
            if ct.kind != "int":
                return fresh(dst, "shift")
            x = conv(a, lt, ct)
            y = conv(b, rt, K.CType("int", ct.bits, False))
            assert isinstance(x, z3.BitVecRef) and isinstance(y, z3.BitVecRef)
            if op == "<<":
                r: z3.ExprRef = x << y
            else:
                r = (x >> y) if ct.signed else z3.LShR(x, y)
            return conv(r, ct, dst)
        ct = usual(lt, rt)
        if ct.kind == "float":
            x = conv(a, lt, ct)
            y = conv(b, rt, ct)
            if cmp:
                return conv(apply_uf(f"f{op}", [x, y], z3.BoolSort()),  # type: ignore[list-item]
                            K.BOOL, dst)
            return conv(apply_uf(f"f{op}", [x, y], FLOAT_SORT), ct, dst)  # type: ignore[list-item]
        if ct.kind == "ptr":
            x = conv(a, lt, ct)
            y = conv(b, rt, ct) if rt.kind == "ptr" else b
            if op == "==" and rt.kind == "ptr":
                return conv(x == y, K.BOOL, dst)
            if op == "!=" and rt.kind == "ptr":
                return conv(x != y, K.BOOL, dst)
            ret = z3.BoolSort() if cmp else _sort(dst)
            return conv(apply_uf(f"p{op}", [x, y], ret), K.BOOL if cmp else dst,  # type: ignore[list-item,arg-type]
                        dst)
        if ct.kind != "int":
            return fresh(dst, "binop")
        x = conv(a, lt, ct)
        y = conv(b, rt, ct)
        if not (isinstance(x, z3.BitVecRef) and isinstance(y, z3.BitVecRef)):
            return fresh(dst, "binop")
        s = ct.signed
        if cmp:
            if op == "==":
                c: z3.BoolRef = x == y
            elif op == "!=":
                c = x != y
            elif op == "<":
                c = x < y if s else z3.ULT(x, y)
            elif op == "<=":
                c = x <= y if s else z3.ULE(x, y)
            elif op == ">":
                c = x > y if s else z3.UGT(x, y)
            else:
                c = x >= y if s else z3.UGE(x, y)
            return conv(simp(c), K.BOOL, dst)
        if op == "+":
            r = x + y
        elif op == "-":
            r = x - y
        elif op == "*":
            r = x * y
        elif op == "/":
            r = x / y if s else z3.UDiv(x, y)
        elif op == "%":
            r = z3.SRem(x, y) if s else z3.URem(x, y)
        elif op == "&":
            r = x & y
        elif op == "|":
            r = x | y
        elif op == "^":
            r = x ^ y
        else:
            raise Unsupported(f"binary operator {op}")
        return conv(simp(r), ct, dst)

    def load(self, e: K.Load, t: int, pred: z3.BoolRef) -> Val:
        mem = e.mem
        idx = index64(self.ev(e.index, t, pred), e.index.type)
        if mem.can_race:
            self.log(READ, mem, idx, t, pred, e.field)
            return fresh(e.type, f"rd.{mem.name}")
        elem = mem.elem
        if mem.space == Space.LOCAL:
            arrs = self.th[t].vars.get("@" + mem.name)
            if arrs is None:
                arrs = self.local_array(mem)
                self.th[t].vars["@" + mem.name] = arrs
            if isinstance(arrs, dict):
                if e.field is not None and e.field in arrs:
                    return conv(z3.Select(arrs[e.field], idx), vec_elem(elem), e.type)
                return {f: z3.Select(a, idx) for f, a in arrs.items()}
            return conv(z3.Select(arrs, idx), elem, e.type)
        # constant / texture memory: read-only and the same for every thread
        if elem.kind == "vec":
            vals = {f: apply_uf(f"mem.{mem.name}.{f}", [idx], _sort(vec_elem(elem)))
                    for f in vec_fields(elem)}
            if e.field is not None and e.field in vals:
                return conv(vals[e.field], vec_elem(elem), e.type)
            return vals
        s = sort_of(elem)
        if s is None:
            return fresh(e.type, f"rd.{mem.name}")
        return conv(apply_uf(f"mem.{mem.name}", [idx], s), elem, e.type)

    def local_array(self, mem: Memory) -> Val:
        elem = mem.elem
        if elem.kind == "vec":
            return {f: z3.FreshConst(z3.ArraySort(z3.BitVecSort(64), _sort(vec_elem(elem))),
                                     f"local.{mem.name}.{f}") for f in vec_fields(elem)}
        s = _sort(elem)
        return z3.FreshConst(z3.ArraySort(z3.BitVecSort(64), s), f"local.{mem.name}")

    def call(self, e: K.Call, t: int, pred: z3.BoolRef) -> Val:
        name = e.name
        args = [self.ev(a, t, pred) for a in e.args]
        if name.startswith("__syncthreads"):
            raise Unsupported(f"barrier intrinsic {name}")
        if name.startswith(IMPURE_PREFIXES):
            return fresh(e.type, f"call.{name}")
        types = [a.type for a in e.args]
        if e.type.kind == "int" and args:
            ct = e.type
            xs = [conv(a, ty, ct) for a, ty in zip(args, types, strict=False)]
            if all(isinstance(x, z3.BitVecRef) for x in xs):
                if name in ("min", "max", "umin", "umax", "llmin", "llmax", "ullmin", "ullmax",
                            "imin", "imax") and len(xs) == 2:
                    x, y = xs
                    lt = (x < y) if ct.signed else z3.ULT(x, y)  # type: ignore[operator]
                    return simp(z3.If(lt, x, y) if "min" in name else z3.If(lt, y, x))
                if name in ("abs", "llabs", "labs") and len(xs) == 1:
                    x = xs[0]
                    return simp(z3.If(x < 0, -x, x))  # type: ignore[operator]
            if name in ("__mul24", "__umul24") and len(args) == 2:
                a0 = conv(args[0], types[0], K.INT)
                a1 = conv(args[1], types[1], K.INT)
                if isinstance(a0, z3.BitVecRef) and isinstance(a1, z3.BitVecRef):
                    sgn = name == "__mul24"
                    lo0 = resize(z3.Extract(23, 0, a0), sgn, 32)
                    lo1 = resize(z3.Extract(23, 0, a1), sgn, 32)
                    return conv(simp(lo0 * lo1), K.INT, e.type)
        flat: list[z3.ExprRef] = []
        for a in args:
            if isinstance(a, dict):
                flat.extend(x for x in a.values() if isinstance(x, z3.ExprRef))
            elif isinstance(a, z3.ExprRef):
                flat.append(a)
        if e.type.kind == "vec":
            s = _sort(vec_elem(e.type))
            return {f: apply_uf(f"call.{name}.{f}", flat, s) for f in vec_fields(e.type)}
        s = sort_of(e.type)
        if s is None:
            return None
        return apply_uf(f"call.{name}", flat, s)

    # ------------------------------------------------------------------ statements

    def preds(self) -> list[z3.BoolRef]:
        return [th.pred for th in self.th]

    def dead(self) -> bool:
        return all(is_false(th.pred) for th in self.th)

    def exec_block(self, block: K.Block) -> None:
        for s in block.stmts:
            if self.dead():
                return
            self.exec_stmt(s)

    def exec_stmts(self, stmts: list[K.Stmt]) -> None:
        for s in stmts:
            if self.dead():
                return
            self.exec_stmt(s)

    def exec_stmt(self, s: K.Stmt) -> None:
        self.label = s.label
        try:
            self._exec_stmt(s)
        except Unsupported as exc:
            self.unknown(f"unsupported: {exc}", s.label)
            # havoc what the statement may have assigned so that later code stays sound
            if isinstance(s, (K.Decl, K.Assign)):
                tgt = s.var if isinstance(s, K.Decl) else s.target
                if isinstance(tgt, K.Var):
                    for t in range(2):
                        self.th[t].vars[tgt.name] = fresh(tgt.type, f"unsup.{tgt.name}")

    def assign_var(self, t: int, name: str, value: Val) -> None:
        th = self.th[t]
        old = th.vars.get(name)
        if old is None or is_true(th.pred):
            th.vars[name] = value
        else:
            th.vars[name] = ite(th.pred, value, old)

    def _exec_stmt(self, s: K.Stmt) -> None:
        if isinstance(s, K.Decl):
            for t in range(2):
                pred = self.th[t].pred
                if s.array is not None:
                    self.th[t].vars["@" + s.array.name] = self.local_array(s.array)
                    continue
                if s.init is not None:
                    v = conv(self.ev(s.init, t, pred), s.init.type, s.var.type)
                    if isinstance(v, z3.ExprRef):
                        v = simp(v)
                else:
                    v = fresh(s.var.type, f"uninit.{s.var.name}")
                self.assign_var(t, s.var.name, v)
        elif isinstance(s, K.Assign):
            for t in range(2):
                self.assign(s, t)
        elif isinstance(s, K.ExprStmt):
            for t in range(2):
                self.ev(s.expr, t, self.th[t].pred)
        elif isinstance(s, K.Barrier):
            p1, p2 = self.th[0].pred, self.th[1].pred
            if self.same:
                self.barriers.append(BarrierHit(s.label, (p1, p2)))
            fired = mk_or(p1, p2)
            self.epoch = simp(z3.If(fired, self.epoch + 1, self.epoch))
        elif isinstance(s, K.NamedBarrier):
            self.named.append(s.label)
        elif isinstance(s, K.Assume):
            for t in range(2):
                c = to_bool(self.ev(s.cond, t, self.th[t].pred))
                self.q.add(z3.Implies(self.th[t].pred, c))
        elif isinstance(s, K.Annotation):
            pass
        elif isinstance(s, K.Break):
            for th in self.th:
                th.brk = mk_or(th.brk, th.pred)
                th.pred = FALSE
        elif isinstance(s, K.Continue):
            for th in self.th:
                th.cont = mk_or(th.cont, th.pred)
                th.pred = FALSE
        elif isinstance(s, K.Return):
            res = self.inline_result[-1] if self.inline_result else None
            for t, th in enumerate(self.th):
                if s.value is not None:
                    v = self.ev(s.value, t, th.pred)
                    if res is not None:
                        self.assign_var(t, res.name, conv(v, s.value.type, res.type))
                th.ret = mk_or(th.ret, th.pred)
                th.pred = FALSE
        elif isinstance(s, K.If):
            self.exec_if(s)
        elif isinstance(s, K.Loop):
            self.exec_loop(s)
        elif isinstance(s, K.Switch):
            pre = self.preds()
            saved = [th.brk for th in self.th]
            for th in self.th:
                th.brk = FALSE
            self.exec_block(s.body)
            for t, th in enumerate(self.th):
                th.brk = saved[t]
                th.pred = mk_and(pre[t], mk_not(th.ret), mk_not(th.cont))
        elif isinstance(s, K.Inline):
            pre = self.preds()
            saved = [th.ret for th in self.th]
            for th in self.th:
                th.ret = FALSE
            self.inline_result.append(s.result)
            try:
                self.exec_block(s.body)
            finally:
                self.inline_result.pop()
            for t, th in enumerate(self.th):
                th.ret = saved[t]
                th.pred = pre[t]
        else:
            raise Unsupported(f"statement {type(s).__name__}")

    def assign(self, s: K.Assign, t: int) -> None:
        th = self.th[t]
        pred = th.pred
        tgt = s.target
        if isinstance(tgt, K.Var):
            v = conv(self.ev(s.value, t, pred), s.value.type, tgt.type)
            if isinstance(v, z3.ExprRef):
                v = simp(v)
            self.assign_var(t, tgt.name, v)
        elif isinstance(tgt, K.VarField):
            v = self.ev(s.value, t, pred)
            old = th.vars.get(tgt.var.name)
            if not isinstance(old, dict):
                old = fresh(tgt.var.type, f"undef.{tgt.var.name}")
            assert isinstance(old, dict)
            new = dict(old)
            new[tgt.name] = conv(v, s.value.type, vec_elem(tgt.var.type))
            self.assign_var(t, tgt.var.name, new)
        elif isinstance(tgt, K.MemElem):
            mem = tgt.mem
            idx = index64(self.ev(tgt.index, t, pred), tgt.index.type)
            v = self.ev(s.value, t, pred)
            if mem.can_race:
                self.log(WRITE, mem, idx, t, pred, tgt.field)
            elif mem.space == Space.LOCAL:
                key = "@" + mem.name
                arrs = th.vars.get(key)
                if arrs is None:
                    arrs = self.local_array(mem)
                elem = mem.elem
                if isinstance(arrs, dict):
                    new_arrs = dict(arrs)
                    if tgt.field is not None and tgt.field in arrs:
                        x = conv(v, s.value.type, vec_elem(elem))
                        new_arrs[tgt.field] = z3.Store(arrs[tgt.field], idx, x)
                    else:
                        vv = conv(v, s.value.type, elem)
                        for f in arrs:
                            comp = vv.get(f) if isinstance(vv, dict) else None
                            if comp is not None:
                                new_arrs[f] = z3.Store(arrs[f], idx, comp)
                    self.assign_var(t, key, new_arrs)
                else:
                    x = conv(v, s.value.type, elem)
                    if isinstance(x, z3.ExprRef) and isinstance(arrs, z3.ArrayRef):
                        self.assign_var(t, key, z3.Store(arrs, idx, x))
        else:
            raise Unsupported(f"assignment target {type(tgt).__name__}")

    def exec_if(self, s: K.If) -> None:
        pre = self.preds()
        cs = [to_bool(self.ev(s.cond, t, pre[t])) for t in range(2)]
        for t in range(2):
            self.th[t].pred = mk_and(pre[t], cs[t])
        if not self.dead():
            self.exec_block(s.then)
        if s.els is not None:
            for t in range(2):
                self.th[t].pred = mk_and(pre[t], mk_not(cs[t]))
            if not self.dead():
                self.label = s.els.label
                self.exec_block(s.els)
        for t, th in enumerate(self.th):
            th.pred = mk_and(pre[t], mk_not(th.ret), mk_not(th.brk), mk_not(th.cont))

    # ------------------------------------------------------------------ loops

    def exec_loop(self, loop: K.Loop) -> None:
        """Exact unrolling when the launch fixes the trip count, else the abstraction."""
        if not self.try_exact(loop):
            self.abstract_loop(loop)

    def symbols(self, e: z3.ExprRef) -> set[str]:
        out: set[str] = set()
        seen: set[int] = set()
        stack = [e]
        while stack:
            x = stack.pop()
            i = x.get_id()
            if i in seen:
                continue
            seen.add(i)
            if z3.is_app(x) and x.decl().kind() == z3.Z3_OP_UNINTERPRETED:
                out.add(x.decl().name())
            stack.extend(x.children())
        return out

    def predict_too_long(self, loop: K.Loop) -> bool:
        """Cheap look-ahead for counted loops (``for (v = c0; v < N; v += c)`` with constant
        values): True when the loop surely runs more than ``max_unroll`` iterations, so the
        abstraction is used at once instead of after ``max_unroll`` wasted iterations."""
        cond = strip_casts(loop.cond)
        if not (isinstance(cond, K.Binary) and cond.op in ("<", "<=", ">", ">=", "!=")):
            return False
        lhs = strip_casts(cond.left)
        info = self.loop_info(loop)
        if not isinstance(lhs, K.Var) or lhs.name not in info.steps:
            return False
        op, step_e = info.steps[lhs.name]
        for t in range(2):
            vs = dict(self.th[t].vars)
            v = vs.get(lhs.name)
            step = conv(self.eval_in(step_e, t, vs, TRUE), step_e.type, lhs.type)
            if not (isinstance(v, z3.BitVecRef) and z3.is_bv_value(v)
                    and isinstance(step, z3.BitVecRef) and z3.is_bv_value(simp(step))):
                return False
            for _ in range(self.max_unroll + 1):
                vs[lhs.name] = v
                g = simp(to_bool(self.eval_in(loop.cond, t, vs, TRUE)))
                if not is_true(g):
                    return False
                v = simp(v + step if op == "+" else v - step)
        return True

    def try_exact(self, loop: K.Loop) -> bool:
        if self.predict_too_long(loop):
            return False
        snap = self.snapshot()
        pe = self.preds()
        allowed = [self.launch_syms | self.symbols(p) for p in pe]
        saved = [(th.brk, th.cont) for th in self.th]
        for th in self.th:
            th.brk = FALSE
            th.cont = FALSE
        la = list(pe)
        k = 0
        ok = True
        known_live: list[z3.BoolRef] | None = None
        while True:
            self.label = loop.label
            if loop.test_first or k > 0:
                g = [to_bool(self.ev(loop.cond, t, la[t])) for t in range(2)]
                la = [mk_and(la[t], g[t]) for t in range(2)]
            if all(is_false(x) for x in la):
                break
            if any(not self.symbols(la[t]) <= allowed[t] for t in range(2)):
                ok = False
                break
            if k >= self.max_unroll or self.unroll_budget <= 0:
                ok = False
                break
            unchanged = known_live is not None and all(a.eq(b) for a, b in zip(la, known_live, strict=False))
            if not any(is_true(x) for x in la) and not unchanged:
                r, _ = self.q.check(mk_or(*la))
                if r == z3.unsat:
                    break
                if r == z3.unknown:
                    ok = False
                    break
                known_live = list(la)
            self.unroll_budget -= 1
            self.tags.append((loop.label, z3.IntVal(k)))
            for t, th in enumerate(self.th):
                th.pred = la[t]
                th.cont = FALSE
            self.exec_block(loop.body)
            for t, th in enumerate(self.th):
                th.cont = FALSE
                th.pred = mk_and(la[t], mk_not(th.brk), mk_not(th.ret))
            self.exec_stmts(loop.latch)
            la = [th.pred for th in self.th]
            self.tags.pop()
            k += 1
        if not ok:
            self.restore(snap)
            return False
        for t, th in enumerate(self.th):
            th.brk, th.cont = saved[t]
            th.pred = mk_and(pe[t], mk_not(th.ret))
        return True

    # .................................................................. abstraction

    def loop_info(self, loop: K.Loop) -> LoopInfo:
        info = self._loop_info.get(loop.label)
        if info is not None:
            return info
        modified: dict[str, CType] = {}
        has_barrier = False
        assigns: dict[str, list[K.Expr | None]] = {}
        stmts = list(K.walk_stmts(loop.body)) + [x for s in loop.latch
                                                 for x in [s, *K.walk_stmts(K.Block([s]))]]
        for s in stmts:
            if isinstance(s, K.Decl):
                if s.array is not None:
                    modified["@" + s.array.name] = s.array.elem
                modified[s.var.name] = s.var.type
                assigns.setdefault(s.var.name, []).append(None)
            elif isinstance(s, K.Assign):
                tgt = s.target
                if isinstance(tgt, K.Var):
                    modified[tgt.name] = tgt.type
                    assigns.setdefault(tgt.name, []).append(s.value)
                elif isinstance(tgt, K.VarField):
                    modified[tgt.var.name] = tgt.var.type
                    assigns.setdefault(tgt.var.name, []).append(None)
                elif isinstance(tgt, K.MemElem) and tgt.mem.space == Space.LOCAL:
                    modified["@" + tgt.mem.name] = tgt.mem.elem
            elif isinstance(s, K.Inline) and s.result is not None:
                modified[s.result.name] = s.result.type
                assigns.setdefault(s.result.name, []).append(None)
            elif isinstance(s, K.Barrier):
                has_barrier = True
            for e in _stmt_exprs(s):
                for x in K.walk_expr(e):
                    if isinstance(x, K.Call) and x.name.startswith("__syncthreads"):
                        has_barrier = True
        steps: dict[str, tuple[str, K.Expr]] = {}
        for name, vals in assigns.items():
            forms = set()
            step: tuple[str, K.Expr] | None = None
            good = True
            for v in vals:
                if v is None:
                    good = False
                    break
                b = strip_casts(v)
                if (isinstance(b, K.Binary) and b.op in ("+", "-")
                        and isinstance(strip_casts(b.left), K.Var)
                        and strip_casts(b.left).name == name  # type: ignore[union-attr]
                        and not (expr_vars(b.right) & set(modified)) and expr_pure(b.right)):
                    forms.add((b.op, b.right))
                    step = (b.op, b.right)
                else:
                    good = False
                    break
            if good and len(forms) == 1 and step is not None:
                steps[name] = step
        invariants = [a for s in loop.body.stmts if isinstance(s, K.Annotation)
                      and s.name.strip("_") in ("invariant", "candidate_invariant")
                      for a in s.args[:1]]
        info = LoopInfo(modified, has_barrier, _has_jump(loop.body, K.Break, loop=True),
                        _has_jump(loop.body, K.Return, loop=False), steps, invariants)
        self._loop_info[loop.label] = info
        return info

    def eval_in(self, e: K.Expr, t: int, vars_: dict[str, Val], pred: z3.BoolRef) -> Val:
        """Evaluate the memory-free ``e`` in the given state of thread ``t`` (no logging)."""
        saved = self.th[t].vars
        na = len(self.accesses)
        self.th[t].vars = dict(vars_)
        try:
            return self.ev(e, t, pred)
        finally:
            self.th[t].vars = saved
            del self.accesses[na:]

    def candidates(self, loop: K.Loop, info: LoopInfo, s0: list[dict[str, Val]],
                   pe: list[z3.BoolRef]) -> list[Candidate]:
        """Candidate invariants of the loop head (GPUVerify-style guesses, checked by Houdini)."""
        cands: list[Candidate] = []
        if self.same:
            def la_uniform(vs: list[dict[str, Val]], la: list[z3.BoolRef],
                           p: list[z3.BoolRef]) -> list[z3.BoolRef]:
                return [z3.Implies(z3.And(p[0], p[1]), la[0] == la[1])]
            cands.append(Candidate("la-uniform", True, la_uniform))
        for name, ct in info.modified.items():
            if name not in s0[0] or name not in s0[1]:
                continue
            e0 = [s0[0][name], s0[1][name]]
            if self.same:
                def uni(vs: list[dict[str, Val]], la: list[z3.BoolRef], p: list[z3.BoolRef],
                        n: str = name) -> list[z3.BoolRef]:
                    return [z3.Implies(z3.And(la[0], la[1]), values_equal(vs[0][n], vs[1][n]))]
                cands.append(Candidate(f"uniform({name})", True, uni))
                if (isinstance(e0[0], z3.BitVecRef) and isinstance(e0[1], z3.BitVecRef)
                        and not e0[0].eq(e0[1])):
                    def offs(vs: list[dict[str, Val]], la: list[z3.BoolRef],
                             p: list[z3.BoolRef], n: str = name,
                             e: list[Val] = e0) -> list[z3.BoolRef]:
                        return [z3.Implies(z3.And(la[0], la[1]),
                                           vs[0][n] - e[0] == vs[1][n] - e[1])]  # type: ignore[operator]
                    cands.append(Candidate(f"offset({name})", True, offs))
            if name in info.steps and ct.kind == "int" and all(isinstance(x, z3.BitVecRef)
                                                               for x in e0):
                op, step_e = info.steps[name]
                steps = [conv(self.eval_in(step_e, t, s0[t], TRUE), step_e.type, ct)
                         for t in range(2)]
                if all(isinstance(x, z3.BitVecRef) for x in steps):
                    def modc(vs: list[dict[str, Val]], la: list[z3.BoolRef],
                             p: list[z3.BoolRef], n: str = name, e: list[Val] = e0,
                             c: list[Val] = steps, o: str = op) -> list[z3.BoolRef]:
                        return [z3.URem(vs[t][n] - e[t], c[t]) == 0  # type: ignore[operator]
                                if o == "+" else z3.URem(e[t] - vs[t][n], c[t]) == 0  # type: ignore[operator]
                                for t in range(2)]
                    cands.append(Candidate(f"stride({name})", False, modc))

                    def mono(vs: list[dict[str, Val]], la: list[z3.BoolRef],
                             p: list[z3.BoolRef], n: str = name, e: list[Val] = e0,
                             signed: bool = ct.signed, o: str = op) -> list[z3.BoolRef]:
                        out = []
                        for t in range(2):
                            a, b = (vs[t][n], e[t]) if o == "+" else (e[t], vs[t][n])
                            out.append(a >= b if signed else z3.UGE(a, b))  # type: ignore[operator,arg-type]
                        return out
                    cands.append(Candidate(f"monotone({name})", False, mono))
        # guard-derived bound: v < e  ==>  v == e0 || v <= e
        cond = strip_casts(loop.cond)
        if isinstance(cond, K.Binary) and cond.op in ("<", ">", "<=", ">="):
            lhs, rhs = strip_casts(cond.left), cond.right
            if (isinstance(lhs, K.Var) and lhs.name in info.modified and lhs.name in s0[0]
                    and not (expr_vars(rhs) & set(info.modified)) and expr_pure(rhs)):
                gct = usual(cond.left.type, cond.right.type)
                if gct.kind == "int":
                    name = lhs.name
                    bound = [conv(self.eval_in(rhs, t, s0[t], TRUE), rhs.type, gct)
                             for t in range(2)]
                    e0 = [s0[t][name] for t in range(2)]
                    gop = cond.op

                    def guard_bound(vs: list[dict[str, Val]], la: list[z3.BoolRef],
                                    p: list[z3.BoolRef], n: str = name,
                                    e: list[Val] = e0, bd: list[Val] = bound,
                                    vt: CType = lhs.type, g: CType = gct) -> list[z3.BoolRef]:
                        out = []
                        for t in range(2):
                            v = conv(vs[t][n], vt, g)
                            b = bd[t]
                            if gop in ("<", "<="):
                                rel = (v <= b) if g.signed else z3.ULE(v, b)  # type: ignore[operator,arg-type]
                                if gop == "<=":
                                    rel = (v <= b + 1) if g.signed else z3.ULE(v, b + 1)  # type: ignore[operator,arg-type]
                            else:
                                rel = (v >= b) if g.signed else z3.UGE(v, b)  # type: ignore[operator,arg-type]
                                if gop == ">=":
                                    rel = (v >= b - 1) if g.signed else z3.UGE(v, b - 1)  # type: ignore[operator,arg-type]
                            out.append(z3.Or(vs[t][n] == e[t], rel))  # type: ignore[operator]
                        return out
                    cands.append(Candidate(f"guard-bound({name})", False, guard_bound))
        for i, inv in enumerate(info.invariants):
            def user(vs: list[dict[str, Val]], la: list[z3.BoolRef], p: list[z3.BoolRef],
                     e: K.Expr = inv) -> list[z3.BoolRef]:
                return [z3.Implies(la[t], to_bool(self.eval_in(e, t, vs[t], la[t])))
                        for t in range(2)]
            cands.append(Candidate(f"user-invariant#{i}", False, user))
        return cands

    def havoc(self, info: LoopInfo, s0: list[dict[str, Val]], pe: list[z3.BoolRef],
              tag: str) -> tuple[list[dict[str, Val]], list[z3.BoolRef], z3.ArithRef]:
        """A fresh loop-head state: modified variables havocked (per thread), loop-activity
        flags ``la`` (a thread still in the loop was enabled at entry), iteration number ``k``."""
        vs = [dict(s0[t]) for t in range(2)]
        for name, ct in info.modified.items():
            for t in range(2):
                old = s0[t].get(name)
                if name.startswith("@"):
                    if isinstance(old, dict):
                        vs[t][name] = {f: z3.FreshConst(a.sort(), f"{name}.{f}")
                                       for f, a in old.items()}
                    elif isinstance(old, z3.ExprRef):
                        vs[t][name] = z3.FreshConst(old.sort(), name)
                    continue
                if isinstance(old, z3.ExprRef) and not isinstance(old, dict):
                    vs[t][name] = z3.FreshConst(old.sort(), f"{tag}.{name}")
                else:
                    vs[t][name] = fresh(ct, f"{tag}.{name}")
        la = [z3.FreshBool(f"{tag}.la{t + 1}") for t in range(2)]
        for t in range(2):
            self.q.add(z3.Implies(la[t], pe[t]))
        k = z3.FreshInt(f"{tag}.k")
        self.q.add(k >= 0)
        return vs, la, k

    def run_iteration(self, loop: K.Loop, vs: list[dict[str, Val]], la: list[z3.BoolRef],
                      k: z3.ArithRef) -> tuple[list[z3.BoolRef], list[z3.BoolRef]]:
        """One loop iteration from head state (vs, la): returns (la after, active in body)."""
        for t, th in enumerate(self.th):
            th.vars = dict(vs[t])
            th.brk = FALSE
            th.cont = FALSE
        self.tags.append((loop.label, k))
        self.label = loop.label
        if loop.test_first:
            g = [to_bool(self.ev(loop.cond, t, la[t])) for t in range(2)]
            act = [mk_and(la[t], g[t]) for t in range(2)]
        else:
            act = list(la)
        for t, th in enumerate(self.th):
            th.pred = act[t]
        self.exec_block(loop.body)
        for t, th in enumerate(self.th):
            th.cont = FALSE
            th.pred = mk_and(act[t], mk_not(th.brk), mk_not(th.ret))
        self.exec_stmts(loop.latch)
        if not loop.test_first:
            self.label = loop.label
            for t, th in enumerate(self.th):
                g2 = to_bool(self.ev(loop.cond, t, th.pred))
                th.pred = mk_and(th.pred, g2)
        self.tags.pop()
        return [th.pred for th in self.th], act

    def houdini(self, loop: K.Loop, info: LoopInfo, s0: list[dict[str, Val]],
                pe: list[z3.BoolRef], cands: list[Candidate]) -> list[Candidate]:
        """Keep the candidates that hold at loop entry and are inductive (Houdini).  The body
        is run once from an unconstrained head state (speculatively: its log is discarded);
        candidates are then dropped by counter-models until the rest is inductive."""
        def drop(cs: list[Candidate], forms: list[list[z3.BoolRef]],
                 m: z3.ModelRef | None) -> list[Candidate]:
            if m is None:
                return []
            keep = [c for c, fs in zip(cs, forms, strict=False)
                    if all(is_true(m.eval(f, model_completion=True)) for f in fs)]
            return keep if len(keep) < len(cs) else []

        while cands:
            forms = [c.fn(s0, pe, pe) for c in cands]
            r, m = self.q.check(z3.Not(z3.And([f for fs in forms for f in fs])))
            if r == z3.unsat:
                break
            cands = drop(cands, forms, m)
        if not cands:
            return []
        snap = self.snapshot()
        saved_ret = [th.ret for th in self.th]
        vs, la, k = self.havoc(info, s0, pe, "hh")
        if info.has_barrier and self.same:
            ep = z3.FreshInt("hh.ep")
            self.q.add(ep >= self.epoch)
            self.epoch = ep
        la2, _ = self.run_iteration(loop, vs, la, k)
        post_vs = [dict(th.vars) for th in self.th]
        for th, r0 in zip(self.th, saved_ret, strict=False):
            th.ret = r0
        while cands:
            pre = [f for c in cands for f in c.fn(vs, la, pe)]
            forms = [c.fn(post_vs, la2, pe) for c in cands]
            r, m = self.q.check(z3.And(pre), z3.Not(z3.And([f for fs in forms for f in fs])))
            if r == z3.unsat:
                break
            cands = drop(cands, forms, m)
        self.restore(snap)
        return cands

    def abstract_loop(self, loop: K.Loop) -> None:
        """Sound loop abstraction (GPUVerify style, papers/001 Sec. 2.3).

        Why it is sound: the head state ``H`` is a fresh state constrained only by invariants
        proved to hold at entry and to be preserved by one iteration (Houdini), so ``H``
        over-approximates the state at the head of EVERY iteration i.  Executing iteration
        ``A`` from ``H`` therefore yields every access of every iteration (for the two threads
        in the same iteration, since in one block both threads run the same iterations in
        lock-step; the la-uniform/uniform(v) invariants are relational facts between them).
        Inter-iteration pairs: if every iteration that a thread completes executes a barrier
        (checked by a query on the epoch), only consecutive iterations i, i+1 can share an
        epoch, and iteration ``B`` run from A's final state is iteration i+1.  Otherwise ``B``
        is run from an independent head state ``H2`` (another arbitrary iteration j), with no
        epoch relation to A, so every pair (i, j) is covered.  In ``cross`` mode the two
        threads are in different blocks (no lock-step): one independent head state per
        thread suffices, and no relational invariant is used.  After the loop the modified
        variables are havocked again and the per-thread invariants plus the negated guard are
        assumed for threads that left normally (not via break/return); the epoch after the
        loop is at least the epoch after any executed iteration."""
        info = self.loop_info(loop)
        pe = self.preds()
        s0 = [dict(th.vars) for th in self.th]
        ret0 = [th.ret for th in self.th]
        saved = [(th.brk, th.cont) for th in self.th]
        ep0 = self.epoch
        barrier_epochs = info.has_barrier and self.same
        cands = self.houdini(loop, info, s0, pe, self.candidates(loop, info, s0, pe))

        vs, la, k = self.havoc(info, s0, pe, f"h{loop.label}")
        for c in cands:
            for f in c.fn(vs, la, pe):
                self.q.add(f)
        if barrier_epochs:
            ep = z3.FreshInt(f"h{loop.label}.ep")
            self.q.add(ep >= ep0)
            self.epoch = ep
        ep_head = self.epoch
        for th, r0 in zip(self.th, ret0, strict=False):
            th.ret = r0
        la_a, act_a = self.run_iteration(loop, vs, la, k)
        ends = [self.epoch]
        exit_uniform = False
        if self.same:
            consecutive = False
            if info.has_barrier:
                q = z3.And(z3.Or([z3.And(act_a[t], la_a[t]) for t in range(2)]),
                           self.epoch == ep_head)
                r, _ = self.q.check(q)
                consecutive = r == z3.unsat
            if consecutive:
                after = [dict(th.vars) for th in self.th]
                self.run_iteration(loop, after, la_a, k + 1)
            else:
                # B: another iteration j != i of the same block (A covers j == i exactly).
                # Epochs are monotone: j > i starts after i ended, and vice versa.
                vs2, la2, k2 = self.havoc(info, s0, pe, f"h{loop.label}b")
                self.q.add(k2 != k)
                for c in cands:
                    for f in c.fn(vs2, la2, pe):
                        self.q.add(f)
                end_a = self.epoch
                if barrier_epochs:
                    ep2 = z3.FreshInt(f"h{loop.label}b.ep")
                    self.q.add(ep2 >= ep0)
                    self.epoch = ep2
                for th, r0 in zip(self.th, ret0, strict=False):
                    th.ret = r0
                self.run_iteration(loop, vs2, la2, k2)
                if barrier_epochs:
                    self.q.add(z3.Or(z3.And(k2 > k, ep2 >= end_a),
                                     z3.And(k2 < k, ep_head >= self.epoch)))
            ends.append(self.epoch)
            if (any(c.pair for c in cands) and not info.has_break and not info.has_return):
                r, _ = self.q.check(z3.And(la[0], la[1]), la_a[0] != la_a[1])
                exit_uniform = r == z3.unsat
        # ---- after the loop
        xs = [dict(s0[t]) for t in range(2)]
        for name, ct in info.modified.items():
            for t in range(2):
                old = s0[t].get(name)
                if isinstance(old, dict):
                    new: Val = {f: z3.FreshConst(a.sort(), f"x{loop.label}.{name}")
                                for f, a in old.items()}
                elif isinstance(old, z3.ExprRef):
                    new = z3.FreshConst(old.sort(), f"x{loop.label}.{name}")
                else:
                    new = fresh(ct, f"x{loop.label}.{name}")
                xs[t][name] = ite(pe[t], new, old) if old is not None else new
        brk_x = [z3.FreshBool(f"x{loop.label}.brk") if info.has_break else FALSE
                 for _ in range(2)]
        ret_x = []
        for t in range(2):
            if info.has_return:
                r = z3.FreshBool(f"x{loop.label}.ret")
                ret_x.append(mk_or(ret0[t], mk_and(pe[t], r)))
            else:
                ret_x.append(ret0[t])
        normal = [mk_and(pe[t], mk_not(brk_x[t]), mk_not(ret_x[t])) for t in range(2)]
        for t in range(2):
            g = to_bool(self.eval_in(loop.cond, t, xs[t], normal[t]))
            facts = [mk_not(g)]
            for c in cands:
                if not c.pair:
                    facts.append(c.fn(xs, pe, pe)[t])
            self.q.add(z3.Implies(normal[t], z3.And(facts)))
        if exit_uniform:
            for c in cands:
                if c.pair:
                    for f in c.fn(xs, pe, pe):
                        self.q.add(z3.Implies(z3.And(normal[0], normal[1]), f))
        if barrier_epochs:
            epx = z3.FreshInt(f"x{loop.label}.ep")
            for e in ends:
                self.q.add(epx >= e)
            self.q.add(epx >= ep0)
            self.epoch = epx
        for t, th in enumerate(self.th):
            th.vars = xs[t]
            th.ret = ret_x[t]
            th.brk, th.cont = saved[t]
            th.pred = mk_and(pe[t], mk_not(ret_x[t]))


def _sort(ct: CType) -> z3.SortRef:
    s = sort_of(ct)
    return s if s is not None else z3.BitVecSort(32)


def _stmt_exprs(s: K.Stmt) -> list[K.Expr]:
    if isinstance(s, K.Decl):
        return [s.init] if s.init is not None else []
    if isinstance(s, K.Assign):
        out = [s.value]
        if isinstance(s.target, K.MemElem):
            out.append(s.target.index)
        return out
    if isinstance(s, K.ExprStmt):
        return [s.expr]
    if isinstance(s, (K.If, K.Loop)):
        return [s.cond]
    if isinstance(s, K.Return) and s.value is not None:
        return [s.value]
    return []


def _has_jump(block: K.Block, kind: type, loop: bool) -> bool:
    """Does ``block`` contain a ``kind`` statement that leaves the enclosing loop (``Break``:
    not inside a nested loop or switch) or the kernel (``Return``: not inside an Inline)?"""
    for s in block.stmts:
        if isinstance(s, kind):
            return True
        if kind is K.Break and isinstance(s, (K.Loop, K.Switch)):
            continue
        if kind is K.Return and isinstance(s, K.Inline):
            continue
        for sub in K.child_blocks(s):
            if _has_jump(sub, kind, loop):
                return True
    return False


__all__ = ["ATOMIC", "KIND_NAMES", "READ", "WRITE", "Access", "BarrierHit", "Executor",
           "QueryEngine", "Unsupported", "field", "LONG"]
