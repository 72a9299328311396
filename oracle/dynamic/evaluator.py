"""``dynamic``, expression evaluation and memory: one visitor method per :mod:`kpl.ast`
expression class, vectorised over the enabled threads.

An expression node evaluated once yields the values of all enabled threads (the reads of one
lock-step instruction happen before its writes, as on the hardware).  Memory reads and
writes go through :meth:`Evaluator._read` / :meth:`Evaluator._write`, which log each access
of a shared or global cell to the race detector (:class:`oracle.dynamic.races.RaceLog`).  The
C arithmetic is :mod:`kpl.ctypes`.

Signed overflow is undefined behaviour: ``sdv`` assumes it never happens (a race that needs it
is no race of a defined execution), so a run in which an enabled thread's signed ``+ - * /``
or unary ``-`` overflows is no defined execution from that instruction on.  It raises
:class:`SignedOverflow` and the checker cuts the run there, like a false ``__assume``: the
races found before it stay reported (each happened before the undefined operation) and the
verdict says "unknown", never "verified", so the two oracles cannot disagree about it.  An
unsigned sum of two values that fit in ``int``, converted to ``int`` above INT_MAX (``int
i; i += blockDim.x * gridDim.x``), is cut the same way: ``sdv`` assumes it away too (a
stated assumption, ``oracle.base``).

Why one piece over 400 lines: one visitor over every :mod:`kpl.ast` expression class, with the
undefined-behaviour cuts beside the operations they guard.
"""

from __future__ import annotations

from typing import Any

from kpl.ast import (
    ARBITRARY,
    FLOAT,
    INT,
    LONG,
    Atomic,
    Binary,
    Builtin,
    Call,
    Cast,
    Cond,
    Const,
    CType,
    Expr,
    Field,
    Load,
    Memory,
    NodeVisitor,
    Space,
    Unary,
    Var,
    VecInit,
)
from kpl.ctypes import (
    SHIFTS,
    arith,
    common_type,
    convert,
    converted_sum_overflows,
    promote,
    signed_overflows,
    sizeof,
    to_int,
    unary_type,
    wrap_int,
)
from oracle.base import AccessKind
from oracle.dynamic.races import UNKNOWN, RaceLog
from oracle.dynamic.values import COMPARE, Dim3, call_value, default_value, det_hash, truthy

__all__ = ["CONVERSION", "Evaluator", "SignedOverflow", "Unsupported"]


class Unsupported(Exception):
    """A construct the concrete interpreter does not model (the verdict says unknown)."""

    def __init__(self, message: str, label: int | None) -> None:
        super().__init__(message)
        self.label = label


#: what :class:`SignedOverflow` says of a conversion that changes a value
CONVERSION = "unsigned sum out of a signed type's range (assumed not to happen)"


class SignedOverflow(Exception):
    """A signed operation overflowed for an enabled thread (undefined behaviour), or an
    unsigned sum converted to a signed type left its range (:data:`CONVERSION`, assumed not
    to happen): the run is cut at ``label`` (see the module docstring)."""

    def __init__(self, label: int | None, thread: Dim3, block: Dim3,
                 what: str = "signed integer overflow (undefined behaviour)") -> None:
        super().__init__(what)
        self.what = what
        self.label = label
        self.thread = thread
        self.block = block


