"""The memory model of the SDV executor: what an access of an array is, and where it goes.

Stage: memory accesses (above expressions: :class:`MemoryAccesses` extends
:class:`oracle.sdv.expr.ExprEvaluator` with ``ev_Load``/``ev_Atomic``).  Shared and global
arrays are not stored -- every access is *logged* (:class:`oracle.sdv.state.Access`: label,
kind, thread, location, predicate, barrier epoch, enclosing loop iterations) and every read
returns a fresh value (the adversarial abstraction of GPUVerify,
[WarpsAtomics] Sec. 2.3: another thread may have written anything).  Thread-local arrays are z3
arrays in the thread's variables; constant and texture memory is an uninterpreted function
of the index, the same for every thread.

A location is an element index (64-bit) plus an optional vector component; two accesses hit
the same location when :func:`same_element` and :func:`fields_compatible` hold.  An access
through a pointer cast (a *byte view*, ``view`` set) has a BYTE offset instead; when either
side of a query has one, both sides are compared as byte ranges ``[offset, offset + width)``
(:func:`byte_range`), which overlap by one unsigned comparison.  Kernels that never cast
keep the plain equality test.  Everything
that knows how a location is computed or compared is in this module (the race query of
:mod:`oracle.sdv.pairs` only combines :class:`AccessSide` terms), so turning locations into byte
ranges is a change here.

Values (issue 12): a read returns :meth:`MemoryAccesses.read_value` (the equality abstraction
of :mod:`oracle.sdv.memfacts`, else fresh), an atomic :meth:`MemoryAccesses.atomic_value`,
and a write logs its stored value for the benign-write test (:func:`values_differ`), with the
no-overflow facts about its own adversarial reads' values, which nothing else mentions (held
back from the solver: :func:`holds_value`, :func:`value_facts`, ``oracle.sdv.defined``).  Why one
piece over 400 lines: what a location is, what it holds and how two of them compare are one
model -- the benign test needs the shapes the byte-range test uses, and the read model the
update log the race query uses.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import z3

from kpl import ast as K
from kpl.ast import ALL_FENCES, CType, Memory, Space
from kpl.ctypes import sizeof
from oracle.base import AccessKind
from oracle.sdv.encode import (
    Val,
    apply_uf,
    conv,
    fresh,
    index64,
    int_const,
    is_false,
    ite,
    sort_of,
    vec_elem,
    vec_fields,
    z3_sort,
)
from oracle.sdv.expr import ExprEvaluator
from oracle.sdv.memfacts import MemFacts, mem_facts
from oracle.sdv.state import Access, BarrierHit, expr_pure, mk_or, simp

#: the integer standing for an access kind inside z3 terms (a selector picks among kinds)
KIND_CODE = {AccessKind.READ: 0, AccessKind.WRITE: 1, AccessKind.ATOMIC: 2}


_FIELDS = {"x": 0, "y": 1, "z": 2, "w": 3}


def field_code(f: str | None) -> int:
    """An integer naming a vector component (-1: the whole element)."""
    return -1 if f is None else _FIELDS.get(f, 4 + sum(map(ord, f)))


class AccessSide:
    """All logged instances of one label (one thread, one array) as ONE symbolic access,
    chosen by a selector variable: keeps each race query linear in the number of instances.
    ``levels`` is the number of enclosing-loop iteration numbers kept (-1 where missing)."""

    def __init__(self, insts: list[Access], levels: int, name: str) -> None:
        self.insts = insts
        n = len(insts)
        self.sel: z3.ArithRef | None = None
        if n == 1:
            a = insts[0]
            self.pred: z3.BoolRef = a.pred
            self.index: z3.BitVecRef = a.index
            self.epoch: z3.ArithRef = a.epoch
            self.waits: z3.ArithRef = a.waits
            self.copy = a.copy
            self.kind: z3.ArithRef = z3.IntVal(KIND_CODE[a.kind])
            self.field: z3.ArithRef = z3.IntVal(field_code(a.field))
            self.tags = [a.tags[j][1] if j < len(a.tags) else z3.IntVal(-1)
                         for j in range(levels)]
            return
        sel = z3.FreshInt(name)
        self.sel = sel
        chose = [sel == i for i in range(n - 1)]

        def pick(vals: list[Any]) -> Any:
            # the chosen instance's value; a run of equal values at the end is one term
            # (every instance of a statement usually has the same kind, field and epoch)
            v = vals[-1]
            for i in range(n - 2, -1, -1):
                if v is not vals[-1] or not vals[i].eq(v):
                    v = z3.If(chose[i], vals[i], v)
            return v

        self.pred = z3.And(sel >= 0, sel < n, pick([a.pred for a in insts]))
        self.index = pick([a.index for a in insts])
        self.epoch = pick([a.epoch for a in insts])
        self.waits = pick([a.waits for a in insts])
        self.copy = insts[0].copy  # one label: one statement, a copy or not
        self.kind = pick([z3.IntVal(KIND_CODE[a.kind]) for a in insts])
        self.field = pick([z3.IntVal(field_code(a.field)) for a in insts])
        self.tags = [pick([a.tags[j][1] if j < len(a.tags) else z3.IntVal(-1) for a in insts])
                     for j in range(levels)]

    @staticmethod
    def of(cache: dict[tuple[Any, ...], AccessSide], insts: list[Access], levels: int,
           name: str) -> AccessSide:
        """The side of ``insts`` built once per check (``cache``: the run's): its terms are
        the same for every pair query it is part of, and a selector shared by two queries
        is harmless, since each query is asked on its own (pushed and popped)."""
        key = (tuple(id(a) for a in insts), levels)
        side = cache.get(key)
        if side is None:
            side = cache[key] = AccessSide(insts, levels, name)
        return side

    def chosen(self, m: z3.ModelRef) -> Access:
        """The instance the model ``m`` picked."""
        if self.sel is None:
            return self.insts[0]
        i = m.eval(self.sel, model_completion=True).as_long()  # type: ignore[attr-defined]
        return self.insts[max(0, min(len(self.insts) - 1, i))]

    def kind_is(self, k: AccessKind) -> z3.BoolRef:
        """The chosen instance is a ``k`` access."""
        return self.kind == KIND_CODE[k]  # type: ignore[no-any-return]

    def written_value(self) -> tuple[Any, Any] | None:
        """(shape, value) of the chosen instance when it is a write: the shape is (view,
        field) and must be one for every write instance; None where some write's value is
        unknown or the shapes differ (a benign-write check then cannot apply)."""
        writes = [a for a in self.insts if a.kind is AccessKind.WRITE]
        if not writes:
            return None
        shape = (repr(writes[0].view), writes[0].field)
        vals: list[Any] = []
        for a in writes:
            if a.value is None or (repr(a.view), a.field) != shape:
                return None
            vals.append(a.value)
        ref = vals[0]
        if any(not _same_shape(ref, v) for v in vals):
            return None
        if self.sel is None:
            return shape, ref
        sel = self.sel
        picked = [a.value if a.kind is AccessKind.WRITE else ref for a in self.insts]
        out = picked[-1]
        for i in range(len(picked) - 2, -1, -1):
            out = ite(sel == i, picked[i], out)
        return shape, out

    @property
    def has_fields(self) -> bool:
        return any(a.field is not None for a in self.insts)

    @property
    def has_views(self) -> bool:
        return any(a.view is not None for a in self.insts)

    def byte_range(self) -> tuple[z3.BitVecRef, z3.BitVecRef] | None:
        """(byte offset, width in bytes) of the chosen instance; None where some instance
        has no byte layout (a struct element): the caller must assume an overlap."""
        offs: list[z3.BitVecRef] = []
        widths: list[int] = []
        for a in self.insts:
            rng = byte_range(a)
            if rng is None:
                return None
            offs.append(rng[0])
            widths.append(rng[1])
        if self.sel is None:
            return offs[0], z3.BitVecVal(widths[0], 64)
        sel = self.sel
        off, width = offs[-1], z3.BitVecVal(widths[-1], 64)
        for i in range(len(offs) - 2, -1, -1):
            off = z3.If(sel == i, offs[i], off)
            width = z3.If(sel == i, z3.BitVecVal(widths[i], 64), width)
        return off, width


def byte_range(a: Access) -> tuple[z3.BitVecRef, int] | None:
    """The bytes ``a`` touches, as (offset from the array base, width); None: no layout."""
    if a.view is not None:
        w = sizeof(a.view)
        return (a.index, w) if w is not None else None
    size = sizeof(a.mem.elem)
    if size is None:
        return None
    off = a.index * size
    if a.field is None:
        return off, size
    comp = a.mem.elem.elem
    csize = sizeof(comp) if comp is not None else None
    if csize is None or a.field not in a.mem.elem.fields:
        return None
    return off + a.mem.elem.fields.index(a.field) * csize, csize


def shown_index(a: Access) -> z3.BitVecRef:
    """The index of ``a`` as the user sees it: in elements of the type it accesses (a byte
    view's byte offset divided by the view's size)."""
    size = sizeof(a.view) if a.view is not None else None
    return a.index if size is None or size == 1 else z3.UDiv(a.index, size)


def same_element(a1: AccessSide, a2: AccessSide) -> z3.BoolRef:
    """The two accesses hit the same array element -- or, where either goes through a byte
    view, their byte ranges overlap: ``-w1 < o1 - o2 < w2``, i.e. ``o1 - o2 + w1 - 1 <u w1 + w2 - 1``."""
    if not (a1.has_views or a2.has_views):
        return a1.index == a2.index  # type: ignore[no-any-return]
    r1, r2 = a1.byte_range(), a2.byte_range()
    if r1 is None or r2 is None:
        return z3.BoolVal(True)
    (o1, w1), (o2, w2) = r1, r2
    return z3.ULT(o1 - o2 + w1 - 1, w1 + w2 - 1)


def holds_value(e: K.Expr) -> bool:
    """Can the no-overflow facts about the reads of the stored value ``e`` be held back
    (``DefinedArithmetic._holdable``)?  Only where those reads' values cannot reach anything
    but ``e``'s own result: arithmetic, casts, variables and constants over reads whose
    indices read no memory -- no call, atomic, ``?:``, ``&&`` or ``||`` (which would put a
    read's value into a logged index or predicate)."""
    for x in K.walk_expr(e):
        if isinstance(x, K.Load):
            if not expr_pure(x.index):
                return False
        elif isinstance(x, K.Binary):
            if x.op in ("&&", "||", ","):
                return False
        elif not isinstance(x, (K.Const, K.Var, K.Unary, K.Cast)):
            return False
    return True


def free_value(value: Val, reads: dict[int, tuple[z3.ExprRef, int]],
               ops: list[tuple[str, z3.BitVecRef, z3.BitVecRef | None]]) -> bool:
    """Can the stored ``value`` differ from any given value, whatever the rest of the run?
    True for ``r`` or ``c + r`` (``A[tid] + k``, simplified), ``r`` a read's fresh value
    (``reads``) whose only constraint is at most one held fact ``r ± c'`` (``ops``, the
    held facts of the evaluation, none released): ``r`` ranges over an interval around 0
    of 2^(n-1) values or more, and ``c + r`` takes as many.  Then the benign-write half of a
    race query (the values differ) holds for every model of the rest, and its answer is the
    value-free one (``oracle.sdv.pairs.class_pair_results``)."""
    if not isinstance(value, z3.BitVecRef):
        return False

    def read(v: z3.ExprRef) -> bool:  # a read's fresh value itself (not a held sum of them)
        return v.get_id() in reads and z3.is_const(v) and not z3.is_bv_value(v)
    r = value
    if not read(r):
        if not (z3.is_app_of(value, z3.Z3_OP_BADD) and value.num_args() == 2):
            return False
        a, b = value.arg(0), value.arg(1)
        r = b if z3.is_bv_value(a) else a if z3.is_bv_value(b) else value
        if not read(r):
            return False
    if not ops:
        return True
    if len(ops) > 1:
        return False
    op, x, y = ops[0]
    return op in ("+", "-") and y is not None and (
        (x.eq(r) and z3.is_bv_value(y)) or (op == "+" and y.eq(r) and z3.is_bv_value(x)))


def value_facts(a1: AccessSide, a2: AccessSide) -> list[z3.BoolRef]:
    """The no-overflow facts about the two sides' stored values that were held back from
    the solver (``Access.value_facts``): a query that compares the values needs them."""
    return [make() for a in a1.insts + a2.insts for make in a.value_facts]


def _same_shape(a: Any, b: Any) -> bool:
    """Two stored values of one kind: scalars of one sort, or vectors with the same fields."""
    if isinstance(a, dict) or isinstance(b, dict):
        return isinstance(a, dict) and isinstance(b, dict) and a.keys() == b.keys() and all(
            _same_shape(a[k], b[k]) for k in a)
    return isinstance(a, z3.ExprRef) and isinstance(b, z3.ExprRef) and a.sort() == b.sort()


def _differ(a: Any, b: Any) -> z3.BoolRef:
    if isinstance(a, dict):
        return z3.Or([_differ(a[k], b[k]) for k in a])
    return a != b  # type: ignore[no-any-return]


def values_differ(a1: AccessSide, a2: AccessSide) -> z3.BoolRef | None:
    """The two chosen writes may store different bytes (benign write-write pairs are those
    where they cannot, GPUVerify's default; [WarpsAtomics] Sec. 2.3).  None: no claim can be
    made (a value is unknown, or the two writes have different shapes), so the pair stays a
    race.  Through a byte view the offsets must be equal too: one value stored at two
    overlapping offsets writes different bytes."""
    w1, w2 = a1.written_value(), a2.written_value()
    if w1 is None or w2 is None or w1[0] != w2[0] or not _same_shape(w1[1], w2[1]):
        return None
    differ = _differ(w1[1], w2[1])
    if a1.has_views or a2.has_views:
        differ = z3.Or(differ, a1.index != a2.index)
    return differ


def fields_compatible(a1: AccessSide, a2: AccessSide) -> z3.BoolRef | None:
    """Within one element, the accessed components overlap (None: always, no components;
    also where byte ranges were compared, since they include the components)."""
    if a1.has_views or a2.has_views:
        return None
    if a1.has_fields and a2.has_fields:
        return z3.Or(a1.field == -1, a2.field == -1, a1.field == a2.field)
    return None


class MemoryAccesses(ExprEvaluator):
    """Stage: the executor's visitor methods for memory nodes (``Load``, ``Atomic``, stores
    to ``MemElem``) and the access log."""

    def log(self, kind: AccessKind, mem: Memory, idx: z3.BitVecRef, t: int, pred: z3.BoolRef,
            fld: str | None, view: CType | None = None, value: Val = None,
            value_facts: tuple[Callable[[], z3.BoolRef], ...] = (), free: bool = False) -> None:
        if not mem.can_race or is_false(pred):
            return
        if kind is not AccessKind.READ:
            # the thread's own update: its later reads of this array in this interval no
            # longer see the interval's start value (a symbolic epoch: in every interval)
            ep = int_const(self.epoch)
            self.dirty[t] = self.dirty[t] | {(mem.name, ep)}
        if not self.same and mem.space != Space.GLOBAL:
            return
        if not self.in_view(mem):
            return  # its races are another view's (``Machine.view``)
        known = self.simple_index.get(idx.get_id())
        if known is None:
            known = self.simple_index[idx.get_id()] = (idx, simp(idx))
        self.accesses.append(Access(self.label, kind, mem, t, known[1], pred, self.epoch,
                                    tuple(self.tags), fld, view, value, self.waits,
                                    self.copying, value_facts, free))

    def in_view(self, mem: Memory) -> bool:
        """Does this run's epoch order accesses of ``mem``?  Outside the view (``Machine.view``)
        its accesses are not logged and its reads are fresh values: the epoch says nothing
        of when another thread's writes to it became visible."""
        return self.view is None or mem.space == self.view or mem.space not in ALL_FENCES

    @property
    def facts(self) -> MemFacts:
        if self._mem_facts is None:
            self._mem_facts = mem_facts(self.kernel)
        return self._mem_facts  # type: ignore[no-any-return]

    def read_value(self, e: K.Load, idx: z3.BitVecRef, t: int) -> Val:
        """The value thread ``t`` reads from ``e.mem[idx]`` (see :mod:`oracle.sdv.memfacts`):
        one function of the cell for a read-only array; one function of (interval, cell),
        the same for both threads, where the equality abstraction applies, the interval's
        epoch is a known number, no loop around is abstracted (earlier iterations' own
        writes are unknown there) and the thread has not itself updated the array in this
        interval; otherwise a fresh value (adversarial abstraction)."""
        mem = e.mem
        facts = self.facts
        args: list[z3.ExprRef]
        if mem.name in facts.read_only and (self.same or mem.space == Space.GLOBAL):
            args, tag = [idx], "ro"
        elif self.same and facts.equal_reads and self.in_view(mem):
            # barriers decide this read's value: the interval it names, or fresh (logged:
            # answers shared across candidate kernels are keyed on it, ``events``)
            ep: int | str | None = int_const(self.epoch)
            floor = self.epoch_floor
            if ep is None and floor is not None and self.abstract_depth == 0 and not any(
                    n == mem.name and (x is None or x >= floor) for n, x in self.dirty[t]):
                ep = "symbolic"  # after an abstracted loop: the interval is the epoch term
            elif (self.abstract_depth > 0 or ep is None or (mem.name, ep) in self.dirty[t]
                    or (mem.name, None) in self.dirty[t]):
                ep = None
            self.events.append(("read", mem.name, ep))
            if ep is None:
                return self._fresh_read(e)
            args, tag = [self.epoch, idx], "at"
        else:
            return self._fresh_read(e)
        base = f"mem.{tag}.{mem.name}"
        if e.view is not None:
            s = sort_of(e.view)
            if s is None:
                return self._fresh_read(e)
            return conv(apply_uf(f"{base}#{e.view!r}", args, s), e.view, e.type)
        elem = mem.elem
        if elem.kind == "vec":
            vals = {f: apply_uf(f"{base}.{f}", args, z3_sort(vec_elem(elem)))
                    for f in vec_fields(elem)}
            if e.field is not None and e.field in vals:
                return conv(vals[e.field], vec_elem(elem), e.type)
            return conv(vals, elem, e.type)
        s = sort_of(elem)
        if s is None or e.field is not None:
            return self._fresh_read(e)
        return conv(apply_uf(base, args, s), elem, e.type)

    def _fresh_read(self, e: K.Load) -> Val:
        """An adversarial read's value: fresh (registered while a stored value is evaluated,
        ``value_reads``)."""
        v = fresh(e.type, f"rd.{e.mem.name}")
        if self.value_reads is not None and isinstance(v, z3.BitVecRef):
            self.value_reads[v.get_id()] = (v, 0)
        return v

    def atomic_value(self, e: K.Atomic, idx: z3.BitVecRef, t: int, pred: z3.BoolRef) -> Val:
        """The old value an atomic returns: fresh, but for a repetition-free counter
        (:mod:`oracle.sdv.memfacts`) distinct from the other thread's results on the same
        cell in the same interval ([WarpsAtomics] Sec. 4.2); in ``cross`` mode (two blocks)
        only for global counters, over the whole launch."""
        r = fresh(e.type, f"atomic.{e.mem.name}")
        mem = e.mem
        if mem.name not in self.facts.counters or not isinstance(r, z3.ExprRef) \
                or is_false(pred) or (not self.same and mem.space != Space.GLOBAL) \
                or not self.in_view(mem):
            return r
        for t2, name, idx2, pred2, ep2, r2 in self.atomic_results:
            if t2 == t or name != mem.name or r2.sort() != r.sort():
                continue
            same = [pred, pred2, idx == idx2]
            if self.same:
                same.append(self.epoch == ep2)
            self.q.add(z3.Implies(z3.And(same), r != r2))
        self.atomic_results.append((t, mem.name, idx, pred, self.epoch, r))
        return r

    def address(self, index: K.Expr, t: int, pred: z3.BoolRef) -> z3.BitVecRef:
        """The location of ``mem[index]`` for thread ``t`` (reads in ``index`` are logged)."""
        v = self.ev(index, t, pred)
        if not isinstance(v, z3.BitVecRef):
            return index64(v, index.type)
        key = (v.get_id(), index.type.kind != "int" or index.type.signed)
        known = self.locations.get(key)
        if known is None:
            known = self.locations[key] = (v, index64(v, index.type))
        return known[1]

    def local_array(self, mem: Memory) -> Val:
        elem = mem.elem
        if elem.kind == "vec":
            return {f: z3.FreshConst(z3.ArraySort(z3.BitVecSort(64), z3_sort(vec_elem(elem))),
                                     f"local.{mem.name}.{f}") for f in vec_fields(elem)}
        s = z3_sort(elem)
        return z3.FreshConst(z3.ArraySort(z3.BitVecSort(64), s), f"local.{mem.name}")

    def ev_Load(self, e: K.Load, t: int, pred: z3.BoolRef) -> Val:
        mem = e.mem
        if self.value_reads is None:
            idx = self.address(e.index, t, pred)
        else:  # in a held stored value the index reads no memory (holds_value): no held value
            self.q.beside += 1
            try:
                idx = self.address(e.index, t, pred)
            finally:
                self.q.beside -= 1
        if mem.can_race:
            value = self.read_value(e, idx, t)
            self.log(AccessKind.READ, mem, idx, t, pred, e.field, e.view)
            return value
        if e.view is not None:
            # a byte view of a local/constant array: its value is not modelled (any value)
            return self._fresh_read(e)
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
        if mem.init is not None and e.field is None and elem.kind == "int":
            # known contents (``Memory.init``); past its end any value, as any read's
            s = z3.BitVecSort(elem.bits)
            out = ite(z3.ULT(idx, len(mem.init)), z3.BitVecVal(0, s), apply_uf(f"mem.{mem.name}", [idx], s))
            for i, v in enumerate(mem.init):
                if v:
                    out = ite(idx == i, z3.BitVecVal(v, s), out)
            return conv(out, elem, e.type)
        if elem.kind == "vec":
            vals = {f: apply_uf(f"mem.{mem.name}.{f}", [idx], z3_sort(vec_elem(elem)))
                    for f in vec_fields(elem)}
            if e.field is not None and e.field in vals:
                return conv(vals[e.field], vec_elem(elem), e.type)
            return vals
        s = sort_of(elem)
        if s is None:
            return self._fresh_read(e)
        return conv(apply_uf(f"mem.{mem.name}", [idx], s), elem, e.type)

    def ev_Atomic(self, e: K.Atomic, t: int, pred: z3.BoolRef) -> Val:
        idx = self.address(e.index, t, pred)
        for a in e.args:
            self.ev(a, t, pred)
        value = self.atomic_value(e, idx, t, pred)
        self.log(AccessKind.ATOMIC, e.mem, idx, t, pred, None, e.view)
        return value

    def assign_MemElem(self, s: K.Assign, t: int) -> None:
        """``mem[index] = value`` for thread ``t``: index first, then the value.  An async
        copy's indices are plain variables (the front end's): every access is the copy's.
        A copy is a work-group function: both threads must reach it (divergence, as a
        barrier)."""
        if s.async_copy and self.same and t == 0:
            self.barriers.append(BarrierHit(s.label, (self.th[0].pred, self.th[1].pred)))
        self.copying = s.async_copy
        try:
            self._assign_elem(s, t)
        finally:
            self.copying = False

    def visit_WaitEvents(self, s: K.WaitEvents) -> None:
        """OpenCL's ``wait_group_events``: the async copies issued before it are complete for
        the whole group (``Access.copy``/``Access.waits``, the race query of
        :mod:`oracle.sdv.verifier`); plain accesses keep their epoch.  A work-group function:
        both threads must reach it (divergence, as a barrier).  Inside an abstracted loop it
        counts from the iteration's havocked count (:mod:`oracle.sdv.loops`)."""
        p1, p2 = self.th[0].pred, self.th[1].pred
        if not self.same:
            return  # across groups it orders nothing
        self.barriers.append(BarrierHit(s.label, (p1, p2)))
        if s.completes:
            self.waits = simp(z3.If(mk_or(p1, p2), self.waits + 1, self.waits))

    def _assign_elem(self, s: K.Assign, t: int) -> None:
        assert isinstance(s.target, K.MemElem)
        th = self.th[t]
        pred = th.pred
        tgt = s.target
        mem = tgt.mem
        idx = self.address(tgt.index, t, pred)
        hold = mem.can_race and holds_value(s.value)
        if hold:  # its facts about its own reads' values are held back (DefinedArithmetic)
            self.q.hold()
            self.value_reads = {}
            self.value_ops = []
        try:
            v = self.ev(s.value, t, pred)
        finally:
            facts = self.q.done() if hold else ()
            reads, self.value_reads = self.value_reads, None
        if mem.can_race:
            stored = tgt.view if tgt.view is not None else (
                vec_elem(mem.elem) if tgt.field is not None else mem.elem)
            try:
                value: Val = conv(v, s.value.type, stored)
            except Exception:  # noqa: BLE001 - an odd conversion: the value is simply unknown
                value = None
            free = facts is not None and reads is not None and free_value(value, reads, self.value_ops)
            self.log(AccessKind.WRITE, mem, idx, t, pred, tgt.field, tgt.view, value, facts or (),
                     free)
        elif mem.space == Space.LOCAL and tgt.view is not None:
            # a byte-view store into a local array: forget the whole array (sound for values)
            self.assign_var(t, "@" + mem.name, self.local_array(mem))
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
