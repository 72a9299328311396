"""``dynamic``, annotations: GPUVerify's checked annotations in a concrete run.

An :class:`kpl.ast.Assert` (``__assert``, the ``__requires`` of an inlined function,
``__ensures``, loop invariants; :mod:`kpl.frontend.annotations`) is checked for every enabled
thread.  One that relates the two threads of a pair (``__other_int``, ``__uniform_int``,
``__same_group``) is checked for every pair of distinct threads of the block
(:meth:`AnnotationChecks.holds`: the partner ranges over all threads of the block, as the
second thread of GPUVerify's two-thread reduction does; threads of two blocks are not
paired -- the run is no proof, and ``sdv`` checks those pairs).  An annotation's reads are not
accesses of the kernel (nvcc compiles annotations to nothing), so they are not logged.
``__read(A)``/``__write(A)`` and ``__write_implies`` read a per-thread log of the current
barrier interval, kept only for kernels that use them.
"""

from __future__ import annotations

from typing import Any

from kpl.ast import Assert, Assume, CType, Expr, Kernel, Memory, Spec, walk_expr, walk_stmts
from kpl.ctypes import sizeof
from oracle.base import AccessKind, Witness
from oracle.dynamic.evaluator import Evaluator, Unsupported
from oracle.dynamic.races import UNKNOWN
from oracle.dynamic.values import Dim3, truthy

__all__ = ["AnnotationChecks"]


class AnnotationChecks(Evaluator):
    """The annotation half of a concrete run (a base of :class:`oracle.dynamic.executor._Run`)."""

    T: int
    tids: list[Dim3]
    block_id: Dim3

    def init_annotations(self, kernel: Kernel) -> None:
        #: failed assertions: label -> (Assert.kind, a witness with the failing thread)
        self.failed_asserts: dict[int, tuple[str, Witness]] = {}
        self.quiet = False  # evaluating an annotation: its reads are not logged
        self.other: int | None = None  # the partner thread of a two-thread annotation
        self.enabled: set[int] = set()  # the threads that run the annotation being checked
        #: offsets bound by ``__write_implies``: (kind, array) -> thread -> byte offset
        self.bound: dict[tuple[str, str], dict[int, int]] = {}
        #: ``__read``/``__write`` are used: log (kind, array, thread) -> byte offsets
        self.track = any(isinstance(x, Spec) and x.mem is not None
                         for s in walk_stmts(kernel.body) if isinstance(s, (Assert, Assume))
                         for x in walk_expr(s.cond))
        self.interval: dict[tuple[str, str, int], list[int]] = {}

    def check_assert(self, stmt: Assert, act: list[int]) -> None:
        """``stmt`` for the threads ``act`` that run it (a ``global_*`` kind: for every
        thread of the block, GPUVerify's global annotations)."""
        every = list(range(self.T)) if stmt.kind.startswith("global_") else act
        ok = self.holds(stmt.cond, every, enabled=act)
        bad = next((t for t, good in zip(every, ok, strict=True) if not good and t in act), None)
        if bad is None and not all(ok):
            # false only where a thread does not run the code: the run never computed that
            # thread's values there (its arguments, its locals), so no verdict either way
            raise Unsupported("a global annotation evaluated for a thread that does not run "
                              "it (its values there are not computed by a concrete run)",
                              self.label)
        if bad is not None and stmt.label not in self.failed_asserts:
            tid = self.tids[bad]
            self.failed_asserts[stmt.label] = (stmt.kind, Witness(tid, tid, self.block_id,
                                                                  self.block_id))

    def holds(self, cond: Expr, act: list[int], enabled: list[int] | None = None) -> list[bool]:
        """Whether ``cond`` holds for each enabled thread -- for every partner thread of the
        block when it relates two threads; its reads are not logged.  Partners are grouped
        by the values ``__other_int`` reads from them: one evaluation per distinct group
        (a thread is no partner of itself, so a group of one skips that thread)."""
        others = [x for x in walk_expr(cond) if isinstance(x, Spec) and x.name == "other"]
        pair = bool(others) or any(isinstance(x, Spec) and x.name == "same_group"
                                   for x in walk_expr(cond))
        self.quiet = True
        self.enabled = set(act if enabled is None else enabled)
        try:
            if not pair:
                return [truthy(v) for v in self.ev(cond, act)]
            everyone = list(range(self.T))
            columns = [self.ev(x.args[0], everyone) for x in others]
            groups: dict[tuple[Any, ...], list[int]] = {}
            for u in everyone:
                groups.setdefault(tuple(repr(col[u]) for col in columns), []).append(u)
            ok = [True] * len(act)
            for members in groups.values():
                self.other = members[0]
                alone = members[0] if len(members) == 1 else None
                sub = [k for k, t in enumerate(act) if t != alone and ok[k]]
                if sub:
                    for k, v in zip(sub, self.ev(cond, [act[k] for k in sub]), strict=True):
                        ok[k] = ok[k] and truthy(v)
            return ok
        finally:
            self.quiet = False
            self.other = None

    def visit_Spec(self, e: Spec, act: list[int]) -> list[Any]:
        if e.name == "other":
            if self.other is None:
                raise Unsupported("'__other_int' outside an annotation", self.label)
            value = self.ev(e.args[0], [self.other])[0]
            return [value] * len(act)
        if e.name == "same_group":
            return [1] * len(act)  # partners are threads of the same block
        if e.name == "enabled":  # ``__enabled()`` of the partner (or any thread: global)
            return [1 if t in self.enabled else 0 for t in act]
        if e.mem is not None and e.name in ("read", "write"):
            return [1 if self.interval.get((e.name, e.mem.name, t)) else 0 for t in act]
        if e.mem is not None and e.name in ("read_offset", "write_offset"):
            bound = self.bound.get((e.name[:-len("_offset")], e.mem.name))
            if bound is None:
                raise Unsupported(f"'__{e.name}_bytes' outside '__{e.name[:-7]}_implies' is not "
                                  "modelled by the dynamic oracle", self.label)
            return [bound[t] for t in act]
        if e.mem is not None and e.name in ("read_implies", "write_implies"):
            kind = e.name[:-len("_implies")]
            key = (kind, e.mem.name)
            out = []
            for t in act:
                good = True
                for off in self.interval.get((kind, e.mem.name, t), []):
                    self.bound[key] = {t: off}
                    good = good and truthy(self.ev(e.args[0], [t])[0])
                self.bound.pop(key, None)
                out.append(1 if good else 0)
            return out
        raise Unsupported(e.name, self.label)

    def _access(self, mem: Memory, idx: int, t: int, kind: AccessKind,
                view: CType | None = None, fld: str | None = None, value: Any = UNKNOWN) -> None:
        if self.quiet:
            return
        if self.track and kind is not AccessKind.ATOMIC:
            if view is not None:
                off = idx
            else:
                off = idx * (sizeof(mem.elem) or 1)
                if fld is not None and fld in mem.elem.fields and mem.elem.elem is not None:
                    off += mem.elem.fields.index(fld) * (sizeof(mem.elem.elem) or 1)
            self.interval.setdefault((kind.value, mem.name, t), []).append(off)
        super()._access(mem, idx, t, kind, view, fld, value)