class Evaluator(RaceLog, NodeVisitor):
    """Expressions and memory of a concrete run; :class:`oracle.dynamic.executor._Run` adds the
    statements and owns the state declared here."""

    T: int
    seed: int
    env: dict[str, list[Any]]
    builtins: dict[tuple[str, str], list[Any]]
    glob: dict[str, dict[int, Any]]
    shared: dict[str, dict[int, Any]]
    #: thread-local arrays: name -> thread -> index -> value
    local: dict[str, dict[int, dict[int, Any]]]
    tids: list[Dim3]
    block_id: Dim3

    def ev(self, e: Expr, act: list[int]) -> list[Any]:
        """The values of ``e`` for the enabled threads ``act`` (aligned with ``act``)."""
        return self.visit(e, act)  # type: ignore[no-any-return]

    def generic_visit(self, node: object, *args: Any) -> Any:
        raise Unsupported(f"expression {type(node).__name__}", self.label)

    # ------------------------------------------------------------------ expressions

    def visit_Const(self, e: Const, act: list[int]) -> list[Any]:
        return [convert(e.value, e.type)] * len(act)

    def visit_Var(self, e: Var, act: list[int]) -> list[Any]:
        slot = self.env.get(e.name)
        if slot is None:
            slot = [convert(0, e.type)] * self.T
            self.env[e.name] = slot
        return [slot[t] for t in act]

    def visit_Builtin(self, e: Builtin, act: list[int]) -> list[Any]:
        vals = self.builtins.get((e.name, e.dim))
        if vals is None:
            if e.name == "warpSize":
                return [self.warp_sync or 32] * len(act)
            raise Unsupported(f"unknown builtin {e.name}.{e.dim}", self.label)
        return [vals[t] for t in act]

    def visit_Unary(self, e: Unary, act: list[int]) -> list[Any]:
        vals = self.ev(e.operand, act)
        if e.op == "!":
            return [0 if truthy(v) else 1 for v in vals]
        t = e.type if e.type.kind in ("int", "float", "vec") else _numeric(unary_type(e.op, e.operand.type))
        if e.op == "-":
            self._defined("-", act, vals, None, t)
            return [arith("-", convert(0, t), convert(v, t), t) for v in vals]
        if e.op == "~":
            return [wrap_int(~to_int(convert(v, t)), t.bits or 32, t.signed) for v in vals]
        if e.op == "+":
            return [convert(v, t) for v in vals]
        raise Unsupported(f"unary operator {e.op!r}", self.label)

    def visit_Cond(self, e: Cond, act: list[int]) -> list[Any]:
        cvals = self.ev(e.cond, act)
        pos_t = [k for k, c in enumerate(cvals) if truthy(c)]
        pos_f = [k for k, c in enumerate(cvals) if not truthy(c)]
        out: list[Any] = [None] * len(act)
        if pos_t:
            tv = self.ev(e.then, [act[k] for k in pos_t])
            for k, v in zip(pos_t, tv, strict=True):
                out[k] = convert(v, e.type)
        if pos_f:
            fv = self.ev(e.els, [act[k] for k in pos_f])
            for k, v in zip(pos_f, fv, strict=True):
                out[k] = convert(v, e.type)
        return out

    def visit_Cast(self, e: Cast, act: list[int]) -> list[Any]:
        op = e.operand
        src = op.type
        if isinstance(op, Binary) and op.op == "+" and src.kind == "int" and not src.signed \
                and e.type.kind == "int" and e.type.signed:
            left, right = self.ev(op.left, act), self.ev(op.right, act)
            for k, (a, b) in enumerate(zip(left, right, strict=True)):
                if converted_sum_overflows(convert(a, src), convert(b, src), src, e.type):
                    raise SignedOverflow(self.label, self.tids[act[k]], self.block_id, CONVERSION)
            vals = [arith("+", convert(a, src), convert(b, src), src)
                    for a, b in zip(left, right, strict=True)]
        else:
            vals = self.ev(op, act)
        return [convert(v, e.type) for v in vals]

    def visit_Load(self, e: Load, act: list[int]) -> list[Any]:
        idx = self.ev(e.index, act)
        if e.view is not None:
            return [self._read_view(e.mem, to_int(i), t, e.view) for t, i in zip(act, idx, strict=True)]
        return [self._read(e.mem, to_int(i), t, e.field) for t, i in zip(act, idx, strict=True)]

    def visit_Call(self, e: Call, act: list[int]) -> list[Any]:
        argvals = [self.ev(a, act) for a in e.args]
        if e.name.startswith(ARBITRARY):
            return self._arbitrary(e, act)
        return [call_value(e.name, [col[k] for col in argvals], e.type) for k in range(len(act))]

    #: draws of arbitrary values so far (each call, each thread, a new one)
    _draws = 0

    def _arbitrary(self, e: Call, act: list[int]) -> list[Any]:
        """A bodiless function's value (:mod:`kpl.frontend.bodiless`): a new pseudo-random one
        per call and thread, zero half the time, so that ``while (nondet())`` ends soon."""
        out = []
        for t in act:
            self._draws += 1
            if e.type.kind in ("int", "bool", "float") and det_hash("arbitrary", t, self._draws) & 1:
                out.append(convert(0, e.type))
            else:
                out.append(default_value(e.type, "arbitrary", e.name, t, self._draws))
        return out

    def visit_Field(self, e: Field, act: list[int]) -> list[Any]:
        vals = self.ev(e.base, act)
        fields = e.base.type.fields if e.base.type.kind == "vec" else ()
        pos = fields.index(e.name) if e.name in fields else "xyzw".find(e.name)
        return [v[pos] if isinstance(v, tuple) and 0 <= pos < len(v) else v for v in vals]

    def visit_VecInit(self, e: VecInit, act: list[int]) -> list[Any]:
        cols = [self.ev(p, act) for p in e.parts]
        return [convert(tuple(col[k] for col in cols), e.type) for k in range(len(act))]

    def visit_Binary(self, e: Binary, act: list[int]) -> list[Any]:
        op = e.op
        if op in ("&&", "||"):  # short-circuit per thread: only the chosen operand's reads
            left = self.ev(e.left, act)
            need = [k for k, v in enumerate(left) if truthy(v) == (op == "&&")]
            out = [0 if op == "&&" else 1] * len(act)
            if need:
                right = self.ev(e.right, [act[k] for k in need])
                for k, v in zip(need, right, strict=True):
                    out[k] = 1 if truthy(v) else 0
            return out
        left = self.ev(e.left, act)
        right = self.ev(e.right, act)
        if op in SHIFTS:
            lt = _numeric(promote(e.left.type))
            return [arith(op, convert(a, lt), to_int(b), lt)
                    for a, b in zip(left, right, strict=True)]
        ct = _numeric(common_type(e.left.type, e.right.type))
        cmp = COMPARE.get(op)
        if cmp is not None:
            return [1 if cmp(convert(a, ct), convert(b, ct)) else 0
                    for a, b in zip(left, right, strict=True)]
        if op == ",":
            return right
        self._defined(op, act, left, right, ct)
        return [arith(op, convert(a, ct), convert(b, ct), ct) for a, b in zip(left, right, strict=True)]

    def _defined(self, op: str, act: list[int], left: list[Any], right: list[Any] | None,
                 t: CType) -> None:
        """Raise :class:`SignedOverflow` when ``op`` overflows in the signed type ``t`` for
        one of the enabled threads ``act`` (``right`` None: unary)."""
        if t.kind != "int" or not t.signed:
            return
        rights: list[Any] = right if right is not None else [None] * len(left)
        for k, (a, b) in enumerate(zip(left, rights, strict=True)):
            if signed_overflows(op, convert(a, t), None if b is None else convert(b, t), t):
                raise SignedOverflow(self.label, self.tids[act[k]], self.block_id)

    def visit_Atomic(self, e: Atomic, act: list[int]) -> list[Any]:
        idx = self.ev(e.index, act)
        argvals = [self.ev(a, act) for a in e.args]
        op = e.op.lower()
        if op.startswith("atomic"):
            op = op[len("atomic"):]
        op = op.lstrip("_")
        mem = e.mem
        elem = mem.elem
        out: list[Any] = []
        # atomics of one instruction serialise in some order: thread order
        for k, (t, i) in enumerate(zip(act, idx, strict=True)):
            ii = to_int(i)
            if e.view is not None:
                one = self._view_element(mem, ii, e.view)
                if one is None:
                    raise Unsupported(f"atomic through a pointer cast on '{mem.name}'", self.label)
                ii = one
            args = [col[k] for col in argvals]
            old = self._cell_value(mem, ii, t)
            new = _atomic_new(op, old, args, elem)
            out.append(old)
            if mem.can_race:
                self._access(mem, ii, t, AccessKind.ATOMIC)
            if mem.space == Space.LOCAL:
                self.local.setdefault(mem.name, {}).setdefault(t, {})[ii] = new
            else:
                self._store(mem)[ii] = new
        return out

    # ------------------------------------------------------------------ memory

    def _store(self, mem: Memory) -> dict[int, Any]:
        if mem.space == Space.SHARED:
            return self.shared.setdefault(mem.name, {})
        return self.glob.setdefault(mem.name, {})

    def _cell_value(self, mem: Memory, idx: int, t: int) -> Any:
        if mem.space == Space.LOCAL:
            lstore = self.local.setdefault(mem.name, {}).setdefault(t, {})
            if idx not in lstore:
                lstore[idx] = default_value(mem.elem, self.seed, "local", mem.name, idx, t)
            return lstore[idx]
        store = self._store(mem)
        if idx not in store and mem.init is not None and 0 <= idx < len(mem.init):
            store[idx] = mem.init[idx]  # known contents (OpenCL C's initialised __constant)
        if idx not in store:
            block_key = self.block if mem.space == Space.SHARED else None
            store[idx] = default_value(mem.elem, self.seed, mem.name, idx, block_key)
        return store[idx]

    def _read(self, mem: Memory, idx: int, t: int, fld: str | None,
              kind: AccessKind = AccessKind.READ) -> Any:
        value = self._cell_value(mem, idx, t)
        if mem.can_race:
            self._log_access(mem, idx, t, kind, fld)
        if fld is not None and isinstance(value, tuple):
            fields = mem.elem.fields
            return value[fields.index(fld)] if fld in fields else value[0]
        return value

    def _log_access(self, mem: Memory, idx: int, t: int, kind: AccessKind, fld: str | None,
                    value: Any = UNKNOWN) -> None:
        """Log an element access (``value``: a write's stored value, of the component ``fld``
        where given); a component ``fld`` only where the element has fields."""
        if fld is None or mem.elem.kind != "vec":
            self._access(mem, idx, t, kind, value=value)
        else:
            self._access(mem, idx, t, kind, None, fld, value=value)

    def _view_element(self, mem: Memory, offset: int, view: CType) -> int | None:
        """The element a byte-view access at ``offset`` is, when it is exactly one element."""
        size = sizeof(mem.elem)
        if size is not None and sizeof(view) == size and offset % size == 0:
            return offset // size
        return None

    def _view_parts(self, mem: Memory, offset: int, view: CType) -> list[int] | None:
        """The elements a vector view (``float4`` over ``float``) covers, one per component."""
        size = sizeof(mem.elem)
        comp = view.elem
        if view.kind != "vec" or comp is None or size is None or sizeof(comp) != size \
                or offset % size != 0 or sizeof(view) is None:
            return None
        return [offset // size + k for k in range(len(view.fields))]

    def _read_view(self, mem: Memory, offset: int, t: int, view: CType) -> Any:
        """A read through a byte view at byte ``offset``: the element's value where the view
        is one element or a vector of elements; otherwise (bytes of a word) a value of the
        view's type that is not the stored bytes -- values are approximate there, races exact."""
        if mem.can_race:
            self._access(mem, offset, t, AccessKind.READ, view)
        one = self._view_element(mem, offset, view)
        if one is not None:
            return convert(self._cell_value(mem, one, t), view)
        parts = self._view_parts(mem, offset, view)
        if parts is not None:
            return tuple(convert(self._cell_value(mem, p, t), view.elem or FLOAT) for p in parts)
        return default_value(view, self.seed, mem.name, "view", offset)

    def _write_view(self, mem: Memory, offset: int, t: int, value: Any, view: CType) -> None:
        """A store through a byte view (see :meth:`_read_view` for the values kept)."""
        if mem.space in (Space.CONSTANT, Space.TEXTURE):
            raise Unsupported(f"write to read-only memory '{mem.name}'", self.label)
        one = self._view_element(mem, offset, view)
        parts = self._view_parts(mem, offset, view) if one is None else None
        store = (self.local.setdefault(mem.name, {}).setdefault(t, {})
                 if mem.space == Space.LOCAL else self._store(mem))
        if one is not None:
            store[one] = convert(value, mem.elem)
        elif parts is not None and isinstance(value, tuple):
            for p, v in zip(parts, value, strict=False):
                store[p] = convert(v, mem.elem)
        if mem.can_race:
            self._access(mem, offset, t, AccessKind.WRITE, view, value=convert(value, view))

    def _write(self, mem: Memory, idx: int, t: int, value: Any, fld: str | None,
               kind: AccessKind = AccessKind.WRITE) -> None:
        if mem.space in (Space.CONSTANT, Space.TEXTURE):
            raise Unsupported(f"write to read-only memory '{mem.name}'", self.label)
        if fld is not None and mem.elem.kind == "vec":
            cur = self._cell_value(mem, idx, t)
            parts = list(cur) if isinstance(cur, tuple) else [cur]
            fields = mem.elem.fields
            pos = fields.index(fld) if fld in fields else 0
            parts[pos] = convert(value, mem.elem.elem or FLOAT)
            new: Any = tuple(parts)
            stored = parts[pos]
        else:
            new = convert(value, mem.elem)
            stored = new
        if mem.space == Space.LOCAL:
            self.local.setdefault(mem.name, {}).setdefault(t, {})[idx] = new
        else:
            self._store(mem)[idx] = new
        if mem.can_race:
            self._log_access(mem, idx, t, kind, fld, stored)


def _numeric(t: CType) -> CType:
    """The type a concrete run computes ``t``'s values in: a pointer is a 64-bit integer
    (an address), ``void``/unknown operands are ``int``."""
    if t.kind == "ptr":
        return LONG
    return t if t.kind in ("int", "float", "vec") else INT


def _atomic_new(op: str, old: Any, args: list[Any], elem: CType) -> Any:
    """The value an atomic ``op`` leaves in a cell holding ``old``."""
    a = args[0] if args else 0
    if op == "add":
        return convert(arith("+", convert(old, elem), convert(a, elem), elem), elem)
    if op == "sub":
        return convert(arith("-", convert(old, elem), convert(a, elem), elem), elem)
    if op in ("exch", "xchg"):
        return convert(a, elem)
    if op == "min":
        return convert(min(old, convert(a, elem)), elem)
    if op == "max":
        return convert(max(old, convert(a, elem)), elem)
    if op == "inc":  # ((old >= a) ? 0 : old + 1), unsigned
        return convert(0 if old >= convert(a, elem) else old + 1, elem)
    if op == "dec":
        return convert(a if old == 0 or old > convert(a, elem) else old - 1, elem)
    if op == "cas":
        compare, val = (args + [0, 0])[:2]
        return convert(val, elem) if old == convert(compare, elem) else old
    if op in ("and", "or", "xor"):
        sym = {"and": "&", "or": "|", "xor": "^"}[op]
        return convert(arith(sym, to_int(old), to_int(a), elem), elem)
    return default_value(elem, "atomic", op, old, tuple(args))
